/*
 * reduce7 - algorithm cascading: each work-item streams many elements.
 *
 * What changed from reduce6: the number of work-groups no longer follows the
 * data. The host launches just enough groups to fill the device (compute units
 * x groups per unit) and each work-item walks the input with a grid-sized
 * stride, combining VEC-wide vectors (16-byte loads, int4 or float4 or double2)
 * in registers (one accumulator per lane), UNROLL independent loads per
 * iteration. Only at the end do the
 * LOCAL_SIZE work-items of a group meet in local memory, once, for a tree of
 * log2(LOCAL_SIZE) levels.
 *
 * Why it is faster: the cost of a group (its launch, its barriers, its tree)
 * is paid once per thousands of elements instead of once per 1024; the wide,
 * unrolled loads keep many bytes in flight per work-item, which is what a
 * memory-bound kernel needs to reach the bandwidth limit; consecutive
 * work-items read consecutive vectors, so every access is coalesced. One pass
 * leaves a few thousand partial values at most, which the CPU finishes.
 *
 * On a CPU device (POCL) the same idea needs the other access pattern: see
 * OCR_BLOCKED below.
 *
 * Reading one type, adding in another (OCR_IN_T, the library's reducer only):
 * the loads are 16-byte vectors of the input type (int4, float4), each lane
 * converted to the accumulator type T as it arrives (long, double). Summing
 * int data in long then never overflows, and nothing but the input is read:
 * no converted copy of it is written first. Only the first pass converts;
 * the partial values it writes are already T.
 *
 * Small types (char, uchar, short, ushort, half: cl/reduce_common.h): a
 * 16-byte vector would be 16 or 8 of them, but FOLD takes 2 or 4 lanes, so
 * the host sets VEC = 4 for them: 4- or 8-byte loads (char4, short4), the same
 * head and tail rule at any offset. half is never dereferenced: its vectors
 * come from vload_half4 (a float4), its scalars from vload_half, and the CPU
 * walk's 16-wide loads from vload_half16.
 *
 * Finishing in one launch (reduce7_finish, when the host defines OCR_FINISH):
 * with M = 1 the few thousand partial values used to need a second launch,
 * which costs about as much as a whole pass's worth of bandwidth at 2^25. The
 * last group to finish now reduces them itself: each group publishes its
 * partial, then takes a ticket from an atomic counter; the group that draws
 * the last ticket knows every partial is written, reads them all, and writes
 * the answer. That needs the other groups' writes to be visible to it, which
 * OpenCL 1.2 does not promise between work-groups: OCR_FINISH=1 uses OpenCL
 * 2.0/3.0 acquire-release atomics at device scope (the host asks the device
 * whether it has them), OCR_FINISH=2 is for NVIDIA's OpenCL 1.2, whose global
 * mem_fence is device-wide (as CUDA's __threadfence); other devices keep two
 * launches. One group needs no finish. One launch wins for a value left on
 * the device; a value read back at once can wait longer behind the one
 * longer kernel than behind a short second launch, so the host's blocking
 * call finishes in one launch only for small and full grids
 * (host/lib/core/ocr_plan.c, finish_max_groups; the measurements are in
 * docs/perf/latency.md).
 *
 * Offsets (for the library's reducer, which reduces any part of a caller's
 * buffer and may write its value into any element of another): both kernels
 * read n values from in[in_off] on and write from out[out_off] on. in_off
 * counts input elements (IN_T), and VEC is the number of them in one 16-byte
 * load, so the same rule serves a widening first pass: the 16-byte loads need
 * an aligned start, so the few values before the first multiple of VEC are
 * read (and converted) one at a time, as the tail is. No sub-buffer, no copy
 * of the head. The benchmark passes zeros.
 *
 * Accurate sums (OCR_ACCURATE=1, float and double sums only): a plain float
 * sum loses a rounding error at every addition, and the errors of a long
 * sequential run per lane add up (about 1e-7 of sum|x| for 2^20 floats). In
 * this mode every accumulator holds pairs (s, c): each addition is an
 * error-free TwoSum (t = s + x; the rounding error of t, recovered exactly by
 * five more additions, goes into c), the lanes and the group's tree combine
 * them the same way. Elements near the type's largest go into a second pair,
 * scaled by 2^-64, so that no partial sum overflows while the exact sum is
 * finite; infinities and NaNs give IEEE's answer (acc_value). Every pass of
 * more than one group writes its groups' accumulators, 4 values each, which
 * the next pass (built with OCR_ACCURATE_IN) or the host's finish reads as
 * such. Only the last value written, by a single group or by reduce7_finish,
 * rounds once. A lane's errors are added plainly over a run of 64 loads at
 * most, then the runs' pairs merge in two levels, so a lane walking millions
 * of elements (a tiny geometry, a CPU's chunk) still gives a result within
 * one ulp of the correctly rounded sum. Why it can be cheap: the kernel
 * waits on memory, and a dozen more operations per element fit in some of
 * that wait; the grid-stride loop and its loads are unchanged. What it
 * costs: four times the registers per lane and the local memory of the
 * tree, four times the partial values (a few thousand at most), about a
 * fifth of the plain sum's throughput on an H200 (docs/perf/ops.md), and on
 * a CPU device, where the loop is compute-bound SIMD code, about fifteen
 * vector operations per vector instead of one. It relies on the
 * compiler not reassociating float additions, which OpenCL C forbids unless
 * -cl-fast-relaxed-math or -cl-unsafe-math-optimizations is given: the host
 * refuses both here.
 *
 * Where the extreme is (argmin, argmax: cl/reduce_common.h): the passes
 * combine 16-byte keys (the value as an ordered number, its index), a total
 * order, so the tree is the same tree; later passes read the few thousand
 * keys one per load. The first pass reads values with the 16-byte vector
 * loads, but keys none of them one by one: a key and two 64-bit compares per
 * element made it ALU-bound (docs/perf/ops.md). A lane visits its elements
 * in increasing index order, so it keeps the best
 * value in the data's type and the vector it came from, and a strict compare
 * keeps the first of equal values (a NaN beats all, the first NaN stays). It
 * starts from the worst value at its first vector, so no element needs a
 * test of whether the lane is empty, and makes its key once at the end (the
 * identity if it saw no vector). The few elements before the first vector
 * and after the last are keyed one by one.
 *
 * What it still costs: the number of groups is a guess from the device's
 * compute-unit count (OpenCL does not report resident work-items per unit),
 * and the tree still needs a barrier per level, since portable OpenCL 1.2 has
 * no sub-group shuffles.
 */
