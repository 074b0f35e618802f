#!/usr/bin/env bash
# run.sh VARIANT [oclReduction options] - runs one of lab 7's kernels through
# oclReduction's --kernel-file harness, with the same geometry as reduce5
# (128 work-items, 2048 elements per group), and says so when the device
# cannot build it.
#
#   VARIANT: wg_reduce | sg_reduce | sg_shuffle | atomic_local
#
# The OpenCL C version goes in --build-options: -cl-std=CL3.0 first, then
# CL2.0 (devices of OpenCL 2.x), then CL1.2; CLSTD=CL2.0 (say) forces one.
# Each kernel starts with a guard that stops the build with "OCR_UNSUPPORTED:
# why" when the compiler lacks the feature; that, and only that, is a skip:
# "Skipped: ..." and exit status 0. Any other build error is an error (exit
# 3, with the build log); a wrong result is exit 1, as for oclReduction.
# OCR selects the binary (default: oclReduction on the PATH, else the build
# tree's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${OCR:-}" ]; then
  OCR=$(command -v oclReduction || echo "$here/../../../build/oclReduction")
fi
v=${1:-}
case $v in
  wg_reduce | sg_reduce | sg_shuffle | atomic_local) shift ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
err=$(mktemp)
trap 'rm -f "$err"' EXIT
tried=""
for std in ${CLSTD:-CL3.0 CL2.0 CL1.2}; do
  rc=0
  "$OCR" --kernel-file "$here/$v.cl" --kernel-name "$v" --elems-per-group 2048 --local-size 128 \
    --build-options "-cl-std=$std" "$@" 2>"$err" || rc=$?
  why=$(grep -o 'OCR_UNSUPPORTED: [^"]*' "$err" | head -1)
  if [ "$rc" = 3 ] && [ -n "$why" ]; then
    echo "Skipped: $v does not build on this device with -cl-std=$std: ${why#OCR_UNSUPPORTED: }${tried:+ (before: $tried)}"
    exit 0
  fi
  if [ "$rc" = 3 ] && grep -q "^oclReduction: building .* failed" "$err"; then
    tried="$tried${tried:+; }-cl-std=$std: $(grep -m 1 'error:' "$err" | cut -c1-100)"
    continue # perhaps this -cl-std is not for this device: try the next
  fi
  cat "$err" >&2
  [ "$rc" != 0 ] || echo "Variant $v: built with -cl-std=$std"
  exit "$rc"
done
cat "$err" >&2 # the last build log in full
echo "run.sh: $v: no -cl-std built it ($tried)" >&2
exit 3
