# tools/: the sweep (needs gnuplot for the plots; CI installs gnuplot-nox) and
# the peers benchmark.
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  ocr_test(tools.sweep LABELS tools COMMAND ${SCRIPTS}/sweep_test.sh ${PROJECT_SOURCE_DIR} ${OCR})
else()
  message(WARNING "gnuplot not found: the sweep test is not registered (apt-get install gnuplot-nox)")
endif()
# tools/sweep.sh -- --kernel-file ...: the sweep passes no -n with a user kernel.
ocr_test(tools.sweep_kernel_file LABELS tools lab
         COMMAND ${SCRIPTS}/sweep_kernel_file_test.sh ${PROJECT_SOURCE_DIR} ${OCR})

# The peers tool (tools/peers.sh): every side built here answers right,
# missing peers are skipped, a wrong reduce7 is caught.
if(TARGET ocr_peers)
  set(peers_boost 0)
  set(peers_clblast 0)
  if(TARGET ocr_peers_boost)
    set(peers_boost 1)
  endif()
  if(OCR_CLBLAST_LIBRARY)
    set(peers_clblast 1)
  endif()
  ocr_test(tools.peers LABELS tools PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/peers_test.sh ${PROJECT_SOURCE_DIR} $<TARGET_FILE:ocr_peers> ${peers_boost} ${peers_clblast})
endif()

# The plot of issue 27's CUB comparison (tools/plot_issue27.py).
ocr_test(tools.plot_issue27 LABELS tools quick
         COMMAND ${SCRIPTS}/plot_issue27_test.sh ${PROJECT_SOURCE_DIR})
