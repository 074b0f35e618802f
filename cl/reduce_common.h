/*
 * reduce_common.h - what every reduction kernel shares: element type, operator,
 * identity, and a bounds-checked load.
 *
 * The host builds each kernel for one (type, operator) pair and passes:
 *   OCR_T         element type: int, uint, long, ulong, float or double
 *   OCR_UT        unsigned type of the same width (integers only)
 *   OCR_IS_FLOAT  1 for float and double, 0 for integers
 *   OCR_OP        one of the OCR_OP_* numbers below
 *   OCR_IDENTITY  the operator's identity for OCR_T (0 for sum, 1 for prod,
 *                 the type's extremes for min/max, all ones for and, ...)
 *   OCR_FP64      1 when OCR_T or OCR_IN_T is double (enables the extension
 *                 on 1.2 devices)
 *   OCR_IN_T      the type of the input elements when it is not OCR_T: each
 *                 element is converted to T as it is loaded (OCR_TAKE_AT) and
 *                 combined in T, so int data summed in long cannot overflow
 *                 (reduce7, for the library's reducer), and argmin/argmax's
 *                 first pass reads values and makes keys (below). Unset: OCR_T.
 *   OCR_IN_HALF   1 when OCR_IN_T is half (below: how small types are read).
 *   OCR_ARG_V, OCR_ARG_VU, OCR_ARG_VFLOAT, OCR_ARG_VSIGNED (argmin/argmax
 *                 only) the data's type, its unsigned twin, and whether it
 *                 is floating-point or signed. Small types too (char ..
 *                 ushort: V is the type itself), but half: V is float (VU
 *                 uint), the value vload_half returns, whose order is the
 *                 half's (OCR_IN_T stays half).
 * Work-group geometry (LOCAL_SIZE, BLOCK, ...) is passed per kernel.
 *
 * Every kernel has the same signature, so the host can run any of them:
 *   __kernel void name(__global const IN_T *in, __global T *out, const ulong n)
 * `in` holds n values (of IN_T, which is T unless OCR_IN_T says otherwise);
 * the kernel writes one value per work-group (or per work-item for
 * reduce0/1) to `out`. reduce7 adds two element offsets after n (where in's
 * values start, counted in IN_T elements; where out's are written), for the
 * library's reducer; the harness passes zeros.
 */
#ifndef OCR_REDUCE_COMMON_H
#define OCR_REDUCE_COMMON_H

#if defined(OCR_FP64) && OCR_FP64 && !defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef OCR_T
#error "build with -D OCR_T=<type> (the host does this)"
#endif

#define OCR_OP_SUM  0
#define OCR_OP_PROD 1
#define OCR_OP_MIN  2
#define OCR_OP_MAX  3
#define OCR_OP_AND  4
#define OCR_OP_OR   5
#define OCR_OP_XOR  6
#define OCR_OP_ARGMIN 7
#define OCR_OP_ARGMAX 8
#define OCR_ARG (OCR_OP == OCR_OP_ARGMIN || OCR_OP == OCR_OP_ARGMAX)

typedef OCR_T T;
/* One element, or an N-wide vector of them, converted to the accumulator type;
 * OCR_TAKE_AT(x, i) is element x at index i as the kernels combine it. */
#ifdef OCR_IN_T
#define OCR_CVT(x)       ((T)(x))
#define OCR_CVT_N(x, N)  OCR_CAT(convert_, OCR_CAT(OCR_T, N))(x)
#else
#define OCR_IN_T         OCR_T
#define OCR_CVT(x)       (x)
#define OCR_CVT_N(x, N)  (x)
#define OCR_KEYS_IN      1 /* argmin/argmax: the input already holds keys */
#endif
typedef OCR_IN_T IN_T;
#if OCR_ARG && !defined(OCR_KEYS_IN)
#define OCR_TAKE_AT(x, i) ocr_arg_key((x), (i))
#elif OCR_ARG
#define OCR_TAKE_AT(x, i) (x)
#else
#define OCR_TAKE_AT(x, i) OCR_CVT(x)
#endif

#define OCR_CAT_(a, b) a##b
#define OCR_CAT(a, b)  OCR_CAT_(a, b)

#if !OCR_IS_FLOAT
typedef OCR_UT UT;
#endif

