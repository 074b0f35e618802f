#!/bin/sh
# custom_mutants_test.sh TEST_CUSTOM CL_DIR - each copy of cl/custom.cl with
# one mistake must fail test_custom exprs (dot, scalar, count, struct over
# n from 0 to 2^20 + 7): the coalesced walk's remainder lost or one of its
# four values dropped, a chunk's last element dropped, the tree's first
# level skipped, the final pass striding past partials (two launches:
# -cl-std=CL1.2). Where the device finishes in one launch (test_custom
# launches), the finish's mistakes too: the first group's value left out,
# the ticket left at 1 for the next call (test_custom launches: three
# calls in a row on new data). Every occurrence of FROM is replaced. LOCAL: the groups the mistake lives in (1: a CPU's chunk
# walk; 64: the coalesced walk and a tree, on any device).
set -u
t=$1 cl=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
# the unmutated copy passes, in both walks
cp -r "$cl" "$dir/ok"
for local in 1 64; do
  for run in "exprs 5" "launches" "exprs 5 -cl-std=CL1.2"; do
    set -- $run
    TEST_CUSTOM_KERNEL_DIR="$dir/ok" TEST_CUSTOM_LOCAL=$local TEST_CUSTOM_OPTIONS=${3:-} \
      "$t" $1 ${2:-} >/dev/null 2>&1 ||
      { echo "FAIL: the unmutated copy fails $run at local $local"; exit 1; }
  done
done
mutant() { # NAME LOCAL FROM TO [PART [OPTIONS]]
  rm -rf "$dir/m"; cp -r "$cl" "$dir/m"
  grep -qF -- "$3" "$dir/m/custom.cl" || { echo "FAIL: $1: '$3' not in custom.cl"; fails=1; return; }
  FROM=$3 TO=$4 perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g' "$dir/m/custom.cl"
  if TEST_CUSTOM_KERNEL_DIR="$dir/m" TEST_CUSTOM_LOCAL=$2 TEST_CUSTOM_OPTIONS=${6:-} \
      "$t" "${5:-exprs}" 5 >/dev/null 2>&1; then
    echo "FAIL: mutant $1 passed"; fails=1
  else
    echo "ok: mutant $1 caught"
  fi
}
mutant remainder 64 "for (; ocr_rk_i < ocr_rk_n; ocr_rk_i += ocr_rk_g)" "for (; ocr_rk_i < 0; ocr_rk_i += ocr_rk_g)"
mutant fourth 64 "ocr_rk_reduce(ocr_rk_v2, ocr_rk_v3)" "ocr_rk_v2"
mutant chunk_end 1 "ocr_rk_i < ocr_rk_hi" "ocr_rk_i + 1 < ocr_rk_hi"
mutant tree 64 "ocr_rk_s = OCR_RK_LOCAL_SIZE / 2" "ocr_rk_s = OCR_RK_LOCAL_SIZE / 4"
mutant final 1 "ocr_rk_j < ocr_rk_m; ocr_rk_j += OCR_RK_LOCAL_SIZE" \
  "ocr_rk_j < ocr_rk_m; ocr_rk_j += 2 * OCR_RK_LOCAL_SIZE" exprs -cl-std=CL1.2
if "$t" launches 2>/dev/null | grep -qx "one launch"; then
  for local in 1 64; do
    mutant "finish_first_$local" $local "ocr_rk_j = ocr_rk_lid; ocr_rk_j < ocr_rk_groups" \
      "ocr_rk_j = ocr_rk_lid + 1; ocr_rk_j < ocr_rk_groups"
    mutant "finish_ticket_$local" $local "ocr_rk_ticket, 0u" "ocr_rk_ticket, 1u" launches
  done
else
  echo "this device launches twice: the finish's mutants not run"
fi
[ $fails = 0 ] && echo PASSED
exit $fails
