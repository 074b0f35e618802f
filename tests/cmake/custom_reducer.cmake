# Custom reducers: a map, a reduce and a neutral of the caller's
# (ocr_reducer_create_custom, host/lib/reducer/ocr_custom.c, cl/custom.cl),
# against host loops.
add_executable(test_custom ${UNIT}/reducer/test_custom.c)
target_link_libraries(test_custom PRIVATE oclreduction m)
# Every type a spec takes as argument and result (a max in the type, a sum
# widened: exact), n from 0 to 2^20 + 7, offsets 0 and 5; dot with two
# buffers and offsets, scalar arguments, max-abs, nonzero count, a map of i
# alone, a struct (count, mean, M2), NaN; data drawn from two seeds.
foreach(seed 1 2)
  ocr_test(custom_reducer.types.${seed} LABELS quick reducer custom PROPERTIES TIMEOUT 600
           COMMAND test_custom types ${seed})
  ocr_test(custom_reducer.exprs.${seed} LABELS quick reducer custom PROPERTIES TIMEOUT 600
           COMMAND test_custom exprs ${seed})
endforeach()
# The same in groups of 64 on a grid of at most 7 (on a CPU too: the
# coalesced walk, four values in flight, the tree; several rounds per
# work-item, two passes).
foreach(part types exprs calls)
  ocr_test(custom_reducer.${part}_w64g7 LABELS reducer custom PROPERTIES TIMEOUT 600
           ENVIRONMENT "TEST_CUSTOM_LOCAL=64;TEST_CUSTOM_GROUPS=7"
           COMMAND test_custom ${part} 4)
endforeach()
# One launch where the device lets the last group finish (POCL, Intel's CPU
# runtime, NVIDIA's: cl/custom.cl's ocr_rk_first_finish) and two with
# -cl-std=CL1.2 (the caller's language version): both answer every case, the
# finish as a multi-group call's only launch, three calls in a row (its
# ticket left as the next call needs it), blocking and not.
ocr_test(custom_reducer.launches LABELS quick reducer custom COMMAND test_custom launches)
foreach(part launches types exprs calls)
  ocr_test(custom_reducer.${part}_two_launches LABELS reducer custom PROPERTIES TIMEOUT 600
           ENVIRONMENT "TEST_CUSTOM_OPTIONS=-cl-std=CL1.2"
           COMMAND test_custom ${part} 5)
endforeach()
ocr_test(custom_reducer.exprs_w64g7_two_launches LABELS reducer custom PROPERTIES TIMEOUT 600
         ENVIRONMENT "TEST_CUSTOM_LOCAL=64;TEST_CUSTOM_GROUPS=7;TEST_CUSTOM_OPTIONS=-cl-std=CL1.2"
         COMMAND test_custom exprs 6)
# oclgrind: race-free (a barrier at every level of the tree) and in bounds,
# in groups of 8 on a grid of at most 3 (the coalesced walk, several rounds,
# two passes) and in one-item groups; the tree without a barrier is a race.
if(OCLGRIND)
  foreach(geom "8 3" "1 4")
    string(REPLACE " " ";" g "${geom}")
    list(GET g 0 l)
    list(GET g 1 gr)
    ocr_test(custom_reducer.oclgrind_w${l}g${gr} LABELS oclgrind custom PROPERTIES TIMEOUT 900
             ENVIRONMENT "TEST_CUSTOM_LOCAL=${l};TEST_CUSTOM_GROUPS=${gr}"
             COMMAND ${SCRIPTS}/custom_oclgrind.sh $<TARGET_FILE:test_custom>
                     ${PROJECT_SOURCE_DIR}/cl)
  endforeach()
endif()
# into with a user-event wait list and a done event, an out-of-order queue,
# n = 0, the buffer calls, the usage errors.
ocr_test(custom_reducer.calls LABELS quick reducer custom COMMAND test_custom calls 3)
# Bad expressions (OCR_BUILD, the message naming the text), reserved names,
# '#', ')' and comment injection (OCR_USAGE), half, a wrong struct size.
ocr_test(custom_reducer.refusals LABELS quick reducer custom COMMAND test_custom refusals)
# The program cache keys on the spec: two maps in one process, and in two
# processes sharing one disk cache.
ocr_test(custom_reducer.cache LABELS quick reducer custom cache PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/custom_cache_test.sh $<TARGET_FILE:test_custom>)
# A copy of cl/custom.cl with one mistake fails (the GPU walk's remainder
# lost, a CPU chunk's last element dropped, the tree's last level skipped).
ocr_test(custom_reducer.mutants LABELS reducer custom verdict PROPERTIES TIMEOUT 900
         COMMAND ${SCRIPTS}/custom_mutants_test.sh $<TARGET_FILE:test_custom>
                 ${PROJECT_SOURCE_DIR}/cl)
# The caller's text as the compiler reads it (issue 51): splices, a split %:
# digraph, trigraphs, a line comment going on, each refused; a fuzz of such
# fragments against a reference reading; build options that -D or -U OpenCL
# C's keywords, types or built-ins, refused by every create call. The test
# calls the spec check itself (ocr_custom_spec_read: the static library and
# the floors' private headers).
add_executable(test_spec_text ${UNIT}/reducer/test_spec_text.c)
target_link_libraries(test_spec_text PRIVATE oclreduction ocr_private_headers m)
ocr_test(custom_reducer.spec_text_spellings LABELS quick reducer custom
         COMMAND test_spec_text spellings)
foreach(seed 1 2)
  ocr_test(custom_reducer.spec_text_fuzz.${seed} LABELS quick reducer custom
           COMMAND test_spec_text fuzz ${seed})
endforeach()
ocr_test(custom_reducer.build_options_opencl LABELS quick reducer custom build_options
         COMMAND test_spec_text options)