/* OCR_COMBINE(a, b): the operator, a the value so far and b the next one.
 * Signed overflow is undefined in OpenCL C as in C99, so integer sums and
 * products are computed in the unsigned type, which wraps, and the bits are
 * reinterpreted back. Float min and max propagate NaN, as NumPy does: b is
 * taken if it is NaN, and a NaN a is kept (fmin and fmax would drop it). A
 * compare and a select, as cheap as fmin in a loop that waits on memory. The
 * host reference does the same, bit for bit (host/lib/core/ocr_ops.h). */
#define OCR_WRAP_(a, b, o)                                                                         \
    OCR_CAT(as_, OCR_T)(OCR_CAT(as_, OCR_UT)(a) o OCR_CAT(as_, OCR_UT)(b))

#if OCR_ARG
#define OCR_COMBINE(a, b) ocr_arg_pick((a), (b))
#elif OCR_OP == OCR_OP_SUM && OCR_IS_FLOAT
#define OCR_COMBINE(a, b) ((a) + (b))
#elif OCR_OP == OCR_OP_SUM
#define OCR_COMBINE(a, b) OCR_WRAP_(a, b, +)
#elif OCR_OP == OCR_OP_PROD && OCR_IS_FLOAT
#define OCR_COMBINE(a, b) ((a) * (b))
#elif OCR_OP == OCR_OP_PROD
#define OCR_COMBINE(a, b) OCR_WRAP_(a, b, *)
#elif OCR_OP == OCR_OP_MIN && OCR_IS_FLOAT
#define OCR_COMBINE(a, b) (isnan(b) || (b) < (a) ? (b) : (a))
#elif OCR_OP == OCR_OP_MIN
#define OCR_COMBINE(a, b) min((a), (b))
#elif OCR_OP == OCR_OP_MAX && OCR_IS_FLOAT
#define OCR_COMBINE(a, b) (isnan(b) || (a) < (b) ? (b) : (a))
#elif OCR_OP == OCR_OP_MAX
#define OCR_COMBINE(a, b) max((a), (b))
#elif OCR_OP == OCR_OP_AND && !OCR_IS_FLOAT
#define OCR_COMBINE(a, b) ((a) & (b))
#elif OCR_OP == OCR_OP_OR && !OCR_IS_FLOAT
#define OCR_COMBINE(a, b) ((a) | (b))
#elif OCR_OP == OCR_OP_XOR && !OCR_IS_FLOAT
#define OCR_COMBINE(a, b) ((a) ^ (b))
#else
#error "unknown OCR_OP, or a bitwise operator on a floating-point type"
#endif

/* OCR_COMBINE_N(a, b, N): the operator on N-wide vectors (N = 2, 4, 8, 16), lane
 * by lane; the same arithmetic as OCR_COMBINE (integer sums and products wrap
 * in the unsigned vector type), for kernels that accumulate whole vectors. */
#if !OCR_IS_FLOAT && (OCR_OP == OCR_OP_SUM || OCR_OP == OCR_OP_PROD)
#if OCR_OP == OCR_OP_SUM
#define OCR_VOP_ +
#else
#define OCR_VOP_ *
#endif
#define OCR_COMBINE_N(a, b, N)                                                                     \
    OCR_CAT(as_, OCR_CAT(OCR_T, N))                                                                \
    (OCR_CAT(as_, OCR_CAT(OCR_UT, N))(a) OCR_VOP_ OCR_CAT(as_, OCR_CAT(OCR_UT, N))(b))
#else
#define OCR_COMBINE_N(a, b, N) OCR_COMBINE(a, b)
#endif

#if OCR_ARG
/* argmin and argmax combine keys, not values: T is ulong2, .x the value mapped
 * to an unsigned number that grows as the value gets better (larger for argmax,
 * smaller for argmin), .y the element's index. The larger .x wins, the smaller
 * .y breaks ties, so the first index of the extreme wins as in NumPy, in any
 * order of combining: a total order, so the tree's shape cannot matter. NaN
 * maps above every number (NumPy returns the first NaN), -0.0 to +0.0 (equal
 * values, so the first of them wins). The identity (0, ULONG_MAX) loses to
 * every element. Only the first pass reads values (OCR_IN_T); later passes
 * read the keys it wrote. */