#include "reduce_common.h"

#ifndef VEC
#define VEC 4
#endif
#ifndef UNROLL
#define UNROLL 8
#endif
#ifndef OCR_BLOCKED
#define OCR_BLOCKED 0
#endif
#ifndef OCR_ACCURATE
#define OCR_ACCURATE 0
#endif
#ifndef OCR_ACCURATE_IN
#define OCR_ACCURATE_IN 0
#endif
#define LANES 16

#if OCR_ACCURATE
#if !OCR_IS_FLOAT || OCR_OP != OCR_OP_SUM
#error "OCR_ACCURATE is for float and double sums"
#endif
/* A compensated accumulator: two pairs (s, c), the value s + c each, c holding
 * the rounding errors of the additions into s. Elements of magnitude ACC_BIG
 * and up go into the first pair scaled by 2^-64 (exact: they stay far from the
 * subnormals), the rest into the second unscaled, so neither s overflows
 * while the exact sum is finite ([FLT_MAX, FLT_MAX, -FLT_MAX] is FLT_MAX):
 * the value is (.s0 + .s1) 2^64 + (.s2 + .s3). A 4-vector rather than a
 * struct: functions returning a struct, once inlined, leave an LLVM intrinsic
 * that oclgrind lacks; only its lanes are ever used (see FOLD on vector
 * operators). An infinity or a NaN makes an s non-finite for good (its c is
 * then garbage and ignored): the value is IEEE's, inf + -inf a NaN. */
