#!/usr/bin/env bash
# oclgrind.sh RC CMD ARGS... - runs CMD under oclgrind with data-race,
# uninitialized-value and API checks (out-of-bounds checks are always on).
# Passes when CMD exits with RC and oclgrind printed no diagnostic at all.
set -u
want=$1; shift
err=$(mktemp); out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
oclgrind --data-races --uninitialized --check-api "$@" >"$out" 2>"$err"
rc=$?
if [ "$rc" != "$want" ] || [ -s "$err" ]; then
  echo "FAIL: exit status $rc (expected $want); oclgrind diagnostics below, if any"
  head -c 20000 "$err"; cat "$out"
  exit 1
fi
grep -E "^Test (PASSED|FAILED)" "$out"
echo "ok: no oclgrind diagnostics: $*"
