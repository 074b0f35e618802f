#!/usr/bin/env bash
# grade_class_seed_test.sh SRC OCR PYTHON - the same class, settings and seed
# give the same grading: a small class (a correct kernel, a syntax error, a
# wrong kernel, an empty folder) graded twice by the real grader with
# --seed 7 gives byte-identical gradebook.csv and feedback files, and run.json
# records the seed (with a grader that draws sizes, --grade-seed 7 in every
# regrade command). A class graded without --seed still records the one it
# used, so it can be repeated (a one-student class, to keep it short).
set -u
src=$1 ocr=$2 py=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/fixtures/kernels_grade
mkdir -p "$tmp/c/dan_4_assignsubmission_file_"
cp "$g/tree.cl" "$tmp/c/ann.cl"; cp "$g/syntax.cl" "$tmp/c/bob.cl"; cp "$g/plus.cl" "$tmp/c/cat.cl"
mkdir "$tmp/one"; cp "$g/syntax.cl" "$tmp/one/bob.cl"
for run in 1 2 3; do
  class=$tmp/c seed=(--seed 7)
  [ "$run" = 3 ] && class=$tmp/one seed=()
  OCR=$ocr "$src/classroom/grade_class.sh" "$class" "$tmp/o$run" --kernel tree_reduce --speed-runs 0 \
    "${seed[@]}" --rubric "$src/tests/fixtures/classroom/rubric.txt" 2> "$tmp/err$run" ||
    { cat "$tmp/err$run"; echo "FAIL: run $run exited $?"; exit 1; }
done
cat "$tmp/o1/gradebook.csv"
cmp "$tmp/o1/gradebook.csv" "$tmp/o2/gradebook.csv" || { echo "FAIL: the gradebooks differ"; exit 1; }
[ "$(ls "$tmp/o1/feedback")" = "$(ls "$tmp/o2/feedback")" ] || { echo "FAIL: other feedback files"; exit 1; }
for f in "$tmp"/o1/feedback/*; do
  cmp "$f" "$tmp/o2/feedback/$(basename "$f")" || { echo "FAIL: $(basename "$f") differs"; exit 1; }
done
"$py" - "$tmp" <<'PY' || exit 1
import csv, json, sys
t = sys.argv[1]
run = json.load(open(f"{t}/o1/run.json"))
assert run["seed"] == 7 and run["settings"]["seed"] == 7, run["seed"]
for s in run["submissions"]:
    assert s["regrade"] is None or "--grade-seed 7" in s["regrade"], s
verdicts = [r[2] for r in csv.reader(open(f"{t}/o1/gradebook.csv", newline=""))][1:]
assert verdicts[0] in ("PASS", "PASS_UNCHECKED") and verdicts[1:] == ["BUILD_ERROR", "WRONG",
                                                                        "NO_SUBMISSION"], verdicts
third = json.load(open(f"{t}/o3/run.json"))
assert isinstance(third["seed"], int) and str(third["seed"]) in third["seed_note"] or \
    "fixed" in third["seed_note"], third["seed_note"]
print("ok: seed", run["seed"], "-", run["seed_note"])
PY
echo "ok: the same class and seed, the same gradebook and feedback"
