#!/bin/sh
# custom_oclgrind.sh TEST_CUSTOM CL_DIR - test_custom few under oclgrind with
# data-race and API checks (bounds are always checked): no diagnostic, in
# the geometry of TEST_CUSTOM_LOCAL and TEST_CUSTOM_GROUPS. Then a copy of
# cl/custom.cl without the tree's barrier must be reported as a race (groups
# of more than one work-item). Not --uninitialized: oclgrind 21.10 reports
# the partials the first pass wrote as uninitialized when the second pass
# reads them (the values are right; cf. presize in ocr_reducer.c).
set -u
t=$1 cl=$2
err=$(mktemp); dir=$(mktemp -d)
trap 'rm -rf "$err" "$dir"' EXIT
oclgrind --data-races --check-api "$t" few 6 >/dev/null 2>"$err"; rc=$?
if [ $rc != 0 ] || [ -s "$err" ]; then
  echo "FAIL: exit $rc; oclgrind says:"; head -c 20000 "$err"; exit 1
fi
echo "ok: no oclgrind diagnostics"
[ "${TEST_CUSTOM_LOCAL:-1}" -gt 1 ] || { echo PASSED; exit 0; }
cp -r "$cl" "$dir/m"
perl -0pi -e 's/(ocr_rk_l\[ocr_rk_lid \+ ocr_rk_s\]\);\n)\s*barrier\(CLK_LOCAL_MEM_FENCE\);/$1/' "$dir/m/custom.cl"
grep -q "ocr_rk_l\[ocr_rk_lid + ocr_rk_s\]);" "$dir/m/custom.cl" || { echo "FAIL: mutant not made"; exit 1; }
TEST_CUSTOM_KERNEL_DIR="$dir/m" oclgrind --data-races "$t" few 6 >/dev/null 2>"$err"
grep -q "race" "$err" || { echo "FAIL: the tree without its barrier was not reported as a race"; exit 1; }
echo "ok: the tree without its barrier is a race"
echo PASSED
