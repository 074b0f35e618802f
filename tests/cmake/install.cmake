# Installation: the installed binary, kernels, man page, CMake package and
# pkg-config file work for a program outside the project.
ocr_test(install.consumer LABELS install PROPERTIES ENVIRONMENT "LIBDIR=${CMAKE_INSTALL_LIBDIR}"
         COMMAND ${SCRIPTS}/install_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
# examples/ built against the installed, relocated package, without kernel files.
ocr_test(install.examples LABELS install reducer PROPERTIES ENVIRONMENT "LIBDIR=${CMAKE_INSTALL_LIBDIR}"
         COMMAND ${SCRIPTS}/install_examples_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
# An application that builds the source tree inside its own (add_subdirectory,
# FetchContent): oclreduction::oclreduction, none of our tests registered.
ocr_test(install.subdirectory LABELS install PROPERTIES TIMEOUT 600
         COMMAND ${SCRIPTS}/subdirectory_test.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
