// grade: kernel=tree_reduce elems=1024 local=64
/* Wrong on purpose (expected verdict BUILD_ERROR): a missing semicolon. */
#include "reduce_common.h"

__kernel void tree_reduce(__global const T *in, __global T *out, const ulong n) {
    T acc = (T)(OCR_IDENTITY)
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    if (get_local_id(0) == 0) {
        for (uint i = 0; i < ELEMS_PER_GROUP; ++i)
            acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
        out[get_group_id(0)] = acc;
    }
}
