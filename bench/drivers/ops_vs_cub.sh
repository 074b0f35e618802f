#!/usr/bin/env bash
# ops_vs_cub.sh OUTDIR - issue 27's operations on one NVIDIA GPU, in one run:
# our argmax against CUB's DeviceReduce::ArgMax, our segmented sum (oclReduction
# --segments K) against DeviceSegmentedReduce::Sum over the same offsets, and
# our accurate float sum against the plain one, all at N = 2^SIZE_LOG2.
#
# Every round runs every comparison once, in alternating order (ours first in
# odd rounds, CUB first in even ones; plain first in odd rounds) so that clock
# and thermal drift fall on both sides alike; the median over rounds of each
# run's median (of REPS timed runs) is kept. Times are kernel event times:
# JSON median.t_kernels_ms (kernel_ms for --segments) for ours, CUDA events
# around the CUB call for CUB (bench/cub/cub_ops.cu). Every run is checked: ours
# by its own verdict, CUB's by cub_ops (planted extremum; segment sums against
# the host); the segment offsets of both are compared once per K (shortest and
# longest segment). A run that fails is recorded with passed 0, and the script
# goes on but exits 1 at the end.
#
# Environment: OCR (default build/oclReduction), CUB_OPS (cub_ops; built here
# with ${NVCC:-nvcc} -O3 -arch=sm_90 when unset; "none": no CUB side, for
# testing the plumbing without CUDA), OCR_DEVICE_ARGS (default "-t gpu"),
# SIZE_LOG2 (default 28), REPS (default 20), ROUNDS (default 5), KS (segment
# counts; default "100 10000 1000000"), SEG_TYPES (default "float int"),
# ARG_OPS (default "argmax"; "argmax argmin" adds argmin), DEADLINE_S (default
# 450: no round is started that would end, at the pace of the slowest so far,
# later than this many seconds after the start, build included; at least 2
# rounds are run). OCLREDUCTION_KERNEL_DIR is inherited. Ours runs with a fresh
# cache, OUTDIR/cache (built-in defaults: no tune.tsv from an earlier --tune).
#
# Writes OUTDIR/env.txt, OUTDIR/raw.csv (round,contender,what,type,n,k,
# median_ms,passed), OUTDIR/log.txt (every command and its stderr) and
# OUTDIR/summary.txt (also printed): ratio cub/ours above 1 means ours is
# faster; plain/accurate is the accurate sum's throughput relative to the plain.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: ops_vs_cub.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
OCR=${OCR:-$root/build/oclReduction}
SIZE_LOG2=${SIZE_LOG2:-28}
REPS=${REPS:-20}
ROUNDS=${ROUNDS:-5}
KS=${KS:-"100 10000 1000000"}
SEG_TYPES=${SEG_TYPES:-"float int"}
ARG_OPS=${ARG_OPS:-argmax}
DEADLINE_S=${DEADLINE_S:-450}
OCR_DEVICE_ARGS=${OCR_DEVICE_ARGS-"-t gpu"}
read -ra dev <<< "$OCR_DEVICE_ARGS"
n=$((1 << SIZE_LOG2))
seed=1 # oclReduction's default --seed: the offsets of --segments K
start=$SECONDS
log=$out/log.txt
raw=$out/raw.csv
: > "$log"
export XDG_CACHE_HOME=$out/cache

if [ -z "${CUB_OPS:-}" ]; then
  CUB_OPS=$out/cub_ops
  echo "building $CUB_OPS" >&2
  "${NVCC:-nvcc}" -O3 -arch=sm_90 "$root/bench/cub/cub_ops.cu" -o "$CUB_OPS"
  built_with=$("${NVCC:-nvcc}" --version | tail -1)
fi
cub=1
[ "$CUB_OPS" = none ] && cub=0
help=$("$OCR" --help)
for opt in ${KS:+--segments} --accurate; do
  [[ $help == *"$opt"* ]] || { echo "FAILED: $OCR has no $opt option (an older build?)" >&2; exit 1; }
