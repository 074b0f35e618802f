#!/usr/bin/env bash
# grade_test.sh OCR PYTHON FIXTURE NAME E VERDICT_RE [ARGS...] - grades one
# fixture with --format json and checks: the output is one strict JSON document
# (a case per check and a summary), the summary's verdict matches VERDICT_RE,
# the exit status matches it (0 for PASS, 1 otherwise), and no process of the
# grading is left running (a TIMEOUT must kill and reap its child). Only this
# test's processes count: the grader and everything it starts inherit a tag
# in their environment, so graders of other tests running at the same time
# (ctest -j) on the same fixture are not mistaken for ours.
set -u
ocr=$1 py=$2 fixture=$3 name=$4 e=$5 want=$6; shift 6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tag=grade_test.$$.$RANDOM
OCR_TEST_TAG=$tag "$ocr" --grade --kernel-file "$fixture" --kernel-name "$name" --elems-per-group "$e" "$@" \
  --format json > "$tmp/out.json" 2> "$tmp/err"
rc=$?
# own_left: this test's grading processes still alive (not zombies), with their command lines.
own_left() {
  local f p
  for f in /proc/[0-9]*/environ; do
    p=${f#/proc/}; p=${p%/environ}
    grep -qzx "OCR_TEST_TAG=$tag" "$f" 2>/dev/null || continue
    [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
    echo "$p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"
  done
}
verdict=$("$py" - "$tmp/out.json" <<'PY'
import json, sys
def refuse(c): sys.exit(f"not JSON: {c}")
d = json.load(open(sys.argv[1]), parse_constant=refuse)
s = d["summary"]
assert len(d["cases"]) == 66 and s["cases"] in (63, 66), (len(d["cases"]), s["cases"])
for c in d["cases"]:
    assert c["verdict"] in ("PASS", "WRONG", "BUILD_ERROR", "CRASH", "TIMEOUT", "RACE",
                            "SKIPPED", "NOT_RUN"), c
    if c["verdict"] == "WRONG":
        assert c["replay"].startswith("oclReduction --kernel-file"), c
print(s["verdict"])
PY
) || { echo "FAIL: invalid report"; cat "$tmp/out.json" "$tmp/err"; exit 1; }
fail=0
echo "$verdict" | grep -Eqx "$want" || { echo "FAIL: verdict $verdict, expected /$want/"; fail=1; }
[ "$verdict" = PASS ] && exp_rc=0 || exp_rc=1
[ "$rc" = "$exp_rc" ] || { echo "FAIL: exit status $rc, expected $exp_rc"; fail=1; }
left=$(own_left)
if [ -n "$left" ]; then
  echo "FAIL: a grading process is still running:"; echo "$left"; fail=1
fi
[ "$fail" = 0 ] || { cat "$tmp/err"; exit 1; }
echo "ok: $(basename "$fixture") graded $verdict"
