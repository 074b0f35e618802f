/*
 * narrow - one value converted on the device after a reduction
 * (oclreduction/_passes.py, narrow()).
 *
 * What it does: out[o] = (OUT)in[i], or vstore_half where the result is
 * float16 (HALF: core OpenCL, no cl_khr_fp16 needed).
 *
 * Why: min, max and the bitwise operators of the small types, and a dtype=
 * that is a small or narrower integer type, are computed in the library's
 * accumulator (int64, uint64, float32) and returned in NumPy's dtype. A
 * narrowed integer is written through its unsigned twin (OUT: a conversion
 * modulo 2^k, well defined: NumPy's wrapping arithmetic).
 *
 * What it costs: one launch of one work-item after the reduction (its event
 * is the result's); no copy to the host.
 *
 * -D: ACC (the accumulator's OpenCL type), OUT, HALF.
 */
__kernel void narrow(__global const ACC *in, const ulong i, __global OUT *out, const ulong o) {
#if HALF
    vstore_half(in[i], o, out);
#else
    out[o] = (OUT)in[i];
#endif
}
