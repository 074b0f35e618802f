/*
 * histogram_starter.cl - your own histogram kernel, run by oclReduction's
 * harness (docs/labs/lab9-histogram.md, "Your own kernel"):
 *
 *   oclReduction --histogram 256 --type float --kernel-file histogram_starter.cl \
 *                --kernel-name my_histogram
 *
 * The contract:
 *  - `in` holds n samples of type T (--type; reduce_common.h defines T);
 *  - count them in `bins` even bins over [lo, hi]: sample x goes to bin
 *    b = (uint)(((float)x - lo) * ((float)bins / (hi - lo))), computed in
 *    float exactly so (the host's CPU loop does the same: another formula
 *    rounds differently at the edges); x == hi and any b == bins go to the
 *    last bin, bins - 1; NaN and samples outside [lo, hi] are not counted;
 *  - the host zeroes counts[0 .. bins - 1] before the launch, and checks
 *    that nothing is written past them;
 *  - ONE launch over a grid the host chooses and prints (-g groups of -w
 *    work-items): it need not cover n, so stride over the grid.
 *
 * What it changes: nothing yet - this is the whiteboard version, one global
 * atomic_inc per sample. Why it is correct: atomic_inc makes every
 * read-modify-write of a bin whole (a plain counts[b]++ loses counts when two
 * work-items hit one bin; --race-check under oclgrind says RACE). What it
 * costs: every sample is an atomic at the memory, and samples of one bin
 * (--data one-bin) serialise on one counter. Make it faster (local copies of
 * the bins, then runs of equal bins) and keep `Test PASSED!`.
 */
#include "reduce_common.h"

__kernel void my_histogram(__global const T *in, const ulong n, __global uint *counts,
                           const uint bins, const float lo, const float hi) {
    const float scale = (float)bins / (hi - lo);
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float x = (float)in[i];
        if (!(x >= lo && x <= hi)) /* NaN fails both tests */
            continue;
        uint b = (uint)((x - lo) * scale);
        if (b >= bins)
            b = bins - 1; /* x == hi */
        atomic_inc(&counts[b]);
    }
}
