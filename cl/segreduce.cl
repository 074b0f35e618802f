/*
 * segreduce - many reductions in one launch: segments given by offsets, rows
 * of a matrix (segreduce, segchunks + segfix), and columns of a matrix
 * (colreduce).
 *
 * What it does: segment j is in[in_off + offsets[j] ..< in_off + offsets[j+1]]
 * (CSR style: k segments need k + 1 offsets, of uint or ulong), or, without
 * offsets, the j-th run of `len` values (the rows of a row-major matrix).
 * out[out_off + j] receives the segment's reduction; an empty segment gives
 * the identity. Offsets are clamped to n, so a wrong offsets array yields
 * wrong values but never a read outside the caller's range.
 *
 * Two paths, one engine. segreduce (the team path, mean segment shorter than
 * a chunk): the grid is fixed, each group takes a contiguous block of the
 * segments, and its teams of 2^team_log2 work-items (the host sizes them
 * from the mean length) reduce them. segchunks + segfix (the chunk path,
 * mean at least a chunk): the work follows the elements; group g takes chunk
 * [g C, (g + 1) C) (C = 2^chunk_log2), finds the segments that meet it, and
 * reduces their pieces in the chunk with the same teams; a piece of a
 * segment that began before the chunk goes to part_first[g], one that goes
 * on after it to part_last[g] (one covering the whole chunk is a first), a
 * segment wholly inside straight to out. segfix then gives every segment
 * that crosses a chunk boundary its value (part_last of its first chunk,
 * part_first of each later one) and every empty segment the identity.
 *
 * What changed, and why it is faster. The old kernels waited on memory
 * latency, not bandwidth: a team read one segment per round with scalar
 * loads (one element per load, four or so per work-item in a row), met the
 * whole group in a tree with a barrier per level, and only then loaded the
 * next segment's offsets; a chunk was 16 elements per work-item, found by
 * two serial binary searches (some 14 dependent loads each) per group.
 *  - 16-byte loads (SEG_VEC elements: int4, float4, double2 ...), SEG_UNROLL
 *    of them (SEG_CHUNK_UNROLL on the chunk path, whose pieces are long
 *    enough for more) issued per work-item before any is used, neighbouring
 *    work-items on neighbouring vectors (coalesced): many more bytes in
 *    flight per work-item, as in reduce7. A piece starts anywhere (any
 *    in_off, any offset), so its few elements before the first 16-byte
 *    boundary (the head) and after the last (the tail) are read one by one.
 *  - A run of SEG_RUN segments per team and round: a team reduces them one
 *    after the other, leaving each partial in local memory, with no barrier;
 *    the group meets once per round, not once per segment. Segment bounds
 *    are loaded one segment ahead, while the current one streams. Teams
 *    neither wait for each other within a round, so the round costs about
 *    the longest team's run (SEG_RUN lengths added up) rather than SEG_RUN
 *    times the longest segment.
 *  - The combine: one barrier, then a tree only above SEG_SERIAL work-items
 *    per team (a barrier per level there), and the last SEG_SERIAL partials
 *    combined in a row by one work-item per segment. The other work-items go
 *    straight on to the next round's loads: local memory has two halves,
 *    used by alternate rounds, so no barrier guards the next round's stores.
 *  - The team size follows the loads: the largest power of two whose one
 *    step (team x SEG_VEC x SEG_UNROLL elements) still fits the mean segment
 *    (teams of 8 for floats of mean 268, where 64 read 4 scalars each).
 *  - Chunks of SEG_CHUNK_ITEMS elements per work-item (the host's constant),
 *    an eighth of the groups; each finds its segments with a k-ary search
 *    run by the whole group: every round each work-item probes one offset
 *    (max(LOCAL_SIZE, SEG_PROBES) probes, so log_256(k) rounds, not
 *    log_2(k) dependent loads), the two ends of the chunk at once. Many
 *    short segments inside one chunk (skewed lengths) get small teams too,
 *    sized from the chunk's own mean.
 *  - segfix gives a work-item to each segment and combines spans of up to
 *    SEG_FIX_SERIAL chunks itself; longer spans (few: each is a long
 *    segment) are queued in local memory and taken by the whole group, the
 *    groups striding over the segments so that those spread out.
 *
 * What it costs: local memory for 2 x SEG_RUN partials per work-item (16 KB
 * for doubles in groups of 256), more registers per work-item (the vectors
 * in flight: fewer groups fit on a compute unit), a round still lasts as
 * long as its longest run of segments (skewed lengths idle some lanes), the
 * chunk path's second launch and two partials per chunk, and code: heads,
 * tails, runs and a search where there were scalar loops.
 *
 * Correct on any conforming device: every work-item of a group runs the
 * same rounds (their bounds depend on the group alone: the block of
 * segments, or the search's result, read from local memory after a
 * barrier), so every barrier is reached by the whole group; no lock-step is
 * assumed; the search's and segfix's counters are local atomics, each used
 * by alternate rounds (three of them) so that a reset never meets a use.
 *
 * The constants (SEG_UNROLL, SEG_CHUNK_UNROLL, SEG_RUN, SEG_SERIAL,
 * SEG_FIX_SERIAL, SEG_PROBES) are the host's, passed as -D: their one home is the top of
 * host/lib/reducer/ocr_segments.c, which sizes teams, grids and chunks from them.
 *
 * colreduce: a row-major rows x cols matrix reduced along its rows (axis 0),
 * each work-item owning a column: the work-items of a group read consecutive
 * columns of one row at a time (coalesced), no local memory and no barrier.
 * With few columns the host cuts the rows into slices (the second dimension
 * of the grid), writes one partial row per slice, and reduces those rows
 * with a second launch of the same kernel.
 */
