/*
 * ocr_ops.h - one switch over (type, operator) for every host-side loop that
 * applies an operator: the naive loop, the optimized CPU baseline and the
 * single combine. Each defines BODY(TY, FIELD, EXPR), where EXPR combines an
 * accumulator `a` with an element `v` of type TY and FIELD names the member
 * of ocr_value, and then writes OCR_DISPATCH(t, o, BODY, FMIN, FMAX).
 *
 * Integer sum, product and bitwise operators run in the unsigned type, which
 * wraps, as the kernels do (reduce_common.h). Float min and max propagate
 * NaN, as NumPy's and the kernels' do (OCR_FMIN, OCR_FMAX).
 */
#ifndef OCR_OPS_H
#define OCR_OPS_H

/* clang-format off: one case per line reads best here */

#define OCR_INT_OPS_(o, BODY, TY, UTY, F, UF)                                                      \
    switch (o) {                                                                                   \
    case OCR_SUM:                                                                                  \
        BODY(UTY, UF, a + v);                                                                      \
        break;                                                                                     \
    case OCR_PROD:                                                                                 \
        BODY(UTY, UF, a *v);                                                                       \
        break;                                                                                     \
    case OCR_MIN:                                                                                  \
        BODY(TY, F, v < a ? v : a);                                                                \
        break;                                                                                     \
    case OCR_MAX:                                                                                  \
        BODY(TY, F, a < v ? v : a);                                                                \
        break;                                                                                     \
    case OCR_AND:                                                                                  \
        BODY(UTY, UF, a &v);                                                                       \
        break;                                                                                     \
    case OCR_OR:                                                                                   \
        BODY(UTY, UF, a | v);                                                                      \
        break;                                                                                     \
    default:                                                                                       \
        BODY(UTY, UF, a ^ v);                                                                      \
        break;                                                                                     \
    }

#define OCR_FLOAT_OPS_(o, BODY, TY, F)                                                             \
    switch (o) {                                                                                   \
    case OCR_SUM:                                                                                  \
        BODY(TY, F, a + v);                                                                        \
        break;                                                                                     \
    case OCR_PROD:                                                                                 \
        BODY(TY, F, a *v);                                                                         \
        break;                                                                                     \
    case OCR_MIN:                                                                                  \
        BODY(TY, F, OCR_FMIN(a, v));                                                               \
        break;                                                                                     \
    default:                                                                                       \
        BODY(TY, F, OCR_FMAX(a, v));                                                               \
        break;                                                                                     \
    }

#define OCR_DISPATCH(t, o, BODY)                                                                   \
    switch (t) {                                                                                   \
    case OCR_INT:                                                                                  \
        OCR_INT_OPS_(o, BODY, int32_t, uint32_t, i, u) break;                                      \
    case OCR_UINT:                                                                                 \
        OCR_INT_OPS_(o, BODY, uint32_t, uint32_t, u, u) break;                                     \
    case OCR_LONG:                                                                                 \
        OCR_INT_OPS_(o, BODY, int64_t, uint64_t, l, ul) break;                                     \
    case OCR_ULONG:                                                                                \
        OCR_INT_OPS_(o, BODY, uint64_t, uint64_t, ul, ul) break;                                   \
    case OCR_FLOAT:                                                                                \
        OCR_FLOAT_OPS_(o, BODY, float, f) break;                                                   \
    default:                                                                                       \
        OCR_FLOAT_OPS_(o, BODY, double, d) break;                                                  \
    }

/* Float minimum and maximum of an accumulator a and an element v: a NaN
 * element is taken and a NaN accumulator kept, so a NaN anywhere is the
 * result (NumPy's rule, and the kernels': cl/reduce_common.h). Plain
 * comparisons and a select, which vectorize (the CPU baseline relies on it). */
#define OCR_FMIN(a, v) ((v) != (v) || (v) < (a) ? (v) : (a))
#define OCR_FMAX(a, v) ((v) != (v) || (a) < (v) ? (v) : (a))

/* clang-format on */
#endif
