/*
 * last_zero - which zero a float min or max returns, and initial= combined
 * as NumPy's loop does (oclreduction/_passes.py, last_zero()).
 *
 * What it does: one work-group after the reduction reads its result; where
 * it is a zero, the group scans the elements (from the end where NumPy
 * keeps the last of equal values, LAST, else from the start) for the first
 * zero it meets, and writes that one (-0.0 or +0.0). Then initial (has_init)
 * takes part as NumPy's first value: it wins where it orders before, or
 * ties while it comes first, or is NaN.
 *
 * Why: -0.0 == +0.0, so which of them a reduction gives depends on its
 * order: NumPy's loop keeps the later of two equal float32/float64 values
 * (its vector path may differ beyond 8 or 16 elements) and the earlier
 * float16 one. A tree cannot say which zero came last.
 *
 * What it costs: one small launch when the result is not a zero; a scan of
 * the data (a group's width at a time, stopping at the first hit) when it is.
 * The lowest local id that saw a zero wins through atomic_min on a __local
 * int; every barrier is reached by the whole group (v is the same for all).
 *
 * -D: IN, ACC (OpenCL types), FP64, IN_HALF, OP_MIN, LAST.
 */
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if IN_HALF
#define LOAD(j) vload_half((j), in)
#else
#define LOAD(j) in[(j)]
#endif
#if OP_MIN
#define BEFORE(x, y) ((x) < (y))
#else
#define BEFORE(x, y) ((x) > (y))
#endif
#if LAST /* the i-th element looked at: from the end, or from the start */
#define AT(i) (first + (long)(n - 1 - (i)) * step)
#define INIT_WINS(x, y) BEFORE(x, y)
#else /* and whether initial, the first value, wins a tie */
#define AT(i) (first + (long)(i) * step)
#define INIT_WINS(x, y) (BEFORE(x, y) || (x) == (y))
#endif
__kernel void last_zero(__global const IN *in, const long first, const long step,
                        const ulong n, __global ACC *res, const ulong ro,
                        const int has_init, const ACC init) {
    __local int hit; /* the lowest local id that saw a zero: the one looked at first */
    const int lid = (int)get_local_id(0), size = (int)get_local_size(0);
    ACC v = res[ro];
    barrier(CLK_GLOBAL_MEM_FENCE); /* all have read it before work-item 0 writes */
    if (v == (ACC)0) { /* the same for every work-item: the loop's barriers are uniform */
        for (ulong i0 = 0; i0 < n; i0 += (ulong)size) {
            if (lid == 0)
                hit = size;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (i0 + (ulong)lid < n && LOAD(AT(i0 + lid)) == 0)
                atomic_min(&hit, lid);
            barrier(CLK_LOCAL_MEM_FENCE);
            const int h = hit;
            if (h < size) {
                v = (ACC)LOAD(AT(i0 + h));
                break;
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read hit before it is reset */
        }
    }
    if (lid == 0)
        res[ro] = has_init && (INIT_WINS(init, v) || isnan(init)) ? init : v;
}
