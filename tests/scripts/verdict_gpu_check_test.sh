#!/usr/bin/env bash
# verdict_gpu_check_test.sh SRC OCR - tests/gpu/verdict_gpu_check.sh at one size
# (VERDICT_SIZES=4096): from a copy of the tool and the fixtures at another
# path (as on a GPU machine) every case is ok and the exit status 0; and the
# check can fail: with a correct kernel in the place of drop_last, every
# drop_last line is BAD and the exit status 1.
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/tests/gpu"
cp "$src/tests/gpu/verdict_gpu_check.sh" "$tmp/tree/tests/gpu/"
cp -r "$src/tests/fixtures" "$tmp/tree/tests/"
cd "$tmp" || exit 1
VERDICT_SIZES=4096 tree/tests/gpu/verdict_gpu_check.sh "$ocr" > good.txt 2>&1
rc=$?
cat good.txt
[ "$rc" = 0 ] || { echo "FAIL: exit $rc on the fixtures as they are"; exit 1; }
[ "$(grep -c '^ok ' good.txt)" = 48 ] || { echo "FAIL: expected 48 ok lines"; exit 1; }
cp tree/tests/fixtures/kernels_verdict/correct/reduce6.cl tree/tests/fixtures/kernels_verdict/drop_last/
VERDICT_SIZES=4096 tree/tests/gpu/verdict_gpu_check.sh "$ocr" tree/tests/fixtures > bad.txt 2>&1
rc=$?
[ "$rc" = 1 ] || { cat bad.txt; echo "FAIL: exit $rc with a correct kernel as drop_last"; exit 1; }
[ "$(grep -c '^BAD  drop_last ' bad.txt)" = 8 ] && [ "$(grep -c '^BAD ' bad.txt)" = 8 ] ||
  { cat bad.txt; echo "FAIL: expected 8 BAD lines, all drop_last"; exit 1; }
echo "ok: 48 cases ok; a correct kernel in drop_last's place is caught"
