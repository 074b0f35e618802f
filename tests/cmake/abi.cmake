# The installed library's ABI: exports are exactly the installed
# headers' functions; an OpenCL 3.0 application and shared libraries (a
# plugin linking the default target, one linking the archive) build against
# the installed package and work.
foreach(mode exports opencl3 plugin)
  ocr_test(install.abi_${mode} LABELS install PROPERTIES SKIP_RETURN_CODE 77
           ENVIRONMENT "LIBDIR=${CMAKE_INSTALL_LIBDIR}"
           COMMAND ${SCRIPTS}/abi_test.sh ${mode} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
endforeach()

# The public headers, each alone and laid out as installed, compile clean with
# -Wall -Wextra -pedantic -Werror as C89, C99, C11, C17, C++98, C++11 and
# C++17, with CL_TARGET_OPENCL_VERSION unset, 120 and 300 (issue 37: a repeated
# typedef failed C99, trailing enum commas C89 and C++98). Without a C++
# compiler the C++ half is skipped and the test says so (exit 77 after C passed).
find_program(OCR_TEST_CXX NAMES c++ g++ clang++)
ocr_test(install.headers LABELS install PROPERTIES SKIP_RETURN_CODE 77
         COMMAND ${SCRIPTS}/header_matrix_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 ${CMAKE_C_COMPILER} "${OCR_TEST_CXX}")

# The size rule of the reducer's options (ocr_reducer.h).
add_executable(test_options ${UNIT}/opencl/test_options.c)
target_link_libraries(test_options PRIVATE oclreduction)
ocr_test(reducer.options_size LABELS quick reducer COMMAND test_options)

# The library's floors (docs/layout.md): no object file of host/lib uses what
# a floor above it defines, and no files use each other in a circle (nm of
# the archive's objects, which every test program's build has made).
if(Python3_FOUND)
  ocr_test(layout.floors LABELS quick COMMAND ${Python3_EXECUTABLE} ${SCRIPTS}/floors_test.py
           ${PROJECT_BINARY_DIR})
  # Every path docs/layout.md's trees (and a Layout block of README.md) name exists.
  ocr_test(layout.paths LABELS quick COMMAND ${Python3_EXECUTABLE} ${SCRIPTS}/layout_paths_test.py
           ${PROJECT_SOURCE_DIR})
endif()
