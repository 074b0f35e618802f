# Grading (--grade): each failure class gets its verdict, every report is one
# strict JSON document, a time-out leaves nothing running; the class tool
# writes the expected gradebook.
if(Python3_FOUND)
  # grade_test(<name> <kernel file> <kernel> <E> <verdict regex> [oclReduction options])
  # The whole matrix (every type and operator) costs about 4x the six pairs
  # below on 2 cores; the tests whose point is the matrix itself
  # (GRADE_WHOLE_MATRIX) grade all of it, the others int and float with sum,
  # prod and max (a hard-coded '+', 64-bit-free slips and float products
  # still fail there), so that CI's two passes over this label stay short.
  set(GRADE_WHOLE_MATRIX correct_tree uint_minmax published_only identity)
  set(GRADE_NARROW --grade-types int,float --grade-ops sum,prod,max)
  function(grade_test name file kernel e verdict)
    cmake_parse_arguments(PARSE_ARGV 5 A "" "" "")
    set(narrow ${GRADE_NARROW})
    if(name IN_LIST GRADE_WHOLE_MATRIX)
      set(narrow "")
    endif()
    ocr_test(grade.${name} LABELS grade PROPERTIES TIMEOUT 300
             COMMAND ${SCRIPTS}/grade_test.sh ${OCR} ${Python3_EXECUTABLE} ${file} ${kernel} ${e} ${verdict}
                     ${A_UNPARSED_ARGUMENTS} ${narrow})
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
    set_tests_properties(grade.race_no_level_barrier PROPERTIES ENVIRONMENT "GRADE_CHECK=race_replay,race_and_wrong")
    # oclgrind's stderr read by kind, never "any text is a RACE": a compiler
    # warning (a blank after a macro's backslash) is no verdict; every
    # work-item storing the same out[g] is a race (--uniform-writes); an
    # invalid read of in[] and an uninitialized value have verdicts of their own.
    grade_test(warning_not_race ${KG}/warning_tab.cl tree_reduce 1024 PASS)
    grade_test(race_uniform ${KG}/race_uniform.cl tree_reduce 1024 RACE)
    grade_test(oob_read ${KG}/oob_read.cl tree_reduce 1024 OUT_OF_BOUNDS)
    grade_test(uninitialized ${KG}/uninit.cl tree_reduce 1024 UNINITIALIZED)
    set_tests_properties(grade.oob_read PROPERTIES ENVIRONMENT "GRADE_DETAIL=^oclgrind found an invalid memory access.*\nInvalid read of size")
    set_tests_properties(grade.uninitialized PROPERTIES ENVIRONMENT "GRADE_DETAIL=^oclgrind found an uninitialized value")
  endif()
  # The checker failing on its own (oclgrind 21.10 --uninitialized dies of
  # SIGSEGV on vload2/vload4 of floats on some machines; a stand-in dies the
  # same way here) is never the student's: checked again without
  # --uninitialized, else not checked, the values deciding.
  if(OCLGRIND)
    set(FAKE_OG "PATH=${FIXTURES}/fake_oclgrind:$ENV{PATH}")
    grade_test(checker_segv_uninit ${KG}/vload4.cl vload_reduce 1024 PASS)
    grade_test(checker_segv_pass ${KG}/vload4.cl vload_reduce 1024 PASS_UNCHECKED)
    grade_test(checker_segv_wrong ${KG}/vload2_wrong.cl vload_reduce 1024 WRONG)
    set_tests_properties(grade.checker_segv_uninit PROPERTIES ENVIRONMENT
                         "${FAKE_OG};GRADE_CHECK=without_uninitialized")
    set_tests_properties(grade.checker_segv_pass grade.checker_segv_wrong PROPERTIES ENVIRONMENT
                         "${FAKE_OG};FAKE_OCLGRIND=always;GRADE_CHECK=checker_failed")
  endif()
  # Source text as editors write it, and a student's includes: a UTF-16 file
  # or an include that is missing or leaves the kernel's folder is the
  # kernel's BUILD_ERROR, the loader's message in the detail (never exit 3).
  grade_test(utf16 ${KG}/utf16.cl tree_reduce 1024 BUILD_ERROR)
  grade_test(include_missing ${KG}/include_missing.cl tree_reduce 1024 BUILD_ERROR)
  grade_test(include_escape ${KG}/include_escape.cl tree_reduce 1024 BUILD_ERROR)
  grade_test(include_absolute ${KG}/include_absolute.cl tree_reduce 1024 BUILD_ERROR)
  set_tests_properties(grade.utf16 PROPERTIES ENVIRONMENT "GRADE_DETAIL=is UTF-16 text .*save it as UTF-8")
  set_tests_properties(grade.include_missing PROPERTIES ENVIRONMENT "GRADE_DETAIL=cannot find included file \"mine.h\"")
  set_tests_properties(grade.include_escape grade.include_absolute PROPERTIES ENVIRONMENT
                       "GRADE_DETAIL=is outside the kernel's folder")
  # No include reaches the compiler, however spelled (a macro, <...>, a
  # splice, %:, ??=, a comment in the directive, include_next, import,
  # __has_include): refused naming file:line by --kernel-file and --grade;
  # the class tool alike, and a flat folder's '#include "alice.cl"' fails.
  ocr_test(grade.include_spellings LABELS grade quick PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/grade_include_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
  ocr_test(grade.class_include LABELS grade class PROPERTIES TIMEOUT 900
           COMMAND ${SCRIPTS}/grade_include_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE} class)
  # A memory bomb dies fast under each child's address-space limit
  # (--grade-memory), the limit named; a correct kernel passes under it.
  # Not in an AddressSanitizer build: its grader sets no limit (ASan's
  # shadow memory needs terabytes of address space; grade_run.c).
  if(NOT OCR_SANITIZE)
    ocr_test(grade.memory_limit LABELS grade PROPERTIES TIMEOUT 600
             COMMAND ${SCRIPTS}/grade_memory_test.sh ${OCR} ${Python3_EXECUTABLE} ${KG})
  endif()
  # Limits on every child, each named in the verdict (memory: CRASH; the
  # clock and CPU time: TIMEOUT; output: CRASH), no child after one died,
  # never two at once; feedback a few KB, the first failing case first.
  if(NOT OCR_SANITIZE)
    ocr_test(grade.limits LABELS grade PROPERTIES TIMEOUT 600
             COMMAND ${SCRIPTS}/grade_limits_test.sh ${OCR} ${Python3_EXECUTABLE} ${KG})
  endif()
  # A matrix no one reads in advance: sizes drawn from a fresh grade seed
  # catch a kernel right only at the published ones; the seed repeats it.
  grade_test(published_only ${KG}/published_only.cl tree_reduce 1024 WRONG)
  set_tests_properties(grade.published_only PROPERTIES ENVIRONMENT "GRADE_CHECK=drawn_only,regrade")
  # Every type and operator of the kernel contract: a slip in uint min/max.
  grade_test(uint_minmax ${KG}/uint_minmax.cl tree_reduce 1024 WRONG)
  set_tests_properties(grade.uint_minmax PROPERTIES ENVIRONMENT "GRADE_CHECK=uint_minmax")
  # Load-independent verdicts: a correct kernel far slower than reduce6, with
  # --timeout 1, PASS alike idle and with 2 x cores busy processes.
  ocr_test(grade.load_independent LABELS grade class PROPERTIES TIMEOUT 600
           COMMAND ${SCRIPTS}/grade_load_test.sh ${OCR} ${Python3_EXECUTABLE} ${KG})
  # --quick, the students' self-check: a wrong identity (T acc = 0) fails
  # at once (int prod n=1), a correct kernel passes, one geometry, the
  # published sizes and one race check.
  cli_test(grade_quick_identity --rc 1 --out "^Quick check: WRONG" --out "^First failure: int prod n=1 \\(64 x 1024\\): WRONG$"
           --out "^  rule: the result must be the operator's reduction" --no-out "^Geometry 2"
           -- ${OCR} --grade --quick --kernel-file ${KG}/zero_identity.cl --kernel-name tree_reduce --elems-per-group 1024)
  cli_test(grade_quick_pass --rc 0 --out "^Quick check: ${GRADE_PASS} \\(" --out "^Regrade: .* --quick --timeout"
           --no-out "^Geometry 2" --no-err "grade seed"
           -- ${OCR} --grade --quick --kernel-file ${KG}/tree.cl --kernel-name tree_reduce --elems-per-group 1024)
  set_tests_properties(cli.grade_quick_identity cli.grade_quick_pass PROPERTIES LABELS "grade;quick")
  # The hard-coded '+' passes every sum and fails the other operators.
  cli_test(grade_plus_text --rc 1 --out "^  int    sum  ( PASS){14}$"
           --out "^  int    prod  WRONG" --out "^First failure: int prod n=1 \\(64 x 1024\\): WRONG$" --out "^  replay: oclReduction --kernel-file "
           --out "^Grade: WRONG" -- ${OCR} --grade --kernel-file ${KG}/plus.cl --kernel-name tree_reduce --elems-per-group 1024)
  set_tests_properties(cli.grade_plus_text PROPERTIES LABELS grade)
  # A grader killed by its pid alone, mid-hang, takes its children with it.
  ocr_test(grade.killed_grader_leaves_nothing LABELS grade PROPERTIES TIMEOUT 60
           COMMAND ${SCRIPTS}/grade_kill_test.sh ${OCR} ${KG}/infinite_loop.cl)
  # A class of twelve, graded twice (int and float with sum, prod and max,
  # as the single-kernel tests).
  ocr_test(grade.class LABELS grade class PROPERTIES TIMEOUT 900
           COMMAND ${SCRIPTS}/grade_class_test.sh ${PROJECT_SOURCE_DIR} ${OCR} ${Python3_EXECUTABLE})
