# The per-kernel tests: every kernel of the ladder, as the built oclReduction
# lists it (--list-kernels; the lab kernels, files under lab/, are wrong or
# partial on purpose and have tests of their own). A kernel added to the
# registry is tested here without editing anything.
#
# The list exists only once the program is built, so ctest runs this file
# when it reads the tests (TEST_INCLUDE_FILES), not cmake: the index
# (tests/CMakeLists.txt) writes the paths and switches it uses, then
# includes it. Without a built program no kernel is listed, and
# registry.ladder_is_list_kernels, registered all the same, fails.

# ocr_test, as the index's, in ctest's own add_test form. The ladder's tests
# set no ENVIRONMENT of their own: a sanitizer build's is theirs.
function(ocr_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "" "LABELS;PROPERTIES;COMMAND")
  add_test(${name} ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" ${T_PROPERTIES})
  if(OCR_SANITIZE_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${OCR_SANITIZE_ENVIRONMENT}")
  endif()
endfunction()

# The ladder: the first column of each line whose file is not under lab/.
# (A sanitizer build's leak check stays out of the listing: its tracer can
# fail in a container, and the tests would go unregistered.)
set(asan_options "$ENV{ASAN_OPTIONS}")
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process(COMMAND ${OCR} --list-kernels RESULT_VARIABLE rc OUTPUT_VARIABLE listed
                ERROR_QUIET)
set(ENV{ASAN_OPTIONS} "${asan_options}")
set(LADDER)
if(rc EQUAL 0)
  string(REPLACE ";" "," listed "${listed}") # a list of lines: no ; inside one
  string(REGEX MATCHALL "[^\n]+" lines "${listed}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([a-z0-9_]+) +[a-z0-9_]+\\.cl ")
      list(APPEND LADDER ${CMAKE_MATCH_1})
    endif()
  endforeach()
endif()
# The ladder is the list, in order (and --help's type and operator names
# are the tables'): a listing this file misreads fails here, not silently.
ocr_test(registry.ladder_is_list_kernels LABELS quick
         COMMAND ${SCRIPTS}/registry_test.sh ${OCR} ${LADDER})

# ---- kernels: at the edge sizes, every type and operator, the default size --
foreach(k IN LISTS LADDER)
  ocr_test(kernel.${k}.int_sum LABELS quick kernel
           COMMAND ${TEST_KERNELS} matrix ${k} int sum ${EDGE_SIZES})
  ocr_test(kernel.${k}.types LABELS types kernel
           COMMAND ${TEST_KERNELS} matrix ${k} all all 3,4103,65536)
  ocr_test(kernel.${k}.default_size LABELS full kernel
           COMMAND ${EXPECT} --rc 0 --out "^Number of elements: 33554432 " --out "^Test PASSED!$"
           -- ${OCR} -n ${k} -r 1)
endforeach()

# ---- oclgrind: every kernel race-free, in bounds, no uninitialized reads ------
# Three sizes (below one work-group, a power of two, not one), all passes on
# the device (-M 1), int sum plus one other type and operator per kernel
# (float sum for any kernel not named here).
if(OG)
  set(OTHER_TYPE_reduce1 "--type;long")
  set(OTHER_TYPE_reduce2 "--type;double")
  set(OTHER_TYPE_reduce3 "--type;uint;--op;xor")
  set(OTHER_TYPE_reduce4 "--type;ulong;--op;min")
  set(OTHER_TYPE_reduce5 "--type;float;--op;prod")
  set(OTHER_TYPE_reduce6 "--type;int;--op;max")
  set(OTHER_TYPE_reduce7 "--type;double;--op;max")
  foreach(k IN LISTS LADDER)
    if(NOT DEFINED OTHER_TYPE_${k})
      set(OTHER_TYPE_${k} "--type;float")
    endif()
    foreach(n 37 4096 4103)
      ocr_test(oclgrind.${k}.int.${n} LABELS oclgrind COMMAND ${OG} 0 ${OCR} -n ${k} -s ${n} -M 1 -r 1)
      ocr_test(oclgrind.${k}.other.${n} LABELS oclgrind
               COMMAND ${OG} 0 ${OCR} -n ${k} -s ${n} -M 1 -r 1 ${OTHER_TYPE_${k}})
    endforeach()
  endforeach()
endif()

# ---- --split: every kernel over two devices, one size (cmake/multi.cmake) ------
foreach(k IN LISTS LADDER)
  ocr_test(multi.split.${k} LABELS multi PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
           COMMAND ${MT} split ${OCR} int sum 100003 2 -- -n ${k})
endforeach()
