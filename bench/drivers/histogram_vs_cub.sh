#!/usr/bin/env bash
# histogram_vs_cub.sh OUTDIR - oclReduction --histogram against CUB's
# DeviceHistogram::HistogramEven on one NVIDIA GPU: 256 bins of uchar over
# [0, 256] (an image's intensities) and 1024 bins of float over [0, 1], on
# uniform and one-bin data (every sample one value: the contention a
# histogram kernel must survive), at 2^20 .. 2^28 samples.
#
# Environment: OCR (oclReduction; default build/oclReduction), CUB
# (cub_histogram built from bench/cub/cub_histogram.cu; built with nvcc when
# unset), SIZES (log2; default "20 24 28"), REPS (timed runs per process;
# default 20), ROUNDS (default 3: ours and CUB alternate, round after round,
# so drift falls on both alike; the median over rounds of each process's
# median is kept), DEVICE_TYPE (oclReduction -t; default gpu, cpu for the
# smoke test on POCL; with cpu and NO_CUB=1 the CUB side is skipped).
#
# Times are kernel events for ours (kernel_ms: the counting and the merge
# kernels) and CUDA events around HistogramEven (its kernels) for CUB; both
# sides check their counts (ours bit for bit against a CPU loop on every
# run). ratio = CUB time / ours: above 1, ours is faster; one_bin_slowdown =
# one-bin time / uniform time of the same side. Writes OUTDIR/raw.csv,
# OUTDIR/histogram_vs_cub.csv and OUTDIR/env.txt, and prints the table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: histogram_vs_cub.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
OCR=${OCR:-$root/build/oclReduction}
SIZES=${SIZES:-"20 24 28"}
REPS=${REPS:-20}
ROUNDS=${ROUNDS:-3}
DEVICE_TYPE=${DEVICE_TYPE:-gpu}
NO_CUB=${NO_CUB:-0}
if [ "$NO_CUB" != 1 ] && [ -z "${CUB:-}" ]; then
  CUB=$out/cub_histogram
  nvcc -O3 -arch=sm_90 "$root/bench/cub/cub_histogram.cu" -o "$CUB"
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  "$OCR" --list | sed -n '1,4p'
  echo "command: $0 $*  (SIZES=\"$SIZES\" REPS=$REPS ROUNDS=$ROUNDS DEVICE_TYPE=$DEVICE_TYPE)"
} | tee "$out/env.txt"

# The cases: type|bins|lo|hi
cases=("uchar|256|0|256" "float|1024|0|1")
# ours TYPE BINS LO HI DATA N: "kernel_ms,passed" of one process
ours() {
  "$OCR" -t "$DEVICE_TYPE" --histogram "$2" --range "$3,$4" --type "$1" --data "$5" -s "$6" \
    -r "$REPS" --format json |
    python3 -c "import json,sys; j=json.load(sys.stdin); print('%s,%d' % (j['kernel_ms'], j['verdict'] == 'PASSED'))"
}
raw=$out/raw.csv
echo "round,type,bins,data,n,side,kernel_ms,passed" > "$raw"
for r in $(seq "$ROUNDS"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r t bins lo hi <<< "$c"
    for d in uniform one-bin; do
      for s in $SIZES; do
        n=$((1 << s))
        echo "$r,$t,$bins,$d,$n,ours,$(ours "$t" "$bins" "$lo" "$hi" "$d" "$n")" >> "$raw"
        if [ "$NO_CUB" != 1 ]; then
          ok=1
          line=$("$CUB" "$t" "$d" "$bins" "$lo" "$hi" "$REPS" "$n") || ok=0
          echo "$r,$t,$bins,$d,$n,cub,$(echo "$line" | cut -d, -f6),$ok" >> "$raw"
        fi
      done
    done
  done
done

python3 - "$raw" "$out/histogram_vs_cub.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(t, d, n, side):
    v = [float(r['kernel_ms']) for r in rows
         if (r['type'], r['data'], int(r['n']), r['side']) == (t, d, n, side) and r['kernel_ms']]
    return statistics.median(v) if v else float('nan')
def passed(t, d, n, side):
    return all(r['passed'] == '1' for r in rows
               if (r['type'], r['data'], int(r['n']), r['side']) == (t, d, n, side))
keys = []
for r in rows:
    k = (r['type'], r['bins'], r['data'], int(r['n']))
    if k not in keys: keys.append(k)
with open(sys.argv[2], 'w') as o:
    o.write('type,bins,data,log2n,ours_ms,cub_ms,ratio,one_bin_slowdown_ours,'
            'one_bin_slowdown_cub,ours_passed,cub_passed\n')
    for t, bins, d, n in keys:
        ours, cub = med(t, d, n, 'ours'), med(t, d, n, 'cub')
        su = med(t, d, n, 'ours') / med(t, 'uniform', n, 'ours')
        sc = med(t, d, n, 'cub') / med(t, 'uniform', n, 'cub')
        o.write('%s,%s,%s,%d,%.5f,%.5f,%.4f,%.3f,%.3f,%d,%d\n' % (
            t, bins, d, n.bit_length() - 1, ours, cub, cub / ours, su, sc,
            passed(t, d, n, 'ours'), passed(t, d, n, 'cub')))
bad = [r for r in rows if r['passed'] != '1']
if bad:
    print('histogram_vs_cub: %d runs did not pass (raw.csv)' % len(bad), file=sys.stderr)
    sys.exit(1)
PY
if command -v column >/dev/null; then column -s, -t "$out/histogram_vs_cub.csv"; else cat "$out/histogram_vs_cub.csv"; fi
