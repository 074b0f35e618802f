# Issue 27, segmented reductions: one call reduces many segments (offsets),
# the rows or the columns of a matrix (cl/segreduce.cl, host/lib/run/ocr_segments.c).
add_executable(test_segments ${UNIT}/test_segments.c)
target_link_libraries(test_segments PRIVATE oclreduction)
# The library's calls against a host loop, bit for bit: segment patterns
# (all empty, one huge, 100,000 in one call, 0/1/2/odd, random), uint and
# ulong offsets, odd matrix shapes, an out-of-order queue, usage errors; in
# the default geometry and with groups of 64 (teams of 1..64 work-items).
ocr_test(segments.library LABELS quick segments COMMAND test_segments)
ocr_test(segments.library.w64 LABELS segments COMMAND test_segments 64)
