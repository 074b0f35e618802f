#!/usr/bin/env bash
# registry_test.sh OCR NAME... - the per-kernel tests loop over a ladder that
# tests/CMakeLists.txt reads from host/ocr_kernels.c's source; it must be the
# registry the binary lists (--list-kernels, lab kernels under lab/ aside),
# in order, so a kernel added to the registry cannot go untested.
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