typedef OCR_CAT(OCR_T, 4) ACC;
typedef OCR_CAT(OCR_T, 2) PAIR;
#if OCR_FP64 /* T is double (OCR_FP64 says so: an accurate sum reads T itself) */
#define ACC_BIG   0x1p984 /* 2^(max exponent - 40): 2^40 elements under it cannot overflow */
#define ACC_DOWN  0x1p-64
#define ACC_UP    0x1p64
#define ACC_UNSCALED 0x1p958 /* a scaled s under this is finite times 2^64 */
#else
#define ACC_BIG   0x1p88f
#define ACC_DOWN  0x1p-64f
#define ACC_UP    0x1p64f
#define ACC_UNSCALED 0x1p62f
#endif
#define ACC_ZERO ((ACC)((T)0))

/* TwoSum: t = fl(s + x) and its exact error added to c, whatever the
 * magnitudes (branch-free, unlike Fast2Sum, which needs |s| >= |x|). */
static inline PAIR two_sum(T s, T c, T x) {
    T t = s + x, z = t - s;
    return (PAIR)(t, c + ((s - (t - z)) + (x - z)));
}
static inline ACC acc_add(ACC a, T x) {
    const int big = fabs(x) >= ACC_BIG; /* an infinity too; a NaN not */
    return (ACC)(two_sum(a.s0, a.s1, big ? x * ACC_DOWN : (T)0),
                 two_sum(a.s2, a.s3, big ? (T)0 : x));
}
/* Two accumulators: TwoSum of the values, the errors summed. */
static inline ACC acc_merge(ACC a, ACC b) {
    return (ACC)(two_sum(a.s0, a.s1 + b.s1, b.s0), two_sum(a.s2, a.s3 + b.s3, b.s2));
}
/* The one rounding of the final value. Where the scaled pair's value (hi +
 * lo, exact) fits unscaled, the four terms hi, lo (unscaled), s and c are
 * distilled: TwoSum sweeps, which keep their exact sum, until none moves;
 * then each term is below half an ulp of the one above, so the top one is
 * within an ulp of the exact sum even where the large values cancel (the
 * small ones must not be lost then). Else the result is near the largest
 * and the small pair far below its ulp: summed in the scaled domain, so that
 * only a rounded result past the type's largest becomes an infinity. */
static inline T acc_value(ACC a) {
    if (!isfinite(a.s0) || !isfinite(a.s2)) return a.s0 * ACC_UP + a.s2;
    PAIR b = two_sum(a.s0, (T)0, a.s1);
    if (fabs(b.s0) >= ACC_UNSCALED)
        return (b.s0 + (b.s1 + (a.s2 + a.s3) * ACC_DOWN)) * ACC_UP;
    T p[4] = {a.s3, b.s1 * ACC_UP, a.s2, b.s0 * ACC_UP};
    for (uint sweep = 0; sweep < 64; ++sweep) {
        int moved = 0;
        for (uint i = 1; i < 4; ++i) {
            PAIR t = two_sum(p[i], (T)0, p[i - 1]);
            moved |= t.s0 != p[i] || t.s1 != p[i - 1];
            p[i] = t.s0, p[i - 1] = t.s1;
        }
        if (!moved)
            break;
    }
    return p[3] + (p[2] + (p[1] + p[0]));
}
#define ACC_ADD(a, x)   acc_add(a, x)
#define ACC_MERGE(a, b) acc_merge(a, b)
#define ACC_VALUE(a)    acc_value(a)
#else
typedef T ACC;
#define ACC_ZERO        ((T)(OCR_IDENTITY))
#define ACC_ADD(a, x)   OCR_COMBINE(a, x)
#define ACC_MERGE(a, b) OCR_COMBINE(a, b)
#define ACC_VALUE(a)    (a)
#endif

/* a combined with input element x at index i (i matters to argmin/argmax
 * alone; elsewhere the compiler drops it) */
