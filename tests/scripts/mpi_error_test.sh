#!/usr/bin/env bash
# mpi_error_test.sh RC PATTERN... -- CMD... - an MPI job that fails must end
# (a timeout here is a hang, and fails the test), exit with RC, and print
# exactly one failure report from rank 0 ("oclReduction: --mpi: rank ..."),
# in which each PATTERN (grep -E) matches exactly one line.
set -u
want_rc=$1
shift
patterns=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do patterns+=("$1"); shift; done
shift
err=$(timeout 120 "$@" 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err" | sed 's/^/  | /'
if [ "$rc" = 124 ]; then echo "FAIL: the job hung (killed after 120 s)"; exit 1; fi
[ "$rc" = "$want_rc" ] || { echo "FAIL: exit status $rc, expected $want_rc"; exit 1; }
reports=$(printf '%s\n' "$err" | grep -c '^oclReduction: --mpi: rank ')
[ "$reports" = 1 ] || { echo "FAIL: $reports failure reports from rank 0, expected 1"; exit 1; }
for p in "${patterns[@]}"; do
  hits=$(printf '%s\n' "$err" | grep -cE -- "$p")
  [ "$hits" = 1 ] || { echo "FAIL: /$p/ matches $hits lines, expected 1"; exit 1; }
done
echo "ok: exit $rc, one report"
