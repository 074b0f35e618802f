# Grading (--grade): each failure class gets its verdict, every report is one
# strict JSON document, a time-out leaves nothing running; the class tool
# writes the expected gradebook.
if(Python3_FOUND)
  # grade_test(<name> <kernel file> <kernel> <E> <verdict regex> [oclReduction options])
  function(grade_test name file kernel e verdict)
    cmake_parse_arguments(PARSE_ARGV 5 A "" "" "")
    ocr_test(grade.${name} LABELS grade PROPERTIES TIMEOUT 300
             COMMAND ${SCRIPTS}/grade_test.sh ${OCR} ${Python3_EXECUTABLE} ${file} ${kernel} ${e} ${verdict}
                     ${A_UNPARSED_ARGUMENTS})
  endfunction()
  if(OCLGRIND) # without oclgrind races go unchecked: never a bare PASS
    set(GRADE_PASS PASS)
  else()
    set(GRADE_PASS PASS_UNCHECKED)
  endif()
  grade_test(correct_tree ${KG}/tree.cl tree_reduce 1024 ${GRADE_PASS})
  grade_test(starter ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl my_reduce 1024 ${GRADE_PASS})
  grade_test(drop_one ${KG}/drop_one.cl tree_reduce 1024 WRONG)
  grade_test(hard_coded_plus ${KG}/plus.cl tree_reduce 1024 WRONG)
  grade_test(syntax_error ${KG}/syntax.cl tree_reduce 1024 BUILD_ERROR)
  grade_test(infinite_loop ${KG}/infinite_loop.cl tree_reduce 1024 TIMEOUT --timeout 3)
  # The guard past the output finds the write the same way every time, with
  # or without oclgrind (under oclgrind the write lands in the guard too).
  grade_test(out_of_bounds ${KG}/oob_write.cl tree_reduce 1024 OUT_OF_BOUNDS --timeout 5)
  if(OCLGRIND)
    grade_test(race_no_level_barrier ${KG}/race_no_level_barrier.cl tree_reduce 1024 RACE)
    grade_test(race_barrier_in_if ${KG}/race_barrier_in_if.cl tree_reduce 1024 RACE)
    grade_test(race_no_prefetch_barrier ${KG}/race_no_prefetch_barrier.cl first_add 2048 RACE -w 1024)
  endif()
  # The hard-coded '+' passes every sum and fails the other operators.
  cli_test(grade_plus_text --rc 1 --out "^  int    sum   PASS PASS PASS PASS PASS PASS PASS PASS PASS PASS$"
           --out "^  int    prod  WRONG" --out "^First failure: int prod n=1 \\(64 x 1024\\): WRONG$" --out "^  replay: oclReduction --kernel-file "
           --out "^Grade: WRONG" -- ${OCR} --grade --kernel-file ${KG}/plus.cl --kernel-name tree_reduce --elems-per-group 1024)
  set_tests_properties(cli.grade_plus_text PROPERTIES LABELS grade)
  # A grader killed by its pid alone, mid-hang, takes its children with it.
  ocr_test(grade.killed_grader_leaves_nothing LABELS grade PROPERTIES TIMEOUT 60
           COMMAND ${SCRIPTS}/grade_kill_test.sh ${OCR} ${KG}/infinite_loop.cl)
  ocr_test(grade.class LABELS grade PROPERTIES TIMEOUT 600
           COMMAND ${SCRIPTS}/grade_class_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
endif()
cli_test(grade_needs_kernel_file --rc 2 --err "--grade grades a --kernel-file" -- ${OCR} --grade)
cli_test(grade_fixed_matrix --rc 2 --err "--size cannot go with --grade: the matrix is fixed"
         -- ${OCR} --grade --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024 -s 5)
cli_test(timeout_any_run --rc 0 --out "^Test PASSED!$" -- ${OCR} -n 6 -s 4103 -r 1 --timeout 60)
cli_test(grade_no_platform --rc 3 --err "the environment is broken, not the kernel"
         --hide-platforms ${CMAKE_CURRENT_BINARY_DIR}/no_icds
         -- ${OCR} --grade --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce --elems-per-group 1024)
