# CI and the README's commands: the README's quick start and test command are
# what .ci/run runs, and work as root without sudo (a fresh container) and as
# a user with or without sudo.
ocr_test(ci.readme_commands LABELS quick ci COMMAND ${SCRIPTS}/readme_commands_test.sh ${PROJECT_SOURCE_DIR})

# clang-format: every C file of host/, include/, tests/unit/, examples/ and
# bench/ is as .clang-format lays it out (CI installs clang-format; elsewhere
# the test says SKIPPED without it).
ocr_test(ci.format LABELS quick ci PROPERTIES SKIP_RETURN_CODE 77
         COMMAND ${SCRIPTS}/format_test.sh ${PROJECT_SOURCE_DIR})
