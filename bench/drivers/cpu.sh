#!/usr/bin/env bash
# cpu.sh OUTDIR - reduce7 on a CPU OpenCL device (POCL, Intel's CPU
# runtime) against the optimized CPU baseline and Boost.Compute, in one run.
#
# Environment: OCR (oclReduction; default build/oclReduction), PEERS (ocr_peers;
# default build/bench/ocr_peers (-DOCR_BUILD_BENCH=ON), skipped if missing), SIZES (log2; default
# "25 28"), REPS (default 20), GSWEEP (reduce7 -g values to sweep besides the
# default; default "16 32 64 128 256"), AFFINITY=1 (also the default geometry
# with POCL_AFFINITY=1, POCL's threads pinned to cores).
#
# best/ours = the optimized CPU reduction's median time (--cpu-baseline best:
# every core, 16 accumulators, measured in the same process) / reduce7's median
# kernel time: the issue's goal is >= 0.8. The ocr_peers rows time both sides
# the same way (host clock around enqueue ... result on the host, the input
# already on the device); ratio = Boost.Compute's time / ours.
# Writes OUTDIR/cpu.csv, OUTDIR/peers.csv, OUTDIR/env.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: cpu.sh OUTDIR}
mkdir -p "$out"
OCR=${OCR:-$root/build/oclReduction}
PEERS=${PEERS:-$root/build/bench/ocr_peers}
SIZES=${SIZES:-"25 28"}
REPS=${REPS:-20}
GSWEEP=${GSWEEP:-"16 32 64 128 256"}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  "$OCR" -t cpu --list | sed -n '1,4p'
  echo "command: $0 $*  (SIZES=\"$SIZES\" REPS=$REPS GSWEEP=\"$GSWEEP\" AFFINITY=${AFFINITY:-0})"
} | tee "$out/env.txt"

one() { # ARGS...: "kernels_ms,best_ms,passed"
  "$OCR" -n 7 -t cpu -r "$REPS" --cpu-baseline best --format json "$@" |
    python3 -c "import json,sys; j=json.load(sys.stdin); m=j['median']; print('%s,%s,%d' % (m['t_kernels_ms'], m['t_best_ms'], j['passed']))"
}
echo "type,log2n,groups,affinity,kernels_ms,best_ms,passed" > "$out/cpu.csv"
for t in int float; do
  for s in $SIZES; do
    for g in default $GSWEEP; do
      ga=(); [ "$g" != default ] && ga=(-g "$g")
      r=$(one --type "$t" -s $((1 << s)) "${ga[@]}")
      echo "$t,$s,$g,0,$r" >> "$out/cpu.csv"
    done
    if [ "${AFFINITY:-0}" = 1 ]; then
      echo "$t,$s,default,1,$(POCL_AFFINITY=1 one --type "$t" -s $((1 << s)))" >> "$out/cpu.csv"
    fi
  done
done
python3 - "$out/cpu.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[1], 'w') as o:
    o.write('type,log2n,groups,affinity,kernels_ms,best_ms,best_over_ours,passed\n')
    for r in rows:
        k, b = float(r['kernels_ms']), float(r['best_ms'])
        o.write('%s,%s,%s,%s,%.4f,%.4f,%.3f,%s\n' % (r['type'], r['log2n'], r['groups'], r['affinity'], k, b, b / k, r['passed']))
EOF
if command -v column >/dev/null; then column -s, -t "$out/cpu.csv"; else cat "$out/cpu.csv"; fi

if [ -x "$PEERS" ]; then
  "$PEERS" -t cpu --sizes "$SIZES" --types "int float" -r "$REPS" > "$out/peers.csv" 2>> "$out/env.txt" || true
  echo; echo "ours vs Boost.Compute (ratio = Boost's median time / ours)"
  awk -F, 'NR > 1 && ($7 == "ours" || $7 == "ours_m1" || $7 == "boost_reduce") { t[$5","$6","$7] = $8; k[$5","$6] = 1 }
           END { for (x in k) printf "%s,boost_reduce/ours=%.3f,boost_reduce/ours_m1=%.3f\n", x, t[x",boost_reduce"] / t[x",ours"], t[x",boost_reduce"] / t[x",ours_m1"] }' "$out/peers.csv" | sort | tee "$out/peers_ratio.csv"
fi
