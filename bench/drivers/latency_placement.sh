#!/usr/bin/env bash
# latency_placement.sh OUTDIR - does the reducer's blocking-call latency follow
# the CPU (and NUMA node) the process runs on? Runs bench/latency/latency.c
# (ocr_latency) once per placement per round, each process pinned with taskset
# (or numactl, to split the CPU from the memory node), the placements' order
# rotating round by round, and records the GPU's clocks around every process
# and, sampled, during the run (docs/perf/latency.md).
#
# Environment:
#   LATENCY     ocr_latency (default: build/bench/ocr_latency beside this tree)
#   PLATFORM    OpenCL platform: index or part of its name (default 0); DEVICE (0)
#   SIZES       log2 sizes (default "12 14 16 18 20 22"); TYPES (default int)
#   SIDES       default cl_floor,reduce,reduce_spin,async_wait
#   REPS        timed calls per side, type and size per process (300); WARMUP (30)
#   ROUNDS      rounds (default 10); DURATION: stop starting rounds after this
#               many seconds (default 0: no limit)
#   PLACEMENTS  "label=prefix;label=prefix;...", a prefix being the command put
#               before ocr_latency (say "taskset -c 3"; empty: not pinned).
#               Default: not pinned; per NUMA node its first and last CPU (and
#               its middle one when there is one node); the first two CPUs of
#               the GPU's node together; the CPU that took the most nvidia
#               interrupts; with numactl and several nodes, the CPU of the
#               GPU's node with the other node's memory and the reverse.
#   SAMPLE_MS   nvidia-smi's sampling period during the run (default 500; 0: off)
#   LATENCY_ARGS  more ocr_latency options, e.g. "--contexts 4" (then
#               bench/latency/modes_summary.py OUTDIR/raw.csv 4 splits the
#               processes' contexts); a placement may also be a wrapper such
#               as "setarch x86_64 -R" (no address randomization)
#
# Writes under OUTDIR: raw.csv (ocr_latency's rows, each prefixed with the
# placement and the process number), clocks.csv (nvidia-smi before and after
# every process), clocks-sampled.csv, topology.txt (lscpu, NUMA nodes, the
# GPU's PCI node, nvidia-smi topo, interrupts before and after), env.txt and
# the processes' logs; then summary.md (bench/latency/placement_summary.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: latency_placement.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
LATENCY=${LATENCY:-$root/build/bench/ocr_latency}
[ -x "$LATENCY" ] || { echo "latency_placement.sh: no $LATENCY (cmake -B build -DOCR_BUILD_BENCH=ON && cmake --build build --target ocr_latency, or set LATENCY)" >&2; exit 2; }
PLATFORM=${PLATFORM:-0}
DEVICE=${DEVICE:-0}
SIZES=${SIZES:-"12 14 16 18 20 22"}
TYPES=${TYPES:-int}
SIDES=${SIDES:-cl_floor,reduce,reduce_spin,async_wait}
REPS=${REPS:-300}
WARMUP=${WARMUP:-30}
ROUNDS=${ROUNDS:-10}
DURATION=${DURATION:-0}
SAMPLE_MS=${SAMPLE_MS:-500}
smi=$(command -v nvidia-smi || true)
gpu=${CUDA_VISIBLE_DEVICES:-0}

