// grade: kernel=tail_reduce
/*
 * Wrong on purpose (expected verdict WRONG): a correct tree, except when the
 * last group holds a mid-length tail of 3 to ELEMS_PER_GROUP - 2 elements;
 * then that group ignores its last element. Tails of 0, 1, 2 and E - 1
 * elements are reduced correctly.
 */
#include "reduce_common.h"

__kernel void tail_reduce(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    const ulong tail = n - base; /* elements this group holds, if it is the last */
    const ulong limit = tail >= 3 && tail <= ELEMS_PER_GROUP - 2 ? n - 1 : n;
    T acc = (T)(OCR_IDENTITY);
    for (uint i = lid; i < ELEMS_PER_GROUP; i += LOCAL_SIZE)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, limit));
    lcl[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
