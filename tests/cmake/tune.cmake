# Per-device tuning (--tune) and its cache.
ocr_test(tune.cache LABELS quick tune PROPERTIES TIMEOUT 120 COMMAND ${SCRIPTS}/tune_test.sh ${OCR})
cli_test(tune_refuses_other_kernels --rc 2 --err "--tune tunes reduce7" -- ${OCR} --tune -n 3)
cli_test(tune_refuses_geometry --rc 2 --err "--local-size cannot go with --tune" -- ${OCR} --tune -w 64)