#define TAKE(a, x, i) a = ACC_ADD(a, OCR_TAKE_AT(x, i))

/* argmin/argmax's first pass (it reads values): its accumulators hold values
 * and where they are, not keys (OCR_ARG_TAKE in reduce_common.h). */
#if OCR_ARG && !defined(OCR_KEYS_IN)
#define ARG_LANES 1
#else
#define ARG_LANES 0
#endif

/* Lanes are combined into VEC scalar accumulators rather than with vector
 * arithmetic: the same instructions on a GPU (which scalarises vectors), and
 * oclgrind's uninitialized-value checker mishandles vector operators. v is
 * vector j of the input (from `head` on); LANE(k, x, j) takes its element k.
 * argmin/argmax's lane k keeps the best value bvk and the vector bjk it came
 * from: that element's index, head + bjk * VEC + k, is made once at the end. */
#if ARG_LANES
#define LANE(k, x, j) OCR_ARG_TAKE(bv##k, bj##k, x, j)
#define LANE_KEY(k)   ocr_arg_key(bv##k, head + bj##k * VEC + (k))
#else
#define LANE(k, x, j) TAKE(a##k, x, 0)
#endif
#if VEC == 4
#define FOLD(v, j)                                                                                 \
    do {                                                                                           \
        LANE(0, (v).s0, j);                                                                        \
        LANE(1, (v).s1, j);                                                                        \
        LANE(2, (v).s2, j);                                                                        \
        LANE(3, (v).s3, j);                                                                        \
    } while (0)
#elif VEC == 2
#define FOLD(v, j)                                                                                 \
    do {                                                                                           \
        LANE(0, (v).s0, j);                                                                        \
        LANE(1, (v).s1, j);                                                                        \
    } while (0)
#elif !(OCR_ARG && defined(OCR_KEYS_IN))
#error "VEC must be 2 or 4 (16-byte loads)"
#endif

/* argmin/argmax's later passes read 16-byte keys (ulong2), one per load
 * already: they take the plain grid-stride loop (OCR_SCALAR_LOADS). On a CPU,
 * argmin/argmax keep the blocked walk without the vector accumulator, which
 * has no 16-wide form of a key: one scalar lane, of values in the first pass. */
#if OCR_ARG && defined(OCR_KEYS_IN)
#define OCR_SCALAR_LOADS 1
#else
#define OCR_SCALAR_LOADS 0
#if OCR_IN_HALF /* half vectors need cl_khr_fp16: vload_halfN returns floats */
typedef OCR_CAT(float, VEC) TV;
#define LOADV(j) OCR_CAT(vload_half, VEC)((j), in + head)
#else
typedef OCR_CAT(OCR_IN_T, VEC) TV; /* one 16-byte load of input elements */
#define LOADV(j) inv[j]
#endif
#endif

/* One tree over the group's LOCAL_SIZE values; work-item 0 returns the result. */
static ACC group_tree(__local ACC *lcl, ACC x, uint lid) {
    lcl[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s)
            lcl[lid] = x = ACC_MERGE(x, lcl[lid + s]);
        if (s > 1)
            barrier(CLK_LOCAL_MEM_FENCE);
    }
    return x;
}

#if OCR_ACCURATE
/* An accumulator as 4 values from p[0] on (scalar stores: see FOLD). */
#define ACC_PUT(p, x) ((p)[0] = (x).s0, (p)[1] = (x).s1, (p)[2] = (x).s2, (p)[3] = (x).s3)
#define ACC_GET(p)    ((ACC)((p)[0], (p)[1], (p)[2], (p)[3]))
#endif

/* Work-item 0's group value: one value where the launch has a single group
 * (the final one), else the accumulator's 4 values from out[4 g] on in
 * accurate mode (the host plans 4 values per group, and builds the next
 * pass's kernel with OCR_ACCURATE_IN to read them), the value at out[g]
 * otherwise. */
