/* test_types.c - operators, identities, seeded data and the float check. */
#include "check.h"
#include "ocr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sums of x[0..n) in float or double, in four orders: forward, backward,
 * pairwise tree, and 7 interleaved strided accumulators. */
#define ORDERS(TY, NAME)                                                                           \
    static TY NAME##_tree(const TY *x, uint64_t n) {                                               \
        return n == 1 ? x[0] : NAME##_tree(x, n / 2) + NAME##_tree(x + n / 2, n - n / 2);          \
    }                                                                                              \
    static void NAME##_orders(const TY *x, uint64_t n, TY out[4]) {                                \
        TY fw = 0, bw = 0, acc[7] = {0}, st = 0;                                                   \
        for (uint64_t i = 0; i < n; ++i)                                                           \
            fw += x[i], bw += x[n - 1 - i], acc[i % 7] += x[i];                                    \
        for (int k = 0; k < 7; ++k)                                                                \
            st += acc[k];                                                                          \
        out[0] = fw, out[1] = bw, out[2] = NAME##_tree(x, n), out[3] = st;                         \
    }
ORDERS(float, f)
ORDERS(double, d)

/* Exact data: the reference is exact, four summation orders agree with it
 * bit for bit, and a lost, doubled or changed element changes the answer. */
static void exact_data(void) {
    static const uint64_t sizes[] = {1, 3, 4096, 4103, 1000001, (uint64_t)1 << 25};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        uint64_t n = sizes[si];
        float *x = malloc(n * sizeof *x);
        double *y = malloc(n * sizeof *y);
        CHECK(x && y);
        if (!x || !y) return;
        ocr_data_fill(x, n, OCR_FLOAT, OCR_SUM, 1, OCR_DATA_EXACT);
        ocr_data_fill(y, n, OCR_DOUBLE, OCR_SUM, 1, OCR_DATA_EXACT);
        ocr_reference rf, rd, drop;
        ocr_reference_make(x, n, OCR_FLOAT, OCR_SUM, 99, OCR_DATA_EXACT, &rf);
        ocr_reference_make(y, n, OCR_DOUBLE, OCR_SUM, 99, OCR_DATA_EXACT, &rd);
        CHECK(rf.tolerance == 0 && rd.tolerance == 0 && rd.any_order);
        CHECK(rf.any_order == (n <= (1u << 23))); /* see ocr_data_fill */
        float fo[4];
        double dd[4];
        f_orders(x, n, fo);
        d_orders(y, n, dd);
        for (int k = 0; k < 4; ++k) {
            CHECK(fo[k] == rf.expected.f);
            CHECK(dd[k] == rd.expected.d);
        }
        uint64_t zeros = 0;
        for (uint64_t i = 0; i < n; ++i)
            zeros += x[i] == 0 || y[i] == 0;
        CHECK(zeros == 0);
        /* Drop the last element, then count it twice: both must fail. */
        if (n > 1) {
            ocr_reference_make(x, n - 1, OCR_FLOAT, OCR_SUM, 99, OCR_DATA_EXACT, &drop);
            CHECK(!ocr_check(OCR_FLOAT, &rf, drop.expected));
            ocr_reference_make(y, n - 1, OCR_DOUBLE, OCR_SUM, 99, OCR_DATA_EXACT, &drop);
            CHECK(!ocr_check(OCR_DOUBLE, &rd, drop.expected));
        }
        ocr_value twice = {.f = rf.expected.f + x[n - 1]};
        CHECK(!ocr_check(OCR_FLOAT, &rf, twice));
        free(x);
        free(y);
    }
    /* Products: powers of two, exact in any order; every element matters up
     * to 200 elements (float). */
    float p[200];
    ocr_data_fill(p, 200, OCR_FLOAT, OCR_PROD, 9, OCR_DATA_EXACT);
    ocr_reference rp, rq;
    ocr_reference_make(p, 200, OCR_FLOAT, OCR_PROD, 0, OCR_DATA_EXACT, &rp);
    float fw = 1, bw = 1;
    for (int i = 0; i < 200; ++i)
        fw *= p[i], bw *= p[199 - i];
    CHECK(rp.tolerance == 0 && fw == rp.expected.f && bw == rp.expected.f);
    for (int drop_at = 0; drop_at < 200; drop_at += 37) {
        float q[200];
        memcpy(q, p, sizeof q);
        q[drop_at] = 1; /* as if the element were lost */
        ocr_reference_make(q, 200, OCR_FLOAT, OCR_PROD, 0, OCR_DATA_EXACT, &rq);
        CHECK(!ocr_check(OCR_FLOAT, &rp, rq.expected));
    }
    /* Errors in ulps: one ulp of 1.0f is 2^-23. */
    ocr_value e1 = {.f = 1.0f}, g1 = {.f = 1.0f + 0x1p-23f};
    CHECK(ocr_error_ulps(OCR_FLOAT, e1, g1) == 1.0);
}

