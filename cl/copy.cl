/*
 * copy - not a reduction: the yardstick for one (--peak). Each work-item
 * copies 16-byte vectors with reduce7's access pattern: a grid stride on GPUs,
 * a contiguous chunk per work-item on CPUs (OCR_BLOCKED=1), so the rate it reaches (bytes read + bytes written per second) is what
 * this device's memory delivers to a simple streaming kernel. A reduction
 * reads its input once and writes almost nothing: its "Bandwidth read" as a
 * fraction of this copy rate says how close it gets to the memory system.
 */
__kernel void copy16(__global const uint4 *restrict in, __global uint4 *restrict out,
                     const ulong n16) {
    const ulong stride = get_global_size(0);
#if OCR_BLOCKED
    const ulong per = (n16 + stride - 1) / stride, begin = min(get_global_id(0) * per, n16);
    const ulong end = min(begin + per, n16);
    for (ulong i = begin; i < end; ++i)
        out[i] = in[i];
#else
    for (ulong i = get_global_id(0); i < n16; i += stride)
        out[i] = in[i];
#endif
}
