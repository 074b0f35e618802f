#!/usr/bin/env bash
# oclgrind_quote_test.sh OCR SRC - oclgrind names each race by file and line
# ("At line L (column C) of FILE:") and quotes a source line under it. The quote
# must be line L of FILE: the host's #line markers and the source string that
# oclgrind quotes from must agree. Uses the race lab, whose races oclgrind
# always reports.
set -u
ocr=$1 src=$2
file=$src/cl/lab/race_tail.cl
out=$(oclgrind --data-races "$ocr" -n race_tail -s 4103 -r 1 2>&1 >/dev/null)
checked=0 bad=0
while IFS= read -r at && IFS= read -r quote; do
  line=$(sed -E -n 's/.*At line ([0-9]+) \(column [0-9]+\) of (.*):$/\1/p' <<<"$at")
  name=$(sed -E -n 's/.*At line [0-9]+ \(column [0-9]+\) of (.*):$/\1/p' <<<"$at")
  [ -n "$line" ] && [ "${name##*/}" = race_tail.cl ] || continue
  want=$(sed -n "${line}p" "$file" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')
  got=$(sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//' <<<"$quote")
  checked=$((checked + 1))
  if [ "$got" != "$want" ]; then
    bad=$((bad + 1))
    [ "$bad" -le 5 ] && printf 'FAIL: %s\n  quoted: %s\n  line %s: %s\n' "$at" "$got" "$line" "$want"
  fi
done < <(grep -A1 -E "At line [0-9]+ \(column [0-9]+\) of " <<<"$out" | grep -v '^--$')
echo "$checked quotes checked, $bad wrong"
[ "$checked" -gt 0 ] && [ "$bad" = 0 ]
