#!/usr/bin/env bash
# strided_fault_test.sh TEST_STRIDED SHIM - every OpenCL call of one strided
# call (ocr_reducer_reduce_strided, its kernel built on first use) failing in
# turn, through the fault shim (tests/unit/shims/fault_shim.c).
#
# A traced run of `test_strided fault TYPE OP` lists the calls; the test
# writes a marker line into the trace before and after the strided call, so
# the calls between them are that call's own. Then, for each of them (the
# K-th call of its entry point, counted from the process's start), a run with
# OCR_FAULT=NAME:K must pass test_strided's own checks: the strided call
# fails with that call's status and a message naming it, nothing reaches
# stderr, and the same call right after gives the right value. No run may
# crash or draw a sanitizer report. clRelease* are traced, not failed (as in
# fault_test.sh).
set -u
prog=$1 shim=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
runs=0 failed=0
for sc in "int sum" "half argmax" "char sum"; do
  rm -f "$tmp/trace"
  # shellcheck disable=SC2086
  if ! OCR_FAULT_TRACE="$tmp/trace" LD_PRELOAD="$shim" "$prog" fault $sc >"$tmp/out" 2>&1; then
    echo "FAIL: the traced run of '$sc' did not pass:"; cat "$tmp/out"; exit 1
  fi
  # name and K of each call between the markers, K counted over the whole run
  awk '/^# strided call$/ {on = 1; next} /^# strided call done$/ {on = 0; next}
       /^#/ {next} {k[$1]++} on && $1 !~ /^clRelease/ {print $1, k[$1]}' "$tmp/trace" > "$tmp/calls"
  [ -s "$tmp/calls" ] || { echo "FAIL: no calls between the markers of '$sc'"; exit 1; }
  echo "scenario '$sc': $(wc -l < "$tmp/calls") calls to fail: $(awk '{print $1}' "$tmp/calls" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')"
  while read -r name k; do
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    OCR_FAULT="$name:$k" LD_PRELOAD="$shim" "$prog" fault $sc >"$tmp/out" 2>&1
    rc=$?
    why=""
    [ "$rc" = 0 ] || why="; exit status $rc"
    grep -qE "Sanitizer|runtime error:" "$tmp/out" && why="$why; sanitizer report"
    grep -q "^ok   injected $name:$k" "$tmp/out" || why="$why; the failure was not reported"
    if [ -n "$why" ]; then
      failed=$((failed + 1))
      echo "FAIL: '$sc' with call $k of $name failing: ${why#; }"
      sed 's/^/    /' "$tmp/out" | head -20
    fi
  done < "$tmp/calls"
done
echo "$((runs - failed)) passed, $failed failed"
[ "$failed" = 0 ] && [ "$runs" -gt 0 ]
