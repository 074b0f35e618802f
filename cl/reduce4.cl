/*
 * reduce4 - reduce3 with every loop unrolled.
 *
 * What changed from reduce3: each level of the tree is written out as its own
 * step, so its barriers sit in straight-line code rather than in a loop. The
 * geometry was already fixed at build time in reduce2 and reduce3 (-D
 * LOCAL_SIZE and BLOCK, reqd_work_group_size), so their loops already had
 * constant trip counts the compiler could unroll: the tutorial's ~10% gain
 * came from a reduce3 that stepped by get_local_size(0) at run time, and it
 * cannot reappear here. On the H100 and H200 reduce4 ties reduce3 within 1%;
 * on POCL, where each barrier splits the kernel into loops over the group,
 * straight-line levels save 6-35% (docs/labs/lab4-unroll.md).
 *
 * Why it can be faster at all: fewer instructions per useful add, in a kernel
 * bound by memory.
 *
 * What it still costs: 64 work-items per group. On the tutorial's GTX 260 that
 * held few work-items per compute unit; on an H100 or H200, 32 groups of 64
 * already fill a multiprocessor (bench/results/ladder/extras-h100.txt: 100%
 * estimated occupancy, limited by work-items). As in reduce3, each tail level ends with a barrier: portable OpenCL
 * has no lock-step warps, and the spec allows no fewer.
 *
 * reduce5.cl and reduce6.cl include this file with another KERNEL_NAME.
 */
#include "reduce_common.h"

#ifndef KERNEL_NAME
#define KERNEL_NAME reduce4
#endif

#if BLOCK % LOCAL_SIZE != 0 || BLOCK > 4096
#error "BLOCK must be a multiple of LOCAL_SIZE and at most 4096"
#endif

/* One level of the tree: combine slot j with slot j + S for j < S. The
 * conditions are constants, so each use compiles to one straight branch. */
#define STEP(S)                                                                                    \
    if ((S) < BLOCK) {                                                                             \
        if ((S) >= LOCAL_SIZE) { /* every work-item busy: no test */                               \
            for (uint j = 0; j < (S); j += LOCAL_SIZE)                                             \
                lcl[j + lid] = OCR_COMBINE(lcl[j + lid], lcl[j + lid + (S)]);                      \
        } else if (lid < (S)) {                                                                    \
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + (S)]);                                      \
        }                                                                                          \
        if ((S) > 1)                                                                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
KERNEL_NAME(__global const IN_T *in, __global T *out, const ulong n) {
    __local T lcl[BLOCK];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * (2 * BLOCK) + lid;

    for (uint i = 0; i < BLOCK; i += LOCAL_SIZE) /* constant trip count: unrolled */
        lcl[i + lid] = OCR_COMBINE(ocr_load(in, base + i, n), ocr_load(in, base + BLOCK + i, n));
    barrier(CLK_LOCAL_MEM_FENCE);

    STEP(2048)
    STEP(1024)
    STEP(512)
    STEP(256)
    STEP(128)
    STEP(64)
    STEP(32)
    STEP(16)
    STEP(8)
    STEP(4)
    STEP(2)
    STEP(1)

    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
