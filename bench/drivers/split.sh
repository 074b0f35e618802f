#!/usr/bin/env bash
# split.sh OUTDIR - one reduction shared by every GPU of the host against one
# GPU, in one run: --split all (equal shares, shares by rate, M = 1) and, when
# MPIRUN is set, --mpi with one rank per GPU.
#
# Each round runs, for every type of TYPES, one GPU and then every case that
# shares the same input, each with reduce7, N = SIZE, -r 10 after a warm-up;
# the next round reverses the order of the cases, so that drift falls on both
# sides alike. A case's ratio is its device-resident aggregate rate (JSON
# bandwidth_gbs: every device's bytes over the slowest device's kernel time)
# over the one-GPU kernel rate of the same round and type (for M = 1, over
# one GPU with M = 1); the summary gives each ratio's median over the rounds,
# and the end-to-end rate from host memory over one GPU's pinned upload rate.
# Every run checks its own result; a run that fails makes the script exit 1.
#
# Environment: OCR (default build/oclReduction), ROUNDS (default 2), TYPES
# (default "int float double"), SIZE (default 1G), EXTRA_TYPE (the type of the
# M = 1 and rate cases; default float), MPIRUN (e.g. "mpirun -np 4"; empty: no
# MPI case; OCR must then be built with -DOCR_MPI=ON), DEADLINE_S (default 420:
# no round is started that would end later than this, at the pace of the
# first; at least one round). Extra oclReduction arguments (e.g. --kernel-dir)
# come from OCR_ARGS, the devices from OCR_DEVICE_ARGS (default -t gpu). Writes OUTDIR/env.txt, OUTDIR/raw.csv, OUTDIR/log.txt and
# OUTDIR/summary.txt (also printed).
set -uo pipefail
out=${1:?usage: split.sh OUTDIR}
mkdir -p "$out"
B=${OCR:-$(dirname "$0")/../../build/oclReduction}
ROUNDS=${ROUNDS:-2} TYPES=${TYPES:-int float double} SIZE=${SIZE:-1G}
EXTRA_TYPE=${EXTRA_TYPE:-float} MPIRUN=${MPIRUN:-} DEADLINE_S=${DEADLINE_S:-420}
read -r -a extra <<< "${OCR_ARGS:-}"
read -r -a dev <<< "${OCR_DEVICE_ARGS:--t gpu}"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
  nvidia-smi topo -m | head -8; $B --list | head -16; } > "$out/env.txt" 2>&1
echo "round,case,type,bandwidth_gbs,bandwidth_e2e_gbs,h2d_ms,n,bytes,passed" > "$out/raw.csv"
fail=0

# run ROUND CASE TYPE CMD... : one JSON report, one CSV row
run() {
  local round=$1 case=$2 type=$3; shift 3
  echo "+ $*" >> "$out/log.txt"
  "$@" --format json > "$out/r.json" 2>> "$out/log.txt" || fail=1
  python3 - "$out/r.json" "$round,$case,$type" >> "$out/raw.csv" <<'P' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
m = d.get('median', {})
sizes = {'int': 4, 'float': 4, 'double': 8, 'long': 8}
t = d['type']
print('%s,%s,%s,%s,%d,%d,%d' % (sys.argv[2], d['bandwidth_gbs'], d.get('bandwidth_e2e_gbs', ''),
      m.get('h2d_ms', ''), d['n'], d['n'] * sizes[t], 1 if d['passed'] else 0))
sys.exit(0 if d['passed'] else 1)
P
}

cases() {  # the cases of one type, in the order of a round
  local t=$1
  echo "one"; echo "split"
  [ -n "$MPIRUN" ] && echo "mpi"
  if [ "$t" = "$EXTRA_TYPE" ]; then echo "one_m1"; echo "split_m1"; echo "split_rate"; fi
}

one_case() {  # ROUND CASE TYPE
  local r=$1 c=$2 t=$3 common=(-n 7 --type "$3" -s "$SIZE" -r 10 "${extra[@]}")
  case $c in
    one) run "$r" "$c" "$t" "$B" "${dev[@]}" "${common[@]}" ;;
    one_m1) run "$r" "$c" "$t" "$B" "${dev[@]}" -M 1 "${common[@]}" ;;
    split) run "$r" "$c" "$t" "$B" --split all "${dev[@]}" "${common[@]}" ;;
    split_m1) run "$r" "$c" "$t" "$B" --split all "${dev[@]}" -M 1 "${common[@]}" ;;
    split_rate) run "$r" "$c" "$t" "$B" --split all "${dev[@]}" --split-shares rate "${common[@]}" ;;
    mpi) run "$r" "$c" "$t" $MPIRUN "$B" --mpi "${dev[@]}" "${common[@]}" ;;
  esac
}

start=$SECONDS
for r in $(seq 1 "$ROUNDS"); do
  if [ "$r" -gt 1 ] && [ $(( (SECONDS - start) / (r - 1) * r )) -gt "$DEADLINE_S" ]; then
    echo "round $r not started: deadline" >> "$out/log.txt"; break
  fi
  for t in $TYPES; do
    mapfile -t cs < <(cases "$t")
    if [ $((r % 2)) -eq 0 ]; then mapfile -t cs < <(printf '%s\n' "${cs[@]}" | tac); fi
    for c in "${cs[@]}"; do one_case "$r" "$c" "$t"; done
  done
done
rm -f "$out/r.json"

python3 - "$out/raw.csv" <<'P' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {(r['round'], r['case'], r['type']): r for r in rows}
print('case,type,ratio_median,ratios,aggregate_gbs_median,e2e_over_h2d_median,passed')
for case, t in sorted({(r['case'], r['type']) for r in rows if not r['case'].startswith('one')}):
    base = 'one_m1' if case.endswith('_m1') else 'one'
    ratios, agg, e2e, ok = [], [], [], True
    for r in rows:
        if r['case'] != case or r['type'] != t:
            continue
        one = by.get((r['round'], base, t))
        ok &= r['passed'] == '1'
        if one is None:
            continue
        ratios.append(float(r['bandwidth_gbs']) / float(one['bandwidth_gbs']))
        agg.append(float(r['bandwidth_gbs']))
        if r['bandwidth_e2e_gbs'] and one['h2d_ms']:
            e2e.append(float(r['bandwidth_e2e_gbs']) / (int(one['bytes']) / float(one['h2d_ms']) / 1e6))
    med = lambda v: '%.3f' % statistics.median(v) if v else ''
    print('%s,%s,%s,%s,%s,%s,%d' % (case, t, med(ratios), ' '.join('%.3f' % x for x in ratios),
          med(agg), med(e2e), ok))
for r in rows:
    if r['case'].startswith('one'):
        print('# %s %s round %s: %s GB/s kernel rate, h2d %s ms' % (r['case'], r['type'], r['round'], r['bandwidth_gbs'], r['h2d_ms']))
P
exit $fail
