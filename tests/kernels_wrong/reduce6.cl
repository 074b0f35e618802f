/*
 * A deliberately wrong reduce6, for the test of the FAILED path (exit 1):
 * it reduces correctly and then adds one to every group's result. The real
 * kernel is cl/reduce6.cl; this file exists only to prove the check can fail.
 */
#include "reduce_common.h"

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce6(__global const T *in, __global T *out, const ulong n) {
    if (get_local_id(0) != 0)
        return;
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    T acc = (T)(OCR_IDENTITY);
    for (ulong i = 0; i < ELEMS_PER_GROUP; ++i)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    out[get_group_id(0)] = acc + (T)1;
}
