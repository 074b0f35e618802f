/*
 * histogram - the tutorial's third reduction: h[k] = sum over i of (bin(x_i)
 * == k), a reduction whose result is a vector (ocr_reducer_histogram).
 *
 * Which bin (HIST_KIND, hist_bin below): even bins over [lower, upper]
 * (floor((x - lower) * scale) in HIST_BT, float or double, no fused
 * multiply-add so that the host's loop gets the same bin; x == upper in the
 * last bin), sorted edges (a binary search; the last bin closed), or
 * bincount (the integer value itself). NaN and samples out of range have no
 * bin and are not counted.
 *
 * Three variants and a way of reading, each a step of the lesson:
 *
 * 1. hist_global - one global atomic per sample. The whiteboard version:
 *    every work-item reads its samples and does atomic_inc on the bin in
 *    global memory. Correct anywhere (32-bit global atomics are core since
 *    OpenCL 1.1), but every increment is a read-modify-write at the memory
 *    (L2 on a GPU), and samples of one bin serialise on one address: on
 *    one-bin data the whole device waits on one counter.
 *
 * 2. hist_local (agg = 0) - counts privatised in local memory. Each group
 *    keeps its own copy of the bins in local memory (zeroed, a barrier),
 *    counts its block of samples there with local atomics (on-chip, far
 *    cheaper, and contention only within the group), then, after a second
 *    barrier, writes its copy as one row of the partial counts; hist_merge
 *    adds the rows. Global traffic: n samples read, groups x bins counts
 *    written and read once. Costs: the bins must fit in local memory (else
 *    the host takes variant 1), and one-bin data still serialises the
 *    group's work-items on one local counter. A group of one work-item (a
 *    CPU's) adds without atomics: its copy is its own.
 *
 * 3. hist_local (agg = 1) - runs of equal bins aggregated. Each work-item
 *    keeps the bin it counted last and how many times in a row; only when
 *    the bin changes (and at the end) does it add the run with one local
 *    atomic_add. On one-bin data that is one atomic per work-item instead of
 *    one per sample; on uniform data it costs a compare per sample (runs are
 *    short there, so nearly every sample still flushes).
 *
 * 4. Vector loads (HIST_VEC > 1: unweighted even bins and bincount) -
 *    variants 2 and 3 read 16 bytes a load (uchar16, ushort8, float4,
 *    double2, ...) instead of one sample. A load of one uchar moves one
 *    byte, and a GPU issues loads, not bytes: with scalar loads 2^28 uchar
 *    samples took as long as 2^28 floats (0.9 ms on an H200, 300 GB/s),
 *    bound by the load instructions, not by memory. A vector load brings
 *    16 samples for one instruction and one address computation; the
 *    samples before the first 16-byte boundary (a caller's offset) and
 *    after the last whole vector are read one at a time, by the last group. Costs: each work-item then walks 16 consecutive
 *    samples, so the group's reads are 16-byte strided lanes of one
 *    coalesced block (still whole cache lines), and weights (a second
 *    array) and edges (a binary search, not a load, dominates) keep the
 *    scalar loop.
 *
 * 5. One-byte samples counted by value (HIST_RAW: char and uchar, without
 *    weights) - a sample of one byte has only 256 values, so the group
 *    counts how often each value occurs (raw[value], 256 local counters)
 *    and finds the bins only at the end: the 256 values are put in their
 *    bins (hist_bin of each value, the same function) and their counts
 *    added there, once per group instead of once per sample. Per sample
 *    there is no conversion, compare or multiply left, only the increment:
 *    an image's 2^28 pixels need 256 bin computations per group, not 2^28.
 *    (CUB's HistogramEven does the same for 8-bit samples.) Costs: 256 more
 *    local counters, and a second barrier before the row is written.
 *
 * The merge (hist_merge): work-item b adds bin b of every row in row order
 * (deterministic: no 64-bit atomics needed, and float weights sum the same
 * way in every run given the rows) and adds, or writes, it to the output
 * as uint (hist_merge32) or ulong (hist_merge64). Each row counts at most 2^32 - 1 samples (the
 * host sizes the grid), so the 32-bit local counts never wrap.
 *
 * Weights (HIST_W=1): sums of weights of HIST_WT (float or double) instead
 * of counts. OpenCL 1.2 has no floating-point atomics, so the local sums are
 * added with a compare-exchange loop on their bit pattern (uint for float;
 * ulong for double, which needs cl_khr_int64_base_atomics); the order of the
 * additions within a group is the run's, so float sums may round
 * differently from run to run (the rows are then merged in order).
 *
 * Correct on any conforming device: every barrier is reached by every
 * work-item of the group (loops over bins and samples are bounded by the
 * same values for all), no lock-step within a warp is assumed, and every
 * shared counter is changed by atomics only.
 */
