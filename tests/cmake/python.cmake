# The Python package (python/, docs/python.md): pytest against the package
# as built (build/python, python.pytest) and as pip builds and installs it
# from the checkout into a fresh venv, imported from another directory
# (python.wheel). Needs a Python with pyopencl, numpy and pytest (Debian:
# python3-pyopencl python3-pytest); python.wheel also python3-venv and PyPI
# (scikit-build-core), and says SKIPPED without them.
if(NOT OCR_PYTHON_PACKAGE_DIR)
  return() # no package in this build (sanitizers, no shared library, no Python)
endif()
set(OCR_PYTEST_PYTHON "")
set(OCR_ANY_PYTHON "")
foreach(py ${OCR_PYTHON_EXECUTABLE} ${Python3_EXECUTABLE} /usr/bin/python3)
  if(NOT OCR_ANY_PYTHON AND EXISTS "${py}")
    set(OCR_ANY_PYTHON ${py})
  endif()
  if(NOT OCR_PYTEST_PYTHON AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import pyopencl, numpy, pytest" RESULT_VARIABLE rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(OCR_PYTEST_PYTHON ${py})
    endif()
  endif()
endforeach()
# Without such a Python the tests are still registered and say SKIPPED with
# the import error (scripts/python_need.sh, exit 77), as they do where the
# modules cannot be imported when the tests run (issue 37: a GPU machine
# without PyOpenCL failed python.pytest in conftest's import).
if(NOT OCR_PYTEST_PYTHON)
  set(OCR_PYTEST_PYTHON ${OCR_ANY_PYTHON})
endif()
if(NOT OCR_PYTEST_PYTHON)
  message(STATUS "python.* tests not registered: no Python found")
  return()
endif()
set(PY_NEEDS ${SCRIPTS}/python_need.sh ${OCR_PYTEST_PYTHON})

# The build tree's package (what the wheel holds, laid out the same way), in
# three ctest entries: python.pytest_walk runs test_gpu_walk.py (the big-GPU
# geometry emulated on POCL: 185 s alone at load 4 with a cold kernel
# cache), python.pytest_part2 the files below (the small types, the custom
# and statistics kernels, histograms: 195 s alike), python.pytest every
# other file (a new file lands there). One entry held the whole suite: 720 s
# at load 11, past its 600 s limit; then two, of which the second (with the
# walk) stopped at 600 s and 73% in a fresh-clone CI run beside the first
# and the wheel's. Each now holds about a third of the time.
set(OCR_PYTEST_WALK test_gpu_walk.py)
set(OCR_PYTEST_PART2 test_small.py test_custom.py test_custom_native.py
    test_stats.py test_edges.py test_one_launch.py test_histogram.py)
set(OCR_PYTEST_COMMAND ${PY_NEEDS} "pyopencl numpy pytest" -- ${OCR_PYTEST_PYTHON} -m pytest -q
    -p no:cacheprovider)
set(ignore "")
foreach(part part2 walk)
  string(TOUPPER ${part} PART)
  set(${part} "")
  foreach(f ${OCR_PYTEST_${PART}})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/python/${f})
      list(APPEND ignore --ignore=${CMAKE_CURRENT_SOURCE_DIR}/python/${f})
      list(APPEND ${part} ${CMAKE_CURRENT_SOURCE_DIR}/python/${f})
    endif()
  endforeach()
endforeach()
add_test(NAME python.pytest COMMAND ${OCR_PYTEST_COMMAND} ${ignore}
         ${CMAKE_CURRENT_SOURCE_DIR}/python WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME python.pytest_part2 COMMAND ${OCR_PYTEST_COMMAND} ${part2}
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME python.pytest_walk COMMAND ${OCR_PYTEST_COMMAND} ${walk}
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python.pytest python.pytest_part2 python.pytest_walk PROPERTIES
  LABELS "quick;reducer;python" TIMEOUT 600 SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};OCR_EXPECT_PACKAGE_DIR=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
# python.pytest's command where pyopencl cannot be imported (a pyopencl module
# on PYTHONPATH that raises ImportError): it must say SKIPPED and why, exit 77.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/no_pyopencl/pyopencl.py
     "raise ImportError('no PyOpenCL here (a test of the skip)')\n")
add_test(NAME python.pytest_skips_without_pyopencl COMMAND ${EXPECT} --rc 77
         --out "^SKIPPED: .* cannot import pyopencl numpy pytest: ImportError: no PyOpenCL here"
         --env PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR}/no_pyopencl -- ${OCR_PYTEST_COMMAND} ${CMAKE_CURRENT_SOURCE_DIR}/python)
set_tests_properties(python.pytest_skips_without_pyopencl PROPERTIES LABELS "quick;python")

# pip wheel of the checkout, installed into a fresh venv, tested from a
# temporary directory with no library path in the environment.
add_test(NAME python.wheel COMMAND ${PY_NEEDS} "pyopencl numpy pytest" --
         ${SCRIPTS}/python_wheel_test.sh ${PROJECT_SOURCE_DIR} ${OCR_PYTEST_PYTHON})
set_tests_properties(python.wheel PROPERTIES LABELS "python;install" TIMEOUT 1500
  SKIP_RETURN_CODE 77 ENVIRONMENT "CMAKE_BUILD_PARALLEL_LEVEL=2")

# The program's data (ocr_data_fill, the archive's only) for the two tests
# below, from a module that links the archive.
add_library(data_fill_module MODULE ${UNIT}/shims/data_fill_module.c)
target_link_libraries(data_fill_module PRIVATE oclreduction)

