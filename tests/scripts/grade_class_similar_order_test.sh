#!/usr/bin/env bash
# grade_class_similar_order_test.sh SRC PYTHON - similarity.csv is robust to
# declaration order and renaming (tests/fixtures/classroom/similar/): three
# copies (tree.cl renamed with two declarations swapped, independent.cl
# renamed and laid out anew with its declarations reordered, a hex literal
# and braces dropped, interleaved.cl renamed with its constants reordered)
# are "identical" to their originals, and a copy with one statement changed
# is "near" and still scores above every pair of the five kernels written
# apart (tree.cl, independent.cl, interleaved.cl, serial_leader.cl and
# kernels_grade/pairs.cl; a comparison in statement order gave the swapped
# copy 0.357, below two kernels written apart). Files without a statement
# (empty, comments only, only an #include of another student's file) get no
# score, said so, and are never "identical". Every pair names the lines the
# two share, and those lines hold the same statements. With the stand-in
# grader (only the class tool's own handling is under test).
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$src/tests/fixtures
c=$tmp/c
mkdir "$c"
cp "$f"/classroom/similar/*.cl "$c/"
cp "$f/kernels_grade/tree.cl" "$c/tree.cl"; cp "$f/classroom/independent.cl" "$c/independent.cl"
cp "$f/kernels_grade/pairs.cl" "$c/pairs.cl"
sed 's/step >>= 1/step = step \/ 2/' "$c/tree_swapped.cl" > "$c/tree_one_change.cl"
: > "$c/empty.cl"
printf '// grade: kernel=tree_reduce\n/* my kernel is coming */\n// soon\n' > "$c/comments.cl"
printf '#include "tree.cl"\n' > "$c/include_only.cl"
printf '#include "pairs.cl"\n\n' > "$c/include_other.cl"
printf 'similarity = 0\nspeed_runs = 0\n' > "$tmp/settings"
OCR=$f/classroom/stand_in_grader.py timeout 120 "$src/classroom/grade_class.sh" "$c" "$tmp/o" \
  --settings "$tmp/settings" 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
cat "$tmp/o/similarity.csv"
"$py" - "$tmp/o" "$c" <<'PY' || exit 1
import csv, re, sys
out, cls = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(f"{out}/similarity.csv", newline="", encoding="utf-8")))
head = rows[0]
assert head == ["student_a", "student_b", "kind", "score", "shared_lines_a", "shared_lines_b"], head
by = {frozenset(r[:2]): dict(zip(head, r)) for r in rows[1:] if r[1]}
hollow = {"empty", "comments", "include_only", "include_other"}
said = {r[0]: r for r in rows[1:] if not r[1]}
assert set(said) == hollow, said
assert all(r[2] == "no statements" and r[3] == "" for r in said.values()), said
assert not any(set(p) & hollow for p in by), [p for p in by if set(p) & hollow]
copies = [("tree", "tree_swapped"), ("independent", "group_sum_reordered"),
          ("interleaved", "interleaved_swapped")]
apart = ["tree", "independent", "interleaved", "serial_leader", "pairs"]
for p in copies:
    r = by[frozenset(p)]
    assert r["kind"] == "identical" and r["score"] == "1.000", r
best_apart = max(float(by[frozenset((a, b))]["score"]) for i, a in enumerate(apart)
                 for b in apart[i + 1:])
print("best pair written apart: %.3f" % best_apart)
assert best_apart < 0.9, "two kernels written apart reach the default threshold"
one = by[frozenset(("tree", "tree_one_change"))]
assert one["kind"] == "near" and float(one["score"]) > best_apart + 0.2, (one, best_apart)
assert float(one["score"]) >= 0.8, "a one-statement change falls below the default threshold"
ident = [p for p, r in by.items() if r["kind"] == "identical"]
want = {frozenset(p) for p in copies}
assert set(ident) == want, ident

def lines(name, spec):
    text = open(f"{cls}/{name}.cl", encoding="utf-8").read().split("\n")
    got = []
    for part in spec.split(", "):
        a, _, b = part.partition("-")
        got += text[int(a) - 1:int(b or a)]
    return got

def words(ls):  # the shared lines' statements, names and layout aside
    return sorted(re.sub(r"[A-Za-z_]\w*", "x", re.sub(r"\s+", "", l)) for l in ls if l.strip())

r = by[frozenset(("tree", "tree_swapped"))]
a, b = (r["student_a"], r["student_b"])
la, lb = lines(a, r["shared_lines_a"]), lines(b, r["shared_lines_b"])
assert len(la) == len(lb) == 15 and words(la) == words(lb), (la, lb)
assert any("const uint" in x for x in la) and any("const ulong" in x for x in lb)
page = open(f"{out}/report.html", encoding="utf-8").read()
assert "no statements" in page and "include_only" in page
print("ok: reordered renamed copies identical, one change near, hollow files unscored")
PY
