/*
 * variant_common.h - what the lab 7 variants share: the harness's contract
 * (group g reduces elements [g * ELEMS_PER_GROUP, (g + 1) * ELEMS_PER_GROUP)
 * to out[g], docs/labs/starter.cl) and the first stage they all use: each
 * work-item combines its share of the group's elements in a register, reading
 * consecutive elements with consecutive work-items (coalesced). The variants
 * differ only in how the group then combines its LOCAL_SIZE partial values.
 */
#ifndef OCR_VARIANT_COMMON_H
#define OCR_VARIANT_COMMON_H
#include "reduce_common.h"

#if ELEMS_PER_GROUP % LOCAL_SIZE != 0
#error "ELEMS_PER_GROUP must be a multiple of LOCAL_SIZE"
#endif

static inline T ocr_thread_partial(__global const T *in, ulong n) {
    const ulong base = (ulong)get_group_id(0) * ELEMS_PER_GROUP + get_local_id(0);
    T acc = (T)(OCR_IDENTITY);
    for (uint i = 0; i < ELEMS_PER_GROUP; i += LOCAL_SIZE)
        acc = OCR_COMBINE(acc, ocr_load(in, base + i, n));
    return acc;
}

#endif
