# CI and the README's commands: the README's quick start and test command are
# what .ci/run runs, and work as root without sudo (a fresh container) and as
# a user with or without sudo.
ocr_test(ci.readme_commands LABELS quick ci COMMAND ${SCRIPTS}/readme_commands_test.sh ${PROJECT_SOURCE_DIR})
