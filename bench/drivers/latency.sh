#!/usr/bin/env bash
# latency.sh OUTDIR - what an application waits for per reduction, with
# the input resident on the device: host wall time per reducer call beside the
# OpenCL floor and, on NVIDIA, CUB's DeviceReduce::Sum beside the CUDA floor,
# in one run (docs/perf/latency.md).
#
# Environment:
#   LATENCY   ocr_latency (default: build/bench/ocr_latency beside this tree)
#   PLATFORM  the OpenCL platform: index or part of its name (default 0);
#   DEVICE    the device within it (default 0)
#   CUB       cub_latency; when unset it is built from bench/cub/cub_latency.cu with
#             nvcc -O3 -arch=$CUDA_ARCH (default sm_90) if nvcc is found, else
#             the CUDA side is skipped with a message; "none" skips it
#   SIZES     log2 sizes (default "10 12 14 16 18 20 21 22 23 24 26 28")
#   TYPES     default "int float"
#   REPS      timed calls per side, type and size in each round (default 300)
#   WARMUP    untimed calls before them (default 30)
#   ROUNDS    rounds (default 5)
#   ROTATE    MiB of input cycled through by the *_cold sides (default 256)
#   BATCH     calls per sample of async_tput and cub_tput (default 16)
#   SIDES     ocr_latency's sides, comma-separated (default: all; --list-sides)
#
# Round r runs ocr_latency once and cub_latency once over every size; the
# side that goes first alternates, sizes run upwards in odd rounds and
# downwards in even ones, and the order of the sides within each process
# rotates, so drift falls on all of them alike. Writes under OUTDIR: raw.csv
# (every row of every round), summary.csv (per side, type and size: the
# median over rounds of the rounds' medians, the smallest minimum, the median
# p10 and p90), summary.md (the tables of docs/perf/latency.md), env.txt (the
# device, driver, command, clocks before and after each process) and the
# processes' logs, with the time of ocr_reducer_create (the first of a
# process, then one whose program is already built). Exit 1 if any value was
# wrong (the *_direct sides, outside what OpenCL promises, are marked, not
# counted), 3 if a process failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: latency.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
LATENCY=${LATENCY:-$root/build/bench/ocr_latency}
[ -x "$LATENCY" ] || { echo "latency.sh: no $LATENCY (cmake -B build -DOCR_BUILD_BENCH=ON && cmake --build build --target ocr_latency, or set LATENCY)" >&2; exit 2; }
PLATFORM=${PLATFORM:-0}
DEVICE=${DEVICE:-0}
SIZES=${SIZES:-"10 12 14 16 18 20 21 22 23 24 26 28"}
TYPES=${TYPES:-"int float"}
REPS=${REPS:-300}
WARMUP=${WARMUP:-30}
ROUNDS=${ROUNDS:-5}
ROTATE=${ROTATE:-256}
BATCH=${BATCH:-16}
SIDES=${SIDES:-}
CUDA_ARCH=${CUDA_ARCH:-sm_90}

if [ -z "${CUB:-}" ]; then
  if command -v nvcc > /dev/null; then
    CUB=$out/cub_latency
    nvcc -O3 -arch="$CUDA_ARCH" "$root/bench/cub/cub_latency.cu" -o "$CUB"
  else
    echo "latency.sh: no nvcc: the CUDA side (CUB, CUDA floor) is skipped" >&2
    CUB=none
  fi
fi

clocks() { # one line of the GPU's clocks, where nvidia-smi answers
  if command -v nvidia-smi > /dev/null; then
    echo "$1,$(nvidia-smi -i "${CUDA_VISIBLE_DEVICES:-0}" --format=csv,noheader \
      --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,pstate,temperature.gpu,power.draw 2> /dev/null |
      head -1)"
  fi
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "host: $(uname -srm), $(nproc) CPUs"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv || true
  fi
  echo "command: $0 $*"
  echo "  PLATFORM=$PLATFORM DEVICE=$DEVICE SIZES=\"$SIZES\" TYPES=\"$TYPES\" REPS=$REPS"
  echo "  WARMUP=$WARMUP ROUNDS=$ROUNDS ROTATE=$ROTATE BATCH=$BATCH SIDES=\"$SIDES\" CUB=$CUB"
  echo "  OCLREDUCTION_PROGRAM_CACHE=${OCLREDUCTION_PROGRAM_CACHE:-} XDG_CACHE_HOME=${XDG_CACHE_HOME:-}"
} > "$out/env.txt"

raw=$out/raw.csv
status=0
: > "$raw"
for r in $(seq "$ROUNDS"); do
  order=(ocl cuda)
  [ $((r % 2)) = 0 ] && order=(cuda ocl)
  rev=()
  [ $((r % 2)) = 0 ] && rev=(--reverse)
  for side in "${order[@]}"; do
    if [ "$side" = ocl ]; then
      cmd=("$LATENCY" -p "$PLATFORM" -d "$DEVICE")
      [ -n "$SIDES" ] && cmd+=(--sides "$SIDES")
    elif [ "$CUB" != none ]; then
      cmd=("$CUB")
    else
      continue
    fi
    cmd+=(--sizes "$SIZES" --types "$TYPES" -r "$REPS" -w "$WARMUP" --round "$r"
      --rotate "$ROTATE" --batch "$BATCH" "${rev[@]}")
    [ -s "$raw" ] && cmd+=(--no-header)
    clocks "round $r $side before" >> "$out/env.txt"
    rc=0
    "${cmd[@]}" >> "$raw" 2>> "$out/log-$side.txt" || rc=$?
    clocks "round $r $side after" >> "$out/env.txt"
    echo "latency.sh: round $r/$ROUNDS $side: exit $rc" >&2
    if [ "$rc" -gt 1 ] && [ "$side" = cuda ] && [ "$r" = 1 ]; then
      # nvcc without a GPU it can run on (say, this tree's CPU-only CI box)
      echo "latency.sh: the CUDA side cannot run here: skipped" >&2
      tail -2 "$out/log-$side.txt" >&2
      CUB=none
      continue
    fi
    [ "$rc" = 1 ] && [ "$status" = 0 ] && status=1
    [ "$rc" -gt 1 ] && status=3 && tail -5 "$out/log-$side.txt" >&2
  done
done
grep -h "^[a-z_]*: device: " "$out"/log-*.txt | sort -u >> "$out/env.txt" || true
grep -h "^ocr_latency: create: " "$out"/log-*.txt >> "$out/env.txt" || true

python3 "$root/bench/latency/summary.py" "$raw" "$out/summary.csv" "$out/summary.md"
cat "$out/summary.md"
exit "$status"
