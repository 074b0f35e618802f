/* A test fixture: keeps a whole group's block in local memory, so it needs
 * ELEMS_PER_GROUP values of local memory per work-group, more than a device
 * has when --elems-per-group is large. Correct where it fits. */
#include "reduce_common.h"

__kernel void k(__global const T *in, __global T *out, const ulong n) {
    __local T block[ELEMS_PER_GROUP];
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    for (uint i = get_local_id(0); i < ELEMS_PER_GROUP; i += get_local_size(0))
        block[i] = ocr_load(in, base + i, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        T acc = (T)(OCR_IDENTITY);
        for (uint i = 0; i < ELEMS_PER_GROUP; ++i)
            acc = OCR_COMBINE(acc, block[i]);
        out[get_group_id(0)] = acc;
    }
}
