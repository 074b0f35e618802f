#!/usr/bin/env bash
# accurate.sh [-b BUILD] [-s SIZE] [-t TYPE] [-k ROUNDS] [-r REPEAT] [-o OUT] [-- OCR_ARGS...]
# The throughput of reduce7's accurate sum against the plain one: ROUNDS rounds,
# each one plain run and one --accurate run of -r REPEAT timed reductions, in
# alternating order (plain first in odd rounds) so that clock and thermal
# drift hit both alike; every run is checked (exit 1 if one fails). Reports the
# median over rounds of each run's median kernel time (JSON median.t_kernels_ms)
# and the ratio plain / accurate (the issue asks >= 0.95 at 2^28 on a GPU).
# Defaults: -b this checkout's build/, -s 256M (2^28) -t float -k 11 -r 20, on the default
# device. Raw rows go to OUT/rounds.csv (default OUT: a new directory under $TMPDIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build size=256M type=float rounds=11 repeat=20 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -b) build=$2; shift 2 ;;
    -s) size=$2; shift 2 ;;
    -t) type=$2; shift 2 ;;
    -k) rounds=$2; shift 2 ;;
    -r) repeat=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    *) sed -n '2,10p' "$0" >&2; exit 2 ;;
  esac
done
ocr=$build/oclReduction
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/ocr-accurate.XXXXXX")
py=$(command -v python3)
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
mkdir -p "$out"
csv=$out/rounds.csv
echo "round,mode,t_kernels_ms,bandwidth_gbs,err_ulps,passed" > "$csv"
one() { # mode round extra-args...
  local mode=$1 round=$2; shift 2
  "$ocr" -n 7 --type "$type" --data uniform -s "$size" -r "$repeat" --cpu-baseline none \
    --format json "$@" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
print("%s,%s,%s,%s,%s,%d" % (sys.argv[1], sys.argv[2], d["median"]["t_kernels_ms"],
      d["bandwidth_gbs"], d["err_ulps"], d["passed"]))
sys.exit(0 if d["passed"] else 1)' "$round" "$mode" >> "$csv"
}
"$ocr" -n 7 --type "$type" -s "$size" --explain "$@" | head -3 >&2
for ((k = 1; k <= rounds; k++)); do
  if ((k % 2)); then
    one plain $k "$@"; one accurate $k --accurate "$@"
  else
    one accurate $k --accurate "$@"; one plain $k "$@"
  fi
  echo "round $k/$rounds done" >&2
done
echo "accurate: raw rows in $csv" >&2
"$py" - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {m: statistics.median(float(r["t_kernels_ms"]) for r in rows if r["mode"] == m)
       for m in ("plain", "accurate")}
gbs = {m: statistics.median(float(r["bandwidth_gbs"]) for r in rows if r["mode"] == m)
       for m in ("plain", "accurate")}
err = {m: max(float(r["err_ulps"]) for r in rows if r["mode"] == m) for m in ("plain", "accurate")}
for m in ("plain", "accurate"):
    print(f"{m:9s} median kernel time {med[m]:.4f} ms, {gbs[m]:.1f} GB/s, worst error {err[m]:.3g} ulps")
print(f"throughput accurate / plain: {med['plain'] / med['accurate']:.3f} "
      f"(medians of {len(rows) // 2} alternated rounds)")
PY
