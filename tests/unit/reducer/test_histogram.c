/* test_histogram.c - ocr_reducer_histogram and _host against a host loop,
 * bit for bit for counts (and sums of small integer weights, exact in any
 * order).
 *
 *   test_histogram types TYPE [LOCAL]  samples of TYPE, drawn data
 *       (several seeds), uniform, one-bin and edge values (lower, upper, just
 *       below upper, NaN, +-inf, out of range), even bins, edges, bincount,
 *       weights, 32/64-bit counts, accumulate, offsets, every method, bins
 *       beyond local memory, n = 0
 *   test_histogram few TYPE [LOCAL [KERNEL_DIR]]  a small run of each kind
 *       (oclgrind, mutants)
 *   test_histogram misuse   refusals with messages, wait list and done */
#define CL_TARGET_OPENCL_VERSION 120
#include "../check.h"
#include "oclreduction/ocr_reducer.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static const char *kernel_dir;
static size_t local_size;

static uint64_t rng = 1;
static uint64_t draw(void) { /* xorshift64* */
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

/* ---- samples: stored bytes, and the value as the kernel converts it ---- */

/* A half's value (an independent decoding: sign, exponent, mantissa). */
static double half_value(const unsigned char *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

static double as_double(ocr_type t, const unsigned char *p) {
    if (t == OCR_HALF) return half_value(p);
    ocr_value v = ocr_value_from_bytes(t, p);
    switch (t) {
    case OCR_INT:
        return v.i;
    case OCR_UINT:
        return v.u;
    case OCR_LONG:
        return (double)v.l;
    case OCR_ULONG:
        return (double)v.ul;
    case OCR_FLOAT:
        return v.f;
    case OCR_DOUBLE:
        return v.d;
    case OCR_CHAR:
    case OCR_SHORT:
        return (double)v.l;
    case OCR_UCHAR:
    case OCR_USHORT:
        return (double)v.ul;
    case OCR_HALF:
        return v.f;
    default:
        return NAN;
    }
}

static int is_int(ocr_type t) {
    return !ocr_type_is_float(t);
}
static int bins_in_double(ocr_type t) {
    return t == OCR_INT || t == OCR_UINT || t == OCR_LONG || t == OCR_ULONG || t == OCR_DOUBLE;
}

/* Element i set to the type's value nearest v (v is drawn within the type's
 * range; NaN and infinities only for the float types). */
static void put(ocr_type t, unsigned char *p, double v) {
    switch (t) {
    case OCR_INT:
        *(int32_t *)p = (int32_t)v;
        break;
    case OCR_UINT:
        *(uint32_t *)p = (uint32_t)v;
        break;
    case OCR_LONG:
        *(int64_t *)p = (int64_t)v;
        break;
    case OCR_ULONG:
        *(uint64_t *)p = (uint64_t)v;
        break;
    case OCR_FLOAT:
        *(float *)p = (float)v;
        break;
    case OCR_DOUBLE:
        *(double *)p = v;
        break;
    case OCR_CHAR:
        *(int8_t *)p = (int8_t)v;
        break;
    case OCR_UCHAR:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case OCR_SHORT:
        *(int16_t *)p = (int16_t)v;
        break;
    case OCR_USHORT:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case OCR_HALF: { /* values drawn are multiples of 1/8 below 2^10, or special */
        uint16_t h;
        if (isnan(v))
            h = 0x7e00;
        else if (isinf(v))
            h = v > 0 ? 0x7c00 : 0xfc00;
        else {
            double a = fabs(v);
            int e = 0;
            if (a == 0)
                h = 0;
            else {
                while (a >= 2)
                    a /= 2, ++e;
                while (a < 1)
                    a *= 2, --e;
                h = (uint16_t)(((e + 15) << 10) | (uint16_t)((a - 1) * 1024));
            }
            if (v < 0) h |= 0x8000;
        }
        memcpy(p, &h, 2);
        break;
    }
    default:
        break;
    }
}

/* The range of values drawn for t (within [lo, hi], both in the type). */
static void type_span(ocr_type t, double *lo, double *hi) {
    *lo = -100, *hi = 300;
    if (t == OCR_CHAR) *lo = -128, *hi = 127;
    if (t == OCR_UCHAR) *lo = 0, *hi = 255;
    if (!ocr_type_is_float(t) && t != OCR_CHAR && t != OCR_SHORT && t != OCR_INT && t != OCR_LONG)
        *lo = 0;
}

/* ---- the reference ---- */

typedef struct {
    ocr_histogram_kind kind;
    uint64_t bins;
    double lower, upper;
    const double *edges; /* bins + 1 */
    int edges_float;
} ref_spec;

static int64_t ref_bin(ocr_type t, const unsigned char *p, const ref_spec *s) {
    double x = as_double(t, p);
    if (s->kind == OCR_HIST_BINCOUNT) {
        if (t == OCR_ULONG) {
            uint64_t u = *(const uint64_t *)p;
            return u < s->bins ? (int64_t)u : -1;
        }
        return x >= 0 && x < (double)s->bins ? (int64_t)x : -1;
    }
    if (s->kind == OCR_HIST_EDGES) {
        if (s->edges_float) {
            volatile float v = (float)x;
            if (!(v >= (float)s->edges[0] && v <= (float)s->edges[s->bins])) return -1;
            uint64_t b = 0;
            while (b + 1 < s->bins && (float)s->edges[b + 1] <= v)
                ++b;
            return (int64_t)b;
        }
        if (!(x >= s->edges[0] && x <= s->edges[s->bins])) return -1;
        uint64_t b = 0;
        while (b + 1 < s->bins && s->edges[b + 1] <= x)
            ++b;
        return (int64_t)b;
    }
    if (bins_in_double(t)) {
        volatile double lo = s->lower, hi = s->upper, sc = (double)s->bins / (hi - lo);
        if (!(x >= lo && x <= hi)) return -1;
        volatile double d = x - lo, prod = d * sc;
        uint64_t b = (uint64_t)prod;
        return (int64_t)(b < s->bins ? b : s->bins - 1);
    }
    volatile float lo = (float)s->lower, hi = (float)s->upper, v = (float)x;
    volatile float sc = (float)s->bins / (hi - lo);
    if (!(v >= lo && v <= hi)) return -1;
    volatile float d = v - lo, prod = d * sc;
    uint64_t b = (uint64_t)prod;
    return (int64_t)(b < s->bins ? b : s->bins - 1);
}

/* ---- one case: data on the device, a call, the reference ---- */

typedef struct {
    ocr_type t;
    uint64_t n, offset, bins;
    ocr_histogram_kind kind;
    int data;       /* 0 drawn, 1 one bin, 2 edge values */
    int weights;    /* 0 none, 1 float, 2 double */
    int bits;       /* 32 or 64 */
    int accumulate; /* counts start at a drawn value and are added to */
    int method;
    int host; /* the blocking call */
    int edges_double;
} hcase;

static ocr_reducer *reducer_for(ocr_type t) {
    static ocr_reducer *rs[OCR_NTYPES];
    if (rs[t]) return rs[t];
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.kernel_dir = kernel_dir, o.local_size = local_size;
    ocr_status st = ocr_reducer_create(ctx, dev, t, OCR_SUM, &o, &rs[t]);
    EXPECT(st == OCR_OK, "create %s: %s", ocr_type_name(t), ocr_reducer_last_error(NULL));
    return rs[t];
}

static void fill_samples(const hcase *k, const ref_spec *s, unsigned char *h, size_t es) {
    double lo, hi;
    type_span(k->t, &lo, &hi);
    double specials[] = {s->lower,
                         s->upper,
                         nextafter(s->upper, -INFINITY),
                         nextafterf((float)s->upper, -INFINITY),
                         s->lower - 1,
                         s->upper + 1,
                         NAN,
                         INFINITY,
                         -INFINITY,
                         (s->lower + s->upper) / 2};
    double one = s->lower + (s->upper - s->lower) * 0.3;
    for (uint64_t i = 0; i < k->offset + k->n; ++i) {
        double v;
        if (k->data == 1)
            v = one;
        else if (k->data == 2) {
            v = specials[draw() % (ocr_type_is_float(k->t) ? 10 : 6)];
            if (!ocr_type_is_float(k->t)) v = fmax(lo, fmin(hi, floor(v)));
        } else
            v = lo + (double)(draw() % (uint64_t)((hi - lo) * 8 + 1)) / 8.0;
        if (!ocr_type_is_float(k->t)) v = floor(v);
        put(k->t, h + i * es, v);
    }
}

static double elem(const unsigned char *p, uint64_t b, size_t cs, int weights) {
    if (weights == 1) return ((const float *)p)[b];
    if (weights == 2) return ((const double *)p)[b];
    return cs == 4 ? ((const uint32_t *)p)[b] : (double)((const uint64_t *)p)[b];
}

static void run_case(const hcase *k) {
    ocr_reducer *r = reducer_for(k->t);
    if (!r) return;
    size_t es = ocr_type_size(k->t), ws = k->weights == 2 ? 8 : 4;
    uint64_t total = k->offset + k->n;
    unsigned char *h = malloc(total * es + 1);
    double *edges = malloc((k->bins + 1) * sizeof *edges);
    double lo, hi;
    type_span(k->t, &lo, &hi);
    ref_spec s = {k->kind, k->bins,         lo + (hi - lo) * 0.1, hi - (hi - lo) * 0.1,
                  edges,   !k->edges_double};
    if (is_int(k->t)) s.lower = floor(s.lower), s.upper = floor(s.upper);
    for (uint64_t b = 0; b <= k->bins; ++b) /* uneven edges, ascending */
        edges[b] = s.lower + (s.upper - s.lower) * ((double)b * b) / ((double)k->bins * k->bins);
    fill_samples(k, &s, h, es);
    /* weights: small integers, exact in any order of addition */
    float *wf = calloc(total + 2, sizeof *wf);
    double *wd = calloc(total + 1, sizeof *wd);
    for (uint64_t i = 0; i < total; ++i)
        wf[i] = (float)(int)(draw() % 9) - 3, wd[i] = wf[i];
    size_t cs = k->weights ? ws : (size_t)k->bits / 8;
    unsigned char *expect = calloc(k->bins + 3, cs), *got = calloc(k->bins + 3, cs);
    /* what counts_buf holds before: drawn, with a guard before and after the
     * bins; overwritten bins start from 0, accumulated ones from it */
    for (uint64_t b = 0; b < k->bins + 3; ++b) {
        uint64_t v = draw() % 1000, e = k->accumulate || b == 0 || b > k->bins ? v : 0;
        if (k->weights == 1)
            ((float *)got)[b] = (float)v, ((float *)expect)[b] = (float)e;
        else if (k->weights == 2)
            ((double *)got)[b] = (double)v, ((double *)expect)[b] = (double)e;
        else if (cs == 4)
            ((uint32_t *)got)[b] = (uint32_t)v, ((uint32_t *)expect)[b] = (uint32_t)e;
        else
            ((uint64_t *)got)[b] = v, ((uint64_t *)expect)[b] = e;
    }
    for (uint64_t i = k->offset; i < total; ++i) {
        int64_t b = ref_bin(k->t, h + i * es, &s);
        if (b < 0) continue;
        if (k->weights == 1)
            ((float *)expect)[b + 1] += wf[i];
        else if (k->weights == 2)
            ((double *)expect)[b + 1] += wd[i];
        else if (cs == 4)
            ((uint32_t *)expect)[b + 1] += 1;
        else
            ((uint64_t *)expect)[b + 1] += 1;
    }
    cl_int err;
    cl_mem in =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * es + 1, h, &err);
    CL_OK(err);
    /* the edges from element 2 on, after two others */
    float *ef = calloc(2 * (k->bins + 3), sizeof *ef); /* the buffer's bytes */
    double *ed = calloc(k->bins + 3, sizeof *ed);
    for (uint64_t b = 0; b <= k->bins; ++b)
        ef[b + 2] = (float)edges[b], ed[b + 2] = edges[b];
    cl_mem eb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (k->bins + 3) * 8,
                               k->edges_double ? (void *)ed : (void *)ef, &err);
    CL_OK(err);
    cl_mem wb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * ws + 8,
                               k->weights == 2 ? (void *)wd : (void *)wf, &err);
    CL_OK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (k->bins + 3) * cs,
                                got, &err);
    CL_OK(err);
    ocr_histogram_spec sp = OCR_HISTOGRAM_SPEC;
    sp.kind = k->kind, sp.bins = k->bins, sp.lower = s.lower, sp.upper = s.upper;
    sp.edges = eb, sp.edges_offset = 2, sp.edges_type = k->edges_double ? OCR_DOUBLE : OCR_FLOAT;
    if (k->weights)
        sp.weights = wb, sp.weights_offset = 0,
        sp.weights_type = k->weights == 2 ? OCR_DOUBLE : OCR_FLOAT;
    else
        sp.count_bits = (unsigned)k->bits;
    sp.accumulate = k->accumulate, sp.method = (ocr_histogram_method)k->method;
    /* the weights of sample i are weights[i]: the weights buffer starts at the offset */
    if (k->weights) sp.weights_offset = k->offset;
    ocr_status st;
    if (k->host) {
        st = ocr_reducer_histogram_host(r, q, in, k->offset, k->n, &sp, got + cs, 0, NULL);
    } else {
        cl_event done = NULL;
        st = ocr_reducer_histogram(r, q, in, k->offset, k->n, &sp, out, 1, 0, NULL, &done);
        if (st == OCR_OK) {
            CHECK(done != NULL);
            CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, (k->bins + 3) * cs, got, 1, &done, NULL));
            clReleaseEvent(done);
        }
    }
    EXPECT(st == OCR_OK, "%s kind %d n %llu: %s", ocr_type_name(k->t), (int)k->kind,
           (unsigned long long)k->n, ocr_reducer_last_error(r));
    if (st == OCR_OK) {
        uint64_t bad = k->bins + 3;
        for (uint64_t b = 0; b < k->bins + 3 && bad == k->bins + 3; ++b)
            if (memcmp(expect + b * cs, got + b * cs, cs)) bad = b;
        EXPECT(bad == k->bins + 3,
               "%s kind %d bins %llu n %llu off %llu data %d weights %d bits %d acc %d method %d "
               "host %d: first wrong element %llu (guard 0, bins 1..): %g, expected %g",
               ocr_type_name(k->t), (int)k->kind, (unsigned long long)k->bins,
               (unsigned long long)k->n, (unsigned long long)k->offset, k->data, k->weights,
               k->bits, k->accumulate, k->method, k->host, (unsigned long long)bad,
               elem(got, bad, cs, k->weights), elem(expect, bad, cs, k->weights));
    }
    clReleaseMemObject(in), clReleaseMemObject(eb), clReleaseMemObject(wb), clReleaseMemObject(out);
    free(h), free(edges), free(ef), free(ed), free(wf), free(wd), free(expect), free(got);
}

