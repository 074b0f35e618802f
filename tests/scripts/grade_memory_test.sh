#!/usr/bin/env bash
# grade_memory_test.sh OCR PYTHON KG - a memory bomb (a 64 MiB private array
# per work-item, which grew each grader child past 10 GB) dies fast under
# --grade-memory: CRASH, the limit named in the detail, in seconds; a correct
# kernel still passes under the same small limit; --grade-memory outside
# --grade is a usage error. The whole test runs under `ulimit -v` 3 GiB, so
# that a grader without the limit cannot take the machine (it then fails
# here: no option, or no limit named).
set -u
ocr=$1 py=$2 kg=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -v 3145728
fail=0
narrow=(--grade-types int --grade-ops sum --elems-per-group 1024 --kernel-name tree_reduce --format json)
"$ocr" --grade --grade-memory 1024 --kernel-file "$kg/mem_bomb.cl" "${narrow[@]}" > "$tmp/bomb.json" 2> "$tmp/bomb.err"
rc=$?
[ $rc = 1 ] || { echo "FAIL: the bomb: exit $rc, not 1: $(tail -c 300 "$tmp/bomb.err")"; fail=1; }
"$py" - "$tmp/bomb.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["verdict"] == "CRASH", s
crash = next(c for c in d["cases"] if c["verdict"] == "CRASH")
assert "1024 MiB of address space, --grade-memory" in crash["detail"], crash["detail"]
assert not any(c["verdict"] == "RACE" for c in d["cases"]), "a checker's death is no RACE"
PY
"$ocr" --grade --grade-memory 1024 --kernel-file "$kg/tree.cl" "${narrow[@]}" > "$tmp/tree.json" 2> "$tmp/tree.err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: tree.cl under 1024 MiB: exit $rc: $(tail -c 300 "$tmp/tree.err")"; fail=1; }
"$py" -c 'import json, sys; v = json.load(open(sys.argv[1]))["summary"]["verdict"]; assert v in ("PASS", "PASS_UNCHECKED"), v' \
  "$tmp/tree.json" || fail=1
"$ocr" --grade-memory 100 -s 1000 > /dev/null 2> "$tmp/usage.err"
rc=$?
[ $rc = 2 ] && grep -q "grade-memory" "$tmp/usage.err" || { echo "FAIL: --grade-memory without --grade: exit $rc"; fail=1; }
[ $fail = 0 ] && echo "PASS: the memory bomb dies under --grade-memory, the limit named"
exit $fail
