#!/usr/bin/env bash
# registry_test.sh OCR NAME... - the per-kernel tests loop over a ladder that
# tests/cmake/ladder.cmake reads from --list-kernels when ctest starts; it
# must be the registry the binary lists (lab kernels under lab/ aside), in
# order, and hold reduce0..reduce7, so a kernel added to the registry cannot
# go untested and a listing misread fails here. And the
# types and operators --help names (literal text) are those of the tables
# (ocr_types.c), which the messages for an unknown --type or --op list.
set -euo pipefail
ocr=$1
shift
want="$*"
if [ -z "$want" ]; then
  echo "FAIL: ctest read no kernels from '$ocr --list-kernels' (built? its rows changed?)"
  exit 1
fi
got=$("$ocr" --list-kernels | awk '$2 !~ /\// { printf "%s%s", sep, $1; sep = " " }')
if [ "$got" != "$want" ]; then
  echo "FAIL: --list-kernels lists '$got', the tests loop over '$want'"
  exit 1
fi
[ -n "$got" ] || { echo "FAIL: no kernels listed"; exit 1; }
for k in 0 1 2 3 4 5 6 7; do
  [[ " $want " == *" reduce$k "* ]] || { echo "FAIL: reduce$k is not in the ladder '$want'"; exit 1; }
done
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
