#!/usr/bin/env bash
# tune_edges_test.sh OCR PART - the tuning cache's edges (issue 24), in a
# private XDG_CACHE_HOME:
#   fields  every field of an entry checked: a bad one is ignored with a note
#           naming the file and the real line number (a 5000-character line
#           is one line), and reduce7 runs with its defaults and passes;
#   files   a read-only cache is refused and stays as it was; the mode of a
#           writable one is kept; a symbolic link is refused, kept, and its
#           target not touched;
#   race    two tuners at once keep both entries: the first pauses before its
#           rename until the second waits for the lock ($TUNE_HOOK_SHIM, an
#           LD_PRELOAD library, with OCR_TUNE_TEST_HOOK: unit/shims/tune_hook_shim.c).
set -u
ocr=$1 part=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp
cache=$tmp/oclreduction/tune.tsv
fail=0
no() { echo "FAIL: $*"; fail=1; }
tune() { "$ocr" --tune -s 64K --tune-budget 1 "$@"; }
run7() { "$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1; }

fields() {
  tune > "$tmp/out" 2>&1 || { cat "$tmp/out"; no "--tune exited $?"; return; }
  local good; good=$(cat "$cache")
  # field number (1-based, tab-separated), bad value, what the note says
  while IFS='|' read -r f v why; do
    local line; line=$(awk -F'\t' -v OFS='\t' -v f="$f" -v v="$v" '{ $f = v; print }' <<<"$good")
    { head -c 5000 /dev/zero | tr '\0' x; echo; echo "$good" | sed 's/\t[^\t]*\t/\tanother device\t/'
      echo "$line"; } > "$cache"
    run7; local rc=$?
    [ "$rc" = 0 ] || no "field $f = $v: the run exited $rc"
    grep -q "^Test PASSED!" "$tmp/out" || no "field $f = $v: the run did not pass"
    grep -q "^Tuning: built-in defaults" "$tmp/out" || no "field $f = $v: the entry was used"
    grep -qF "note: ignored line 3 of $cache: $why" "$tmp/out" ||
      { no "field $f = $v: no note naming line 3 and \"$why\""; cat "$tmp/out"; }
  done <<'EOF'
6|3|work-group size 3 is not a power of two
6|-1|work-group size -1 is not a power of two
6|0|work-group size 0 is not a power of two
6|131072|work-group size 131072 is not a power of two from 1 to 65536
6|1e3|work-group size 1e3 is not a power of two
7|1099511627776|groups 1099511627776 is not a number from 1 to 16777216
7|16777217|groups 16777217 is not a number from 1 to 16777216
7|0|groups 0 is not
7|16777216|groups 16777216 exceed the
8|3|unroll 3 is not one that --tune tries
8|1|unroll 1 is not one that --tune tries
9|3|access 3 is not 1 (strided) or 2 (blocked)
9|0|access 0 is not 1
10|nan|time nan ms is not a finite positive number
10|-5|time -5 ms is not a finite positive number
10|inf|time inf ms is not a finite positive number
10|0|time 0 ms is not
10|1.5x|time 1.5x ms is not
5|xyz|the source hash is not a hex number
EOF
  # Beyond this device's own limit: a power of two it cannot run.
  local max; max=$("$ocr" --list | sed -n 's/.*max work-group size \([0-9]*\).*/\1/p' | head -1)
  awk -F'\t' -v OFS='\t' -v w=$((max * 2)) '{ $6 = w; print }' <<<"$good" > "$cache"
  run7
  grep -q "^Test PASSED!" "$tmp/out" && grep -q "^Tuning: built-in defaults" "$tmp/out" &&
    grep -qF "note: ignored line 1 of $cache: work-group size $((max * 2)) exceeds the device's maximum" "$tmp/out" ||
    { no "work-group size beyond the device's $max"; cat "$tmp/out"; }
  # The good entry after the long line is still found.
  { head -c 5000 /dev/zero | tr '\0' x; echo; echo "$good"; } > "$cache"
  run7
  grep -q "^Tuning: tuned for this device ($cache)" "$tmp/out" || no "the entry after a long line was not used"
}

files() {
  tune > /dev/null 2>&1 || no "--tune exited $?"
  chmod 600 "$cache"
  tune --type float > /dev/null 2>&1 || no "--tune (float) exited $?"
  [ "$(stat -c %a "$cache")" = 600 ] || no "the cache's mode 600 became $(stat -c %a "$cache")"
  [ "$(grep -c . "$cache")" = 2 ] || no "expected two entries"
  chmod 444 "$cache"
  cp "$cache" "$tmp/before"
  tune --type double > "$tmp/out" 2>&1; local rc=$?
  [ "$rc" = 3 ] || no "storing into a read-only cache exited $rc, expected 3"
  grep -qF "the tuning cache $cache is read-only (mode 444): the tuning was not stored" "$tmp/out" ||
    { no "no message saying the cache is read-only"; cat "$tmp/out"; }
  [ "$(stat -c %a "$cache")" = 444 ] || no "the read-only cache became $(stat -c %a "$cache")"
  cmp -s "$cache" "$tmp/before" || no "the read-only cache changed"
  # A symbolic link is never followed: refused, the link and its target kept
  # (tests/scripts/cache_test.sh tunelinks: links planted by someone else).
  mv "$cache" "$tmp/real.tsv" && chmod 640 "$tmp/real.tsv" && ln -s "$tmp/real.tsv" "$cache"
  cp "$tmp/real.tsv" "$tmp/before"
  tune --type double > "$tmp/out" 2>&1; rc=$?
  [ "$rc" = 3 ] && grep -qF "the tuning was not stored: the cache file tune.tsv is a symbolic link" "$tmp/out" ||
    { no "--tune through a link: exit $rc"; cat "$tmp/out"; }
  [ -L "$cache" ] || no "the symbolic link was replaced"
  cmp -s "$tmp/real.tsv" "$tmp/before" || no "the link's target changed"
  # A link that resolves to nothing: refused, and nothing created.
  rm "$cache" && ln -s "$tmp/absent.tsv" "$cache"
  tune > "$tmp/out" 2>&1; rc=$?
  [ "$rc" = 3 ] && grep -q "tune.tsv is a symbolic link" "$tmp/out" && [ ! -e "$tmp/absent.tsv" ] ||
    { no "a dangling link: exit $rc"; cat "$tmp/out"; }
}

# wait_for FILE SECONDS [PID]: until FILE exists (0), or PID ends or time runs out (1).
wait_for() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    [ -e "$1" ] && return 0
    [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && return 1
    sleep 0.1
  done
  return 1
}

# hooked PREFIX ARG...: tune under the shim, its points named PREFIX.*
hooked() {
  local pre=$1
  shift
  LD_PRELOAD=$TUNE_HOOK_SHIM OCR_TUNE_TEST_HOOK=$pre \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 tune "$@"
}

race() {
  [ -f "${TUNE_HOOK_SHIM:-}" ] || { no "no \$TUNE_HOOK_SHIM (the LD_PRELOAD library)"; return; }
  hooked "$tmp/a" > "$tmp/a.out" 2>&1 &
  local a=$!
  wait_for "$tmp/a.rename" 120 "$a" || no "tuner A did not reach its rename"
  touch "$tmp/b.go" # B does not pause at its own rename
  hooked "$tmp/b" --type float > "$tmp/b.out" 2>&1 &
  local b=$!
  # B waits for A's lock (or, without one, finishes on its own).
  wait_for "$tmp/b.locking" 120 "$b" || no "tuner B did not reach the lock"
  sleep 0.5
  touch "$tmp/a.go"
  wait "$a" || no "tuner A exited $?"
  wait "$b" || no "tuner B exited $?"
  grep -q "^Stored in $cache" "$tmp/a.out" || no "A did not store"
  grep -q "^Stored in $cache" "$tmp/b.out" || no "B did not store"
  for t in int float; do
    [ "$(awk -F'\t' -v t=$t '$4 == t' "$cache" | wc -l)" = 1 ] || no "the cache lost the $t entry"
  done
  cat "$cache"
}

"$part"
[ "$fail" = 0 ] && echo "ok: tune cache $part"
[ "$fail" = 0 ]
