# --timeout for any run (host/cli/watchdog.c): a kernel that never ends
# (tests/fixtures/kernels_hang/spin.cl) is abandoned at the limit, exit 3, with a
# message naming it; a run that ends in time is unchanged.

# timeout_test(<name> <expect.sh arguments>): cli.timeout_<name>.
function(timeout_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "")
  cli_test(timeout_${name} ${A_UNPARSED_ARGUMENTS})
  set_tests_properties(cli.timeout_${name} PROPERTIES TIMEOUT 120)
endfunction()

set(HANG --kernel-file ${FIXTURES}/kernels_hang/spin.cl --kernel-name spin --elems-per-group 1024)
set(TIME_LIMIT "did not finish within its time limit \\(--timeout 3 s\\): abandoned")
timeout_test(single --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -s 4103 -r 1 --timeout 3)
timeout_test(device_all --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -d all -s 4103 -r 1 --timeout 3)
timeout_test(split --rc 3 --err "${TIME_LIMIT}" --env "POCL_DEVICES=pthread pthread" --pocl
             -- ${OCR} ${HANG} --split @P@.0,@P@.1 -s 4103 -r 1 --timeout 3)
timeout_test(json --rc 3 --err "${TIME_LIMIT}" -- ${OCR} ${HANG} -s 4103 -r 1 --format json --timeout 3)
timeout_test(stream_in_time --rc 0 --out "^Test PASSED!$" -- ${OCR} --stream --chunk 1000 -s 100003 --timeout 120)
timeout_test(in_time --rc 0 --out "^Test PASSED!$" -- ${OCR} -n 6 -s 4103 -r 2 --timeout 120)
timeout_test(zero --rc 2 --err "invalid value for --timeout" -- ${OCR} -n 6 -s 4103 --timeout 0)
# (--grade's limits per case: grade.cmake; the sweep's: bench.timeout_sweep,
# in a bench build)
