#!/usr/bin/env bash
# grade_class_one_child_test.sh SRC PYTHON - the class tool runs one grader
# process at a time (never two children for one student, nor for two): a
# wrapper around the stand-in grader counts the wrappers alive at each start
# and holds each run 0.2 s, over a class of four with two speed rounds each;
# the most ever alive is 1. With --jobs 2 the most alive is 2 (never more),
# and the gradebook is the one graded one at a time. Without --speed-runs:
# 5 speed rounds a student on 8 compute units, none (and a warning saying
# why) on a CPU of 2. And grade_class.sh --help describes every option.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/c" "$tmp/alive"
for s in a b c d; do cp "$src/tests/fixtures/kernels_grade/tree.cl" "$tmp/c/$s.cl"; done
cat > "$tmp/grader" <<PY
#!$(command -v "$py")
import os, subprocess, sys, time
me = os.path.join("$tmp/alive", str(os.getpid()))
open(me, "w").close()
with open("$tmp/counts", "a") as f:
    f.write("%d\n" % len(os.listdir("$tmp/alive")))
time.sleep(0.2)
try:
    sys.exit(subprocess.call([sys.executable, "$src/tests/fixtures/classroom/stand_in_grader.py"]
                             + sys.argv[1:]))
finally:
    os.unlink(me)
PY
chmod +x "$tmp/grader"
OCR=$tmp/grader timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o" --kernel tree_reduce \
  --speed-runs 2 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
runs=$(wc -l < "$tmp/counts") most=$(sort -n "$tmp/counts" | tail -1)
echo "grader runs: $runs, most alive at once: $most"
[ "$runs" -ge 20 ] || { echo "FAIL: only $runs grader runs (4 grades and 16 speed runs expected)"; exit 1; }
[ "$most" = 1 ] || { echo "FAIL: $most grader processes at once"; exit 1; }
: > "$tmp/counts"
OCR=$tmp/grader timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o2" --kernel tree_reduce \
  --speed-runs 0 --jobs 2 --seed "$(sed -n 's/.*"seed": *\([0-9]*\).*/\1/p' "$tmp/o/run.json" | head -1)" \
  2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: --jobs 2 exit $?"; exit 1; }
most=$(sort -n "$tmp/counts" | tail -1)
echo "--jobs 2: most alive at once: $most"
[ "$most" = 2 ] || { echo "FAIL: --jobs 2 ran $most grader processes at once"; exit 1; }
cmp "$tmp/o/gradebook.csv" "$tmp/o2/gradebook.csv" ||
  { diff "$tmp/o/gradebook.csv" "$tmp/o2/gradebook.csv"; echo "FAIL: --jobs 2 graded otherwise"; exit 1; }
grep -q "about [0-9]* s left" "$tmp/err" || { cat "$tmp/err"; echo "FAIL: no time left on the progress line"; exit 1; }
# Speed rounds where --speed-runs is not given: 5 a passing student on a device
# where timing means something (8 compute units), none on a CPU of 2, where
# they would be marked not meaningful; the warning and report say so.
for units in 8 2; do
  : > "$tmp/counts"
  STAND_IN_UNITS=$units OCR=$tmp/grader timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" \
    "$tmp/u$units" --kernel tree_reduce --jobs 2 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
  runs=$(wc -l < "$tmp/counts")
  rounds=$("$py" -c "import csv,sys; print(sorted({r['rounds'] for r in csv.DictReader(open(sys.argv[1]))}))" \
    "$tmp/u$units/speed.csv")
  echo "$units compute units: $runs grader runs, speed rounds $rounds"
  if [ "$units" = 8 ]; then
    [ "$rounds" = "['5']" ] || { echo "FAIL: 8 units: 5 rounds each expected"; exit 1; }
    with=$runs
    grep -q "speed not measured" "$tmp/err" && { echo "FAIL: 8 units: said not measured"; exit 1; }
  else
    # 4 students x 5 rounds x 2 processes (theirs and reduce6) fewer
    [ "$rounds" = "[]" ] && [ $((with - runs)) = 40 ] ||
      { echo "FAIL: 2 units: speed rounds ran ($runs runs, $with with them)"; exit 1; }
    grep -q "warning: speed not measured: the device is a CPU of 2 compute units" "$tmp/err" ||
      { cat "$tmp/err"; echo "FAIL: 2 units: no warning"; exit 1; }
    grep -q "No speed measured (not measured: the device is a CPU of 2" "$tmp/u2/report.html" ||
      { echo "FAIL: 2 units: the report does not say why"; exit 1; }
  fi
done
"$src/classroom/grade_class.sh" --help > "$tmp/help" || { echo "FAIL: --help exit $?"; exit 1; }
"$py" - "$tmp/help" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
for opt in ("-p", "-d", "-t", "--settings", "--rubric", "--kernel", "--elems", "--local", "--timeout",
            "--deadline", "--worksheet", "--timezone", "--seed", "--speed-runs", "--types", "--ops",
            "--build-options", "--canvas-assignment", "--canvas-gradebook", "--jobs"):
    m = re.search(r"^  " + re.escape(opt) + r"\b[^\n]*(\n {10,}\S[^\n]*)*", text, re.M)
    assert m and len(m.group(0).split()) > 2, f"--help does not describe {opt}"
print("ok: one grader at a time; --help describes every option")
PY
