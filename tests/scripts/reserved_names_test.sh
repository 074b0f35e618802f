#!/usr/bin/env bash
# reserved_names_test.sh OCR SOURCE_DIR - every name the kernels are built
# with (the macros and types of cl/, the -D options the library passes) is
# refused in --build-options (exit 2, before any compiler): the library's one
# list (ocr_build_reserved_name) must cover all of them, new ones included.
set -u
ocr=$1 src=$2
names=$( {
  grep -ohE '^\s*#\s*(define|ifndef|ifdef)\s+[A-Za-z_][A-Za-z0-9_]*' "$src"/cl/*.cl "$src"/cl/*.h | awk '{print $NF}'
  grep -ohE 'defined\(\s*[A-Za-z_][A-Za-z0-9_]*' "$src"/cl/*.cl "$src"/cl/*.h | sed 's/defined(\s*//'
  grep -ohE 'typedef [^;]* [A-Za-z_][A-Za-z0-9_]*;' "$src"/cl/*.cl "$src"/cl/*.h | sed -E 's/.* ([A-Za-z_0-9]+);/\1/'
  grep -ohE -- '-D [A-Z_][A-Z0-9_]*=' "$src"/host/lib/*/*.c | sed -E 's/-D (.*)=/\1/'
} | grep -v '^__' | sort -u)
count=$(echo "$names" | wc -l)
[ "$count" -ge 40 ] || { echo "FAIL: only $count names found in $src/cl (has the layout changed?)"; exit 1; }
bad=0
for n in $names; do
  for form in "-D$n=1" "-U $n"; do
    err=$("$ocr" -n 7 -s 5 -r 1 --build-options "$form" 2>&1 >/dev/null); rc=$?
    if [ $rc != 2 ] || ! echo "$err" | grep -q "the kernels are built with that name"; then
      echo "FAIL: --build-options \"$form\" gave exit $rc: $err"; bad=1
    fi
  done
done
[ $bad = 0 ] && echo "ok: all $count names the kernels are built with are refused"
exit $bad
