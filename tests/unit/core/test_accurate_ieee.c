/*
 * test_accurate_ieee.c - accurate sums through the reducer (C API) follow
 * IEEE on data with infinities, NaNs and the type's largest values: the
 * answer IEEE arithmetic on the exact sum gives (NaN where a NaN is or +inf
 * meets -inf, an infinity where one is or the exact sum overflows, else the
 * correctly rounded exact sum). Before, [1, inf], [3e38, 3e38] and
 * [FLT_MAX, FLT_MAX, -FLT_MAX] gave NaN.
 *
 * The oracle knows each data set's exact sum without adding in floating
 * point: small integers (an exact integer sum S) and P values +MAX, M values
 * -MAX spread over the array, so the exact sum is (P - M) MAX + S: S where
 * P = M, +-MAX where |P - M| = 1 (|S| is far below half an ulp of MAX),
 * +-inf past that. Blocking and asynchronous calls, float and double, at
 * several sizes and geometries (one launch; the last group's finish;
 * launches of accumulators; a single work-item).
 *
 *   test_accurate_ieee [small]   (small: the sizes oclgrind can run)
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "ocr.h"

#include <float.h>
#include <math.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

enum special { NONE, PINF, NINF, BOTH_INF, NAN_IN };

/* x[0..n) of type t: integers in [-8, 8], p of +MAX and m of -MAX at
 * scattered places, and the special; *want its IEEE sum. */
static void make(double *x, uint64_t n, int p, int m, enum special sp, int fl, double *want) {
    const double big = fl ? (double)FLT_MAX : DBL_MAX;
    uint64_t r = 88172645463325252ull, s = 0;
    long long sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        x[i] = (double)((long long)(r % 17) - 8);
    }
    for (int k = 0; k < p + m && (uint64_t)k < n; ++k) { /* distinct places */
        s = (s + 2654435761u) % n;
        while (fabs(x[s]) > 8)
            s = (s + 1) % n;
        x[s] = k < p ? big : -big;
    }
    for (uint64_t i = 0; i < n; ++i)
        if (fabs(x[i]) <= 8) sum += (long long)x[i];
    int net = p - m;
    *want = net == 0 ? (double)sum : abs(net) == 1 ? net * big : net * INFINITY;
    if (sp == NONE || n < 3) return;
    x[n / 2] = sp == NINF ? -INFINITY : sp == NAN_IN ? NAN : INFINITY;
    if (sp == BOTH_INF) x[n - 1] = -INFINITY;
    *want = sp == PINF ? INFINITY : sp == NINF ? -INFINITY : NAN;
}

static int same(double got, double want) {
    return (isnan(got) && isnan(want)) || got == want;
}

static void run_case(ocr_reducer *r, ocr_type t, uint64_t n, int p, int m, enum special sp) {
    const int fl = t == OCR_FLOAT;
    double *x = malloc(n * sizeof *x), want;
    float *xf = malloc(n * sizeof *xf);
    make(x, n, p, m, sp, fl, &want);
    for (uint64_t i = 0; i < n; ++i)
        xf[i] = (float)x[i];
    cl_int err;
    size_t bytes = n * (fl ? sizeof(float) : sizeof(double));
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                              fl ? (void *)xf : (void *)x, &err);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, NULL, &err);
    ocr_value v, a;
    memset(&a, 0, sizeof a);
    ocr_status st = ocr_reducer_reduce(r, q, b, 0, n, &v);
    ocr_status sa = ocr_reducer_reduce_async(r, q, b, 0, n, res, 0, NULL, NULL);
    if (sa == OCR_OK) clEnqueueReadBuffer(q, res, CL_TRUE, 0, 8, &a, 0, NULL, NULL);
    double gv = fl ? (double)v.f : v.d, ga = fl ? (double)a.f : a.d;
    int ok = st == OCR_OK && sa == OCR_OK && same(gv, want) && same(ga, want);
    CHECK(ok);
    if (!ok)
        printf("FAIL %s n=%llu +MAX x%d -MAX x%d special %d: got %.17g (async %.17g), want "
               "%.17g\n",
               ocr_type_name(t), (unsigned long long)n, p, m, (int)sp, gv, ga, want);
    clReleaseMemObject(res), clReleaseMemObject(b);
    free(x), free(xf);
}

int main(int argc, char **argv) {
    const int small = argc > 1 && strcmp(argv[1], "small") == 0;
    CL_OPEN_FIRST(dev, ctx, q);
    static const uint64_t sizes[] = {1, 2, 3, 5, 37, 4103, 100003};
    static const size_t geo[][2] = {{0, 0}, {7, 4}, {1500, 1}, {1, 1}}; /* groups, local size */
    static const int pm[][2] = {{0, 0}, {1, 0}, {2, 0},   {0, 2},   {2, 1},  {1, 2},
                                {5, 5}, {6, 5}, {40, 40}, {41, 40}, {40, 42}};
    const ocr_type types[] = {OCR_FLOAT, OCR_DOUBLE};
    for (size_t ti = 0; ti < 2; ++ti)
        for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; ++gi) {
            ocr_reducer_options o = {
                .groups = geo[gi][0], .local_size = geo[gi][1], .accurate = 1, .ignore_tuning = 1};
            ocr_reducer *r = NULL;
            ocr_status st = ocr_reducer_create(ctx, dev, types[ti], OCR_SUM, &o, &r);
            if (st != OCR_OK && types[ti] == OCR_DOUBLE) {
                printf("skip double: %s\n", ocr_reducer_last_error(NULL));
                break;
            }
            CHECK(st == OCR_OK);
            if (st != OCR_OK) continue;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                uint64_t n = sizes[si];
                if (small && n > 4103) continue;
                if (geo[gi][0] == 1 && n > 4103) continue; /* one work-item: slow */
                for (size_t k = 0; k < sizeof pm / sizeof pm[0]; ++k)
                    if ((uint64_t)(pm[k][0] + pm[k][1]) <= n)
                        for (int sp = NONE; sp <= NAN_IN; ++sp)
                            if (sp == NONE || n >= 3)
                                run_case(r, types[ti], n, pm[k][0], pm[k][1], sp);
            }
            ocr_reducer_release(r);
        }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary("test_accurate_ieee");
}