static void put_group(__global T *out, const ulong out_off, ACC x) {
#if OCR_ACCURATE
    if (get_num_groups(0) > 1) {
        ACC_PUT(out + out_off + 4 * get_group_id(0), x);
        return;
    }
#endif
    out[out_off + get_group_id(0)] = ACC_VALUE(x);
}

/* This work-item's share of the n values from in[off] on, combined (the
 * streaming phase): one of four walks, chosen when the kernel is built. */
/* (No restrict here: inlined, it becomes an LLVM intrinsic oclgrind lacks.) */
#if OCR_ACCURATE_IN
/* An accurate sum's later passes: the n values are the groups'
 * accumulators, 4 values each (put_group), merged one per load. */
static ACC stream(__global const IN_T *in, const ulong off, const ulong n) {
    const ulong stride = get_global_size(0);
    in += off;
    ACC x = ACC_ZERO;
    for (ulong i = get_global_id(0); i < n / 4; i += stride)
        x = ACC_MERGE(x, ACC_GET(in + 4 * i));
    return x;
}
#elif OCR_BLOCKED
/* CPU devices (OCR_BLOCKED=1, set by the host) run a group's work-items one
 * after another on one core, so a grid stride would make each work-item
 * touch one vector per cache line and jump. There, each work-item streams
 * its own contiguous chunk (a multiple of LANES long) into one LANES-wide
 * vector accumulator. Written as vector arithmetic, the loop becomes SIMD
 * instructions for every type and operator: sixteen scalar accumulators
 * were left scalar for float (the compiler may not reassociate float
 * adds), and measured 1.3-1.9x slower on POCL at 2^28 (docs/perf/cpu.md).
 * vload16 needs no more than the element's alignment: any offset works. */
/* A float sum's vectors go through a cascade of partial sums (CASCADE). */
#define CASCADE (OCR_IS_FLOAT && OCR_OP == OCR_OP_SUM && !OCR_ARG)
#define BLOCK   16
#if !OCR_ARG
typedef OCR_CAT(OCR_T, 16) TL; /* LANES wide */
#endif

#if OCR_ACCURATE
/* (s, c) += (s2, c2) lane by lane: TwoSum of the values, the errors added. */
#define VMERGE(s, c, s2, c2)                                                                       \
    do {                                                                                           \
        TL t_ = (s) + (s2), z_ = t_ - (s);                                                         \
        (c) += (((s) - (t_ - z_)) + ((s2) - z_)) + (c2);                                           \
        (s) = t_;                                                                                  \
    } while (0)

/* An accurate sum's vectors from in[*i] on (to end), into x: TwoSum lane by
 * lane as vector arithmetic (see acc_add), acc and comp the small pair, big
 * and big_c the scaled one, in runs of RUN vectors. Each run starts from zero
 * and goes into a level-1 pair, RUN runs of those into a level-2 pair, so no
 * rounding error is added plainly into a sum of more than RUN terms: added
 * over a work-item's whole chunk they grew past an ulp of a sum that
 * cancels (13 ulps for 2^22 floats in one work-item). */
