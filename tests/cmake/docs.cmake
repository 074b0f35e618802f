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
  else()
    message(WARNING "gnuplot not found: docs.plots is not registered (apt-get install gnuplot-nox)")
  endif()
endif()
