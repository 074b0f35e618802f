// grade: kernel=tree_reduce
/*
 * Wrong on purpose (expected verdict: not PASS): written for groups of 64
 * work-items whatever LOCAL_SIZE says: its tree starts at 32, so with more
 * work-items their partial values are never combined. Right at -w 64 only;
 * the grader's second geometry uses another work-group size.
 */
#include "reduce_common.h"

__kernel void tree_reduce(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    T acc = (T)(OCR_IDENTITY);
    for (uint i = lid; i < ELEMS_PER_GROUP; i += LOCAL_SIZE)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    lcl[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 32; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
