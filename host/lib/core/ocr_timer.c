/* ocr_timer.c - monotonic nanosecond clock and order statistics. */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"

#include <stdlib.h>
#include <time.h>

uint64_t ocr_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values; for even n the lower middle (an observed value). */
uint64_t ocr_median_u64(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return v[(n - 1) / 2];
}

uint64_t ocr_min_u64(const uint64_t *v, size_t n) {
    uint64_t m = v[0];
    for (size_t i = 1; i < n; ++i)
        if (v[i] < m) m = v[i];
    return m;
}

void ocr_median_min_u64(uint64_t *v, size_t n, uint64_t *median, uint64_t *min) {
    *min = ocr_min_u64(v, n);
    *median = ocr_median_u64(v, n);
}