done

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader ||
      echo "nvidia-smi failed"
  else
    echo "nvidia-smi: not found"
  fi
  "$OCR" --list | sed -n '1,10p'
  "$OCR" -n 7 ${dev[@]+"${dev[@]}"} -s 1M -r 1 --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("ours runs on: %s (%s, driver %s), %s" % (d["device"], d["platform"], d["driver"], d["device_version"]))'
  if [ "$cub" = 1 ]; then "$CUB_OPS" version; else echo "CUB: none (CUB_OPS=none)"; fi
  [ -z "${built_with:-}" ] || echo "cub_ops built here: nvcc -O3 -arch=sm_90 ($built_with)"
  echo "command: $0 $*  (OCR=$OCR CUB_OPS=$CUB_OPS OCR_DEVICE_ARGS=\"$OCR_DEVICE_ARGS\"" \
    "SIZE_LOG2=$SIZE_LOG2 REPS=$REPS ROUNDS=$ROUNDS KS=\"$KS\" SEG_TYPES=\"$SEG_TYPES\"" \
    "ARG_OPS=\"$ARG_OPS\" DEADLINE_S=$DEADLINE_S OCLREDUCTION_KERNEL_DIR=${OCLREDUCTION_KERNEL_DIR:-})"
} | tee "$out/env.txt"

echo "round,contender,what,type,n,k,median_ms,passed" > "$raw"
failed=0
round=0

# fail MESSAGE: loud, and remembered for the exit status.
fail() {
  failed=$((failed + 1))
  echo "FAILED: $*" | tee -a "$log" >&2
}