int main(void) {
    /* The identity really is one: combine(identity, x) == x for every type/op. */
    for (int t = 0; t < OCR_NTYPES; ++t)
        for (int o = 0; o < OCR_NOPS; ++o) {
            if (!ocr_op_valid_for((ocr_op)o, (ocr_type)t)) continue;
            if (ocr_type_is_storage((ocr_type)t)) continue; /* values are the accumulator's */
            unsigned char buf[8 * 64];
            ocr_data_fill(buf, 64, (ocr_type)t, (ocr_op)o, 42, (ocr_data_kind)(t % 2));
            for (int i = 0; i < 64; ++i) {
                ocr_value x, r;
                memset(&x, 0, sizeof x);
                memcpy(&x, buf + i * ocr_type_size((ocr_type)t), ocr_type_size((ocr_type)t));
                r = ocr_combine((ocr_type)t, (ocr_op)o, ocr_identity((ocr_type)t, (ocr_op)o), x);
                CHECK(memcmp(&r, &x, ocr_type_size((ocr_type)t)) == 0);
            }
        }
    /* Wrap-around is defined: INT_MAX + 1 == INT_MIN, in the unsigned type. */
    ocr_value a = {.i = INT32_MAX}, b = {.i = 1}, r;
    r = ocr_combine(OCR_INT, OCR_SUM, a, b);
    CHECK(r.i == INT32_MIN);
    a.l = INT64_MIN, b.l = -1;
    r = ocr_combine(OCR_LONG, OCR_PROD, a, b);
    CHECK(r.l == INT64_MIN);
    a.i = -5, b.i = 3;
    CHECK(ocr_combine(OCR_INT, OCR_MIN, a, b).i == -5);
    a.u = 0xFFFFFFFBu, b.u = 3; /* the same bits, unsigned */
    CHECK(ocr_combine(OCR_UINT, OCR_MIN, a, b).u == 3);

    /* Seeded data is reproducible and prefix-stable; another seed differs. */
    enum { N = 1000 };
    int32_t x1[N], x2[N], x3[N];
    ocr_data_fill(x1, N, OCR_INT, OCR_SUM, 7, OCR_DATA_EXACT);
    ocr_data_fill(x2, N, OCR_INT, OCR_SUM, 7, OCR_DATA_EXACT);
    ocr_data_fill(x3, N, OCR_INT, OCR_SUM, 8, OCR_DATA_EXACT);
    CHECK(memcmp(x1, x2, sizeof x1) == 0);
    CHECK(memcmp(x1, x3, sizeof x1) != 0);
    ocr_data_fill(x2, N / 2, OCR_INT, OCR_SUM, 7, OCR_DATA_EXACT);
    CHECK(memcmp(x1, x2, sizeof x1 / 2) == 0);

    /* Uniform float check: the reference passes itself, an answer off by one
     * element fails at small n, and the bound grows with the plan's depth. */
    static float f[4096];
    ocr_data_fill(f, 4096, OCR_FLOAT, OCR_SUM, 3, OCR_DATA_UNIFORM);
    ocr_reference ref;
    ocr_reference_make(f, 4096, OCR_FLOAT, OCR_SUM, 12, OCR_DATA_UNIFORM, &ref);
    CHECK(ocr_check(OCR_FLOAT, &ref, ref.expected));
    ocr_value off = ref.expected;
    off.f += 0.25f;
    CHECK(!ocr_check(OCR_FLOAT, &ref, off));
    ocr_value nan = {.f = NAN};
    CHECK(!ocr_check(OCR_FLOAT, &ref, nan));
    ocr_reference deep;
    ocr_reference_make(f, 4096, OCR_FLOAT, OCR_SUM, 4095, OCR_DATA_UNIFORM, &deep);
    CHECK(deep.tolerance > ref.tolerance && ref.tolerance > 0);
    /* Products stay finite and away from 0 for large n. */
    enum { NP = 1 << 20 };
    float *pr = malloc(NP * sizeof *pr);
    ocr_data_fill(pr, NP, OCR_FLOAT, OCR_PROD, 5, OCR_DATA_UNIFORM);
    ocr_reference_make(pr, NP, OCR_FLOAT, OCR_PROD, 0, OCR_DATA_UNIFORM, &ref);
    CHECK(isfinite(ref.expected.f) && ref.expected.f > 1e-30f && ref.expected.f < 1e30f);
    free(pr);
    /* Integers are exact. */
    ocr_reference_make(x1, N, OCR_INT, OCR_SUM, 0, OCR_DATA_EXACT, &ref);
    CHECK(ref.tolerance == 0);
    ocr_value got = ref.expected;
    CHECK(ocr_check(OCR_INT, &ref, got));
    got.i += 1;
    CHECK(!ocr_check(OCR_INT, &ref, got));
    exact_data();
    return check_summary("test_types");
}
