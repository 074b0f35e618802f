# The test programs built from tests/unit/, and the unit tests proper. The
# other topics run these programs (test_kernels: kernels; test_verdict:
# verdict; test_split, test_split_reducer: multi; test_reducer, test_reducer_misuse:
# reducer;
# fault_shim: wherever an OpenCL call must fail).
foreach(t test_plan test_types)
  add_executable(${t} ${UNIT}/core/${t}.c)
  target_link_libraries(${t} PRIVATE oclreduction)
  ocr_test(unit.${t} LABELS quick unit COMMAND ${t})
endforeach()
# The kernel registry by ability: one row is the reducer's kernel.
add_executable(test_registry ${UNIT}/opencl/test_registry.c)
target_link_libraries(test_registry PRIVATE oclreduction)
ocr_test(registry.kernel_for LABELS quick unit COMMAND test_registry)
add_executable(test_cli ${UNIT}/cli/test_cli.c)
target_link_libraries(test_cli PRIVATE ocr_cli)
ocr_test(unit.test_cli LABELS quick unit COMMAND test_cli)

add_executable(test_kernels ${UNIT}/opencl/test_kernels.c)
target_link_libraries(test_kernels PRIVATE ocr_cli)
add_executable(test_verdict ${UNIT}/run/test_verdict.c)
target_link_libraries(test_verdict PRIVATE oclreduction)
add_executable(test_split ${UNIT}/run/test_split.c)
target_link_libraries(test_split PRIVATE oclreduction)
add_executable(test_split_reducer ${UNIT}/run/test_split_reducer.c)
target_link_libraries(test_split_reducer PRIVATE oclreduction Threads::Threads)
add_executable(test_reducer ${UNIT}/reducer/test_reducer.c)
target_link_libraries(test_reducer PRIVATE oclreduction Threads::Threads)
add_executable(test_reducer_misuse ${UNIT}/reducer/test_reducer_misuse.c)
target_link_libraries(test_reducer_misuse PRIVATE oclreduction Threads::Threads)

# The fault shim (LD_PRELOAD): fails the OpenCL call OCR_FAULT names.
add_library(fault_shim MODULE ${UNIT}/shims/fault_shim.c)
target_link_libraries(fault_shim PRIVATE OpenCL::OpenCL ${CMAKE_DL_LIBS})
target_compile_options(fault_shim PRIVATE -Wno-pedantic) # dlsym's object-to-function cast

# --- the library's error channel ---------------------------------------------
# Without a message callback failing calls print nothing (stdout and stderr
# checked empty) and report through the status, ocr_last_error() and
# ocr_status_name(); with one, it receives the messages; the last error is per
# thread; the CLI's table maps every status to an exit code.
add_executable(test_errors ${UNIT}/core/test_errors.c)
target_link_libraries(test_errors PRIVATE ocr_cli)
ocr_test(unit.test_errors LABELS quick unit COMMAND test_errors ${FIXTURES}/kernels_broken)

# The library's edges in C: build options, an overlapping result buffer,
# ocr_reducer_geometry(NULL), ocr_split_shares' weights.
add_executable(test_edges ${UNIT}/run/test_edges.c)
target_link_libraries(test_edges PRIVATE oclreduction)
ocr_test(unit.test_edges LABELS quick unit reducer PROPERTIES TIMEOUT 120
         COMMAND test_edges ${PROJECT_SOURCE_DIR}/cl)
