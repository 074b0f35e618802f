#!/usr/bin/env bash
# grade_class_lms_out_test.sh SRC PYTHON - the gradebook back into the LMS,
# with the stand-in grader (only the class tool's own handling is under
# test). Moodle: a grading worksheet with Moodle's columns (drawn in a random
# order, with a random Maximum Grade and a BOM or not, from a fixed seed
# printed for a rerun; tests/fixtures/classroom/worksheet.csv's columns) is
# written back into OUTDIR with the same header, rows and untouched cells,
# Grade scaled to its Maximum Grade and Feedback comments filled for the
# matched students (by "Participant N", or by Full name), the unmatched ones
# (graded but absent; present but not graded) listed in run.json, a
# warning for the graded ones the worksheet lacks. Canvas: a flat Canvas
# download gives canvas_gradebook.csv with Canvas's import columns (Student,
# ID, SIS User ID, SIS Login ID, Section, the assignment), its "Points
# Possible" row, one row per Canvas student with the user id and points;
# given the course's Canvas export (drawn Points Possible, a Manual Posting
# row, another assignment, a student not graded), that file written back cut
# to its student columns and the assignment's, points scaled, matched by ID;
# an assignment the export lacks is exit 2 before anything is graded.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py
seed=${LMS_TEST_SEED:-$RANDOM}
echo "seed $seed (LMS_TEST_SEED=$seed repeats this run)"
"$py" - "$tmp" "$src/tests/fixtures/kernels_grade/tree.cl" "$seed" <<'PY' || { echo "FAIL: fixtures"; exit 1; }
import csv, json, os, random, sys
tmp, tree, seed = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
rnd = random.Random(seed)
cols = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
        "Grade can be changed", "Last modified (submission)", "Online text",
        "Last modified (grade)", "Feedback comments"]
fixed = cols[:2]
rest = cols[2:]
rnd.shuffle(rest)
head = fixed + rest
maxg = rnd.choice(["100.00", "20.00", "10.00", "7.50"])
people = [("2001", "Ada Early", "PASS"), ("2002", "Ben Late", "WRONG"), ("2003", "Cy Edge", "RACE"),
          ("2004", "Dee None", None), ("2005", "Eve Byname", "PASS")]
rows = []
for pid, name, verdict in people:
    r = {"Identifier": f"Participant {pid}", "Full name": name,
         "Email address": name.split()[0].lower() + "@example.org",
         "Status": "No submission" if verdict is None else "Submitted for grading",
         "Grade": "", "Maximum Grade": maxg, "Grade can be changed": "Yes",
         "Last modified (submission)": "-" if verdict is None else "Monday, 24 November 2026, 3:05 PM",
         "Online text": "see \"attached\", please", "Last modified (grade)": "-",
         "Feedback comments": ""}
    rows.append([r[h] for h in head])
    if verdict:
        folder = f"{tmp}/class/{name}_{pid}_assignsubmission_file_"
        if name == "Eve Byname":  # matched by Full name: her folder has another number
            folder = f"{tmp}/class/{name}_9999_assignsubmission_file_"
        os.makedirs(folder)
        open(f"{folder}/k.cl", "w").write(f"// stand-in: {verdict}\n" + tree)
os.makedirs(f"{tmp}/class/Zed Extra_2099_assignsubmission_file_")
open(f"{tmp}/class/Zed Extra_2099_assignsubmission_file_/k.cl", "w").write(tree)
bom = rnd.random() < 0.5
with open(f"{tmp}/worksheet.csv", "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as f:
    csv.writer(f, lineterminator="\n").writerows([head] + rows)
json.dump({"max": maxg, "bom": bom}, open(f"{tmp}/drawn.json", "w"))
os.makedirs(f"{tmp}/canvas")
for n in ("leeann_1234_5678_reduce.cl", "kimbo_LATE_2222_3333_reduce.cl", "parkjin_4444_5555_k.cl"):
    open(f"{tmp}/canvas/{n}", "w").write(("// stand-in: WRONG\n" if "park" in n else "") + tree)
pp = rnd.choice(["25.00", "10.00", "100.00", "12.50"])
export = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 2 (1111)", "Lab 3 (4321)",
           "Current Score"],
          ["    Points Possible", "", "", "", "", "10.00", pp, "(read only)"],
          ["    Manual Posting", "", "", "", "", "", "Manual Posting", ""],
          ["Lee, Ann", "1234", "S1", "alee", "Sec A", "9", "", "90"],
          ["Bo, Kim", "2222", "S2", "kbo", "Sec A", "8", "", "80"],
          ["Park, Jin", "4444", "S3", "jpark", "Sec B", "7", "", "70"],
          ["Nobody, Here", "5555", "S4", "nhere", "Sec B", "", "", ""]]
rnd.shuffle(export[3:])
with open(f"{tmp}/canvas_export.csv", "w", newline="", encoding="utf-8") as f:
    csv.writer(f).writerows(export)