#define RUN 64
static ACC blocked_accurate(__global const IN_T *in, ulong *at, const ulong end, ACC x) {
    ulong i = *at;
    TL s1 = (TL)(0), c1 = s1, b1 = s1, bc1 = s1, s2 = s1, c2 = s1, b2 = s1, bc2 = s1;
    uint runs = 0;
    while (i + LANES <= end) {
        const ulong stop = i + min((end - i) / LANES, (ulong)RUN) * LANES;
        TL acc = (TL)(0), comp = acc, big = acc, big_c = acc;
        for (; i < stop; i += LANES) {
            TL v = OCR_CVT_N(OCR_VLOAD16(in + i), 16);
            TL vb = select((TL)(0), v * ACC_DOWN, isgreaterequal(fabs(v), (TL)(ACC_BIG)));
            v = select(v, (TL)(0), isgreaterequal(fabs(v), (TL)(ACC_BIG)));
            TL t = acc + v, z = t - acc;
            comp += (acc - (t - z)) + (v - z);
            acc = t;
            t = big + vb, z = t - big;
            big_c += (big - (t - z)) + (vb - z);
            big = t;
        }
        VMERGE(s1, c1, acc, comp);
        VMERGE(b1, bc1, big, big_c);
        if (++runs % RUN == 0) {
            VMERGE(s2, c2, s1, c1);
            VMERGE(b2, bc2, b1, bc1);
            s1 = c1 = b1 = bc1 = (TL)(0);
        }
    }
    VMERGE(s2, c2, s1, c1);
    VMERGE(b2, bc2, b1, bc1);
    /* Fold the lanes through private memory: oclgrind's uninitialized-value
     * checker crashes on .lo/.hi halves of a vector. */
    T lane[LANES], lane_c[LANES], lane_b[LANES], lane_bc[LANES];
    vstore16(s2, 0, lane);
    vstore16(c2, 0, lane_c);
    vstore16(b2, 0, lane_b);
    vstore16(bc2, 0, lane_bc);
    for (uint u = 0; u < LANES; ++u)
        x = ACC_MERGE(x, (ACC)(lane_b[u], lane_bc[u], lane[u], lane_c[u]));
    *at = i;
    return x;
}
#elif !OCR_ARG
/* The vectors from in[*i] on (to end), lane by lane, folded into x. */
static ACC blocked_vectors(__global const IN_T *in, ulong *at, const ulong end, ACC x) {
    ulong i = *at;
    TL acc = (TL)(OCR_IDENTITY);
#if CASCADE
    /* A float sum, as a tree of fan-out BLOCK: BLOCK vectors into a block's
     * sum, BLOCK of those into m1, BLOCK of m1 into m2, of m2 into m3, then
     * into acc. A work-item's chunk here is long (on POCL 8 work-items share
     * 2^24 elements: 2^17 per lane) and a plain running sum's rounding errors
     * grow with it; in the tree each addition's error is of a partial sum of
     * at most BLOCK^k elements of its level, as in pairwise summation. */
    TL m1 = acc, m2 = acc, m3 = acc;
    uint blocks = 0;
    for (; i + LANES * BLOCK <= end; i += LANES * BLOCK) {
        TL blk = OCR_CVT_N(OCR_VLOAD16(in + i), 16);
        for (uint u = 1; u < BLOCK; ++u)
            blk += OCR_CVT_N(OCR_VLOAD16(in + i + u * LANES), 16);
        m1 += blk;
        if (++blocks % BLOCK)
            continue;
        m2 += m1;
        m1 = (TL)(0);
        if (blocks % (BLOCK * BLOCK))
            continue;
        m3 += m2;
        m2 = (TL)(0);
        if (blocks % (BLOCK * BLOCK * BLOCK))
            continue;
        acc += m3;
        m3 = (TL)(0);
    }
    TL rest = (TL)(0);
    for (; i + LANES <= end; i += LANES)
        rest += OCR_CVT_N(OCR_VLOAD16(in + i), 16);
    acc += m3 + (m2 + (m1 + rest));
#else
    for (; i + LANES <= end; i += LANES)
        acc = OCR_COMBINE_N(acc, OCR_CVT_N(OCR_VLOAD16(in + i), 16), 16);
#endif
    /* Fold the lanes through private memory (see blocked_accurate). */
    T lane[LANES];
    vstore16(acc, 0, lane);
    for (uint u = 0; u < LANES; ++u)
        x = OCR_COMBINE(x, lane[u]);
    *at = i;
    return x;
}
#endif