#include "reduce_common.h"

#if !defined(SEG_UNROLL) || !defined(SEG_CHUNK_UNROLL) || !defined(SEG_RUN) ||                    \
    !defined(SEG_SERIAL) || !defined(SEG_FIX_SERIAL) || !defined(SEG_PROBES)
#error "the host passes SEG_UNROLL, SEG_CHUNK_UNROLL, SEG_RUN, SEG_SERIAL, SEG_FIX_SERIAL, SEG_PROBES"
#endif

/* The larger of the two paths' loads in flight: the size of piece()'s array
 * (each path's calls pass their own count, a constant once inlined). */
#if SEG_UNROLL > SEG_CHUNK_UNROLL
#define SEG_UNROLL_MAX SEG_UNROLL
#else
#define SEG_UNROLL_MAX SEG_CHUNK_UNROLL
#endif

/* Input elements per 16-byte load, from the input type's name. */
#define SEG_VEC_int    4
#define SEG_VEC_uint   4
#define SEG_VEC_float  4
#define SEG_VEC_long   2
#define SEG_VEC_ulong  2
#define SEG_VEC_double 2
#define SEG_VEC        OCR_CAT(SEG_VEC_, OCR_IN_T)
typedef OCR_CAT(OCR_IN_T, SEG_VEC) TV;

/* A slot of partials (a segment's, one per work-item), padded by one: the
 * slots a work-item combines fall in different banks of local memory. */
#define SEG_SLOT (LOCAL_SIZE + 1)

/* Probes of a search round: a power of two, at least one per work-item. */
#define SEG_ARITY (LOCAL_SIZE > SEG_PROBES ? LOCAL_SIZE : SEG_PROBES)

/* One load, then the operator (OCR_COMBINE may name its operand twice). */
#define TAKE(a, x)                                                                                 \
    do {                                                                                           \
        const T v_ = OCR_CVT(x);                                                                   \
        a = OCR_COMBINE(a, v_);                                                                    \
    } while (0)

/* The lanes of one 16-byte load, combined (converted first when widening). */
static T fold(TV v) {
    const T a = OCR_CVT(v.s0), b = OCR_CVT(v.s1);
    T x = OCR_COMBINE(a, b);
#if SEG_VEC == 4
    const T c = OCR_CVT(v.s2), d = OCR_CVT(v.s3);
    const T y = OCR_COMBINE(c, d);
    x = OCR_COMBINE(x, y);
#endif
    return x;
}

/* The segments: offsets (one of the two pointers, or neither: rows of len),
 * clamped to n. */
#define SEGS_ARGS                                                                                  \
    __global const uint *o32, __global const ulong *o64, const ulong len, const ulong n
#define SEGS o32, o64, len, n

/* Where segment j begins, clamped to n. */
static ulong bound(SEGS_ARGS, ulong j) {
    const ulong b = o64 ? o64[j] : o32 ? (ulong)o32[j] : j * len;
    return min(b, n);
}

/* A team's reduction of elements [sb, se) of in (already advanced by
 * in_off; in_off only tells where the 16-byte boundaries lie): the head one
 * by one, the 16-byte vectors `unroll` at a time per work-item (SEG_UNROLL
 * or SEG_CHUNK_UNROLL), the tail one by one. Work-item `rank` of
 * 2^team_log2 gets its share. */
