/*
 * test_custom.c - custom reducers (ocr_reducer_create_custom,
 * host/lib/reducer/ocr_custom.c, cl/custom.cl) against host loops.
 *
 *   test_custom types SEED     every type a spec takes (half excepted; double
 *                              where the device has fp64), as argument and as
 *                              result: a max in the type, a sum widened to
 *                              long/ulong (exact) or in float/double, over n
 *                              of 0 .. 2^20 + 7 (sizes below, at and past a
 *                              group's and a grid's), offsets 0 and 5
 *   test_custom exprs SEED     dot (two buffers, offsets), a scalar argument,
 *                              max-abs, count of nonzero, no argument at all,
 *                              a struct (count, mean, M2: Chan's merge), NaN
 *                              (a sum propagates it, fmax drops it), the
 *                              buffer calls on a one-buffer spec
 *   test_custom calls SEED     into with a user-event wait list, a done event
 *                              and guards, an out-of-order queue, the usage
 *                              errors (bounds, overlap, segments, strided)
 *   test_custom refusals       bad expressions (OCR_BUILD naming the text),
 *                              reserved names, '#', ')' and comment injection
 *                              (OCR_USAGE), and a reducer built after them
 *   test_custom few SEED       dot, scalars, NaN and the calls on
 *                              n up to 1001 (for oclgrind: races,
 *                              uninitialized values, bounds)
 *   test_custom launches       how many kernels a multi-group call launches
 *                              (ocr_reducer_custom_launches): one where the
 *                              device lets the last group finish (POCL,
 *                              Intel's CPU runtime, NVIDIA's), two with
 *                              -cl-std=CL1.2 in TEST_CUSTOM_OPTIONS (the
 *                              caller chose the language) or elsewhere;
 *                              and ocr_reducer_custom_finish states that rule;
 *                              prints "one launch" or "two launches"; the
 *                              answers alike either way
 *   test_custom cache K        one process: maps x[i] and 2*x[i] differ; with
 *                              K: prints the sum of K*x[i] (cache_test runs
 *                              two processes on one disk cache)
 *
 * TEST_CUSTOM_KERNEL_DIR: build custom.cl from there (the mutants);
 * TEST_CUSTOM_OPTIONS: their build options (-cl-std=CL1.2: two launches);
 * TEST_CUSTOM_LOCAL, TEST_CUSTOM_GROUPS: the reducers' local_size and groups
 * (on a CPU, groups of more than one work-item take the GPU's coalesced
 * walk). The library prints nothing; POCL's compiler itself writes "N errors
 * generated." to stderr for the builds that must fail (refusals).
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static int has_fp64;
static uint64_t rng;

static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static const uint64_t all_sizes[] = {0,   1,   2,   3,    63,   64,     65,
                                     255, 256, 257, 1000, 4097, 100003, (1u << 20) + 7};
static const uint64_t few_sizes[] = {0, 1, 7, 8, 9, 23, 24, 25, 200, 1001};
static const uint64_t *sizes = all_sizes;
static size_t NSIZES = sizeof all_sizes / sizeof all_sizes[0];
static uint64_t big = 100003; /* the scalar cases' n */
#define MAXN ((1u << 20) + 7 + 5)

static ocr_reducer_options options(void) {
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.kernel_dir = getenv("TEST_CUSTOM_KERNEL_DIR");
    o.build_options = getenv("TEST_CUSTOM_OPTIONS");
    if (getenv("TEST_CUSTOM_LOCAL")) o.local_size = strtoull(getenv("TEST_CUSTOM_LOCAL"), NULL, 0);
    if (getenv("TEST_CUSTOM_GROUPS")) o.groups = strtoull(getenv("TEST_CUSTOM_GROUPS"), NULL, 0);
    return o;
}

static ocr_reducer *make(const ocr_custom_spec *sp) {
    ocr_reducer *r = NULL;
    ocr_reducer_options o = options();
    ocr_status st = ocr_reducer_create_custom(ctx, dev, sp, &o, &r);
    EXPECT(st == OCR_OK, "create: %s: %s", ocr_status_name(st), ocr_reducer_last_error(NULL));
    return r;
}

static cl_mem buffer(const void *host, size_t bytes) {
    cl_int e;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes ? bytes : 1,
                              (void *)host, &e);
    CL_OK(e);
    return m;
}

/* ---- types ------------------------------------------------------------------- */

/* Element k of a buffer of t, and its value as long / unsigned / double. */
static void fill(ocr_type t, void *p, size_t n) {
    size_t es = ocr_type_size(t);
    for (size_t k = 0; k < n; ++k) {
        uint64_t b = next();
        if (t == OCR_FLOAT) {
            float f = (float)((int64_t)(b % 2001) - 1000); /* exact sums */
            memcpy((char *)p + k * es, &f, 4);
        } else if (t == OCR_DOUBLE) {
            double d = ((double)(b >> 11) / 9007199254740992.0 - 0.5) * 1e3;
            memcpy((char *)p + k * es, &d, 8);
        } else {
            memcpy((char *)p + k * es, &b, es); /* random bits, little-endian */
        }
    }
}

