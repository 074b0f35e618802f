# Issue 21: no wrong kernel passes by luck of the data, of the geometry the
# student chose, or of the grader's own bugs. The second data set's rules on
# the host (unit/test_data_sets.c); the grader's fixtures (fixtures/kernels_grade/)
# for mid-length tails, blame for a hang past 100000 elements, a kernel's
# printf kept out of the report, --seed, a hard-coded group size, races with
# and without oclgrind, a harness that cannot hold the matrix (exit 3).
add_executable(test_data_sets ${UNIT}/test_data_sets.c)
target_link_libraries(test_data_sets PRIVATE oclreduction m)
ocr_test(unit.test_data_sets LABELS unit verdict PROPERTIES TIMEOUT 300 COMMAND test_data_sets)

if(Python3_FOUND)
  # grade_check(<name> <check>[,<check>...] <grade_test arguments>): grade_test
  # plus the named checks of scripts/grade_test.sh on the report.
  function(grade_check name check)
    grade_test(${name} ${ARGN})
    set_tests_properties(grade.${name} PROPERTIES ENVIRONMENT "GRADE_CHECK=${check}")
  endfunction()
  grade_check(mid_tail mid_tail ${KG}/mid_tail.cl tail_reduce 1024 WRONG)
  grade_check(hang_past_100000 hang_large ${KG}/hang_large.cl tree_reduce 1024 TIMEOUT --timeout 3)
  grade_check(printf_stays_out printed ${KG}/printf.cl chatty_reduce 1024 ${GRADE_PASS})
  grade_check(seed seed7 ${KG}/tree.cl tree_reduce 1024 ${GRADE_PASS} --seed 7)
  grade_check(hard_coded_group fixed64 ${KG}/fixed64.cl tree_reduce 1024 "WRONG|RACE")
  # Without oclgrind races cannot be checked: PASS_UNCHECKED, never PASS.
  grade_test(no_oclgrind_correct ${KG}/tree.cl tree_reduce 1024 PASS_UNCHECKED)
  grade_test(no_oclgrind_race ${KG}/race_hidden.cl tree_reduce 1024 "PASS_UNCHECKED|WRONG")
  set_tests_properties(grade.no_oclgrind_correct grade.no_oclgrind_race PROPERTIES
                       ENVIRONMENT "GRADE_WITHOUT=oclgrind")
  if(OCLGRIND)
    grade_test(race_hidden ${KG}/race_hidden.cl tree_reduce 1024 RACE)
    grade_test(race_local1 ${KG}/race_local1.cl tree_reduce 1024 RACE)
  endif()
endif()
# E = 2^30: the matrix cannot be held here; the environment's fault, exit 3.
cli_test(grade_harness_too_large --rc 3 --err "the environment is broken, not the kernel"
         --err "cannot allocate" -- ${OCR} --grade --kernel-file ${KG}/tree.cl
         --kernel-name tree_reduce --elems-per-group 1073741824)
set_tests_properties(cli.grade_harness_too_large PROPERTIES LABELS grade)
# --data stays the grader's; --seed picks the first data set, as in a plain run.
cli_test(grade_refuses_data --rc 2 --err "--data cannot go with --grade: the matrix is fixed"
         -- ${OCR} --grade --kernel-file ${KG}/tree.cl --kernel-name tree_reduce --elems-per-group 1024 --data uniform)
