/*
 * reduce3 - add while loading, drop the test while everyone is busy,
 * and a short tail.
 *
 * What changed from reduce2:
 *  1. Each work-group now covers 2 * BLOCK elements: a work-item loads two
 *     values BLOCK apart and stores their combination, so local memory holds
 *     half as much per element read and the first level costs nothing extra.
 *  2. While the active range s is at least LOCAL_SIZE, every work-item has
 *     exactly s / LOCAL_SIZE slots to combine, so the `if` is gone.
 *  3. Once s is smaller than the work-group, a short tail finishes the last
 *     log2(LOCAL_SIZE) levels with only the lower work-items active.
 *
 * Why it is faster: half the work-groups for the same data, half the local
 * memory per element, and no per-slot test in the busy levels.
 *
 * What it still costs, and what we deliberately kept: the tutorial's tail runs
 * with no barrier, trusting that 32 work-items run in lock-step as one NVIDIA
 * warp. OpenCL promises no such thing (on a CPU device the result is wrong:
 * see cl/lab/race_tail.cl), so every tail level here ends with a barrier, except
 * the last, whose only reader is the work-item that wrote it.
 *
 * The barrier after the prefetch (where the tutorial had only a write fence)
 * and the barriers between busy levels are there for every -w, not for the
 * default geometry. With 64 work-items and a 1024-value block, work-item lid
 * writes and reads only slots congruent to lid modulo 64 until the tail, so
 * the only barrier it needs before the tail is the last one. With -w 1024
 * there is no busy level, and the first tail level reads slots that other
 * work-items wrote in the prefetch. cl/lab/reduce3_no_prefetch_barrier.cl
 * drops those barriers: clean under oclgrind at -w 64 and 128, races at -w 1024.
 */
#include "reduce_common.h"

#if BLOCK % LOCAL_SIZE != 0
#error "BLOCK must be a multiple of LOCAL_SIZE"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce3(__global const IN_T *in, __global T *out, const ulong n) {
    __local T lcl[BLOCK];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * (2 * BLOCK);

    for (uint i = 0; i < BLOCK; i += LOCAL_SIZE)
        lcl[i + lid] =
            OCR_COMBINE(ocr_load(in, base + i + lid, n), ocr_load(in, base + BLOCK + i + lid, n));
    barrier(CLK_LOCAL_MEM_FENCE); /* needed when -w is the whole block; see the header */

    /* Busy levels: s is a multiple of LOCAL_SIZE, so no work-item tests anything. */
    for (uint s = BLOCK / 2; s >= LOCAL_SIZE; s >>= 1) {
        for (uint j = 0; j < s; j += LOCAL_SIZE)
            lcl[j + lid] = OCR_COMBINE(lcl[j + lid], lcl[j + lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* Tail: fewer active work-items each level, a barrier between levels. */
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        if (s > 1) /* the same for every work-item, so the barrier is legal */
            barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
