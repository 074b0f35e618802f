#!/usr/bin/env bash
# grade_class_similarity_test.sh SRC PYTHON - similarity.csv with every pair
# listed (similarity = 0), the stand-in grader (tests/fixtures/classroom/
# stand_in_grader.py) in place of oclReduction: tree.cl, a renamed copy with
# optional braces added and removed (classroom/braces.cl), a renamed copy with
# its layout changed (classroom/renamed.cl) and a kernel written apart
# (classroom/independent.cl). The copies are "identical" to tree.cl (score
# 1.000), the kernel written apart scores below 0.7 against every other
# (0.825 with the token comparison before; 0.409 now), and each pair names the lines the
# two share, in similarity.csv and in report.html.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$src/tests/fixtures
mkdir "$tmp/c"
cp "$f/kernels_grade/tree.cl" "$tmp/c/orig.cl"; cp "$f/classroom/braces.cl" "$tmp/c/braces.cl"
cp "$f/classroom/renamed.cl" "$tmp/c/renamed.cl"; cp "$f/classroom/independent.cl" "$tmp/c/apart.cl"
printf 'kernel = tree_reduce\nsimilarity = 0\nspeed_runs = 0\n' > "$tmp/settings"
OCR=$f/classroom/stand_in_grader.py timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o" \
  --settings "$tmp/settings" 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
cat "$tmp/o/similarity.csv"
"$py" - "$tmp/o" <<'PY' || exit 1
import csv, sys
out = sys.argv[1]
rows = list(csv.reader(open(f"{out}/similarity.csv", newline="", encoding="utf-8")))
assert rows[0][:4] == ["student_a", "student_b", "kind", "score"], rows[0]
by = {frozenset(r[:2]): r for r in rows[1:]}
assert len(by) == 6, rows
for a, b in (("orig", "braces"), ("orig", "renamed"), ("braces", "renamed")):
    r = by[frozenset((a, b))]
    assert r[2:4] == ["identical", "1.000"], r
for other in ("orig", "braces", "renamed"):
    r = by[frozenset(("apart", other))]
    assert r[2] == "near" and float(r[3]) < 0.7, r
r = by[frozenset(("braces", "orig"))]
lines = dict(zip(rows[0], r))
# every statement shared; the lines holding only a closing brace are no evidence
assert lines["shared_lines_a"] == "7-14, 16-20, 22, 24-25" and lines["shared_lines_b"] == "10-22, 24-25", r
page = open(f"{out}/report.html", encoding="utf-8").read()
assert "res[get_group_id(0)] = buf[0];" in page and "shared lines" in page
print("ok: copies identical, a kernel written apart well below, shared lines named")
PY
