# Histograms (ocr_reducer_histogram, host/lib/reducer/ocr_histogram.c,
# cl/histogram.cl): every input type against a host loop, bit for bit; the
# refusals, the wait list and done; oclgrind; mutants of the kernels.
add_executable(test_histogram ${UNIT}/reducer/test_histogram.c)
target_link_libraries(test_histogram PRIVATE oclreduction m)
# Per type: drawn data (three seeds), one-bin and edge values (lower, upper,
# just below upper, NaN, +-inf, out of range), even bins and bincount, 32/64-bit
# counts, accumulate, offsets, every method, 2^20 bins (beyond local memory),
# n = 0; edges and weights on six types each (few kernel builds in a fresh run).
foreach(t char uchar short ushort int uint long ulong half float double)
  ocr_test(histogram.types.${t} LABELS quick reducer histogram PROPERTIES TIMEOUT 600
           COMMAND test_histogram types ${t})
endforeach()
# Small runs in groups of 8 (several work-items share a group's counts),
# and in a GPU's groups of 64 and 256.
foreach(t uchar float long)
  ocr_test(histogram.few_w8.${t} LABELS quick reducer histogram COMMAND test_histogram few ${t} 8)
endforeach()
foreach(w 64 256)
  foreach(t uchar float)
    ocr_test(histogram.few_w${w}.${t} LABELS quick reducer histogram
             COMMAND test_histogram few ${t} ${w})
  endforeach()
endforeach()
ocr_test(histogram.misuse LABELS quick reducer histogram COMMAND test_histogram misuse)
# oclgrind: race-free (--data-races --uniform-writes), in bounds, in groups of 8.
if(OCLGRIND)
  foreach(t uchar int float half double)
    ocr_test(histogram.oclgrind.${t} LABELS oclgrind histogram
             COMMAND ${OG} 0 --uniform-writes $<TARGET_FILE:test_histogram> few ${t} 8)
  endforeach()
  ocr_test(histogram.oclgrind.uchar_w64 LABELS oclgrind histogram
           COMMAND ${OG} 0 --uniform-writes $<TARGET_FILE:test_histogram> few uchar 64)
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

# ---- oclReduction --histogram --kernel-file: a student's kernel ---------------
# docs/labs/histogram_starter.cl PASSes on drawn and one-bin data (plus the
# edge data every run adds), on float and int, on the grid the host chooses
# and on one given with -g/-w; each fixture of tests/fixtures/kernels_histogram
# with one mistake FAILs (exit 1) or is refused (the signature, exit 3).
set(KH ${FIXTURES}/kernels_histogram)
set(HSTARTER ${PROJECT_SOURCE_DIR}/docs/labs/histogram_starter.cl)
foreach(t float int)
  foreach(d uniform one-bin)
    cli_test(histogram_file_${t}_${d} --rc 0 --out "kernel my_histogram$"
             --out "^Grid: [0-9]+ groups x 64 work-items, one launch"
             --out "1 on edge data of seed \\+ 1\\)" --out "^Test PASSED!$"
             -- ${OCR} --histogram 200 --type ${t} --data ${d} --kernel-file ${HSTARTER}
                --kernel-name my_histogram --seed 11 -s 100003 -r 1)
  endforeach()
endforeach()
cli_test(histogram_file_grid --rc 0 --out "^Grid: 3 groups x 16 work-items, one launch"
         --out "^Test PASSED!$"
         -- ${OCR} --histogram 1000 --type float --range -2.5,7 --kernel-file ${HSTARTER}
            --kernel-name my_histogram -g 3 -w 16 -s 65537 -r 1)
cli_test(histogram_file_json --rc 0 --out "\"method\": \"my_histogram\", .*\"verdict\": \"PASSED\"\\}$"
         -- ${OCR} --histogram 16 --kernel-file ${HSTARTER} --kernel-name my_histogram -s 1000 -r 1
            --format json)
