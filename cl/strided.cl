/*
 * strided - the first pass over a strided view: the n elements
 * in[in_off + i * stride], i < n (ocr_reducer_reduce_strided: NumPy's
 * a[::k], a[s:e:k], a reversed view read from its lowest element).
 *
 * Why: a view with a step is not contiguous, so reduce7's 16-byte loads
 * cannot read it, and a gathered copy writes every element once more and
 * reads it again, into a buffer of n elements. Here a fixed grid of groups
 * reads the view in place, one scalar load per element, and each group
 * writes its partial value to out[out_off + g] (the reducer's scratch, or
 * the result when there is one group); the reducer's own passes then finish
 * those partials as they finish reduce7's.
 *
 * Combined as reduce7 combines: this file includes reduce7.cl for its
 * accumulator (ACC: the operator; a compensated pair of pairs for accurate
 * sums; (key, index) pairs for argmin and argmax, the index being i, the
 * position in the view), its group tree and its group output (one value per
 * group, or an accurate sum's OCR_ACCURATE_PARTS), so every type, operator
 * and mode of the reducer works here. Widening and the small types are
 * converted as they are loaded (OCR_READ: vload_half for half; OCR_TAKE_AT).
 *
 * Access: on a GPU, work-item t of the grid takes i = t, t + G, t + 2G, ...
 * (neighbouring work-items read neighbouring elements of the view:
 * coalesced for small strides), OCR_STRIDED_UNROLL loads issued before any
 * is used (a gather waits on latency: more loads in flight). On a CPU
 * (OCR_STRIDED_BLOCKED=1, one-item groups) each work-item takes a contiguous
 * block of i, so a core walks memory in one direction.
 *
 * Correct on any conforming device: the only barriers are group_tree's,
 * reached by every work-item of the group; no lock-step is assumed. The
 * host checks in_off + (n - 1) * stride against the buffer's size, so no
 * index computed here overflows.
 */
#include "reduce7.cl"

#if !defined(OCR_STRIDED_BLOCKED) || !defined(OCR_STRIDED_UNROLL)
#error "the host passes OCR_STRIDED_BLOCKED and OCR_STRIDED_UNROLL"
#endif

/* Element i of the view, as the accumulator takes it (converted; a key). */
#define OCR_STRIDED_AT(i) OCR_TAKE_AT(OCR_READ(in, (i) * stride), (i))

/* This work-item's share of the view, combined. */
static ACC strided_share(__global const IN_T *in, const ulong n, const ulong stride) {
    ACC x = ACC_ZERO;
#if OCR_STRIDED_BLOCKED
    const ulong items = get_global_size(0), per = n / items + (n % items != 0);
    const ulong begin = min(get_global_id(0) * per, n), end = min(begin + per, n);
    for (ulong i = begin; i < end; ++i)
        x = ACC_ADD(x, OCR_STRIDED_AT(i));
#else
    const ulong step = get_global_size(0);
    ulong i = get_global_id(0);
    for (; i + (OCR_STRIDED_UNROLL - 1) * step < n; i += OCR_STRIDED_UNROLL * step) {
        T v[OCR_STRIDED_UNROLL];
        for (uint u = 0; u < OCR_STRIDED_UNROLL; ++u)
            v[u] = OCR_STRIDED_AT(i + u * step);
        for (uint u = 0; u < OCR_STRIDED_UNROLL; ++u)
            x = ACC_ADD(x, v[u]);
    }
    for (; i < n; i += step)
        x = ACC_ADD(x, OCR_STRIDED_AT(i));
#endif
    return x;
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce_strided(__global const IN_T *restrict in, __global T *restrict out, const ulong n,
               const ulong in_off, const ulong stride, const ulong out_off) {
    __local ACC lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    ACC x = group_tree(lcl, strided_share(in + in_off, n, stride), lid);
    if (lid == 0)
        put_group(out, out_off, x);
}
