#!/usr/bin/env bash
# grade_source_test.sh OCR KG - kernel files as they come: a FIFO or a device
# as --kernel-file is refused at once (never a hang), with and without
# --grade; a kernel path holding a newline builds and runs.
set -u
ocr=$1 kg=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkfifo "$tmp/fifo.cl"
for f in "$tmp/fifo.cl" /dev/zero; do
  for g in -r1 --grade; do
    timeout 30 "$ocr" $g --kernel-file "$f" --kernel-name tree_reduce --elems-per-group 1024 \
      > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" != 3 ] || ! grep -q "kernel file $f is not a regular file" "$tmp/err"; then
      echo "FAIL: $f $g: exit $rc (124: it hung), expected 3 and 'not a regular file'"
      cat "$tmp/err"; fail=1
    fi
  done
done
nl="$tmp/a
b.cl"
cp "$kg/tree.cl" "$nl"
timeout 120 "$ocr" --kernel-file "$nl" --kernel-name tree_reduce --elems-per-group 1024 -s 5000 \
  -r 1 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" != 0 ] || ! grep -q "^Test PASSED!$" "$tmp/out"; then
  echo "FAIL: a kernel path with a newline: exit $rc"; cat "$tmp/out" "$tmp/err"; fail=1
fi
[ "$fail" = 0 ] && echo "ok: FIFO and device refused, a newline in the path works"
exit $fail
