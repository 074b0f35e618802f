# bench/: the drivers' smoke tests (label bench), registered only in a build
# with -DOCR_BUILD_BENCH=ON (which also builds ocr_peers and ocr_latency).
# Small sizes: they check that each driver runs, checks its answers and writes
# its files, not how fast anything is. CI runs them in its MPI build
# (.ci/run).
if(NOT OCR_BUILD_BENCH OR OCR_FUZZ)
  message(STATUS "bench: the tests of bench/ (label bench) are not registered: configure with -DOCR_BUILD_BENCH=ON")
else()
  # The sweep (bench/drivers/sweep.sh; gnuplot for the plots, CI installs
  # gnuplot-nox).
  find_program(GNUPLOT gnuplot)
  if(GNUPLOT)
    ocr_test(bench.sweep LABELS bench COMMAND ${SCRIPTS}/sweep_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
  else()
    message(WARNING "gnuplot not found: the sweep test is not registered (apt-get install gnuplot-nox)")
  endif()
  # sweep.sh -- --kernel-file ...: the sweep passes no -n with a user kernel.
  ocr_test(bench.sweep_kernel_file LABELS bench lab
           COMMAND ${SCRIPTS}/sweep_kernel_file_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
  # sweep.sh: sizes beyond oclReduction's range (bash's 1 << 64 wraps to N = 1)
  # and reversed ranges are refused with a message, exit 2, no run.
  set(SWEEP ${PROJECT_SOURCE_DIR}/bench/drivers/sweep.sh)
  ocr_test(bench.sweep_size_wraps LABELS quick bench edges PROPERTIES TIMEOUT 120
           COMMAND ${EXPECT} --rc 2 --err "sizes go up to 2\\^40 elements" --no-err "kernel" --env OCR=${OCR}
                   -- ${SWEEP} -k 6 -s "64 64" -r 1 -o sweep-edges-out)
  ocr_test(bench.sweep_size_reversed LABELS quick bench edges PROPERTIES TIMEOUT 120
           COMMAND ${EXPECT} --rc 2 --err "the first size is larger than the last \\(2\\^26 > 2\\^10\\)"
                   --env OCR=${OCR} -- ${SWEEP} -k 6 -s "26 10" -r 1 -o sweep-edges-out)
  ocr_test(bench.sweep_size_not_a_number LABELS quick bench edges PROPERTIES TIMEOUT 120
           COMMAND ${EXPECT} --rc 2 --err "-s takes the log2 of the first and last size"
                   --env OCR=${OCR} -- ${SWEEP} -k 6 -s "1e3" -r 1 -o sweep-edges-out)
  # A kernel that hangs is stopped at --timeout, and the sweep says which run
  # failed (exit 1), not hang.
  ocr_test(bench.timeout_sweep LABELS quick bench edges PROPERTIES TIMEOUT 120
           COMMAND ${EXPECT} --rc 1 --err "did not finish within its time limit \\(--timeout 3 s\\): abandoned"
                   --err "sweep: kernel spin int 2\\^10 failed \\(exit 3\\)" --env OCR=${OCR}
                   -- ${SWEEP} -s "10 11" -r 1 -o sweep-timeout-out -- --kernel-file
                   ${FIXTURES}/kernels_hang/spin.cl --kernel-name spin --elems-per-group 1024 --timeout 3)

  # The peers (bench/drivers/peers.sh over ocr_peers): every side built here
  # answers right, missing peers are skipped, a wrong reduce7 is caught.
  set(peers_boost 0)
  set(peers_clblast 0)
  if(TARGET ocr_peers_boost)
    set(peers_boost 1)
  endif()
  if(OCR_CLBLAST_LIBRARY)
    set(peers_clblast 1)
  endif()
  ocr_test(bench.peers LABELS bench PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/peers_test.sh ${PROJECT_SOURCE_DIR} $<TARGET_FILE:ocr_peers> ${peers_boost} ${peers_clblast})

  # The histogram against CUB (bench/drivers/histogram_vs_cub.sh): our side
  # on the CPU device at small sizes, CUB skipped; both cases and data sets
  # land in the table, every run passed.
  ocr_test(bench.histogram_vs_cub LABELS bench histogram PROPERTIES TIMEOUT 300
           COMMAND env OCR=${OCR} "SIZES=10 12" REPS=2 ROUNDS=1 DEVICE_TYPE=cpu NO_CUB=1
                   ${PROJECT_SOURCE_DIR}/bench/drivers/histogram_vs_cub.sh
                   ${CMAKE_CURRENT_BINARY_DIR}/bench-histogram)
  set_tests_properties(bench.histogram_vs_cub PROPERTIES PASS_REGULAR_EXPRESSION
                       "float +1024 +one-bin +12 .* 1 +1")

  # The accurate sum's throughput against the plain one
  # (bench/drivers/accurate.sh, the GPU check) runs, at a small size.
  ocr_test(bench.accurate LABELS bench accurate
           COMMAND ${PROJECT_SOURCE_DIR}/bench/drivers/accurate.sh -b ${CMAKE_BINARY_DIR} -s 64K -k 2 -r 2
                   -o ${CMAKE_CURRENT_BINARY_DIR}/bench-accurate)
  set_tests_properties(bench.accurate PROPERTIES PASS_REGULAR_EXPRESSION "throughput accurate / plain: [0-9.]+")

  # The plot of the argmax and segmented-sum comparison with CUB
  # (bench/cub/plot_ops_vs_cub.py over bench/drivers/ops_vs_cub.sh's raw.csv).
  ocr_test(bench.plot_ops_vs_cub LABELS bench quick
           COMMAND ${SCRIPTS}/plot_ops_vs_cub_test.sh ${PROJECT_SOURCE_DIR})
endif()
