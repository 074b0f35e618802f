# Histograms (ocr_reducer_histogram, host/lib/reducer/ocr_histogram.c,
# cl/histogram.cl): every input type against a host loop, bit for bit; the
# refusals, the wait list and done; oclgrind; mutants of the kernels.
add_executable(test_histogram ${UNIT}/reducer/test_histogram.c)
target_link_libraries(test_histogram PRIVATE oclreduction m)
# Drawn data (three seeds), one-bin and edge values (lower, upper, just below
# upper, NaN, +-inf, out of range), even bins, edges (float and double),
# bincount, weights, 32/64-bit counts, accumulate, offsets, every method,
# 2^20 bins (beyond local memory), n = 0.
ocr_test(histogram.types LABELS quick reducer histogram PROPERTIES TIMEOUT 300
         COMMAND test_histogram types)
# Small runs in groups of 8 (several work-items share a group's counts).
foreach(t uchar float long)
  ocr_test(histogram.few_w8.${t} LABELS quick reducer histogram COMMAND test_histogram few ${t} 8)
endforeach()
ocr_test(histogram.misuse LABELS quick reducer histogram COMMAND test_histogram misuse)
# oclgrind: race-free (--data-races --uniform-writes), in bounds, in groups of 8.
if(OCLGRIND)
  foreach(t uchar int float half double)
    ocr_test(histogram.oclgrind.${t} LABELS oclgrind histogram
             COMMAND ${OG} 0 --uniform-writes $<TARGET_FILE:test_histogram> few ${t} 8)
  endforeach()
endif()
# A copy of cl/histogram.cl with one mistake fails the tests: a lost atomic,
# a missing merge barrier, an off-by-one edge, a lost run.
ocr_test(histogram.mutants LABELS histogram verdict PROPERTIES TIMEOUT 300
         COMMAND ${SCRIPTS}/histogram_mutants_test.sh $<TARGET_FILE:test_histogram>
                 ${PROJECT_SOURCE_DIR}/cl)
