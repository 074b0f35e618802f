#!/usr/bin/env bash
# grade_class_test.sh SRC OCR - tools/grade_class.sh on a class made of the
# grading fixtures (one per failure class) and the lab starter: the gradebook
# must equal tests/fixtures/golden/gradebook.csv exactly, twice in a row (determinism).
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/fixtures/kernels_grade
mkdir "$tmp/class"
cp "$g/tree.cl" "$tmp/class/alice.cl"; cp "$g/drop_one.cl" "$tmp/class/bob.cl"
cp "$g/plus.cl" "$tmp/class/carol.cl"; cp "$g/syntax.cl" "$tmp/class/dave.cl"
cp "$g/infinite_loop.cl" "$tmp/class/erin.cl"; cp "$src/docs/labs/starter.cl" "$tmp/class/frank.cl"
for run in 1 2; do
  t0=$(date +%s)
  GRADE_TIMEOUT=3 OCR=$ocr "$src/tools/grade_class.sh" "$tmp/class" "$tmp/out$run" 2>/dev/null ||
    { echo "FAIL: grade_class.sh exited $?"; exit 1; }
  echo "run $run: 6 kernels graded in $(($(date +%s) - t0)) s"
  diff -u "$src/tests/fixtures/golden/gradebook.csv" "$tmp/out$run/gradebook.csv" || { echo "FAIL: gradebook differs"; exit 1; }
done
[ "$(wc -l < "$tmp/out1/speed.csv")" = 7 ] || { echo "FAIL: speed.csv"; exit 1; }
echo "ok: the gradebook is the expected one, twice"
