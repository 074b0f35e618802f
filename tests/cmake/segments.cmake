# Segmented reductions: one call reduces many segments (offsets),
# the rows or the columns of a matrix (cl/segreduce.cl, host/lib/reducer/ocr_segments.c).
add_executable(test_segments ${UNIT}/reducer/test_segments.c)
target_link_libraries(test_segments PRIVATE oclreduction)
# The chunk size's and the team path's constants, from their one home: the
# fixtures that must reach the chunk path (or sit on its boundaries), or
# teams of a given size, follow them.
foreach(c SEG_CHUNK_ITEMS SEG_CHUNK_LOG2_ONE SEG_UNROLL)
  file(STRINGS ${PROJECT_SOURCE_DIR}/host/lib/reducer/ocr_segments.c line REGEX "^#define ${c} +[0-9]+")
  string(REGEX REPLACE "^#define ${c} +([0-9]+).*" "\\1" value "${line}")
  if(NOT value MATCHES "^[0-9]+$")
    message(FATAL_ERROR "no #define ${c} in host/lib/reducer/ocr_segments.c")
  endif()
  target_compile_definitions(test_segments PRIVATE ${c}=${value})
  set(${c}_OF_TESTS ${value})
endforeach()
# The library's calls against a host loop, bit for bit: segment patterns
# (all empty, one huge, 100,000 in one call, 0/1/2/odd, random), uint and
# ulong offsets, odd matrix shapes, an out-of-order queue, usage errors; in
# the default geometry and with groups of 64 (teams of 1..64 work-items).
ocr_test(segments.library LABELS quick segments COMMAND test_segments)
ocr_test(segments.library.w64 LABELS segments COMMAND test_segments 64)
# The edge cases aimed at each piece of the kernels (test_segments.c says
# which), in groups of 8, 16 and 64: heads and tails at every alignment,
# runs of segments per team, the combine's serial part and tree levels,
# segments on chunk boundaries, the k-ary search, segfix's two ways, many
# tiny segments inside a chunk, offsets past n, widening loads.
foreach(w 8 16 64)
  ocr_test(segments.edges.w${w} LABELS segments COMMAND test_segments ${w} edges)
endforeach()
# oclgrind: race-free, in bounds, no uninitialized reads, on small odd cases:
# segreduce, segchunks + segfix and colreduce (one and two launches).
if(OCLGRIND)
  ocr_test(segments.oclgrind.library LABELS oclgrind segments
           COMMAND ${OG} 0 $<TARGET_FILE:test_segments> 8 small)
  ocr_test(segments.oclgrind.two_launch_columns LABELS oclgrind segments
           COMMAND ${OG} 0 $<TARGET_FILE:test_segments> 8 two-launch)
  # the edge cases, a (type, operator) per process (test_segments.c, edge_cases,
  # says why): groups of 8 every kind of operator, 16 and 64 a few
  foreach(case "8 int sum" "8 float max" "8 double min" "8 long prod" "8 uint xor"
          "8 ulong and" "8 widening" "8 rows" "16 int sum" "16 float min" "16 double sum"
          "16 int or" "16 widening" "64 int sum")
    string(REPLACE " " ";" args "${case}")
    string(REPLACE " " "." name "${case}")
    list(POP_FRONT args w)
    ocr_test(segments.oclgrind.edges.w${name} LABELS oclgrind segments
             COMMAND ${OG} 0 $<TARGET_FILE:test_segments> ${w} edges - ${args})
  endforeach()
  # the long-segment path from the CLI (the mean fills a chunk of groups of 8
  # and 16: SEG_CHUNK_ITEMS per work-item)
  math(EXPR n8 "3 * 8 * ${SEG_CHUNK_ITEMS_OF_TESTS} + 1")
  math(EXPR n16 "7 * 16 * ${SEG_CHUNK_ITEMS_OF_TESTS} + 17")
  ocr_test(segments.oclgrind.cli_chunks LABELS oclgrind segments
           COMMAND ${OG} 0 ${OCR} --segments 3 -s ${n8} -r 1 -w 8)
  ocr_test(segments.oclgrind.cli_chunks_double LABELS oclgrind segments
           COMMAND ${OG} 0 ${OCR} --segments 7 -s ${n16} -r 1 -w 16 --type double --op min)
  ocr_test(segments.oclgrind.cli LABELS oclgrind segments
           COMMAND ${OG} 0 ${OCR} --segments 37 -s 1001 -r 1 -w 16 --type double --op min)
