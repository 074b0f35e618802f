#!/usr/bin/env bash
# grade_class_settings_test.sh SRC OCR - grade_class.sh refuses bad settings
# and rubrics with exit 2, naming the file and line, before grading anything;
# and a class with nothing to grade is a usage error too.
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/class" "$tmp/none"
cp "$src/tests/fixtures/kernels_grade/tree.cl" "$tmp/class/a.cl"
fail=0
expect() { # WANT_RE ARGS...: exit 2 and WANT_RE on stderr
  local want=$1; shift
  OCR=$ocr "$src/classroom/grade_class.sh" "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ "$rc" != 2 ] || ! grep -Eq "$want" "$tmp/err"; then
    echo "FAIL: $* -> exit $rc: $(cat "$tmp/err")"; fail=1
  else
    echo "ok   $(head -1 "$tmp/err")"
  fi
}
printf 'kernel = k\nelems = many\n' > "$tmp/s1"
expect "s1:2: elems wants a whole number" "$tmp/class" "$tmp/o" --settings "$tmp/s1"
printf 'kernal = k\n' > "$tmp/s2"
expect "s2:1: expected KEY = VALUE" "$tmp/class" "$tmp/o" --settings "$tmp/s2"
printf 'max_points 10\nverdict PASS 10\nverdict GREAT 5\n' > "$tmp/r1"
expect "r1:3: cannot read 'verdict GREAT 5'" "$tmp/class" "$tmp/o" --rubric "$tmp/r1"
printf 'max_points 10\ngroup int summ 2\n' > "$tmp/r2"
expect "r2:2: cannot read" "$tmp/class" "$tmp/o" --rubric "$tmp/r2"
printf 'max_points 10\nlate_penalty 150%%\n' > "$tmp/r3"
expect "r3:2: late_penalty is a percentage" "$tmp/class" "$tmp/o" --rubric "$tmp/r3"
printf 'max_points 5\nverdict PASS 10\n' > "$tmp/r4"
expect "more than max_points" "$tmp/class" "$tmp/o" --rubric "$tmp/r4"
printf 'max_points nan\n' > "$tmp/r5"
expect "r5:1: 'nan' is not a number of points" "$tmp/class" "$tmp/o" --rubric "$tmp/r5"
expect "no .cl files or student folders" "$tmp/none" "$tmp/o"
expect "not an ISO 8601" "$tmp/class" "$tmp/o" --deadline tomorrow --speed-runs 0
expect "device-type|device type|bogus" "$tmp/class" "$tmp/o" -t bogus --speed-runs 0
[ ! -e "$tmp/o/gradebook.csv" ] || { echo "FAIL: a gradebook was written"; fail=1; }
# The example rubric in the docs reads.
OCR=$ocr "$src/classroom/grade_class.sh" "$tmp/class" "$tmp/o2" --rubric "$src/docs/labs/rubric.example" \
  --speed-runs 0 2> /dev/null || { echo "FAIL: docs/labs/rubric.example"; fail=1; }
grep -q '"a","a","PASS' "$tmp/o2/gradebook.csv" || { cat "$tmp/o2/gradebook.csv"; fail=1; }
[ "$fail" = 0 ] && echo "ok: bad settings and rubrics refused"
exit "$fail"
