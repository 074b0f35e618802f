/* test_split.c - the pieces of --split and --mpi that need no device:
 * ocr_data_fill_range gives exactly ocr_data_fill's elements for any share,
 * and ocr_split_shares covers the input once, equally or by weight. */
#include "ocr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

static void fill_ranges(void) {
    const uint64_t sizes[] = {1, 2, 3, 31, 32, 33, 100, 1000, 4103, 100003};
    for (int t = 0; t < OCR_NTYPES; ++t)
        for (int o = 0; o < OCR_NOPS; ++o)
            for (int k = 0; k <= OCR_DATA_ONE_SIDED; ++k)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                    if (!ocr_op_valid_for((ocr_op)o, (ocr_type)t)) continue;
                    uint64_t n = sizes[s];
                    size_t es = ocr_type_size((ocr_type)t);
                    char *whole = malloc(n * es), *part = malloc(n * es);
                    if (!whole || !part) exit(2);
                    ocr_data_fill(whole, n, (ocr_type)t, (ocr_op)o, 7, (ocr_data_kind)k);
                    /* 1, 2, 3 and 7 shares as --mpi makes them, and odd offsets */
                    for (unsigned p = 1; p <= 7; p += p < 3 ? 1 : 4) {
                        uint64_t off = 0;
                        memset(part, 0xA5, n * es);
                        for (unsigned r = 0; r < p; ++r) {
                            uint64_t c = n / p + (r < n % p);
                            ocr_data_fill_range(part + off * es, off, c, n, (ocr_type)t, (ocr_op)o,
                                                7, (ocr_data_kind)k);
                            off += c;
                        }
                        CHECK(off == n && memcmp(whole, part, n * es) == 0,
                              "%s %s %s n=%llu in %u shares differs from ocr_data_fill",
                              ocr_type_name((ocr_type)t), ocr_op_name((ocr_op)o),
                              ocr_data_kind_name((ocr_data_kind)k), (unsigned long long)n, p);
                    }
                    if (n > 40) { /* one share starting mid-block */
                        ocr_data_fill_range(part, 17, 23, n, (ocr_type)t, (ocr_op)o, 7,
                                            (ocr_data_kind)k);
                        CHECK(memcmp(whole + 17 * es, part, 23 * es) == 0,
                              "%s %s n=%llu: elements [17, 40) differ", ocr_type_name((ocr_type)t),
                              ocr_op_name((ocr_op)o), (unsigned long long)n);
                    }
                    free(part);
                    free(whole);
                }
}

static void shares(void) {
    uint64_t c[8];
    const uint64_t ns[] = {1, 2, 3, 7, 1000003, (uint64_t)1 << 40};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
        for (unsigned p = 1; p <= 8; ++p) {
            uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            ocr_split_shares(ns[i], p, NULL, c);
            for (unsigned j = 0; j < p; ++j) {
                sum += c[j];
                lo = c[j] < lo ? c[j] : lo;
                hi = c[j] > hi ? c[j] : hi;
            }
            CHECK(sum == ns[i] && hi - lo <= 1,
                  "equal shares of %llu over %u: sum %llu, %llu..%llu", (unsigned long long)ns[i],
                  p, (unsigned long long)sum, (unsigned long long)lo, (unsigned long long)hi);
        }
    const double w[3] = {3.0, 1.0, 0.0};
    ocr_split_shares(1000, 3, w, c);
    CHECK(c[0] == 750 && c[1] == 250 && c[2] == 0, "weighted 3:1:0 of 1000: %llu %llu %llu",
          (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2]);
    const double w2[3] = {1.0, 1.0, 1.0};
    ocr_split_shares(1001, 3, w2, c);
    CHECK(c[0] + c[1] + c[2] == 1001 && c[2] >= 333, "weighted 1:1:1 of 1001: %llu %llu %llu",
          (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2]);
    const double w0[2] = {0.0, 0.0}; /* no rate measured: equal */
    ocr_split_shares(5, 2, w0, c);
    CHECK(c[0] == 3 && c[1] == 2, "zero weights of 5: %llu %llu", (unsigned long long)c[0],
          (unsigned long long)c[1]);
}

int main(void) {
    fill_ranges();
    shares();
    if (failures) return 1;
    printf("ok: ocr_data_fill_range = ocr_data_fill for every share; shares cover the input\n");
    return 0;
}