endif()

# --segments K: every type and operator, checked segment by segment (exit 0).
foreach(t int uint long ulong float double)
  foreach(op sum prod min max and or xor)
    if(NOT (t MATCHES "float|double" AND op MATCHES "and|or|xor"))
      ocr_test(segments.cli.${t}.${op} LABELS segments
               PROPERTIES PASS_REGULAR_EXPRESSION "^Test PASSED!|\nTest PASSED!"
               COMMAND ${OCR} --segments 333 -s 100003 -r 2 --type ${t} --op ${op} --seed 7)
    endif()
  endforeach()
endforeach()
cli_test(segments_text --rc 0 --out "^Segmented reduction: 1000 segments, 65536 elements \\(int sum"
         --out "^Test PASSED!$" --out "^T kernel: " --out "^Bandwidth: " --empty-err
         -- ${OCR} --segments 1000 -s 64K -r 2)
cli_test(segments_more_than_n --rc 0 --out "^Segment lengths: 0 to " --out "^Test PASSED!$"
         -- ${OCR} --segments 5000 -s 1000 -r 1 --type float --op max)
cli_test(segments_uniform --rc 0 --out "^Test PASSED!$"
         -- ${OCR} --segments 100 -s 100003 -r 1 --type float --data uniform)
ocr_test(segments.json LABELS quick segments
         COMMAND sh -c "\"$1\" --segments 77 -s 9999 -r 1 --format json | python3 \"$2\""
         _ ${OCR} ${SJ})
cli_test(segments_refuses_kernel --rc 2 --err "--kernel cannot go with --segments"
         -- ${OCR} --segments 5 -n 3)
cli_test(segments_refuses_csv --rc 2 --err "--segments reports text or json, not csv"
         -- ${OCR} --segments 5 --format csv)
cli_test(segments_zero --rc 2 --err "invalid value for --segments" -- ${OCR} --segments 0)
cli_test(segments_refuses_argmax --rc 2 --err "--segments finds no argmin or argmax per segment"
         -- ${OCR} --segments 5 --op argmax)
cli_test(segments_refuses_accurate --rc 2 --err "--accurate cannot go with --segments"
         -- ${OCR} --segments 5 --type float --accurate)
cli_test(segments_all_devices --rc 2 --err "--segments runs on one device"
         -- ${OCR} --segments 5 -d all)
# The verdict fails a kernel that drops an element (a broken copy of
# cl/segreduce.cl through --kernel-dir), for a sum and a max: exit 1, FAILED.
ocr_test(segments.verdict_broken LABELS quick segments
         COMMAND ${SCRIPTS}/segments_broken_test.sh ${OCR} ${PROJECT_SOURCE_DIR}/cl)
# Every type and operator (float prod too), three seeds, both paths: a kernel
# dropping an element FAILS (the one-sided second data set per segment
# catches min, max, and, or); so does one that reads nothing.
ocr_test(segments.verdict_drop_all LABELS segments verdict
         COMMAND ${SCRIPTS}/segments_drop_all_test.sh ${OCR} ${PROJECT_SOURCE_DIR}/cl)
# Every piece of the kernels is needed: a copy with one piece broken (head,
# tail, vector guards, runs, combine, search, chunk ends, segfix's two ways,
# clamping) FAILS test_segments' edge cases; under oclgrind, 16-byte loads
# that ignore the input offset's alignment draw its diagnostic.
if(OCLGRIND)
  set(SEG_MUTANTS_OG ${OG})
else()
  set(SEG_MUTANTS_OG "")
endif()
ocr_test(segments.mutants LABELS segments verdict
         COMMAND ${SCRIPTS}/segments_mutants_test.sh $<TARGET_FILE:test_segments>
                 ${PROJECT_SOURCE_DIR}/cl ${SEG_MUTANTS_OG})
