/*
 * reduce3_no_prefetch_barrier - LAB FIXTURE. reduce3 with fewer barriers:
 * right at some work-group sizes, a data race at others.
 *
 * What changed from reduce3: the barrier after the prefetch is gone, and of
 * the busy levels (s >= LOCAL_SIZE) only the last keeps its barrier.
 *
 * Why it still works at the default geometry: in the prefetch, work-item lid
 * writes the slots i + lid, i a multiple of LOCAL_SIZE, so exactly the slots
 * congruent to lid modulo LOCAL_SIZE. In a busy level, s is a multiple of
 * LOCAL_SIZE too, so work-item lid reads lcl[j + lid + s] and writes
 * lcl[j + lid]: slots of its own residue class again. Until the tail, no
 * work-item reads anything another one wrote, and program order is enough.
 * The tail (s < LOCAL_SIZE) reads lcl[lid + s], another work-item's slot, so
 * the barrier before the tail, the one after the last busy level, must stay.
 *
 * Where it breaks: with -w 1024 (LOCAL_SIZE = BLOCK = 1024) there is no busy
 * level at all, so the first tail level (s = 512) reads slots that other
 * work-items wrote in the prefetch, with no barrier in between. oclgrind
 * --data-races reports a read-write race on every one of those slots (and,
 * running the work-items in order, gets a wrong sum). POCL 3.1 still gets the
 * right sum: it adds barriers of its own at the entry of a loop that contains
 * a barrier, here the tail loop. A passing check proves no race absent.
 * The barrier after reduce3's prefetch is there for every -w, not for the
 * default geometry.
 *
 * docs/labs/lab3-first-add.md runs it at -w 64, 128 and 1024.
 */
#include "reduce_common.h"

#if BLOCK % LOCAL_SIZE != 0
#error "BLOCK must be a multiple of LOCAL_SIZE"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce3_no_prefetch_barrier(__global const T *in, __global T *out, const ulong n) {
    __local T lcl[BLOCK];
    const uint lid = get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * (2 * BLOCK);

    for (uint i = 0; i < BLOCK; i += LOCAL_SIZE)
        lcl[i + lid] =
            OCR_COMBINE(ocr_load(in, base + i + lid, n), ocr_load(in, base + BLOCK + i + lid, n));
    /* No barrier here: see the header for when that is safe. */

    for (uint s = BLOCK / 2; s >= LOCAL_SIZE; s >>= 1) {
        for (uint j = 0; j < s; j += LOCAL_SIZE)
            lcl[j + lid] = OCR_COMBINE(lcl[j + lid], lcl[j + lid + s]);
        if (s == LOCAL_SIZE) /* the last busy level: the tail reads across work-items */
            barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = OCR_COMBINE(lcl[lid], lcl[lid + s]);
        if (s > 1)
            barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = lcl[0];
}
