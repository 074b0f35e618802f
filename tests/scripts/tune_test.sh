#!/usr/bin/env bash
# tune_test.sh OCR - --tune with a tiny budget writes a cache entry (in a
# private XDG_CACHE_HOME) that the next reduce7 run reads; a corrupt line and
# an entry tuned for another version of reduce7.cl are ignored with a note.
set -u
ocr=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp
cache=$tmp/oclreduction/tune.tsv
fail=0
no() { echo "FAIL: $*"; fail=1; }
"$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1
grep -q "^Tuning: built-in defaults" "$tmp/out" || no "no cache: expected the built-in defaults"
"$ocr" --tune -s 64K --tune-budget 1 > "$tmp/out" 2>&1 || no "--tune exited $?"
grep -q "^Stored in $cache;" "$tmp/out" || no "--tune did not say where it stored"
[ "$(wc -l < "$cache")" = 1 ] || no "expected one cache entry"
cat "$tmp/out"
"$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1
grep -q "^Tuning: tuned for this device ($cache)" "$tmp/out" || no "the next run did not use the entry"
grep -q "^Test PASSED!" "$tmp/out" || no "the tuned run did not pass"
groups=$(cut -f7 "$cache")
grep -q "finished on the CPU (M = $groups)" "$tmp/out" || no "the run's groups are not the tuned $groups"
# An entry for another version of the kernel: ignored, with a note.
awk -F'\t' -v OFS='\t' '{ $5 = "123"; print }' "$cache" > "$cache.new" && mv "$cache.new" "$cache"
"$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1
grep -q "note: ignored the tuning in $cache: reduce7.cl changed" "$tmp/out" || no "a stale entry was not noted"
grep -q "^Tuning: built-in defaults" "$tmp/out" || no "a stale entry was used"
# A corrupt file: ignored, with a note, and --tune rewrites it cleanly.
printf 'garbage\n' > "$cache"
"$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1
grep -q "note: ignored line 1 of $cache: not a tuning entry" "$tmp/out" || no "a corrupt line was not noted"
grep -q "^Test PASSED!" "$tmp/out" || no "a corrupt cache broke the run"
"$ocr" --tune -s 64K --tune-budget 1 > /dev/null 2>&1 && [ "$(grep -c . "$cache")" = 1 ] &&
  ! grep -q garbage "$cache" || no "--tune did not replace the corrupt line"
# Options that decide the geometry themselves bypass the cache.
"$ocr" -n 7 -w 4 -s 64K -r 1 > "$tmp/out" 2>&1
grep -q "^Tuning:" "$tmp/out" && no "-w should bypass the tuning"
[ "$fail" = 0 ] && echo "ok: --tune writes, reads, and ignores stale and corrupt entries"
[ "$fail" = 0 ]
