# The docs: every relative link of README.md and docs/ leads somewhere and
# every path the README names exists (docs.links; docs.links_planted: the
# check finds a planted dead link, anchor, picture and path); every picture
# of docs/img/ is drawn again by bench/plot.py from its committed CSV, by the
# command its page shows (docs.plots, with gnuplot).
if(Python3_FOUND)
  ocr_test(docs.links LABELS quick docs
           COMMAND ${Python3_EXECUTABLE} ${SCRIPTS}/docs_links_test.py ${PROJECT_SOURCE_DIR})
  ocr_test(docs.links_planted LABELS quick docs
           COMMAND ${EXPECT} --rc 1 --out "^DEAD: README.md: link \\(docs/nowhere.md\\)"
                   --out "has no heading #no-such-heading$" --out "docs/img/missing.svg does not exist$"
                   --out "names docs/no_such_script.sh, which is not in the tree$"
                   --out "^FAIL: 5 relative links in 2 pages, .* 4 dead$"
                   -- ${Python3_EXECUTABLE} ${SCRIPTS}/docs_links_test.py ${FIXTURES}/docs_links)
  find_program(GNUPLOT gnuplot)
  if(GNUPLOT)
    ocr_test(docs.plots LABELS quick docs PROPERTIES TIMEOUT 120
             COMMAND ${Python3_EXECUTABLE} ${SCRIPTS}/docs_plots_test.py ${PROJECT_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/docs_plots)
    # bench/plot.py's own edges: a row cut short (nan) is no point (11 of the
    # 12 rows of the two files); a filter that leaves nothing and a column
    # the CSV lacks are usage errors, named.
    set(VS ${PROJECT_SOURCE_DIR}/bench/results/vs-cub)
    set(PLOT ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/plot.py A=${VS}/h100-2026-11-25/vs_cub.csv
             B=${VS}/h200-2026-11-25/vs_cub.csv -x log2n -y ratio --series type)
    ocr_test(docs.plot_nan LABELS quick docs
             COMMAND ${EXPECT} --rc 0 --out "docs_plot_nan.svg \\(11 points\\)$"
                     -- ${PLOT} --where config=default -o ${CMAKE_CURRENT_BINARY_DIR}/docs_plot_nan.svg)
    ocr_test(docs.plot_nothing LABELS quick docs
             COMMAND ${EXPECT} --rc 2 --err "no row passes the --where filters: nothing to plot"
                     -- ${PLOT} --where config=nonesuch -o ${CMAKE_CURRENT_BINARY_DIR}/docs_plot_nothing.svg)
    ocr_test(docs.plot_no_column LABELS quick docs
             COMMAND ${EXPECT} --rc 2 --err "has no column 'nope' \\(it has: type, log2n, config,"
                     -- ${PLOT} --where nope=1 -o ${CMAKE_CURRENT_BINARY_DIR}/docs_plot_no_column.svg)
  else()
    message(WARNING "gnuplot not found: docs.plots is not registered (apt-get install gnuplot-nox)")
  endif()
endif()
