/*
 * reduce0 - interleaved pairs in global memory, one launch per step.
 *
 * The idea: work-item i combines elements 2i and 2i+1 and writes one value,
 * so every launch halves the data. The host swaps the input and output
 * buffers and launches again until at most M values are left; log2(n/M)
 * launches in all. This is the reduction drawn on a whiteboard, nothing more.
 *
 * What it costs: every level of the tree is a round trip through global
 * memory (read n values, write n/2), so the whole reduction moves about twice
 * the input and pays one launch per level. The two loads of a work-item are
 * two elements apart across the work-group (stride 2), so each load
 * instruction uses only half of every memory transaction it triggers.
 */
#include "reduce_common.h"

__kernel void reduce0(__global const IN_T *in, __global T *out, const ulong n) {
    const ulong i = get_global_id(0);
    const ulong n_out = (n + 1) / 2;
    if (i >= n_out)
        return; /* the global size is rounded up to a whole work-group */
    out[i] = OCR_COMBINE(ocr_load(in, 2 * i, n), ocr_load(in, 2 * i + 1, n));
}
