#!/usr/bin/env bash
# fuzz_run.sh FUZZER CORPUS SECONDS - runs the libFuzzer binary for a bounded
# time from a copy of the seed corpus. A crash fails the test and prints the
# input; add that file to tests/fixtures/fuzz_corpus/ so fuzz.corpus_replay keeps it.
set -u
fuzzer=$1 corpus=$2 secs=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$corpus"/* "$tmp/" 2>/dev/null
mkdir -p "$tmp/art"
"$fuzzer" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -close_fd_mask=2 \
  -artifact_prefix="$tmp/art/" "$tmp" > "$tmp/log" 2>&1
rc=$?
tail -3 "$tmp/log"
if [ "$rc" != 0 ] || [ -n "$(ls "$tmp/art")" ]; then
  echo "FAIL: the fuzzer stopped with status $rc; crashing input(s), as od -c:"
  for f in "$tmp"/art/*; do echo "$f"; od -c "$f" | head -5; done
  grep -E "ERROR|SUMMARY" "$tmp/log" | head -10
  exit 1
fi
echo "ok: $secs s of fuzzing, no crash"
