# Small types (char uchar short ushort half), read as such and
# combined in the table's accumulator (long, ulong, float). The kernel matrix
# (ladder.cmake, "all all") runs every ladder kernel on them, also on data
# where every element is the type's largest; here: the library's reducer
# (2^24 chars of 127 sum to 2130706432), the program's exact verdicts, the
# refusals, and oclgrind.
add_executable(test_small ${UNIT}/reducer/test_small.c)
target_link_libraries(test_small PRIVATE oclreduction)
ocr_test(small.library LABELS quick small COMMAND test_small)

# The motivating case through the program: every element 127 (--data max).
foreach(k 0 3 6 7)
  cli_test(small_char_127_reduce${k} --rc 0
           --out "^Number of elements: 16777216 \\(char sum in long, seed 1, max data\\)$"
           --out "^Result: 2130706432 \\(reference 2130706432, exact\\)$" --out "^Test PASSED!$"
           -- ${OCR} -n ${k} --type char -s 16M --data max -r 1 --cpu-baseline none)
endforeach()
cli_test(small_uchar_255 --rc 0 --out "^Result: 4278190080 \\(reference 4278190080, exact\\)$"
         --out "^Test PASSED!$" -- ${OCR} --type uchar -s 16M --data max -r 1 --cpu-baseline none)
cli_test(small_ushort_max --rc 0 --out "^Result: 65535196605 \\(reference 65535196605" --out "^Test PASSED!$"
         -- ${OCR} -n 7 --type ushort -s 1000003 --data max -r 1 --cpu-baseline none)
foreach(t char uchar short ushort half)
  foreach(d exact uniform one-sided)
    cli_test(small_${t}_${d} --rc 0 --out "^Test PASSED!$"
             -- ${OCR} -n 7 --type ${t} -s 1000003 --data ${d} -r 1 --cpu-baseline best)
  endforeach()
endforeach()
cli_test(small_half_prod --rc 0 --out "^Test PASSED!$" -- ${OCR} --type half --op prod -s 4103 -r 1 --data uniform)

# argmin/argmax compare the small values themselves (half as the float it
# is): every type and operator, several seeds, odd tails, one launch to the
# end (-M 1; blocked too: a GPU's M would leave 65541 values to the CPU), both
# access patterns, a single work-item; one-sided data puts
# the strict extreme last. Exact: the value and its first index.
foreach(t char uchar short ushort half)
  foreach(op argmin argmax)
    foreach(a "-n;7;--seed;1;-s;1000003" "-n;7;--seed;2;-s;4099;-M;1"
              "-n;7;--seed;3;-s;65541;--access;strided" "-n;7;--seed;4;-s;65541;--access;blocked;-M;1"
              "-n;7;--seed;5;-s;1027;-w;1;-g;1" "-n;7;--seed;6;-s;4103;--data;one-sided;-M;1"
              "-n;7;--seed;7;-s;65537;--data;uniform" "-n;0;--seed;8;-s;4101"
              "-n;3;--seed;9;-s;70001;-M;1" "-n;6;--seed;10;-s;70001")
      string(REPLACE ";" "_" an "${a}")
      string(REGEX REPLACE "[^A-Za-z0-9_]" "" an "${an}")
      cli_test(small_${op}_${t}_${an} --rc 0 --out "^Result: .* at index [0-9]+ \\(reference .* at index [0-9]+, exact\\)$"
               --out "^Test PASSED!$" -- ${OCR} --type ${t} --op ${op} ${a} -r 1 --cpu-baseline best)
    endforeach()
  endforeach()
endforeach()

# Refused with exit 2, before any build.
cli_test(small_argmin_accurate --rc 2 --err "--accurate is for float and double sums, not char argmin"
         --no-out . -- ${OCR} --type char --op argmin --accurate -s 100)
cli_test(small_argmax_lab_kernel --rc 2 --err "--type half needs a kernel that converts it"
         --no-out . -- ${OCR} --type half --op argmax -n race_tail -s 100)
cli_test(small_half_xor --rc 2 --err "needs an integer type, not half" --no-out .
         -- ${OCR} --type half --op xor -s 100)
cli_test(small_half_max_data --rc 2 --err "--data max is for integer types, not half" --no-out .
         -- ${OCR} --type half --data max -s 100)
cli_test(small_accurate --rc 2 --err "--accurate" --no-out . -- ${OCR} --type half --accurate -s 100)
cli_test(small_lab_kernel --rc 2 --err "--type char needs a kernel that converts it" --no-out .
         -- ${OCR} --type char -n race_tail -s 100)
