# Fuzzing the command line: every input kept in fixtures/fuzz_corpus/ (seeds,
# and any that ever crashed) replays in every build; the fuzzer itself runs in
# a -DOCR_FUZZ=ON build (clang).
add_executable(fuzz_replay ${UNIT}/cli/fuzz_cli.c)
target_compile_definitions(fuzz_replay PRIVATE OCR_FUZZ_REPLAY)
target_link_libraries(fuzz_replay PRIVATE ocr_cli)
file(GLOB FUZZ_CORPUS ${FIXTURES}/fuzz_corpus/*)
ocr_test(fuzz.corpus_replay LABELS quick fuzz COMMAND fuzz_replay ${FUZZ_CORPUS})
if(OCR_FUZZ)
  add_executable(fuzz_cli ${UNIT}/cli/fuzz_cli.c)
  target_link_libraries(fuzz_cli PRIVATE ocr_cli)
  target_link_options(fuzz_cli PRIVATE -fsanitize=fuzzer)
  ocr_test(fuzz.cli LABELS fuzz PROPERTIES TIMEOUT 180
           COMMAND ${SCRIPTS}/fuzz_run.sh $<TARGET_FILE:fuzz_cli> ${FIXTURES}/fuzz_corpus 60)
endif()
