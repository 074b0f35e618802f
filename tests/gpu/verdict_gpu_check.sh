#!/usr/bin/env bash
# verdict_gpu_check.sh OCR [FIXTURES] [-- OPTIONS...] - the verdict on a real
# device: wrong kernels must FAIL and correct ones PASS (issue 21). Runs
#   OCR --kernel-file K --type T --op O -s N -r 1 OPTIONS
# for every kernel K below, every type T with sum and float/double with
# prod, at N = 4096, 1000001 and 2^25, and prints one line per case:
#   ok   drop_last  float  sum   1000001  FAILED (exit 1), as a wrong kernel must
#   BAD  ...        PASSED (exit 0), but the kernel is wrong
# Wrong kernels: drop_last (loses element n - 1 in every pass) and identity
# (reads nothing) from FIXTURES/kernels_verdict, one work-item per group
# adding in order; drop_one.cl and identity.cl from FIXTURES/kernels_grade,
# trees in local memory with barriers. Correct: the same without the mistake
# (kernels_verdict/correct, kernels_grade/tree.cl).
#
# OCR is the oclReduction binary; FIXTURES defaults to tests/fixtures, found from
# this script's own place (tests/gpu/../fixtures), so the tree may sit anywhere.
# OPTIONS choose the device (-p P -d D; default: a GPU if any). A device
# without double precision skips the double cases (said per line).
# VERDICT_SIZES="N ..." replaces the sizes (the test suite's quick run).
# Exit status: 0 when every wrong kernel FAILED and every correct one
# PASSED, 1 when any did not, 2 for a usage error.
#
# On a GPU machine, with the results under $OUT:
#   tests/gpu/verdict_gpu_check.sh build/oclReduction > "$OUT/verdict_gpu.txt" 2>&1
set -u
usage() { sed -n '2,3p' "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
ocr=$1; shift
fx=$(cd "$(dirname "$0")/.." && pwd)/fixtures
if [ $# -gt 0 ] && [ "$1" != -- ]; then fx=$1; shift; fi
[ $# -gt 0 ] && { [ "$1" = -- ] || usage; shift; }
[ -x "$ocr" ] || { echo "verdict_gpu_check.sh: $ocr is not an executable" >&2; exit 2; }
[ -d "$fx/kernels_verdict" ] && [ -d "$fx/kernels_grade" ] ||
  { echo "verdict_gpu_check.sh: no kernels_verdict/ and kernels_grade/ in $fx" >&2; exit 2; }

# label|file|kernel name|elements per group|expected exit (0 correct, 1 wrong)
kernels=(
  "drop_last|$fx/kernels_verdict/drop_last/reduce6.cl|reduce6|1024|1"
  "identity|$fx/kernels_verdict/identity/reduce6.cl|reduce6|1024|1"
  "correct|$fx/kernels_verdict/correct/reduce6.cl|reduce6|1024|0"
  "tree_drop_one|$fx/kernels_grade/drop_one.cl|tree_reduce|1024|1"
  "tree_identity|$fx/kernels_grade/identity.cl|lazy_reduce|1024|1"
  "tree|$fx/kernels_grade/tree.cl|tree_reduce|1024|0"
)
type_ops=("int sum" "uint sum" "long sum" "ulong sum" "float sum" "double sum" "float prod"
          "double prod")
read -r -a sizes <<< "${VERDICT_SIZES:-4096 1000001 33554432}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# as_expected RC VERDICT WANT: the exit status and the printed verdict agree
# with each other and with WANT.
as_expected() {
  case "$1:$2" in
    "0:Test PASSED!") [ "$3" = 0 ] ;;
    "1:Test FAILED!") [ "$3" = 1 ] ;;
    *) return 1 ;;
  esac
}
bad=0 ok=0 skipped=0 first=1
for k in "${kernels[@]}"; do
  IFS='|' read -r label file name e want <<< "$k"
  for to in "${type_ops[@]}"; do
    read -r t o <<< "$to"
    for n in "${sizes[@]}"; do
      "$ocr" --kernel-file "$file" --kernel-name "$name" --elems-per-group "$e" --type "$t" \
        --op "$o" -s "$n" -r 1 --cpu-baseline none "$@" > "$log" 2>&1
      rc=$?
      verdict=$(grep -Eo '^Test (PASSED|FAILED)!' "$log" | head -1)
      [ "$first" = 1 ] && { grep -m1 '^Will use this device' "$log"; first=0; }
      line=$(printf '%-14s %-6s %-4s %9s' "$label" "$t" "$o" "$n")
      if [ "$t" = double ] && [ "$rc" -ge 2 ] && grep -qiE 'fp64|double' "$log"; then
        echo "skip $line  (no double precision: $(grep -m1 -iE 'fp64|double' "$log"))"
        skipped=$((skipped + 1))
      elif as_expected "$rc" "$verdict" "$want"; then
        [ "$want" = 1 ] && what="FAILED (exit 1), as a wrong kernel must" ||
          what="PASSED (exit 0), as a correct kernel must"
        echo "ok   $line  $what"
        ok=$((ok + 1))
      else
        echo "BAD  $line  exit $rc, ${verdict:-no verdict}; expected exit $want:"
        grep -E '^(Result|Second data set|Checked|oclReduction:)' "$log" | sed 's/^/       /'
        bad=$((bad + 1))
      fi
    done
  done
done
echo "verdict_gpu_check: $ok ok, $bad bad, $skipped skipped"
[ "$bad" = 0 ]
