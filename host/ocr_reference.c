/* ocr_reference.c - seeded input, the naive CPU loop, the reference the check
 * trusts, and the check itself. */
#include "ocr.h"
#include "ocr_ops.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Counter-based generator (splitmix64 of seed and index): element i depends on
 * (seed, i) only, so the input for a size N is a prefix of the input for any
 * larger size, and a failure can be replayed from the seed alone. */
static uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform double in [-1, 1) with 53 random bits. */
static double unit(uint64_t r) {
    return (double)(r >> 11) * 0x1.0p-52 - 1.0;
}

/* One element for (type, op). The choices keep every result informative:
 *  sum   small integers, or floats in [-1, 1), so a lost element shows;
 *  prod  odd integers (the product never collapses to 0 mod 2^k), or floats
 *        within sqrt(n)-scaled distance of 1 (the product neither overflows nor
 *        underflows);
 *  and   all ones but for rare single cleared bits (about 16 over the input),
 *  or    zero but for rare single set bits, so each rare element matters;
 *  xor, min, max: random over a wide range. */
static void element(void *dst, uint64_t i, ocr_type t, ocr_op o, uint64_t seed, uint64_t n) {
    uint64_t r = mix(seed, i), r2 = mix(seed ^ 0x5bd1e995u, i);
    unsigned bits = (unsigned)ocr_type_size(t) * 8;
    uint64_t rare = n / 16 > 2 ? n / 16 : 2;
    uint64_t iv = 0;
    double dv = 0;
    switch (o) {
    case OCR_SUM:
        iv = (t == OCR_INT || t == OCR_LONG) ? (uint64_t)((int64_t)(r % 2048) - 1024) : r % 2048;
        dv = unit(r);
        break;
    case OCR_PROD: {
        iv = 2 * (r % 8) + 1;
        if ((t == OCR_INT || t == OCR_LONG) && (r2 & 1)) iv = (uint64_t)(-(int64_t)iv);
        double w = 2.0 / sqrt((double)n);
        if (w > 1.0 / 256) w = 1.0 / 256;
        dv = 1.0 + w * unit(r2);
        break;
    }
    case OCR_AND:
        iv = (r % rare == 0) ? ~(1ull << (r2 % bits)) : ~0ull;
        break;
    case OCR_OR:
        iv = (r % rare == 0) ? (1ull << (r2 % bits)) : 0;
        break;
    default: /* min, max, xor */
        iv = r;
        dv = unit(r) * 1.0e6;
        break;
    }
    switch (t) {
    case OCR_INT:
    case OCR_UINT: {
        uint32_t v = (uint32_t)iv;
        memcpy(dst, &v, 4);
        break;
    }
    case OCR_LONG:
    case OCR_ULONG:
        memcpy(dst, &iv, 8);
        break;
    case OCR_FLOAT: {
        float v = (float)dv;
        memcpy(dst, &v, 4);
        break;
    }
    default:
        memcpy(dst, &dv, 8);
        break;
    }
}

void ocr_data_fill(void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t seed) {
    size_t es = ocr_type_size(t);
    for (uint64_t i = 0; i < n; ++i)
        element((char *)data + i * es, i, t, o, seed, n);
}

/* The naive loop, one tight loop per (type, operator) so that T ref measures
 * the loop and not a switch. */
#define NAIVE(TY, FIELD, EXPR)                                                                     \
    do {                                                                                           \
        const TY *x = (const TY *)data;                                                            \
        TY a = id.FIELD;                                                                           \
        for (uint64_t i = 0; i < n; ++i) {                                                         \
            TY v = x[i];                                                                           \
            a = (EXPR);                                                                            \
        }                                                                                          \
        r.FIELD = a;                                                                               \
    } while (0)

ocr_value ocr_reduce_naive(const void *data, uint64_t n, ocr_type t, ocr_op o) {
    ocr_value r, id = ocr_identity(t, o);
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(t, o, NAIVE, OCR_FMIN, OCR_FMAX)
    return r;
}

