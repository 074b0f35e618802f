# --- what an application waits for (issue 26) --------------------------------
# The reducer's program cache (shared by reducers built alike and by threads,
# released with the last, its binary on disk, damaged files ignored, off by
# OCLREDUCTION_PROGRAM_CACHE=off), tuned reducers (entries stored by the test,
# and the one `--tune` writes), the result offset, two queues and an
# out-of-order one, every OCLREDUCTION_READBACK row. Each run has an
# XDG_CACHE_HOME of its own.
add_executable(test_reducer_calls test_reducer_calls.c)
target_link_libraries(test_reducer_calls PRIVATE oclreduction Threads::Threads)
foreach(mode share into queues readback offsets)
  add_test(NAME reducer.calls.${mode} COMMAND test_reducer_calls ${mode})
endforeach()
add_test(NAME reducer.calls.tuned COMMAND test_reducer_calls tuned ${PROJECT_SOURCE_DIR}/cl)
add_test(NAME reducer.calls.tune_cache
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reducer_tune_test.sh ${OCR} $<TARGET_FILE:test_reducer_calls>)
set_tests_properties(reducer.calls.share reducer.calls.into reducer.calls.queues
  reducer.calls.readback reducer.calls.offsets reducer.calls.tuned reducer.calls.tune_cache
  PROPERTIES LABELS "quick;reducer" TIMEOUT 300)
# reduce7's offsets on the GPU's access pattern (oclgrind counts as a GPU):
# the head before the first 16-byte load, the result offset, in bounds and
# race-free.
if(OCLGRIND)
  add_test(NAME oclgrind.reducer.offsets COMMAND ${OG} 0 $<TARGET_FILE:test_reducer_calls> offsets)
  set_tests_properties(oclgrind.reducer.offsets PROPERTIES LABELS "oclgrind;reducer" TIMEOUT 600)
endif()
