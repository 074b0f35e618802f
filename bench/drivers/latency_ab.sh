#!/usr/bin/env bash
# latency_ab.sh OUTDIR - two or more reducer builds or geometries against each
# other on the latency benchmark's sides (bench/latency/latency.c), one process per
# contender per round, the contenders' order reversed every other round and
# the sizes with it, so that drift falls on all alike (docs/perf/latency.md,
# "One launch for a value that stays on the device").
#
# Environment:
#   CONTENDERS  "name:binary:options ..." (required): each an ocr_latency binary
#               (a build of the library as it is, or of a variant) and its extra
#               options, commas for spaces, e.g.
#               "now:build/bench/ocr_latency: l256:build/bench/ocr_latency:--local,256"
#   PLATFORM    OpenCL platform: index or part of its name (default 0)
#   SIZES       log2 sizes (default "16 18 19 20 21 22"); TYPES (default "int float")
#   SIDES       default cl_floor,reduce,async_wait
#   CONTEXTS    contexts per process (default 1; the slow read mode is per context)
#   ROUNDS      rounds (default 8); DEADLINE_S: no round starts after it (default 0: none)
#
# Writes OUTDIR/raw.csv (ocr_latency's rows, each prefixed with the
# contender), OUTDIR/err.txt (the processes' stderr), OUTDIR/env.txt, and
# OUTDIR/summary.md (bench/latency/ab_summary.py). Exit 1 if a value was wrong.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: latency_ab.sh OUTDIR}
: "${CONTENDERS:?CONTENDERS=\"name:binary:options ...\"}"
mkdir -p "$out"
PLATFORM=${PLATFORM:-0}
SIZES=${SIZES:-"16 18 19 20 21 22"}
TYPES=${TYPES:-"int float"}
SIDES=${SIDES:-cl_floor,reduce,async_wait}
CONTEXTS=${CONTEXTS:-1}
ROUNDS=${ROUNDS:-8}
DEADLINE_S=${DEADLINE_S:-0}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory --format=csv 2> /dev/null || true
  echo "CONTENDERS=\"$CONTENDERS\" PLATFORM=$PLATFORM SIZES=\"$SIZES\" TYPES=\"$TYPES\""
  echo "SIDES=$SIDES CONTEXTS=$CONTEXTS ROUNDS=$ROUNDS"
} > "$out/env.txt"
read -ra list <<< "$CONTENDERS"
first=${list[0]#*:}
echo "contender,$("${first%%:*}" -p "$PLATFORM" --sizes 10 --types int --sides cl_floor -r 1 -w 0 2> /dev/null | head -1)" > "$out/raw.csv"
t0=$(date +%s)
for ((r = 1; r <= ROUNDS; ++r)); do
  order=("${list[@]}") rev=()
  if ((r % 2 == 0)); then
    order=() rev=(--reverse)
    for ((i = ${#list[@]} - 1; i >= 0; --i)); do order+=("${list[i]}"); done
  fi
  for c in "${order[@]}"; do
    IFS=: read -r name bin opts <<< "$c"
    read -ra extra <<< "${opts//,/ }"
    "$bin" -p "$PLATFORM" --sizes "$SIZES" --types "$TYPES" --sides "$SIDES" --contexts "$CONTEXTS" \
      --round "$r" "${rev[@]}" --no-header "${extra[@]}" 2>> "$out/err.txt" | sed "s/^/$name,/" >> "$out/raw.csv"
  done
  echo "round $r done, $(($(date +%s) - t0)) s" >&2
  ((DEADLINE_S > 0 && $(date +%s) - t0 > DEADLINE_S)) && break
done
python3 "$root/bench/latency/ab_summary.py" "$out/raw.csv" > "$out/summary.md"
! grep -q ',0$' "$out/raw.csv"
