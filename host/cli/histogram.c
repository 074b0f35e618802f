/* histogram.c - --histogram BINS: the library's histogram
 * (ocr_reducer_histogram) of -s N seeded samples of --type into BINS even
 * bins over --range, timed (kernel events) and checked bin for bin, bit for
 * bit, against a CPU loop on every run. --data uniform (the default) draws
 * the samples uniformly over the range widened by an eighth (so some fall
 * outside it, and are not counted); --data one-bin gives every sample one
 * value (the contention a histogram kernel must survive). With
 * --kernel-file, a student's kernel instead (OCR_KERNEL_HISTOGRAM: its
 * signature checked by the build), one launch a run (ocr_hist_file_run),
 * the bins computed in float, and a second data set of edge values. */
#include "modes.h"
#include "cli_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- samples ------------------------------------------------------------- */

static uint64_t next(uint64_t *s) { /* xorshift64* */
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A half's bits for v (|v| < 65504, truncated to 10 mantissa bits), and back. */
static uint16_t half_bits(double v) {
    uint16_t sign = v < 0 ? 0x8000 : 0;
    double a = fabs(v);
    if (a < ldexp(1, -14)) return sign; /* flushed: the few subnormals are not needed */
    int e;
    double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)((m * 2 - 1) * 1024));
}
static double half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* Stores v (within the type's range) as element i of t. */
static void put(ocr_type t, void *p, uint64_t i, double v) {
    switch (t) {
    case OCR_CHAR:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case OCR_UCHAR:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case OCR_SHORT:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case OCR_USHORT:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case OCR_INT:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case OCR_UINT:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case OCR_LONG:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case OCR_ULONG:
        ((uint64_t *)p)[i] = (uint64_t)v;
        break;
    case OCR_HALF:
        ((uint16_t *)p)[i] = half_bits(v);
        break;
    case OCR_FLOAT:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = v;
        break;
    }
}

/* The type's smallest and largest values (as doubles; the 64-bit ones
 * rounded inwards so that a conversion back cannot overflow). */
static void type_limits(ocr_type t, double *lo, double *hi) {
    static const double l[][2] = {[OCR_CHAR] = {-128, 127},
                                  [OCR_UCHAR] = {0, 255},
                                  [OCR_SHORT] = {-32768, 32767},
                                  [OCR_USHORT] = {0, 65535},
                                  [OCR_INT] = {-2147483648.0, 2147483647.0},
                                  [OCR_UINT] = {0, 4294967295.0},
                                  [OCR_LONG] = {-9.2e18, 9.2e18},
                                  [OCR_ULONG] = {0, 1.8e19},
                                  [OCR_HALF] = {-65504, 65504},
                                  [OCR_FLOAT] = {-3e38, 3e38},
                                  [OCR_DOUBLE] = {-1e308, 1e308}};
    *lo = l[t][0], *hi = l[t][1];
}

/* The default range: [0, 256] for char and uchar, [0, BINS] for the other
 * integers, [0, 1] for floats. */
static void default_range(const cli_options *o, double *lo, double *hi) {
    *lo = 0;
    if (o->type == OCR_CHAR || o->type == OCR_UCHAR)
        *hi = 256;
    else
        *hi = ocr_type_is_float(o->type) ? 1.0 : (double)o->histogram;
}

static void make_samples(const cli_options *o, double lo, double hi, void *p) {
    uint64_t s = o->seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    double tlo, thi, w = (hi - lo) / 16, one = lo + (hi - lo) * 0.37;
    type_limits(o->type, &tlo, &thi);
    for (uint64_t i = 0; i < o->size; ++i) {
        double v =
            o->one_bin ? one : lo - w + (hi - lo + 2 * w) * ((double)(next(&s) >> 11) * 0x1p-53);
        if (!ocr_type_is_float(o->type)) v = floor(v);
        put(o->type, p, i, fmin(thi, fmax(tlo, v)));
    }
}

/* ---- the CPU loop -------------------------------------------------------- */

/* The bin of element i (the library's rule, ocr_reducer.h: floor((x - lo)
 * * bins / (hi - lo)) in float for the small types and float, in double for
 * the rest; hi in the last bin), or -1. */
static int64_t bin_of(const cli_options *o, const void *p, uint64_t i, double lo, double hi,
                      int file) {
    double x;
    switch (o->type) {
    case OCR_CHAR:
        x = ((const int8_t *)p)[i];
        break;
    case OCR_UCHAR:
        x = ((const uint8_t *)p)[i];
        break;
    case OCR_SHORT:
        x = ((const int16_t *)p)[i];
        break;
    case OCR_USHORT:
        x = ((const uint16_t *)p)[i];
        break;
    case OCR_INT:
        x = ((const int32_t *)p)[i];
        break;
    case OCR_UINT:
        x = ((const uint32_t *)p)[i];
        break;
    case OCR_LONG:
        x = (double)((const int64_t *)p)[i];
        break;
    case OCR_ULONG:
        x = (double)((const uint64_t *)p)[i];
        break;
    case OCR_HALF:
        x = half_value(((const uint16_t *)p)[i]);
        break;
    case OCR_FLOAT:
        x = ((const float *)p)[i];
        break;
    default:
        x = ((const double *)p)[i];
        break;
    }
    uint64_t bins = o->histogram, b;
    /* a --kernel-file kernel computes in float whatever T (its lo, hi are floats) */
    int in_float = file || o->type == OCR_CHAR || o->type == OCR_UCHAR || o->type == OCR_SHORT ||
                   o->type == OCR_USHORT || o->type == OCR_HALF || o->type == OCR_FLOAT;
    if (in_float) {
        volatile float v = (float)x, l = (float)lo, h = (float)hi, sc = (float)bins / (h - l);
        if (!(v >= l && v <= h)) return -1;
        volatile float d = v - l, f = d * sc;
        b = (uint64_t)f;
    } else {
        volatile double sc = (double)bins / (hi - lo);
        if (!(x >= lo && x <= hi)) return -1;
        volatile double d = x - lo, f = d * sc;
        b = (uint64_t)f;
    }
    return (int64_t)(b < bins ? b : bins - 1);
}

/* ---- the run ------------------------------------------------------------- */

typedef struct {
    ocr_device *dev;
    ocr_reducer *r;
    cl_mem in, out;
    void *data;
    uint64_t *want, *got;
} hist_run;

static ocr_status setup(const cli_options *o, double lo, double hi, hist_run *h) {
    ocr_status st;
    cl_int err = CL_SUCCESS;
    size_t es = ocr_type_size(o->type), bins = (size_t)o->histogram;
    ocr_reducer_options opt = OCR_REDUCER_OPTIONS;
    opt.kernel_dir = o->kernel_dir, opt.local_size = o->local_size;
    opt.build_options = o->build_options;
    if ((st = ocr_device_open(&o->device, &h->dev)) != OCR_OK) return st;
    cl_context ctx = ocr_device_context(h->dev);
    if ((st = ocr_reducer_create(ctx, ocr_device_id(h->dev), o->type, OCR_SUM, &opt, &h->r)) !=
        OCR_OK)
        return st;
    if (!(h->data = malloc((size_t)o->size * es + 1)) ||
        !(h->want = calloc(bins, sizeof *h->want)) || !(h->got = calloc(bins, sizeof *h->got))) {
        fprintf(stderr, "oclReduction: out of host memory for %llu samples\n",
                (unsigned long long)o->size);
        return OCR_NO_MEMORY;
    }
    make_samples(o, lo, hi, h->data);
    for (uint64_t i = 0; i < o->size; ++i) {
        int64_t b = bin_of(o, h->data, i, lo, hi, 0);
        if (b >= 0) ++h->want[b];
    }
    h->in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, o->size * es + 1, h->data,
                           &err);
    if (err == CL_SUCCESS)
        h->out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bins * sizeof(uint64_t), NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: cannot allocate the device buffers: %s\n",
                ocr_cl_error_name(err));
        return OCR_NO_MEMORY;
    }
    return OCR_OK;
}

