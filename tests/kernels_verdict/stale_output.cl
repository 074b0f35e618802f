/*
 * Wrong on purpose: right on the first run, wrong on every later one. It
 * compares with what its output slot already holds, which after the first
 * run is its own earlier answer: the kind of stale-state bug that passes
 * when only the last repetition, or only the first, is checked.
 */
#include "reduce_common.h"

__kernel void stale(__global const T *in, __global T *out, const ulong n) {
    if (get_local_id(0) != 0)
        return;
    const ulong g = get_group_id(0), base = g * ELEMS_PER_GROUP;
    T acc = (T)(OCR_IDENTITY);
    for (ulong i = base; i < min(base + ELEMS_PER_GROUP, n); ++i)
        acc = OCR_COMBINE(acc, in[i]);
    out[g] = out[g] == acc ? OCR_COMBINE(acc, (T)1) : acc;
}
