/*
 * atomic_local - every work-item adds its partial value into one local
 * variable with an atomic operation.
 *
 * What changed from reduce5 (same geometry): no tree at all. Each work-item
 * combines its 16 elements in a register, then atomic_add (or _min, _max,
 * _and, _or, _xor) folds it into one __local accumulator; after a barrier,
 * work-item 0 writes it out. The slides' atomic variants (deck 004) add into a
 * single global total instead; the harness's contract (one value per group,
 * out[g], combined by the next pass or the CPU) has no zeroed global total to
 * add into, so the atomic stays inside the group.
 *
 * What it needs: 32-bit integer atomics on local memory, core since OpenCL
 * 1.1, so it builds everywhere (long and ulong only where the compiler also
 * offers 64-bit atomic_add and friends: NVIDIA's does, POCL 3.1's does not).
 * For float there is no atomic add before OpenCL 3.0's optional features, so a
 * float sum loops on atomic_cmpxchg over the value's bits until no other
 * work-item got in between.
 *
 * What it costs: the atomics to one address are carried out one after
 * another, so the group's combination takes LOCAL_SIZE steps instead of
 * log2(LOCAL_SIZE); how much that shows depends on the hardware's atomic units.
 */
#include "variant_common.h"

#if OCR_IS_FLOAT && OCR_OP == OCR_OP_SUM && !defined(OCR_FP64)
#define ACC_T uint
#else
#define ACC_T OCR_T
#endif

static inline void fold(volatile __local ACC_T *acc, T x) {
#if (defined(OCR_FP64) && OCR_FP64) || (OCR_IS_FLOAT && OCR_OP != OCR_OP_SUM)
#error "atomic_local: int or uint (any operator) or float (sum) only"
#elif OCR_IS_FLOAT
    uint old = *acc, seen;
    while ((seen = atomic_cmpxchg(acc, old, as_uint(as_float(old) + x))) != old)
        old = seen;
#elif OCR_OP == OCR_OP_SUM
    atomic_add(acc, x); /* wraps, like the harness's unsigned reference */
#elif OCR_OP == OCR_OP_MIN
    atomic_min(acc, x);
#elif OCR_OP == OCR_OP_MAX
    atomic_max(acc, x);
#elif OCR_OP == OCR_OP_AND
    atomic_and(acc, x);
#elif OCR_OP == OCR_OP_OR
    atomic_or(acc, x);
#elif OCR_OP == OCR_OP_XOR
    atomic_xor(acc, x);
#else
#error "atomic_local: no 32-bit atomic for this operator (prod)"
#endif
}

__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void
atomic_local(__global const T *in, __global T *out, const ulong n) {
    __local ACC_T acc;
    if (get_local_id(0) == 0)
        acc = OCR_CAT(as_, ACC_T)((T)(OCR_IDENTITY));
    barrier(CLK_LOCAL_MEM_FENCE);
    fold(&acc, ocr_thread_partial(in, n));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = OCR_CAT(as_, OCR_T)(acc);
}
