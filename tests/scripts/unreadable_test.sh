#!/usr/bin/env bash
# unreadable_test.sh OCR SRC - a kernel file without read permission must give
# "Permission denied" and exit 3. root reads anything, so as root the program
# runs as the user nobody (setpriv); otherwise as the current user.
set -u
ocr=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp "$src/docs/labs/starter.cl" "$tmp/locked.cl"
chmod 000 "$tmp/locked.cl"
run=()
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null || { echo "setpriv not found"; exit 1; }
  mkdir -p "$tmp/home" && chmod 777 "$tmp/home" # POCL needs a writable cache there
  # The build tree may sit in a directory nobody cannot enter (mktemp -d is 0700).
  cp "$ocr" "$tmp/oclReduction" && chmod 755 "$tmp/oclReduction"
  ocr=$tmp/oclReduction
  run=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/home")
fi
"${run[@]}" "$ocr" --kernel-file "$tmp/locked.cl" --kernel-name my_reduce --elems-per-group 1024 -s 4103 \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ "$rc" = 3 ] && grep -q "cannot open kernel file .*locked.cl: Permission denied" "$tmp/err"
