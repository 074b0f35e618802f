/*
 * reduce2 - one work-group reduces a whole block in local memory.
 *
 * What changed from reduce1: instead of one launch per level, a work-group of
 * LOCAL_SIZE work-items (64) copies a BLOCK of values (1024) into local memory,
 * reduces it there to one value and writes only that. One launch now divides
 * the data by 1024 instead of 2.
 *
 * Why it is faster: global memory is read once per pass and written once per
 * block; the log2(BLOCK) levels in between run in fast on-chip memory.
 *
 * What it still costs: every work-item tests `if (j < s)` at every level even
 * while all of them are busy, half of the work-items sit idle as soon as the
 * active range is smaller than the work-group, and a barrier follows every
 * level. Local memory holds the whole block, which limits how many work-groups
 * fit on a compute unit.
 */
#include "reduce_common.h"

#if BLOCK % LOCAL_SIZE != 0
#error "BLOCK must be a multiple of LOCAL_SIZE"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce2(__global const IN_T *in, __global T *out, const ulong n) {
    __local T lcl[BLOCK];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * BLOCK;

    for (uint i = 0; i < BLOCK; i += LOCAL_SIZE)
        lcl[i + lid] = ocr_load(in, base + i + lid, n);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = BLOCK / 2; s > 0; s >>= 1) {
        for (uint j = 0; j < s; j += LOCAL_SIZE)
            if (j + lid < s)
                lcl[j + lid] = OCR_COMBINE(lcl[j + lid], lcl[j + lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
