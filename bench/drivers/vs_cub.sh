#!/usr/bin/env bash
# vs_cub.sh OUTDIR - reduce7 against CUB on one NVIDIA GPU, in one run:
# built-in defaults and --tune'd settings, finishing on the CPU (the default
# M) and on the device (M = 1: in one launch where the device allows it, and in
# two launches, forced with -cl-std=CL1.2 for comparison), int and float.
#
# Environment: OCR (oclReduction; default build/oclReduction), CUB (cub_reduce
# built from bench/cub/cub_reduce.cu; built with nvcc when unset), SIZES (log2;
# default "25 28 30"), REPS (runs per process; default 30), ROUNDS (default 2:
# every configuration and CUB run once per round, round after round, so drift
# falls on all alike; the median over rounds of each run's median is kept),
# TUNE_BUDGET (seconds of --tune per type; default 60, 0: no tuned rows),
# BASE_KERNEL_DIR (a directory with an older reduce7.cl and reduce_common.h:
# adds rows "base" and "base_m1" that run them through --kernel-dir, so a
# kernel change is compared with its predecessor in the same run).
#
# Times are kernel event sums (t_kernels_ms) for ours and CUDA events around
# DeviceReduce::Sum (both its kernels) for CUB; "resident" is the tutorial's
# T gpu (kernels + read-back + CPU finish). ratio = CUB time / ours: above 1,
# ours is faster. Writes OUTDIR/vs_cub.csv, OUTDIR/env.txt, OUTDIR/tune.tsv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: vs_cub.sh OUTDIR}
mkdir -p "$out/cache" "$out/nocache"
out=$(cd "$out" && pwd)
OCR=${OCR:-$root/build/oclReduction}
SIZES=${SIZES:-"25 28 30"}
REPS=${REPS:-30}
ROUNDS=${ROUNDS:-2}
TUNE_BUDGET=${TUNE_BUDGET:-60}
if [ -z "${CUB:-}" ]; then
  CUB=$out/cub_reduce
  nvcc -O3 -arch=sm_90 "$root/bench/cub/cub_reduce.cu" -o "$CUB"
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  "$OCR" --list | sed -n '1,4p'
  echo "command: $0 $*  (SIZES=\"$SIZES\" REPS=$REPS ROUNDS=$ROUNDS TUNE_BUDGET=$TUNE_BUDGET)"
  XDG_CACHE_HOME=$out/nocache "$OCR" -n 7 -t gpu -M 1 -s 1M --explain | grep -E "^Build options|1 pass|2 passes"
} | tee "$out/env.txt"

if [ "$TUNE_BUDGET" != 0 ]; then
  for t in int float; do
    XDG_CACHE_HOME=$out/cache "$OCR" -t gpu --tune --type "$t" -s 256M --tune-budget "$TUNE_BUDGET" 2>&1 |
      tee -a "$out/env.txt" | grep -E "^Tuned|work-group size"
  done
  cp "$out/cache/oclreduction/tune.tsv" "$out/tune.tsv"
fi

# ours CACHE ARGS...: "kernels_ms,resident_ms,passed" of one process
ours() {
  local cache=$1; shift
  XDG_CACHE_HOME=$cache "$OCR" -n 7 -t gpu -r "$REPS" --cpu-baseline none --format json "$@" |
    python3 -c "import json,sys; j=json.load(sys.stdin); m=j['median']; print('%s,%s,%d' % (m['t_kernels_ms'], m['t_gpu_tutorial_ms'], j['passed']))"
}
configs=("default|$out/nocache|" "default_m1|$out/nocache|-M 1" "default_m1_2launches|$out/nocache|-M 1 --build-options -cl-std=CL1.2")
[ "$TUNE_BUDGET" != 0 ] && configs+=("tuned|$out/cache|" "tuned_m1|$out/cache|-M 1")
if [ -n "${BASE_KERNEL_DIR:-}" ]; then
  configs+=("base|$out/nocache|--kernel-dir $BASE_KERNEL_DIR" "base_m1|$out/nocache|-M 1 --kernel-dir $BASE_KERNEL_DIR")
fi

raw=$out/raw.csv
echo "round,type,n,config,kernels_ms,resident_ms,passed" > "$raw"
for r in $(seq "$ROUNDS"); do
  for t in int float; do
    for s in $SIZES; do
      n=$((1 << s))
      for c in "${configs[@]}"; do
        IFS='|' read -r name cache args <<< "$c"
        # shellcheck disable=SC2086
        echo "$r,$t,$n,$name,$(ours "$cache" --type "$t" -s "$n" $args)" >> "$raw"
      done
      echo "$r,$t,$n,cub,$("$CUB" sum "$t" "$REPS" "$n" | cut -d, -f4),,1" >> "$raw"
    done
  done
done

python3 - "$raw" "$out/vs_cub.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = []
for r in rows:
    k = (r['type'], int(r['n']), r['config'])
    if k not in keys: keys.append(k)
def med(t, n, c, f):
    v = [float(r[f]) for r in rows if (r['type'], int(r['n']), r['config']) == (t, n, c) and r[f]]
    return statistics.median(v) if v else float('nan')
with open(sys.argv[2], 'w') as o:
    o.write('type,log2n,config,kernels_ms,resident_ms,cub_ms,ratio,all_passed\n')
    for t, n, c in keys:
        if c == 'cub': continue
        k, res, cub = med(t, n, c, 'kernels_ms'), med(t, n, c, 'resident_ms'), med(t, n, 'cub', 'kernels_ms')
        ok = all(r['passed'] == '1' for r in rows if (r['type'], int(r['n']), r['config']) == (t, n, c))
        o.write('%s,%d,%s,%.5f,%.5f,%.5f,%.4f,%d\n' % (t, n.bit_length() - 1, c, k, res, cub, cub / k, ok))
EOF
if command -v column >/dev/null; then column -s, -t "$out/vs_cub.csv"; else cat "$out/vs_cub.csv"; fi
