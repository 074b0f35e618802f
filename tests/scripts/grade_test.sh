#!/usr/bin/env bash
# grade_test.sh OCR PYTHON FIXTURE NAME E VERDICT_RE [ARGS...] - grades one
# fixture with --format json and checks: the output is one strict JSON document
# (a case per check and a summary), the summary's verdict matches VERDICT_RE,
# the exit status matches it (0 for PASS and PASS_UNCHECKED, 1 otherwise), and
# no process of the grading is left running (a TIMEOUT must kill and reap its
# child). Only this test's processes count: the grader and everything it
# starts inherit a tag in their environment, so graders of other tests
# running at the same time (ctest -j) on the same fixture are not mistaken
# for ours. GRADE_CHECK, if set, names more checks below that must hold (for
# the fixture it names); GRADE_WITHOUT, if set, names a program the grader
# must not find on PATH (oclgrind: see without.sh).
set -u
ocr=$1 py=$2 fixture=$3 name=$4 e=$5 want=$6; shift 6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tag=grade_test.$$.$RANDOM
hide=()
[ -n "${GRADE_WITHOUT:-}" ] && hide=("$(dirname "$0")/without.sh" "$GRADE_WITHOUT")
OCR_TEST_TAG=$tag ${hide[@]+"${hide[@]}"} "$ocr" --grade --kernel-file "$fixture" \
  --kernel-name "$name" --elems-per-group "$e" "$@" --format json > "$tmp/out.json" 2> "$tmp/err"
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
verdict=$(GRADE_CHECK=${GRADE_CHECK:-} "$py" - "$tmp/out.json" "$tmp/err" <<'PY'
import json, os, sys
def refuse(c): sys.exit(f"not JSON: {c}")
d = json.load(open(sys.argv[1]), parse_constant=refuse)
s = d["summary"]
cases = [c for c in d["cases"] if c["check"] == "value"]
races = [c for c in d["cases"] if c["check"] == "race"]
assert cases and races, "no value or no race checks"
assert s["cases"] == len(cases) + (len(races) if s["race_check"] == "oclgrind" else 0), s
assert len(d["geometries"]) == 2, d["geometries"]
verdicts = ("PASS", "WRONG", "BUILD_ERROR", "OUT_OF_BOUNDS", "CRASH", "TIMEOUT", "RACE",
            "SKIPPED", "NOT_RUN")
for c in d["cases"]:
    assert c["verdict"] in verdicts, c
    if c["verdict"] == "WRONG" and c["check"] == "value":
        assert c["replay"].startswith("oclReduction --kernel-file"), c
        assert c["data"] in ("exact", "one-sided"), c
assert s["verdict"] in verdicts + ("PASS_UNCHECKED",), s
assert (s["verdict"] == "PASS_UNCHECKED") == (s["race_check"] != "oclgrind" and
                                             s["passed"] == s["cases"]), s
def tail(c): # elements in the last group of the first pass
    return c["n"] % c["elems_per_group"]
def mid_tail(): # wrong exactly where a last group holds 3..E-2 elements
    e = cases[0]["elems_per_group"]
    assert all(c["verdict"] == "WRONG" for c in cases if c["n"] == 2 * c["elems_per_group"] + 3)
    assert all(c["verdict"] == "PASS" for c in cases
               if tail(c) in (0, 1, 2, c["elems_per_group"] - 1)
               and c["n"] < c["elems_per_group"] ** 2), "a short or full tail failed"
def hang_large(): # TIMEOUT blamed on the first case past 100000 elements, PASS before
    hung = [c for c in cases if c["verdict"] == "TIMEOUT"]
    assert len(hung) == 1, hung
    h = hung[0]
    assert h["n"] > 100000 and h["detail"].startswith("no answer within"), h
    before = [c for c in cases if c["case"] < h["case"]]
    assert all(c["verdict"] == "PASS" and c["n"] <= 100000 for c in before), before
    assert all(c["verdict"] == "NOT_RUN" for c in cases if c["case"] > h["case"])
def printed(): # the kernel's printf is in the log, never in the report
    err = open(sys.argv[2]).read()
    assert '{"debug": "group 0 of n=' in err and "the kernel printed" in err, err[:300]
    assert '"debug"' not in open(sys.argv[1]).read()
def seed7():
    assert d["seed"] == 7 and all("--seed 7 " in c["replay"] for c in cases)
def fixed64(): # right at the first geometry (64 work-items) only
    assert all(c["verdict"] == "PASS" for c in cases if c["local_size"] == 64)
    assert any(c["verdict"] != "PASS" for c in d["cases"] if c["local_size"] != 64)
checks = {"mid_tail": mid_tail, "hang_large": hang_large, "printed": printed, "seed7": seed7,
          "fixed64": fixed64}
for name in filter(None, os.environ["GRADE_CHECK"].split(",")):
    checks[name]()
print(s["verdict"])
PY
) || { echo "FAIL: invalid report"; head -c 4000 "$tmp/out.json"; cat "$tmp/err"; exit 1; }
fail=0
echo "$verdict" | grep -Eqx "$want" || { echo "FAIL: verdict $verdict, expected /$want/"; fail=1; }
case $verdict in PASS | PASS_UNCHECKED) exp_rc=0 ;; *) exp_rc=1 ;; esac
[ "$rc" = "$exp_rc" ] || { echo "FAIL: exit status $rc, expected $exp_rc"; fail=1; }
left=$(own_left)
if [ -n "$left" ]; then
  echo "FAIL: a grading process is still running:"; echo "$left"; fail=1
fi
[ "$fail" = 0 ] || { head -c 4000 "$tmp/err"; exit 1; }
echo "ok: $(basename "$fixture") graded $verdict"
