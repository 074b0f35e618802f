// grade: kernel=first_add elems=2048 local=1024
/* Wrong on purpose: reduce3's idea without the barrier after the prefetch.
 * With 1024 work-items and a 1024-value block, the first tree level reads
 * slots other work-items wrote: a race POCL's in-order work-items hide and
 * oclgrind reports. */
#include "reduce_common.h"

__kernel void first_add(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    lcl[lid] = OCR_COMBINE(ocr_load(in, base + lid, n), ocr_load(in, base + LOCAL_SIZE + lid, n));
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
