#!/usr/bin/env bash
# grade_class_build_options_test.sh SRC OCR PYTHON - class.conf's
# build_options reach every student's build, with the real grader on a
# narrowed matrix (int sum): tests/fixtures/classroom/needs_chunk.cl builds
# only with -DCHUNK=N; with build_options = -DCHUNK=4 it is PASS (or
# PASS_UNCHECKED without oclgrind) and timed (the speed run builds it with
# the same options), and its regrade command carries them; without them it
# is BUILD_ERROR naming CHUNK. Options the grader refuses as it refuses its
# own --build-options (-D of an OpenCL C name, of a name the library sets)
# stop the grading at once with exit 2 and the grader's reason, no gradebook.
# (POCL here has no work-group collective functions, so a -cl-std=CL2.0
# work_group_reduce kernel is not graded in this test.)
set -u
src=$1 ocr=$2 py=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/c"
cp "$src/tests/fixtures/classroom/needs_chunk.cl" "$tmp/c/ann.cl"
cp "$src/tests/fixtures/classroom/needs_chunk.cl" "$tmp/c/bob.cl"
base='kernel = chunk_reduce\ntypes = int\nops = sum\ntimeout = 10\nspeed_size = 65536\n'
fail=0
printf "${base}speed_runs = 1\nbuild_options = -DCHUNK=4\n" > "$tmp/with"
printf "${base}speed_runs = 0\n" > "$tmp/without"
OCR=$ocr timeout 300 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o1" --settings "$tmp/with" \
  2> "$tmp/err1" || { cat "$tmp/err1"; echo "FAIL: exit $?"; exit 1; }
OCR=$ocr timeout 300 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o2" --settings "$tmp/without" \
  2> "$tmp/err2" || { cat "$tmp/err2"; echo "FAIL: exit $?"; exit 1; }
cat "$tmp/o1/gradebook.csv" "$tmp/o2/gradebook.csv"
"$py" - "$tmp" <<'PY' || fail=1
import csv, json, sys
tmp = sys.argv[1]
def book(o):
    return {r[1]: r for r in list(csv.reader(open(f"{tmp}/{o}/gradebook.csv", newline="")))[1:]}
w, wo = book("o1"), book("o2")
for n in ("ann", "bob"):
    assert w[n][2] in ("PASS", "PASS_UNCHECKED"), w[n]
    assert wo[n][2] == "BUILD_ERROR" and "CHUNK" in open(f"{tmp}/o2/feedback/{n}.txt").read(), wo[n]
run = json.load(open(f"{tmp}/o1/run.json"))
assert all("--build-options -DCHUNK=4" in s["regrade"] for s in run["submissions"]), run["submissions"]
assert run["settings"]["build_options"] == "-DCHUNK=4"
speed = {r[0]: r for r in csv.reader(open(f"{tmp}/o1/speed.csv", newline=""))}
assert speed["ann"][1] and float(speed["ann"][1]) > 0, speed["ann"]
print("ok: build_options reach the grade and the speed run")
PY
for bad in "-DCLK_LOCAL_MEM_FENCE=0" "-DLOCAL_SIZE=32" "-UINFINITY"; do
  printf "${base}speed_runs = 0\nbuild_options = %s\n" "$bad" > "$tmp/bad"
  OCR=$ocr timeout 120 "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o3" --settings "$tmp/bad" 2> "$tmp/err3"
  rc=$?
  if [ "$rc" != 2 ] || ! grep -q "refused the class's settings: oclReduction: build options" "$tmp/err3" ||
     [ -e "$tmp/o3/gradebook.csv" ]; then
    echo "FAIL: build_options = $bad: exit $rc: $(cat "$tmp/err3")"; fail=1
  else
    echo "ok   $bad: $(tail -1 "$tmp/err3")"
  fi
done
[ "$fail" = 0 ] && echo "ok: build_options passed on, and checked by the grader"
exit "$fail"
