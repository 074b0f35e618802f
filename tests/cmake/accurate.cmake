# Accurate float sums: reduce7 --accurate (OCR_ACCURATE), within one
# ulp of the exact sum and checked to one ulp; the refusals; a kernel that
# drops the compensation FAILS; the same under oclgrind; the Python package's
# cases are in tests/python/test_accurate.py (python.pytest).

# Refused before any OpenCL (exit 2): other kernels, types, operators, modes,
# and build options that let the compiler reassociate.
cli_test(accurate.not_reduce6 --rc 2 --err "--accurate applies only to reduce7, not reduce6"
         -- ${OCR} --accurate --type float)
cli_test(accurate.not_file --rc 2 --err "--accurate applies only to reduce7"
         -- ${OCR} --accurate --type float --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl ${UK})
cli_test(accurate.not_int --rc 2 --err "--accurate is for float and double sums, not int sum"
         -- ${OCR} -n 7 --accurate)
cli_test(accurate.not_max --rc 2 --err "--accurate is for float and double sums, not double max"
         -- ${OCR} -n 7 --accurate --type double --op max)
cli_test(accurate.not_fast_math --rc 2 --err "-cl-fast-relaxed-math lets the compiler reassociate"
         -- ${OCR} -n 7 --accurate --type float --build-options -cl-fast-relaxed-math)
cli_test(accurate.not_unsafe_math --rc 2 --err "-cl-unsafe-math-optimizations lets"
         -- ${OCR} -n 7 --accurate --type float --build-options "-cl-unsafe-math-optimizations")
foreach(mode stream split tune)
  set(arg)
  if(mode STREQUAL "split")
    set(arg all)
  endif()
  cli_test(accurate.not_${mode} --rc 2 --err "--accurate cannot go with --${mode}"
           -- ${OCR} -n 7 --accurate --type float --${mode} ${arg})
endforeach()
cli_test(accurate.not_grade --rc 2 --err "--accurate (cannot go with --grade|is for float and double sums)"
         -- ${OCR} --grade --accurate --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl
            --kernel-name k --elems-per-group 1024)

# Within one ulp, checked to one ulp, on uniform data (and bit for bit on
# exact data): both access patterns, the default M, one launch with the last
# group's finish (-M 1 -g 7) and several launches of pairs (-g 1500 -w 1).
# On the default device: POCL in the suite, Intel's runtime in .ci/intel-opencl.
foreach(t float double)
  foreach(a strided blocked)
    foreach(n 1 2 3 4103 1000003 1048576)
      cli_test(accurate.${t}.${a}.${n} --rc 0 --out "^Accurate sum: on"
               --out "error 0 ulps, bound 1 ulps|error 1 ulps, bound 1 ulps" --out "Test PASSED"
               -- ${OCR} -n 7 --accurate --type ${t} --data uniform -s ${n} -r 1 --access ${a})
    endforeach()
    cli_test(accurate.${t}.${a}.finish --rc 0 --out "Test PASSED"
             -- ${OCR} -n 7 --accurate --type ${t} --data uniform -s 1000003 -r 1 --access ${a} -M 1 -g 7 -w 4)
    cli_test(accurate.${t}.${a}.launches --rc 0 --out "Passes: [2-9]" --out "Test PASSED"
             -- ${OCR} -n 7 --accurate --type ${t} --data uniform -s 16000 -r 1 --access ${a} -M 1 -g 1500 -w 1)
    cli_test(accurate.${t}.${a}.exact --rc 0 --out ", exact\\)" --out "Test PASSED"
             -- ${OCR} -n 7 --accurate --type ${t} -s 1048589 -r 1 --access ${a})
  endforeach()
endforeach()
cli_test(accurate.json --rc 0 --out "\"accurate\": true" --out "\"tol_ulps\": 1,"
         -- ${OCR} -n 7 --accurate --type float --data uniform -s 4103 -r 1 --format json)
cli_test(accurate.json_plain --rc 0 --out "\"accurate\": false"
         -- ${OCR} -n 7 --type float -s 4103 -r 1 --format json)