#pragma OPENCL FP_CONTRACT OFF

#if defined(OCR_FP64) || HIST_NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if HIST_W && HIST_WT_DOUBLE
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#if !defined(HIST_KIND) || !defined(HIST_BT)
#error "the host passes HIST_KIND and HIST_BT"
#endif

#define HIST_NONE 0xffffffffu

/* The sample type: the build's input type (OCR_IN_T where the build
 * converts, as for the small types, else OCR_T); half is read with
 * vload_half (as a float: a half cannot be dereferenced without
 * cl_khr_fp16). */
#ifdef OCR_IN_T
#define HIST_IN OCR_IN_T
#else
#define HIST_IN OCR_T
#endif
#if HIST_HALF
#define HIST_LOAD(p, i) vload_half((i), (p))
typedef float HIST_ST;
#else
#define HIST_LOAD(p, i) ((p)[i])
typedef HIST_IN HIST_ST;
#endif
#ifndef HIST_ET
#define HIST_ET float /* no edges: the argument is unused */
#endif
#ifndef HIST_VEC
#define HIST_VEC 1 /* scalar loads */
#endif
#ifndef HIST_RAW
#define HIST_RAW 0 /* one-byte samples counted by value (step 5) */
#endif
#if HIST_RAW && (HIST_W || HIST_HALF || (HIST_VEC != 1 && HIST_VEC != 16))
#error "counts by value are for one-byte samples without weights (16 a vector load)"
#endif
#if HIST_VEC > 1 && (HIST_W || HIST_HALF || HIST_KIND == 1)
#error "vector loads are for unweighted even bins and bincount of a type read as itself"
#endif

/* What a sample adds: 1, or its weight; rows hold HIST_RT. */
#if HIST_W
typedef HIST_WT HIST_RT;
#define HIST_ONE(i) (wts[i])
#else
typedef uint HIST_RT;
#define HIST_ONE(i) 1u
#endif

/* The bin of x, or HIST_NONE. `edges` are read only for HIST_KIND 1. */
static uint hist_bin(const HIST_ST x, const HIST_BT lower, const HIST_BT upper, const HIST_BT scale,
                     const uint bins, __global const HIST_ET *edges) {
#if HIST_KIND == 0
    const HIST_BT v = (HIST_BT)x;
    if (!(v >= lower && v <= upper)) return HIST_NONE; /* NaN fails both */
    const uint b = (uint)((v - lower) * scale);
    return min(b, bins - 1);
#elif HIST_KIND == 1
    const HIST_ET v = (HIST_ET)x;
    if (!(v >= edges[0] && v <= edges[bins])) return HIST_NONE;
    uint lo = 0, hi = bins; /* edges[lo] <= v, and v < edges[hi] or hi == bins */
    while (hi - lo > 1) {
        const uint mid = lo + (hi - lo) / 2;
        if (edges[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
#else
#if HIST_SIGNED
    if (x < 0) return HIST_NONE;
#endif
    return (ulong)x < (ulong)bins ? (uint)x : HIST_NONE;
#endif
}

#if HIST_W
/* *p += v for a local or global HIST_RT, as a compare-exchange loop on the bits. */
#if HIST_WT_DOUBLE
#define HIST_ADD_BITS(space)                                                                       \
    static void hist_add_##space(volatile space HIST_RT *p, const HIST_RT v) {                      \
        ulong old = 0, want; /* a guess: the first exchange returns the real bits */               \
        do {                                                                                       \
            want = old;                                                                            \
            old = atom_cmpxchg((volatile space ulong *)p, want, as_ulong(as_double(want) + v));    \
        } while (old != want);                                                                     \
    }
#else
#define HIST_ADD_BITS(space)                                                                       \
    static void hist_add_##space(volatile space HIST_RT *p, const HIST_RT v) {                      \
        uint old = 0, want; /* a guess: the first exchange returns the real bits */                \
        do {                                                                                       \
            want = old;                                                                            \
            old = atomic_cmpxchg((volatile space uint *)p, want, as_uint(as_float(want) + v));     \
        } while (old != want);                                                                     \
    }
#endif
HIST_ADD_BITS(__local)
HIST_ADD_BITS(__global)
#define HIST_ATOMIC_LOCAL(p, v) hist_add___local((p), (v))
#define HIST_ADD_GLOBAL(p, v)   hist_add___global((p), (v))
#else
#define HIST_ATOMIC_LOCAL(p, v) atomic_add((p), (v))
#define HIST_ADD_GLOBAL(p, v)   atomic_add((p), (v))
#endif

/* A group of one work-item (a CPU's groups) has nobody to race with: a
 * plain add there, an atomic one otherwise (solo is the same for the whole
 * group, so no work-item takes the other branch). */
#define HIST_ADD_LOCAL(p, v) (solo ? (void)(*(p) += (v)) : (void)HIST_ATOMIC_LOCAL((p), (v)))

#if HIST_W
#define HIST_WEIGHTS_ARG , __global const HIST_RT *wts, const ulong w_off
#define HIST_WEIGHTS_AT  wts += w_off
#else
#define HIST_WEIGHTS_ARG
#define HIST_WEIGHTS_AT (void)0
#endif

/* The arguments both counting kernels take: samples and weights from their
 * offsets on, the range (even bins) or edges from theirs. */
#define HIST_ARGS                                                                                  \
    __global const HIST_IN *in, const ulong in_off HIST_WEIGHTS_ARG, const ulong n,                \
        const HIST_BT lower, const HIST_BT upper, const HIST_BT scale, const uint bins,            \
        __global const HIST_ET *edges, const ulong e_off
#define HIST_OFFSETS() (in += in_off, edges += e_off, HIST_WEIGHTS_AT)

/* Variant 1's row zeroed (a kernel rather than clEnqueueFillBuffer, so that
 * tools that track initialised memory, oclgrind, see it). */
__kernel void hist_zero(__global HIST_RT *cnt, const uint bins) {
    const ulong b = get_global_id(0);
    if (b < bins) cnt[b] = 0;
}

/* Variant 1: every sample one global atomic on cnt (bins HIST_RT, zeroed by
 * hist_zero), samples i = global id, + global size, ... (coalesced). */
__kernel void hist_global(HIST_ARGS, __global HIST_RT *cnt) {
    HIST_OFFSETS();
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const uint b = hist_bin(HIST_LOAD(in, i), lower, upper, scale, bins, edges);
        if (b != HIST_NONE) HIST_ADD_GLOBAL(&cnt[b], HIST_ONE(i));
    }
}

