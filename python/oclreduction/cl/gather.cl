/*
 * gather - a strided, N-d or converted view copied into a contiguous C-order
 * array (oclreduction/_passes.py, gather_nd()).
 *
 * What it does: n elements of `in` from element `first`, at the places of an
 * N-d array of `dims` whose axes are `steps` elements apart (an N-d view, an
 * array read in another axis order, or a 1-D view or slice whose elements
 * are converted), each converted to OUT (NumPy's and PyOpenCL's
 * element-wise conversion: a real type into a complex one, complex64 into
 * complex128, float16 through vload_half/vstore_half) into out from o.
 *
 * Why: the library reads cl_mem buffers of its own types in a few layouts
 * (contiguous, strided 1-D, rows, columns); everything else is made one of
 * those first. 1-D views without a conversion are read in place, never here.
 *
 * What it costs: one read and one write of the elements, and a divide and
 * a modulo per dimension per element to find its place (the copy is
 * memory-bound on a GPU all the same).
 *
 * -D: IN, OUT (OpenCL types), TO_COMPLEX (0, 1: from a real type, 2: from
 * the other complex type), PART (OUT's real part type), CONVERT
 * (convert_OUT), FP64, IN_HALF, OUT_HALF.
 */
#if FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
__kernel void gather(__global const IN *in, const long first, const int nd, const long16 dims,
                     const long16 steps, __global OUT *out, const ulong o, const ulong n) {
    const ulong i = get_global_id(0);
    if (i >= n)
        return;
    long d[16], s[16], r = (long)i, at = first; /* i's place: its index over dims, C order */
    vstore16(dims, 0, d);
    vstore16(steps, 0, s);
    for (int k = nd - 1; k >= 0; --k) {
        at += (r % d[k]) * s[k];
        r /= d[k];
    }
#if IN_HALF
    const float v = vload_half(at, in);
#else
    const IN v = in[at];
#endif
#if OUT_HALF
    vstore_half(v, o + i, out);
#elif TO_COMPLEX == 1 /* from a real type */
    out[o + i] = (OUT)((PART)v, (PART)0);
#elif TO_COMPLEX == 2 /* from the other complex type */
    out[o + i] = CONVERT(v);
#else
    out[o + i] = (OUT)v;
#endif
}