static ACC stream(__global const IN_T *in, const ulong off, const ulong n) {
    const ulong stride = get_global_size(0);
    in += off;
    const ulong per = (n + stride * LANES - 1) / (stride * LANES) * LANES;
    const ulong begin = min(get_global_id(0) * per, n);
    const ulong end = min(begin + per, n);
    ulong i = begin;
    ACC x = ACC_ZERO;
#if OCR_ACCURATE
    x = blocked_accurate(in, &i, end, x);
#elif !OCR_ARG
    x = blocked_vectors(in, &i, end, x);
#elif ARG_LANES
    /* One lane over the chunk, from its first element (OCR_ARG_TAKE). */
    V bv = OCR_ARG_WORST;
    ulong bi = begin;
    for (; i < end; ++i)
        OCR_ARG_TAKE(bv, bi, OCR_READ(in, i), i);
    if (begin < end)
        x = ocr_arg_key(bv, bi);
#endif
    for (; i < end; ++i) /* what the vectors left; argmin/argmax's keys */
        TAKE(x, OCR_READ(in, i), i);
    return x;
}
#elif OCR_SCALAR_LOADS
static ACC stream(__global const IN_T *in, const ulong off, const ulong n) {
    const ulong stride = get_global_size(0);
    in += off;
    ACC x = ACC_ZERO;
    for (ulong i = get_global_id(0); i < n; i += stride)
        TAKE(x, OCR_READ(in, i), i);
    return x;
}
#else
#define RUNS 64
/* GPUs: neighbouring work-items read neighbouring 16-byte vectors
 * (coalesced), UNROLL loads issued before any is used: more bytes in flight.
 * The buffer starts aligned, so the vectors start at the first multiple of
 * VEC from off; the values before it (the head) are read one at a time. */
static ACC stream(__global const IN_T *in, const ulong off, const ulong n) {
    const ulong stride = get_global_size(0);
    const ulong head = min((ulong)((VEC - off % VEC) % VEC), n);
    in += off;
    const ulong nv = (n - head) / VEC; /* whole vectors */
#if !OCR_IN_HALF
    __global const TV *inv = (__global const TV *)(in + head);
#endif
    ulong i = get_global_id(0);
#if ARG_LANES
    /* Every lane starts at vector i, its first (OCR_ARG_TAKE). */
    V bv0 = OCR_ARG_WORST, bv1 = bv0;
    ulong bj0 = i, bj1 = i;
#if VEC == 4
    V bv2 = bv0, bv3 = bv0;
    ulong bj2 = i, bj3 = i;
#endif
#else
    ACC a0 = ACC_ZERO, a1 = a0;
#if VEC == 4
    ACC a2 = a0, a3 = a0;
#endif
#endif
#if OCR_ACCURATE
    /* An accurate sum's lanes start again from zero every RUNS iterations,
     * their pairs merged into r1 (and RUNS of those into r2): the errors are
     * added plainly over one run at most, as in the blocked walk. With the
     * device's geometry a lane sees a few hundred vectors at 2^28 and this
     * never happens; one work-item alone (-g 1 -w 1) sees them all. */
    ACC r1 = ACC_ZERO, r2 = ACC_ZERO;
    uint runs = 0;
#endif
    for (; i + (UNROLL - 1) * stride < nv; i += UNROLL * stride) {
        TV v[UNROLL];
        for (uint u = 0; u < UNROLL; ++u)
            v[u] = LOADV(i + u * stride);
        for (uint u = 0; u < UNROLL; ++u)
            FOLD(v[u], i + u * stride);
#if OCR_ACCURATE
        if (++runs % RUNS == 0) {
#if VEC == 4
            r1 = ACC_MERGE(r1, ACC_MERGE(ACC_MERGE(a0, a1), ACC_MERGE(a2, a3)));
            a2 = a3 = ACC_ZERO;
#else
            r1 = ACC_MERGE(r1, ACC_MERGE(a0, a1));
#endif
            a0 = a1 = ACC_ZERO;
            if (runs % (RUNS * RUNS) == 0) {
                r2 = ACC_MERGE(r2, r1);
                r1 = ACC_ZERO;
            }
        }
#endif
    }
    for (; i < nv; i += stride)
        FOLD(LOADV(i), i);

    /* Fold the lanes, then the head and the (n - head) % VEC values after the
     * vectors. */
#if ARG_LANES
    /* The lanes' keys, made once; a work-item past the last vector saw none
     * and gives the identity. */
    ACC x = ACC_ZERO;
    if (get_global_id(0) < nv) {
#if VEC == 4
        x = ACC_MERGE(ACC_MERGE(LANE_KEY(0), LANE_KEY(1)), ACC_MERGE(LANE_KEY(2), LANE_KEY(3)));
#else
        x = ACC_MERGE(LANE_KEY(0), LANE_KEY(1));
#endif
    }
#elif VEC == 4
    ACC x = ACC_MERGE(ACC_MERGE(a0, a1), ACC_MERGE(a2, a3));
#else
    ACC x = ACC_MERGE(a0, a1);
#endif
#if OCR_ACCURATE
    x = ACC_MERGE(r2, ACC_MERGE(r1, x));
#endif
    /* Both are shorter than VEC but the grid may be smaller still (-w 1 -g 1
     * launches a single work-item), so they too stride over the grid: VEC - 1
     * steps cover them. (Two loops to head and to n instead were miscompiled
     * by POCL 3.1 for argmin/argmax of 8-byte types at odd offsets: crashes
     * or wrong indices, clean under oclgrind.) At most 2 (VEC - 1) elements
     * in all: argmin/argmax key them one by one. */
    for (uint u = 0; u < VEC - 1; ++u) {
        const ulong t = get_global_id(0) + u * stride, e = head + nv * VEC + t;
        if (t < head)
            TAKE(x, OCR_READ(in, t), t);
        if (e < n)
            TAKE(x, OCR_READ(in, e), e);
    }
    return x;
}
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce7(__global const IN_T *restrict in, __global T *restrict out, const ulong n,
        const ulong in_off, const ulong out_off) {
    __local ACC lcl[LOCAL_SIZE];
    const uint lid = get_local_id(0);
    ACC x = group_tree(lcl, stream(in, in_off, n), lid);
    if (lid == 0)
        put_group(out, out_off, x);
}