/* One timed call, the counts read back and compared: *ns the call's device
 * time; *wrong the bins that differ (the first in *first). */
static ocr_status one_run(const cli_options *o, const ocr_histogram_spec *sp, hist_run *h,
                          uint64_t *ns, uint64_t *wrong, uint64_t *first) {
    ocr_status st;
    cl_event done = NULL, before = NULL;
    cl_command_queue q = ocr_device_queue(h->dev);
    uint64_t h0 = ocr_now_ns(), bins = o->histogram;
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: clEnqueueMarkerWithWaitList failed: %s\n",
                ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    st = ocr_reducer_histogram(h->r, q, h->in, 0, o->size, sp, h->out, 0, 0, NULL, &done);
    if (st == OCR_OK) st = cli_call_span(before, done, h0, ns);
    clReleaseEvent(before);
    if (st == OCR_OK)
        err = clEnqueueReadBuffer(q, h->out, CL_TRUE, 0, bins * sizeof *h->got, h->got, 0, NULL,
                                  NULL);
    if (done) clReleaseEvent(done);
    if (st != OCR_OK) return st; /* it said why */
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: the histogram run failed: %s\n", ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    for (uint64_t b = 0; b < bins; ++b)
        if (h->got[b] != h->want[b] && !(*wrong)++) *first = b;
    return OCR_OK;
}

