#!/usr/bin/env bash
# mpi_agree_test.sh MPIRUN OCR WHAT "ARGS A" "ARGS B" - two ranks given
# different options (MPMD: -np 1 OCR A : -np 1 OCR B) must end at once (a
# timeout here is a hang), exit 2 on every rank, and rank 0 alone must name
# the option WHAT (grep -F) once. With WHAT "-" the options are the same
# (spelled differently) and the job must pass.
set -u
mpirun=$1 ocr=$2 what=$3 a=$4 b=$5
base=(--mpi -s 4103 -r 1)
# shellcheck disable=SC2206 # the arguments are words on purpose
A=($a) B=($b)
out=$(timeout 120 "$mpirun" --oversubscribe -np 1 "$ocr" "${base[@]}" "${A[@]}" \
  : -np 1 "$ocr" "${base[@]}" "${B[@]}" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/  | /'
if [ "$rc" = 124 ]; then echo "FAIL: the job hung (killed after 120 s)"; exit 1; fi
if [ "$what" = - ]; then
  [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q '^Test PASSED!$' || { echo "FAIL: exit $rc"; exit 1; }
  echo "ok: the same options pass"; exit 0
fi
[ "$rc" = 2 ] || { echo "FAIL: exit status $rc, expected 2"; exit 1; }
hits=$(printf '%s\n' "$out" | grep -cF -- "--mpi: the ranks were given different $what:")
[ "$hits" = 1 ] || { echo "FAIL: $hits messages naming $what, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -q 'Test \(PASSED\|FAILED\)' && { echo "FAIL: a run started"; exit 1; }
echo "ok: exit 2, $what named once"