# ours CONTENDER WHAT TYPE K ARGS...: one oclReduction process, one raw row.
# Its segment lengths go to $seg_lengths ("min,max"; empty for single runs).
ours() {
  local contender=$1 what=$2 type=$3 k=$4 json res ms ok
  shift 4
  echo "+ $OCR $*" >> "$log"
  json=$("$OCR" "$@" 2>> "$log") || true # its verdict is in the JSON
  res=$(python3 -c '
import json, sys
try:
    d = json.loads(sys.argv[1])
except ValueError:
    print("nan,0,"); sys.exit()
if d.get("segments"):
    print("%s,%d,%s,%s" % (d["kernel_ms"], d["verdict"] == "PASSED", d["min_length"], d["max_length"]))
else:
    print("%s,%d," % (d["median"]["t_kernels_ms"], d["passed"] is True))' "$json")
  IFS=, read -r ms ok seg_lengths <<< "$res"
  echo "$round,$contender,$what,$type,$n,$k,$ms,$ok" >> "$raw"
  [ "$ok" = 1 ] || fail "round $round: ours $what $type${k:+ K=$k} (see $log): ${json:0:300}"
}

# cubrun WHAT TYPE K ARGS...: one cub_ops process, one raw row.
cubrun() {
  local what=$1 type=$2 k=$3 row ms ok=1
  shift 3
  [ "$cub" = 1 ] || return 0
  echo "+ $CUB_OPS $*" >> "$log"
  row=$("$CUB_OPS" "$@" 2>> "$log") || ok=0
  if [ "$what" = segsum ]; then ms=$(cut -d, -f6 <<< "$row"); else ms=$(cut -d, -f5 <<< "$row"); fi
  [ -n "$ms" ] || ms=nan ok=0
  echo "$round,cub,$what,$type,$n,$k,$ms,$ok" >> "$raw"
  [ "$ok" = 1 ] || fail "round $round: cub $* (see $log)"
}

# pair A B ARGS...: A then B in odd rounds, B then A in even ones.
pair() {
  local a=$1 b=$2
  shift 2
  if ((round % 2)); then "$a" "$@"; "$b" "$@"; else "$b" "$@"; "$a" "$@"; fi
}

ours_arg() { ours ours "$1" float "" -n 7 ${dev[@]+"${dev[@]}"} --op "$1" --type float -s "$n" \
  -r "$REPS" --cpu-baseline none --format json; }
cub_arg() { cubrun "$1" float "" "$1" float "$REPS" "$n"; }
ours_seg() {
  ours ours segsum "$1" "$2" --segments "$2" ${dev[@]+"${dev[@]}"} --type "$1" -s "$n" \
    -r "$REPS" --format json
  if [ "$cub" = 1 ] && [ "$round" = 1 ]; then # the same offsets as CUB's?
    local theirs
    theirs=$("$CUB_OPS" offsets "$n" "$2" "$seed" | cut -d, -f5,6)
    echo "segment lengths (min,max) at K=$2: oclReduction $seg_lengths, cub_ops $theirs" >> "$log"
    [ "$theirs" = "$seg_lengths" ] ||
      fail "segment lengths differ at K=$2: oclReduction $seg_lengths, cub_ops $theirs"
  fi
}
cub_seg() { cubrun segsum "$1" "$2" segsum "$1" "$REPS" "$n" "$2" "$seed"; }
plain() { ours ours sum_plain float "" -n 7 ${dev[@]+"${dev[@]}"} --type float --data uniform \
  -s "$n" -r "$REPS" --cpu-baseline none --format json; }
accurate() { ours ours sum_accurate float "" -n 7 ${dev[@]+"${dev[@]}"} --accurate --type float \
  --data uniform -s "$n" -r "$REPS" --cpu-baseline none --format json; }

slowest=0
for ((round = 1; round <= ROUNDS; round++)); do
  t0=$SECONDS
  for op in $ARG_OPS; do pair ours_arg cub_arg "$op"; done
  for t in $SEG_TYPES; do
    for k in $KS; do pair ours_seg cub_seg "$t" "$k"; done
  done
  pair plain accurate
  took=$((SECONDS - t0))
  ((took > slowest)) && slowest=$took
  echo "round $round/$ROUNDS done in ${took} s ($((SECONDS - start)) s since the start)" >&2
  if ((round >= 2 && round < ROUNDS && SECONDS - start + slowest > DEADLINE_S)); then
    echo "stopping after $round rounds: another would end past DEADLINE_S=$DEADLINE_S s" |
      tee -a "$out/env.txt" >&2
    break
  fi
done

python3 - "$raw" "$out/summary.txt" "$((SECONDS - start))" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = []
for r in rows:
    k = (r['contender'], r['what'], r['type'], int(r['n']), r['k'])
    if k not in keys:
        keys.append(k)
def sel(key):
    return [r for r in rows if (r['contender'], r['what'], r['type'], int(r['n']), r['k']) == key]
def med(key):
    v = [float(r['median_ms']) for r in sel(key)]
    return statistics.median(v) if v else float('nan')
def gbs(key, ms):
    _, what, t, n, k = key
    b = 4 * n  # float and int
    if what == 'segsum':
        k = int(k)
        b += (k + 1) * (4 if n <= 2**32 - 1 else 8) + 4 * k
    return b / (ms * 1e6)
def log2(n):
    return '2^%d' % (n.bit_length() - 1) if n & (n - 1) == 0 else str(n)
rounds = sorted({int(r['round']) for r in rows})
lines = ['%d rounds, %d s; median over rounds of each run\'s median kernel time' %
         (len(rounds), int(sys.argv[3])), '',
         '%-7s %-13s %-6s %-6s %-8s %11s %9s %7s %s' %
         ('side', 'what', 'type', 'N', 'K', 'ms', 'GB/s', 'rounds', 'passed')]
for key in keys:
    ms = med(key)
    ok = all(r['passed'] == '1' for r in sel(key))
    lines.append('%-7s %-13s %-6s %-6s %-8s %11.5f %9.1f %7d %s' %
                 (key[0], key[1], key[2], log2(key[3]), key[4] or '-', ms, gbs(key, ms),
                  len(sel(key)), 'yes' if ok else 'NO'))
lines += ['', 'ratios (cub/ours above 1: ours is faster; plain/accurate: the accurate '
          'sum\'s throughput relative to the plain one, the issue asks >= 0.95):']
for key in keys:
    c, what, t, n, k = key
    if c != 'ours':
        continue
    if what in ('argmax', 'argmin', 'segsum') and ('cub', what, t, n, k) in keys:
        lines.append('  %-7s %-6s N=%-5s %-10s cub/ours = %.3f' %
                     (what, t, log2(n), 'K=' + k if k else '', med(('cub', what, t, n, k)) / med(key)))
    if what == 'sum_accurate' and ('ours', 'sum_plain', t, n, k) in keys:
        lines.append('  %-7s %-6s N=%-5s %-10s plain/accurate = %.3f' %
                     ('sum', t, log2(n), '', med(('ours', 'sum_plain', t, n, k)) / med(key)))
bad = sum(r['passed'] != '1' for r in rows)
lines += ['', 'all %d runs passed' % len(rows) if not bad else '%d of %d runs FAILED' % (bad, len(rows))]
text = '\n'.join(lines) + '\n'
open(sys.argv[2], 'w').write(text)
sys.stdout.write(text)
EOF
if [ "$failed" != 0 ]; then
  echo "FAILED: $failed check(s) failed; see $log" >&2
  exit 1
fi