cli_test(histogram_file_reads_nothing --rc 1 --out "^Wrong: " --out "^Test FAILED!$"
         -- ${OCR} --histogram 64 --type float --kernel-file ${KH}/reads_nothing.cl
            --kernel-name reads_nothing -s 10007 -r 1)
cli_test(histogram_file_open_last --rc 1 --out "^Wrong: 1 bin over all runs \\(the first: bin 63\\)$"
         --out "^Test FAILED!$"
         -- ${OCR} --histogram 64 --type float --kernel-file ${KH}/open_last.cl
            --kernel-name open_last -s 10007 -r 1)
cli_test(histogram_file_open_last_int --rc 1 --out "^Test FAILED!$"
         -- ${OCR} --histogram 64 --type int --kernel-file ${KH}/open_last.cl
            --kernel-name open_last -s 10007 -r 1)
cli_test(histogram_file_past_end --rc 1 --out "^Wrong: the kernel wrote past the last bin \\(counts\\[64\\]\\)"
         --out "^Test FAILED!$"
         -- ${OCR} --histogram 64 --type float --kernel-file ${KH}/past_end.cl
            --kernel-name past_end -s 10007 -r 1)
cli_test(histogram_file_no_stride --rc 1 --out "^Test FAILED!$"
         -- ${OCR} --histogram 64 --type float --kernel-file ${KH}/no_stride.cl
            --kernel-name no_stride -g 2 -w 16 -s 10007 -r 1)
cli_test(histogram_file_signature --rc 3
         --err "wrong_signature.cl: kernel 'wrong_signature' does not fit the harness: argument 1 \\(n\\) is __global; it must be a ulong value"
         --err "histogram_starter.cl\\)$"
         -- ${OCR} --histogram 64 --kernel-file ${KH}/wrong_signature.cl
            --kernel-name wrong_signature -s 1000 -r 1)
cli_test(histogram_file_reduction_kernel --rc 3 --err "it takes 3 arguments, not 6"
         -- ${OCR} --histogram 64 --kernel-file ${PROJECT_SOURCE_DIR}/docs/labs/starter.cl
            --kernel-name my_reduce -s 1000 -r 1)
cli_test(histogram_file_method --rc 2 --err "--hist-method goes with --histogram but not with --kernel-file"
         -- ${OCR} --histogram 8 --kernel-file ${HSTARTER} --kernel-name my_histogram --hist-method local)
cli_test(histogram_file_groups_alone --rc 2 --err "--groups goes with --histogram only with --kernel-file"
         -- ${OCR} --histogram 8 -g 3)
cli_test(histogram_file_epg --rc 2 --err "no --elems-per-group"
         -- ${OCR} --histogram 8 --kernel-file ${HSTARTER} --kernel-name my_histogram --elems-per-group 64)
cli_test(histogram_file_small --rc 2 --err "--type uchar needs a kernel that converts it"
         -- ${OCR} --histogram 8 --kernel-file ${HSTARTER} --kernel-name my_histogram --type uchar)
# The lost atomic (counts[b]++) may pass on POCL, which runs a group's
# work-items one after another: oclgrind's race check catches it; the
# starter's atomic_inc passes it.
if(OCLGRIND)
  set(HRC_ARGS --histogram 16 --type int -g 2 -w 8 -s 2000 -r 1 --race-check)
  cli_test(histogram_file_race --rc 1 --out "^Race check: RACE" --err "data race"
           -- ${OCR} --kernel-file ${KH}/lost_atomic.cl --kernel-name lost_atomic ${HRC_ARGS})
  cli_test(histogram_file_race_pass --rc 0 --out "^Race check: PASS$"
           -- ${OCR} --kernel-file ${HSTARTER} --kernel-name my_histogram ${HRC_ARGS})
endif()
cli_test(histogram_file_float_counts --rc 3
         --err "argument 2 \\(the counts\\) is float\\*; it must be __global uint \\*"
         -- ${OCR} --histogram 64 --kernel-file ${KH}/float_counts.cl --kernel-name float_counts
            -s 1000 -r 1)
