#!/usr/bin/env bash
# sweep_kernel_file_test.sh SRC OCR - bench/drivers/sweep.sh over a --kernel-file: no -n
# is passed (oclReduction refuses it there), every row names the user kernel
# and passed its check, the table has its row; -k with --kernel-file is a
# usage error.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
user=(--kernel-file "$src/docs/labs/starter.cl" --kernel-name my_reduce --elems-per-group 1024)
OCR=$2 "$src/bench/drivers/sweep.sh" -s "10 12" -n 11 -r 1 -o "$tmp" -- "${user[@]}" 2>"$tmp/log" \
  || { cat "$tmp/log"; exit 1; }
[ "$(wc -l < "$tmp/sweep.csv")" = 4 ] || { echo "FAIL: sweep.csv:"; cat "$tmp/sweep.csv"; exit 1; }
[ "$(grep -c '^my_reduce,int,sum,' "$tmp/sweep.csv")" = 3 ] || { echo "FAIL: rows do not name my_reduce"; exit 1; }
[ "$(grep -c '^my_reduce ' "$tmp/table.txt")" = 1 ] || { echo "FAIL: no table row for my_reduce"; exit 1; }
passed=$(head -1 "$tmp/sweep.csv" | tr ',' '\n' | grep -nx passed | cut -d: -f1)
bad=$(sed -E 's/"[^"]*"/""/g' "$tmp/sweep.csv" | awk -F, -v c="$passed" 'NR > 1 && $c != 1' | wc -l)
[ "$bad" = 0 ] || { echo "FAIL: $bad row(s) failed their check"; exit 1; }
rc=0
OCR=$2 "$src/bench/drivers/sweep.sh" -k 6 -s "10 10" -r 1 -o "$tmp/k" -- "${user[@]}" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "cannot go with --kernel-file" "$tmp/err" \
  || { echo "FAIL: -k with --kernel-file: exit $rc, stderr:"; cat "$tmp/err"; exit 1; }
echo "ok: the sweep ran the --kernel-file kernel at 3 sizes; -k with it is refused"
