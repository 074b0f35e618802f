#!/usr/bin/env bash
# grade_class_unchecked_test.sh SRC OCR - classroom/grade_class.sh where oclgrind
# cannot be found (a lab's GPU machine): races go unchecked, so no kernel may
# get a bare PASS in the gradebook. A correct kernel is PASS_UNCHECKED; two
# racy kernels whose values pass on POCL are PASS_UNCHECKED (or WRONG, on a
# device where the race shows), never PASS.
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/fixtures/kernels_grade
mkdir "$tmp/class"
cp "$g/pairs.cl" "$tmp/class/alice.cl"; cp "$g/race_mirror.cl" "$tmp/class/mallory.cl"
cp "$g/race_hidden.cl" "$tmp/class/nina.cl"
OCR=$ocr GRADE_TIMEOUT=10 "$src/tests/scripts/without.sh" oclgrind \
  "$src/classroom/grade_class.sh" "$tmp/class" "$tmp/out" --speed-runs 0 2>/dev/null ||
  { echo "FAIL: grade_class.sh exited $?"; exit 1; }
book=$tmp/out/gradebook.csv
cat "$book"
grep -q '^"alice","alice","PASS_UNCHECKED",' "$book" || { echo "FAIL: alice is not PASS_UNCHECKED"; exit 1; }
for s in mallory nina; do
  grep -Eq "^\"$s\",\"$s\",\"(PASS_UNCHECKED|WRONG)\"," "$book" || { echo "FAIL: $s"; exit 1; }
done
[ "$(grep -c '"PASS",' "$book")" = 0 ] || { echo "FAIL: a bare PASS without oclgrind"; exit 1; }
echo "ok: no bare PASS without oclgrind"
