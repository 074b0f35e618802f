/*
 * reduce1 - sequential addressing: element i with element i + n/2.
 *
 * What changed from reduce0: work-item i now combines element i with the
 * element half the array away, instead of its neighbour.
 *
 * Why it is faster: neighbouring work-items read neighbouring elements in
 * both loads, so every memory transaction is used in full (coalesced), and the
 * values that survive a step are packed at the front of the buffer.
 *
 * What it still costs: it still writes every intermediate level back to global
 * memory and launches once per level (log2(n/M) launches). The tutorial stops
 * these two kernels at M = 64 values; so do we by default.
 */
#include "reduce_common.h"

__kernel void reduce1(__global const IN_T *in, __global T *out, const ulong n) {
    const ulong i = get_global_id(0);
    const ulong mid = (n + 1) / 2; /* odd n: the middle element pairs with padding */
    if (i >= mid)
        return;
    out[i] = OCR_COMBINE(ocr_load(in, i, n), ocr_load(in, i + mid, n));
}
