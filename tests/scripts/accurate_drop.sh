#!/usr/bin/env bash
# accurate_drop.sh OCR CL_DIR - a copy of the kernels whose accurate sum drops
# each addition's error (TwoSum's compensation kept at 0) must FAIL the
# --accurate check (exit 1) on uniform float data, where the real kernel passes.
set -u
ocr=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$src"/reduce7.cl "$src"/reduce_common.h "$dir"/
sed -i 's/c + ((s - (t - z)) + (x - z))/c/; s/comp += (acc - (t - z)) + (v - z);/comp += (TL)(0);/' "$dir"/reduce7.cl
if cmp -s "$src"/reduce7.cl "$dir"/reduce7.cl || grep -q '(s - (t - z)) + (x - z)' "$dir"/reduce7.cl; then
  echo "FAIL: the fixture edit did not apply (has reduce7.cl's TwoSum changed?)"; exit 1
fi
args=(-n 7 --accurate --type float --data uniform -s 4194304 -r 1)
for a in strided blocked; do
  "$ocr" "${args[@]}" --access $a >/dev/null || { echo "FAIL: the real kernel fails ($a)"; exit 1; }
  out=$("$ocr" "${args[@]}" --access $a --kernel-dir "$dir"); rc=$?
  echo "$out" | grep -E '^Result'
  [ $rc = 1 ] && echo "$out" | grep -q 'Test FAILED' ||
    { echo "FAIL: without compensation ($a) the check gave exit $rc, not 1"; exit 1; }
done
echo "ok: a kernel that drops the compensation fails --accurate's check"
