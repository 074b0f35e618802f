#!/bin/sh
# segments_drop_all_test.sh OCR CL_DIR - a segmented kernel that drops one
# element FAILS for every type and operator (float prod included), with three
# seeds (two losses can cancel on one data set), in both paths: segreduce's
# teams (300 segments of 30011 elements) and segchunks (3 segments of 400009,
# the mean filling a chunk). The unbroken kernels pass the same runs. Then a
# kernel that reads nothing (every segment its identity) FAILS in both paths.
set -u
ocr=$1 cl=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$cl"/. "$tmp"/
# piece() serves both paths: it drops the last element of every piece longer than one
sed 's/if (se <= sb) return x;/if (se <= sb) return x; se -= se - sb > 1 ? 1 : 0;/' \
  "$cl/segreduce.cl" > "$tmp/segreduce.cl"
[ "$(diff "$cl/segreduce.cl" "$tmp/segreduce.cl" | grep -c '^>')" = 1 ] ||
  { echo "FAIL: the edit did not apply"; exit 1; }
bad=0 runs=0
for t in int uint long ulong float double; do
  for op in sum prod min max and or xor; do
    case "$t:$op" in float:and|float:or|float:xor|double:and|double:or|double:xor) continue ;; esac
    for path in "300 30011" "3 400009"; do
      set -- $path
      for seed in 1 2 3; do
        runs=$((runs + 1))
        "$ocr" --segments "$1" -s "$2" -r 1 --type $t --op $op --seed $seed >/dev/null ||
          { echo "FAIL: unbroken $t $op K=$1 seed $seed"; bad=1; }
        "$ocr" --segments "$1" -s "$2" -r 1 --type $t --op $op --seed $seed --kernel-dir "$tmp" >/dev/null
        rc=$?
        [ "$rc" = 1 ] || { echo "FAIL: dropping kernel passed (exit $rc): $t $op K=$1 seed $seed"; bad=1; }
      done
    done
  done
done
# the scalar loads (heads and tails) and the 16-byte ones
sed -e 's/a = OCR_COMBINE(a, v_);/(void)v_;/' -e 's/x = OCR_COMBINE(x, f);/(void)f;/' \
  "$cl/segreduce.cl" > "$tmp/segreduce.cl"
[ "$(diff "$cl/segreduce.cl" "$tmp/segreduce.cl" | grep -c '^>')" = 2 ] ||
  { echo "FAIL: the read-nothing edits did not both apply"; exit 1; }
for args in "--type int --op sum" "--type float --op max" "--type ulong --op and" "--type double --op prod"; do
  for path in "300 30011" "3 400009"; do
    set -- $path
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    "$ocr" --segments "$1" -s "$2" -r 1 $args --kernel-dir "$tmp" >/dev/null
    rc=$?
    [ "$rc" = 1 ] || { echo "FAIL: a kernel reading nothing passed (exit $rc): $args K=$1"; bad=1; }
  done
done
[ "$bad" = 0 ] && echo "ok: $runs broken-kernel runs FAILED (their unbroken twins PASSED)"
exit $bad
