#!/bin/sh
# segments_broken_test.sh OCR CL_DIR - the --segments verdict catches a kernel
# that drops one element: a copy of cl/ whose segreduce.cl skips the last
# element of every piece longer than one must exit 1 and say FAILED, for a
# sum and for a max; the unbroken copy passes (the copy itself is sound).
# Then the long-segment path (segchunks + segfix, mean length >= a chunk):
# a segfix that forgets the part of a segment in its first chunk FAILS too.
# (tests/scripts/segments_mutants_test.sh breaks every other piece.)
set -u
ocr=$1 cl=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$cl"/. "$tmp"/
"$ocr" --segments 300 -s 30011 -r 1 --kernel-dir "$tmp" >/dev/null ||
  { echo "FAIL: the unbroken copy of $cl does not pass"; exit 1; }
sed 's/if (se <= sb) return x;/if (se <= sb) return x; se -= se - sb > 1 ? 1 : 0;/' "$cl/segreduce.cl" > "$tmp/segreduce.cl"
cmp -s "$cl/segreduce.cl" "$tmp/segreduce.cl" && { echo "FAIL: the edit did not apply"; exit 1; }
for args in "--op sum" "--op max --type float"; do
  # shellcheck disable=SC2086
  out=$("$ocr" --segments 300 -s 30011 -r 1 $args --kernel-dir "$tmp")
  rc=$?
  if [ "$rc" != 1 ] || ! echo "$out" | grep -q "^Test FAILED!$"; then
    echo "FAIL: a kernel dropping an element: exit $rc with $args"; echo "$out"; exit 1
  fi
  echo "ok: the dropping kernel FAILED with $args: $(echo "$out" | grep '^Wrong')"
done

"$ocr" --segments 3 -s 400009 -r 1 --kernel-dir "$cl" >/dev/null ||
  { echo "FAIL: long segments do not pass with $cl"; exit 1; }
sed 's/T x = part_last\[ga\];/T x = (T)(OCR_IDENTITY);/' "$cl/segreduce.cl" > "$tmp/segreduce.cl"
cmp -s "$cl/segreduce.cl" "$tmp/segreduce.cl" && { echo "FAIL: the segfix edit did not apply"; exit 1; }
out=$("$ocr" --segments 3 -s 400009 -r 1 --kernel-dir "$tmp")
rc=$?
if [ "$rc" != 1 ] || ! echo "$out" | grep -q "^Test FAILED!$"; then
  echo "FAIL: a segfix losing a part: exit $rc"; echo "$out"; exit 1
fi
echo "ok: the segfix losing a part FAILED: $(echo "$out" | grep '^Wrong')"
