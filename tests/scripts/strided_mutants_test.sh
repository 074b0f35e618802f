#!/usr/bin/env bash
# strided_mutants_test.sh TEST_STRIDED CL_DIR [OCLGRIND_SH] - a copy of
# cl/strided.cl with one mistake must fail test_strided's views: an element
# dropped at the end of each work-item's block (the CPU walk) or of its grid
# stride (the GPU walk), the blocks' remainder lost, the index of argmin and
# argmax counted in memory instead of in the view, an element read twice.
# The CPU walk runs on the default device; the GPU walk (and the CPU walk's
# mutants too) under oclgrind, which reads the view as a GPU, when given.
set -u
prog=$1 src=$2 og=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mutants=(
  "for (ulong i = begin; i < end; ++i)|for (ulong i = begin; i + 1 < end; ++i)"
  "per = n / items + (n % items != 0)|per = n / items"
  "OCR_TAKE_AT(OCR_READ(in, (i) * stride), (i))|OCR_TAKE_AT(OCR_READ(in, (i) * stride), (i) * stride)"
  "for (; i < n; i += step)|for (; i + step < n; i += step)"
  "v[u] = OCR_STRIDED_AT(i + u * step);|v[u] = OCR_STRIDED_AT(i + (u / 2) * step);"
)
bad=0 k=0
for m in "${mutants[@]}"; do
  k=$((k + 1)) from=${m%%|*} to=${m#*|}
  dir=$tmp/m$k
  cp -r "$src" "$dir"
  python3 - "$dir/strided.cl" "$from" "$to" <<'PY' || { echo "FAIL: mutant $k: '$from' not in strided.cl"; exit 1; }
import sys
p, a, b = sys.argv[1:]
s = open(p).read()
if a not in s:
    sys.exit(1)
open(p, "w").write(s.replace(a, b, 1))
PY
  caught=""
  for c in "int sum" "int argmax"; do
    # shellcheck disable=SC2086
    TEST_STRIDED_KERNEL_DIR=$dir "$prog" one $c > "$tmp/out" 2>&1
    [ $? = 1 ] && grep -q "^FAIL" "$tmp/out" && caught="the default device ($c)" && break
  done
  if [ -z "$caught" ] && [ -n "$og" ]; then
    for c in "int sum" "int argmax"; do
      # shellcheck disable=SC2086
      TEST_STRIDED_KERNEL_DIR=$dir oclgrind "$prog" few $c 8 3 > "$tmp/out" 2>&1
      [ $? = 1 ] && grep -q "^FAIL" "$tmp/out" && caught="oclgrind ($c)" && break
    done
  fi
  if [ -n "$caught" ]; then
    echo "ok   mutant $k ($to) fails on $caught"
  else
    echo "FAIL: mutant $k ($to) passed"; bad=1
  fi
done
exit $bad
