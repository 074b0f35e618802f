// grade: kernel=tree_reduce
/*
 * Wrong on purpose (expected verdict RACE with oclgrind; its values pass on
 * POCL, so without oclgrind it must be PASS_UNCHECKED, never PASS): the tree
 * has no barrier after its last level, and the group's LAST work-item stores
 * lcl[0], which work-item 0 wrote in that level. POCL runs a group's work-
 * items in order, so the write always comes first there; a GPU need not.
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
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        if (s > 1)
            barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == LOCAL_SIZE - 1)
        out[get_group_id(0)] = lcl[0];
}
