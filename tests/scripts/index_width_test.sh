#!/usr/bin/env bash
# index_width_test.sh SRC - global-memory indices in the kernels must be 64-bit,
# so inputs past 2^31 (or 2^32) elements index correctly. A run at such a size
# needs an 8 GiB buffer, more than POCL allows on the CI machine; the host's
# arithmetic is unit-tested at 2^33 and 2^40 (test_plan), and this checks the
# kernels' source: a group id is widened before it is multiplied, and no
# global id or element index lands in a 32-bit variable.
set -u
fail=0
for f in "$1"/cl/*.cl "$1"/cl/lab/*.cl; do
  while IFS=: read -r line text; do
    echo "$f:$line: group id multiplied in 32 bits: $text"; fail=1
  done < <(grep -nE "get_group_id\(0\) *\*" "$f" | grep -v "(ulong)get_group_id")
  while IFS=: read -r line text; do
    echo "$f:$line: 32-bit global index: $text"; fail=1
  done < <(grep -nE "\b(u?int|u?short) +[a-z_0-9]+ *= *[^;]*get_global_(id|size)" "$f")
  while IFS=: read -r line text; do
    echo "$f:$line: 32-bit element count: $text"; fail=1
  done < <(grep -nE "__kernel|^[a-z_0-9]+\(" "$f" | grep -E "(const )?u?int n\)")
done
[ "$fail" = 0 ] && echo "ok: every kernel indexes global memory with 64-bit arithmetic"
