#!/bin/sh
# python_pypi_suite.sh PYTHON PKGDIR WORK - PyOpenCL's own reduction tests
# (tests/python/pyopencl_suite.py) with PyPI's PyOpenCL and NumPy instead of
# the system's: a fresh venv under WORK (no system site packages) gets
# pyopencl, numpy, pytest and mako as binary wheels, then runs the suite
# against the package in PKGDIR. SKIPPED (77) where no venv can be made or
# PyPI cannot be reached; the versions installed are printed. Then the type
# hints' check (tests/python/typing_check.py) with that PyOpenCL and NumPy.
py=$1 pkg=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
if ! "$py" -m venv "$work/venv" > "$work/venv.log" 2>&1; then
  echo "SKIPPED: $py -m venv failed (python3-venv): $(tail -n 1 "$work/venv.log")"
  exit 77
fi
if ! "$work/venv/bin/python" -m pip install -q --only-binary=:all: pyopencl numpy pytest mako \
    > "$work/pip.log" 2>&1; then
  echo "SKIPPED: pip could not install PyOpenCL from PyPI: $(tail -n 1 "$work/pip.log")"
  exit 77
fi
"$work/venv/bin/python" -c "import pyopencl, numpy; print('PyPI: pyopencl', pyopencl.VERSION_TEXT, 'numpy', numpy.__version__)" || exit 1
rc=0
PYTHONPATH=$pkg "$work/venv/bin/python" -X faulthandler "$here/../python/pyopencl_suite.py" \
  "$work/tests" || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: PyOpenCL's tests with PyPI's PyOpenCL exited $rc"; exit 1; }
# The type hints against PyPI's typed PyOpenCL and NumPy 2 (where mypy is here).
if command -v mypy > /dev/null; then
  echo "the type hints with PyPI's PyOpenCL and NumPy:"
  PYTHONPATH=$pkg "$work/venv/bin/python" -X faulthandler "$here/../python/typing_check.py" ||
    rc=$?
  [ "$rc" = 0 ] || { echo "FAIL: the type check exited $rc"; exit 1; }
fi
