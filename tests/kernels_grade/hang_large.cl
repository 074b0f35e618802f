// grade: kernel=tree_reduce
/*
 * Wrong on purpose (expected verdict TIMEOUT, blamed on the first case past
 * 100000 elements): a correct tree, except that an input of more than 100000
 * values sends every work-item round a loop that never ends. Smaller inputs,
 * and the later passes of large ones, are reduced correctly.
 */
#include "reduce_common.h"

__kernel void tree_reduce(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    if (n > 100000)
        for (;;)
            barrier(CLK_LOCAL_MEM_FENCE);
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
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