static int64_t as_long(ocr_type t, const void *p) {
    switch (t) {
    case OCR_CHAR:
        return *(const int8_t *)p;
    case OCR_UCHAR:
        return *(const uint8_t *)p;
    case OCR_SHORT:
        return *(const int16_t *)p;
    case OCR_USHORT:
        return *(const uint16_t *)p;
    case OCR_INT:
        return *(const int32_t *)p;
    case OCR_UINT:
        return *(const uint32_t *)p;
    default:
        return *(const int64_t *)p; /* long, ulong: the bits */
    }
}

static double as_double(ocr_type t, const void *p) {
    if (t == OCR_FLOAT) return *(const float *)p;
    if (t == OCR_DOUBLE) return *(const double *)p;
    return (double)as_long(t, p);
}

static int is_unsigned(ocr_type t) {
    return t == OCR_UINT || t == OCR_ULONG || t == OCR_UCHAR || t == OCR_USHORT;
}

static const char *min_of(ocr_type t) {
    static const char *const m[] = {"INT_MIN",   "0",        "LONG_MIN", "0",        "-INFINITY",
                                    "-INFINITY", "CHAR_MIN", "0",        "SHRT_MIN", "0"};
    return m[t];
}

/* The max of data[off .. off + n) in t, compared as the type's values. */
static int max_matches(ocr_type t, const char *data, size_t off, uint64_t n, const void *got) {
    size_t es = ocr_type_size(t);
    if (t == OCR_FLOAT || t == OCR_DOUBLE) {
        double m = -INFINITY;
        for (uint64_t k = 0; k < n; ++k)
            m = fmax(m, as_double(t, data + (off + k) * es));
        return m == as_double(t, got);
    }
    if (t == OCR_ULONG) {
        uint64_t m = 0, g;
        for (uint64_t k = 0; k < n; ++k) {
            uint64_t v;
            memcpy(&v, data + (off + k) * es, 8);
            m = v > m ? v : m;
        }
        memcpy(&g, got, 8);
        return m == g;
    }
    int64_t m = is_unsigned(t) ? 0 : INT64_MIN;
    if (t == OCR_INT) m = INT32_MIN;
    if (t == OCR_CHAR) m = INT8_MIN;
    if (t == OCR_SHORT) m = INT16_MIN;
    for (uint64_t k = 0; k < n; ++k) {
        int64_t v = as_long(t, data + (off + k) * es);
        m = v > m ? v : m;
    }
    return m == as_long(t, got);
}

/* Sum in long/ulong (wrapping, exact) for integers, in the type for floats. */
static int sum_matches(ocr_type t, const char *data, size_t off, uint64_t n, const void *got) {
    size_t es = ocr_type_size(t);
    if (t == OCR_FLOAT || t == OCR_DOUBLE) {
        double s = 0, mag = 0;
        for (uint64_t k = 0; k < n; ++k) {
            double v = as_double(t, data + (off + k) * es);
            s += v, mag += fabs(v);
        }
        double g = t == OCR_FLOAT ? *(const float *)got : *(const double *)got;
        return t == OCR_FLOAT ? g == s : fabs(g - s) <= 1e-13 * mag + 1e-300;
    }
    uint64_t s = 0, g;
    for (uint64_t k = 0; k < n; ++k)
        s += (uint64_t)as_long(t, data + (off + k) * es);
    memcpy(&g, got, 8);
    return s == g;
}