/* Sample x counted in the group's copy: at once (variant 2), or into the
 * work-item's run (variant 3), whose end adds it with one atomic. Step 5
 * counts the value's bits in raw[] instead of its bin in cnt[]. */
#if HIST_RAW
#define HIST_SLOT(x) ((uint)as_uchar(x))
#define HIST_TO      raw
#else
#define HIST_SLOT(x) hist_bin((x), lower, upper, scale, bins, edges)
#define HIST_TO      cnt
#endif
#define HIST_COUNT(x, i)                                                                           \
    do {                                                                                           \
        const uint b_ = HIST_SLOT(x);                                                              \
        if (agg) {                                                                                 \
            if (b_ != run_bin) { /* a run ends: one atomic for all of it */                        \
                if (run_bin != HIST_NONE) HIST_ADD_LOCAL(&HIST_TO[run_bin], run);                  \
                run_bin = b_, run = 0;                                                             \
            }                                                                                      \
            run += HIST_ONE(i);                                                                    \
        } else if (b_ != HIST_NONE) {                                                              \
            HIST_ADD_LOCAL(&HIST_TO[b_], HIST_ONE(i));                                             \
        }                                                                                          \
    } while (0)

/* The 16 samples of a one-byte vector counted by name (.s0 ... .sf). On an
 * H200 this was faster than the union below for step 5 (uchar, 2^28: 0.28
 * against 0.29 ms), and slower for float4 without it (0.52 against 0.43
 * ms): each is kept where it measured faster (docs/perf/histogram.md). */
#define HIST_C1(v, c) HIST_COUNT((v).s##c, 0)
#define HIST_EACH16(v)                                                                             \
    HIST_C1(v, 0);                                                                                 \
    HIST_C1(v, 1);                                                                                 \
    HIST_C1(v, 2);                                                                                 \
    HIST_C1(v, 3);                                                                                 \
    HIST_C1(v, 4);                                                                                 \
    HIST_C1(v, 5);                                                                                 \
    HIST_C1(v, 6);                                                                                 \
    HIST_C1(v, 7);                                                                                 \
    HIST_C1(v, 8);                                                                                 \
    HIST_C1(v, 9);                                                                                 \
    HIST_C1(v, a);                                                                                 \
    HIST_C1(v, b);                                                                                 \
    HIST_C1(v, c);                                                                                 \
    HIST_C1(v, d);                                                                                 \
    HIST_C1(v, e);                                                                                 \
    HIST_C1(v, f)

