#!/usr/bin/env bash
# grade_class_test.sh SRC OCR [GOLDEN] - tools/grade_class.sh on a class made
# of the grading fixtures (one per failure class) and the lab starter, twice:
# both gradebooks must be identical (the same inputs give the same scores,
# the out-of-bounds kernel included), equal GOLDEN if given (a machine with
# oclgrind), and no kernel that is wrong at the teacher's geometry or the
# grader's second one may PASS - not the racy one whose "// grade:" line asks
# for one work-item per group, nor the one hard-coded for 64 work-items.
set -u
src=$1 ocr=$2 golden=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/kernels_grade
mkdir "$tmp/class"
cp "$g/tree.cl" "$tmp/class/alice.cl"; cp "$g/drop_one.cl" "$tmp/class/bob.cl"
cp "$g/plus.cl" "$tmp/class/carol.cl"; cp "$g/syntax.cl" "$tmp/class/dave.cl"
cp "$g/infinite_loop.cl" "$tmp/class/erin.cl"; cp "$src/docs/labs/starter.cl" "$tmp/class/frank.cl"
cp "$g/race_local1.cl" "$tmp/class/gina.cl"; cp "$g/fixed64.cl" "$tmp/class/hank.cl"
cp "$g/oob_write.cl" "$tmp/class/ivan.cl"; cp "$g/mid_tail.cl" "$tmp/class/judy.cl"
for run in 1 2; do
  t0=$(date +%s)
  GRADE_TIMEOUT=3 OCR=$ocr "$src/tools/grade_class.sh" "$tmp/class" "$tmp/out$run" 2>/dev/null ||
    { echo "FAIL: grade_class.sh exited $?"; exit 1; }
  echo "run $run: 10 kernels graded in $(($(date +%s) - t0)) s"
done
cat "$tmp/out1/gradebook.csv"
diff -u "$tmp/out1/gradebook.csv" "$tmp/out2/gradebook.csv" || { echo "FAIL: the second run differs"; exit 1; }
if [ -n "$golden" ]; then
  diff -u "$golden" "$tmp/out1/gradebook.csv" || { echo "FAIL: gradebook differs from $golden"; exit 1; }
fi
for s in bob carol dave erin gina hank ivan judy; do
  grep -q "^$s,PASS" "$tmp/out1/gradebook.csv" && { echo "FAIL: $s graded PASS"; exit 1; }
done
grep -q "ignored in '// grade: kernel=tree_reduce elems=1024 local=1'" "$tmp/out1/gina.err" ||
  { echo "FAIL: gina's log does not say her local=1 was ignored"; exit 1; }
[ "$(wc -l < "$tmp/out1/speed.csv")" = 11 ] || { echo "FAIL: speed.csv"; exit 1; }
echo "ok: the same gradebook twice, no wrong kernel passes"
