/*
 * sg_shuffle - the tree inside a sub-group by shuffles, as the slides'
 * warp_reduce_sum does with __shfl_down_sync (deck 004).
 *
 * What changed from sg_reduce: the sub-group's tree is written out. At each
 * step, sub_group_shuffle_down(x, d) hands every work-item the value of the
 * work-item d places further on in its sub-group, register to register: no
 * local memory, no barrier, and any operator (OCR_COMBINE), not only add,
 * min and max. After log2(sub-group size) steps the first work-item holds the
 * sub-group's value; the sub-groups then meet in local memory as in sg_reduce.
 *
 * What it needs: sub-groups, and shuffles: cl_khr_subgroup_shuffle_relative
 * (sub_group_shuffle_down), or else cl_khr_subgroup_shuffle, whose
 * sub_group_shuffle(x, lane + d) reads the same value by index (POCL 5.0 has
 * only this one). Elsewhere the guard stops the build with OCR_UNSUPPORTED.
 *
 * What it costs: nothing in OpenCL says the sub-group size is 32 or a power
 * of two, so the distances start at the next power of two and every step
 * checks that the partner exists: a shuffle from past the end of the
 * sub-group is undefined.
 */
#if !defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#error "OCR_UNSUPPORTED: sub-groups need cl_khr_subgroups, or OpenCL C 3.0 with __opencl_c_subgroups"
#endif
#if !defined(cl_khr_subgroup_shuffle_relative) && !defined(cl_khr_subgroup_shuffle)
#error "OCR_UNSUPPORTED: sub-group shuffles need cl_khr_subgroup_shuffle_relative or cl_khr_subgroup_shuffle"
#endif
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#include "variant_common.h"

/* The value of the work-item d places further on; undefined past the end of
 * the sub-group (the index form is clamped so that it stays in range, and the
 * caller ignores the value). */
#ifdef cl_khr_subgroup_shuffle_relative
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle_relative : enable
#define SHUFFLE_DOWN(x, d, lane, size) sub_group_shuffle_down((x), (d))
#else
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#define SHUFFLE_DOWN(x, d, lane, size) sub_group_shuffle((x), min((lane) + (d), (size) - 1))
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
sg_shuffle(__global const T *in, __global T *out, const ulong n) {
    __local T part[LOCAL_SIZE];
    T x = ocr_thread_partial(in, n);
    const uint size = get_sub_group_size(), lane = get_sub_group_local_id();
    uint p = 1;
    while (p < size)
        p <<= 1;
    for (uint d = p / 2; d > 0; d >>= 1) { /* the same d for the whole sub-group */
        const T other = SHUFFLE_DOWN(x, d, lane, size);
        if (lane + d < size)
            x = OCR_COMBINE(x, other);
    }
    if (lane == 0)
        part[get_sub_group_id()] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        T r = part[0];
        for (uint i = 1; i < get_num_sub_groups(); ++i)
            r = OCR_COMBINE(r, part[i]);
        out[get_group_id(0)] = r;
    }
}
