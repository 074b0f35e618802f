/*
 * starter.cl - your own reduction kernel, run by oclReduction's harness:
 *
 *   oclReduction --kernel-file starter.cl --kernel-name my_reduce \
 *                --elems-per-group 1024 --local-size 64
 *
 * The contract (the same as every built-in kernel):
 *  - `in` holds n values; work-group g reduces elements
 *    [g * ELEMS_PER_GROUP, (g + 1) * ELEMS_PER_GROUP) to ONE value, out[g];
 *  - elements at or past n count as the identity (ocr_load does that);
 *  - the host launches ceil(n / ELEMS_PER_GROUP) groups of LOCAL_SIZE
 *    work-items, swaps buffers, and repeats until at most M values remain.
 *
 * The host defines, as -D options: T (via OCR_T), OCR_COMBINE(a, b) (the
 * operator), OCR_IDENTITY, LOCAL_SIZE (--local-size) and ELEMS_PER_GROUP
 * (--elems-per-group). reduce_common.h (found automatically) turns them into
 * the type T, OCR_COMBINE and ocr_load(in, i, n).
 *
 * This version is correct and slow on purpose: work-item 0 of each group adds
 * the whole block alone while the others wait. Make it faster - local memory,
 * a tree, more work-items busy - and keep `Test PASSED!`. Check every change
 * with oclgrind (see race-lab.md).
 */
#include "reduce_common.h"

__kernel void my_reduce(__global const T *in, __global T *out, const ulong n) {
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP;
    if (get_local_id(0) != 0)
        return;
    T acc = (T)(OCR_IDENTITY);
    for (uint i = 0; i < ELEMS_PER_GROUP; ++i)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    out[get_group_id(0)] = acc;
}
