#!/usr/bin/env bash
# grade_class_hostile_test.sh SRC PYTHON - classroom/grade_class.sh against what
# an LMS, a student or a slip of the teacher's can put in its way, with the
# stand-in grader (tests/fixtures/classroom/stand_in_grader.py: only the
# class tool's own handling is under test):
#  - names that a spreadsheet would run as formulas ("=2+3, Eve", "@cmd",
#    "+1", "-1") reach gradebook.csv, similarity.csv and speed.csv with a
#    leading ' (and report.html unchanged);
#  - a link (file, folder, or a file in a folder) that leaves the class folder
#    is not read: NO_SUBMISSION with the reason, the target's bytes and hash
#    nowhere in the output; a FIFO is refused, never waited on; a path with a
#    line break is refused with a message;
#  - the output folder equal to or inside the class folder, or locked by
#    another grade_class, or unwritable: exit 2 with a message;
#  - settings and rubrics that are not UTF-8, huge, /dev/zero, or hold absurd
#    values: exit 2 naming the file (and line), never a Python traceback; a
#    geometry the grader refuses (more than the device's memory): exit 2
#    with the grader's message, not a gradebook of ERROR rows;
#  - without OCR and with no oclReduction on PATH, the checkout's own
#    build/oclReduction is found; without it the message names OCR.
set -u
src=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stand=$src/tests/fixtures/classroom/stand_in_grader.py tree=$src/tests/fixtures/kernels_grade/tree.cl
gc() { OCR=$stand timeout 120 "$src/classroom/grade_class.sh" "$@" --kernel tree_reduce --speed-runs 1; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
c=$tmp/class
mkdir -p "$c/=2+3, Eve_1009_assignsubmission_file_" "$c/@cmd_1010_assignsubmission_file_" \
  "$c/linkfile_1011_assignsubmission_file_" "$c/fifo_1013_assignsubmission_file_" \
  "$c/$(printf 'new\nline')_1014_assignsubmission_file_" "$tmp/outside/dir"
cp "$tree" "$c/=2+3, Eve_1009_assignsubmission_file_/k.cl"
cp "$tree" "$c/@cmd_1010_assignsubmission_file_/k.cl"
cp "$tree" "$c/+1.cl"; cp "$tree" "$c/-1.cl"
printf '// the teacher solution SECRET_TOKEN\n' > "$tmp/outside/solution.cl"
cat "$tree" >> "$tmp/outside/solution.cl"
cp "$tmp/outside/solution.cl" "$tmp/outside/dir/k.cl"
ln -s "$tmp/outside/solution.cl" "$c/linkfile_1011_assignsubmission_file_/k.cl"
ln -s "$tmp/outside/dir" "$c/linkdir_1012_assignsubmission_file_"
ln -s "$tmp/outside/solution.cl" "$c/toplink.cl"
mkfifo "$c/fifo_1013_assignsubmission_file_/k.cl" "$c/fifo.cl"
cp "$tree" "$c/$(printf 'new\nline')_1014_assignsubmission_file_/k.cl"
gc "$c" "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 0 ] || { cat "$tmp/err"; bad "grading the class exited $rc (124: it hung)"; }
"$py" - "$tmp/out" "$(sha256sum "$tmp/outside/solution.cl" | cut -d' ' -f1)" <<'PY' || fail=1
import csv, glob, sys
out, secret = sys.argv[1], sys.argv[2]
read = lambda f: list(csv.reader(open(f"{out}/{f}", newline="", encoding="utf-8")))
book, sims, speed = read("gradebook.csv"), read("similarity.csv"), read("speed.csv")
for name, rows in (("gradebook", book), ("similarity", sims), ("speed", speed)):
    for r in rows:
        for x in r:
            assert not x.startswith(("=", "+", "-", "@", "\t", "\r")), (name, r)
    flat = [x for r in rows for x in r]
    for want in ("'=2+3, Eve", "'@cmd", "'+1", "'-1"):
        assert want in flat, (name, want, rows)
by = {r[1]: r for r in book[1:]}
for s in ("linkfile", "linkdir", "toplink"):
    assert by[s][2] == "NO_SUBMISSION" and "leaves the class folder" in by[s][6], by[s]
fifos = [r for r in book[1:] if r[1] == "fifo"]
assert len(fifos) == 2 and all(r[2] == "NO_SUBMISSION" and "not a regular file" in r[6]
                               for r in fifos), fifos
nl = [r for r in book[1:] if r[1].startswith("new")]
assert len(nl) == 1 and nl[0][2] == "NO_SUBMISSION" and "line break" in nl[0][6], nl
for f in glob.glob(f"{out}/**/*", recursive=True) + [f"{out}/run.json"]:
    if f.endswith((".txt", ".log", ".json", ".csv", ".html")):
        t = open(f, encoding="utf-8").read()
        assert secret not in t and "SECRET_TOKEN" not in t, f
page = open(f"{out}/report.html", encoding="utf-8").read()
assert "=2+3, Eve" in page and "'=2+3" not in page, "report.html shows the name as it is"
print("ok: formulas neutralised; links out, FIFOs and line breaks not read")
PY
expect2() { # WANT_RE CMD...: exit 2, WANT_RE on stderr, no traceback
  local want=$1; shift
  "$@" > /dev/null 2> "$tmp/err"; local rc=$?
  if [ "$rc" != 2 ] || ! grep -Eq "$want" "$tmp/err" || grep -q Traceback "$tmp/err"; then
    bad "$* -> exit $rc: $(cat "$tmp/err")"
  else
    echo "ok   $(tail -1 "$tmp/err")"
  fi
}
k=$tmp/k
mkdir "$k"; cp "$tree" "$k/a.cl"
expect2 "is the class folder .* or inside it" gc "$k" "$k"
expect2 "is the class folder .* or inside it" gc "$k" "$k/grades"
[ ! -e "$k/grades" ] || bad "an output folder was made inside the class"
mkdir "$tmp/locked"
expect2 "being written by another grade_class" \
  flock "$tmp/locked/.grade_class.lock" env OCR="$stand" "$src/classroom/grade_class.sh" "$k" "$tmp/locked"
: > "$tmp/afile"
expect2 "cannot write the output folder" gc "$k" "$tmp/afile/out"
printf 'kernel = tree_reduce\nelems = \xff\xfe\n' > "$tmp/s1"
expect2 "s1:2: the settings file is not UTF-8" gc "$k" "$tmp/o" --settings "$tmp/s1"
head -c 2000000 /dev/zero | tr '\0' '#' > "$tmp/s2"
expect2 "s2: the settings file is larger than" gc "$k" "$tmp/o" --settings "$tmp/s2"
expect2 "/dev/zero: the rubric is not a regular file" gc "$k" "$tmp/o" --rubric /dev/zero
mkfifo "$tmp/fifo"
expect2 "fifo: the settings file is not a regular file" gc "$k" "$tmp/o" --settings "$tmp/fifo"
printf '# geometry\nelems = 99999999999\n' > "$tmp/s3"
expect2 "s3:2: elems is from 1 to" gc "$k" "$tmp/o" --settings "$tmp/s3"
printf 'local = -4\n' > "$tmp/s4"
expect2 "s4:1: local is from 1 to" gc "$k" "$tmp/o" --settings "$tmp/s4"
expect2 "elems is from 1 to" gc "$k" "$tmp/o" --elems 0
expect2 "the grader refused the class's settings: oclReduction: --grade: 1048576 elements" \
  gc "$k" "$tmp/o7" --elems 1048576
[ ! -e "$tmp/o7/gradebook.csv" ] || bad "a gradebook of ERROR rows for settings the grader refused"
printf 'max_points 1e300\n' > "$tmp/r1"
expect2 "r1:1: '1e300' is not a number of points" gc "$k" "$tmp/o" --rubric "$tmp/r1"
printf 'max_points 10\n\x00\n' > "$tmp/r2"
expect2 "r2:2: the rubric holds a NUL byte" gc "$k" "$tmp/o" --rubric "$tmp/r2"
# The checkout's own build tree, when OCR is unset and PATH has no oclReduction.
co=$tmp/checkout
mkdir -p "$co/classroom" "$co/build"
cp "$src"/classroom/grade_class*.py "$src/classroom/grade_class.sh" "$co/classroom/"
ln -s "$stand" "$co/build/oclReduction"
path=$(dirname "$(command -v "$py")"):/usr/bin:/bin
env -u OCR PATH="$path" PYTHON="$py" "$co/classroom/grade_class.sh" "$k" "$tmp/o5" --kernel tree_reduce \
  --speed-runs 0 2> "$tmp/err" || bad "the checkout's build/oclReduction was not found: $(cat "$tmp/err")"
grep -q "$co/build/oclReduction" "$tmp/o5/run.json" || bad "run.json does not name the build's grader"
rm "$co/build/oclReduction"
env -u OCR PATH="$path" PYTHON="$py" "$co/classroom/grade_class.sh" "$k" "$tmp/o6" 2> "$tmp/err"
rc=$?
{ [ "$rc" = 3 ] && grep -q "OCR=" "$tmp/err" && ! grep -q Traceback "$tmp/err"; } ||
  bad "no grader: exit $rc: $(cat "$tmp/err")"
[ "$fail" = 0 ] && echo "ok: hostile names, links, folders and files"
exit "$fail"
