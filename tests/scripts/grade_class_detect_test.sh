#!/usr/bin/env bash
# grade_class_detect_test.sh SRC PYTHON - the class tool finds a folder's
# kernel in its code, as the compiler reads it, not in its comments: a
# commented-out old `__kernel void my_reduce(` in 01_helpers.cl beside the
# real kernel in 02_reduce.cl is no second kernel (the submission is
# 02_reduce.cl, graded, not NO_SUBMISSION); a kernel's name in a string is no
# kernel; a declaration split by a backslash-newline is one. With the
# stand-in grader (only the class tool's own handling is under test).
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py
c=$tmp/class
kim="$c/Kim, Lee_1001_assignsubmission_file_" ann="$c/Ann_1002_assignsubmission_file_"
mkdir -p "$kim" "$ann"
cat > "$kim/01_helpers.cl" <<'CL'
/* The first try, kept for the record:
__kernel void my_reduce(__global const T *in, __global T *out, const ulong n) { }
*/
// __kernel void my_reduce(  (and this one)
#define NAME "__kernel void my_reduce("
inline T twice(T x) { return x + x; }
CL
cat > "$kim/02_reduce.cl" <<'CL'
#include "01_helpers.cl"
__kernel void my_reduce(__global const T *in, __global T *out, const ulong n) { }
CL
# Ann: the only real kernel is split by a backslash-newline; the other file
# names one only in a string.
printf '__kernel void \\\n  my_reduce(__global const T *in, __global T *out, const ulong n) { }\n' > "$ann/a.cl"
printf 'const char *s = "__kernel void my_reduce(";\n' > "$ann/b.cl"
# Many: 300 .cl files and no kernel: NO_SUBMISSION, the reason naming ten
# files and the count of the rest (it listed all 300 before: a huge cell).
many="$c/Many_1003_assignsubmission_file_"
mkdir -p "$many"
for i in $(seq 1 300); do printf 'int f%d(int x) { return x; }\n' "$i" > "$many/part$i.cl"; done
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$c" "$tmp/out" --kernel my_reduce \
  --speed-runs 0 > "$tmp/log" 2>&1 || { echo "FAIL: grade_class exit $?"; cat "$tmp/log"; exit 1; }
"$py" - "$tmp/out" <<'PY'
import csv, json, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1] + "/gradebook.csv"))}
run = {s["student"]: s for s in json.load(open(sys.argv[1] + "/run.json"))["submissions"]}
for who, want in (("Kim, Lee", "02_reduce.cl"), ("Ann", "a.cl")):
    assert rows[who]["verdict"] == "PASS", (who, rows[who])
    assert run[who]["file"].endswith("/" + want), (who, run[who]["file"])
r = rows["Many"]
assert r["verdict"] == "NO_SUBMISSION" and r["reason"].startswith("300 .cl files"), r
assert r["reason"].endswith(" and 290 more") and len(r["reason"]) < 400, r["reason"]
print("PASS: kernels found in code, not in comments or strings; a long list cut")
PY