static void hist_release(hist_run *h) {
    if (h->out) clReleaseMemObject(h->out);
    if (h->in) clReleaseMemObject(h->in);
    ocr_reducer_release(h->r);
    ocr_device_close(h->dev);
    free(h->data), free(h->want), free(h->got);
}

/* ---- --kernel-file: a student's kernel ------------------------------------ */

/* The second data set: drawn with seed + 1, every fourth sample moved onto a
 * bin edge (lo and hi included, computed in float as the bins are), and for
 * floats a NaN every 64: where an off-by-one bin or an open last bin shows. */
static void edge_samples(const cli_options *o, double lo, double hi, void *p) {
    cli_options o2 = *o;
    o2.seed = o->seed + 1, o2.one_bin = 0;
    make_samples(&o2, lo, hi, p);
    uint64_t s = o2.seed * 0x9e3779b97f4a7c15ull + 1;
    volatile float l = (float)lo, w = (float)hi - (float)lo;
    for (uint64_t i = 0; i < o->size; i += 4) {
        uint64_t k = next(&s) % (o->histogram + 1);
        volatile float e = k == o->histogram ? (float)hi : l + w * (float)k / (float)o->histogram;
        double v = ocr_type_is_float(o->type) && i % 64 == 32 ? NAN : (double)e;
        put(o->type, p, i, ocr_type_is_float(o->type) || isnan(v) ? v : floor(v));
    }
}

typedef struct {
    ocr_device *dev;
    ocr_kernel *k;
    cl_mem in, counts;
    void *data;
    uint64_t *want;
    cl_uint *got;
} file_run;

/* The student's kernel built through the library's --kernel-file path (source
 * reading, build log, signature check: OCR_KERNEL_HISTOGRAM), the buffers. */
static ocr_status file_setup(const cli_options *o, file_run *f) {
    ocr_status st;
    cl_int err = CL_SUCCESS;
    size_t bins = (size_t)o->histogram;
    ocr_build_request rq = {0};
    if (o->size > 0xffffffffull)
        return cli_usage_error("--histogram --kernel-file counts in uint: -s at most 2^32 - 1");
    if ((st = cli_check_kernel_file(o->kernel_file)) != OCR_OK) return st;
    rq.spec = cli_file_kernel(o->kernel_name, o->kernel_file, o->local_size ? o->local_size : 64, 1,
                              "user histogram kernel");
    rq.spec.caps = OCR_KERNEL_HISTOGRAM;
    rq.kernel_file = o->kernel_file;
    rq.type = o->type, rq.op = OCR_SUM, rq.local_size = o->local_size;
    rq.extra_options = o->build_options;
    if ((st = ocr_device_open(&o->device, &f->dev)) != OCR_OK ||
        (st = ocr_kernel_build(f->dev, &rq, &f->k)) != OCR_OK)
        return st;
    if (!(f->data = malloc((size_t)o->size * ocr_type_size(o->type) + 1)) ||
        !(f->want = calloc(bins, sizeof *f->want)) ||
        !(f->got = calloc(bins + 1, sizeof *f->got))) {
        fprintf(stderr, "oclReduction: out of host memory for %llu samples\n",
                (unsigned long long)o->size);
        return OCR_NO_MEMORY;
    }
    cl_context ctx = ocr_device_context(f->dev);
    f->in = clCreateBuffer(ctx, CL_MEM_READ_ONLY, o->size * ocr_type_size(o->type) + 1, NULL, &err);
    if (err == CL_SUCCESS)
        f->counts =
            clCreateBuffer(ctx, CL_MEM_READ_WRITE, (bins + 1) * sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: cannot allocate the device buffers: %s\n",
                ocr_cl_error_name(err));
        return OCR_NO_MEMORY;
    }
    return OCR_OK;
}

/* Data set `set` (0: --data's, 1: edge_samples) to the device and the CPU loop's counts. */
static ocr_status file_data(const cli_options *o, const cli_histogram_result *r, file_run *f,
                            int set) {
    cl_command_queue q = ocr_device_queue(f->dev);
    (set ? edge_samples : make_samples)(o, r->lo, r->hi, f->data);
    memset(f->want, 0, (size_t)o->histogram * sizeof *f->want);
    for (uint64_t i = 0; i < o->size; ++i) {
        int64_t b = bin_of(o, f->data, i, (float)r->lo, (float)r->hi, 1);
        if (b >= 0) ++f->want[b];
    }
    cl_int err = o->size
                     ? clEnqueueWriteBuffer(q, f->in, CL_TRUE, 0, o->size * ocr_type_size(o->type),
                                            f->data, 0, NULL, NULL)
                     : CL_SUCCESS;
    if (err == CL_SUCCESS) return OCR_OK;
    fprintf(stderr, "oclReduction: writing the samples failed: %s\n", ocr_cl_error_name(err));
    return OCR_OPENCL;
}