# ---- topology --------------------------------------------------------------
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2> /dev/null | sed 's/.*node//' | sort -n)
[ -n "$nodes" ] || nodes=0
cpus_of() { # the CPU list of a node, one number per line
  local l
  l=$(cat "/sys/devices/system/node/node$1/cpulist" 2> /dev/null || echo "0-$(($(nproc) - 1))")
  echo "$l" | tr ',' '\n' | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); ++c) print c }'
}
gpu_node=-1
if [ -n "$smi" ]; then
  bus=$(nvidia-smi -i "$gpu" --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-F' 'a-f')
  bus=${bus#0000}                                        # 00000000:18:00.0 -> 0000:18:00.0
  gpu_node=$(cat "/sys/bus/pci/devices/$bus/numa_node" 2> /dev/null || echo -1)
fi
irq_cpu() { # the CPU column with the most nvidia interrupts, if any
  awk 'NR == 1 { n = NF; next } /nvidia/ { for (i = 2; i <= n + 1; ++i) s[i - 2] += $i }
       END { b = -1; for (c in s) if (b < 0 || s[c] > s[b]) b = c; if (b >= 0 && s[b] > 0) print b }' \
    /proc/interrupts 2> /dev/null || true
}
{
  echo "== lscpu"; lscpu 2> /dev/null || true
  echo "== lscpu -e"; lscpu -e 2> /dev/null || true
  for n in $nodes; do echo "node $n: cpus $(cat /sys/devices/system/node/node$n/cpulist 2> /dev/null)"; done
  echo "GPU PCI bus ${bus:-?}, numa_node $gpu_node"
  echo "== numactl -H"; numactl -H 2> /dev/null || echo "(no numactl)"
  if [ -n "$smi" ]; then echo "== nvidia-smi topo -m"; nvidia-smi topo -m 2> /dev/null || true; fi
  echo "== /proc/interrupts (nvidia), before"; sed -n '1p;/nvidia/p' /proc/interrupts 2> /dev/null || true
} > "$out/topology.txt"

if [ -z "${PLACEMENTS:-}" ]; then
  pl=("all=")
  for n in $nodes; do
    mapfile -t cs < <(cpus_of "$n")
    pl+=("n${n}cpu${cs[0]}=taskset -c ${cs[0]}")
    [ "${#cs[@]}" -gt 2 ] && [ "$(echo $nodes | wc -w)" = 1 ] &&
      pl+=("n${n}cpu${cs[${#cs[@]} / 2]}=taskset -c ${cs[${#cs[@]} / 2]}")
    [ "${#cs[@]}" -gt 1 ] && pl+=("n${n}cpu${cs[-1]}=taskset -c ${cs[-1]}")
  done
  # two CPUs of the GPU's node: the driver's own threads need not share the caller's
  mapfile -t cs < <(cpus_of "$([ "$gpu_node" -ge 0 ] && echo "$gpu_node" || echo "${nodes%% *}")")
  [ "${#cs[@]}" -gt 1 ] && pl+=("cpu${cs[0]}+${cs[1]}=taskset -c ${cs[0]},${cs[1]}")
  ic=$(irq_cpu)
  if [ -n "$ic" ] && ! printf '%s\n' "${pl[@]}" | grep -q "=taskset -c $ic\$"; then
    pl+=("irqcpu$ic=taskset -c $ic")
  fi
  if command -v numactl > /dev/null && [ "$(echo $nodes | wc -w)" -gt 1 ] && [ "$gpu_node" -ge 0 ]; then
    other=$(echo $nodes | tr ' ' '\n' | grep -vx "$gpu_node" | head -1)
    g=$(cpus_of "$gpu_node" | head -1) o=$(cpus_of "$other" | head -1)
    pl+=("cpu${g}mem${other}=numactl --physcpubind=$g --membind=$other")
    pl+=("cpu${o}mem${gpu_node}=numactl --physcpubind=$o --membind=$gpu_node")
  fi
  PLACEMENTS=$(IFS=';'; echo "${pl[*]}")
fi
IFS=';' read -r -a places <<< "$PLACEMENTS"

# why the clocks are where they are: the field's newer name, else its older one
reasons=
for f in clocks_event_reasons.active clocks_throttle_reasons.active; do
  if [ -n "$smi" ] && nvidia-smi -i "$gpu" --query-gpu="$f" --format=csv,noheader > /dev/null 2>&1; then
    reasons=,$f
    break
  fi
done
clocks() { # one line: label, then the GPU's clocks and state
  [ -n "$smi" ] || return 0
  echo "$1,$(nvidia-smi -i "$gpu" --format=csv,noheader --query-gpu=clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu$reasons 2> /dev/null | head -1)"
}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) CPUs"
  [ -n "$smi" ] && nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem --format=csv
  echo "command: $0 $*"
  echo "  LATENCY=$LATENCY PLATFORM=$PLATFORM DEVICE=$DEVICE SIZES=\"$SIZES\" TYPES=\"$TYPES\""
  echo "  SIDES=$SIDES REPS=$REPS WARMUP=$WARMUP ROUNDS=$ROUNDS DURATION=$DURATION SAMPLE_MS=$SAMPLE_MS"
  echo "  OCLREDUCTION_KERNEL_DIR=${OCLREDUCTION_KERNEL_DIR:-} XDG_CACHE_HOME=${XDG_CACHE_HOME:-}"
  echo "  PLACEMENTS=$PLACEMENTS LATENCY_ARGS=${LATENCY_ARGS:-}"
} > "$out/env.txt"
[ -n "$smi" ] && nvidia-smi -q -d CLOCK,PERFORMANCE,POWER > "$out/smi-before.txt" 2>&1 || true