/*
 * Floating-point reference and tolerance.
 *
 * The reference is computed in long double: sum with Kahan compensation,
 * product as a plain long double product (its roundings are 2^11 times smaller
 * than a double's, far below the tolerance).
 *
 * The bound is the rigorous one, with no assumption about how rounding errors
 * distribute. With u the unit roundoff (FLT_EPSILON/2 or DBL_EPSILON/2) and
 * g(d) = (1 + u)^d - 1 (which is ~ d u while d u is small, and never undefined):
 *
 *   sum   |device - exact| <= g(d) * sum |x_i|, where d is the plan's depth: the
 *         longest chain of additions any input goes through (tree levels per
 *         pass, each work-item's sequential run, the CPU finish);
 *   prod  |device - exact| <= g(n - 1) * |exact|: every one of the n - 1
 *         multiplications rounds, whatever the order.
 *
 * Both get a floor of 4 u |reference| for the final rounding to the type.
 *
 * We measured why no tighter "probabilistic" bound (lambda sqrt(n) u) is used:
 * a float tree product of 2^25 values near 1 came out 13% off on POCL, while a
 * sequential loop was 0.06% off. In a tree the lowest levels multiply values
 * that straddle 1.0, where the float spacing halves, so rounding errors are
 * biased and add up instead of cancelling. For float products at large n the
 * rigorous bound is loose (it exceeds 100% past n ~ 2^24); integer products
 * (exact) are what catch logic errors there.
 *
 * min and max are exact for every type. NaN or Inf in the result fails unless
 * the input holds them.
 */
static double growth(double d, double u) {
    return expm1(d * log1p(u));
}

void ocr_reference_make(const void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t depth,
                        ocr_reference *ref) {
    memset(ref, 0, sizeof *ref);
    if (!ocr_type_is_float(t) || o == OCR_MIN || o == OCR_MAX) {
        ref->expected = ocr_reduce_naive(data, n, t, o); /* exact */
        return;
    }
    int fl = t == OCR_FLOAT;
    double u = (fl ? FLT_EPSILON : DBL_EPSILON) / 2;
    long double s = 0, c = 0, p = 1, abs_sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
        long double x =
            fl ? (long double)((const float *)data)[i] : (long double)((const double *)data)[i];
        if (!isfinite((double)x)) ref->nonfinite_input = 1;
        if (o == OCR_SUM) {
            long double y = x - c, tt = s + y; /* Kahan */
            c = (tt - s) - y;
            s = tt;
            abs_sum += fabsl(x);
        } else if (o == OCR_PROD) {
            p *= x;
        }
    }
    long double val = o == OCR_SUM ? s : p;
    if (fl)
        ref->expected.f = (float)val;
    else
        ref->expected.d = (double)val;
    double floor_tol = 4 * u * fabs((double)val);
    double tol = o == OCR_SUM ? growth((double)depth, u) * (double)abs_sum
                              : growth((double)(n - 1), u) * fabs((double)val);
    ref->tolerance = tol > floor_tol ? tol : floor_tol;
}

int ocr_check(ocr_type t, const ocr_reference *ref, ocr_value got) {
    if (!ocr_type_is_float(t) || ref->tolerance == 0) {
        if (t == OCR_FLOAT)
            return got.f == ref->expected.f || (isnan(got.f) && isnan(ref->expected.f));
        if (t == OCR_DOUBLE)
            return got.d == ref->expected.d || (isnan(got.d) && isnan(ref->expected.d));
        return ocr_type_size(t) == 4 ? got.u == ref->expected.u : got.ul == ref->expected.ul;
    }
    double g = t == OCR_FLOAT ? (double)got.f : got.d;
    double e = t == OCR_FLOAT ? (double)ref->expected.f : ref->expected.d;
    if (!isfinite(g)) return ref->nonfinite_input && !isfinite(e);
    return fabs(g - e) <= ref->tolerance;
}
