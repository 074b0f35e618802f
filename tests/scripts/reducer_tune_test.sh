#!/usr/bin/env bash
# reducer_tune_test.sh OCR TEST - ocr_reducer_create takes the entry that
# `oclReduction --tune` wrote (in a private XDG_CACHE_HOME): the reducer's
# geometry is the file's int entry, and still the file's after its group
# count is changed to 13, which no default has.
set -u
ocr=$1
t=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# POCL's own cache stays where it was (see test_reducer_calls.c).
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl}
export XDG_CACHE_HOME=$tmp
cache=$tmp/oclreduction/tune.tsv
# The device test_reducer_calls opens: the first platform's first device.
if ! "$ocr" --tune -p 0 -d 0 -t all -s 64K --tune-budget 1 > "$tmp/out" 2>&1; then
  cat "$tmp/out"
  echo "FAIL: --tune failed"
  exit 1
fi
"$t" tunecache "$cache" || exit 1
awk -F'\t' -v OFS='\t' '{ $7 = 13; print }' "$cache" > "$cache.new" && mv "$cache.new" "$cache"
[ "$(cut -f7 "$cache")" = 13 ] || { echo "FAIL: could not edit $cache"; exit 1; }
"$t" tunecache "$cache" || exit 1
echo "ok: the reducer takes --tune's entry, and the file's values"
