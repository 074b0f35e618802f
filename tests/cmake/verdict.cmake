# The verdict can fail: lost, doubled and skipped elements FAIL for every
# type at 1, 3, 4096, 4103, 1000001 and 2^25, as --kernel-file kernels and in
# a built-in geometry; the same kernel without the mistake PASSES.
ocr_test(verdict.wrong_kernels_fail LABELS verdict PROPERTIES TIMEOUT 900 COMMAND test_verdict ${KV})
# Every repetition is checked: right on the first run, wrong on the next.
cli_test(verdict_stale_output --rc 1 --out "^Test FAILED!$" --out "run 1 of 4 \\(0 is the warm-up\\) gave .*, run 0 gave"
         -- ${OCR} --kernel-file ${KV}/stale_output.cl --kernel-name stale --elems-per-group 1024 -s 4103 -r 3)
# A kernel under test always launches, even at N = 1 and N < E (with any -M).
foreach(n 1 1000)
  cli_test(verdict_kernel_file_launches_${n} --rc 1 --out "^Test FAILED!$" --out "^Passes: 1,"
           -- ${OCR} --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024 -s ${n} -r 1)
endforeach()
cli_test(verdict_kernel_file_launches_big_m --rc 1 --out "^Test FAILED!$" --out "^Passes: 1,"
         -- ${OCR} --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024 -s 5000 -M 100000 -r 1)
# Uniform data: the rounding lesson, with the observed error and the bound in ulps.
cli_test(data_uniform --rc 0 --out "^Result: .*error [0-9.e+-]+ ulps, bound [0-9.e+-]+ ulps" --out "uniform data"
         -- ${OCR} -n 7 --type float -s 100003 -r 1 --data uniform)
cli_test(data_exact_default --rc 0 --out "^Result: .*exact\\)$" --out "exact data"
         -- ${OCR} -n 7 --type float -s 100003 -r 1)
# The second data set's rules on the host (unit/core/test_data_sets.c).
add_executable(test_data_sets ${UNIT}/core/test_data_sets.c)
target_link_libraries(test_data_sets PRIVATE oclreduction m)
ocr_test(unit.test_data_sets LABELS unit verdict PROPERTIES TIMEOUT 300 COMMAND test_data_sets)
# tests/gpu/verdict_gpu_check.sh (the verdict on a GPU, run by hand there):
# works from another path and fails when a wrong kernel passes.
ocr_test(verdict.gpu_check LABELS verdict PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/verdict_gpu_check_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
