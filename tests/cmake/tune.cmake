# Per-device tuning (--tune) and its cache.
ocr_test(tune.cache LABELS quick tune PROPERTIES TIMEOUT 120 COMMAND ${SCRIPTS}/tune_test.sh ${OCR})
cli_test(tune_refuses_other_kernels --rc 2 --err "--tune tunes reduce7" -- ${OCR} --tune -n 3)
cli_test(tune_refuses_geometry --rc 2 --err "--local-size cannot go with --tune" -- ${OCR} --tune -w 64)
# The tuning cache's file (host/lib/opencl/ocr_tune_cache.c): every field checked, the
# real line number in the note, the file's mode kept, a symbolic link refused,
# a read-only cache refused, two tuners at once keep both entries (paused by
# an LD_PRELOAD shim, unit/shims/tune_hook_shim.c: the library has no test hook).
add_library(tune_hook_shim MODULE ${UNIT}/shims/tune_hook_shim.c)
target_link_libraries(tune_hook_shim PRIVATE ${CMAKE_DL_LIBS})
target_compile_options(tune_hook_shim PRIVATE -Wno-pedantic) # dlsym's object-to-function cast
foreach(part fields files race)
  ocr_test(tune.cache_${part} LABELS quick tune
           PROPERTIES TIMEOUT 300 ENVIRONMENT "TUNE_HOOK_SHIM=$<TARGET_FILE:tune_hook_shim>"
           COMMAND ${SCRIPTS}/tune_edges_test.sh ${OCR} ${part})
endforeach()
