#!/usr/bin/env bash
# sweep_test.sh SRC OCR - a tiny sweep must produce the CSV (header plus one row
# per kernel x size), the comparison table and two non-empty PNG plots.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OCR=$2 "$src/bench/drivers/sweep.sh" -k "0 6 7" -s "10 12" -n 11 -r 1 -o "$tmp" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
rows=$(wc -l < "$tmp/sweep.csv")
[ "$rows" = 10 ] || { echo "sweep.csv has $rows lines, expected 10"; exit 1; }
head -1 "$tmp/sweep.csv" | grep -q "^kernel,type,op,n," || { echo "sweep.csv lacks its header"; exit 1; }
[ "$(grep -c "^reduce[067] " "$tmp/table.txt")" = 3 ] || { echo "table:"; cat "$tmp/table.txt"; exit 1; }
for p in bandwidth breakdown; do
  [ -s "$tmp/$p.png" ] || { echo "$p.png missing or empty"; exit 1; }
  head -c 8 "$tmp/$p.png" | od -An -c | grep -q "P   N   G" || { echo "$p.png is not a PNG"; exit 1; }
done
cat "$tmp/table.txt"
echo "ok: sweep wrote the CSV ($rows lines), the table and both plots"
