#!/usr/bin/env bash
# grade_load_test.sh OCR PYTHON KG - a correct kernel many times slower than
# reduce6 (slow.cl) graded with --timeout 1, once as the machine is and once
# with twice as many busy processes as cores: the same verdict for every
# case, PASS (or PASS_UNCHECKED), never a TIMEOUT. The limits come from
# reduce6's pace on this machine at the time (a multiple of it), and a
# time-out is confirmed by a second run, so the load cannot decide a grade.
set -u
ocr=$1 py=$2 kg=$3
tmp=$(mktemp -d)
busy=()
cleanup() {
  local p
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
grade() {
  "$ocr" --grade --kernel-file "$kg/slow.cl" --kernel-name tree_reduce --elems-per-group 1024 \
    --timeout 1 --grade-seed 3 --grade-types int --grade-ops sum --format json > "$tmp/$1.json" \
    2> "$tmp/$1.err"
  echo $? > "$tmp/$1.rc"
}
grade idle
cores=$(nproc)
for _ in $(seq $((2 * cores))); do
  yes > /dev/null &
  busy+=($!)
done
grade loaded
for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
busy=()
"$py" - "$tmp" <<'PY' || { cat "$tmp"/*.err; exit 1; }
import json, sys
runs = {}
for name in ("idle", "loaded"):
    d = json.load(open(f"{sys.argv[1]}/{name}.json"))
    rc = int(open(f"{sys.argv[1]}/{name}.rc").read())
    s = d["summary"]
    assert s["verdict"] in ("PASS", "PASS_UNCHECKED") and rc == 0, (name, rc, s)
    assert not [c for c in d["cases"] if c["verdict"] == "TIMEOUT"], name
    runs[name] = [(c["check"], c["type"], c["n"], c["local_size"], c["verdict"]) for c in d["cases"]]
assert runs["idle"] == runs["loaded"], (runs["idle"], runs["loaded"])
print(f"ok: slow.cl graded {s['verdict']} idle and loaded, {len(runs['idle'])} cases alike")
PY
