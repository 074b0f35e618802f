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
 * segments (fewer than the grid has teams) would leave most of the device
 * idle: when the mean segment is at least a chunk long the host takes
 * segchunks and segfix instead (below). The mean length is the host's guess
 * for all segments: skewed lengths waste some lanes.
 *
 * segchunks + segfix, for long segments: the work follows the elements, not
 * the segments. Group g reads chunk g, elements [g * C, (g + 1) * C) (C = 2^
 * chunk_log2), finds by binary search the segments that meet it, and reduces
 * each of them in turn with the whole group (coalesced loads, a tree). A
 * segment lying wholly in the chunk goes straight to out; the part of the one
 * that began before the chunk goes to part_first[g], the part of the one that
 * goes on after it to part_last[g] (a segment covering the whole chunk is the
 * first). segfix then gives each segment that crosses a chunk boundary its
 * value, a group per segment: part_last of its first chunk combined with
 * part_first of every later chunk it reaches; and each empty segment the
 * identity. Every element is read once, by a full group, whatever the
 * lengths; the cost is a second launch and two partials per chunk.
 *
 * colreduce: a row-major rows x cols matrix reduced along its rows (axis 0),
 * each work-item owning a column: the work-items of a group read consecutive
 * columns of one row at a time (coalesced), no local memory and no barrier.
 * With few columns the host cuts the rows into slices (the second dimension
 * of the grid), writes one partial row per slice, and reduces those rows
 * with a second launch of the same kernel.
 */
#include "reduce_common.h"

/* One load, then the operator (OCR_COMBINE may name its operand twice). */
#define TAKE(a, x)                                                                                 \
    do {                                                                                           \
        const T v_ = OCR_CVT(x);                                                                   \
        a = OCR_COMBINE(a, v_);                                                                    \
    } while (0)

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

/* How many of segments 0..k-1 begin at or before element x (offsets clamped
 * to n; for monotone offsets the segment holding x is that count - 1). */
static ulong seg_count_to(__global const uint *o32, __global const ulong *o64, ulong len, ulong k,
                          ulong n, ulong x) {
    ulong lo = 0, hi = k;
    while (lo < hi) {
        const ulong mid = lo + ((hi - lo) >> 1);
        if (min(seg_at(o32, o64, len, mid), n) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* x reduced over the group (the same value comes back to every work-item). */
static T group_reduce(__local T *lcl, T x) {
    const uint lid = get_local_id(0);
    lcl[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s) lcl[lid] = x = OCR_COMBINE(x, lcl[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    x = lcl[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* before the next store to lcl */
    return x;
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segchunks(__global const IN_T *restrict in, __global const uint *restrict o32,
          __global const ulong *restrict o64, __global T *restrict out,
          __global T *restrict part_first, __global T *restrict part_last, const ulong k,
          const ulong n, const ulong in_off, const ulong out_off, const ulong len,
          const uint chunk_log2) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), b = g << chunk_log2, e = min(b + (1ul << chunk_log2), n);
    /* The segments from the one holding b to the one holding e - 1: the
     * bounds, and so every branch below, are the group's own. */
    const ulong lo = seg_count_to(o32, o64, len, k, n, b);
    const ulong hi = seg_count_to(o32, o64, len, k, n, e - 1);
    in += in_off;
    for (ulong j = lo ? lo - 1 : 0; j < hi; ++j) {
        const ulong s0 = min(seg_at(o32, o64, len, j), n), s1 = min(seg_at(o32, o64, len, j + 1), n);
        const ulong sb = max(s0, b), se = min(s1, e);
        if (se <= sb) continue; /* empty here (segfix writes empty segments) */
        T x = (T)(OCR_IDENTITY);
        for (ulong i = sb + lid; i < se; i += LOCAL_SIZE)
            TAKE(x, in[i]);
        x = group_reduce(lcl, x);
        if (lid == 0) {
            if (s0 < b)
                part_first[g] = x;
            else if (s1 > e)
                part_last[g] = x;
            else
                out[out_off + j] = x;
        }
    }
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segfix(__global const uint *restrict o32, __global const ulong *restrict o64,
       __global T *restrict out, __global const T *restrict part_first,
       __global const T *restrict part_last, const ulong k, const ulong n, const ulong out_off,
       const ulong len, const uint chunk_log2) {
    __local T lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    for (ulong j = get_group_id(0); j < k; j += get_num_groups(0)) {
        const ulong s0 = min(seg_at(o32, o64, len, j), n), s1 = min(seg_at(o32, o64, len, j + 1), n);
        if (s1 <= s0) {
            if (lid == 0) out[out_off + j] = (T)(OCR_IDENTITY);
            continue;
        }
        const ulong ga = s0 >> chunk_log2, gb = (s1 - 1) >> chunk_log2;
        if (ga == gb) continue; /* in one chunk: segchunks wrote it */
        T x = (T)(OCR_IDENTITY);
        for (ulong c = ga + 1 + lid; c <= gb; c += LOCAL_SIZE)
            x = OCR_COMBINE(x, part_first[c]);
        x = group_reduce(lcl, x);
        if (lid == 0) out[out_off + j] = OCR_COMBINE(part_last[ga], x);
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
