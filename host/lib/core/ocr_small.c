/* ocr_small.c - the storage types (char, uchar, short, ushort, half) on the
 * host: half <-> float conversion, exact and portable (no _Float16), and the
 * loops that read small elements and combine them in the accumulator
 * (ocr_type_accumulator), as the kernels do: the naive loop and the widened
 * copy the reference is computed from. argmin/argmax compare the elements
 * themselves (ocr_arg.c). */
#include "ocr_internal.h"
#include "ocr_ops.h"

#include <math.h>
#include <string.h>

float ocr_half_to_float(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, -24); /* subnormal: m 2^-24, exact */
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return sign ? -v : v;
}

/* Rounds to nearest, ties to even; overflow to infinity, NaN stays NaN. */
uint16_t ocr_float_to_half(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    float a = fabsf(f);
    if (isnan(f)) return (uint16_t)(sign | 0x7E00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7C00u); /* rounds past 65504 */
    int e;
    frexpf(a, &e); /* a = f' 2^e, f' in [0.5, 1) */
    /* the spacing of halves at a: 2^(e - 11), at least 2^-24 (subnormals) */
    int q = e - 11 < -24 ? -24 : e - 11;
    float m = ldexpf(a, -q);  /* exact: a scaled by a power of two */
    float r = rintf(m);       /* ties to even in the default rounding mode */
    uint32_t k = (uint32_t)r; /* the value is k 2^q */
    if (k == 0) return sign;
    /* normalise: k in [1024, 2048) for normal numbers */
    if (k >= 2048) k >>= 1, ++q;
    int he = q + 25;                           /* biased exponent of k 2^q with k in [1024, 2048) */
    if (k < 1024) return (uint16_t)(sign | k); /* subnormal (q == -24) */
    if (he >= 31) return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (uint16_t)(he << 10) | (uint16_t)(k - 1024));
}

/* Element i of small data as a value of the accumulator. */
static ocr_value widen_one(const void *data, uint64_t i, ocr_type t) {
    ocr_value v;
    memset(&v, 0, sizeof v);
    switch (t) {
    case OCR_CHAR:
        v.l = ((const int8_t *)data)[i];
        break;
    case OCR_UCHAR:
        v.ul = ((const uint8_t *)data)[i];
        break;
    case OCR_SHORT:
        v.l = ((const int16_t *)data)[i];
        break;
    case OCR_USHORT:
        v.ul = ((const uint16_t *)data)[i];
        break;
    default:
        v.f = ocr_half_to_float(((const uint16_t *)data)[i]);
        break;
    }
    return v;
}

void ocr_small_widen(const void *data, uint64_t n, ocr_type t, void *out) {
    size_t as = ocr_type_size(ocr_type_accumulator(t));
    for (uint64_t i = 0; i < n; ++i) {
        ocr_value v = widen_one(data, i, t);
        memcpy((char *)out + i * as, &v, as);
    }
}

/* The naive loop over small data, combined in the accumulator. */
#define SMALL_LOOP(TY, FIELD, EXPR)                                                                \
    do {                                                                                           \
        TY a = id.FIELD;                                                                           \
        for (uint64_t i = 0; i < n; ++i) {                                                         \
            TY v = (TY)widen_one(data, i, t).FIELD;                                                \
            a = (EXPR);                                                                            \
        }                                                                                          \
        r.FIELD = a;                                                                               \
    } while (0)

ocr_value ocr_small_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o) {
    /* argmin/argmax: keys of the elements themselves (ocr_arg.c), the value
     * reported as the accumulator's */
    if (ocr_op_is_arg(o)) return ocr_arg_reduce(data, n, t, o);
    ocr_type acc = ocr_type_accumulator(t);
    ocr_value r, id = ocr_identity(acc, o);
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(acc, o, SMALL_LOOP)
    return r;
}
