#!/usr/bin/env bash
# grade_formats_test.sh OCR PYTHON FIXTURE NAME E VERDICT_RE [ARGS...] - grades
# one fixture three times, as text, JSON and CSV, and checks that each report
# can be read as what it says it is (JSON strictly; CSV by Python's csv
# module: one header, a row per case of the JSON report with as many fields,
# and the summary row of eleven), that all three give the same verdict
# and that it matches VERDICT_RE, and that nothing the kernel printed is in
# any of them. GRADE_WITHOUT, if set, names a program the grader must not
# find on PATH (see without.sh). One grade seed for the three: one matrix.
set -u
ocr=$1 py=$2 fixture=$3 name=$4 e=$5 want=$6; shift 6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hide=()
[ -n "${GRADE_WITHOUT:-}" ] && hide=("$(dirname "$0")/without.sh" "$GRADE_WITHOUT")
for f in text json csv; do
  ${hide[@]+"${hide[@]}"} "$ocr" --grade --kernel-file "$fixture" --kernel-name "$name" \
    --elems-per-group "$e" --grade-seed 11 "$@" --format "$f" > "$tmp/out.$f" 2> "$tmp/err.$f"
  echo $? > "$tmp/rc.$f"
done
"$py" - "$tmp" "$want" <<'PY' || exit 1
import csv, json, re, sys
tmp, want = sys.argv[1], sys.argv[2]
def refuse(c): sys.exit(f"FAIL: not JSON: {c}")
read = lambda f: open(f"{tmp}/{f}", newline="").read()
d = json.loads(read("out.json"), parse_constant=refuse)
rows = list(csv.reader(open(f"{tmp}/out.csv", newline="")))
assert rows[0][:6] == ["case", "check", "type", "op", "n", "verdict"], rows[0]
assert len(rows) == len(d["cases"]) + 2 and rows[-1][0] == "summary", (len(rows), len(d["cases"]))
assert all(len(r) == len(rows[0]) for r in rows[:-1]), [r for r in rows if len(r) != len(rows[0])]
# summary,,,,,verdict,passed/checks,ratio,first failure,checker failures,grade seed
assert len(rows[-1]) == 11, rows[-1]
assert (int(rows[-1][9]), int(rows[-1][10])) == (d["summary"]["checker_failures"],
                                                 d["grade_seed"]), (rows[-1], d["summary"])
for r, c in zip(rows[1:-1], d["cases"]):
    assert (int(r[0]), r[1], r[5]) == (c["case"], c["check"], c["verdict"]), (r, c)
m = re.search(r"^Grade: (\S+) \(", read("out.text"), re.M)
assert m, "no Grade line in the text report"
verdicts = {"text": m.group(1), "json": d["summary"]["verdict"], "csv": rows[-1][5]}
assert len(set(verdicts.values())) == 1, verdicts
assert re.fullmatch(want, verdicts["json"]), (verdicts, want)
rc = {f: int(read(f"rc.{f}")) for f in ("text", "json", "csv")}
assert set(rc.values()) == {0 if verdicts["json"] in ("PASS", "PASS_UNCHECKED") else 1}, rc
for f in ("text", "json", "csv"): # the kernel's first line, if it printed any
    m = re.search(r"the kernel printed \d+ bytes .*?follow\n(.*)\n", read(f"err.{f}"))
    if m:
        assert m.group(1) not in read(f"out.{f}"), (f, m.group(1))
print(f"ok: {verdicts['json']} in text, JSON and CSV")
PY
