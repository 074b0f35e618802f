#!/usr/bin/env bash
# gpu.sh - oclReduction against CUB on one NVIDIA GPU, in one run.
#
#   bench/drivers/gpu.sh [OUTDIR]
#
# Environment: OCR (oclReduction binary; default build/oclReduction),
# CUB (cub_reduce binary; built from bench/cub/cub_reduce.cu with nvcc when unset),
# KDIR (kernel directory; default this checkout's cl/), REPS (default 20),
# DEVTYPE (default gpu; cpu with CUB=none dry-runs the script on POCL),
# SIZES (log2 sizes; default "20 21 ... 30"), TUNE=1 (also sweep reduce7's
# work-group size and group count at 2^28).
#
# Prints, and writes under OUTDIR (default: a new directory under $TMPDIR): (1) reduce7 vs CUB DeviceReduce::Sum in GB/s
# for int and float over the sizes, (2) the ladder reduce0..reduce7 at 2^25 in
# the tutorial's table shape, (3) host-to-device rates, ours (pinned and
# pageable paths) against CUDA's cudaMemcpy from pinned and pageable memory.
# Bandwidth is input bytes over kernel time: for CUB the events around
# DeviceReduce::Sum (its two kernels), for reduce7 the kernel events of its
# passes. "reduce7" finishes its few hundred partial values on the CPU (T gpu
# counts that; GB/s does not); "reduce7 M=1" runs both passes on the GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ocr-gpu.XXXXXX")} # OUTDIR, else a new one
mkdir -p "$out"
OCR=${OCR:-$root/build/oclReduction}
KDIR=${KDIR:-$root/cl}
REPS=${REPS:-20}
SIZES=${SIZES:-"20 21 22 23 24 25 26 27 28 29 30"}
DEVTYPE=${DEVTYPE:-gpu}
if [ -z "${CUB:-}" ]; then
  CUB=$out/cub_reduce
  nvcc -O3 -arch=sm_90 "$root/bench/cub/cub_reduce.cu" -o "$CUB"
fi
cub() { if [ "$CUB" = none ]; then echo "x,x,x,0,0,0"; else "$CUB" "$@"; fi; }
ocr() { "$OCR" --kernel-dir "$KDIR" -t "$DEVTYPE" --format csv "$@"; }
# col FILE NAME: the named column of a CSV file's data rows
col() { awk -F, -v name="$2" 'NR==1{for(i=1;i<=NF;i++) if($i==name) c=i; next} {print $c}' "$1"; }
# div A B: A / B to three decimals
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }
# table FILE: a CSV file as aligned columns
table() {
  awk -F, '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
             if (NF > m) m = NF }
           END { for (r = 1; r <= NR; r++) { for (i = 1; i <= m; i++) printf "%-*s  ", w[i], c[r, i]; print "" } }' "$1"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
  "$OCR" --list | sed -n '1,6p'
  echo "command: $0 $*  (REPS=$REPS)"
} | tee "$out/env.txt"

# (1) reduce7 vs CUB
echo "type,n,reduce7_gbs,reduce7_m1_gbs,cub_gbs,ratio,ratio_m1,t_gpu_ms,result" > "$out/vs_cub.csv"
for t in int float; do
  for s in $SIZES; do
    n=$((1 << s))
    ocr -n 7 --type "$t" -s "$n" -r "$REPS" --cpu-baseline none > "$out/r7.csv" || { echo "reduce7 $t 2^$s FAILED"; cat "$out/r7.csv"; }
    ocr -n 7 --type "$t" -s "$n" -r "$REPS" -M 1 --cpu-baseline none > "$out/r7m1.csv" || echo "reduce7 -M 1 $t 2^$s FAILED"
    cub=$(cub sum "$t" "$REPS" "$n" | cut -d, -f6)
    ours=$(col "$out/r7.csv" bandwidth_gbs); m1=$(col "$out/r7m1.csv" bandwidth_gbs)
    tg=$(col "$out/r7.csv" t_gpu_ms); ok=$(col "$out/r7.csv" passed)
    echo "$t,$n,$ours,$m1,$cub,$(div "$ours" "$cub"),$(div "$m1" "$cub"),$tg,$([ "$ok" = 1 ] && echo PASSED || echo FAILED)"
  done
