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
verdict=$(GRADE_CHECK=${GRADE_CHECK:-} GRADE_DETAIL=${GRADE_DETAIL:-} "$py" - "$tmp/out.json" "$tmp/err" "$ocr" <<'PY'
import json, os, re, shlex, subprocess, sys
def refuse(c): sys.exit(f"not JSON: {c}")
d = json.load(open(sys.argv[1]), parse_constant=refuse)
s = d["summary"]
cases = [c for c in d["cases"] if c["check"] == "value"]
races = [c for c in d["cases"] if c["check"] == "race"]
assert cases and races, "no value or no race checks"
skipped = s["race_check"].startswith("skipped")
graded = [c for c in cases if c["verdict"] != "SKIPPED"] # SKIPPED: double without fp64
assert s["cases"] == len(graded) + (0 if skipped else len(races) - s["checker_failures"]), s
assert s["checker_failures"] == sum(c["checker_failed"] for c in races), s
assert s["wrong_values"] == sum(c["verdict"] == "WRONG" for c in cases), s
for c in d["cases"]: # a tool's failure is never the student's
    assert c["checker_failed"] == (c["check"] == "race" and c["verdict"] == "SKIPPED" and
                                   c["detail"].startswith("not checked: the checker failed (")), c
assert len(d["geometries"]) == 2, d["geometries"]
verdicts = ("PASS", "WRONG", "BUILD_ERROR", "OUT_OF_BOUNDS", "CRASH", "TIMEOUT", "RACE",
            "UNINITIALIZED", "SKIPPED", "NOT_RUN")
for c in d["cases"]:
    assert c["verdict"] in verdicts, c
    if c["verdict"] == "WRONG" and c["check"] == "value":
        assert c["replay"].startswith("oclReduction --kernel-file"), c
        assert c["data"] in ("exact", "one-sided"), c
assert s["verdict"] in verdicts + ("PASS_UNCHECKED",), s
assert (s["verdict"] == "PASS_UNCHECKED") == (s["race_check"] != "oclgrind" and
                                             s["passed"] == s["cases"]), s
def mid(c): # a last group of 3..E-2 elements in some pass on the device (the grader's
    e, n = c["elems_per_group"], c["n"] # plan: one pass, then more while over M = E values)
    while True:
        if 3 <= (n % e or e) <= e - 2:
            return True
        n = -(-n // e)
        if n <= e:
            return False
def first_failure():
    return next(c for c in d["cases"] if s["first_failure"].startswith(
        ("race check " if c["check"] == "race" else "") +
        f'{c["type"]} {"" if c["check"] == "race" else c["op"] + " "}n={c["n"]} '
        f'({c["local_size"]} x {c["elems_per_group"]}): {c["verdict"]}'))
def mid_tail(): # wrong only where a last group holds 3..E-2 elements
    assert all(c["verdict"] == "PASS" for c in cases if not mid(c)), "wrong without a mid tail"
    assert all(c["verdict"] == "WRONG" for c in cases
               if c["type"] == "int" and c["op"] == "sum" and mid(c)), "a mid tail passed"
    assert mid(first_failure()), s
    if s["race_check"] == "oclgrind": # 2E+3: a last group of 3; the run's own check counts
        assert all(c["verdict"] == "WRONG" for c in races), races
def hang_large(): # TIMEOUT blamed on the first case past 100000 elements, PASS before
    hung = [c for c in cases if c["verdict"] == "TIMEOUT"]
    assert len(hung) == 1, hung
    h = hung[0]
    assert h["n"] > 100000 and h["detail"].startswith("no answer within"), h
    assert first_failure() is h, s
    before = [c for c in cases if c["case"] < h["case"]]
    assert all(c["verdict"] == "PASS" and c["n"] <= 100000 for c in before), before
    assert all(c["verdict"] == "NOT_RUN" for c in cases if c["case"] > h["case"])
def printed(): # what the kernel printed is in the log (capped), never in the report
    err = open(sys.argv[2]).read()
    m = re.search(r"the kernel printed (\d+) bytes \(kept out of the report\); "
                  r"the first (\d+) follow\n(.*)\n", err)
    assert m and int(m.group(1)) > 0, err[:300]
    assert m.group(3) not in open(sys.argv[1]).read(), m.group(3)
    if int(m.group(1)) > 65536: # more than the cap: the log keeps the cap's worth
        assert int(m.group(2)) == 65536 and len(err) < 65536 + 4096, (m.group(0), len(err))
def seed7():
    assert d["seed"] == 7 and all("--seed 7 " in c["replay"] for c in cases)
def replay(): # the replay of the first wrong case of each data set gives its values
    firsts = [next((c for c in cases if c["verdict"] == "WRONG" and c["data"] == kind), None)
              for kind in ("exact", "one-sided")]
    assert any(firsts), "no WRONG case to replay"
    for c in filter(None, firsts):
        argv = shlex.split(c["replay"])
        out = subprocess.run([sys.argv[3]] + argv[1:], capture_output=True, text=True).stdout
        line = (r"^Result: (\S+) \(reference ([^,)]+)" if c["data"] == "exact" else
                r"^Second data set: one-sided, seed \d+: (\S+) \(reference ([^,)]+)")
        m = re.search(line, out, re.M)
        assert m and (m.group(1), m.group(2)) == (c["result"], c["expected"]), (c, out)
def fixed64(): # right at the first geometry (64 work-items) only
    assert all(c["verdict"] == "PASS" for c in cases if c["local_size"] == 64)
    assert any(c["verdict"] != "PASS" for c in d["cases"] if c["local_size"] != 64)
def all_wrong(): # every value case, every type and operator, at every size
    assert all(c["verdict"] == "WRONG" for c in cases), [c for c in cases if c["verdict"] != "WRONG"]
def all_build_error(): # every row: value and race checks
    assert all(c["verdict"] == "BUILD_ERROR" for c in d["cases"])
    assert all(c["detail"] for c in d["cases"])
def all_out_of_bounds(): # found by the guard, the same way in every case
    assert all(c["verdict"] == "OUT_OF_BOUNDS" and "guard" in c["detail"] for c in cases)
def checker_failed(): # every race check not checked, the checker's signal said
    assert all(c["checker_failed"] and c["detail"].startswith(
        "not checked: the checker failed (signal 11)") for c in races), races
    assert s["race_check"].startswith("not checked: the checker failed (signal 11) in "), s
    assert "CRASH" not in [c["verdict"] for c in d["cases"]], s
def without_uninitialized(): # checked again without the option that failed
    assert all(c["verdict"] != "SKIPPED" and not c["checker_failed"] and
               "--uninitialized failed (signal 11); checked without --uninitialized" in c["detail"]
               and "--uninitialized" not in c["replay"] for c in races), races
    assert s["race_check"] == "oclgrind", s
def published(c): # the sizes docs/labs/grading.md names: every size but the drawn ones
    geo = next(g for g in d["geometries"] if g["local_size"] == c["local_size"])
    return c["n"] not in geo["drawn_sizes"]
def drawn_only(): # wrong exactly where no document says a size
    assert all(c["verdict"] == "PASS" for c in cases if published(c)), "wrong at a published size"
    assert any(c["verdict"] == "WRONG" for c in cases if not published(c)), "the cheat passed"
def uint_minmax(): # wrong only for uint min and max, and there at some size each
    bad = {(c["type"], c["op"]) for c in cases if c["verdict"] != "PASS"}
    assert bad == {("uint", "min"), ("uint", "max")}, bad
def regrade(): # the grade seed repeats the matrix: its sizes and the verdicts
    assert f'--grade-seed {d["grade_seed"]} ' in d["regrade"] + " ", d["regrade"]
    argv = shlex.split(d["regrade"])
    out = subprocess.run([sys.argv[3]] + argv[1:] + ["--grade-types", "int", "--grade-ops",
                         "sum", "--format", "json"], capture_output=True, text=True).stdout
    again = json.loads(out)
    assert [g["drawn_sizes"] for g in again["geometries"]] == \
        [g["drawn_sizes"] for g in d["geometries"]], (again["geometries"], d["geometries"])
    pick = lambda doc: [(c["n"], c["local_size"], c["verdict"]) for c in doc["cases"]
                        if c["check"] == "value" and (c["type"], c["op"]) == ("int", "sum")]
    assert pick(again) == pick(d), (pick(again), pick(d))
    assert {(p["type"], p["op"]) for p in again["not_graded"]} >= {("uint", "sum")}, again
def race_replay(): # the RACE replay runs the race check and says RACE: exit 1
    c = next(c for c in races if c["verdict"] == "RACE")
    argv = shlex.split(c["replay"])
    assert argv[:2] == ["oclReduction", "--race-check"], c["replay"]
    p = subprocess.run([sys.argv[3]] + argv[1:], capture_output=True, text=True)
    assert p.returncode == 1 and "Race check: RACE" in p.stdout, (p.returncode, p.stdout[-300:])
def race_and_wrong(): # RACE, and the wrong values said too
    assert s["verdict"] == "RACE" and s["wrong_values"] > 0, s
    assert "the values are also wrong: " in first_failure()["detail"], first_failure()
checks = {"race_replay": race_replay, "race_and_wrong": race_and_wrong, "drawn_only": drawn_only, "uint_minmax": uint_minmax, "regrade": regrade,
          "checker_failed": checker_failed, "without_uninitialized": without_uninitialized,
          "mid_tail": mid_tail, "hang_large": hang_large, "printed": printed, "seed7": seed7,
          "replay": replay, "fixed64": fixed64, "all_wrong": all_wrong,
          "all_build_error": all_build_error, "all_out_of_bounds": all_out_of_bounds}
if os.environ.get("GRADE_DETAIL"): # the first failure's detail says why, in words
    assert re.search(os.environ["GRADE_DETAIL"], first_failure()["detail"]), first_failure()
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
