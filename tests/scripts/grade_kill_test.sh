#!/usr/bin/env bash
# grade_kill_test.sh OCR FIXTURE - a grader killed by its pid alone (not its
# process group) while a case hangs leaves nothing running: its children die
# with it, and its temporary folder (/tmp/ocr-grade-*) is removed.
set -u
ocr=$1 fixture=$2
"$ocr" --grade --kernel-file "$fixture" --kernel-name tree_reduce --elems-per-group 1024 \
  --timeout 60 --format csv > /dev/null 2>&1 &
g=$!
sleep 4 # the first case is hanging by now
kids=$(pgrep -P "$g" | tr '\n' ' ')
[ -n "$kids" ] || { echo "FAIL: no worker child to watch"; kill -9 "$g"; exit 1; }
# the grader's folder: where its children's stderr goes
dir=""
for k in $kids; do
  f=$(readlink "/proc/$k/fd/2" 2>/dev/null) && case $f in /tmp/ocr-grade-*/stderr*) dir=${f%/*} ;; esac
done
[ -n "$dir" ] || { echo "FAIL: no child writes into a /tmp/ocr-grade-* folder"; kill -9 "$g"; exit 1; }
kill -TERM "$g"
wait "$g" 2>/dev/null
sleep 1
left=""
for k in $kids; do # gone, or a zombie waiting for init to reap it
  state=$(awk '{print $3}' "/proc/$k/stat" 2>/dev/null)
  [ -n "$state" ] && [ "$state" != Z ] && left="$left $k($state)"
done
if [ -n "$left" ]; then
  echo "FAIL: worker(s)$left still running after the grader was killed"
  for k in $left; do kill -9 "${k%%(*}"; done; exit 1
fi
if [ -e "$dir" ]; then
  echo "FAIL: $dir is left behind after SIGTERM"; rm -rf "$dir"; exit 1
fi
echo "ok: the grader's children ($kids) died with it; $dir is gone"