static void run(hcase k) {
    /* one kind alone, without weights (the mutants test: fewer builds) */
    const char *only = getenv("TEST_HISTOGRAM_KIND");
    if (!only || (atoi(only) == (int)k.kind && !k.weights)) run_case(&k);
}

/* Every case for samples of t: three seeds. Even bins and bincount for
 * every type; edges (in the bin type: float for the small types, half and
 * float, double for the rest) and weights (float; double too for float and
 * double samples) for about half of the types each, so that the kernels
 * built in a fresh CI run stay few: the sample's load and conversion, which
 * depends on its type, is the even bins' code too. */
static int one_of(ocr_type t, const ocr_type *set, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (set[i] == t) return 1;
    return 0;
}

static void types(ocr_type t) {
    static const ocr_type with_edges[] = {OCR_CHAR, OCR_USHORT, OCR_UINT,
                                          OCR_LONG, OCR_HALF,   OCR_DOUBLE};
    static const ocr_type with_weights[] = {OCR_UCHAR, OCR_INT,   OCR_ULONG,
                                            OCR_HALF,  OCR_FLOAT, OCR_DOUBLE};
    int ed = bins_in_double(t), wd = t == OCR_FLOAT || t == OCR_DOUBLE;
    int edges = one_of(t, with_edges, 6), weights = one_of(t, with_weights, 6);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)t;
        uint64_t n = 1 + draw() % 20000, off = seed == 2 ? 1 + draw() % 7 : 0;
        uint64_t bins = 1 + draw() % 300;
        for (int m = 0; m < OCR_HIST_NMETHODS; ++m)
            run((hcase){t, n, off, bins, OCR_HIST_EVEN, 0, 0, 64, 0, m, 0, 0});
        run((hcase){t, n, off, bins, OCR_HIST_EVEN, 1, 0, 32, 0, 0, 0, 0});
        run((hcase){t, n, off, bins, OCR_HIST_EVEN, 1, 0, 64, 0, OCR_HIST_LOCAL, 1, 0});
        run((hcase){t, n, off, bins, OCR_HIST_EVEN, 2, 0, 64, 1, 0, 0, 0});
        run((hcase){t, n, off, 256, OCR_HIST_EVEN, 2, 0, 32, 0, OCR_HIST_GLOBAL, 1, 0});
        if (edges) {
            run((hcase){t, n, off, bins, OCR_HIST_EDGES, 0, 0, 64, 0, (int)seed % 4, 0, ed});
            run((hcase){t, n, off, bins, OCR_HIST_EDGES, 2, 0, 32, 0, 0, 1, ed});
        }
        if (weights)
            run((hcase){t, n, off, bins, OCR_HIST_EVEN, 0, 1 + (wd && seed != 2), 64, seed == 3,
                        (int)seed % OCR_HIST_NMETHODS, 0, 0});
        if (is_int(t)) {
            run((hcase){t, n, off, bins, OCR_HIST_BINCOUNT, 0, 0, 64, 0, 0, 0, 0});
            run((hcase){t, n, off, 1 + bins / 7, OCR_HIST_BINCOUNT, 1, 0, 32, 1, 0, 1, 0});
        }
        run((hcase){t, 0, off, bins, OCR_HIST_EVEN, 0, 0, 64, 0, 0, 0, 0}); /* n = 0 */
        run((hcase){t, 0, off, bins, OCR_HIST_EVEN, 0, 0, 32, 1, 0, 1, 0});
    }
    /* bins that do not fit in local memory: the global path */
    rng = 77 + (uint64_t)t;
    run((hcase){t, 5000, 3, 1u << 20, OCR_HIST_EVEN, 0, 0, 64, 0, 0, 0, 0});
}