/* Variants 2 and 3: group g counts its block of samples in its local copy
 * (work-items striding by the group's size), then writes it to
 * rows[g * bins ..]. Scalar loads: the block is [g * per, min((g + 1) * per,
 * n)). Vector loads (HIST_VEC): the whole vectors from the first 16-byte
 * boundary on are shared out as evenly, the samples before it and after the
 * last whole vector go to the last group (the host keeps per a few vectors
 * below 2^32, so no count wraps). */
__kernel void hist_local(HIST_ARGS, const ulong per, const int agg, __global HIST_RT *rows,
                         __local HIST_RT *cnt) {
    HIST_OFFSETS();
    const uint lid = get_local_id(0), ls = get_local_size(0);
    const int solo = ls == 1;
    const ulong g = get_group_id(0);
#if HIST_RAW
    __local HIST_RT *raw = cnt + bins; /* the 256 values' counts, after the bins */
    for (uint b = lid; b < bins + 256; b += ls)
#else
    for (uint b = lid; b < bins; b += ls)
#endif
        cnt[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every copy zeroed before any count */
    uint run_bin = HIST_NONE;
    HIST_RT run = 0;
#if HIST_VEC > 1
    const ulong groups = get_num_groups(0);
    /* in + head is 16-byte aligned: buffers start on CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    const ulong head = min((ulong)((HIST_VEC - in_off % HIST_VEC) % HIST_VEC), n);
    const ulong nv = (n - head) / HIST_VEC, pv = (nv + groups - 1) / groups;
    const ulong vb = min(g * pv, nv), ve = min(vb + pv, nv);
    __global const HIST_VT *vin = (__global const HIST_VT *)(in + head);
    (void)per;
    for (ulong j = vb + lid; j < ve; j += ls) {
#if HIST_RAW
        const HIST_VT v = vin[j];
        HIST_EACH16(v);
#else
        union {
            HIST_VT v;
            HIST_IN e[HIST_VEC];
        } u;
        u.v = vin[j];
#pragma unroll
        for (uint k = 0; k < HIST_VEC; ++k)
            HIST_COUNT(u.e[k], 0);
#endif
    }
    if (g == groups - 1) { /* the samples outside whole vectors: before, then after */
        const ulong rest = n - nv * HIST_VEC;
        for (ulong t = lid; t < rest; t += ls) {
            const ulong i = t < head ? t : t + nv * HIST_VEC;
            HIST_COUNT(in[i], i);
        }
    }
#else
    const ulong begin = min(g * per, n), end = min(begin + per, n);
    for (ulong i = begin + lid; i < end; i += ls)
        HIST_COUNT(HIST_LOAD(in, i), i);
#endif
    if (run_bin != HIST_NONE) HIST_ADD_LOCAL(&HIST_TO[run_bin], run);
#if HIST_RAW
    barrier(CLK_LOCAL_MEM_FENCE); /* every value counted before the values are binned */
    for (uint v = lid; v < 256; v += ls) {
        const HIST_IN x = (HIST_IN)as_char((uchar)v); /* the value of bits v */
        const uint b = hist_bin(x, lower, upper, scale, bins, edges);
        if (b != HIST_NONE && raw[v]) HIST_ADD_LOCAL(&cnt[b], raw[v]);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE); /* every count in before the row is written */
    for (uint b = lid; b < bins; b += ls)
        rows[g * bins + b] = cnt[b];
}

/* Bin b (= global id) of `groups` rows summed in row order, added to or
 * written over out[out_off + b]: uint or ulong counts, or the weights' sums
 * (hist_merge64 then writes HIST_RT). */
#if HIST_W
#define HIST_SUM_T HIST_RT
#define HIST_OUT64 HIST_RT
#else
#define HIST_SUM_T ulong
#define HIST_OUT64 ulong
#endif
#define HIST_MERGE(name, OUT_T)                                                                    \
    __kernel void name(__global const HIST_RT *rows, const uint groups, const uint bins,            \
                       __global OUT_T *out, const ulong out_off, const int accumulate) {           \
        const ulong b = get_global_id(0);                                                          \
        if (b >= bins) return;                                                                     \
        HIST_SUM_T sum = 0;                                                                        \
        for (uint g = 0; g < groups; ++g)                                                          \
            sum += rows[(ulong)g * bins + b];                                                      \
        out[out_off + b] = (OUT_T)(accumulate ? out[out_off + b] + sum : sum);                     \
    }
HIST_MERGE(hist_merge32, uint)
HIST_MERGE(hist_merge64, HIST_OUT64)
