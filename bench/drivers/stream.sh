#!/usr/bin/env bash
# stream.sh OUTDIR - streaming (docs/streaming.md) on the first GPU: 4G
# ints and 2G doubles with --stream (default chunk, and 16M-element chunks),
# then -s twice the GPU's CL_DEVICE_MAX_MEM_ALLOC_SIZE for int and double,
# which streams without being asked. Each report gives the end-to-end rate
# (input generated on the fly), the rate with the input ready in host memory,
# one chunk's pinned H2D rate, and the sustained pinned H2D rate over the same
# bytes in the same chunks (copies only), alternated with the ready stream:
# "Input ready / sustained pinned H2D" is the figure the goal (>= 0.95) is for.
# Environment: OCR (default build/oclReduction), DEVTYPE (default gpu).
set -uo pipefail
OUT=${1:?usage: stream.sh OUTDIR}
mkdir -p "$OUT"
B=${OCR:-$(dirname "$0")/../../build/oclReduction}
T=${DEVTYPE:-gpu}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; nproc; } > "$OUT/env.txt"
"$B" --list > "$OUT/list.txt" 2>&1
# the max allocation of the first device of the type asked for
want=$(echo "$T" | tr a-z A-Z)
ma=$(awk -v w="[$want]" 'index($0, w) {hit = 1} hit && /max allocation/ {for (i = 1; i <= NF; i++) if ($i == "allocation") {print $(i + 1); exit}}' "$OUT/list.txt")
echo "max allocation MiB: $ma" >> "$OUT/env.txt"
"$B" -n 7 --stream -s 4G --type int -t "$T" > "$OUT/stream_4g_int.txt" 2>&1
"$B" -n 7 --stream -s 4G --type int -t "$T" --format json > "$OUT/stream_4g_int.json" 2>&1
"$B" -n 7 --stream -s 4G --type int -t "$T" --chunk 16M > "$OUT/stream_4g_int_chunk16M.txt" 2>&1
"$B" -n 7 --stream -s 2G --type double -t "$T" > "$OUT/stream_2g_double.txt" 2>&1
for t in int:4 double:8; do
  ty=${t%:*} sz=${t#*:}
  n=$((ma * 1024 * 1024 / sz * 2 + 7))
  echo "$ty n=$n" >> "$OUT/env.txt"
  "$B" -n 7 -s "$n" --type "$ty" -t "$T" > "$OUT/beyond_$ty.txt" 2>&1
  echo "rc=$?" >> "$OUT/beyond_$ty.txt"
done
for f in "$OUT"/*.txt; do
  echo "== $f"
  grep -E "Streaming|Chunks|Test|T wall|End to end|Pinned|Input ready|Sustained|rc=|rror" "$f"
done