static void few(ocr_type t) {
    rng = 5;
    /* Enough samples that every work-item of a large group counts some, in
     * whole vectors and a tail. First: oclgrind 21.10 keeps a kernel's
     * local-memory shadow at the size of its first launch, so after a
     * launch with fewer bins it calls every count past them uninitialized
     * (13 bins, then 14: seen, the counts right natively). */
    run((hcase){t, 9000, 3, 256, OCR_HIST_EVEN, 0, 0, 32, 0, 0, 0, 0});
    run((hcase){t, 9000, 0, 200, OCR_HIST_EVEN, 1, 0, 32, 0, OCR_HIST_LOCAL, 0, 0});
    for (int m = 0; m < OCR_HIST_NMETHODS; ++m)
        run((hcase){t, 100, 1, 13, OCR_HIST_EVEN, 0, 0, 64, 0, m, 0, 0});
    run((hcase){t, 60, 0, 5, OCR_HIST_EVEN, 1, 0, 32, 1, OCR_HIST_AGGREGATE, 0, 0});
    run((hcase){t, 60, 2, 7, OCR_HIST_EDGES, 2, 0, 64, 0, 0, 0, 1});
    run((hcase){t, 60, 0, 9, OCR_HIST_EVEN, 0, 1, 64, 0, 0, 0, 0});
    if (is_int(t)) run((hcase){t, 60, 0, 9, OCR_HIST_BINCOUNT, 0, 0, 64, 0, 0, 1, 0});
}

