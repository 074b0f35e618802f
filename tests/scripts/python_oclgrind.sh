#!/bin/sh
# python_oclgrind.sh PYTHON SCRIPT - the package's own kernels, every file
# of python/oclreduction/cl/ (tests/python/oclgrind_kernels.py fails when a
# case reads none of one), under oclgrind --data-races --check-api
# (out-of-bounds accesses are always reported): every answer right and no
# diagnostic. Then the template's tree without its barrier must be reported
# as a race. Not --uninitialized: oclgrind 21.10 crashes on the vector
# walk's float2/double4 loads with it (a correct kernel).
set -u
py=$1 script=$2
err=$(mktemp); out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
oclgrind --data-races --check-api "$py" "$script" >"$out" 2>"$err"; rc=$?
cat "$out"
grep -q '^device: Oclgrind' "$out" || { echo "FAIL: not run on oclgrind's device"; exit 1; }
if [ $rc != 0 ] || [ -s "$err" ]; then
  echo "FAIL: exit $rc; oclgrind says:"; head -c 20000 "$err"; exit 1
fi
echo "ok: every answer right, no oclgrind diagnostic"
oclgrind --data-races "$py" "$script" --no-barrier >"$out" 2>"$err"
grep -q "data race" "$err" || { echo "FAIL: the tree without its barrier was not reported as a race"; exit 1; }
echo "ok: the tree without its barrier is a race"
echo PASSED
