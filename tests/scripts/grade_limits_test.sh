#!/usr/bin/env bash
# grade_limits_test.sh OCR PYTHON KG - the limits on every grading child and
# what a student reads when one is hit:
#  - a memory bomb (a 64 MiB private array per work-item) is CRASH under
#    --grade-memory, the limit named; an infinite loop is TIMEOUT, the time
#    limit named; a loop under --grade-cpu is TIMEOUT, the CPU-time limit
#    named; a kernel that prints without end is CRASH, --grade-output named;
#  - after that no child starts for the kernel: every other case is NOT_RUN,
#    counted, with the reason (--grade-profile counts the children: the
#    reference's, the one that died, and for a hang the one that confirmed
#    it);
#  - never two children at once (the grader's children are watched while a
#    narrowed grading with race checks runs);
#  - the feedback (summary.feedback, the text report) stays a few KB for a
#    BUILD_ERROR, a TIMEOUT and a WRONG, and opens with the first failing
#    case, the rule it breaks and its replay.
# The whole test runs under `ulimit -v` 3 GiB: a grader without the memory
# limit cannot take the machine.
set -u
ocr=$1 py=$2 kg=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -v 3145728
fail=0
narrow=(--grade-types int,float --grade-ops sum,prod --elems-per-group 1024 --format json --grade-profile)
grade() { # grade NAME FILE KERNEL [ARGS...]: NAME.json, NAME.err, NAME.rc
  local name=$1 file=$2 kernel=$3; shift 3
  "$ocr" --grade --kernel-file "$kg/$file" --kernel-name "$kernel" "${narrow[@]}" "$@" \
    > "$tmp/$name.json" 2> "$tmp/$name.err"
  echo $? > "$tmp/$name.rc"
}
grade bomb mem_bomb.cl tree_reduce --grade-memory 1024
grade loop infinite_loop.cl tree_reduce --timeout 2
grade cpu infinite_loop.cl tree_reduce --timeout 120 --grade-cpu 3
grade flood flood.cl flood_reduce --grade-output 1
grade syntax syntax.cl tree_reduce
grade zero zero_identity.cl tree_reduce
"$py" - "$tmp" <<'PY' || fail=1
import json, re, sys
tmp = sys.argv[1]
def load(name):
    d = json.load(open(f"{tmp}/{name}.json"))
    err = open(f"{tmp}/{name}.err").read()
    rc = int(open(f"{tmp}/{name}.rc").read())
    m = re.search(r"--grade-profile: .* (\d+) children, one at a time", err)
    assert m, (name, err[-500:])
    return d, int(m.group(1)), rc
def limit(name, verdict, words, children):
    d, kids, rc = load(name)
    s = d["summary"]
    assert rc == 1 and s["verdict"] == verdict, (name, rc, s)
    bad = [c for c in d["cases"] if c["verdict"] == verdict]
    assert len(bad) == 1 and words in bad[0]["detail"], (name, bad)
    rest = [c for c in d["cases"] if c is not bad[0]]
    assert rest and all(c["verdict"] == "NOT_RUN" and c["detail"].startswith("not run: case ")
                        for c in rest), (name, [c for c in rest if c["verdict"] != "NOT_RUN"])
    assert s["not_run"] == len(rest) and "the grader starts no more runs" in s["not_run_why"], s
    assert kids <= children, (name, kids, children)
limit("bomb", "CRASH", "1024 MiB of address space, --grade-memory", 2)
limit("loop", "TIMEOUT", "no answer within 2 s, nor within 4 s when run again", 3)
limit("cpu", "TIMEOUT", "more than 3 s of CPU time (--grade-cpu)", 2)
limit("flood", "CRASH", "printed more than 1 MiB (--grade-output)", 2)
for name, verdict in (("syntax", "BUILD_ERROR"), ("loop", "TIMEOUT"), ("zero", "WRONG")):
    d, _, _ = load(name)
    s, fb = d["summary"], d["summary"]["feedback"]
    assert s["verdict"] == verdict, (name, s["verdict"])
    assert len(fb.encode()) <= 4096, (name, len(fb))
    lines = fb.splitlines()
    assert lines[0] == "First failure: " + s["first_failure"], (name, lines[:2])
    assert any(l.startswith("  rule: ") for l in lines), (name, fb)
    first = next(c for c in d["cases"] if s["first_failure"].endswith(": " + c["verdict"]))
    assert any(l == "  replay: " + first["replay"] for l in lines), (name, fb)
    others = sum(c["verdict"] not in ("PASS", "SKIPPED") for c in d["cases"]) - 1
    assert f"and {others} more cases not passed" in fb, (name, others, fb)
PY
# The text report of a BUILD_ERROR and a TIMEOUT over the whole matrix: a few KB.
for f in syntax.cl infinite_loop.cl; do
  "$ocr" --grade --kernel-file "$kg/$f" --kernel-name tree_reduce --elems-per-group 1024 --timeout 2 \
    > "$tmp/text.txt" 2> /dev/null
  size=$(wc -c < "$tmp/text.txt")
  [ "$size" -le 6144 ] || { echo "FAIL: $f: the text report is $size bytes"; fail=1; }
  grep -q "^First failure: int sum n=1 (64 x 1024): " "$tmp/text.txt" || { echo "FAIL: $f: no first failure"; fail=1; }
done
# Never two children at once: the grader's children, watched while it grades.
"$ocr" --grade --kernel-file "$kg/tree.cl" --kernel-name tree_reduce --elems-per-group 1024 \
  --grade-types int --grade-ops sum,min > /dev/null 2>&1 &
pid=$! most=0
while kill -0 $pid 2>/dev/null; do
  n=0
  for s in /proc/[0-9]*/stat; do
    { read -r _ _ state ppid _ < "$s"; } 2>/dev/null || continue
    [ "$ppid" = "$pid" ] && [ "$state" != Z ] && n=$((n + 1))
  done
  [ $n -gt $most ] && most=$n
  sleep 0.05
done
wait $pid
[ $most -le 1 ] || { echo "FAIL: $most grading children at once"; fail=1; }
[ $fail = 0 ] && echo "PASS: limits named, no child after one died, one at a time, feedback a few KB"
exit $fail
