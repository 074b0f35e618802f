#!/usr/bin/env bash
# cache_test.sh OCR TEST_CACHE CL PART - the per-user caches under attack
# (issue 37), each in a private cache directory. A planted program entry is a
# forgery: the binary of a reduce7 that adds 1000 to each value it writes,
# filed under the real kernel's key with a valid checksum; used, it makes the
# int sum of 0 .. 9999 wrong (49996000 on POCL, where one value is written). Every part first shows that the user's own
# forgery is used (the attack is live), then that the planted one is not.
#   modes     directories 0700, files 0600, for both caches
#   owner     an entry of another user (uid 65534 where chown works), mode 0666
#   dirmode   a programs directory writable by its group
#   link      an entry that is a symbolic link (its target kept as it was)
#   tmplink   links planted at the temporary names a store would use
#   fifo      a FIFO at the entry's name does not hang ocr_reducer_create
#   nohome    neither HOME nor XDG_CACHE_HOME (or relative ones): nothing is
#             written, least of all in the current directory
#   pynohome  the same for the Python package (PY: its python, with PYTHONPATH
#             set to the package)
#   evict     OCLREDUCTION_CACHE_MAX: least recently used out, 0 turns it off;
#             temporary files an hour old (a store that died) removed
#   tunelinks tune.tsv and tune.tsv.lock as links: not followed, targets kept;
#             another user's tune.tsv ignored
#   tunegroups a tune entry of 2^24 groups is ignored (no run without kernels)
#   tunewg    a tuned work-group size past the compiled kernel's limit (the
#             fault shim, SHIM, lowers it to 64) is shrunk, not refused; a
#             size the user gives (-w) still is
set -u
ocr=$1 t=$2 cl=$3 part=$4
# POCL's own cache stays where it was (the XDG_CACHE_HOME below would move it).
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/pocl}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/c
top=$XDG_CACHE_HOME/oclreduction
progs=$top/programs
fail=0
no() { echo "FAIL: $*"; fail=1; }
sum() { "$t" sum "$@" > "$tmp/out" 2>&1; }

