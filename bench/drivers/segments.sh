#!/usr/bin/env bash
# segments.sh [OCR] [N] [R] [KS...] - the library's segmented reduction
# (oclReduction --segments K) over K values at N elements: one line per K with
# the median kernel time of R timed runs, GB/s and the verdict. Extra
# oclReduction options go in $OCR_ARGS (e.g. "-t gpu --type float").
#   bench/drivers/segments.sh build/oclReduction 256M 20 1 100 10000 100000 1000000
set -euo pipefail
ocr=${1:-build/oclReduction} n=${2:-16M} r=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(1 100 10000 100000 1000000)
printf '%-10s %-10s %12s %12s %10s  %s\n' K N kernel_ms min_ms GB/s verdict
for k in "${ks[@]}"; do
  # shellcheck disable=SC2086
  json=$("$ocr" --segments "$k" -s "$n" -r "$r" --format json ${OCR_ARGS:-} || true)
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%-10d %-10d %12.4f %12.4f %10.2f  %s" % (d["k"], d["n"], d["kernel_ms"], d["kernel_ms_min"], d["gbps"], d["verdict"]))' "$json"
done
