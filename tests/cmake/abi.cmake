# The installed library's ABI (issue 22): exports are exactly the installed
# headers' functions; an OpenCL 3.0 application and shared libraries (a
# plugin linking the default target, one linking the archive) build against
# the installed package and work.
foreach(mode exports opencl3 plugin)
  ocr_test(install.abi_${mode} LABELS install PROPERTIES SKIP_RETURN_CODE 77
           ENVIRONMENT "LIBDIR=${CMAKE_INSTALL_LIBDIR}"
           COMMAND ${SCRIPTS}/abi_test.sh ${mode} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
endforeach()

# The size rule of the reducer's options (ocr_reducer.h).
add_executable(test_options ${UNIT}/test_options.c)
target_link_libraries(test_options PRIVATE oclreduction)
ocr_test(reducer.options_size LABELS quick reducer COMMAND test_options)