endif()
# A copied ladder kernel runs in its own geometry (reduce3 reads 2 x BLOCK per
# group: BLOCK = E / 2, said), in a run and under --grade; an E it cannot
# split is refused, never half-padded.
cli_test(kernel_file_ladder --rc 0 --out "^Build options: .*-D BLOCK=1024 -D ELEMS_PER_GROUP=2048( |$)"
         --err "reads 2 x BLOCK elements per group \\(ocr_kernels.c\\): built with -D BLOCK=1024 for --elems-per-group 2048"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce3.cl --kernel-name reduce3 --elems-per-group 2048 -s 1M --explain)
cli_test(kernel_file_ladder_runs --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce6.cl --kernel-name reduce6 --elems-per-group 1024 -w 128 -s 100003 -r 1)
cli_test(kernel_file_ladder_odd --rc 2 --err "--elems-per-group must be a multiple of 2, not 1025"
         -- ${OCR} --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce3.cl --kernel-name reduce3 --elems-per-group 1025 -s 5000)
set_tests_properties(cli.kernel_file_ladder cli.kernel_file_ladder_runs cli.kernel_file_ladder_odd PROPERTIES LABELS "quick;grade")
if(Python3_FOUND)
  cli_test(grade_quick_ladder --rc 0 --out "^Quick check: ${GRADE_PASS} \\("
           -- ${OCR} --grade --quick --kernel-file ${PROJECT_SOURCE_DIR}/cl/reduce3.cl --kernel-name reduce3 --elems-per-group 2048)
  set_tests_properties(cli.grade_quick_ladder PROPERTIES LABELS "grade;quick")
