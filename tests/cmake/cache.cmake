# The per-user caches' files: the program cache's entries and the
# tuning cache are only read when they are this user's own regular files in
# directories no one else can write, no link is followed, a FIFO does not
# hang, no HOME means no cache (never the current directory), and the program
# cache keeps under OCLREDUCTION_CACHE_MAX, least recently used out.
add_executable(test_cache ${UNIT}/opencl/test_cache.c)
target_link_libraries(test_cache PRIVATE oclreduction)
target_link_libraries(test_cache PRIVATE ocr_private_headers)
foreach(part modes owner dirmode link tmplink fifo nohome evict tunelinks tunegroups)
  ocr_test(cache.${part} LABELS quick cache PROPERTIES TIMEOUT 300
           COMMAND ${SCRIPTS}/cache_test.sh ${OCR} $<TARGET_FILE:test_cache> ${PROJECT_SOURCE_DIR}/cl ${part})
endforeach()
ocr_test(cache.tunewg LABELS quick cache tune PROPERTIES TIMEOUT 300
         ENVIRONMENT "SHIM=$<TARGET_FILE:fault_shim>"
         COMMAND ${SCRIPTS}/cache_test.sh ${OCR} $<TARGET_FILE:test_cache> ${PROJECT_SOURCE_DIR}/cl tunewg)
if(OCR_PYTEST_PYTHON)
  ocr_test(cache.pynohome LABELS quick cache python PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
           ENVIRONMENT "PY=${OCR_PYTEST_PYTHON};PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1"
           COMMAND ${SCRIPTS}/cache_test.sh ${OCR} $<TARGET_FILE:test_cache> ${PROJECT_SOURCE_DIR}/cl pynohome)
endif()
