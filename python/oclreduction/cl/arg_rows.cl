/*
 * arg_rows - argmin/argmax along one axis of an N-d array
 * (oclreduction/_nd.py, arg_rows()).
 *
 * What it does: one work-group per result, reading its row where it lies
 * (the kept axes' index decoded from the group's number, the row `step`
 * elements apart), each work-item a strided share, then a tree in local
 * memory of (value, index) pairs. NumPy's rule: the first index of the
 * extreme; a NaN counts as the extreme (its first index wins); -0.0 == +0.0.
 *
 * Why: the library's argmin/argmax reduce a whole array; along an axis the
 * rows are many and short, so one group a row reads each in place, no copy.
 *
 * What it costs: a row's elements `step` apart are not coalesced for a
 * column-wise axis (the price of reading in place); one group per row
 * leaves a GPU idle for few long rows.
 *
 * -D: IN, IN_HALF, IS_FLOAT, OP_MIN, FP64, SIZE (the group size, a power of
 * two: the local arrays are sized at build time).
 */
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if IN_HALF
typedef float V;
#define LOAD(j) vload_half((j), in)
#else
typedef IN V;
#define LOAD(j) in[(j)]
#endif
#if IS_FLOAT
#define NAN_(x) isnan(x)
#else
#define NAN_(x) 0
#endif
#if OP_MIN
#define BEATS(x, y) ((x) < (y))
#else
#define BEATS(x, y) ((x) > (y))
#endif
/* (v, i) comes before (b, j): j < 0 is "none yet" */
static int better(V v, long i, V b, long j) {
    if (i < 0)
        return 0;
    if (j < 0)
        return 1;
    if (NAN_(b))
        return NAN_(v) && i < j;
    if (NAN_(v))
        return 1;
    return BEATS(v, b) || (v == b && i < j);
}
__kernel void arg_rows(__global const IN *in, const long first, const int nd, const long16 dims,
                       const long16 steps, const long step, const long len,
                       __global long *out, const ulong o) {
    __local V lv[SIZE];
    __local long li[SIZE];
    const int lid = (int)get_local_id(0);
    long d[16], s[16];
    vstore16(dims, 0, d);
    vstore16(steps, 0, s);
    long r = (long)get_group_id(0), base = first;
    for (int k = nd - 1; k >= 0; --k) {
        base += (r % d[k]) * s[k];
        r /= d[k];
    }
    V bv = 0;
    long bi = -1;
    for (long i = lid; i < len; i += SIZE) {
        const V v = LOAD(base + i * step);
        if (better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
    lv[lid] = bv;
    li[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = SIZE / 2; h > 0; h /= 2) {
        if (lid < h && better(lv[lid + h], li[lid + h], lv[lid], li[lid])) {
            lv[lid] = lv[lid + h];
            li[lid] = li[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[o + get_group_id(0)] = li[0];
}