done >> "$out/vs_cub.csv"
echo; echo "== reduce7 vs CUB DeviceReduce::Sum (GB/s = bytes every pass reads / kernel time, median of $REPS)"
table "$out/vs_cub.csv"

# (2) the ladder at 2^25, int
echo "kernel,t_gpu_ms,t_kernels_ms,speedup,kernel_speedup,bandwidth_gbs,h2d_ms,passed" > "$out/ladder.csv"
for k in 0 1 2 3 4 5 6 7; do
  ocr -n "$k" -s 32M -r "$REPS" > "$out/l.csv" || echo "reduce$k FAILED"
  echo "$k,$(col "$out/l.csv" t_gpu_ms),$(col "$out/l.csv" t_kernels_ms),$(col "$out/l.csv" speedup),$(col "$out/l.csv" kernel_speedup),$(col "$out/l.csv" bandwidth_gbs),$(col "$out/l.csv" h2d_ms),$(col "$out/l.csv" passed)"
done >> "$out/ladder.csv"
echo; echo "== ladder at 2^25 int (t gpu = H2D + kernels + D2H + CPU finish; speedup vs the naive CPU loop)"
table "$out/ladder.csv"

# (3) host-to-device rates at 2^25 and 2^28 ints
echo "bytes,ours_pinned_gbs,ours_pageable_gbs,cuda_pinned_gbs,cuda_pageable_gbs,ratio_pinned" > "$out/h2d.csv"
for s in 25 28; do
  n=$((1 << s)); bytes=$((n * 4))
  ocr -n 7 -s "$n" -r "$REPS" --host-mem pinned --cpu-baseline none > "$out/p.csv"
  ocr -n 7 -s "$n" -r "$REPS" --host-mem pageable --cpu-baseline none > "$out/q.csv"
  cub h2d "$REPS" "$bytes" > "$out/c.csv"
  op=$(div "$bytes" "$(col "$out/p.csv" h2d_ms | awk '{print $1 * 1e6}')")
  oq=$(div "$bytes" "$(col "$out/q.csv" h2d_ms | awk '{print $1 * 1e6}')")
  cp_=$(awk -F, '$2=="pinned"{print $6}' "$out/c.csv"); cq=$(awk -F, '$2=="pageable"{print $6}' "$out/c.csv")
  echo "$bytes,$op,$oq,${cp_:-0},${cq:-0},$(div "$op" "${cp_:-0}")"
done >> "$out/h2d.csv"
echo; echo "== host to device (GB/s)"
table "$out/h2d.csv"

if [ "${TUNE:-0}" = 1 ]; then
  echo "local,groups,type,gbs" > "$out/tune.csv"
  # reduce7's default group count at 2^30 is compute units x (1024 / 128)
  cu=$(( $("$OCR" --kernel-dir "$KDIR" -t "$DEVTYPE" -n 7 -s 1G --explain | awk '$1 == "0" {print $3}') / 8 ))
  for w in 128 256 512 1024; do
    for k in 1 2 4 8 16 32; do
      g=$((cu * k))
      for t in int float; do
        ocr -n 7 --type "$t" -s 256M -r "$REPS" -w "$w" -g "$g" --cpu-baseline none > "$out/t.csv" 2>>"$out/tune.err" &&
          echo "$w,$g,$t,$(col "$out/t.csv" bandwidth_gbs)"
      done
    done
  done >> "$out/tune.csv"
  echo; echo "== reduce7 tuning at 2^28"; table "$out/tune.csv"
fi
rm -f "$out"/r7.csv "$out"/r7m1.csv "$out"/l.csv "$out"/p.csv "$out"/q.csv "$out"/c.csv "$out"/t.csv
echo "gpu.sh: files in $out/" >&2
