/*
 * sg_reduce - a built-in per sub-group, then local memory across sub-groups.
 *
 * What changed from wg_reduce: the tree is split where the hardware splits
 * it. sub_group_reduce_add combines the values of one sub-group (an NVIDIA
 * warp, an AMD wavefront: the work-items that run as one) without local
 * memory or barriers; the first work-item of each sub-group stores the result
 * in local memory; after one barrier, work-item 0 combines those few values.
 * This is the slides' block_reduce_sum (deck 004) in OpenCL terms.
 *
 * What it needs: sub-groups, from the cl_khr_subgroups extension (OpenCL C
 * 2.0) or the OpenCL C 3.0 feature __opencl_c_subgroups. Elsewhere the guard
 * stops the build with OCR_UNSUPPORTED (run.sh: a skip).
 *
 * What it costs: one barrier and a serial loop over the sub-groups (4 for 128
 * work-items in warps of 32). The sub-group size is the device's choice, not
 * ours: the code asks for it (get_num_sub_groups) instead of assuming 32.
 */
#if !defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#error "OCR_UNSUPPORTED: sub-groups need cl_khr_subgroups, or OpenCL C 3.0 with __opencl_c_subgroups"
#endif
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#include "variant_common.h"

#if OCR_OP == OCR_OP_SUM && OCR_IS_FLOAT
#define SG_REDUCE(x) sub_group_reduce_add(x)
#elif OCR_OP == OCR_OP_SUM
#define SG_REDUCE(x) OCR_CAT(as_, OCR_T)(sub_group_reduce_add(OCR_CAT(as_, OCR_UT)(x)))
#elif OCR_OP == OCR_OP_MIN
#define SG_REDUCE(x) sub_group_reduce_min(x)
#elif OCR_OP == OCR_OP_MAX
#define SG_REDUCE(x) sub_group_reduce_max(x)
#else
#error "sg_reduce: sub_group_reduce has add, min and max only (--op sum, min or max)"
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
sg_reduce(__global const T *in, __global T *out, const ulong n) {
    __local T part[LOCAL_SIZE]; /* one slot per sub-group; at most LOCAL_SIZE of them */
    const T x = SG_REDUCE(ocr_thread_partial(in, n));
    if (get_sub_group_local_id() == 0)
        part[get_sub_group_id()] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        T r = part[0];
        for (uint i = 1; i < get_num_sub_groups(); ++i)
            r = OCR_COMBINE(r, part[i]);
        out[get_group_id(0)] = r;
    }
}