# oclReduction --accurate against math.fsum on the program's own data
# (IEEE's infinity, NaN or the rounded exact sum; partial sums that overflow).
add_test(NAME python.accurate_fsum COMMAND ${OCR_PYTEST_PYTHON} ${SCRIPTS}/accurate_fsum_test.py $<TARGET_FILE:oclReduction>)
set_tests_properties(python.accurate_fsum PROPERTIES LABELS "python;accurate" TIMEOUT 900
  ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1;OCR_DATA_MODULE=$<TARGET_FILE:data_fill_module>")

# oclReduction --op argmin/argmax against NumPy on the program's own data.
add_test(NAME python.arg_numpy COMMAND ${PY_NEEDS} numpy -- ${OCR_PYTEST_PYTHON}
         ${SCRIPTS}/arg_numpy_test.py $<TARGET_FILE:oclReduction>)
set_tests_properties(python.arg_numpy PROPERTIES LABELS "quick;python" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1;OCR_DATA_MODULE=$<TARGET_FILE:data_fill_module>")

# PyOpenCL's own reduction tests (test_algorithm.py, test_array.py of the
# installed PyOpenCL version's sdist, fetched from PyPI) with
# pyopencl.array.sum/min/max replaced by the package's: about a minute on
# POCL; SKIPPED without PyPI or mako.
add_test(NAME python.pyopencl_suite COMMAND ${OCR_PYTEST_PYTHON}
         ${CMAKE_CURRENT_SOURCE_DIR}/python/pyopencl_suite.py ${CMAKE_CURRENT_BINARY_DIR}/pyopencl_suite)
set_tests_properties(python.pyopencl_suite PROPERTIES LABELS "python" TIMEOUT 900
  SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
# The same tests with PyPI's PyOpenCL and NumPy (the newest wheels) in a fresh
# venv: the package must pass them with either PyOpenCL.
add_test(NAME python.pyopencl_suite_pypi COMMAND ${SCRIPTS}/python_pypi_suite.sh ${OCR_ANY_PYTHON}
         ${OCR_PYTHON_PACKAGE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/pyopencl_suite_pypi)
set_tests_properties(python.pyopencl_suite_pypi PROPERTIES LABELS "python" TIMEOUT 1200
  SKIP_RETURN_CODE 77 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")

# The package's own kernels, every file of python/oclreduction/cl/ (the
# ReductionKernel template, mean/var/std/stats with their walks, norm, the
# passes around a reduction, argmin along an axis; a file no case reads
# fails it) under oclgrind: no race, no access out of bounds, every answer
# right; the template's tree without a barrier is a race.
if(OCLGRIND)
  add_test(NAME python.oclgrind_kernels COMMAND ${PY_NEEDS} "pyopencl numpy" --
           ${SCRIPTS}/python_oclgrind.sh ${OCR_PYTEST_PYTHON}
           ${CMAKE_CURRENT_SOURCE_DIR}/python/oclgrind_kernels.py)
  set_tests_properties(python.oclgrind_kernels PROPERTIES LABELS "oclgrind;python" TIMEOUT 600
    SKIP_RETURN_CODE 77
    ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
endif()

# The type hints under mypy: the package checks clean, a consumer of every
# public call is accepted, each misuse in tests/python/typing/bad.py refused
# (Debian: mypy; SKIPPED without it).
add_test(NAME python.typing COMMAND ${PY_NEEDS} numpy -- ${OCR_PYTEST_PYTHON}
         ${CMAKE_CURRENT_SOURCE_DIR}/python/typing_check.py)
set_tests_properties(python.typing PROPERTIES LABELS "quick;python" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")

# bench/drivers/custom.py (the per-call comparison with PyOpenCL's
# ReductionKernel and dot) runs and gets every answer right, in two rounds.
if(OCR_BUILD_BENCH)
  add_test(NAME bench.custom COMMAND ${PY_NEEDS} "pyopencl numpy" -- ${OCR_PYTEST_PYTHON}
           ${PROJECT_SOURCE_DIR}/bench/drivers/custom.py --rounds 2)
  set_tests_properties(bench.custom PROPERTIES LABELS "bench;python" TIMEOUT 300
    SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION "WRONG"
    ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
  # bench/drivers/var_walks.py: every walk variant builds (the GPU walk, on
  # the first device) and gets var right; the passes are timed.
  add_test(NAME bench.var_walks COMMAND ${PY_NEEDS} "pyopencl numpy" -- ${OCR_PYTEST_PYTHON}
           ${PROJECT_SOURCE_DIR}/bench/drivers/var_walks.py --device "" --size 16 --passes
           --walks --gpu-walk --rounds 1 --reps 2)
  set_tests_properties(bench.var_walks PROPERTIES LABELS "bench;python" TIMEOUT 300
    SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION "WRONG"
    ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
  # bench/drivers/per_call_floor.py: every call answers right (one group,
  # then several: the custom reducer's one-launch finish on POCL) and the
  # table prints.
  add_test(NAME bench.per_call_floor COMMAND ${PY_NEEDS} "pyopencl numpy" -- ${OCR_PYTEST_PYTHON}
           ${PROJECT_SOURCE_DIR}/bench/drivers/per_call_floor.py --device "" --sizes 10,15)
  set_tests_properties(bench.per_call_floor PROPERTIES LABELS "bench;python" TIMEOUT 300
    SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION "WRONG" PASS_REGULAR_EXPRESSION "\\| 2\\^15 \\|"
    ENVIRONMENT "PYTHONPATH=${OCR_PYTHON_PACKAGE_DIR};PYTHONDONTWRITEBYTECODE=1")
endif()
