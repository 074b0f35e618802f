#!/bin/sh
# segments_broken_test.sh OCR CL_DIR - the --segments verdict catches a kernel
# that drops one element: a copy of cl/ whose segreduce.cl skips the last
# element of every segment longer than one must exit 1 and say FAILED, for a
# sum and for a max; the unbroken copy passes (the copy itself is sound).
set -u
ocr=$1 cl=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$cl"/. "$tmp"/
"$ocr" --segments 300 -s 30011 -r 1 --kernel-dir "$tmp" >/dev/null ||
  { echo "FAIL: the unbroken copy of $cl does not pass"; exit 1; }
sed 's/i < e; i += team)/i + (e - b > 1 ? 1 : 0) < e; i += team)/' "$cl/segreduce.cl" > "$tmp/segreduce.cl"
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
