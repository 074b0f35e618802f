# --- issue 21: no wrong kernel passes. The second data set's rules on the host
# (tests/test_data_sets.c); the grader's and the verdict's own fixtures below.
add_executable(test_data_sets ${CMAKE_CURRENT_SOURCE_DIR}/test_data_sets.c)
target_link_libraries(test_data_sets PRIVATE oclreduction m)
add_test(NAME unit.test_data_sets COMMAND test_data_sets)
set_tests_properties(unit.test_data_sets PROPERTIES LABELS "unit;verdict" TIMEOUT 300)