static void type_case(ocr_type t, char *data, int sum) {
    char map[64];
    ocr_custom_arg arg = {"x", t, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &arg, sp.num_args = 1;
    if (sum) {
        int wide = t != OCR_FLOAT && t != OCR_DOUBLE;
        sp.type = !wide ? t : is_unsigned(t) ? OCR_ULONG : OCR_LONG;
        snprintf(map, sizeof map, "(%s)x[i]", ocr_type_name(sp.type));
        sp.map = map, sp.reduce = "a + b", sp.neutral = "0";
    } else {
        sp.type = t, sp.reduce = "a > b ? a : b", sp.neutral = min_of(t);
    }
    ocr_reducer *r = make(&sp);
    if (!r) return;
    cl_mem m = buffer(data, MAXN * ocr_type_size(t));
    for (size_t s = 0; s < NSIZES; ++s)
        for (size_t off = 0; off <= 5; off += 5) {
            unsigned char got[8] = {0};
            ocr_custom_value v = {m, off, {0}};
            ocr_status st = ocr_reducer_reduce_custom(r, q, sizes[s], &v, got);
            EXPECT(st == OCR_OK, "%s", ocr_reducer_last_error(r));
            int ok = sum ? sum_matches(t, data, off, sizes[s], got)
                         : max_matches(t, data, off, sizes[s], got);
            EXPECT(ok, "%s %s n %llu offset %zu", ocr_type_name(t), sum ? "sum" : "max",
                   (unsigned long long)sizes[s], off);
        }
    clReleaseMemObject(m);
    ocr_reducer_release(r);
}

static void test_types(void) {
    char *data = malloc(MAXN * 8);
    for (int t = 0; t < OCR_NTYPES; ++t) {
        if (t == OCR_HALF || (t == OCR_DOUBLE && !has_fp64)) continue;
        fill((ocr_type)t, data, MAXN);
        type_case((ocr_type)t, data, 0);
        type_case((ocr_type)t, data, 1);
    }
    free(data);
}

/* ---- expressions --------------------------------------------------------------- */

static float *random_floats(size_t n) {
    float *x = malloc(n * sizeof *x);
    for (size_t k = 0; k < n; ++k)
        x[k] = (float)((double)(next() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return x;
}

/* |got - want| within n float roundings of the magnitude. */
static int close_to(double got, double want, double mag, uint64_t n) {
    return fabs(got - want) <= (double)(n + 2) * 6e-8 * mag + 1e-30;
}

static void test_dot(void) {
    ocr_custom_arg args[] = {{"x", OCR_FLOAT, 1}, {"y", OCR_FLOAT, 1}};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = args, sp.num_args = 2, sp.map = "x[i] * y[i]", sp.reduce = "a + b",
    sp.neutral = "0.0f";
    ocr_reducer *r = make(&sp);
    float *x = random_floats(MAXN), *y = random_floats(MAXN);
    cl_mem bx = buffer(x, MAXN * 4), by = buffer(y, MAXN * 4);
    for (size_t s = 0; r && s < NSIZES; ++s) {
        size_t ox = s % 3, oy = 5 - s % 3;
        double want = 0, mag = 0;
        for (uint64_t k = 0; k < sizes[s]; ++k)
            want += (double)x[ox + k] * y[oy + k], mag += fabs((double)x[ox + k] * y[oy + k]);
        ocr_custom_value v[2] = {{bx, ox, {0}}, {by, oy, {0}}};
        float got = -1;
        EXPECT(ocr_reducer_reduce_custom(r, q, sizes[s], v, &got) == OCR_OK, "%s",
               ocr_reducer_last_error(r));
        EXPECT(close_to(got, want, mag, sizes[s]), "dot n %llu: %.9g, want %.9g",
               (unsigned long long)sizes[s], got, want);
    }
    /* a scalar: the sum of (x[i] - c)^2, and a count above an int threshold */
    ocr_custom_arg a2[] = {{"x", OCR_FLOAT, 1}, {"c", OCR_FLOAT, 0}};
    sp.args = a2, sp.map = "(x[i] - c) * (x[i] - c)";
    ocr_reducer *r2 = make(&sp);
    ocr_custom_value v2[2] = {{bx, 3, {0}}, {NULL, 0, {.f = 0.25f}}};
    double want = 0;
    uint64_t n = big;
    for (uint64_t k = 0; k < n; ++k)
        want += ((double)x[3 + k] - 0.25) * ((double)x[3 + k] - 0.25);
    float got = -1;
    EXPECT(r2 && ocr_reducer_reduce_custom(r2, q, n, v2, &got) == OCR_OK, "scalar arg");
    EXPECT(close_to(got, want, want, n), "(x-c)^2: %.9g, want %.9g", got, want);
    ocr_custom_arg a3[] = {{"x", OCR_FLOAT, 1}, {"t", OCR_SHORT, 0}};
    sp.args = a3, sp.type = OCR_UINT, sp.map = "(uint)(x[i] * 100.0f > t)", sp.neutral = "0";
    ocr_reducer *r3 = make(&sp);
    ocr_custom_value v3[2] = {{bx, 0, {0}}, {NULL, 0, {.i = -20}}};
    uint32_t count = 0, gotc = 0;
    for (uint64_t k = 0; k < n; ++k)
        count += x[k] * 100.0f > -20;
    EXPECT(r3 && ocr_reducer_reduce_custom(r3, q, n, v3, &gotc) == OCR_OK && gotc == count,
           "count above a short: %u, want %u", gotc, count);
    ocr_reducer_release(r), ocr_reducer_release(r2), ocr_reducer_release(r3);
    clReleaseMemObject(bx), clReleaseMemObject(by);
    free(x), free(y);
}

/* max |x|, the count of nonzero ints, a map of i alone, through the buffer calls */
static void test_simple(void) {
    uint64_t n = 70001;
    float *x = random_floats(n);
    int32_t *z = malloc(n * 4);
    for (uint64_t k = 0; k < n; ++k)
        z[k] = next() % 3 ? 0 : (int32_t)next();
    cl_mem bx = buffer(x, n * 4), bz = buffer(z, n * 4);
    ocr_custom_arg ax = {"x", OCR_FLOAT, 1}, az = {"z", OCR_INT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &ax, sp.num_args = 1, sp.map = "fabs(x[i])", sp.reduce = "fmax(a, b)",
    sp.neutral = "0.0f";
    ocr_reducer *r = make(&sp);
    float want = 0;
    for (uint64_t k = 0; k < n; ++k)
        want = fmaxf(want, fabsf(x[k]));
    ocr_value v;
    EXPECT(r && ocr_reducer_reduce(r, q, bx, 0, n, &v) == OCR_OK && v.f == want,
           "max-abs: %.9g, want %.9g", v.f, want);
    sp.args = &az, sp.type = OCR_ULONG, sp.map = "(ulong)(z[i] != 0)", sp.reduce = "a + b",
    sp.neutral = "0";
    ocr_reducer *rc = make(&sp);
    uint64_t nz = 0;
    for (uint64_t k = 7; k < n; ++k)
        nz += z[k] != 0;
    EXPECT(rc && ocr_reducer_reduce(rc, q, bz, 7, n - 7, &v) == OCR_OK && v.ul == nz,
           "nonzero: %llu, want %llu", (unsigned long long)v.ul, (unsigned long long)nz);
    /* no argument: the sum of i */
    sp.args = NULL, sp.num_args = 0, sp.map = "i";
    ocr_reducer *ri = make(&sp);
    uint64_t got = 0;
    EXPECT(ri && ocr_reducer_reduce_custom(ri, q, n, NULL, &got) == OCR_OK &&
               got == n * (n - 1) / 2,
           "sum of i: %llu", (unsigned long long)got);
    ocr_reducer_release(r), ocr_reducer_release(rc), ocr_reducer_release(ri);
    clReleaseMemObject(bx), clReleaseMemObject(bz);
    free(x), free(z);
}

typedef struct {
    float n, mean, m2;
} stats;

#define STATS_DECL "typedef struct { float n, mean, m2; } stats;"
#define STATS_PRE                                                                                  \
    "stats stats_of(float v) { stats s = {1.0f, v, 0.0f}; return s; }\n"                           \
    "stats stats_merge(stats a, stats b) {\n"                                                      \
    "  float n = a.n + b.n; if (n == 0.0f) return a;\n"                                            \
    "  float d = b.mean - a.mean;\n"                                                               \
    "  stats s = {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};\n"            \
    "  return s; }\n"

static void test_struct(void) {
    ocr_custom_arg ax = {"x", OCR_FLOAT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &ax, sp.num_args = 1, sp.struct_decl = STATS_DECL, sp.struct_name = "stats",
    sp.struct_size = sizeof(stats), sp.preamble = STATS_PRE, sp.map = "stats_of(x[i])",
    sp.reduce = "stats_merge(a, b)", sp.neutral = "{0.0f, 0.0f, 0.0f}";
    ocr_reducer *r = make(&sp);
    float *x = random_floats(MAXN);
    for (size_t k = 0; k < MAXN; ++k)
        x[k] = x[k] * 3.0f + 10.0f;
    cl_mem bx = buffer(x, MAXN * 4);
    CHECK(!r || ocr_reducer_custom_size(r) == sizeof(stats));
    for (size_t s = 0; r && s < NSIZES; ++s) {
        uint64_t n = sizes[s];
        double mean = 0, m2 = 0;
        for (uint64_t k = 0; k < n; ++k)
            mean += x[2 + k];
        mean = n ? mean / (double)n : 0;
        for (uint64_t k = 0; k < n; ++k)
            m2 += (x[2 + k] - mean) * (x[2 + k] - mean);
        ocr_custom_value v = {bx, 2, {0}};
        stats got = {-1, -1, -1};
        EXPECT(ocr_reducer_reduce_custom(r, q, n, &v, &got) == OCR_OK, "%s",
               ocr_reducer_last_error(r));
        EXPECT(got.n == (float)n && fabs(got.mean - mean) <= 1e-5 * fabs(mean) + 1e-6 &&
                   fabs(got.m2 - m2) <= 1e-4 * m2 + 1e-6,
               "stats n %llu: (%g, %g, %g), want (%g, %g)", (unsigned long long)n, got.n, got.mean,
               got.m2, mean, m2);
    }
    ocr_value v;
    EXPECT(!r || ocr_reducer_reduce(r, q, bx, 0, 10, &v) == OCR_USAGE, "struct into ocr_value");
    ocr_reducer_release(r);
    clReleaseMemObject(bx);
    free(x);
}

/* A NaN: a sum's result is NaN, fmax's the largest of the others. */
static void test_nan(void) {
    uint64_t n = big < 5000 ? big : 5000;
    float *x = random_floats(n);
    x[next() % n] = NAN;
    float want = -INFINITY;
    for (uint64_t k = 0; k < n; ++k)
        want = fmaxf(want, x[k]);
    cl_mem bx = buffer(x, n * 4);
    ocr_custom_arg ax = {"x", OCR_FLOAT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &ax, sp.num_args = 1, sp.reduce = "a + b", sp.neutral = "0.0f";
    ocr_reducer *rs = make(&sp);
    sp.reduce = "fmax(a, b)", sp.neutral = "-INFINITY";
    ocr_reducer *rm = make(&sp);
    ocr_value s, m;
    EXPECT(rs && ocr_reducer_reduce(rs, q, bx, 0, n, &s) == OCR_OK && isnan(s.f), "NaN sum %g",
           s.f);
    EXPECT(rm && ocr_reducer_reduce(rm, q, bx, 0, n, &m) == OCR_OK && m.f == want,
           "fmax past NaN %g, want %g", m.f, want);
    ocr_reducer_release(rs), ocr_reducer_release(rm);
    clReleaseMemObject(bx);
    free(x);
}

/* ---- calls ----------------------------------------------------------------------- */

static ocr_reducer *sum_int(void) {
    static const ocr_custom_arg ax = {"x", OCR_INT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.type = OCR_LONG, sp.args = &ax, sp.num_args = 1, sp.map = "(long)x[i]", sp.reduce = "a + b",
    sp.neutral = "0";
    return make(&sp);
}

/* into element 1 of 3 after a user event, a done event; guards untouched */
static void test_into(cl_command_queue qq, const char *what) {
    uint64_t n = big < 300007 ? big : 300007;
    int32_t *x = malloc(n * 4);
    int64_t want[3] = {0, 0, 0}, res[3] = {-7, -7, -7};
    for (uint64_t k = 0; k < n; ++k)
        x[k] = (int32_t)next(), want[k % 3] += (k >= 9 ? x[k] : 0);
    int64_t all = want[0] + want[1] + want[2];
    cl_int e;
    cl_mem bx = buffer(x, n * 4),
           out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof res, res, &e);
    CL_OK(e);
    ocr_reducer *r = sum_int();
    cl_event gate = clCreateUserEvent(ctx, &e), done = NULL, done0 = NULL;
    CL_OK(e);
    ocr_custom_value v = {bx, 9, {0}}, v0 = {bx, 0, {0}};
    EXPECT(r && ocr_reducer_reduce_custom_into(r, qq, n - 9, &v, out, 1, 1, &gate, &done) == OCR_OK,
           "%s: into: %s", what, ocr_reducer_last_error(r));
    /* an empty one into element 0, then element 2 by the buffer call */
    EXPECT(r && ocr_reducer_reduce_custom_into(r, qq, 0, &v0, out, 0, 0, NULL, &done0) == OCR_OK,
           "%s: empty", what);
    EXPECT(r && ocr_reducer_reduce_into(r, qq, bx, 9, n - 9, out, 2, 0, NULL, NULL) == OCR_OK,
           "%s: buffer call", what);
    cl_int status = 0;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    EXPECT(status != CL_COMPLETE, "%s: done before the gate opened", what);
    clSetUserEventStatus(gate, CL_COMPLETE);
    CL_OK(clWaitForEvents(1, &done));
    CL_OK(clFinish(qq));
    CL_OK(clEnqueueReadBuffer(qq, out, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL));
    EXPECT(res[0] == 0 && res[1] == all && res[2] == all, "%s: %lld %lld %lld, want 0 %lld %lld",
           what, (long long)res[0], (long long)res[1], (long long)res[2], (long long)all,
           (long long)all);
    if (done) clReleaseEvent(done);
    if (done0) clReleaseEvent(done0);
    clReleaseEvent(gate);
    ocr_reducer_release(r);
    clReleaseMemObject(bx), clReleaseMemObject(out);
    free(x);
}

static void test_usage(void) {
    int32_t x[100] = {0};
    cl_mem bx = buffer(x, sizeof x), small = buffer(x, 4);
    ocr_reducer *r = sum_int();
    if (!r) return;
    ocr_custom_value v = {bx, 50, {0}};
    int64_t got;
    cl_mem out;
    cl_int e;
    out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &e);
    CL_OK(e);
    EXPECT(ocr_reducer_reduce_custom(r, q, 51, &v, &got) == OCR_USAGE, "beyond the buffer");
    EXPECT(ocr_reducer_reduce_custom(r, q, 50, &v, &got) == OCR_OK, "to the end");
    EXPECT(ocr_reducer_reduce_custom(r, q, 5, NULL, &got) == OCR_USAGE, "no args");
    EXPECT(ocr_reducer_reduce_custom(r, NULL, 5, &v, &got) == OCR_USAGE, "no queue");
    EXPECT(ocr_reducer_reduce_custom_into(r, q, 5, &v, small, 0, 0, NULL, NULL) == OCR_USAGE,
           "result too small");
    EXPECT(ocr_reducer_reduce_custom_into(r, q, 5, &v, out, 2, 0, NULL, NULL) == OCR_USAGE,
           "result offset");
    EXPECT(ocr_reducer_reduce_custom_into(r, q, 50, &v, bx, 30, 0, NULL, NULL) == OCR_USAGE,
           "overlap");
    EXPECT(ocr_reducer_reduce_rows(r, q, bx, 0, 2, 2, out, 0, 0, NULL, NULL) == OCR_USAGE, "rows");
    EXPECT(ocr_reducer_reduce_strided(r, q, bx, 0, 2, 2, out, 0, 0, NULL, NULL) == OCR_USAGE,
           "strided");
    CHECK(strstr(ocr_reducer_last_error(r), "custom") != NULL);
    CHECK(ocr_reducer_geometry(r) && ocr_reducer_geometry(r)->local_size >= 1);
    /* the async buffer call: sum of x[3 .. 13) (zeros) into element 1 */
    cl_event done = NULL;
    int64_t back[2] = {-1, -1};
    EXPECT(ocr_reducer_reduce_async(r, q, bx, 3, 10, out, 0, NULL, &done) == OCR_OK && done,
           "async: %s", ocr_reducer_last_error(r));
    if (done) {
        CL_OK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
    }
    CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 16, back, 0, NULL, NULL));
    CHECK(back[0] == 0);
    CHECK(ocr_reducer_custom_size(r) == 8 && ocr_reducer_custom_size(NULL) == 0);
    EXPECT(ocr_reducer_reduce_segments(r, q, bx, 0, 4, small, OCR_UINT, 0, out, 0, 0, NULL, NULL) ==
               OCR_USAGE,
           "segments");
    ocr_reducer_release(r);
    EXPECT(ocr_reducer_reduce_custom(r, q, 5, &v, &got) == OCR_USAGE, "released");
    ocr_reducer *plain = NULL;
    CHECK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &plain) == OCR_OK);
    CHECK(ocr_reducer_custom_size(plain) == 0);
    EXPECT(ocr_reducer_reduce_custom(plain, q, 5, &v, &got) == OCR_USAGE, "not a custom reducer");
    ocr_reducer_release(plain);
    /* two buffers: the buffer calls are refused */
    ocr_custom_arg args[] = {{"x", OCR_INT, 1}, {"y", OCR_INT, 1}};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.type = OCR_INT, sp.args = args, sp.num_args = 2, sp.map = "x[i] - y[i]", sp.reduce = "a + b",
    sp.neutral = "0";
    ocr_reducer *r2 = make(&sp);
    ocr_value val;
    EXPECT(!r2 || ocr_reducer_reduce(r2, q, bx, 0, 5, &val) == OCR_USAGE, "two buffers");
    ocr_reducer_release(r2);
    clReleaseMemObject(bx), clReleaseMemObject(small), clReleaseMemObject(out);
}

/* ---- refusals ------------------------------------------------------------------ */

static ocr_status try_spec(const char *map, const char *reduce, const char *preamble,
                           const char *name) {
    ocr_custom_arg ax = {name, OCR_FLOAT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &ax, sp.num_args = 1, sp.map = map, sp.reduce = reduce, sp.neutral = "0.0f",
    sp.preamble = preamble;
    ocr_reducer *r = NULL;
    ocr_reducer_options o = options();
    ocr_status st = ocr_reducer_create_custom(ctx, dev, &sp, &o, &r);
    CHECK((st == OCR_OK) == (r != NULL));
    ocr_reducer_release(r);
    return st;
}

static void test_refusals(void) {
    ocr_status st = try_spec("x[i] +* nosuch", "a + b", NULL, "x");
    const char *msg = ocr_reducer_last_error(NULL);
    EXPECT(st == OCR_BUILD && strstr(msg, "x[i] +* nosuch") && strstr(msg, "nosuch"),
           "bad map: %s: %s", ocr_status_name(st), msg);
    st = try_spec(NULL, "a +", NULL, "x");
    EXPECT(st == OCR_BUILD && strstr(ocr_reducer_last_error(NULL), "a +"), "bad reduce: %s",
           ocr_status_name(st));
    EXPECT(try_spec(NULL, "a + b", "float f(float v) { return v +; }", "x") == OCR_BUILD,
           "bad preamble");
    static const char *const names[] = {"i",          "a",     "b",  "ocr_x", "OCR_T", "T",
                                        "LOCAL_SIZE", "SEG_X", "2x", "x y",   ""};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
        EXPECT(try_spec(NULL, "a + b", NULL, names[k]) == OCR_USAGE, "name '%s'", names[k]);
    static const char *const maps[] = {"x[i]); } __kernel void evil(__global float *p) { p[0] = 1",
                                       "x[i]) + (0",
                                       "x[i] /* comment",
                                       "x[i] // comment",
                                       "x[i]\n#define OCR_RK_LOCAL_SIZE 1",
                                       "x[i] #",
                                       "x[i] %: 0",
                                       "(x[i]",
                                       "x[i]]",
                                       "\"str\"",
                                       "   ",
                                       "x[(i]) + 0"};
    for (size_t k = 0; k < sizeof maps / sizeof maps[0]; ++k)
        EXPECT(try_spec(maps[k], "a + b", NULL, "x") == OCR_USAGE, "map '%s'", maps[k]);
    static const char *const pre[] = {"#define LOCAL_SIZE 3", "%:define OCR_RK_BLOCKED 0",
                                      "float f(float v) { return v; }\n  # undef OCR_RK_LOCAL_SIZE",
                                      "float f(float v) { return v; ", "/* open"};
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; ++k)
        EXPECT(try_spec(NULL, "a + b", pre[k], "x") == OCR_USAGE, "preamble '%s'", pre[k]);
    /* after all that, a reducer with a helper works */
    EXPECT(try_spec("twice(x[i])", "a + b", "float twice(float v) { return v * 2.0f; }", "x") ==
               OCR_OK,
           "a preamble helper: %s", ocr_reducer_last_error(NULL));
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    ocr_reducer *r = NULL;
    sp.reduce = "a + b", sp.neutral = "0", sp.map = "i", sp.type = OCR_HALF;
    EXPECT(ocr_reducer_create_custom(ctx, dev, &sp, NULL, &r) == OCR_USAGE && !r, "half");
    sp.type = OCR_INT, sp.struct_decl = "typedef struct { int n; } s2;", sp.struct_name = "s2",
    sp.struct_size = 8;
    EXPECT(ocr_reducer_create_custom(ctx, dev, &sp, NULL, &r) == OCR_BUILD && !r,
           "struct_size wrong");
    EXPECT(ocr_reducer_create_custom(ctx, dev, NULL, NULL, &r) == OCR_USAGE && !r, "NULL spec");
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.build_options = "-D OCR_RK_BLOCKED=7";
    sp.struct_decl = NULL;
    EXPECT(ocr_reducer_create_custom(ctx, dev, &sp, &o, &r) == OCR_USAGE && !r, "-D reserved");
}

/* ---- the program cache ------------------------------------------------------- */

static double sum_times(int k, const float *x, cl_mem bx, uint64_t n, double *want) {
    char map[32];
    snprintf(map, sizeof map, "%d.0f * x[i]", k);
    ocr_custom_arg ax = {"x", OCR_FLOAT, 1};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = &ax, sp.num_args = 1, sp.map = map, sp.reduce = "a + b", sp.neutral = "0.0f";
    ocr_reducer *r = make(&sp);
    float got = NAN;
    ocr_custom_value v = {bx, 0, {0}};
    EXPECT(r && ocr_reducer_reduce_custom(r, q, n, &v, &got) == OCR_OK, "map %s", map);
    *want = 0;
    for (uint64_t j = 0; j < n; ++j)
        *want += (double)k * x[j];
    ocr_reducer_release(r);
    return got;
}

/* Whether this device should finish in one launch: the rule of
 * ocr_finish_mode stated again (OpenCL 2.x; 3.0 with acquire-release atomics
 * at device scope; NVIDIA's OpenCL; never oclgrind), so that a finish that
 * silently turned off fails here. */
static int expect_one_launch(void) {
    char version[256] = "", vendor[256] = "", platform[256] = "";
    cl_platform_id p = NULL;
    cl_bitfield caps = 0;
    int major = 0, minor = 0;
    clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof version, version, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    if (strstr(platform, "Oclgrind") || sscanf(version, "OpenCL %d.%d", &major, &minor) != 2)
        return 0;
    if (major == 2) return 1;
    if (major >= 3 &&
        clGetDeviceInfo(dev, 0x1063 /* ATOMIC_MEMORY_CAPABILITIES */, sizeof caps, &caps, NULL) ==
            CL_SUCCESS &&
        (caps & (1u << 1)) && (caps & (1u << 5)))
        return 1;
    return strstr(vendor, "NVIDIA") != NULL;
}

/* ocr_reducer_custom_finish, the rule for a host building cl/custom.cl
 * itself (the Python package): on exactly where expect_one_launch says, up
 * to 255 groups, off under the caller's own -cl-std; a short std_option
 * buffer and missing outputs refused. */
static void test_finish_rule(void) {
    int mode = -1;
    uint64_t most = 1;
    char std[16] = "x";
    const char *opts = getenv("TEST_CUSTOM_OPTIONS");
    EXPECT(ocr_reducer_custom_finish(ctx, dev, opts, &mode, &most, std, sizeof std) == OCR_OK, "%s",
           ocr_last_error());
    int want = expect_one_launch() && !(opts && strstr(opts, "-cl-std"));
    EXPECT((mode != 0) == want && most == (mode ? 255u : 0u), "mode %d, %llu groups, want %s", mode,
           (unsigned long long)most, want ? "on" : "off");
    EXPECT(mode != 1 || !strncmp(std, "-cl-std=CL", 10), "mode 1 with std option '%s'", std);
    EXPECT(mode == 1 || !std[0], "mode %d with std option '%s'", mode, std);
    const int first = mode;
    EXPECT(ocr_reducer_custom_finish(ctx, dev, "-cl-std=CL1.2", &mode, &most, std, sizeof std) ==
                   OCR_OK &&
               mode == 0 && most == 0,
           "-cl-std=CL1.2: mode %d", mode);
    if (first == 1 && !opts) { /* "-cl-std=CL3.0" does not fit in 4 bytes */
        char tiny[4];
        EXPECT(ocr_reducer_custom_finish(ctx, dev, NULL, &mode, &most, tiny, sizeof tiny) ==
                       OCR_USAGE &&
                   mode == 0,
               "a 4-byte std_option: mode %d", mode);
    }
    EXPECT(ocr_reducer_custom_finish(ctx, dev, NULL, NULL, &most, std, sizeof std) == OCR_USAGE,
           "mode NULL");
}

/* The launches of a dot over n values, blocking and not, and the dot
 * itself both ways against the host's. */
static void test_launches(void) {
    ocr_custom_arg args[] = {{"x", OCR_INT, 1}, {"y", OCR_INT, 1}};
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = args, sp.num_args = 2, sp.map = "(long)x[i] * y[i]", sp.reduce = "a + b",
    sp.neutral = "0", sp.type = OCR_LONG;
    ocr_reducer *r = make(&sp);
    const char *opts = getenv("TEST_CUSTOM_OPTIONS");
    int two = opts && strstr(opts, "-cl-std=CL1.2");
    /* several groups, fewer than 256 (one-item groups of 2048 on a CPU,
     * 256 x 16 elements on a GPU) */
    uint64_t n = (uint64_t)1 << 17, launches = ocr_reducer_custom_launches(r, n);
    uint64_t want = two || !expect_one_launch() ? 2 : 1;
    EXPECT(launches == want, "%llu launches, want %llu%s", (unsigned long long)launches,
           (unsigned long long)want, two ? " (-cl-std=CL1.2)" : "");
    EXPECT(ocr_reducer_custom_launches(r, 1) == 1, "one element: one launch");
    printf("%s\n", launches == 1 ? "one launch" : "two launches");
    int32_t *x = malloc(n * 4), *y = malloc(n * 4);
    for (uint64_t k = 0; k < n; ++k)
        x[k] = 0, y[k] = (int32_t)(next() >> 40);
    cl_mem bx = buffer(x, n * 4), by = buffer(y, n * 4);
    cl_int e;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, NULL, &e);
    CL_OK(e);
    ocr_custom_value v[2] = {{bx, 0, {0}}, {by, 0, {0}}};
    for (int round = 0; r && round < 3; ++round) { /* a ticket left wrong shows in a later call */
        long long got = -1, got2 = -1, want = 0;
        for (uint64_t k = 0; k < n; ++k) /* new data: every group's value changes */
            x[k] = (int32_t)(next() % 2001) - 1000, want += (long long)x[k] * y[k];
        CL_OK(clEnqueueWriteBuffer(q, bx, CL_TRUE, 0, n * 4, x, 0, NULL, NULL));
        cl_event done = NULL;
        EXPECT(ocr_reducer_reduce_custom(r, q, n, v, &got) == OCR_OK, "%s",
               ocr_reducer_last_error(r));
        EXPECT(ocr_reducer_reduce_custom_into(r, q, n, v, out, 0, 0, NULL, &done) == OCR_OK, "%s",
               ocr_reducer_last_error(r));
        CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 8, &got2, done ? 1 : 0, done ? &done : NULL,
                                  NULL));
        if (done) clReleaseEvent(done);
        EXPECT(got == want && got2 == want, "round %d: %lld and %lld, want %lld", round, got, got2,
               want);
    }
    clReleaseMemObject(out), clReleaseMemObject(bx), clReleaseMemObject(by);
    free(x), free(y);
    ocr_reducer_release(r);
}

