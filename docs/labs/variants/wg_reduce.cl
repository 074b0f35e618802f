/*
 * wg_reduce - the whole tree in one built-in: work_group_reduce_add.
 *
 * What changed from reduce5 (same geometry: 128 work-items, 2048 elements per
 * group): each work-item adds its 16 elements in a register, then one call,
 * work_group_reduce_add (or _min, _max), combines the group's 128 values.
 * No local memory, no barrier, no tree in the source: the implementation
 * chooses (on a GPU typically sub-group shuffles, then a little local memory).
 *
 * What it needs: OpenCL C 2.0, where work-group functions are core, or OpenCL
 * C 3.0 with the optional feature __opencl_c_work_group_collective_functions.
 * Elsewhere the guard below stops the build with OCR_UNSUPPORTED, which
 * docs/labs/variants/run.sh reports as a skip.
 *
 * What it costs: only add, min and max exist; integer sums go through the
 * unsigned type so that they wrap like the harness's reference.
 */
#if !defined(__opencl_c_work_group_collective_functions) &&                                        \
    !(defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ == 200)
#error "OCR_UNSUPPORTED: work_group_reduce needs OpenCL C 2.0, or 3.0 with __opencl_c_work_group_collective_functions"
#endif
#include "variant_common.h"

#if OCR_OP == OCR_OP_SUM && OCR_IS_FLOAT
#define WG_REDUCE(x) work_group_reduce_add(x)
#elif OCR_OP == OCR_OP_SUM
#define WG_REDUCE(x) OCR_CAT(as_, OCR_T)(work_group_reduce_add(OCR_CAT(as_, OCR_UT)(x)))
#elif OCR_OP == OCR_OP_MIN
#define WG_REDUCE(x) work_group_reduce_min(x)
#elif OCR_OP == OCR_OP_MAX
#define WG_REDUCE(x) work_group_reduce_max(x)
#else
#error "wg_reduce: work_group_reduce has add, min and max only (--op sum, min or max)"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
wg_reduce(__global const T *in, __global T *out, const ulong n) {
    const T x = WG_REDUCE(ocr_thread_partial(in, n));
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = x;
}
