#!/usr/bin/env bash
# grade_class_lms_test.sh SRC OCR PYTHON - a class as an LMS exports it (one
# folder per student, "Name_ID_..."), with a file named "smith, john.cl", a
# byte copy of it under another student, a copy with every name, comment and
# the layout changed, a student whose name is HTML, an empty folder, a folder
# with two .cl files of which one defines the kernel, a flat file, and one
# late file, a kernel that passes the grader but hangs at the speed
# measurement's size; graded twice with the test rubric (tests/fixtures/classroom).
# Checks: the gradebook reads with Python's csv module, every row 8 fields,
# the same bytes twice; ids, verdicts, points (partial credit, late penalty);
# similarity.csv lists both copies and no unrelated pair as identical; run.json
# names the device and every submission's SHA-256; report.html holds no
# script and no outside reference, escapes the names, and headless Chromium
# renders it with no console message (skipped, exit 77, without Chromium).
set -u
src=$1 ocr=$2 py=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g=$src/tests/fixtures/kernels_grade c=$tmp/class
mkdir -p "$c/Smith, John_1001_assignsubmission_file_" "$c/Alice Ng_1002_assignsubmission_file_" \
  "$c/bob_1003_assignsubmission_file_" "$c/carol_1004_assignsubmission_file_" \
  "$c/<i>eve&co_1005_assignsubmission_file_" "$c/empty_1006_assignsubmission_file_" \
  "$c/frank_1007_assignsubmission_file_/src" "$c/hank_1008_assignsubmission_file_"
cp "$g/tree.cl" "$c/Smith, John_1001_assignsubmission_file_/smith, john.cl"
cp "$g/tree.cl" "$c/Alice Ng_1002_assignsubmission_file_/reduce.cl"
cp "$g/plus.cl" "$c/bob_1003_assignsubmission_file_/bob.cl"
cp "$src/tests/fixtures/classroom/renamed.cl" "$c/carol_1004_assignsubmission_file_/mine.cl"
cp "$g/drop_one.cl" "$c/<i>eve&co_1005_assignsubmission_file_/k.cl"
echo "see attached" > "$c/empty_1006_assignsubmission_file_/notes.txt"
cp "$g/pairs.cl" "$c/frank_1007_assignsubmission_file_/src/kernel.cl"
printf '// helpers only\nint twice(int x) { return 2 * x; }\n' > "$c/frank_1007_assignsubmission_file_/util.cl"
cp "$g/identity.cl" "$c/gina.cl"
cp "$src/tests/fixtures/classroom/hang_speed.cl" "$c/hank_1008_assignsubmission_file_/k.cl"
find "$c" -type f -exec touch -d 2026-01-01T00:00:00Z {} +
touch -d 2026-03-01T00:00:00Z "$c/bob_1003_assignsubmission_file_/bob.cl" # late
for run in 1 2; do
  OCR=$ocr "$src/classroom/grade_class.sh" "$c" "$tmp/out$run" \
    --settings "$src/tests/fixtures/classroom/settings.conf" --deadline 2026-02-01T00:00:00Z --seed 1 \
    2> "$tmp/progress$run" || { cat "$tmp/progress$run"; echo "FAIL: grade_class.sh exited $?"; exit 1; }
done
cat "$tmp/out1/gradebook.csv"; echo; cat "$tmp/out1/similarity.csv"; echo
cmp "$tmp/out1/gradebook.csv" "$tmp/out2/gradebook.csv" || { echo "FAIL: the second run differs"; exit 1; }
"$py" - "$tmp/out1" "$c" <<'PY' || exit 1
import csv, hashlib, json, os, re, sys
out, cls = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(f"{out}/gradebook.csv", newline="", encoding="utf-8")))
assert rows[0] == ["id", "student", "verdict", "points", "max_points", "late", "reason", "replay"]
assert all(len(r) == 8 for r in rows), [r for r in rows if len(r) != 8]
by = {r[1]: r for r in rows[1:]}
assert set(by) == {"Smith, John", "Alice Ng", "bob", "carol", "<i>eve&co", "empty", "frank",
                   "gina", "hank"}, sorted(by)