static T piece(__global const IN_T *in, ulong in_off, ulong sb, ulong se, uint rank,
               uint team_log2, uint unroll) {
    T x = (T)(OCR_IDENTITY);
    if (se <= sb) return x;
    const uint team = 1u << team_log2;
    const ulong mis = (in_off + sb) & (SEG_VEC - 1);
    const ulong head = min((ulong)((SEG_VEC - mis) & (SEG_VEC - 1)), se - sb);
    const ulong a = sb + head, nv = (se - a) / SEG_VEC, tail = a + nv * SEG_VEC;
    for (ulong i = sb + rank; i < a; i += team)
        TAKE(x, in[i]);
    for (ulong i = tail + rank; i < se; i += team)
        TAKE(x, in[i]);
    __global const TV *v = (__global const TV *)(in + a); /* 16-byte aligned */
    for (ulong i = rank; i < nv; i += (ulong)team * unroll) {
        TV w[SEG_UNROLL_MAX];
        for (uint u = 0; u < unroll; ++u) {
            const ulong at = i + ((ulong)u << team_log2);
            w[u] = at < nv ? v[at] : (TV)(0);
        }
        for (uint u = 0; u < unroll; ++u)
            if (i + ((ulong)u << team_log2) < nv) {
                const T f = fold(w[u]);
                x = OCR_COMBINE(x, f);
            }
    }
    return x;
}

/* Segment j's value: to part_first[g] if it is the chunk's first and began
 * before it (jfirst), to part_last[g] if it is its last and goes on after
 * it (jlast), else to out[j]. segreduce passes no such j (~0). */
static void put(__global T *out, __global T *part_first, __global T *part_last, ulong g, ulong j,
                ulong jfirst, ulong jlast, T x) {
    if (j == jfirst)
        part_first[g] = x;
    else if (j == jlast)
        part_last[g] = x;
    else
        out[j] = x;
}

/* Segments [j0, j1), each cut to [cb, ce), reduced by the group's teams of
 * 2^team_log2 work-items, `unroll` loads in flight each. In a round team t takes segments base + t,
 * base + t + teams, ... (SEG_RUN of them, neighbouring teams on neighbouring
 * segments); lcl holds 2 x SEG_RUN slots of partials, a half per round.
 * j0, j1 and team_log2 are the group's own: every work-item meets each
 * barrier. */