# The forgery at $progs/$name (the user's own, 0600), after a real entry.
plant() {
  cp -r "$cl" "$tmp/modcl"
  sed -i 's/= ACC_VALUE(/= 1000 + ACC_VALUE(/' "$tmp/modcl/reduce7.cl"
  cmp -s "$cl/reduce7.cl" "$tmp/modcl/reduce7.cl" && no "could not modify reduce7.cl"
  XDG_CACHE_HOME=$tmp/mod "$t" sum int "$tmp/modcl" > /dev/null 2>&1
  sum int || { cat "$tmp/out"; no "the first sum failed"; }
  name=$(cd "$progs" && ls)
  [ "$(echo "$name" | wc -w)" = 1 ] || no "expected one entry, found: $name"
  "$t" forge "$tmp"/mod/oclreduction/programs/*.bin "$progs/$name" || no "forge failed"
  chmod 600 "$progs/$name"
  sum int && { cat "$tmp/out"; no "the user's own forged entry was not used: the test proves nothing"; }
  grep -q "^int sum: 49995000 " "$tmp/out" && { cat "$tmp/out"; no "the forgery's sum is right"; }
}

# The sum is right and the note says why the cache was not used.
refused() { # what, pattern of the note
  sum int || { cat "$tmp/out"; no "$1: the planted entry was used or the run failed"; }
  grep -Eq "^message: note: not using the disk program cache: .*$2" "$tmp/out" ||
    { cat "$tmp/out"; no "$1: no note matching '$2'"; }
}

modes() {
  sum int || { cat "$tmp/out"; no "the sum failed"; }
  "$ocr" --tune -s 64K --tune-budget 1 > /dev/null 2>&1 || no "--tune failed"
  for d in "$top" "$progs"; do
    [ "$(stat -c %a "$d")" = 700 ] || no "$d has mode $(stat -c %a "$d"), expected 700"
  done
  for f in "$progs"/*.bin "$top/tune.tsv" "$top/tune.tsv.lock"; do
    [ "$(stat -c %a "$f")" = 600 ] || no "$f has mode $(stat -c %a "$f"), expected 600"
  done
}

owner() {
  plant
  chown 65534 "$progs/$name" 2>/dev/null || echo "note: chown failed; the mode alone is tested"
  chmod 666 "$progs/$name"
  refused "another user's entry" "(belongs to another user|is writable by its group or others)"
  # The user's own forgery again, writable by all: the mode alone refuses it.
  "$t" forge "$tmp"/mod/oclreduction/programs/*.bin "$progs/$name" || no "forge failed"
  chmod 666 "$progs/$name"
  refused "an entry of mode 0666" "$name is writable by its group or others \\(mode 666\\)"
}

dirmode() {
  plant
  chmod 770 "$progs"
  refused "a group-writable directory" "directory $progs is writable by its group or others \\(mode 770\\)"
}

link() {
  plant
  mv "$progs/$name" "$tmp/elsewhere.bin"
  cp "$tmp/elsewhere.bin" "$tmp/before.bin"
  ln -s "$tmp/elsewhere.bin" "$progs/$name"
  refused "a linked entry" "$name is a symbolic link"
  cmp -s "$tmp/elsewhere.bin" "$tmp/before.bin" || no "the link's target was changed"
  [ -f "$progs/$name" ] && [ ! -L "$progs/$name" ] || no "the link was not replaced by an entry"
}

tmplink() {
  sum int
  name=$(cd "$progs" && ls)
  rm -rf "$top" && mkdir -p -m 700 "$progs"
  echo precious > "$tmp/victim"
  (sleep 1 && exec "$t" sum int > "$tmp/out" 2>&1) &
  local pid=$!
  for n in 1 2 3 4; do ln -s "$tmp/victim" "$progs/$name.$pid.$n.tmp"; done
  wait "$pid" || { cat "$tmp/out"; no "the sum failed"; }
  [ "$(cat "$tmp/victim")" = precious ] || no "the target of a link at a temporary name was overwritten"
  [ -f "$progs/$name" ] && [ ! -L "$progs/$name" ] || no "no entry stored"
}

fifo() {
  sum int
  name=$(cd "$progs" && ls)
  rm "$progs/$name" && mkfifo "$progs/$name"
  timeout 60 "$t" sum int > "$tmp/out" 2>&1
  local rc=$?
  [ "$rc" = 124 ] && no "ocr_reducer_create hangs on a FIFO"
  [ "$rc" = 0 ] || { cat "$tmp/out"; no "the sum exited $rc"; }
  grep -q "^message: note: not using the disk program cache: the cache file $name is not a regular file" "$tmp/out" ||
    { cat "$tmp/out"; no "no note about the FIFO"; }
}

nohome() {
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  for env in "-u HOME -u XDG_CACHE_HOME" "HOME=rel XDG_CACHE_HOME=relx" "-u HOME XDG_CACHE_HOME="; do
    # shellcheck disable=SC2086
    env $env "$t" sum int > "$tmp/out" 2>&1 || { cat "$tmp/out"; no "$env: the sum failed"; }
    grep -q "0 stored" "$tmp/out" || { cat "$tmp/out"; no "$env: a program was stored"; }
    # shellcheck disable=SC2086
    env $env "$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1 || { cat "$tmp/out"; no "$env: the run failed"; }
    # shellcheck disable=SC2086
    env $env "$ocr" --tune -s 64K --tune-budget 1 > "$tmp/out" 2>&1
    local rc=$?
    [ "$rc" = 3 ] && grep -q "the tuning was not stored: no per-user cache" "$tmp/out" ||
      { cat "$tmp/out"; no "$env: --tune exited $rc without saying it stored nothing"; }
  done
  local made; made=$(find "$tmp/cwd" -mindepth 1)
  [ -z "$made" ] || no "files made in the current directory: $made"
  cd "$tmp" || exit 1
}

pynohome() {
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  # Intel's CPU runtime itself fails without HOME (clRetainContext:
  # INVALID_CONTEXT with PyOpenCL alone): then there is nothing of ours to test
  env -u HOME -u XDG_CACHE_HOME "$PY" -c '
import numpy as np, pyopencl as cl, pyopencl.array as cla
q = cl.CommandQueue(cl.create_some_context(interactive=False))
assert cla.to_device(q, np.arange(3, dtype=np.int32)).get().sum() == 3' > "$tmp/out" 2>&1 ||
    { echo "SKIPPED: the OpenCL runtime fails without HOME, PyOpenCL alone:"; tail -1 "$tmp/out"; exit 77; }
  rm -rf "$tmp/cwd"/* "$tmp/cwd"/.[!.]* 2> /dev/null
  env -u HOME -u XDG_CACHE_HOME "$PY" -c '
import numpy as np, pyopencl as cl, pyopencl.array as cla, oclreduction
q = cl.CommandQueue(cl.create_some_context(interactive=False))
print("sum", oclreduction.sum(cla.to_device(q, np.arange(10000, dtype=np.int32))).get())' > "$tmp/out" 2>&1
  grep -q "^sum 49995000$" "$tmp/out" || { cat "$tmp/out"; no "the Python sum failed"; }
  local made; made=$(find "$tmp/cwd" -mindepth 1)
  [ -z "$made" ] || no "files made in the current directory: $made"
  cd "$tmp" || exit 1
}

# Bytes of the entries in $progs.
bytes() { find "$progs" -name '*.bin' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# The one entry in $progs that is not among $1 (names).
newest() { (cd "$progs" && ls | grep -vxF -e "${1:-none}"); }

evict() {
  sum int && local e_int; e_int=$(newest)
  sum long && local e_long; e_long=$(newest "$e_int")
  local s_int s_long; s_int=$(stat -c %s "$progs/$e_int") s_long=$(stat -c %s "$progs/$e_long")
  # Room for int and long and half of long again: so for two entries of
  # about their size, not three (sizes vary a little between builds).
  local max=$((s_int + s_long + s_long / 2))
  export OCLREDUCTION_CACHE_MAX=$max
  sum int && grep -q "1 from disk" "$tmp/out" || { cat "$tmp/out"; no "int not from disk"; }
  # What a process that died before its rename left, and a fresh one.
  echo old > "$progs/.$e_long.0123abcd.tmp" && touch -d '2 hours ago' "$progs/.$e_long.0123abcd.tmp"
  echo new > "$progs/.$e_long.4567abcd.tmp"
  sum float || { cat "$tmp/out"; no "the float sum failed"; }
  [ -e "$progs/.$e_long.0123abcd.tmp" ] && no "a temporary file two hours old was kept"
  [ -e "$progs/.$e_long.4567abcd.tmp" ] || no "a fresh temporary file (a store under way) was removed"
  [ "$(bytes)" -le "$max" ] || no "the cache holds $(bytes) bytes, more than OCLREDUCTION_CACHE_MAX=$max"
  [ -e "$progs/$e_long" ] && no "the least recently used entry (long) was kept"
  [ -e "$progs/$e_int" ] || no "the int entry, used last but one, was evicted"
  [ "$(find "$progs" -name '*.bin' | wc -l)" = 2 ] || no "expected two entries (int, float): $(ls "$progs")"
  rm -rf "$top"
  OCLREDUCTION_CACHE_MAX=0 sum int
  grep -q "0 stored" "$tmp/out" && [ -z "$(find "$top" -name '*.bin' 2>/dev/null)" ] ||
    no "OCLREDUCTION_CACHE_MAX=0 stored an entry"
}

tunelinks() {
  mkdir -p -m 700 "$top"
  echo "precious config" > "$tmp/config"
  ln -s "$tmp/config" "$top/tune.tsv"
  "$ocr" --tune -s 64K --tune-budget 1 > "$tmp/out" 2>&1
  local rc=$?
  [ "$(cat "$tmp/config")" = "precious config" ] || no "--tune rewrote the target of a linked tune.tsv"
  [ "$rc" = 3 ] && grep -q "tune.tsv is a symbolic link" "$tmp/out" ||
    { cat "$tmp/out"; no "--tune through a link exited $rc without saying why"; }
  rm -f "$top/tune.tsv" "$top/tune.tsv.lock"
  ln -s "$tmp/created" "$top/tune.tsv.lock"
  "$ocr" --tune -s 64K --tune-budget 1 > "$tmp/out" 2>&1
  rc=$?
  [ -e "$tmp/created" ] && no "--tune created the target of a linked tune.tsv.lock"
  [ "$rc" = 3 ] && grep -q "tune.tsv.lock is a symbolic link" "$tmp/out" ||
    { cat "$tmp/out"; no "--tune with a linked lock exited $rc without saying why"; }
  # A good entry read through a link, and as another user's file: not used.
  rm "$top/tune.tsv.lock"
  "$ocr" --tune -s 64K --tune-budget 1 > /dev/null 2>&1 || no "--tune failed"
  mv "$top/tune.tsv" "$tmp/good.tsv" && ln -s "$tmp/good.tsv" "$top/tune.tsv"
  "$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1 || no "a run with a linked tune.tsv failed"
  grep -q "^Tuning: built-in defaults" "$tmp/out" && grep -q "note: not using the tuning cache: .*tune.tsv is a symbolic link" "$tmp/out" ||
    { cat "$tmp/out"; no "a linked tune.tsv was used, or not noted"; }
  rm "$top/tune.tsv" && cp "$tmp/good.tsv" "$top/tune.tsv" && chmod 666 "$top/tune.tsv"
  chown 65534 "$top/tune.tsv" 2>/dev/null || echo "note: chown failed; the mode alone is tested"
  "$ocr" -n 7 -s 64K -r 1 > "$tmp/out" 2>&1 || no "a run with another user's tune.tsv failed"
  grep -q "^Tuning: built-in defaults" "$tmp/out" && grep -Eq "note: not using the tuning cache: .*(belongs to another user|writable by its group or others)" "$tmp/out" ||
    { cat "$tmp/out"; no "another user's tune.tsv was used, or not noted"; }
}

tunegroups() {
  "$ocr" --tune -s 64K --tune-budget 1 > /dev/null 2>&1 || no "--tune failed"
  awk -F'\t' -v OFS='\t' '{ $7 = 16777216; print }' "$top/tune.tsv" > "$tmp/t" && cat "$tmp/t" > "$top/tune.tsv"
  "$ocr" -n 7 -s 1M -r 1 > "$tmp/out" 2>&1 || { cat "$tmp/out"; no "the run failed"; }
  grep -q "^Passes: 0" "$tmp/out" && no "2^24 groups: a run without a kernel"
  grep -q "^Tuning: built-in defaults" "$tmp/out" && grep -q "note: ignored line 1 of $top/tune.tsv: groups 16777216 exceed" "$tmp/out" ||
    { cat "$tmp/out"; no "the entry of 2^24 groups was used, or not noted"; }
}

tunewg() {
  local dev=(-p 0 -d 0) shim=(env LD_PRELOAD="$SHIM" OCR_FAULT_KERNEL_WG=64 ASAN_OPTIONS=verify_asan_link_order=0)
  "$ocr" --tune "${dev[@]}" -s 64K --tune-budget 1 > /dev/null 2>&1 || no "--tune failed"
  awk -F'\t' -v OFS='\t' '{ $6 = 256; $9 = 1; print }' "$top/tune.tsv" > "$tmp/t" && cat "$tmp/t" > "$top/tune.tsv"
  "${shim[@]}" "$ocr" -n 7 "${dev[@]}" -s 64K -r 1 > "$tmp/out" 2>&1 || no "the tuned run failed"
  grep -q "^Tuning: tuned for this device" "$tmp/out" && grep -q "work-group size 64," "$tmp/out" &&
    grep -q "^Test PASSED!" "$tmp/out" || { cat "$tmp/out"; no "the tuned 256 was not shrunk to the kernel's 64"; }
  TEST_CACHE_TUNED=1 "${shim[@]}" "$t" sum int > "$tmp/out" 2>&1 || { cat "$tmp/out"; no "the tuned reducer failed"; }
  "${shim[@]}" "$ocr" -n 7 "${dev[@]}" -w 256 -s 64K -r 1 > "$tmp/out" 2>&1
  local rc=$?
  [ "$rc" = 3 ] && grep -q "the compiled kernel allows 64" "$tmp/out" || { cat "$tmp/out"; no "-w 256 past the kernel's 64: exit $rc"; }
}

"$part"
[ "$fail" = 0 ] && echo "ok: cache $part"
[ "$fail" = 0 ]