ok = ("PASS", "PASS_UNCHECKED")
assert by["Smith, John"][0] == "1001" and by["Smith, John"][2] in ok, by["Smith, John"]
assert by["Alice Ng"][2] in ok and by["carol"][2] in ok and by["frank"][2] in ok
assert by["Smith, John"][3] == "10" and by["Smith, John"][5] == "no"
# plus.cl passes every sum: 0 + 2 (int sum) + 2 (long sum), halved: late
assert by["bob"][2:6] == ["WRONG", "2", "10", "yes"], by["bob"]
assert by["bob"][6].startswith("int prod") and "'" not in by["bob"][7], by["bob"]
assert by["<i>eve&co"][2] == "WRONG" and by["<i>eve&co"][3] == "0"
assert by["empty"][2] == "NO_SUBMISSION" and "no .cl file" in by["empty"][6]
assert by["gina"][2] == "WRONG" and by["gina"][0] == "gina"
assert "'" in by["<i>eve&co"][7], "a path with shell characters is quoted in the replay"
# hank passes the grader and hangs at the speed size: graded, no speed, no hang
assert by["hank"][2] in ok, by["hank"]
speed = {r[0]: r for r in csv.reader(open(f"{out}/speed.csv", newline="", encoding="utf-8"))}
assert speed["hank"][1] == "" and speed["hank"][4] == "0", speed["hank"]
assert float(speed["Smith, John"][1]) > 0 and speed["Smith, John"][4] == "1", speed["Smith, John"]
sims = list(csv.reader(open(f"{out}/similarity.csv", newline="", encoding="utf-8")))
ident = {frozenset(r[:2]) for r in sims[1:] if r[2] == "identical"}
want = {frozenset(p) for p in (("Alice Ng", "Smith, John"), ("Alice Ng", "carol"),
                               ("Smith, John", "carol"))}
assert ident == want, ident
run = json.load(open(f"{out}/run.json"))
assert run["device"] and run["driver"] and run["opencl"] and run["grader_version"], run
subs = {s["student"]: s for s in run["submissions"]}
for name, s in subs.items():
    if s["file"]:
        assert s["sha256"] == hashlib.sha256(open(s["file"], "rb").read()).hexdigest(), name
assert subs["frank"]["file"].endswith("src/kernel.cl"), subs["frank"]
page = open(f"{out}/report.html", encoding="utf-8").read()
assert "<script" not in page.lower() and not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", page)
assert "&lt;i&gt;eve&amp;co" in page and "<i>eve" not in page
for name in by:
    assert os.path.exists(f"{out}/feedback/" + re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
                          + ".txt"), name
fb = open(f"{out}/feedback/bob.txt", encoding="utf-8").read()
assert len(fb.encode()) < 8192 and "First failure: " in fb and "replay: oclReduction" in fb and "Failed checks" not in fb and "(late)" in fb, fb[:400]
print("ok: gradebook, similarity, run record, report page, feedback")
PY
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
  echo "SKIPPED: no chromium-headless-shell or chromium (apt-get install chromium-headless-shell)"
  exit 77
fi
timeout 120 "$browser" --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
  --dump-dom "file://$tmp/out1/report.html" > "$tmp/dom.html" 2> "$tmp/chromium.err"
grep -q "Smith, John" "$tmp/dom.html" && grep -q "<svg" "$tmp/dom.html" ||
  { cat "$tmp/chromium.err"; echo "FAIL: Chromium did not render the page"; exit 1; }
if grep -E ":CONSOLE|Uncaught|net::ERR" "$tmp/chromium.err"; then
  echo "FAIL: console messages while rendering report.html"; exit 1
fi
echo "ok: a class in one command, rendered by $(basename "$browser") with no console message"