json.dump({"max": maxg, "bom": bom, "pp": pp}, open(f"{tmp}/drawn.json", "w"))
PY
printf 'kernel = tree_reduce\nspeed_runs = 0\n' > "$tmp/settings"
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/class" "$tmp/o" --settings "$tmp/settings" \
  --worksheet "$tmp/worksheet.csv" 2> "$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/canvas" "$tmp/oc" --settings "$tmp/settings" \
  --canvas-assignment "Lab 3 (4321)" 2> "$tmp/errc" || { cat "$tmp/errc"; echo "FAIL: exit $?"; exit 1; }
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/canvas" "$tmp/oe" --settings "$tmp/settings" \
  --canvas-assignment "Lab 3" --canvas-gradebook "$tmp/canvas_export.csv" 2> "$tmp/erre" ||
  { cat "$tmp/erre"; echo "FAIL: exit $?"; exit 1; }
OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$tmp/canvas" "$tmp/ox" --settings "$tmp/settings" \
  --canvas-assignment "Lab 9" --canvas-gradebook "$tmp/canvas_export.csv" 2> "$tmp/errx"
rc=$?
{ [ "$rc" = 2 ] && grep -q "no column for the assignment 'Lab 9'.*'Lab 3 (4321)'" "$tmp/errx" &&
  [ ! -e "$tmp/ox/gradebook.csv" ]; } || { cat "$tmp/errx"; echo "FAIL: a missing assignment: exit $rc"; exit 1; }
cat "$tmp/o/worksheet.csv" "$tmp/oc/canvas_gradebook.csv" "$tmp/oe/canvas_gradebook.csv"
"$py" - "$tmp" <<'PY' || exit 1
import csv, json, sys
tmp = sys.argv[1]
drawn = json.load(open(f"{tmp}/drawn.json"))
def table(p):
    return list(csv.reader(open(p, newline="", encoding="utf-8-sig")))
before, after = table(f"{tmp}/worksheet.csv"), table(f"{tmp}/o/worksheet.csv")
assert open(f"{tmp}/o/worksheet.csv", "rb").read().startswith(b"\xef\xbb\xbf") == drawn["bom"]
head = before[0]
assert after[0] == head and len(after) == len(before), (after[0], head)
g, fc = head.index("Grade"), head.index("Feedback comments")
m = float(drawn["max"])
want = {"Participant 2001": ("%.2f" % m, "PASS"), "Participant 2002": ("0.00", "WRONG"),
        "Participant 2003": ("0.00", "RACE"), "Participant 2004": ("", ""),
        "Participant 2005": ("%.2f" % m, "PASS")}
for b, a in zip(before[1:], after[1:]):
    assert [x for i, x in enumerate(a) if i not in (g, fc)] == \
        [x for i, x in enumerate(b) if i not in (g, fc)], (b, a)
    grade, verdict = want[a[0]]
    assert a[g] == grade and a[fc].startswith(verdict), (a, grade, verdict)
gb = {r[1]: r for r in table(f"{tmp}/o/gradebook.csv")[1:]}
assert gb["Zed Extra"][2] == "PASS"
run = json.load(open(f"{tmp}/o/run.json"))
assert any("not in the worksheet" in w and "Zed Extra" in w for w in run["warnings"]), run["warnings"]
assert not any("Dee None" in w for w in run["warnings"]), "Moodle says Dee did not submit"
assert run["lms"]["worksheet"]["in_worksheet_not_graded"] == ["Dee None"], run["lms"]
assert run["lms"]["worksheet"]["graded_not_in_worksheet"] == ["Zed Extra"], run["lms"]
cv = table(f"{tmp}/oc/canvas_gradebook.csv")
assert cv[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 3 (4321)"], cv[0]
assert cv[1][0].strip() == "Points Possible" and cv[1][5] == "10", cv[1]
assert all(len(r) == 6 for r in cv)
got = {r[1]: (r[0], r[5]) for r in cv[2:]}
assert got == {"1234": ("leeann", "10"), "2222": ("kimbo", "10"), "4444": ("parkjin", "0")}, got
ex, back = table(f"{tmp}/canvas_export.csv"), table(f"{tmp}/oe/canvas_gradebook.csv")
assert back[0] == ex[0][:5] + ["Lab 3 (4321)"], back[0]
assert len(back) == len(ex) and [r[:5] for r in back] == [r[:5] for r in ex], back
assert back[1][5] == drawn["pp"] and back[2][5] == "Manual Posting", back[1:3]
pp = float(drawn["pp"])
got = {r[1]: r[5] for r in back[3:]}
assert got == {"1234": "%.2f" % pp, "2222": "%.2f" % pp, "4444": "0.00", "5555": ""}, got
rune = json.load(open(f"{tmp}/oe/run.json"))
assert rune["lms"]["canvas"]["in_export_not_graded"] == ["Nobody, Here"], rune["lms"]
print("ok: worksheet written back with its columns; Canvas import columns and points")
PY
