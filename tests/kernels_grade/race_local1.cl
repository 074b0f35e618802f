// grade: kernel=tree_reduce elems=1024 local=1
/*
 * Wrong on purpose (expected verdict: not PASS): the barrier between filling
 * local memory and the first tree level is missing, so that level reads
 * slots other work-items may not have written yet. With one work-item per
 * group there is no one to race with, which is why the student's line asks
 * for local=1: the grader takes the work-group size from the teacher, never
 * from this line.
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
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
