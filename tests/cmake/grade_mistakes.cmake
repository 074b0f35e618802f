# The grader against each class of mistake, two kernels of each written apart
# (fixtures/kernels_grade/): no wrong kernel passes by luck of the data, of the
# geometry the student chose, or of the grader's own bugs. (The verdict itself
# on such kernels: verdict.cmake.)
if(Python3_FOUND)
  # grade_check(<name> <check>[,<check>...] <grade_test arguments>): grade_test
  # plus the named checks of scripts/grade_test.sh on the JSON report.
  function(grade_check name check)
    grade_test(${name} ${ARGN})
    set_tests_properties(grade.${name} PROPERTIES ENVIRONMENT "GRADE_CHECK=${check}")
  endfunction()
  # A kernel that reads nothing: WRONG everywhere, float products included.
  grade_check(identity all_wrong ${KG}/identity.cl lazy_reduce 1024 WRONG)
  # The first failure replays as printed: got and expected, either data set.
  grade_check(drop_one_replays replay ${KG}/drop_one.cl tree_reduce 1024 WRONG)
  # Wrong only where a last group holds 3..E-2 elements: WRONG there, PASS elsewhere.
  grade_check(mid_tail mid_tail ${KG}/mid_tail.cl tail_reduce 1024 WRONG)
  grade_check(mid_tail_twice mid_tail ${KG}/tail_twice.cl twice_reduce 1024 WRONG)
  # A hang past 100000 elements: TIMEOUT blamed on that case, the first to hang.
  grade_check(hang_past_100000 hang_large ${KG}/hang_large.cl tree_reduce 1024 TIMEOUT --timeout 3)
  grade_check(hang_spin_groups hang_large ${KG}/hang_groups.cl stuck_reduce 1024 TIMEOUT --timeout 3)
  # What a kernel prints stays in the log (capped), out of the report.
  grade_check(printf_stays_out printed ${KG}/printf.cl chatty_reduce 1024 ${GRADE_PASS})
  grade_check(printf_loud printed ${KG}/loud.cl loud_reduce 1024 ${GRADE_PASS})
  ocr_test(grade.formats_printf LABELS grade PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_formats_test.sh ${OCR} ${Python3_EXECUTABLE} ${KG}/loud.cl
                   loud_reduce 1024 ${GRADE_PASS})
  # --seed picks the first data set: the replays carry it and reproduce the case.
  grade_check(seed seed7,replay ${KG}/drop_one.cl tree_reduce 1024 WRONG --seed 7)
  # Right at the teacher's 64 work-items only: the second geometry fails it.
  grade_check(hard_coded_group fixed64 ${KG}/fixed64.cl tree_reduce 1024 "WRONG|RACE")
  grade_check(hard_coded_stride fixed64 ${KG}/stride64.cl stride_reduce 1024 "WRONG|RACE")
  # Correct kernels pass at both geometries (a PASS is every check passed).
  grade_test(correct_pairs ${KG}/pairs.cl pair_reduce 1024 ${GRADE_PASS})
  # A write past the output: found by the guard, every case, every time.
  grade_check(out_of_bounds_spill all_out_of_bounds ${KG}/oob_spill.cl spill_reduce 1024 OUT_OF_BOUNDS)
  # A kernel that does not build: BUILD_ERROR on every row, race checks included.
  grade_check(build_error_rows all_build_error ${KG}/type_error.cl typo_reduce 1024 BUILD_ERROR)
  grade_check(syntax_error_rows all_build_error ${KG}/syntax.cl tree_reduce 1024 BUILD_ERROR)
  # Without oclgrind races cannot be checked: PASS_UNCHECKED, never PASS, in
  # the JSON, text and CSV reports and in the gradebook.
  grade_test(no_oclgrind_correct ${KG}/tree.cl tree_reduce 1024 PASS_UNCHECKED)
  grade_test(no_oclgrind_race ${KG}/race_hidden.cl tree_reduce 1024 "PASS_UNCHECKED|WRONG")
  # A correct kernel: the three reports come from three runs, and a racy one
  # may fail different cases in each on a GPU (an H100 did).
  ocr_test(grade.no_oclgrind_formats LABELS grade PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_formats_test.sh ${OCR} ${Python3_EXECUTABLE} ${KG}/tree.cl
                   tree_reduce 1024 PASS_UNCHECKED)
  set_tests_properties(grade.no_oclgrind_correct grade.no_oclgrind_race grade.no_oclgrind_formats
                       PROPERTIES ENVIRONMENT "GRADE_WITHOUT=oclgrind")
  ocr_test(grade.class_no_oclgrind LABELS grade class PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_class_unchecked_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
  if(OCLGRIND)
    grade_test(race_hidden ${KG}/race_hidden.cl tree_reduce 1024 RACE)
    grade_test(race_local1 ${KG}/race_local1.cl tree_reduce 1024 RACE)
    grade_test(race_mirror ${KG}/race_mirror.cl mirror_reduce 1024 RACE)
  endif()
endif()
# E = 2^30: the matrix cannot be held here; the environment's fault, exit 3.
cli_test(grade_harness_too_large --rc 3 --err "the environment is broken, not the kernel"
         --err "the largest size at this geometry, cannot run here" -- ${OCR} --grade --kernel-file ${KG}/tree.cl
         --kernel-name tree_reduce --elems-per-group 1073741824)
set_tests_properties(cli.grade_harness_too_large PROPERTIES LABELS grade)
# --data stays the grader's (both data sets, always).
cli_test(grade_refuses_data --rc 2 --err "--data cannot go with --grade: the matrix is fixed"
         -- ${OCR} --grade --kernel-file ${KG}/tree.cl --kernel-name tree_reduce --elems-per-group 1024 --data uniform)