#if defined(OCR_FINISH) && OCR_FINISH
/* reduce7 and the last group's finish: out[out_off] receives the reduction of
 * all n values. The host sets `ticket` (one uint, zero before the first launch; the
 * last group resets it) and `partial` (one value per group, 4 in accurate
 * mode) once per built kernel, so launches of one kernel object must
 * not overlap. */
__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
reduce7_finish(__global const IN_T *restrict in, __global T *restrict out, const ulong n,
               const ulong in_off, const ulong out_off,
#if OCR_FINISH == 1
               volatile __global atomic_uint *ticket,
#else
               volatile __global uint *ticket,
#endif
               volatile __global T *partial) {
    __local ACC lcl[LOCAL_SIZE];
    __local uint last;
    const uint lid = get_local_id(0);
    const uint groups = get_num_groups(0);
    ACC x = group_tree(lcl, stream(in, in_off, n), lid);
    if (lid == 0) {
#if OCR_ACCURATE
        ACC_PUT(partial + 4 * get_group_id(0), x);
#else
        partial[get_group_id(0)] = x;
#endif
#if OCR_FINISH == 1
        /* release: our partial before the ticket; acquire: everyone's before ours */
        last = atomic_fetch_add_explicit(ticket, 1u, memory_order_acq_rel, memory_scope_device) ==
               groups - 1;
#else
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(ticket) == groups - 1;
#endif
    }
    /* The barrier passes work-item 0's view on to the rest of its group. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!last)
        return;
    ACC y = ACC_ZERO;
    for (uint g = lid; g < groups; g += LOCAL_SIZE)
#if OCR_ACCURATE
        y = ACC_MERGE(y, ACC_GET(partial + 4 * g));
#else
        y = OCR_COMBINE(y, partial[g]);
#endif
    y = group_tree(lcl, y, lid);
    if (lid == 0) {
        out[out_off] = ACC_VALUE(y);
#if OCR_FINISH == 1
        atomic_store_explicit(ticket, 0u, memory_order_relaxed, memory_scope_device);
#else
        atomic_xchg(ticket, 0u);
#endif
    }
}
#endif
