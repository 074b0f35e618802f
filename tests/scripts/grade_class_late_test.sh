#!/usr/bin/env bash
# grade_class_late_test.sh SRC PYTHON - late from the LMS, not from a copy's
# file times, with the stand-in grader (tests/fixtures/classroom/
# stand_in_grader.py). The class is copied without its times (every file is
# "now", long after the deadline), and Moodle's grading worksheet
# (tests/fixtures/classroom/worksheet.csv, "Last modified (submission)" as
# Moodle writes it: "Monday, 24 November 2026, 3:05 PM") says who was late:
# found in the class folder, or named with --worksheet, in the zone of
# --timezone. Without a worksheet the file times are used and report.html
# warns that they cannot be the submissions' times (all equal, all after the
# deadline). A worksheet date that cannot be read is a usage error, file:line.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py sheet=$src/tests/fixtures/classroom/worksheet.csv
fail=0
bad() { echo "FAIL: $*"; fail=1; }
c=$tmp/class
for s in "Ada Early_2001" "Ben Late_2002" "Cy Edge_2003"; do
  mkdir -p "$c/${s}_assignsubmission_file_"
  cp "$src/tests/fixtures/kernels_grade/tree.cl" "$c/${s}_assignsubmission_file_/k.cl"
done
touch -d 2026-01-01T00:00:00Z "$c"/*/k.cl  # as "cp -r" of an export leaves them: one time
gc() { OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$@" --kernel tree_reduce --speed-runs 0 \
         --deadline 2026-11-24T23:59:30+01:00; }
late() { "$py" -c 'import csv,sys; print(" ".join(r[5] for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]))' "$1/gradebook.csv"; }
# 1. The worksheet named; its times in Central European Time: Ada 15:05 and Cy
#    23:59 on the 24th are on time, Ben the next morning is late.
gc "$c" "$tmp/o1" --worksheet "$sheet" --timezone +01:00 2> "$tmp/err" || bad "exit $?: $(cat "$tmp/err")"
[ "$(late "$tmp/o1")" = "no yes no" ] || bad "worksheet, +01:00: late is '$(late "$tmp/o1")', not 'no yes no'"
grep -q '"time_source": "worksheet"' "$tmp/o1/run.json" || bad "run.json does not say the times came from the worksheet"
# 2. The same worksheet found in the class folder, its times read as UTC: Cy's
#    23:59 UTC is 00:59 CET, after the deadline.
cp "$sheet" "$c/grading worksheet.csv"
gc "$c" "$tmp/o2" 2> "$tmp/err" || bad "exit $?: $(cat "$tmp/err")"
[ "$(late "$tmp/o2")" = "no yes yes" ] || bad "worksheet in the folder, UTC: late is '$(late "$tmp/o2")'"
grep -q "Warning" "$tmp/o2/report.html" && bad "a warning although the worksheet gave every time"
rm "$c/grading worksheet.csv"
# 3. No worksheet: every file time is the same, so report.html warns.
gc "$c" "$tmp/o3" 2> "$tmp/err" || bad "exit $?: $(cat "$tmp/err")"
grep -q "Warning.*every file has the same time" "$tmp/o3/report.html" || bad "no warning: one file time for all"
# 3b. Times a few seconds apart (a copy that took its time): warned too.
touch -d 2026-01-01T00:00:00Z "$c/Ada Early_2001_assignsubmission_file_/k.cl"
touch -d 2026-01-01T00:00:02Z "$c/Ben Late_2002_assignsubmission_file_/k.cl"
touch -d 2026-01-01T00:00:41Z "$c/Cy Edge_2003_assignsubmission_file_/k.cl"
gc "$c" "$tmp/o3b" 2> "$tmp/err" || bad "exit $?: $(cat "$tmp/err")"
grep -q "Warning.*every file has the same time (within 60 s)" "$tmp/o3b/report.html" ||
  bad "no warning: file times 41 s apart"
# 4. Different times, all after the deadline: warned too.
touch -d 2026-12-01T10:00:00Z "$c/Ada Early_2001_assignsubmission_file_/k.cl"
touch -d 2026-12-02T10:00:00Z "$c/Ben Late_2002_assignsubmission_file_/k.cl"
touch -d 2026-12-03T10:00:00Z "$c/Cy Edge_2003_assignsubmission_file_/k.cl"
gc "$c" "$tmp/o4" 2> "$tmp/err" || bad "exit $?: $(cat "$tmp/err")"
grep -q "Warning.*every file time is after the deadline" "$tmp/o4/report.html" ||
  bad "no warning: every file after the deadline"
grep -q "warning: every file time is after the deadline" "$tmp/err" || bad "no warning on stderr"
# 5. A date the tool cannot read: exit 2, file:line.
sed 's/Tuesday, 25 November 2026, 9:30 AM/sometime/' "$sheet" > "$tmp/bad.csv"
gc "$c" "$tmp/o5" --worksheet "$tmp/bad.csv" 2> "$tmp/err"
rc=$?
{ [ "$rc" = 2 ] && grep -q "bad.csv:3: cannot read the date 'sometime'" "$tmp/err"; } ||
  bad "an unreadable date: exit $rc: $(cat "$tmp/err")"
[ "$fail" = 0 ] && echo "ok: late from the worksheet; file times warned about"
exit "$fail"
