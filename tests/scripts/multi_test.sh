#!/usr/bin/env bash
# multi_test.sh split|mpi OCR TYPE "OPS" "SIZES" [NP] [-- extra oclReduction args]
#
# One input over several devices (split) or several MPI ranks (mpi) must give
# exactly the single-device run's result, PASSED, for every operator and size.
#
# The devices are POCL's: POCL_DEVICES="pthread pthread" makes POCL 3.1 show
# two pthread CPU devices in its one platform (POCL_DEVICES="cpu cpu" shows
# none there), so --split runs on two real OpenCL devices, each with its own
# context, queue and thread, sharing the host's cores. The script finds POCL's
# platform index in --list, so other platforms on the machine do not matter;
# without POCL it skips (exit 77). The mpi mode runs mpirun --oversubscribe
# -np NP, every rank on POCL's default device (one per node-local rank).
set -u
mode=$1 ocr=$2 type=$3 ops=$4 sizes=$5
np=${6:-2}
shift 5
[ $# -gt 0 ] && [ "$1" != -- ] && shift
[ "${1:-}" = -- ] && shift
extra=("$@")
# Uniform floats round in the order of the partial sums, which differs from
# one device's: there only the check (within the proven bound) must pass.
same=1
[[ " ${extra[*]} " == *" uniform "* ]] && same=0
export POCL_DEVICES="pthread pthread"
plat=$("$ocr" --list 2>/dev/null | sed -n 's/^Platform \([0-9]*\): Portable Computing Language.*/\1/p' | head -1)
if [ -z "$plat" ]; then
  echo "SKIPPED: no POCL platform (apt-get install pocl-opencl-icd)"
  exit 77
fi
fail=0
for op in $ops; do
  for n in ${sizes//,/ }; do
    want=$("$ocr" -p "$plat" -d 0 --type "$type" --op "$op" -s "$n" -r 1 "${extra[@]}" |
           sed -n 's/^Result: \([^ ]*\) .*/\1/p')
    if [ "$mode" = split ]; then
      cmd=("$ocr" --split "$plat.0,$plat.1" --type "$type" --op "$op" -s "$n" -r 2 "${extra[@]}")
      rows=2
    else
      cmd=("${MPIRUN:-mpirun}" --oversubscribe -np "$np" "$ocr" --mpi -p "$plat" --type "$type" --op "$op"
           -s "$n" -r 2 "${extra[@]}")
      rows=$np
    fi
    out=$(timeout 300 "${cmd[@]}" 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | sed -n 's/^Result: \([^ ]*\) .*/\1/p')
    # One table row per device or rank: "0.0  device..." or "   0 host ...".
    nrows=$(printf '%s\n' "$out" | grep -cE '^( *[0-9]+ [^ ]| *[0-9]+\.[0-9]+ +[^ ])')
    if [ "$rc" != 0 ] || [ -z "$want" ] || { [ "$same" = 1 ] && [ "$got" != "$want" ]; } ||
       ! printf '%s\n' "$out" | grep -q '^Test PASSED!$' || [ "$nrows" != "$rows" ]; then
      echo "FAIL: $type $op n=$n: exit $rc, result '$got', single device '$want', $nrows rows (want $rows)"
      printf '%s\n' "$out" | sed 's/^/  | /'
      echo "  replay: POCL_DEVICES=\"$POCL_DEVICES\" ${cmd[*]}"
      fail=1
    else
      echo "ok: $type $op n=$n: $got"
    fi
  done
done
exit $fail