static void test_cache(int k) {
    uint64_t n = 4096;
    float *x = malloc(n * sizeof *x);
    for (uint64_t j = 0; j < n; ++j)
        x[j] = (float)(j % 7);
    cl_mem bx = buffer(x, n * 4);
    double w1, w2, w;
    for (int kk = k ? k : 1; kk <= (k ? k : 2); ++kk) {
        double got = sum_times(kk, x, bx, n, &w);
        EXPECT(got == w, "map %d * x[i]: %g, want %g", kk, got, w);
        if (k) printf("sum %d %.1f\n", kk, got);
    }
    if (!k) { /* both in one process, twice each: no mix-up */
        double a = sum_times(1, x, bx, n, &w1), b = sum_times(2, x, bx, n, &w2);
        EXPECT(a == w1 && b == w2 && a != b, "two maps: %g %g", a, b);
    }
    clReleaseMemObject(bx);
    free(x);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr,
                "usage: test_custom types|exprs|calls SEED | refusals | launches | cache [K]\n");
        return 2;
    }
    rng = argc > 2 ? strtoull(argv[2], NULL, 0) * 2654435761u + 88172645463325252ull : 1;
    CL_OPEN_FIRST(dev, ctx, q);
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    has_fp64 = fp != 0;
    if (!strcmp(argv[1], "types"))
        test_types();
    else if (!strcmp(argv[1], "exprs")) {
        test_dot(), test_simple(), test_struct(), test_nan();
    } else if (!strcmp(argv[1], "calls")) {
        cl_int e;
        cl_command_queue ooo =
            clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
        test_into(q, "in-order");
        if (e == CL_SUCCESS)
            test_into(ooo, "out-of-order"), clReleaseCommandQueue(ooo);
        else
            printf("no out-of-order queue on this device: that case not run\n");
        test_usage();
    } else if (!strcmp(argv[1], "few")) {
        sizes = few_sizes, NSIZES = sizeof few_sizes / sizeof few_sizes[0], big = 1001;
        /* no struct: oclgrind 21.10 cannot run a kernel that inlines a
         * function taking structs by value (llvm.experimental.noalias.scope.decl) */
        test_dot(), test_nan(), test_into(q, "in-order");
    } else if (!strcmp(argv[1], "refusals"))
        test_refusals();
    else if (!strcmp(argv[1], "launches"))
        test_finish_rule(), test_launches();
    else if (!strcmp(argv[1], "cache"))
        test_cache(argc > 2 ? atoi(argv[2]) : 0);
    else
        return 2;
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary(argv[1]);
}
