# Histograms (ocr_reducer_histogram, host/lib/reducer/ocr_histogram.c,
# cl/histogram.cl): every input type against a host loop, bit for bit; the
# refusals, the wait list and done; oclgrind; mutants of the kernels.
add_executable(test_histogram ${UNIT}/reducer/test_histogram.c)
target_link_libraries(test_histogram PRIVATE oclreduction m)
# Drawn data (three seeds), one-bin and edge values (lower, upper, just below
# upper, NaN, +-inf, out of range), even bins, edges (float and double),
# bincount, weights, 32/64-bit counts, accumulate, offsets, every method,
# 2^20 bins (beyond local memory), n = 0.
foreach(t char uchar short ushort int uint long ulong half float double)
  ocr_test(histogram.types.${t} LABELS quick reducer histogram PROPERTIES TIMEOUT 600
           COMMAND test_histogram types ${t})
endforeach()
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
ocr_test(histogram.mutants LABELS histogram verdict PROPERTIES TIMEOUT 900
         COMMAND ${SCRIPTS}/histogram_mutants_test.sh $<TARGET_FILE:test_histogram>
                 ${PROJECT_SOURCE_DIR}/cl)

# ---- oclReduction --histogram ------------------------------------------------
# Every run checks every bin against the CPU loop, bit for bit: PASSED, and
# the report's lines, in each format; uchar images and float measurements,
# uniform and one-bin data, each method; the refusals (exit 2).
foreach(t uchar float half long)
  foreach(d uniform one-bin)
    cli_test(histogram_${t}_${d} --rc 0 --out "^Histogram: 256 bins over .0, " --out "^Test PASSED!$"
             --out "^T kernel: " --out "^Bandwidth: .* GB/s \\(input / T kernel\\)$"
             -- ${OCR} --histogram 256 --type ${t} --data ${d} -s 100003 -r 2)
  endforeach()
endforeach()
foreach(m global local aggregate)
  cli_test(histogram_method_${m} --rc 0 --out "method ${m}$" --out "^Test PASSED!$"
           -- ${OCR} --histogram 1000 --type int --range -50,2000 --hist-method ${m} -s 65537 -r 1)
endforeach()
cli_test(histogram_csv --rc 0 --out "^histogram,bins,lo,hi,n,type,method,seed,data,device,runs,counted,kernel_ms,kernel_ms_min,gbps,wrong_bins,verdict$"
         --out "^1,64,-1,3,4096,double,auto,7,uniform,.*,PASSED$"
         -- ${OCR} --histogram 64 --range -1,3 --type double --seed 7 -s 4096 -r 1 --format csv)
cli_test(histogram_json --rc 0 --out "^\\{\"histogram\": true, \"bins\": 3, .*\"verdict\": \"PASSED\"\\}$"
         -- ${OCR} --histogram 3 --type ushort -s 1000 -r 1 --format json)
cli_test(histogram_bins_0 --rc 2 --err "invalid value for --histogram" -- ${OCR} --histogram 0)
cli_test(histogram_range_reversed --rc 2 --err "--range takes LO,HI: two finite numbers, LO < HI"
         -- ${OCR} --histogram 8 --range 5,1)
cli_test(histogram_range_junk --rc 2 --err "--range takes LO,HI" -- ${OCR} --histogram 8 --range 1x,2)
cli_test(histogram_range_alone --rc 2 --err "--range applies only with --histogram" -- ${OCR} --range 0,1)
cli_test(histogram_one_bin_alone --rc 2 --err "--data one-bin is --histogram's" -- ${OCR} --data one-bin)
cli_test(histogram_op --rc 2 --err "--op cannot go with --histogram" -- ${OCR} --histogram 8 --op max)
cli_test(histogram_all --rc 2 --err "--histogram runs on one device, not -d all" -- ${OCR} --histogram 8 -d all)
cli_test(histogram_scale_overflow --rc 2 --err "histogram: the range .* must be finite"
         -- ${OCR} --histogram 8 --type float --range 0,1e39 -s 1000)
# A kernel with a mistake FAILs (exit 1): the last bin's upper edge left out.
mutant_dir(${CMAKE_CURRENT_BINARY_DIR}/histogram_mutants/open_last histogram.cl
           "if (!(v >= lower && v <= upper)) return HIST_NONE;"
           "if (!(v >= lower && v < upper)) return HIST_NONE;")
cli_test(histogram_mutant_open_last --rc 1 --out "^Wrong: 2 bins over all runs \\(the first: bin 255\\)$"
         --out "^Test FAILED!$"
         -- ${OCR} --kernel-dir ${CMAKE_CURRENT_BINARY_DIR}/histogram_mutants/open_last
            --histogram 256 --type uchar --range 0,255 -s 100003 -r 1)
