# The reducer's calls, what an application waits for: the program cache
# (shared by reducers built alike and by threads, released with the last, its
# binary on disk, damaged files ignored, off by OCLREDUCTION_PROGRAM_CACHE=off),
# tuned reducers (entries stored by the test, and the one `--tune` writes), the
# result offset, two queues and an out-of-order one, every
# OCLREDUCTION_READBACK row (of the lab archive, which has them all),
# offsets and result offsets of plain and widening reducers, the blocking and
# the async call's plans either side of the one-launch limit. Each run has an
# XDG_CACHE_HOME of its own.
add_executable(test_reducer_calls ${UNIT}/reducer/test_reducer_calls.c)
target_link_libraries(test_reducer_calls PRIVATE oclreduction_lab Threads::Threads)
# The program cache's counters (ocr_program_cache_stats_get) are the library's
# own: the test links the static library and reads the floors' private headers.
target_link_libraries(test_reducer_calls PRIVATE ocr_private_headers)
foreach(mode share into queues readback offsets plans)
  ocr_test(reducer.calls.${mode} LABELS quick reducer PROPERTIES TIMEOUT 300
           COMMAND test_reducer_calls ${mode})
endforeach()
ocr_test(reducer.calls.tuned LABELS quick reducer PROPERTIES TIMEOUT 300
         COMMAND test_reducer_calls tuned ${PROJECT_SOURCE_DIR}/cl)
ocr_test(reducer.calls.tune_cache LABELS quick reducer PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/reducer_tune_test.sh ${OCR} $<TARGET_FILE:test_reducer_calls>)
# reduce7's offsets on the GPU's access pattern (oclgrind counts as a GPU):
# the head before the first 16-byte load (of int, long, and int read into
# long), the result offset, in bounds and race-free.
if(OCLGRIND)
  ocr_test(oclgrind.reducer.offsets LABELS oclgrind reducer PROPERTIES TIMEOUT 600
           COMMAND ${OG} 0 $<TARGET_FILE:test_reducer_calls> offsets)
  # The plans of 1..601 groups, blocking and async (on oclgrind's OpenCL 1.2
  # device, without the one-launch finish: reducer.calls.plans runs that on
  # the default device): one reducer per process (oclgrind 21.10 keeps a
  # released buffer's shadow for the next buffer of its index, docs/testing.md).
  foreach(c int long_from_int argmax accurate_double)
    ocr_test(oclgrind.reducer.plans.${c} LABELS oclgrind reducer PROPERTIES TIMEOUT 600
             COMMAND ${OG} 0 $<TARGET_FILE:test_reducer_calls> plans ${c})
  endforeach()
endif()
