/* test_types.c - operators, identities, seeded data and the float check. */
#include "check.h"
#include "ocr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    /* The identity really is one: combine(identity, x) == x for every type/op. */
    for (int t = 0; t < OCR_NTYPES; ++t)
        for (int o = 0; o < OCR_NOPS; ++o) {
            if (!ocr_op_valid_for((ocr_op)o, (ocr_type)t)) continue;
            unsigned char buf[8 * 64];
            ocr_data_fill(buf, 64, (ocr_type)t, (ocr_op)o, 42);
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
    ocr_data_fill(x1, N, OCR_INT, OCR_SUM, 7);
    ocr_data_fill(x2, N, OCR_INT, OCR_SUM, 7);
    ocr_data_fill(x3, N, OCR_INT, OCR_SUM, 8);
    CHECK(memcmp(x1, x2, sizeof x1) == 0);
    CHECK(memcmp(x1, x3, sizeof x1) != 0);
    ocr_data_fill(x2, N / 2, OCR_INT, OCR_SUM, 7);
    CHECK(memcmp(x1, x2, sizeof x1 / 2) == 0);

    /* Float check: the reference passes itself, an answer off by one element
     * fails at small n, and the bound grows with the plan's depth. */
    static float f[4096];
    ocr_data_fill(f, 4096, OCR_FLOAT, OCR_SUM, 3);
    ocr_reference ref;
    ocr_reference_make(f, 4096, OCR_FLOAT, OCR_SUM, 12, &ref);
    CHECK(ocr_check(OCR_FLOAT, &ref, ref.expected));
    ocr_value off = ref.expected;
    off.f += 0.25f;
    CHECK(!ocr_check(OCR_FLOAT, &ref, off));
    ocr_value nan = {.f = NAN};
    CHECK(!ocr_check(OCR_FLOAT, &ref, nan));
    ocr_reference deep;
    ocr_reference_make(f, 4096, OCR_FLOAT, OCR_SUM, 4095, &deep);
    CHECK(deep.tolerance > ref.tolerance && ref.tolerance > 0);
    /* Products stay finite and away from 0 for large n. */
    enum { NP = 1 << 20 };
    float *pr = malloc(NP * sizeof *pr);
    ocr_data_fill(pr, NP, OCR_FLOAT, OCR_PROD, 5);
    ocr_reference_make(pr, NP, OCR_FLOAT, OCR_PROD, 0, &ref);
    CHECK(isfinite(ref.expected.f) && ref.expected.f > 1e-30f && ref.expected.f < 1e30f);
    free(pr);
    /* Integers are exact. */
    ocr_reference_make(x1, N, OCR_INT, OCR_SUM, 0, &ref);
    CHECK(ref.tolerance == 0);
    ocr_value got = ref.expected;
    CHECK(ocr_check(OCR_INT, &ref, got));
    got.i += 1;
    CHECK(!ocr_check(OCR_INT, &ref, got));
    return check_summary("test_types");
}
