# The reducer: a caller's context, queue and buffer (issue 14).
# examples/reduce_my_buffer: every type and operator, whole buffer, an aligned
# offset and the non-blocking call, against the CPU loop, bit for bit.
ocr_test(reducer.example LABELS quick reducer PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL"
         COMMAND reduce_my_buffer 1 3 4103 1000003)
# Errors reported through the status and the message, nothing printed; many
# passes, scratch reuse, the wait list, the kernel_dir override.
ocr_test(reducer.errors LABELS quick reducer COMMAND test_reducer ${PROJECT_SOURCE_DIR}/cl)
# An OpenCL call failing inside the reducer: reported, not printed.
foreach(call clBuildProgram clCreateBuffer clEnqueueNDRangeKernel clEnqueueReadBuffer)
  ocr_test(reducer.fault.${call} LABELS quick reducer fault
           PROPERTIES ENVIRONMENT "OCR_FAULT=${call}:1;LD_PRELOAD=$<TARGET_FILE:fault_shim>;ASAN_OPTIONS=verify_asan_link_order=0"
           COMMAND test_reducer fault ${call})
endforeach()
# python/oclreduction.py (ctypes over liboclreduction.so) with PyOpenCL's own
# context, queue and arrays: pytest on the first device. Needs a Python with
# pyopencl, numpy and pytest (Debian: python3-pyopencl python3-pytest). Not in
# sanitizer builds: Python would load an ASan library without the ASan runtime.
if(OCR_BUILD_SHARED AND NOT OCR_SANITIZE AND NOT OCR_FUZZ)
  set(OCR_PYTEST_PYTHON "")
  foreach(py ${Python3_EXECUTABLE} /usr/bin/python3)
    if(NOT OCR_PYTEST_PYTHON AND EXISTS "${py}")
      execute_process(COMMAND ${py} -c "import pyopencl, numpy, pytest" RESULT_VARIABLE rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(OCR_PYTEST_PYTHON ${py})
      endif()
    endif()
  endforeach()
  if(OCR_PYTEST_PYTHON)
    ocr_test(python.pytest LABELS quick reducer python
             PROPERTIES ENVIRONMENT "OCLREDUCTION_LIBRARY=$<TARGET_FILE:oclreduction_shared>;PYTHONPATH=${PROJECT_SOURCE_DIR}/python;PYTHONDONTWRITEBYTECODE=1"
             COMMAND ${OCR_PYTEST_PYTHON} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests)
  else()
    message(STATUS "python.pytest skipped: no Python with pyopencl, numpy and pytest")
  endif()
endif()