typedef OCR_ARG_V V;
typedef OCR_ARG_VU VU;
#define VSIGN ((VU)1 << (sizeof(VU) * 8 - 1))
static inline T ocr_arg_key(V v, ulong i) {
#if OCR_ARG_VFLOAT
    VU b = OCR_CAT(as_, OCR_ARG_VU)(v == (V)0 ? (V)0 : v);
    VU o = (b & VSIGN) ? (VU)~b : (VU)(b | VSIGN);
#elif OCR_ARG_VSIGNED
    VU o = OCR_CAT(as_, OCR_ARG_VU)(v) ^ VSIGN;
#else
    VU o = v;
#endif
#if OCR_OP == OCR_OP_ARGMIN
    o = (VU)~o;
#endif
#if OCR_ARG_VFLOAT
    o = isnan(v) ? (VU)~(VU)0 : o; /* a select, not a branch */
#endif
    return (T)((ulong)o, i);
}
static inline T ocr_arg_pick(T a, T b) {
    return (b.x > a.x || (b.x == a.x && b.y < a.y)) ? b : a;
}

#ifndef OCR_KEYS_IN
/* A first pass need not key every element (reduce7's lanes): a lane that sees
 * its elements in increasing index order keeps the best value as a V and its
 * index, and makes one key at its end. The strict OCR_ARG_BETTER keeps the
 * first of equal values, as the key's index does; -0.0 == +0.0 (equal keys
 * too). OCR_ARG_WORST is no better than any value: a lane starts from it with
 * the index of its first element, which is right whether that element is
 * better (it replaces the start) or the worst too (it is the start). A lane
 * that sees no element must give the identity instead: the caller's test. */
#if OCR_ARG_VFLOAT
/* NaN beats every number and the first NaN stays: v > b || (isnan(v) &&
 * !isnan(b)) for argmax, written as one unordered compare (true for a NaN v)
 * and one test of b, the same truth table in fewer instructions. */
#if OCR_OP == OCR_OP_ARGMAX
#define OCR_ARG_WORST        ((V)(-INFINITY))
#define OCR_ARG_BETTER(v, b) (!((v) <= (b)) && !isnan(b))
#else
#define OCR_ARG_WORST        ((V)INFINITY)
#define OCR_ARG_BETTER(v, b) (!((v) >= (b)) && !isnan(b))
#endif
#elif OCR_OP == OCR_OP_ARGMAX /* the type's minimum, or 0 */
#define OCR_ARG_WORST        OCR_CAT(as_, OCR_ARG_V)((VU)(OCR_ARG_VSIGNED ? VSIGN : 0))
#define OCR_ARG_BETTER(v, b) ((v) > (b))
#else /* the type's maximum */
#define OCR_ARG_WORST        OCR_CAT(as_, OCR_ARG_V)((VU)(OCR_ARG_VSIGNED ? ~VSIGN : ~(VU)0))
#define OCR_ARG_BETTER(v, b) ((v) < (b))
#endif
/* The lane (best value b, its position at) takes value v at position j
 * (selects, not branches). */
#define OCR_ARG_TAKE(b, at, v, j)                                                                  \
    do {                                                                                           \
        const V v_ = (v);                                                                          \
        const int better_ = OCR_ARG_BETTER(v_, b);                                                 \
        b = better_ ? v_ : b;                                                                      \
        at = better_ ? (j) : at;                                                                   \
    } while (0)
#endif
#endif

/* Small types (char, uchar, short, ushort, half) are storage types: the host
 * builds them as OCR_IN_T with a wider T (char and short in long, uchar and
 * ushort in ulong, half in float), so every element is converted as it is
 * loaded and nothing is combined in the small type: no overflow below 2^47
 * elements. A char is read as a char (a 1-byte load): the kernels index
 * elements, never bytes, so any size and offset work. half without
 * cl_khr_fp16 is storage only in OpenCL C: a half pointer may exist but not
 * be dereferenced, so OCR_READ reads it with vload_half (core OpenCL since
 * 1.0: every device has it), which returns the float. OCR_VLOAD16 is the
 * 16-wide load (vload16, or vload_half16 returning a float16). */
#ifndef OCR_IN_HALF
#define OCR_IN_HALF 0
#endif
#if OCR_IN_HALF
#define OCR_READ(p, i) vload_half((i), (p))
#define OCR_VLOAD16(p) vload_half16(0, (p))
#else
#define OCR_READ(p, i) ((p)[i])
#define OCR_VLOAD16(p) vload16(0, (p))
#endif

/* Reads past the end contribute the identity, so any n works, not only
 * multiples of the block: the last work-group simply sees padding. */
static inline T ocr_load(__global const IN_T *in, ulong i, ulong n) {
    return i < n ? OCR_TAKE_AT(OCR_READ(in, i), i) : (T)(OCR_IDENTITY);
}

#endif