# The plain sum of the same 2^22 floats is off by far more than an ulp: the
# check --accurate makes would fail it (here it only reports it).
cli_test(accurate.plain_is_worse --rc 0 --out "error [0-9.]+e\\+0[3-9] ulps|error [0-9]{2,}(\\.[0-9]*)? ulps"
         -- ${OCR} -n 7 --type float --data uniform -s 4194304 -r 1)

# IEEE's answer with infinities, NaNs and the type's largest values (issue 37:
# [1, inf], [3e38, 3e38] and [FLT_MAX, FLT_MAX, -FLT_MAX] gave NaN): --data
# max holds the largest in signs + + - -, partial sums overflow, the exact
# sum is 0 (n = 4100), the largest (4103) or inf (4102), checked bit for bit;
# the C API on data with an analytic exact sum (tests/unit/core/test_accurate_ieee.c);
# the program against math.fsum on its own data (python.accurate_fsum).
foreach(t float double)
  foreach(spec "4100|0" "4103|[0-9.]+e\\+3[0-9]+" "4102|inf" "2|inf" "3|[0-9.]+e\\+3[0-9]+")
    string(REPLACE "|" ";" f "${spec}")
    list(GET f 0 n)
    list(GET f 1 v)
    cli_test(accurate.${t}.max.${n} --rc 0 --out "^Result: ${v} \\(reference ${v}, exact\\)"
             --out "Test PASSED" -- ${OCR} -n 7 --accurate --type ${t} --data max -s ${n} -r 1)
    cli_test(accurate.${t}.max.${n}.launches --rc 0 --out "^Result: ${v} \\(reference" --out "Test PASSED"
             -- ${OCR} -n 7 --accurate --type ${t} --data max -s ${n} -r 1 -M 1 -g 1500 -w 1)
  endforeach()
endforeach()
cli_test(accurate.max_needs_accurate --rc 2 --err "--data max is for integer types, not float \\(float and double: with --accurate\\)"
         -- ${OCR} -n 7 --type float --data max -s 100)
add_executable(test_accurate_ieee ${UNIT}/core/test_accurate_ieee.c)
target_link_libraries(test_accurate_ieee PRIVATE oclreduction)
add_test(NAME accurate.ieee_c COMMAND test_accurate_ieee)
set_tests_properties(accurate.ieee_c PROPERTIES LABELS "quick;accurate;unit;reducer" TIMEOUT 600)

# A copy of the kernels without the compensation FAILS the check (exit 1).
ocr_test(accurate.drop_compensation_fails LABELS quick accurate
         COMMAND ${SCRIPTS}/accurate_drop.sh ${OCR} ${PROJECT_SOURCE_DIR}/cl)

if(OCLGRIND)
  foreach(a strided blocked)
    foreach(n 37 4103)
      foreach(t float double)
        ocr_test(oclgrind.reduce7.accurate.${a}.${t}.${n} LABELS oclgrind accurate
                 COMMAND ${OG} 0 ${OCR} -n 7 -s ${n} -M 1 -r 1 --access ${a} --accurate --type ${t}
                         --data uniform -g 5 -w 8)
        # the type's largest (two pairs, the scaled one busy), and launches of
        # accumulators (the kernel built with OCR_ACCURATE_IN)
        ocr_test(oclgrind.reduce7.accurate.max.${a}.${t}.${n} LABELS oclgrind accurate
                 COMMAND ${OG} 0 ${OCR} -n 7 -s ${n} -M 1 -r 1 --access ${a} --accurate --type ${t}
                         --data max -g 5 -w 8)
        ocr_test(oclgrind.reduce7.accurate.launches.${a}.${t}.${n} LABELS oclgrind accurate
                 COMMAND ${OG} 0 ${OCR} -n 7 -s ${n} -M 1 -r 1 --access ${a} --accurate --type ${t}
                         --data max -g 600 -w 1)
      endforeach()
    endforeach()
  endforeach()
endif()

# bench/drivers/accurate.sh (the GPU throughput check) is tested in bench.cmake
# (bench.accurate, in a -DOCR_BUILD_BENCH=ON build).