static void run_teams(__global const IN_T *in, ulong in_off, SEGS_ARGS, __global T *out,
                      __global T *part_first, __global T *part_last, ulong g, ulong j0, ulong j1,
                      ulong cb, ulong ce, ulong jfirst, ulong jlast, uint team_log2,
                      uint unroll, __local T *lcl) {
    /* Shifts, not divisions by a run-time value: oclgrind's checker cannot
     * follow the `freeze` LLVM makes of those. */
    const uint lid = get_local_id(0), team = 1u << team_log2;
    const uint teams = LOCAL_SIZE >> team_log2;
    const uint t = lid >> team_log2, rank = lid & (team - 1), first_of_team = lid - rank;
    ulong j = j0 + t, s = 0, e = 0;
    if (j < j1) s = bound(SEGS, j), e = bound(SEGS, j + 1);
    uint side = 0; /* the half of lcl this round uses */
    for (ulong base = j0; base < j1; base += (ulong)teams * SEG_RUN) {
        __local T *slot = lcl + side;
        for (uint r = 0; r < SEG_RUN; ++r) {
            /* the next segment's bounds, loaded while this one streams */
            const ulong jn = j + teams;
            ulong sn = 0, en = 0;
            if (jn < j1) sn = bound(SEGS, jn), en = bound(SEGS, jn + 1);
            const T x = piece(in, in_off, max(s, cb), min(e, ce), rank, team_log2, unroll);
            if (team == 1) {
                if (j < j1) put(out, part_first, part_last, g, j, jfirst, jlast, x);
            } else {
                slot[r * SEG_SLOT + lid] = x;
            }
            j = jn, s = sn, e = en;
        }
        if (team > 1) {
            uint live = 1; /* slots holding a segment (the last round may have fewer) */
            while (live < SEG_RUN && base + (ulong)live * teams < j1)
                ++live;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint h = team >> 1; h >= SEG_SERIAL; h >>= 1) {
                if (rank < h)
                    for (uint r = 0; r < live; ++r) {
                        __local T *p = slot + r * SEG_SLOT + lid;
                        const T a = p[0], b = p[h];
                        p[0] = OCR_COMBINE(a, b);
                    }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            const uint w = min(team, (uint)SEG_SERIAL);
            for (uint r = rank; r < SEG_RUN; r += team) {
                const ulong jr = base + (ulong)r * teams + t;
                if (jr < j1) {
                    __local const T *p = slot + r * SEG_SLOT + first_of_team;
                    T y = p[0];
                    for (uint q = 1; q < w; ++q) {
                        const T b = p[q];
                        y = OCR_COMBINE(y, b);
                    }
                    put(out, part_first, part_last, g, jr, jfirst, jlast, y);
                }
            }
        }
        side ^= SEG_RUN * SEG_SLOT;
    }
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segreduce(__global const IN_T *restrict in, __global const uint *restrict o32,
          __global const ulong *restrict o64, __global T *restrict out, const ulong k,
          const ulong n, const ulong in_off, const ulong out_off, const ulong len,
          const uint team_log2) {
    __local T lcl[2 * SEG_RUN * SEG_SLOT];
    /* Each group owns a contiguous block of rounds (a CPU core then walks its
     * part of the input in order). */
    const ulong per_round = (ulong)(LOCAL_SIZE >> team_log2) * SEG_RUN;
    const ulong all = (ulong)get_num_groups(0) * per_round;
    const ulong rounds = (k + all - 1) / all;
    const ulong first = (ulong)get_group_id(0) * rounds * per_round;
    run_teams(in + in_off, in_off, SEGS, out + out_off, 0, 0, 0, first,
              min(first + rounds * per_round, k), 0, n, ~0ul, ~0ul, team_log2, SEG_UNROLL, lcl);
}

/* The k-ary search. Its range: how many of segments 0..k-1 begin at or
 * before x lies in [lo, hi]. A round probes lo, lo + step, ... (SEG_ARITY
 * probes; step = ceil((hi - lo) / SEG_ARITY)); a probe at or past hi says
 * "after x". The first probe saying "after x" whose predecessor says "at or
 * before" (one, for offsets in order) posts its number to *f (atomic_min,
 * so wrong offsets cannot race). */
static int probe(SEGS_ARGS, ulong lo, ulong hi, ulong step, uint i, ulong x) {
    const ulong j = lo + i * step;
    return j < hi && bound(SEGS, j) <= x;
}

static void search_round(SEGS_ARGS, ulong lo, ulong hi, ulong x, volatile __local uint *f) {
    if (lo >= hi) return;
    const ulong step = (hi - lo + SEG_ARITY - 1) / SEG_ARITY;
    for (uint i = get_local_id(0); i < SEG_ARITY; i += LOCAL_SIZE)
        if (!probe(SEGS, lo, hi, step, i, x) && (i == 0 || probe(SEGS, lo, hi, step, i - 1, x)))
            atomic_min(f, i);
}

/* The range after a round whose first "after" probe was f (SEG_ARITY: none). */
static void search_narrow(ulong *lo, ulong *hi, uint f) {
    if (*lo >= *hi) return;
    const ulong step = (*hi - *lo + SEG_ARITY - 1) / SEG_ARITY;
    if (f == 0) {
        *hi = *lo;
    } else {
        const ulong a = *lo + (ulong)(f - 1) * step; /* probe f - 1: at or before */
        *hi = min(a + step, *hi);
        *lo = a + 1;
    }
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segchunks(__global const IN_T *restrict in, __global const uint *restrict o32,
          __global const ulong *restrict o64, __global T *restrict out,
          __global T *restrict part_first, __global T *restrict part_last, const ulong k,
          const ulong n, const ulong in_off, const ulong out_off, const ulong len,
          const uint chunk_log2) {
    __local T lcl[2 * SEG_RUN * SEG_SLOT];
    __local uint ff[6]; /* three rounds' first "after" probes, for each end */
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), cb = g << chunk_log2, ce = min(cb + (1ul << chunk_log2), n);
    /* The segments holding cb and ce - 1, both ends searched at once: round
     * r uses ff[r % 3] and resets the next round's pair, which the round
     * before the last read (a barrier between). */
    ulong lo0 = 0, hi0 = k, lo1 = 0, hi1 = k;
    if (lid == 0) ff[0] = ff[1] = SEG_ARITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; lo0 < hi0 || lo1 < hi1; r = r == 2 ? 0 : r + 1) {
        volatile __local uint *f = ff + 2 * r;
        search_round(SEGS, lo0, hi0, cb, f);
        search_round(SEGS, lo1, hi1, ce - 1, f + 1);
        if (lid == 0) ff[2 * (r == 2 ? 0 : r + 1)] = ff[2 * (r == 2 ? 0 : r + 1) + 1] = SEG_ARITY;
        barrier(CLK_LOCAL_MEM_FENCE);
        search_narrow(&lo0, &hi0, f[0]);
        search_narrow(&lo1, &hi1, f[1]);
    }
    /* Segments jlo..jhi-1 meet the chunk; which of them cross its ends. */
    const ulong jlo = lo0 ? lo0 - 1 : 0, jhi = max(lo1, jlo);
    ulong jfirst = ~0ul, jlast = ~0ul;
    if (jlo < jhi && bound(SEGS, jlo) < cb) jfirst = jlo;
    if (jlo < jhi && bound(SEGS, jhi) > ce) jlast = jhi - 1;
    /* Teams for the chunk's own mean piece (segreduce's rule, team_for on the
     * host): the largest whose step fits it. */
    const ulong per = ((ce - cb) / ((ulong)SEG_VEC * SEG_CHUNK_UNROLL));
    uint team_log2 = 0;
    while ((2u << team_log2) <= LOCAL_SIZE && (per >> (team_log2 + 1)) >= jhi - jlo)
        ++team_log2;
    run_teams(in + in_off, in_off, SEGS, out + out_off, part_first, part_last, g, jlo, jhi, cb, ce,
              jfirst, jlast, team_log2, SEG_CHUNK_UNROLL, lcl);
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

/* A work-item per segment: group g of G takes segments g, g + G, g + 2G,
 * ..., LOCAL_SIZE of them per round (the host launches up to one group per
 * segment, so the few long ones below spread over the groups). Empty: the
 * identity. In one chunk: segchunks wrote it. Across up to SEG_FIX_SERIAL
 * chunk boundaries: part_last of its first chunk and part_first of the
 * others, combined by its work-item. Across more: queued (round r uses the
 * (r % 3)-th queue and count, the next one reset a round ahead) and taken
 * after the barrier by the whole group, one at a time. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
segfix(__global const uint *restrict o32, __global const ulong *restrict o64,
       __global T *restrict out, __global const T *restrict part_first,
       __global const T *restrict part_last, const ulong k, const ulong n, const ulong out_off,
       const ulong len, const uint chunk_log2) {
    __local T lcl[LOCAL_SIZE];
    __local uint count[3], list[3 * LOCAL_SIZE];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0), groups = get_num_groups(0);
    out += out_off;
    if (lid == 0) count[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint r = 0;
    for (ulong base = 0; g + base * groups < k; base += LOCAL_SIZE, r = r == 2 ? 0 : r + 1) {
        volatile __local uint *c = count + r;
        __local uint *queue = list + r * LOCAL_SIZE;
        const ulong j = g + (base + lid) * groups;
        if (j < k) {
            const ulong s0 = bound(SEGS, j), s1 = bound(SEGS, j + 1);
            if (s1 <= s0) {
                out[j] = (T)(OCR_IDENTITY);
            } else {
                const ulong ga = s0 >> chunk_log2, gb = (s1 - 1) >> chunk_log2;
                if (gb - ga > SEG_FIX_SERIAL) {
                    queue[atomic_inc(c)] = lid;
                } else if (ga < gb) {
                    T x = part_last[ga];
                    for (ulong q = ga + 1; q <= gb; ++q) {
                        const T y = part_first[q];
                        x = OCR_COMBINE(x, y);
                    }
                    out[j] = x;
                }
            }
        }
        if (lid == 0) count[r == 2 ? 0 : r + 1] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint m = *c;
        for (uint i = 0; i < m; ++i) {
            const ulong jj = g + (base + queue[i]) * groups;
            const ulong s0 = bound(SEGS, jj), s1 = bound(SEGS, jj + 1);
            const ulong ga = s0 >> chunk_log2, gb = (s1 - 1) >> chunk_log2;
            T x = (T)(OCR_IDENTITY);
            for (ulong q = ga + 1 + lid; q <= gb; q += LOCAL_SIZE) {
                const T y = part_first[q];
                x = OCR_COMBINE(x, y);
            }
            x = group_reduce(lcl, x);
            if (lid == 0) out[jj] = OCR_COMBINE(part_last[ga], x);
        }
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