endif()
# A UTF-8 byte-order mark and CRLF line ends build; UTF-16 is refused by
# name; a FIFO or a device is refused at once, a newline in the path works.
foreach(f bom crlf)
  cli_test(source_${f} --rc 0 --out "^Test PASSED!$"
           -- ${OCR} --kernel-file ${KG}/${f}.cl --kernel-name tree_reduce --elems-per-group 1024 -s 5000 -r 1)
endforeach()
cli_test(source_utf16 --rc 3 --err "kernel file .*utf16.cl is UTF-16 text \\(it begins with the byte-order mark FF FE\\): save it as UTF-8"
         -- ${OCR} --kernel-file ${KG}/utf16.cl --kernel-name tree_reduce --elems-per-group 1024 -s 5000 -r 1)
ocr_test(grade.source_files LABELS quick grade PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/grade_source_test.sh ${OCR} ${KG})
# --race-check (a race replay): RACE is exit 1; the checker's own failure
# is exit 3, never the kernel's.
if(OCLGRIND)
  set(RC_ARGS --elems-per-group 1024 -w 64 --type int -s 2051 -r 1 --cpu-baseline none)
  cli_test(race_check_race --rc 1 --out "^Race check: RACE" --err "data race"
           -- ${OCR} --race-check --kernel-file ${KG}/race_no_level_barrier.cl --kernel-name tree_reduce ${RC_ARGS})
  cli_test(race_check_pass --rc 0 --out "^Race check: PASS$"
           -- ${OCR} --race-check --kernel-file ${KG}/tree.cl --kernel-name tree_reduce ${RC_ARGS})
  # Read by kind: a compiler warning is no verdict, an invalid read is
  # OUT_OF_BOUNDS, text that is no oclgrind report is the checker's failure.
  cli_test(race_check_warning --rc 0 --out "^Race check: PASS$" --err "1 warning generated"
           -- ${OCR} --race-check --kernel-file ${KG}/warning_tab.cl --kernel-name tree_reduce ${RC_ARGS})
  cli_test(race_check_oob_read --rc 1 --out "^Race check: OUT_OF_BOUNDS \\(oclgrind's report above: oclgrind found an invalid memory access"
           --err "Invalid read of size 4"
           -- ${OCR} --race-check --kernel-file ${KG}/oob_read.cl --kernel-name tree_reduce ${RC_ARGS})
  cli_test(race_check_unreadable --rc 3 --out "^Race check: not checked: the checker failed \\(output it could not read\\)$"
           --env "PATH=${FIXTURES}/fake_oclgrind:$ENV{PATH}" --env FAKE_OCLGRIND=babble
           -- ${OCR} --race-check --kernel-file ${KG}/tree.cl --kernel-name tree_reduce ${RC_ARGS})
  cli_test(race_check_checker_failed --rc 3 --out "^Race check: not checked: the checker failed \\(signal 11\\)$"
           --env "PATH=${FIXTURES}/fake_oclgrind:$ENV{PATH}" --env FAKE_OCLGRIND=always
           -- ${OCR} --race-check --kernel-file ${KG}/tree.cl --kernel-name tree_reduce ${RC_ARGS})