/* One launch, its counts compared bin for bin and the guard behind them. */
static ocr_status file_once(const cli_options *o, cli_histogram_result *r, file_run *f,
                            uint64_t *ns) {
    ocr_hist_file_options ho = {o->histogram, (float)r->lo, (float)r->hi, o->groups};
    ocr_hist_file_launch l;
    ocr_status st = ocr_hist_file_run(f->dev, f->k, f->in, o->size, f->counts, &ho, &l);
    if (st != OCR_OK) return st;
    r->local = l.local, r->groups = l.groups, *ns = l.ns;
    cl_int err =
        clEnqueueReadBuffer(ocr_device_queue(f->dev), f->counts, CL_TRUE, 0,
                            ((size_t)o->histogram + 1) * sizeof *f->got, f->got, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: the histogram run failed: %s\n", ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    for (uint64_t b = 0; b < o->histogram; ++b)
        if (f->got[b] != f->want[b] && !r->wrong++) r->first = b;
    r->past_end += f->got[o->histogram] != 0;
    r->runs++;
    return OCR_OK;
}

static ocr_status run_file(const cli_options *o, cli_histogram_result *r) {
    file_run f = {0};
    uint64_t *ns = malloc(((size_t)o->repeats + 1) * sizeof *ns), edge_ns;
    ocr_status st = ns ? file_setup(o, &f) : OCR_NO_MEMORY;
    if (st == OCR_OK) st = file_data(o, r, &f, 0);
    for (unsigned i = 0; st == OCR_OK && i <= o->repeats; ++i)
        st = file_once(o, r, &f, &ns[i]);
    for (uint64_t b = 0; st == OCR_OK && b < o->histogram; ++b)
        r->counted += f.want[b];
    if (st == OCR_OK) st = file_data(o, r, &f, 1);
    if (st == OCR_OK) st = file_once(o, r, &f, &edge_ns);
    if (st == OCR_OK) {
        ocr_median_min_u64(ns + 1, o->repeats, &r->median, &r->min);
        r->gbps = r->median ? (double)o->size * ocr_type_size(o->type) / (double)r->median : 0;
        r->kernel = o->kernel_name;
        cli_report_histogram(o, ocr_device_get_info(f.dev)->name, r);
        if (r->wrong || r->past_end) st = OCR_WRONG;
    }
    if (f.counts) clReleaseMemObject(f.counts);
    if (f.in) clReleaseMemObject(f.in);
    ocr_kernel_release(f.k);
    ocr_device_close(f.dev);
    free(f.data), free(f.want), free(f.got), free(ns);
    return st;
}

ocr_status cli_run_histogram(const cli_options *o, int *argc, char ***argv) {
    hist_run h = {0};
    cli_histogram_result r = {0};
    if (o->race_check) return cli_run_race_check(o, argc, argv); /* it runs us again */
    if (o->range_given)
        r.lo = o->range_lo, r.hi = o->range_hi;
    else
        default_range(o, &r.lo, &r.hi);
    if (o->kernel_file) return run_file(o, &r);
    ocr_histogram_spec sp = OCR_HISTOGRAM_SPEC;
    sp.bins = o->histogram, sp.lower = r.lo, sp.upper = r.hi;
    sp.method = (ocr_histogram_method)o->hist_method;
    uint64_t *ns = malloc(((size_t)o->repeats + 1) * sizeof *ns);
    ocr_status st = ns ? setup(o, r.lo, r.hi, &h) : OCR_NO_MEMORY;
    for (unsigned i = 0; st == OCR_OK && i <= o->repeats; ++i, ++r.runs)
        st = one_run(o, &sp, &h, &ns[i], &r.wrong, &r.first);
    if (st == OCR_OK) {
        ocr_median_min_u64(ns + 1, o->repeats, &r.median, &r.min);
        for (uint64_t b = 0; b < o->histogram; ++b)
            r.counted += h.want[b];
        r.gbps = r.median ? (double)o->size * ocr_type_size(o->type) / (double)r.median : 0;
        cli_report_histogram(o, ocr_device_get_info(h.dev)->name, &r);
        if (r.wrong) st = OCR_WRONG;
    }
    hist_release(&h);
    free(ns);
    return st;
}
