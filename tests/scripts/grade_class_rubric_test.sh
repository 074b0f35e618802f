#!/usr/bin/env bash
# grade_class_rubric_test.sh SRC PYTHON - the rubric and the grader's newer
# report fields, with the stand-in grader (tests/fixtures/classroom/
# stand_in_grader.py; STAND_IN_NEW=1 makes it the grader of CONTRACT: cases
# listed by --grade --list-cases, --grade-seed, checker_failed):
#  - docs/labs/rubric.example pays RACE no more than WRONG and does not say a
#    RACE kernel's values are right;
#  - a "group TYPE OP" line for a case the matrix does not grade is refused
#    with file:line: the documented matrix for a grader that cannot list its
#    cases, the grader's own list where it can;
#  - a race check whose checker failed is a tool failure: PASS_UNCHECKED, said
#    in the reason, the feedback and report.html;
#  - --seed reaches the grader (--grade-seed) and run.json.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$py" - "$src" <<'PY' || fail=1
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1] + "/classroom")
import grade_class_input as gi
r = gi.read_rubric(sys.argv[1] + "/docs/labs/rubric.example", gi.DOCUMENTED_MATRIX)
pay = lambda v: r["verdict"].get(v, 0) + (sum(g[2] for g in r["groups"]) if v in r["partial"] else 0)
assert r["verdict"].get("RACE", 0) <= r["verdict"].get("WRONG", 0), r["verdict"]
assert pay("RACE") <= pay("WRONG") and ("RACE" not in r["partial"] or "WRONG" in r["partial"]), r
text = open(sys.argv[1] + "/docs/labs/rubric.example").read().lower()
assert "every value right" not in text and "may be wrong" in text
print("ok: rubric.example pays RACE no more than WRONG")
PY
mkdir "$tmp/c"
cp "$src/tests/fixtures/kernels_grade/tree.cl" "$tmp/c/ann.cl"
{ echo "// stand-in: checker-failed"; cat "$src/tests/fixtures/kernels_grade/tree.cl"; } > "$tmp/c/bob.cl"
gc() { OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$@" --kernel tree_reduce --speed-runs 0; }
printf 'max_points 10\ngroup int min 1\n' > "$tmp/r1"
gc "$tmp/o1" --rubric "$tmp/r1" 2> "$tmp/err"
rc=$?
{ [ "$rc" = 2 ] && grep -q "r1:2: no int min case is graded" "$tmp/err"; } ||
  bad "group int min, fixed matrix: exit $rc: $(cat "$tmp/err")"
printf 'max_points 10\ngroup uint min 1\ngroup int max 1\n' > "$tmp/r2"
STAND_IN_NEW=1 STAND_IN_CASES="int sum, uint min" gc "$tmp/o2" --rubric "$tmp/r2" 2> "$tmp/err"
rc=$?
{ [ "$rc" = 2 ] && grep -q "r2:3: no int max case is graded.*(graded: int sum, uint min)" "$tmp/err"; } ||
  bad "group int max, listed cases: exit $rc: $(cat "$tmp/err")"
printf 'max_points 10\nverdict PASS 10\nverdict PASS_UNCHECKED 10\ngroup uint min 1\n' > "$tmp/r3"
STAND_IN_NEW=1 STAND_IN_CASES="int sum, uint min" gc "$tmp/o3" --rubric "$tmp/r3" --seed 42 \
  2> "$tmp/err" || bad "group uint min, listed cases: exit $?: $(cat "$tmp/err")"
gc "$tmp/o4" --types int 2> "$tmp/err"
rc=$?
{ [ "$rc" = 2 ] && grep -q "fixed matrix" "$tmp/err"; } || bad "types on an old grader: exit $rc"
"$py" - "$tmp/o3" <<'PY' || fail=1
import csv, json, sys
out = sys.argv[1]
by = {r[1]: r for r in csv.reader(open(f"{out}/gradebook.csv", newline="", encoding="utf-8"))}
assert by["ann"][2:4] == ["PASS", "10"], by["ann"]
assert by["bob"][2:4] == ["PASS_UNCHECKED", "10"] and "tool failure" in by["bob"][6], by["bob"]
fb = open(f"{out}/feedback/bob.txt", encoding="utf-8").read()
assert "Tool failures (1), not the kernel's" in fb and "checker failed (signal 11)" in fb, fb
assert "Tool failures" not in open(f"{out}/feedback/ann.txt", encoding="utf-8").read()
page = open(f"{out}/report.html", encoding="utf-8").read()
assert "tool failure: 1 race check" in page and "grade seed 42" in page, page[:2000]
run = json.load(open(f"{out}/run.json"))
assert run["seed"] == 42 and all("--grade-seed 42" in s["regrade"] for s in run["submissions"]), run
assert ["uint", "min"] in run["settings"]["graded"], run["settings"]
print("ok: tool failures reported, the seed passed and recorded")
PY
[ "$fail" = 0 ] && echo "ok: rubric lines checked against the matrix"
exit "$fail"
