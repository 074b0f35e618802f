#!/usr/bin/env bash
# histogram_mutants_test.sh TEST_HISTOGRAM CL_DIR - a copy of cl/histogram.cl
# with one mistake must fail test_histogram's small runs (groups of 8, every
# kind and method) on the default device, or under oclgrind (races,
# uninitialized values) when the device runs each group's work-items one
# after the other and cannot show a lost update: a lost atomic (a plain +=),
# the barrier before the merge gone, the zeroing barrier gone, an off-by-one
# edge (upper left out; the last bin's clamp; the binary search), a lost run
# of the aggregation (within the loop, at its end), the vector loads' lost
# samples (before the first whole vector, the last one, a vector of each
# group's share), and one-byte samples counted by value (the value 255
# lost, the barrier before the values are binned gone, the value counters
# left unzeroed, a value's bits cut, a lost atomic in the binning). Each
# mutant runs the cases of the kind it touches
# (TEST_HISTOGRAM_KIND: 0 even, 1 edges; without weights), so that few
# kernels are built.
set -u
prog=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mutants=(
  "0|HIST_ADD_LOCAL(&HIST_TO[b_], HIST_ONE(i));|HIST_TO[b_] += HIST_ONE(i);"
  "0|barrier(CLK_LOCAL_MEM_FENCE); /* every count in before the row is written */|"
  "0|barrier(CLK_LOCAL_MEM_FENCE); /* every copy zeroed before any count */|"
  "0|if (!(v >= lower && v <= upper)) return HIST_NONE;|if (!(v >= lower \&\& v < upper)) return HIST_NONE;"
  "0|return min(b, bins - 1);|return min(b, bins);"
  "1|while (hi - lo > 1) {|while (hi - lo > 2) {"
  "0|if (run_bin != HIST_NONE) HIST_ADD_LOCAL(&HIST_TO[run_bin], run);|"
  "0|    if (run_bin != HIST_NONE) HIST_ADD_LOCAL(&HIST_TO[run_bin], run);
#if HIST_RAW|#if HIST_RAW"
  "0|const ulong i = t < head ? t : t + nv * HIST_VEC;|const ulong i = t + nv * HIST_VEC;"
  "0|for (ulong t = lid; t < rest; t += ls) {|for (ulong t = lid; t + 1 < rest; t += ls) {"
  "0|ve = min(vb + pv, nv);|ve = min(vb + pv - 1, nv);"
  "0|if (b != HIST_NONE) HIST_ADD_GLOBAL(&cnt[b], HIST_ONE(i));|if (b != HIST_NONE) cnt[b] += HIST_ONE(i);"
  "0|for (uint v = lid; v < 256; v += ls) {|for (uint v = lid; v < 255; v += ls) {"
  "0|barrier(CLK_LOCAL_MEM_FENCE); /* every value counted before the values are binned */|"
  "0|for (uint b = lid; b < bins + 256; b += ls)|for (uint b = lid; b < bins; b += ls)"
  "0|#define HIST_SLOT(x) ((uint)as_uchar(x))|#define HIST_SLOT(x) ((uint)(x) \& 127)"
  "0|if (b != HIST_NONE && raw[v]) HIST_ADD_LOCAL(&cnt[b], raw[v]);|if (b != HIST_NONE \&\& raw[v]) cnt[b] += raw[v];"
)
bad=0 k=0
for m in "${mutants[@]}"; do
  k=$((k + 1)) kind=${m%%|*} m=${m#*|}
  from=${m%%|*} to=${m#*|}
  export TEST_HISTOGRAM_KIND=$kind
  dir=$tmp/m$k
  mkdir -p "$dir" && cp "$src"/*.cl "$src"/*.h "$dir"/
  python3 - "$dir/histogram.cl" "$from" "$to" <<'PY' || { echo "FAIL: mutant $k: '$from' not in histogram.cl"; exit 1; }
import sys
p, a, b = sys.argv[1:]
b = b.replace("\\&", "&")
s = open(p).read()
if a not in s:
    sys.exit(1)
open(p, "w").write(s.replace(a, b, 1))
PY
  caught=""
  for t in uchar char int; do
    "$prog" few $t 8 "$dir" > "$tmp/out" 2>&1
    [ $? = 1 ] && grep -q "^FAIL" "$tmp/out" && caught="the default device ($t)" && break
  done
  if [ -z "$caught" ] && command -v oclgrind >/dev/null; then
    for t in uchar int; do
      oclgrind --data-races --uninitialized "$prog" few $t 8 "$dir" > "$tmp/out" 2> "$tmp/err"
      rc=$?
      { [ $rc != 0 ] || [ -s "$tmp/err" ]; } && caught="oclgrind ($t)" && break
    done
  fi
  if [ -n "$caught" ]; then
    echo "ok   mutant $k ($(echo "$to" | head -1)) fails on $caught"
  else
    echo "FAIL: mutant $k ($to) passed"; bad=1
  fi
done
exit $bad
