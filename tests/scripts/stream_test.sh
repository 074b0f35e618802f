#!/usr/bin/env bash
# stream_test.sh OCR TYPE OP SIZES CHUNK [-- EXTRA...]
#   For each N in the comma-separated SIZES: `--stream --chunk CHUNK` must exit
#   0, print PASSED and the number of chunks ceil(N / CHUNK), and print the
#   same Result line as the ordinary reduce7 run of the same input.
# stream_test.sh --big OCR TYPE
#   With the runtime's limits lowered (POCL_MEMORY_LIMIT=1: 1 GiB of global
#   memory, 256 MiB per buffer; Intel's CPU runtime: 256 MiB per buffer), -n 7
#   at 2 x the max allocation + 7 elements must stream by itself (no --stream)
#   and pass, where one buffer could not hold the input. It runs on the first
#   device whose limit the variables lowered, and is skipped (exit 77) where
#   none is (a GPU with its vendor's OpenCL alone).
# stream_test.sh --wrong OCR CLDIR
#   A copy of CLDIR's kernels whose reduce7 is wrong (one too many per group,
#   in both its load paths and in its finish) must FAIL (exit 1) on any device.
set -u
fail=0
no() { echo "FAIL: $*"; fail=1; }

if [ "$1" = --big ]; then
    ocr=$2 type=$3
    export POCL_MEMORY_LIMIT=1 CL_CONFIG_CPU_FORCE_MAX_MEM_ALLOC_SIZE=256MB
    . "$(dirname "$0")/select_device.sh"
    pd=$(device_where 'max allocation 256 MiB' "$ocr") ||
        skip_test "no device here whose max allocation POCL_MEMORY_LIMIT or CL_CONFIG_CPU_FORCE_MAX_MEM_ALLOC_SIZE lowers"
    max=256
    case $type in int | uint | float) es=4 ;; *) es=8 ;; esac
    n=$((2 * max * 1024 * 1024 / es + 7))
    echo "max allocation $max MiB under POCL_MEMORY_LIMIT=1: N = $n $type"
    out=$("$ocr" -p "${pd% *}" -d "${pd#* }" -n 7 -s "$n" --type "$type" 2>&1)
    rc=$?
    echo "$out"
    [ $rc = 0 ] || no "exit status $rc, expected 0"
    grep -q '^Test PASSED!$' <<<"$out" || no "not PASSED"
    grep -q '^Streaming automatically: ' <<<"$out" || no "did not say it streamed"
    grep -Eq "^Streamed 'reduce7': $n elements" <<<"$out" || no "did not stream $n elements"
    [ $fail = 0 ] && echo "ok"
    exit $fail
fi

if [ "$1" = --wrong ]; then # the check can fail: a reduce7 that adds 1 per group
    ocr=$2 src=$3
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp "$src"/*.cl "$src"/*.h "$tmp"/
    sed -i 's/ACC x = group_tree(lcl, stream(in, in_off, n), lid);/ACC x = group_tree(lcl, stream(in, in_off, n), lid) + (T)(lid == 0);/' "$tmp/reduce7.cl"
    cmp -s "$src/reduce7.cl" "$tmp/reduce7.cl" && no "the mutation did not apply to reduce7.cl"
    out=$("$ocr" --stream --chunk 1000 -s 123457 --kernel-dir "$tmp" 2>&1)
    rc=$?
    echo "$out"
    [ $rc = 1 ] || no "exit status $rc, expected 1 (wrong result)"
    grep -q '^Test FAILED!$' <<<"$out" || no "not FAILED"
    [ $fail = 0 ] && echo "ok"
    exit $fail
fi

ocr=$1 type=$2 op=$3 sizes=$4 chunk=$5
shift 5
[ "${1:-}" = -- ] && shift
for n in ${sizes//,/ }; do
    ref=$("$ocr" -n 7 -s "$n" --type "$type" --op "$op" -r 1 "$@" 2>&1)
    out=$("$ocr" --stream --chunk "$chunk" -s "$n" --type "$type" --op "$op" "$@" 2>&1)
    rc=$?
    want=$(grep '^Result: ' <<<"$ref")
    got=$(grep '^Result: ' <<<"$out")
    chunks=$(((n + chunk - 1) / chunk))
    if [ $rc != 0 ] || ! grep -q '^Test PASSED!$' <<<"$out"; then
        echo "$out"
        no "$type $op N=$n: exit status $rc, expected 0 and PASSED"
    fi
    [ -n "$want" ] && [ "$got" = "$want" ] ||
        no "$type $op N=$n: '$got' differs from the ordinary run's '$want'"
    grep -Eq "^Chunks: $chunks of " <<<"$out" || no "$type $op N=$n: expected $chunks chunks"
    echo "$type $op N=$n: $got ($chunks chunks)"
done
[ $fail = 0 ] && echo "ok"
exit $fail
