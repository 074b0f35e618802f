#!/bin/sh
# python_need.sh PYTHON "MODULE..." -- COMMAND... - runs COMMAND if PYTHON
# imports every MODULE; else says SKIPPED with the import error and exits 77
# (the tests' SKIP_RETURN_CODE): a machine without PyOpenCL, NumPy or pytest
# skips the Python tests, with the reason, rather than failing them.
py=$1 mods=$2
shift 2
[ "${1:-}" = -- ] && shift
imports=$(printf '%s\n' $mods | sed 's/^/import /')
if ! why=$("$py" -c "$imports" 2>&1); then
  echo "SKIPPED: $py cannot import $mods: $(printf '%s\n' "$why" | tail -n 1)"
  exit 77
fi
exec "$@"
