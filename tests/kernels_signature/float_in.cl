/* A test fixture: a correct reduction for --type float only, since its input
 * is declared float whatever T is. With another type it must be refused. */
#include "reduce_common.h"

__kernel void k(__global const float *in, __global T *out, const ulong n) {
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    if (get_local_id(0) != 0)
        return;
    T acc = (T)(OCR_IDENTITY);
    for (ulong i = base; i < base + ELEMS_PER_GROUP && i < n; ++i)
        acc = OCR_COMBINE(acc, (T)in[i]);
    out[get_group_id(0)] = acc;
}