cli_test(small_kernel_file --rc 2 --err "--type short needs a kernel that converts it" --no-out .
         -- ${OCR} --type short --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce2.cl
         --kernel-name reduce2 --elems-per-group 1024)
foreach(m "--stream" "--segments;4" "--split;all" "--tune")
  string(REGEX REPLACE "[^a-z]" "" name "${m}")
  cli_test(small_refuses_${name} --rc 2 --err "reads no uchar data yet" --no-out .
           -- ${OCR} --type uchar -s 1000 ${m})
endforeach()

# oclgrind: the small loads (1- and 2-byte elements, vload_half) in bounds and
# initialized, at odd sizes, all passes on the device.
if(OCLGRIND)
  foreach(k reduce6 reduce7)
    foreach(t char half ushort)
      foreach(n 37 4103)
        ocr_test(oclgrind.small.${k}.${t}.${n} LABELS oclgrind small
                 COMMAND ${OG} 0 ${OCR} -n ${k} --type ${t} -s ${n} -M 1 -r 1)
      endforeach()
    endforeach()
  endforeach()
  ocr_test(oclgrind.small.reduce7.blocked.char LABELS oclgrind small
           COMMAND ${OG} 0 ${OCR} -n 7 --type char -s 4103 -M 1 -r 1 --access blocked)
  ocr_test(oclgrind.small.reduce7.blocked.half LABELS oclgrind small
           COMMAND ${OG} 0 ${OCR} -n 7 --type half -s 4103 -M 1 -r 1 --access blocked)
  # argmin/argmax: the lanes of small values, their keys, every pass
  foreach(t char half)
    foreach(a "--access;strided" "--access;blocked" "-w;4;-g;3")
      string(REGEX REPLACE "[^a-z0-9]" "" an "${a}")
      ocr_test(oclgrind.small.arg.${t}.${an} LABELS oclgrind small
               COMMAND ${OG} 0 ${OCR} -n 7 --type ${t} --op argmax -s 4103 -M 1 -r 1 ${a})
    endforeach()
    ocr_test(oclgrind.small.arg.${t}.reduce6 LABELS oclgrind small
             COMMAND ${OG} 0 ${OCR} -n 6 --type ${t} --op argmin -s 4103 -M 1 -r 1)
  endforeach()
  foreach(t char half)
    ocr_test(oclgrind.arg.lanes.small.${t} LABELS oclgrind PROPERTIES ENVIRONMENT TEST_ARG_N=257
             COMMAND ${OG} 0 $<TARGET_FILE:test_arg> ${PROJECT_SOURCE_DIR}/cl strided:4:3 ${t} 1)
  endforeach()
endif()

# Kernels that mishandle small types must FAIL (kernel_mutant: copies of cl/
# with one mistake in reduce_common.h each).
# integer sums wrapped in the input type (char) instead of the accumulator
kernel_mutant(small narrow "#define OCR_COMBINE(a, b) OCR_WRAP_(a, b, +)"
              "#define OCR_COMBINE(a, b) ((T)(IN_T)OCR_WRAP_(a, b, +))" --type char --data max)
# half's bits read as an integer instead of through vload_half
kernel_mutant(small half_bits "#define OCR_READ(p, i) vload_half((i), (p))"
              "#define OCR_READ(p, i) ((float)((__global const ushort *)(p))[i])" --type half)
# argmin/argmax keys of small values: half's float bits ordered as signed
# integers (negatives backwards), small integers' sign bit not flipped
# (negatives above positives), half read as its raw bits.
kernel_mutant(small arg_half_order "VU o = (b & VSIGN) ? (VU)~b : (VU)(b | VSIGN);"
              "VU o = b ^ VSIGN;" --type half --op argmin)
kernel_mutant(small arg_char_sign "VU o = OCR_CAT(as_, OCR_ARG_VU)(v) ^ VSIGN;"
              "VU o = OCR_CAT(as_, OCR_ARG_VU)(v);" --type char --op argmax)
kernel_mutant(small arg_short_sign "VU o = OCR_CAT(as_, OCR_ARG_VU)(v) ^ VSIGN;"
              "VU o = OCR_CAT(as_, OCR_ARG_VU)(v);" --type short --op argmin)
kernel_mutant(small arg_half_bits "#define OCR_READ(p, i) vload_half((i), (p))"
              "#define OCR_READ(p, i) ((float)((__global const ushort *)(p))[i])" --type half
              --op argmax)
