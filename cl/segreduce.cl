/*
 * segreduce - many reductions in one launch: segments given by offsets, rows
 * of a matrix (segreduce), and columns of a matrix (colreduce).
 *
 * What it does: segment j is in[in_off + offsets[j] ..< in_off + offsets[j+1]]
 * (CSR style: k segments need k + 1 offsets, of uint or ulong), or, without
 * offsets, the j-th run of `len` values (the rows of a row-major matrix).
 * out[out_off + j] receives the segment's reduction; an empty segment gives
 * the identity. Offsets are clamped to n, so a wrong offsets array yields
 * wrong values but never a read outside the caller's range.
 *
 * Why it is fast whatever the number of segments: the grid is fixed (sized
 * for the device, as reduce7's) and each group takes a contiguous block of
 * the segments, so 10 or 10^6 segments cost one launch. A group is cut into teams of 2^team_log2
 * work-items (up to LOCAL_SIZE; the host picks the size from the mean
 * segment length): a team owns one segment at a time,
 * neighbouring work-items of a team read neighbouring elements (coalesced),
 * each accumulates its share in a register, and the team meets in a tree in
 * local memory. Short segments take a team of one or two work-items (no
 * idle lanes waiting on a 256-wide tree); long ones the whole group.
 *
 * Correct on any conforming device: every work-item of a group runs the same
 * number of rounds (the loop bound depends on the group only), so every
 * barrier is reached by the whole group; the tree has a barrier after every
 * level, no lock-step is assumed.
 *
 * What it costs: one group reads one segment at a time, so a few very long
 * segments (fewer than the grid has teams) leave most of the device idle; a
 * second launch that splits long segments over several groups would fix that
 * (not done). The mean length is the host's guess for all segments: skewed
 * lengths waste some lanes.
 *
 * colreduce: a row-major rows x cols matrix reduced along its rows (axis 0),
 * each work-item owning a column: the work-items of a group read consecutive
 * columns of one row at a time (coalesced), no local memory and no barrier.
 * With few columns the host cuts the rows into slices (the second dimension
 * of the grid), writes one partial row per slice, and reduces those rows
 * with a second launch of the same kernel.
 */
#include "reduce_common.h"

#define TAKE(a, x) a = OCR_COMBINE(a, OCR_CVT(x))

/* Where segment j begins: from the offsets given (one of the two pointers),
 * else j * len. */
static ulong seg_at(__global const uint *o32, __global const ulong *o64, ulong len, ulong j) {
    if (o64) return o64[j];
    if (o32) return (ulong)o32[j];
    return j * len;
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segreduce(__global const IN_T *restrict in, __global const uint *restrict o32,
          __global const ulong *restrict o64, __global T *restrict out, const ulong k,
          const ulong n, const ulong in_off, const ulong out_off, const ulong len,
          const uint team_log2) {
    __local T lcl[LOCAL_SIZE];
    /* Shifts, not divisions by a run-time value: oclgrind's checker cannot
     * follow the `freeze` LLVM makes of those. */
    const uint lid = get_local_id(0), team = 1u << team_log2;
    const uint teams = LOCAL_SIZE >> team_log2;
    const uint t = lid >> team_log2, rank = lid & (team - 1);
    /* Each group owns a contiguous block of rounds (a CPU core then walks its
     * part of the input in order); in a round, its teams take neighbouring
     * segments. The bound depends on the group alone: all its work-items meet
     * each barrier. */
    const ulong per_round = (ulong)get_num_groups(0) * teams;
    const ulong rounds = (k + per_round - 1) / per_round;
    const ulong first = (ulong)get_group_id(0) * rounds * teams;
    in += in_off;
    for (ulong base = first; base < min(first + rounds * teams, k); base += teams) {
        const ulong j = base + t;
        T x = (T)(OCR_IDENTITY);
        if (j < k) {
            const ulong b = min(seg_at(o32, o64, len, j), n);
            const ulong e = min(seg_at(o32, o64, len, j + 1), n);
            for (ulong i = b + rank; i < e; i += team)
                TAKE(x, in[i]);
        }
        lcl[lid] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = team / 2; s > 0; s >>= 1) {
            if (rank < s) lcl[lid] = x = OCR_COMBINE(x, lcl[lid + s]);
            barrier(CLK_LOCAL_MEM_FENCE); /* also before the next round's store */
        }
        if (rank == 0 && j < k) out[out_off + j] = x;
    }
}

/* Rows [slice * rows_per_slice, +rows_per_slice) of column get_global_id(0),
 * combined top to bottom, to out[out_off + slice * cols + column]. */
__kernel void colreduce(__global const IN_T *restrict in, __global T *restrict out,
                        const ulong rows, const ulong cols, const ulong in_off,
                        const ulong out_off, const ulong rows_per_slice) {
    const ulong c = get_global_id(0), slice = get_global_id(1);
    if (c >= cols) return;
    const ulong r0 = min(slice * rows_per_slice, rows);
    const ulong r1 = min(r0 + rows_per_slice, rows);
    in += in_off + c;
    T x = (T)(OCR_IDENTITY);
    for (ulong r = r0; r < r1; ++r)
        TAKE(x, in[r * cols]);
    out[out_off + slice * cols + c] = x;
}
