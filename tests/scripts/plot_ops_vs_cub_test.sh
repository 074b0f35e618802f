#!/bin/sh
# bench/cub/plot_ops_vs_cub.py: the ratios it prints and draws are CUB's median over
# rounds divided by ours (the published H100 run, whose table in
# docs/perf/ops.md says 1.042 for argmax and 3.228 for int sums of 10^6
# segments), rows that did not pass are left out, and no comparison at all is
# an error.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plot="python3 $src/bench/cub/plot_ops_vs_cub.py"
raw=$src/bench/results/ops/h100-2026-11-25/raw.csv
$plot "$tmp/a.svg" H100="$raw" > "$tmp/out.txt"
grep -q "^H100	argmax float	1.042$" "$tmp/out.txt" || { echo "FAIL: argmax ratio"; cat "$tmp/out.txt"; exit 1; }
grep -q "^H100	segsum int K=1,000,000	3.228$" "$tmp/out.txt" || { echo "FAIL: segsum ratio"; exit 1; }
[ "$(grep -c '<rect x=.*height="12"' "$tmp/a.svg")" -eq "$(wc -l < "$tmp/out.txt")" ] ||
  { echo "FAIL: one bar per ratio"; exit 1; }
# ours failed at argmax in every round: no argmax ratio
awk -F, 'NR > 1 && $2 == "ours" && $3 == "argmax" { $8 = 0 } { print }' OFS=, "$raw" > "$tmp/bad.csv"
$plot "$tmp/b.svg" X="$tmp/bad.csv" > "$tmp/out2.txt"
if grep -q argmax "$tmp/out2.txt"; then echo "FAIL: a failed run was plotted"; exit 1; fi
head -1 "$raw" > "$tmp/none.csv"
if $plot "$tmp/c.svg" X="$tmp/none.csv" > /dev/null 2>&1; then echo "FAIL: nothing to plot passed"; exit 1; fi
echo PASSED
