#!/usr/bin/env bash
# unreadable_dir_test.sh OCR SRC - what cannot be read is reported as such, not
# as "not found": a --kernel-dir without permission, a kernel file in it without
# read permission, and an unreadable included file each give "Permission
# denied" and exit 3; a $OCLREDUCTION_KERNEL_DIR that does not exist is named. root reads anything, so as root the program runs as the
# user nobody (setpriv), from a copy outside the build tree.
set -u
ocr=$1 src=$2
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/locked" "$tmp/kdir" "$tmp/inc" "$tmp/home"
chmod 777 "$tmp/home" # POCL needs a writable cache there
cp "$src/cl/reduce6.cl" "$src/cl/reduce_common.h" "$tmp/locked/"
cp "$src/cl/reduce6.cl" "$src/cl/reduce_common.h" "$tmp/kdir/"
cp "$src/cl/reduce_common.h" "$tmp/inc/mine.h"
sed 's/#include "reduce_common.h"/#include "mine.h"/' "$src/docs/labs/starter.cl" > "$tmp/inc/user.cl"
chmod -R a+rX "$tmp/kdir" "$tmp/inc"
chmod 000 "$tmp/locked" "$tmp/kdir/reduce6.cl" "$tmp/inc/mine.h"
run=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null || { echo "setpriv not found"; exit 1; }
  run=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/home")
fi
cp "$ocr" "$tmp/oclReduction" && chmod 755 "$tmp/oclReduction"
# As nobody, the OpenCL driver itself must be loadable: a driver registered
# from a private directory (as .ci/intel-opencl does, under the build tree) is
# not, and then there is nothing to test here (exit 77: skipped).
if [ ${#run[@]} -gt 0 ] && ! "${run[@]}" "$tmp/oclReduction" --list >/dev/null 2>&1; then
  echo "skipped: user nobody cannot load an OpenCL platform here (a driver in a private directory?)"
  exit 77
fi
fail=0
check() { # check NAME ERR_REGEX ARGS...
  local name=$1 re=$2; shift 2
  "${run[@]}" "$tmp/oclReduction" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" = 3 ] && grep -Eq -- "$re" "$tmp/err" && [ "$(grep -c '^oclReduction: ' "$tmp/err")" = 1 ]; then
    echo "ok: $name"
  else
    echo "FAIL: $name: exit $rc, expected 3 and one message matching /$re/:"; cat "$tmp/err"; fail=1
  fi
}
check "unreadable --kernel-dir" "kernel file reduce6.cl cannot be read" --kernel-dir "$tmp/locked" -s 4103 -r 1
grep -Eq "locked/reduce6.cl +\(--kernel-dir\): Permission denied" "$tmp/err" || { echo "FAIL: no 'Permission denied' line"; fail=1; }
check "unreadable kernel file in --kernel-dir" "kdir/reduce6.cl +\(--kernel-dir\): Permission denied" \
  --kernel-dir "$tmp/kdir" -s 4103 -r 1
check "unreadable included file" "user.cl:[0-9]+: cannot read included file .*inc/mine.h: Permission denied" \
  --kernel-file "$tmp/inc/user.cl" --kernel-name my_reduce --elems-per-group 1024 -s 4103 -r 1
# Not there at all: the search says so, naming the directory that is missing.
run+=(env OCLREDUCTION_KERNEL_DIR="$tmp/absent")
check "missing \$OCLREDUCTION_KERNEL_DIR" "kernel file reduce7.cl not found. Searched:" -n 7 -s 4103 -r 1
grep -Eq "absent/reduce7.cl +\(\\\$OCLREDUCTION_KERNEL_DIR\): the directory does not exist" "$tmp/err" ||
  { echo "FAIL: no line for the missing directory"; fail=1; }
exit $fail
