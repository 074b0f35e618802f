#!/bin/sh
# custom_cache_test.sh TEST_CUSTOM - the program cache keys on a custom
# reducer's spec: two maps in one process differ, and two processes sharing
# one disk cache (the second builds from the first's binaries) each get
# their own map's sum.
set -eu
t=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"
export XDG_CACHE_HOME="$dir"
unset OCLREDUCTION_PROGRAM_CACHE || true
"$t" cache
a=$("$t" cache 1 | grep '^sum')
b=$("$t" cache 2 | grep '^sum')
a2=$("$t" cache 1 | grep '^sum')
echo "$a / $b / $a2"
[ "$a" = "sum 1 12285.0" ] || { echo "FAIL: map x[i]: $a"; exit 1; }
[ "$b" = "sum 2 24570.0" ] || { echo "FAIL: map 2*x[i]: $b"; exit 1; }
[ "$a2" = "$a" ] || { echo "FAIL: map x[i] again: $a2"; exit 1; }
n=$(find "$dir" -type f | wc -l)
[ "$n" -ge 2 ] || { echo "FAIL: $n files in the disk cache, expected one per spec"; exit 1; }
echo PASSED
