// grade: kernel=global_fence
/*
 * global_fence - WRONG ON PURPOSE: the tutorial's barrier flag on local data.
 *
 * A correct tree in local memory (the same as tests' tree.cl), except that
 * every barrier says CLK_GLOBAL_MEM_FENCE where the data it orders live in
 * local memory. The barrier makes every work-item wait, but the flag only
 * promises that global-memory accesses are ordered: the writes to lcl[] of one
 * level need not be visible to the next level's reads. A CPU device keeps
 * local memory in ordinary caches, so POCL gives the right sum anyway; oclgrind
 * checks what the specification promises and reports a data race. The fix is
 * CLK_LOCAL_MEM_FENCE (or both flags, if the same barrier also orders global
 * data). docs/labs/tutorial-notes.md walks through it.
 */
#include "reduce_common.h"

__kernel void global_fence(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    T acc = (T)(OCR_IDENTITY);
    for (uint i = lid; i < ELEMS_PER_GROUP; i += LOCAL_SIZE)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    lcl[lid] = acc;
    barrier(CLK_GLOBAL_MEM_FENCE); /* the mistake: lcl[] is local memory */
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
