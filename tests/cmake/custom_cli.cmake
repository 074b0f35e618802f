# oclReduction --preset and --map/--reduce/--neutral (host/cli/custom.c): the
# library's custom reducer on the generated data, checked (presets against C
# loops in double, a free expression against one work-item's run), the
# refusals of the mode table, and mutants of cl/custom.cl that must FAIL.
foreach(p dot nrm2 asum stats)
  cli_test(custom_preset_${p} --rc 0 --out "^Custom ${p}" --out "^Result: PASSED$"
           -- ${OCR} --preset ${p} -s 100003 -r 2)
  cli_test(custom_preset_${p}_double_w64 --rc 0 --out "^Result: PASSED$"
           -- ${OCR} --preset ${p} --type double -w 64 -s 70001 -r 1)
endforeach()
cli_test(custom_map_dot_int --rc 0 --out "^Custom map x\\[i\\] \\* y\\[i\\], reduce a \\+ b: "
         --out "^Result: PASSED$"
         -- ${OCR} --map "x[i] * y[i]" --reduce "a + b" --neutral 0 --type long -s 100003 -r 1)
foreach(t int uint long ulong float double char uchar short ushort)
  cli_test(custom_map_sum_${t} --rc 0 --out "^Result: PASSED$"
           -- ${OCR} --map "x[i] * 3" --reduce "a + b" --neutral 0 --type ${t} -s 4099 -r 1 -w 64)
endforeach()
cli_test(custom_map_max_int --rc 0 --out "^Result: PASSED$"
         -- ${OCR} --map "x[i] ^ y[i]" --reduce "max(a, b)" --neutral INT_MIN --type int -s 100003 -r 1)
cli_test(custom_map_max_float --rc 0 --out "^Result: PASSED$"
         -- ${OCR} --map "fabs(x[i] - y[i])" --reduce "fmax(a, b)" --neutral -INFINITY --type float
            --data uniform -s 100003 -r 1)
cli_test(custom_map_sum_float_small --rc 0 --out "^Result: PASSED$"
         -- ${OCR} --map "x[i] - y[i]" --reduce "a + b" --neutral 0 --type float -s 3 -r 1)
# refusals: a wrong expression (the compiler's: 3, with the text; one that
# leaves its function: 2), the mode table's
cli_test(custom_map_build_error --rc 3 --err "building the custom reduction failed"
         --err "map: x\\[i\\] \\+\\* nosuch" --err "nosuch"
         -- ${OCR} --map "x[i] +* nosuch" --reduce "a + b" --neutral 0 -s 1000 -r 1)
cli_test(custom_map_injection --rc 2 --err "the map closes a bracket it did not open"
         -- ${OCR} --map "x[i]); }" --reduce "a + b" --neutral 0 -s 1000 -r 1)
cli_test(custom_map_define --rc 2 --err "holds a '#'"
         -- ${OCR} --map "x[i] #define" --reduce "a + b" --neutral 0 -s 1000 -r 1)
cli_test(custom_map_needs_reduce --rc 2 --err "--map needs --reduce and --neutral"
         -- ${OCR} --map "x[i]" --reduce "a + b")
cli_test(custom_reduce_alone --rc 2 --err "--reduce applies only with --map"
         -- ${OCR} --reduce "a + b")
cli_test(custom_preset_unknown --rc 2 --err "--preset takes dot, nrm2, asum or stats"
         -- ${OCR} --preset dots)
cli_test(custom_preset_and_map --rc 2 --err "choose one of --preset and --map"
         -- ${OCR} --preset dot --map "x[i]" --reduce "a + b" --neutral 0)
cli_test(custom_preset_int --rc 2 --err "--preset runs on float or double data"
         -- ${OCR} --preset dot --type int)
cli_test(custom_preset_op --rc 2 --err "--op cannot go with --preset" -- ${OCR} --preset dot --op max)
cli_test(custom_preset_csv --rc 2 --err "--preset prints text only" -- ${OCR} --preset dot --format csv)
cli_test(custom_map_half --rc 2 --err "read no half data"
         -- ${OCR} --map "x[i]" --reduce "a + b" --neutral 0 --type half)
# mutants: the coalesced walk's remainder lost (groups of 64), against both
# checks (the reference runs the embedded kernel, one work-item)
set(dir ${CMAKE_CURRENT_BINARY_DIR}/custom_mutants/remainder)
mutant_dir(${dir} custom.cl "for (; ocr_rk_i < ocr_rk_n; ocr_rk_i += ocr_rk_g)"
           "for (; ocr_rk_i < 0; ocr_rk_i += ocr_rk_g)")
cli_test(custom_mutant_remainder_map --rc 1 --out "^Result: FAILED$"
         -- ${OCR} --kernel-dir ${dir} -w 64 --map "x[i]" --reduce "a + b" --neutral 0 -s 100003 -r 1)
cli_test(custom_mutant_remainder_preset --rc 1 --out "^Result: FAILED$"
         -- ${OCR} --kernel-dir ${dir} -w 64 --preset asum --type double -s 100003 -r 1)
