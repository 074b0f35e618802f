# Streaming: inputs beyond one buffer (--stream, host/lib/run/ocr_stream.c).
# Chunks of 1000 around the chunk boundaries: PASSED, and the same Result line
# as the ordinary reduce7 run of the same input (scripts/stream_test.sh).
set(ST ${SCRIPTS}/stream_test.sh)
set(STREAM_SIZES 1,999,1000,1001,123457)
# stream_test(<name> <stream_test.sh arguments>): stream.<name>.
function(stream_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "" "")
  ocr_test(stream.${name} LABELS quick stream PROPERTIES TIMEOUT 120 COMMAND ${ST} ${A_UNPARSED_ARGUMENTS})
endfunction()
stream_test(int_sum ${OCR} int sum ${STREAM_SIZES} 1000)
stream_test(long_sum ${OCR} long sum ${STREAM_SIZES} 1000)
stream_test(double_sum ${OCR} double sum ${STREAM_SIZES} 1000)
stream_test(int_max ${OCR} int max ${STREAM_SIZES} 1000)
# The other types against their ordinary run too: float (exact data, so the
# Result lines compare bit for bit), and a second operator for each type.
stream_test(float_sum ${OCR} float sum ${STREAM_SIZES} 1000)
stream_test(float_max ${OCR} float max ${STREAM_SIZES} 1000)
stream_test(double_min ${OCR} double min ${STREAM_SIZES} 1000)
stream_test(long_xor ${OCR} long xor ${STREAM_SIZES} 1000)
# 2 x the max allocation + 7 elements, made cheap by lowering the runtime's
# limit (POCL_MEMORY_LIMIT=1: 256 MiB per buffer): -n 7 streams by itself
# instead of refusing, and passes. (cli.limit_max_alloc keeps the refusal for
# the other kernels.)
stream_test(beyond_max_alloc_int --big ${OCR} int)
stream_test(beyond_max_alloc_double --big ${OCR} double)
# SKIPPED (77) where no device's limit can be lowered (docs/testing.md).
set_tests_properties(stream.beyond_max_alloc_int stream.beyond_max_alloc_double PROPERTIES
                     TIMEOUT 300 SKIP_RETURN_CODE 77)
# The check can fail: a wrong reduce7 (scripts/stream_test.sh --wrong) exits 1.
stream_test(wrong_kernel --wrong ${OCR} ${CMAKE_SOURCE_DIR}/cl)
# What --stream refuses.
cli_test(stream_other_kernel --rc 2 --err "--stream streams through reduce7: use -n 7" -- ${OCR} --stream -n 6 -s 4103)
cli_test(stream_chunk_alone --rc 2 --err "--chunk applies only with --stream" -- ${OCR} -n 7 --chunk 1000 -s 4103)
cli_test(stream_repeat --rc 2 --err "--repeat cannot go with --stream" -- ${OCR} --stream -r 3 -s 4103)
cli_test(stream_uniform --rc 2 --err "streaming checks bit for bit: float sum needs --data exact"
         -- ${OCR} --stream --type float --data uniform -s 4103)
cli_test(stream_chunk_too_large --rc 3 --err "use a smaller --chunk"
         --env POCL_MEMORY_LIMIT=1 --env CL_CONFIG_CPU_FORCE_MAX_MEM_ALLOC_SIZE=256MB --device-matching "max allocation 256 MiB"
         -- ${OCR} --stream --chunk 64M --type double -s 64M)
# Streaming chosen by the size refuses, as --stream does, what it cannot apply.
cli_test(stream_auto_repeat --rc 2 --err "exceed one buffer of .*, so reduce7 streams them, which cannot apply --repeat"
         --env POCL_MEMORY_LIMIT=1 --env CL_CONFIG_CPU_FORCE_MAX_MEM_ALLOC_SIZE=256MB --device-matching "max allocation 256 MiB"
         -- ${OCR} -n 7 -s 100M -r 3)
# A failure mid-stream (the fault shim fails the 8th upload, the 5th launch):
# one message naming the call, exit 3, no hang on the other queue's events.
cli_test(stream_fault_upload --rc 3 --err "clEnqueueWriteBuffer failed: CL_OUT_OF_RESOURCES"
         --env OCR_FAULT=clEnqueueWriteBuffer:8 --env LD_PRELOAD=$<TARGET_FILE:fault_shim>
         --env ASAN_OPTIONS=verify_asan_link_order=0 -- ${OCR} --stream --chunk 1000 -s 123457)
cli_test(stream_fault_launch --rc 3 --err "clEnqueueNDRangeKernel failed"
         --env OCR_FAULT=clEnqueueNDRangeKernel:5 --env LD_PRELOAD=$<TARGET_FILE:fault_shim>
         --env ASAN_OPTIONS=verify_asan_link_order=0 -- ${OCR} --stream --chunk 1000 -s 123457)
if(Python3_FOUND) # one JSON object with the stream's fields
  ocr_test(stream.json LABELS quick stream
           COMMAND sh -c "\"$1\" --stream --chunk 1000 -s 4103 --type long --format json | \"$2\" -c 'import json,sys; d=json.load(sys.stdin); assert d[\"stream\"] and d[\"passed\"] and d[\"chunks\"] == 5 and d[\"chunk\"] == 1000 and d[\"result\"] == d[\"expected\"], d; assert d[\"h2d_gbs\"] > 0 and d[\"e2e_gbs\"] > 0 and d[\"e2e_over_h2d\"] > 0; assert d[\"copy_gbs\"] > 0 and d[\"copy_ms\"] > 0 and abs(d[\"ready_over_copy\"] - d[\"ready_gbs\"] / d[\"copy_gbs\"]) < 1e-3 * d[\"ready_over_copy\"]; print(\"ok\")'"
                   sh ${OCR} ${Python3_EXECUTABLE})
endif()
set_tests_properties(cli.stream_other_kernel cli.stream_chunk_alone cli.stream_repeat cli.stream_uniform
                     cli.stream_chunk_too_large cli.stream_auto_repeat
                     cli.stream_fault_upload cli.stream_fault_launch PROPERTIES LABELS "quick;cli;stream"
                     TIMEOUT 60)
