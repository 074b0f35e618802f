#!/usr/bin/env bash
# peers.sh - our reduce7 against CLBlast, Boost.Compute and PyOpenCL on one
# OpenCL device, in one run: a table of times and ratios, and a CSV.
#
#   bench/drivers/peers.sh [OUTDIR [ocr_peers options: -p P -d D -t gpu|cpu]]
#
# Environment: PEERS (the ocr_peers binary; default build/bench/ocr_peers, built
# with -DOCR_BUILD_BENCH=ON), KDIR (kernel directory; default this checkout's cl/),
# SIZES (log2 sizes; default "20 25 28" on a GPU, "20 23 25" on a CPU), TYPES
# (default "int float"), REPS (timed calls per side; default 20 on a GPU, 5 on
# a CPU), BUDGET (seconds of timed calls per side and size at most; default
# 10), PYTHON (a python3 that imports pyopencl.array and pyopencl.reduction,
# which recent PyOpenCL releases build on mako; default: python3, then
# /usr/bin/python3).
#
# What runs: ocr_peers (bench/peers/peers.c: ours, CLBlast, Boost.Compute, in one
# process over one device buffer), then bench/peers/peers_pyopencl.py on the same
# device. A peer that is not there is skipped with a message; the header of
# bench/peers/peers.c says what each side's timed region holds.
#
# Writes under OUTDIR (default: a new directory under $TMPDIR): peers.csv (every row, plus ratio
# and ratio_m1), peers.md (the tables below, in Markdown), env.txt, log.txt.
#
# ratio = peer's median time / our median time (reduce7 with the library's
# defaults): above 1, ours is faster by that factor. ratio_m1 is the same
# against reduce7 with M = 1 (every pass on the device). A peer whose answer
# differs from the exact sum is marked WRONG in the table and in peers.csv
# and left out of "best peer".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PEERS=${PEERS:-$root/build/bench/ocr_peers}
KDIR=${KDIR:-$root/cl}
[ -x "$PEERS" ] || { echo "peers.sh: no $PEERS (cmake -B build -DOCR_BUILD_BENCH=ON && cmake --build build --target ocr_peers, or set PEERS)" >&2; exit 2; }
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ocr-peers.XXXXXX")}
[ $# -gt 0 ] && shift
cmdline="bench/drivers/peers.sh $out $*"
mkdir -p "$out"
args=(--kernel-dir "$KDIR" "$@")
[ -n "${SIZES:-}" ] && args+=(--sizes "$SIZES")
[ -n "${TYPES:-}" ] && args+=(--types "$TYPES")
[ -n "${REPS:-}" ] && args+=(-r "$REPS")
[ -n "${BUDGET:-}" ] && args+=(--budget "$BUDGET")

# Progress and messages go to the terminal and log.txt, rows to raw.csv.
: > "$out/log.txt"
rc=0
{ "$PEERS" "${args[@]}" 2>&1 >&3 | tee -a "$out/log.txt" >&2; } 3> "$out/raw.csv" || rc=$?
py_args=$("$PEERS" "${args[@]}" --which)

# PyOpenCL, in its own process, on the device ocr_peers used.
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import pyopencl.array, pyopencl.reduction' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "peers.sh: PyOpenCL skipped: no python3 here imports pyopencl (Debian: apt-get install python3-pyopencl)" | tee -a "$out/log.txt" >&2
else
  eval "set -- $py_args"
  # The same device by name: PyOpenCL's own ICD loader may number platforms otherwise.
  name=$(awk -F, 'NR == 2 { print $3 }' "$out/raw.csv")
  [ -n "$name" ] && set -- "$@" --name "$name"
  [ -n "${TYPES:-}" ] && set -- "$@" --types "$TYPES"
  { "$py" "$root/bench/peers/peers_pyopencl.py" "$@" --no-header 2>&1 >&3 | tee -a "$out/log.txt" >&2; } 3>> "$out/raw.csv" ||
    echo "peers.sh: PyOpenCL failed (see $out/log.txt)" | tee -a "$out/log.txt" >&2
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "host: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  awk -F, 'NR == 2 { print "device: " $3 ", driver " $4 }' "$out/raw.csv"
  grep -h '^ocr_peers: .*platform\|Boost.Compute of\|PyOpenCL [0-9]' "$out/log.txt" | sed 's/^/  /' || true
  [ -f "$(dirname "$PEERS")/libclblast.version" ] && echo "  CLBlast: $(cat "$(dirname "$PEERS")/libclblast.version")"
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-(unset, so /etc/OpenCL/vendors)}"
  echo "command: $cmdline  (SIZES=${SIZES:-default} TYPES=${TYPES:-default} REPS=${REPS:-default} BUDGET=${BUDGET:-default})"
} > "$out/env.txt"

# Ratios against ours and ours_m1 of the same type and size.
awk -F, -v OFS=, '
  NR == FNR { if (FNR > 1) { if ($7 == "ours") o[$5, $6] = $8; if ($7 == "ours_m1") m[$5, $6] = $8 }; next }
  FNR == 1 { print $0, "ratio", "ratio_m1"; next }
  { r = o[$5, $6] > 0 ? sprintf("%.3f", $8 / o[$5, $6]) : ""
    r1 = m[$5, $6] > 0 ? sprintf("%.3f", $8 / m[$5, $6]) : ""
    print $0, r, r1 }' "$out/raw.csv" "$out/raw.csv" > "$out/peers.csv"

# The tables: every side, then the best correct peer per type and size.
awk -F, '
  function l2(n,  k) { k = 0; while (n > 1) { n /= 2; k++ } return "2^" k }
  NR == 1 { next }
  { key = $5 SUBSEP $6
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    split($14, c, "/"); ok = (c[1] == c[2])
    row[key] = row[key] sprintf("| %s | %s | %s | %.4g | %.4g | %s | %s | %s |\n", $5, l2($6), $7, $8, $10,
                                $16, $17, ok ? $14 : "**WRONG** " $12 " (exact " $13 ")")
    if ($7 == "ours") ours[key] = $8
    if ($7 == "ours_m1") ours1[key] = $8
    if ($7 !~ /^ours/ && ok && (!(key in best) || $8 < best[key])) { best[key] = $8; bestname[key] = $7 }
  }
  END {
    print "| type | n | side | median ms | GB/s | ratio | ratio M=1 | answers right |"
    print "|---|---:|---|---:|---:|---:|---:|---|"
    for (i = 1; i <= nk; i++) printf "%s", row[keys[i]]
    print ""
    print "| type | n | best peer | its ms | ours ms | ours M=1 ms | ratio | ratio M=1 |"
    print "|---|---:|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nk; i++) {
      k = keys[i]; split(k, p, SUBSEP)
      if (k in best)
        printf "| %s | %s | %s | %.4g | %.4g | %.4g | %.3f | %.3f |\n", p[1], l2(p[2]), bestname[k], best[k],
               ours[k], ours1[k], best[k] / ours[k], best[k] / ours1[k]
    }
  }' "$out/peers.csv" > "$out/peers.md"
cat "$out/env.txt"
echo
cat "$out/peers.md"
echo
echo "ratio = peer median / our median (reduce7, library defaults): > 1 means ours is faster. Files: $out/"
exit $rc
