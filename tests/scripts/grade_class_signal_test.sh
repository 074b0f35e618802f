#!/usr/bin/env bash
# grade_class_signal_test.sh SRC OCR - SIGTERM to classroom/grade_class.sh while
# the real grader runs a kernel that never ends: the tool stops the grader
# and every process it started (none may outlive the tool), removes the
# grader's /tmp/ocr-grade-* folder and its own temporary folder, says it was
# stopped, exits 143, and leaves the output folder unlocked. (Before, the
# tool died alone and the grader ran on, its folder left behind.)
set -u
src=$1 ocr=$2
tmp=$(mktemp -d)
mkdir "$tmp/c" "$tmp/t"
cp "$src/tests/fixtures/kernels_grade/infinite_loop.cl" "$tmp/c/loop.cl"
kids=""
cleanup() { for p in $kids; do kill -9 "$p" 2> /dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
TMPDIR=$tmp/t OCR=$ocr "$src/classroom/grade_class.sh" "$tmp/c" "$tmp/o" --kernel tree_reduce \
  --timeout 120 --speed-runs 0 2> "$tmp/err" &
tool=$!
grader="" case="" dir=""
for _ in $(seq 600); do # until a case process of the grader runs (at most 120 s)
  grader=$(pgrep -P "$tool" | head -1)
  [ -n "$grader" ] && case=$(pgrep -P "$grader" | head -1)
  if [ -n "$case" ]; then
    dir=$(readlink "/proc/$case/fd/2" 2> /dev/null | sed -n 's|^\(/tmp/ocr-grade-[^/]*\)/stderr[0-9]$|\1|p')
    [ -n "$dir" ] && break
  fi
  sleep 0.2
done
[ -n "$dir" ] || { cat "$tmp/err"; echo "FAIL: no grader case seen running"; kill "$tool"; exit 1; }
kids="$grader $case"
echo "tool $tool, grader $grader, case $case, $dir"
kill -TERM "$tool"
wait "$tool"
rc=$?
[ "$rc" = 143 ] || bad "the tool exited $rc, not 143"
grep -q "stopped by SIGTERM" "$tmp/err" || bad "no message: $(cat "$tmp/err")"
for p in $grader $case; do
  kill -0 "$p" 2> /dev/null && bad "process $p outlived the tool"
done
[ -e "$dir" ] && bad "$dir left behind"
[ -z "$(ls -A "$tmp/t")" ] || bad "the tool's temporary folder left behind: $(ls "$tmp/t")"
flock -n "$tmp/o/.grade_class.lock" true || bad "the output folder is still locked"
[ "$fail" = 0 ] && echo "ok: SIGTERM stops the grader and cleans up"
exit "$fail"
