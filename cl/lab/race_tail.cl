/*
 * race_tail - LAB FIXTURE, WRONG ON PURPOSE. Not one of reduce0..reduce6.
 *
 * This is reduce3 with the tail the way the tutorial (and the classic CUDA
 * ladder) wrote it: once 64 values are left, the last six levels run with no
 * barrier at all. That was a bet on hardware: the 32 work-items of an NVIDIA
 * warp executed in lock-step, so each level's writes happened to be visible to
 * the next level's reads.
 *
 * OpenCL promises nothing of the kind. Work-items of a group may run in any
 * order between barriers (on a CPU device POCL runs them one after another in
 * loops), so work-item 0 can read lcl[1] before work-item 1 has written it.
 * Run it on POCL and the check fails; run it under oclgrind --data-races and
 * every tail line is reported as a read-write race. Newer NVIDIA GPUs
 * (independent thread scheduling) break the bet as well: on an H100 it
 * returned -119944290 instead of 779831 for 2^25 ints (seed 1, exact data;
 * bench/results/gpu-checks/verdict_h100.txt).
 *
 * The fix, used by cl/reduce3.cl and everything after it: a barrier after each
 * tail level (the last one excepted). See docs/labs for the exercise.
 */
#include "reduce_common.h"

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
race_tail(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[BLOCK];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * (2 * BLOCK);

    for (uint i = 0; i < BLOCK; i += LOCAL_SIZE)
        lcl[i + lid] =
            OCR_COMBINE(ocr_load(in, base + i + lid, n), ocr_load(in, base + BLOCK + i + lid, n));
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint s = BLOCK / 2; s >= 64; s >>= 1) {
        for (uint j = 0; j < s; j += LOCAL_SIZE)
            lcl[j + lid] = OCR_COMBINE(lcl[j + lid], lcl[j + lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* THE BUG: no barrier between these levels. */
    if (lid < 32) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 32]);
    if (lid < 16) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 16]);
    if (lid < 8) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 8]);
    if (lid < 4) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 4]);
    if (lid < 2) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 2]);
    if (lid < 1) lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + 1]);

    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