/* ---- misuse ---- */

static void expect_usage(ocr_status st, ocr_reducer *r, const char *what, const char *word) {
    const char *m = ocr_reducer_last_error(r);
    EXPECT(st == OCR_USAGE && strstr(m, word), "%s: status %d, message '%s'", what, (int)st, m);
}

static void misuse(void) {
    cl_int err;
    ocr_reducer *r = reducer_for(OCR_FLOAT), *ri = reducer_for(OCR_INT);
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CL_OK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CL_OK(err);
    float zeros[1024] = {0};
    CL_OK(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL));
    ocr_histogram_spec sp = OCR_HISTOGRAM_SPEC;
    sp.bins = 10, sp.lower = 0, sp.upper = 1;
    ocr_histogram_spec bad = sp;
    bad.bins = 0;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r, "bins 0",
                 "bins");
    bad = sp, bad.lower = 1;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "lower == upper", "range");
    bad = sp, bad.upper = INFINITY;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "infinite range", "range");
    bad = sp, bad.lower = NAN;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "NaN range", "range");
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &sp, out, 509, 0, NULL, NULL), r,
                 "counts too small", "fewer");
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 2000, &sp, out, 0, 0, NULL, NULL), r,
                 "input too small", "input buffer");
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &sp, in, 40, 0, NULL, NULL), r, "overlap",
                 "overlaps");
    CHECK(ocr_reducer_histogram(r, q, in, 0, 100, &sp, in, 200, 0, NULL, NULL) == OCR_OK);
    bad = sp, bad.kind = OCR_HIST_BINCOUNT;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "bincount of floats", "integers");
    bad = sp, bad.count_bits = 16;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "count_bits 16", "count_bits");
    bad = sp, bad.count_bits = 32;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 5000000000ull, &bad, out, 0, 0, NULL, NULL), r,
                 "uint32 for 2^32 samples", "overflow");
    bad = sp, bad.weights = in, bad.weights_type = OCR_INT;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "int weights", "weights");
    bad = sp, bad.weights = out, bad.weights_type = OCR_FLOAT;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r,
                 "weights overlap", "overlaps");
    bad = sp, bad.kind = OCR_HIST_EDGES, bad.edges = out, bad.edges_type = OCR_FLOAT;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 5, 0, NULL, NULL), r,
                 "edges overlap", "overlaps");
    bad = sp, bad.kind = (ocr_histogram_kind)7;
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &bad, out, 0, 0, NULL, NULL), r, "kind 7",
                 "kind");
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, NULL, out, 0, 0, NULL, NULL), r,
                 "NULL spec", "NULL");
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &sp, out, 0, 1, NULL, NULL), r,
                 "wait list", "wait list");
    expect_usage(ocr_reducer_histogram_host(r, q, in, 0, 100, &sp, NULL, 0, NULL), r,
                 "NULL host counts", "NULL");
    /* another context's buffer */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    cl_mem far = clCreateBuffer(other, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CL_OK(err);
    expect_usage(ocr_reducer_histogram(r, q, in, 0, 100, &sp, far, 0, 0, NULL, NULL), r,
                 "other context", "context");
    clReleaseMemObject(far), clReleaseContext(other);
    /* a user event in the wait list: nothing runs before it completes */
    cl_event user = clCreateUserEvent(ctx, &err), done = NULL;
    CL_OK(err);
    float ones[100];
    for (int i = 0; i < 100; ++i)
        ones[i] = 0.55f;
    cl_event wrote = NULL;
    cl_command_queue q2 = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    CL_OK(clEnqueueWriteBuffer(q2, in, CL_FALSE, 0, sizeof ones, ones, 1, &user, &wrote));
    CHECK(ocr_reducer_histogram(r, q, in, 0, 100, &sp, out, 0, 1, &wrote, &done) == OCR_OK);
    cl_int status = 0;
    CL_OK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CHECK(status != CL_COMPLETE);
    CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
    CL_OK(clWaitForEvents(1, &done));
    uint64_t c[10];
    CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    EXPECT(c[5] == 100 && c[0] == 0, "after the wait list: bin 5 %llu", (unsigned long long)c[5]);
    clReleaseEvent(done), clReleaseEvent(wrote), clReleaseEvent(user), clReleaseCommandQueue(q2);
    /* a blocking call with a wait list of its own */
    uint64_t hc[10] = {0};
    CHECK(ocr_reducer_histogram_host(r, q, in, 0, 100, &sp, hc, 0, NULL) == OCR_OK);
    CHECK(hc[5] == 100);
    /* an out-of-order queue: the merge waits for the counting, each method */
    cl_command_queue ooo =
        clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err == CL_SUCCESS) {
        for (int m = 0; m < OCR_HIST_NMETHODS; ++m) {
            ocr_histogram_spec so = sp;
            so.method = (ocr_histogram_method)m;
            uint64_t oc[10] = {0};
            CHECK(ocr_reducer_histogram_host(r, ooo, in, 0, 100, &so, oc, 0, NULL) == OCR_OK);
            EXPECT(oc[5] == 100, "out of order, method %d: bin 5 %llu", m,
                   (unsigned long long)oc[5]);
        }
        clReleaseCommandQueue(ooo);
    }
    /* bincount of int samples: negatives and values >= bins not counted */
    int iv[8] = {-1, 0, 3, 3, 9, 10, 2147483647, 5};
    cl_mem ib = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof iv, iv, &err);
    CL_OK(err);
    ocr_histogram_spec bc = OCR_HISTOGRAM_SPEC;
    bc.kind = OCR_HIST_BINCOUNT, bc.bins = 10, bc.count_bits = 32;
    uint32_t c32[10] = {0};
    CHECK(ocr_reducer_histogram_host(ri, q, ib, 0, 8, &bc, c32, 0, NULL) == OCR_OK);
    EXPECT(c32[0] == 1 && c32[3] == 2 && c32[9] == 1 && c32[5] == 1 && c32[1] == 0,
           "bincount: %u %u %u %u", c32[0], c32[3], c32[5], c32[9]);
    clReleaseMemObject(ib);
    clReleaseMemObject(in), clReleaseMemObject(out);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "types";
    CL_OPEN_FIRST(dev, ctx, q);
    if (!strcmp(mode, "types") && argc > 2) {
        ocr_type t;
        if (ocr_type_from_name(argv[2], &t)) return 2;
        local_size = argc > 3 ? (size_t)atoi(argv[3]) : 0;
        types(t);
    } else if (!strcmp(mode, "few") && argc > 2) {
        ocr_type t;
        if (ocr_type_from_name(argv[2], &t)) return 2;
        local_size = argc > 3 ? (size_t)atoi(argv[3]) : 0;
        kernel_dir = argc > 4 && argv[4][0] ? argv[4] : NULL;
        few(t);
    } else if (!strcmp(mode, "misuse"))
        misuse();
    else {
        fprintf(stderr,
                "usage: test_histogram types TYPE [LOCAL] | few TYPE [LOCAL [KERNEL_DIR]] | "
                "misuse\n");
        return 2;
    }
    return check_summary("test_histogram");
}