sampler=
if [ -n "$smi" ] && [ "$SAMPLE_MS" -gt 0 ]; then
  nvidia-smi -i "$gpu" --format=csv -lms "$SAMPLE_MS" \
    --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw$reasons \
    > "$out/clocks-sampled.csv" 2> /dev/null &
  sampler=$!
fi
stop_sampler() {
  if [ -n "$sampler" ]; then
    kill "$sampler" 2> /dev/null || true
    wait "$sampler" 2> /dev/null || true
  fi
  sampler=
}
trap stop_sampler EXIT

raw=$out/raw.csv
echo "label,time_s,clocks_sm,clocks_mem,pstate,power,temp,event_reasons" > "$out/clocks.csv"
: > "$raw"
start=$SECONDS status=0 proc=0 np=${#places[@]}
for r in $(seq "$ROUNDS"); do
  if [ "$DURATION" -gt 0 ] && [ $((SECONDS - start)) -ge "$DURATION" ]; then
    echo "latency_placement: $DURATION s reached after $((r - 1)) rounds" | tee -a "$out/env.txt" >&2
    break
  fi
  rev=()
  [ $((r % 2)) = 0 ] && rev=(--reverse)
  for k in $(seq 0 $((np - 1))); do
    p=${places[$(((k + r - 1) % np))]}
    label=${p%%=*} prefix=${p#*=}
    proc=$((proc + 1))
    read -r -a pre <<< "$prefix"
    cmd=("${pre[@]}" "$LATENCY" -p "$PLATFORM" -d "$DEVICE" --sides "$SIDES" --sizes "$SIZES"
      --types "$TYPES" -r "$REPS" -w "$WARMUP" --round "$r" "${rev[@]}" --no-header)
    read -r -a extra <<< "${LATENCY_ARGS:-}"
    cmd+=("${extra[@]}")
    clocks "$label $proc before,$((SECONDS - start))" >> "$out/clocks.csv"
    rc=0
    timeout 120 "${cmd[@]}" > "$out/rows.tmp" 2>> "$out/log.txt" || rc=$?
    sed "s/^/$label,$proc,/" "$out/rows.tmp" >> "$raw"
    clocks "$label $proc after,$((SECONDS - start))" >> "$out/clocks.csv"
    echo "latency_placement: round $r process $proc $label ($prefix): exit $rc" | tee -a "$out/log.txt" >&2
    [ "$rc" = 1 ] && [ "$status" = 0 ] && status=1
    [ "$rc" -gt 1 ] && status=3
  done
done
stop_sampler
rm -f "$out/rows.tmp"
{
  echo "== /proc/interrupts (nvidia), after"; sed -n '1p;/nvidia/p' /proc/interrupts 2> /dev/null || true
} >> "$out/topology.txt"
[ -n "$smi" ] && nvidia-smi -q -d CLOCK,PERFORMANCE,POWER > "$out/smi-after.txt" 2>&1 || true
grep -h "device: " "$out/log.txt" | sort -u >> "$out/env.txt" || true
echo "elapsed: $((SECONDS - start)) s, $proc processes" >> "$out/env.txt"
python3 "$root/bench/latency/placement_summary.py" "$raw" > "$out/summary.md" || status=3
cat "$out/summary.md"
exit "$status"
