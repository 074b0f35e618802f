#!/usr/bin/env bash
# grade_class_test.sh SRC OCR - tools/grade_class.sh on a class made of the
# grading fixtures (one per failure class) and the lab starter, twice. Both
# gradebooks must be identical, counts included (the same inputs give the
# same scores, the out-of-bounds kernel included), and no kernel that is
# wrong at the teacher's geometry or the grader's second one may PASS: not
# the racy ones whose "// grade:" line asks for one work-item per group, nor
# the ones written for 64 work-items. With oclgrind on PATH the verdicts
# and first failures must equal tests/fixtures/golden/gradebook.csv; how many
# checks the matrix holds depends on the device (the second geometry and the
# race checks), so the counts are compared for consistency, not with the
# golden file: every row the same number of checks; a PASS passed them all,
# any other verdict fewer. Without oclgrind nothing may be a bare PASS.
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/fixtures/kernels_grade
mkdir "$tmp/class"
cp "$g/tree.cl" "$tmp/class/alice.cl"; cp "$g/drop_one.cl" "$tmp/class/bob.cl"
cp "$g/plus.cl" "$tmp/class/carol.cl"; cp "$g/syntax.cl" "$tmp/class/dave.cl"
cp "$g/infinite_loop.cl" "$tmp/class/erin.cl"; cp "$src/docs/labs/starter.cl" "$tmp/class/frank.cl"
cp "$g/race_local1.cl" "$tmp/class/gina.cl"; cp "$g/fixed64.cl" "$tmp/class/hank.cl"
cp "$g/oob_write.cl" "$tmp/class/ivan.cl"; cp "$g/mid_tail.cl" "$tmp/class/judy.cl"
cp "$g/race_mirror.cl" "$tmp/class/kim.cl"; cp "$g/stride64.cl" "$tmp/class/liam.cl"
for run in 1 2; do
  t0=$(date +%s)
  GRADE_TIMEOUT=3 OCR=$ocr "$src/tools/grade_class.sh" "$tmp/class" "$tmp/out$run" 2>/dev/null ||
    { echo "FAIL: grade_class.sh exited $?"; exit 1; }
  echo "run $run: 12 kernels graded in $(($(date +%s) - t0)) s"
done
book=$tmp/out1/gradebook.csv
cat "$book"
diff -u "$book" "$tmp/out2/gradebook.csv" || { echo "FAIL: the second run differs"; exit 1; }
if command -v oclgrind > /dev/null; then
  # student,verdict,first_failure (first_failure is quoted and may hold commas)
  names() { sed -E 's/^([^,]*),([^,]*),[^,]*,[^,]*,/\1,\2,/' "$1"; }
  diff -u <(names "$src/tests/fixtures/golden/gradebook.csv") <(names "$book") ||
    { echo "FAIL: gradebook differs"; exit 1; }
else
  for s in alice frank; do
    grep -q "^$s,PASS_UNCHECKED," "$book" || { echo "FAIL: $s is not PASS_UNCHECKED"; exit 1; }
  done
fi
awk -F, 'NR > 1 { if (c == "") c = $4
                  if ($4 != c || $4 < 1 || ($2 ~ /^PASS/) != ($3 == $4) || $3 > $4) bad = bad " " $1 }
         END { if (bad != "") { print "FAIL: inconsistent counts for" bad; exit 1 } }' "$book" || exit 1
for s in bob carol dave erin gina hank ivan judy kim liam; do
  grep -q "^$s,PASS," "$book" && { echo "FAIL: $s graded PASS"; exit 1; }
done
for s in gina kim; do
  grep -q "ignored in '// grade: kernel=[a-z_]*.* local=1'" "$tmp/out1/$s.err" ||
    { echo "FAIL: $s's log does not say the local=1 was ignored"; exit 1; }
done
[ "$(wc -l < "$tmp/out1/speed.csv")" = 13 ] || { echo "FAIL: speed.csv"; exit 1; }
echo "ok: the same gradebook twice, no wrong kernel passes"