endif()
# The graded (type, op) pairs, for a rubric to check against; no kernel, no device.
cli_test(grade_list_cases --rc 0 --out "^int sum$" --out "^uint min$" --out "^ulong xor$" --out "^double max$"
         --no-out "^float xor$" -- ${OCR} --grade --list-cases)
cli_test(grade_list_cases_narrowed --rc 0 --out "^{\"graded\": \\[{\"type\": \"uint\", \"op\": \"min\"}\\]}$"
         -- ${OCR} --grade --list-cases --grade-types uint --grade-ops min --format json)
cli_test(grade_seed_needs_grade --rc 2 --err "--grade-seed applies only with --grade" -- ${OCR} --grade-seed 3)
cli_test(grade_types_unknown --rc 2 --err "--grade-types takes int uint long ulong float double"
         -- ${OCR} --grade --list-cases --grade-types int,char)
cli_test(grade_needs_kernel_file --rc 2 --err "--grade grades a --kernel-file" -- ${OCR} --grade)
cli_test(grade_fixed_matrix --rc 2 --err "--size cannot go with --grade: the matrix is fixed"
         -- ${OCR} --grade --kernel-file ${KV}/constant.cl --kernel-name write_42 --elems-per-group 1024 -s 5)
cli_test(timeout_any_run --rc 0 --out "^Test PASSED!$" -- ${OCR} -n 6 -s 4103 -r 1 --timeout 60)
cli_test(grade_no_platform --rc 3 --err "the environment is broken, not the kernel"
         --hide-platforms ${CMAKE_CURRENT_BINARY_DIR}/no_icds
         -- ${OCR} --grade --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl --kernel-name my_reduce --elems-per-group 1024)
