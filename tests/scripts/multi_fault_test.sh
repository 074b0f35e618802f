#!/usr/bin/env bash
# multi_fault_test.sh OCR SHIM ARGS... - fault injection over a --split run on
# two POCL devices (see multi_test.sh): every OpenCL call the run makes fails
# once, in turn, on whichever device's thread makes it. Each run must end (a
# device thread must not wait for one that left), exit 3 with exactly one
# message naming a failed call, and print no sanitizer report. As in
# fault_test.sh, a failed unmap keeps POCL's buffer alive, so those runs skip
# the leak check only; a profiling query without times must PASS. @P@ in ARGS stands for POCL's platform index (found by
# name, tests/select_device.sh); without POCL the test is skipped (exit 77).
set -u
ocr=$1 shim=$2
shift 2
export POCL_DEVICES="pthread pthread"
. "$(dirname "$0")/select_device.sh"
p=$(pocl_platform "$ocr") || skip_test "needs POCL: no 'Portable Computing Language' platform in --list"
args=()
for a in "$@"; do args+=("${a//@P@/$p}"); done
set -- "${args[@]}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! OCR_FAULT_TRACE="$tmp/trace" LD_PRELOAD="$shim" "$ocr" "$@" >/dev/null 2>"$tmp/err"; then
  echo "FAIL: the traced run did not pass:"; cat "$tmp/err"; exit 1
fi
sort "$tmp/trace" | uniq -c | grep -v " clRelease" > "$tmp/calls"
runs=0 failed=0
while read -r count name; do
  # as in fault_test.sh: a profiling query that gives no times (the shim's
  # default error for it) is no failure, the run PASSES with at most a note;
  # the same call failing with CL_OUT_OF_RESOURCES (-5) must exit 3
  errs=("")
  [ "$name" = clGetEventProfilingInfo ] && errs=("" ":-5")
  for ((k = 1; k <= count; k++)); do
   for e in "${errs[@]}"; do
    runs=$((runs + 1))
    leaks=""
    [ "$name" = clEnqueueUnmapMemObject ] && leaks=":detect_leaks=0"
    ASAN_OPTIONS="$ASAN_OPTIONS$leaks" OCR_FAULT="$name:$k$e" LD_PRELOAD="$shim" timeout 60 "$ocr" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    bad=""
    grep -Eq "Sanitizer|runtime error:" "$tmp/err" && bad=1
    if [ "$name" = clGetEventProfilingInfo ] && [ -z "$e" ]; then
      notes=$(grep -vc "^oclReduction: note: .*the host clock stands in" "$tmp/err")
      { [ "$rc" = 0 ] && grep -q "^Test PASSED!$" "$tmp/out" && [ "$notes" = 0 ]; } || bad=1
      msgs="(no failure expected)"
    else
      msgs=$(grep -cE "^oclReduction: cl[A-Za-z]+ failed: CL_[A-Z0-9_]+ \(-?[0-9]+\) at [a-z_]+\.c:[0-9]+$" "$tmp/err")
      { [ "$rc" = 3 ] && [ "$msgs" = 1 ]; } || bad=1
    fi
    if [ -n "$bad" ]; then
      echo "FAIL: $name call $k${e:+ (error ${e#:})}: exit $rc (124: hung), $msgs messages naming a failed call:"
      sed 's/^/  | /' "$tmp/err"
      failed=$((failed + 1))
    fi
   done
  done
done < "$tmp/calls"
echo "$runs runs with one failed call, $failed wrong"
[ "$failed" = 0 ]
