#!/usr/bin/env bash
# grade_class_load_test.sh SRC OCR PYTHON - a class of seven graded by the
# real grader once on an idle machine and once with twice as many busy
# processes as cores: the two gradebooks must be the same bytes and every
# verdict right. The class: a correct kernel (tree.cl), a wrong one
# (drop_one.cl), a racy one (race_mirror.cl), one exact only at the published
# sizes (classroom/load/cheat.cl), one wrong only for uint min/max
# (classroom/load/uint_minmax.cl), a correct kernel saved with a UTF-8 BOM, and
# a correct float vload4 kernel that crashes oclgrind --uninitialized
# (classroom/load/vload4.cl). Kept cheap: 256 elements per group, int, uint
# and float, sum, min and max.
# It needs the grader of issue 36 (drawn sizes: --grade-seed; every type:
# --grade-types; time limits from the reference kernel's time) and oclgrind;
# without them it is skipped (exit 77) and says why. GRADE_LOAD_FORCE=1 runs
# it anyway, idle only (an older grader then fails it: that is the point).
set -u
src=$1 ocr=$2 py=$3
tmp=$(mktemp -d)
busy=""
cleanup() { for p in $busy; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
help=$("$ocr" --help 2>&1)
force=${GRADE_LOAD_FORCE:-0}
if [ "$force" != 1 ]; then
  for opt in --grade-seed --grade-types; do
    case $help in *"$opt"*) ;; *) echo "SKIPPED: this oclReduction has no $opt (the grader of issue 36)"; exit 77;; esac
  done
  command -v oclgrind > /dev/null || { echo "SKIPPED: no oclgrind: races cannot be called RACE"; exit 77; }
fi
g=$src/tests/fixtures/kernels_grade l=$src/tests/fixtures/classroom/load c=$tmp/class
mkdir "$c"
cp "$g/tree.cl" "$c/correct.cl"; cp "$g/drop_one.cl" "$c/wrong.cl"; cp "$g/race_mirror.cl" "$c/race.cl"
cp "$l/cheat.cl" "$c/cheat.cl"; cp "$l/uint_minmax.cl" "$c/uint_only.cl"; cp "$l/vload4.cl" "$c/vload4.cl"
{ printf '\xef\xbb\xbf'; cat "$g/tree.cl"; } > "$c/bom.cl"
grade() { # OUT: the class into OUT, one seed for both gradings
  local narrow=(--types int,uint,float --ops sum,min,max)
  [ "$force" = 1 ] && ! case $help in *--grade-types*) true;; *) false;; esac && narrow=()
  OCR=$ocr "$src/classroom/grade_class.sh" "$c" "$1" --kernel tree_reduce --elems 256 --local 64 \
    --seed 36 --speed-runs 0 "${narrow[@]}" 2> "$1.err" || { cat "$1.err"; echo "FAIL: exit $?"; exit 1; }
  cat "$1/gradebook.csv"
}
grade "$tmp/idle"
if [ "$force" != 1 ]; then
  cores=$(nproc)
  for _ in $(seq $((2 * cores))); do
    (while :; do :; done) &
    busy="$busy $!"
  done
  echo "busy: $((2 * cores)) processes on $cores cores"
  grade "$tmp/busy"
  for p in $busy; do kill "$p"; done
  busy=""
  cmp "$tmp/idle/gradebook.csv" "$tmp/busy/gradebook.csv" ||
    { echo "FAIL: the gradebook under load differs"; exit 1; }
fi
"$py" - "$tmp/idle/gradebook.csv" <<'PY' || exit 1
import csv, sys
want = {"correct": ("PASS",), "wrong": ("WRONG",), "race": ("RACE",), "cheat": ("WRONG",),
        "uint_only": ("WRONG",), "bom": ("PASS",), "vload4": ("PASS", "PASS_UNCHECKED")}
got = {r[1]: r[2] for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]}
bad = {s: (got.get(s), v) for s, v in want.items() if got.get(s) not in v}
assert not bad, f"wrong verdicts (got, want): {bad}"
print("ok: every verdict right")
PY
echo "ok: the same gradebook idle and under load, every verdict right"
