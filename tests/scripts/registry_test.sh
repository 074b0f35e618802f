#!/usr/bin/env bash
# registry_test.sh OCR NAME... - the per-kernel tests loop over a ladder that
# tests/CMakeLists.txt reads from host/lib/opencl/ocr_kernels.c's source; it must be the
# registry the binary lists (--list-kernels, lab kernels under lab/ aside),
# in order, so a kernel added to the registry cannot go untested. And the
# types and operators --help names (literal text) are those of the tables
# (ocr_types.c), which the messages for an unknown --type or --op list.
set -euo pipefail
ocr=$1
shift
want="$*"
got=$("$ocr" --list-kernels | awk '$2 !~ /\// { printf "%s%s", sep, $1; sep = " " }')
if [ "$got" != "$want" ]; then
  echo "FAIL: --list-kernels lists '$got', the tests loop over '$want'"
  exit 1
fi
[ -n "$got" ] || { echo "FAIL: no kernels listed"; exit 1; }
echo "ok: the tests cover every registry kernel: $got"
help=$("$ocr" --help)
for opt in type op; do
  table=$({ "$ocr" --$opt nosuch 2>&1 >/dev/null || true; } | sed -n "s/.* for --$opt (\(.*\)): nosuch$/\1/p")
  [ -n "$table" ] || { echo "FAIL: no list in the message for an unknown --$opt"; exit 1; }
  grep -q ": $table; default" <<<"$help" || {
    echo "FAIL: --help does not name the --$opt values '$table' of the table"
    exit 1
  }
  echo "ok: --help names the --$opt values of the table: $table"
done
