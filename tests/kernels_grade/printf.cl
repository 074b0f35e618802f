// grade: kernel=chatty_reduce
/*
 * A correct kernel that talks (expected verdict PASS): work-item 0 of every
 * group prints a line with JSON's and CSV's special characters in it. What a
 * kernel prints belongs in the student's log, never in the report.
 */
#include "reduce_common.h"

__kernel void chatty_reduce(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    T acc = (T)(OCR_IDENTITY);
    for (uint i = lid; i < ELEMS_PER_GROUP; i += LOCAL_SIZE)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    lcl[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        printf("{\"debug\": \"group %lu of n=%lu\", x,\"y\n", (ulong)get_group_id(0), n);
        out[get_group_id(0)] = lcl[0];
    }
}
