# Strided and reversed views reduced in place, a stride argument in
# the kernel (cl/strided.cl, host/lib/reducer/ocr_strided.c), not a copy.
add_executable(test_strided ${UNIT}/reducer/test_strided.c)
target_link_libraries(test_strided PRIVATE oclreduction m)
# Every reducer that reads each type (its operators, argmin/argmax, its
# widenings, accurate sums) over views of 1 .. 2^20 + 13 elements, strides 1
# to 1000, offsets 0 and odd, data drawn from a seed, against a host loop,
# bit for bit: in the default geometry (quick), and in groups of 64 on a grid
# of at most 7 (there up to 4103 elements: several per work-item, several
# passes).
foreach(t int uint long ulong float double char uchar short ushort half)
  ocr_test(strided.views.${t} LABELS quick reducer strided PROPERTIES TIMEOUT 600
           COMMAND test_strided views ${t})
  ocr_test(strided.views_w64g7.${t} LABELS reducer strided PROPERTIES TIMEOUT 600
           COMMAND test_strided views ${t} 64 7)
endforeach()
# Usage errors (stride 0, n 0, out of bounds, overflow, overlap), a result
# between the elements read, a kernel_dir without strided.cl, an out-of-order
# queue with a pending write, calls in a row, NaN and signed zeros.
ocr_test(strided.errors LABELS quick reducer strided
         COMMAND test_strided errors ${PROJECT_SOURCE_DIR}/cl)
# Every OpenCL call of one strided call failing in turn (the fault shim): the
# call's status and a message naming it, nothing printed, and the same call
# right after gives the right value (int sum, half argmax, char sum).
ocr_test(strided.fault LABELS quick reducer strided fault PROPERTIES TIMEOUT 600
         COMMAND ${SCRIPTS}/strided_fault_test.sh $<TARGET_FILE:test_strided>
                 $<TARGET_FILE:fault_shim>)
# oclgrind: race-free, in bounds, no uninitialized reads, in groups of 8 on a
# grid of at most 3 (one group, and several with the reducer's passes after):
# plain, widening, small types, keys (argmin/argmax) and an accurate sum.
if(OCLGRIND)
  foreach(case "int sum" "int:long max" "char sum" "half argmax" "double argmin"
          "float accurate" "ushort xor")
    string(REPLACE " " ";" args "${case}")
    string(REPLACE " " "." name "${case}")
    string(REPLACE ":" "_in_" name "${name}")
    ocr_test(strided.oclgrind.${name} LABELS oclgrind strided
             COMMAND ${OG} 0 $<TARGET_FILE:test_strided> few ${args} 8 3)
  endforeach()
endif()
# A copy of cl/strided.cl with one mistake fails (each walk's dropped
# element, a lost remainder, argmin/argmax's index counted in memory, an
# element read twice): on the default device, or under oclgrind (a GPU walk).
if(OCLGRIND)
  set(STRIDED_MUTANTS_OG ${OG})
else()
  set(STRIDED_MUTANTS_OG "")
endif()
ocr_test(strided.mutants LABELS strided verdict PROPERTIES TIMEOUT 900
         COMMAND ${SCRIPTS}/strided_mutants_test.sh $<TARGET_FILE:test_strided>
                 ${PROJECT_SOURCE_DIR}/cl ${STRIDED_MUTANTS_OG})
