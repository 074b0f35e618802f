# The reducer: a caller's context, queue and buffer.
# examples/reduce_my_buffer: every type and operator, whole buffer, an aligned
# offset and the non-blocking call, against the CPU loop, bit for bit.
ocr_test(reducer.example LABELS quick reducer PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL"
         COMMAND reduce_my_buffer 1 3 4103 1000003)
# Errors reported through the status and the message, nothing printed; many
# passes, scratch reuse, the wait list, the kernel_dir override.
ocr_test(reducer.errors LABELS quick reducer COMMAND test_reducer ${PROJECT_SOURCE_DIR}/cl)
# Misuse refused, never a crash or a wrong value: threads calling
# one reducer at once (each call right or OCR_USAGE), calls and a release while
# another thread's call is held inside, a second release and calls after
# release (under ASan: no freed memory read). Before the guard these aborted
# in POCL, crashed, or hung.
foreach(how threads inflight released)
  ocr_test(reducer.misuse_${how} LABELS quick reducer PROPERTIES TIMEOUT 300
           COMMAND test_reducer_misuse ${how})
endforeach()
# An OpenCL call failing inside the reducer: reported, not printed.
foreach(call clBuildProgram clCreateBuffer clEnqueueNDRangeKernel clEnqueueReadBuffer)
  ocr_test(reducer.fault.${call} LABELS quick reducer fault
           PROPERTIES ENVIRONMENT "OCR_FAULT=${call}:1;LD_PRELOAD=$<TARGET_FILE:fault_shim>;ASAN_OPTIONS=verify_asan_link_order=0"
           COMMAND test_reducer fault ${call})
endforeach()
# n = 0 in every call form: the identity (argmin/argmax: OCR_USAGE; a custom
# reducer: its neutral), blocking and enqueued, behind a wait list, done
# completing (issue 48).
add_executable(test_empty ${UNIT}/reducer/test_empty.c)
target_link_libraries(test_empty PRIVATE oclreduction)
ocr_test(reducer.empty LABELS quick reducer COMMAND test_empty)
