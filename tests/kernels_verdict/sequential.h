/*
 * sequential.h - the body of the verdict fixtures (tests/test_verdict.c): work-
 * item 0 of each group combines the group's range [base, min(base + E, n)) in
 * order, so each fixture's one deliberate mistake is the only thing wrong.
 * A fixture defines any of these before including this file:
 *   LIMIT(n)   the n the loads are bounded by (drop_last: n - 1)
 *   SKIP_LAST  elements left out at the end of each group's range
 *   FIRST      what group 0 starts from (dup_first: element 0, a second time)
 * The kernel is named reduce6 with reduce6's geometry macros, so the same file
 * runs as --kernel-file and, through --kernel-dir, in reduce6's built-in
 * geometry.
 */
#include "reduce_common.h"

#ifndef LIMIT
#define LIMIT(n) (n)
#endif
#ifndef SKIP_LAST
#define SKIP_LAST 0
#endif
#ifndef FIRST
#define FIRST (T)(OCR_IDENTITY)
#endif

__kernel void reduce6(__global const T *in, __global T *out, const ulong n) {
    if (get_local_id(0) != 0)
        return;
    const ulong g = get_group_id(0), base = g * ELEMS_PER_GROUP;
    const ulong end = min(base + ELEMS_PER_GROUP, n) - SKIP_LAST;
    T acc = g == 0 ? FIRST : (T)(OCR_IDENTITY);
    for (ulong i = base; i < end; ++i)
        acc = OCR_COMBINE(acc, ocr_load(in, i, LIMIT(n)));
    out[g] = acc;
}
