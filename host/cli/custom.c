/* custom.c - --preset dot|nrm2|asum|stats and --map/--reduce/--neutral: the
 * library's custom reducer (ocr_reducer_create_custom) over the generated
 * data, x (the seeded input of -s N) and y (the same size from another seed
 * stream), every run checked and the timed ones timed by their kernels'
 * events, reported like the single run (report.c). The bounds come from the
 * kernel's order of operations (ocr_reducer_custom_depth): presets against
 * C sums in long double, a free expression against the same spec run by one
 * work-item (the embedded kernel, on a CPU device where there is one);
 * integers exactly. */
#include "modes.h"
#include "cli_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The presets' spec parts; T is the data's type, float or double. nrm2
 * keeps (scale, ssq), the value scale * sqrt(ssq), as LAPACK's xNRM2 does:
 * every square is of a value at most 1, so the sum overflows only where the
 * norm itself does. */
#define NRM2_PRE                                                                                   \
    "nrm2s nrm2_of(T v) { nrm2s s = {fabs(v), 1}; return s; }\n"                                   \
    "nrm2s nrm2_merge(nrm2s a, nrm2s b) {\n"                                                       \
    "  if (a.scale < b.scale) { nrm2s t = a; a = b; b = t; }\n"                                    \
    "  if (a.scale == 0) return a;\n"                                                              \
    "  T r = b.scale / a.scale;\n"                                                                 \
    "  nrm2s s = {a.scale, a.ssq + b.ssq * r * r}; return s; }\n"
#define STATS_PRE                                                                                  \
    "stats stats_of(T v) { stats s = {1, v, 0}; return s; }\n"                                     \
    "stats stats_merge(stats a, stats b) {\n"                                                      \
    "  T n = a.n + b.n; if (n == 0) return a;\n"                                                   \
    "  T d = b.mean - a.mean;\n"                                                                   \
    "  stats s = {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};\n"            \
    "  return s; }\n"

typedef struct {
    const char *name, *map, *reduce, *neutral;
    const char *fields, *preamble; /* a struct's: its T fields, its helpers */
    size_t nfields;
} preset;

static const preset presets[] = {
    {"dot", "x[i] * y[i]", "a + b", "0", NULL, NULL, 0},
    {"nrm2", "nrm2_of(x[i])", "nrm2_merge(a, b)", "{0, 1}", "scale, ssq", NRM2_PRE, 2},
    {"asum", "fabs(x[i])", "a + b", "0", NULL, NULL, 0},
    {"stats", "stats_of(x[i])", "stats_merge(a, b)", "{0, 0, 0}", "n, mean, m2", STATS_PRE, 3},
};

static const preset *preset_of(const char *name) {
    for (size_t k = 0; name && k < sizeof presets / sizeof presets[0]; ++k)
        if (!strcmp(presets[k].name, name)) return &presets[k];
    return NULL;
}

ocr_status cli_custom_rule(const cli_options *o) {
    if (o->preset && !preset_of(o->preset))
        return cli_usage_error("--preset takes dot, nrm2, asum or stats");
    if (o->preset && cli_given(o, "type") && !ocr_type_is_float(o->type))
        return cli_usage_error("--preset runs on float or double data (--type)");
    if (o->map && (!o->reduce || !o->neutral))
        return cli_usage_error("--map needs --reduce and --neutral");
    if (o->type == OCR_HALF) return cli_usage_error("--map and --preset read no half data");
    return OCR_OK;
}

typedef struct {
    ocr_device *dev, *ref_dev;  /* ref_dev: the reference's, when another */
    ocr_reducer *r, *ref, *mag; /* mag: sum |map| for a free float expression's bound */
    char *mag_map;
    cl_mem x, y, rx, ry, out;
    void *hx, *hy;
    ocr_type type;
    char decl[96];
} cu_run;

/* What a result is checked against: the reference's value or parts, the
 * bounds, and the depth they came from. */
typedef struct {
    double want, mag, mean, m2, max_abs;
    double tol, tol_mean, tol_m2;
    unsigned char bytes[8]; /* a free expression's reference */
    uint64_t depth;
} cu_ref;

/* The spec: the preset's or the options', over x and y of the data type
 * (a preset's stats: a struct of three of them). */
static void make_spec(const cli_options *o, cu_run *s, ocr_custom_spec *sp, ocr_custom_arg args[2],
                      char *pre, size_t pre_len) {
    const preset *p = preset_of(o->preset);
    const char *tn = ocr_type_name(s->type);
    args[0] = (ocr_custom_arg){"x", s->type, 1};
    args[1] = (ocr_custom_arg){"y", s->type, 1};
    sp->type = s->type, sp->args = args, sp->num_args = 2;
    sp->map = p ? p->map : o->map;
    sp->reduce = p ? p->reduce : o->reduce;
    sp->neutral = p ? p->neutral : o->neutral;
    if (p && p->fields) {
        const char *sname = p->nfields == 2 ? "nrm2s" : "stats";
        snprintf(s->decl, sizeof s->decl, "typedef struct { %s %s; } %s;", tn, p->fields, sname);
        sp->struct_decl = s->decl, sp->struct_name = sname;
        sp->struct_size = p->nfields * ocr_type_size(s->type);
        /* T spelled out: the preamble may define no macro */
        const char *src = p->preamble;
        size_t n = 0;
        for (; *src && n + 8 < pre_len; ++src)
            if (*src == 'T' && (src[1] == ' '))
                n += (size_t)snprintf(pre + n, pre_len - n, "%s", tn);
            else
                pre[n++] = *src;
        pre[n] = '\0';
        sp->preamble = pre;
    }
}

/* Two device buffers of n elements from host memory. */
static ocr_status upload(ocr_device *d, const cu_run *s, size_t bytes, cl_mem *x, cl_mem *y) {
    cl_int err;
    cl_context c = ocr_device_context(d);
    *x = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, s->hx, &err);
    if (err == CL_SUCCESS)
        *y = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, s->hy, &err);
    if (err == CL_SUCCESS) return OCR_OK;
    fprintf(stderr, "oclReduction: cannot allocate the device buffers: %s\n",
            ocr_cl_error_name(err));
    return OCR_NO_MEMORY;
}

/* The reference's device: a CPU where there is one, else the run's. */
static ocr_status reference_device(cu_run *s) {
    ocr_device_choice c;
    int count = 0;
    if (ocr_device_enumerate(CL_DEVICE_TYPE_CPU, &c, 1, &count) == OCR_OK && count == 1 &&
        ocr_device_open(&c, &s->ref_dev) == OCR_OK)
        return OCR_OK;
    s->ref_dev = NULL;
    return OCR_OK;
}

/* Whether a free reduce is a sum, a + b: its bound scales with sum |map|. */
static int is_sum(const char *reduce) {
    return !strcmp(reduce, "a + b") || !strcmp(reduce, "b + a") || !strcmp(reduce, "a+b");
}

/* A free expression's reference reducers on the reference device: the spec
 * run by one work-item (the embedded kernel, whatever --kernel-dir), and for
 * float types sum |map| in the library's geometry, the scale of the bound. */
static ocr_status reference_reducers(cu_run *s, const ocr_custom_spec *sp, size_t bytes) {
    ocr_status st;
    ocr_reducer_options one = OCR_REDUCER_OPTIONS, plain = OCR_REDUCER_OPTIONS;
    one.local_size = 1, one.groups = 1;
    reference_device(s);
    ocr_device *d = s->ref_dev ? s->ref_dev : s->dev;
    cl_context c = ocr_device_context(d);
    if ((st = ocr_reducer_create_custom(c, ocr_device_id(d), sp, &one, &s->ref)) != OCR_OK)
        return st;
    if (ocr_type_is_float(s->type) && is_sum(sp->reduce)) {
        ocr_custom_spec m = *sp;
        size_t len = strlen(sp->map) + 8;
        if (!(s->mag_map = malloc(len))) return OCR_NO_MEMORY;
        snprintf(s->mag_map, len, "fabs(%s)", sp->map);
        m.map = s->mag_map, m.reduce = "a + b", m.neutral = "0";
        if ((st = ocr_reducer_create_custom(c, ocr_device_id(d), &m, &plain, &s->mag)) != OCR_OK)
            return st;
    }
    if (!s->ref_dev) {
        s->rx = s->x, s->ry = s->y;
        clRetainMemObject(s->x), clRetainMemObject(s->y);
        return OCR_OK;
    }
    return upload(d, s, bytes, &s->rx, &s->ry);
}

/* The device's reducer, x and y there, and the result element the timed
 * calls write. */
static ocr_status device_side(const cli_options *o, cu_run *s, const ocr_custom_spec *sp,
                              size_t bytes) {
    ocr_status st;
    cl_int err;
    ocr_reducer_options opt = OCR_REDUCER_OPTIONS;
    opt.kernel_dir = o->kernel_dir, opt.local_size = o->local_size, opt.groups = o->groups;
    opt.build_options = o->build_options;
    if ((st = ocr_device_open(&o->device, &s->dev)) != OCR_OK ||
        (st = ocr_reducer_create_custom(ocr_device_context(s->dev), ocr_device_id(s->dev), sp, &opt,
                                        &s->r)) != OCR_OK ||
        (st = upload(s->dev, s, bytes, &s->x, &s->y)) != OCR_OK)
        return st;
    s->out = clCreateBuffer(ocr_device_context(s->dev), CL_MEM_READ_WRITE,
                            ocr_reducer_custom_size(s->r), NULL, &err);
    if (err == CL_SUCCESS) return OCR_OK;
    fprintf(stderr, "oclReduction: cannot allocate the result buffer: %s\n",
            ocr_cl_error_name(err));
    return OCR_NO_MEMORY;
}

/* x and y on the host: the seeded input of kind `kind`, y from its own
 * seed stream. */
static ocr_status make_data(const cli_options *o, cu_run *s, ocr_data_kind kind) {
    cli_options oy = *o;
    oy.type = s->type, oy.data = kind;
    oy.seed = o->seed * 6364136223846793005ull + 1442695040888963407ull; /* y's stream */
    cli_options ox = oy;
    ox.seed = o->seed;
    free(s->hx), free(s->hy);
    s->hx = cli_make_input(&ox, 0, o->size, "x");
    s->hy = cli_make_input(&oy, 0, o->size, "y");
    return s->hx && s->hy ? OCR_OK : OCR_NO_MEMORY;
}

static ocr_status setup(const cli_options *o, cu_run *s) {
    ocr_status st;
    ocr_custom_arg args[2];
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    char pre[1024];
    s->type = o->preset && !cli_given(o, "type") ? OCR_FLOAT : o->type;
    make_spec(o, s, &sp, args, pre, sizeof pre);
    size_t bytes = o->size * ocr_type_size(s->type);
    if ((st = make_data(o, s, o->data)) != OCR_OK) return st;
    if ((st = device_side(o, s, &sp, bytes)) != OCR_OK || o->preset) return st;
    return reference_reducers(s, &sp, bytes);
}
/* ---- the references and their bounds -------------------------------------------- */

static double elem(const cu_run *s, const void *h, uint64_t i) {
    return s->type == OCR_FLOAT ? ((const float *)h)[i] : ((const double *)h)[i];
}

static double as_double(ocr_type t, const unsigned char *b) {
    float f;
    double d;
    if (t == OCR_FLOAT) return memcpy(&f, b, 4), f;
    memcpy(&d, b, 8);
    return d;
}

/* The sum of w[0..n) compensated in long double (ocr_sum_compensated: one
 * rounding to double, within the +1 of every depth below), and of |w|. */
static double sum_of(const double *w, uint64_t n, double *mag) {
    long double a = 0;
    for (uint64_t i = 0; i < n; ++i)
        a += fabs(w[i]);
    *mag = (double)a;
    return ocr_sum_compensated(w, n, OCR_DOUBLE).d;
}

/* The values a sum preset adds, in double: x y (exact for float data: two
 * 24-bit significands fit 53 bits), |x|, x^2, or x (stats' mean). */
static void preset_values(const preset *p, const cu_run *s, uint64_t n, double *w) {
    for (uint64_t i = 0; i < n; ++i) {
        double a = elem(s, s->hx, i);
        w[i] = !strcmp(p->name, "dot")    ? a * elem(s, s->hy, i)
               : !strcmp(p->name, "asum") ? fabs(a)
               : !strcmp(p->name, "nrm2") ? a * a
                                          : a;
    }
}

/* stats: the mean's and M2's bounds. Chan's merge of (n, mean, M2) pairs
 * rounds d = b.mean - a.mean, w = b.n / n, d w and the sum: a mean stays a
 * convex combination of the inputs' means, so each merge adds at most
 * 3 u |d| w + u |mean| <= 7 u max|x| and passes its inputs' errors on
 * unscaled: E = growth(7 depth) max|x|. M2's own terms are >= 0, each
 * rounded at most 8 times per merge (d twice as d^2, the products, the
 * division, two sums): growth(8 depth) M2; the means' errors move each
 * d^2 w by at most (4 |d| E + 4 E^2) w, and over all merges sum w <= n depth
 * and sum w d^2 = M2, so by Cauchy-Schwarz by X = 4 E sqrt(n depth M2) +
 * 4 E^2 n depth in all. */
static void stats_bounds(ocr_type t, uint64_t n, uint64_t depth, cu_ref *f) {
    double nd = (double)n * (double)depth;
    f->tol_mean = ocr_sum_bound(t, 7 * depth + 2, f->mean, f->max_abs);
    double e = f->tol_mean, x = 4 * e * sqrt(nd * f->m2) + 4 * e * e * nd;
    double g = ocr_sum_bound(t, 8 * depth + 2, 0, 1); /* growth(8 depth + 2) */
    f->tol_m2 = g * f->m2 + (1 + g) * x;
}

/* A preset's reference: C sums in long double of the values it adds, and
 * the bound from the depth (ocr_reducer_custom_depth, L): dot rounds each
 * product once more on the device and, for double data, in the reference
 * (L + 2); asum L + 1 (the reference's rounding); nrm2 relative, up to five
 * roundings of each square per merge (the ratio twice, its square, the
 * product, the sum), halved by the square root, then sqrt and the scale:
 * 5 L + 4; stats: stats_bounds. */
static ocr_status preset_reference(const preset *p, const cu_run *s, uint64_t n, cu_ref *f) {
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!w) {
        fprintf(stderr, "oclReduction: out of host memory for the reference\n");
        return OCR_NO_MEMORY;
    }
    uint64_t L = ocr_reducer_custom_depth(s->r, n);
    int dot = !strcmp(p->name, "dot"), nrm2 = !strcmp(p->name, "nrm2");
    preset_values(p, s, n, w);
    f->want = sum_of(w, n, &f->mag);
    if (nrm2) f->want = sqrt(f->want), f->mag = f->want; /* relative */
    f->depth = dot ? L + 2 : nrm2 ? 5 * L + 4 : L + 1;   /* stats: the mean's, 7 L + 2 */
    f->tol = ocr_sum_bound(s->type, f->depth, f->want, f->mag);
    if (!strcmp(p->name, "stats")) {
        f->mean = n ? f->want / (double)n : 0;
        for (uint64_t i = 0; i < n; ++i) {
            double d = elem(s, s->hx, i) - f->mean;
            f->max_abs = fmax(f->max_abs, fabs(elem(s, s->hx, i)));
            w[i] = d * d;
        }
        f->m2 = sum_of(w, n, &f->mag);
        stats_bounds(s->type, n, L, f);
        f->tol = f->tol_mean, f->depth = 7 * L + 2;
    }
    free(w);
    return OCR_OK;
}

/* A free expression's reference: one work-item's value. Float sums: the
 * bound of both orders (the device's depth and one work-item's, one
 * rounding per call each) times sum |map|, itself a float sum of depth D:
 * at most its value / (1 - growth(D)). Any other float reduce (a product,
 * fmax, ...): each order's n - 1 calls round once, each at worst scaling
 * the whole value: growth(2 (n - 1)) |value|, a product's bound.
 * Integers: compared exactly. */
static ocr_status free_reference(const cli_options *o, cu_run *s, cu_ref *f) {
    ocr_custom_value rv[2] = {{s->rx, 0, {0}}, {s->ry, 0, {0}}};
    cl_command_queue q = ocr_device_queue(s->ref_dev ? s->ref_dev : s->dev);
    ocr_status st = ocr_reducer_reduce_custom(s->ref, q, o->size, rv, f->bytes);
    unsigned char a[8] = {0};
    uint64_t n = o->size;
    if (st != OCR_OK || !ocr_type_is_float(s->type)) return st;
    f->want = as_double(s->type, f->bytes);
    if (!s->mag) {
        f->depth = 2 * (n - 1);
        f->tol = ocr_sum_bound(s->type, f->depth, f->want, fabs(f->want));
        return OCR_OK;
    }
    if ((st = ocr_reducer_reduce_custom(s->mag, q, n, rv, a)) != OCR_OK) return st;
    uint64_t dm = ocr_reducer_custom_depth(s->mag, n);
    double mag = as_double(s->type, a) / (1 - ocr_sum_bound(s->type, dm, 0, 1));
    f->depth = ocr_reducer_custom_depth(s->r, n) + ocr_reducer_custom_depth(s->ref, n);
    f->tol = ocr_sum_bound(s->type, f->depth, f->want, mag);
    return OCR_OK;
}

/* ---- the checks: one run's value against the reference ------------------------------ */

static int near(double g, double w, double tol) {
    return g == w || fabs(g - w) <= tol;
}

static int check_preset(const preset *p, const cu_run *s, const cu_ref *f, uint64_t n,
                        const unsigned char *got, char *res, char *exp, size_t len) {
    size_t es = ocr_type_size(s->type);
    double g = as_double(s->type, got);
    if (!strcmp(p->name, "stats")) {
        double gmean = as_double(s->type, got + es), gm2 = as_double(s->type, got + 2 * es);
        snprintf(res, len, "count %.0f, mean %.9g, variance %.9g", g, gmean, gm2 / g);
        snprintf(exp, len, "count %llu, mean %.9g, variance %.9g", (unsigned long long)n, f->mean,
                 f->m2 / (double)n);
        return g == (double)n && near(gmean, f->mean, f->tol_mean) && near(gm2, f->m2, f->tol_m2);
    }
    if (!strcmp(p->name, "nrm2")) g *= sqrt(as_double(s->type, got + es)); /* scale sqrt(ssq) */
    snprintf(res, len, "%.9g", g);
    snprintf(exp, len, "%.9g", f->want);
    return near(g, f->want, f->tol);
}

static int check_free(const cu_run *s, const cu_ref *f, const unsigned char *got, char *res,
                      char *exp, size_t len) {
    ocr_value_str(s->type, ocr_value_from_bytes(s->type, got), res, len);
    ocr_value_str(s->type, ocr_value_from_bytes(s->type, f->bytes), exp, len);
    if (!ocr_type_is_float(s->type)) return !memcmp(got, f->bytes, ocr_type_size(s->type));
    double g = as_double(s->type, got), w = f->want;
    return near(g, w, f->tol) || (isnan(g) && isnan(w));
}

/* One run's verdict into r: the value shown is the first wrong run's, else
 * the first data set's last. */
static void judge(const cli_options *o, const cu_run *s, const cu_ref *f, const unsigned char *got,
                  int run, cli_custom_result *r) {
    char res[sizeof r->result], exp[sizeof r->expected];
    const preset *p = preset_of(o->preset);
    int ok = p ? check_preset(p, s, f, o->size, got, res, exp, sizeof res)
               : check_free(s, f, got, res, exp, sizeof res);
    if (r->bad_run >= 0 || (ok && run > (int)o->repeats)) return; /* shown: data set 1's */
    memcpy(r->result, res, sizeof res), memcpy(r->expected, exp, sizeof exp);
    if (!ok) r->bad_run = run, r->passed = 0;
}

/* ---- the runs ------------------------------------------------------------------------ */

/* One call, timed by its kernels (cli_call_span), its value read back. */
static ocr_status timed_call(const cli_options *o, cu_run *s, unsigned char *got, uint64_t *ns) {
    ocr_custom_value v[2] = {{s->x, 0, {0}}, {s->y, 0, {0}}};
    cl_command_queue q = ocr_device_queue(s->dev);
    cl_event before = NULL, done = NULL;
    uint64_t h0 = ocr_now_ns();
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
    ocr_status st = OCR_OPENCL;
    if (err == CL_SUCCESS &&
        (st = ocr_reducer_reduce_custom_into(s->r, q, o->size, v, s->out, 0, 0, NULL, &done)) ==
            OCR_OK &&
        (st = cli_call_span(before, done, h0, ns)) == OCR_OK) {
        err = clEnqueueReadBuffer(q, s->out, CL_TRUE, 0, ocr_reducer_custom_size(s->r), got, 0,
                                  NULL, NULL);
        st = err == CL_SUCCESS ? OCR_OK : OCR_OPENCL;
    }
    if (before) clReleaseEvent(before);
    if (done) clReleaseEvent(done);
    if (err != CL_SUCCESS)
        fprintf(stderr, "oclReduction: the custom run failed: %s\n", ocr_cl_error_name(err));
    return st;
}

/* Bytes a call reads: x and y for dot, x for the other presets, each buffer
 * a free map names. */
static uint64_t bytes_read(const cli_options *o, const cu_run *s) {
    const preset *p = preset_of(o->preset);
    int k = p ? 1 + !strcmp(p->name, "dot")
              : (strstr(o->map, "x[") != NULL) + (strstr(o->map, "y[") != NULL);
    return (uint64_t)k * o->size * ocr_type_size(s->type);
}

static void cu_release(cu_run *s) {
    cl_mem m[5] = {s->x, s->y, s->rx, s->ry, s->out};
    for (int k = 0; k < 5; ++k)
        if (m[k]) clReleaseMemObject(m[k]);
    ocr_reducer_release(s->r);
    ocr_reducer_release(s->ref);
    ocr_reducer_release(s->mag);
    ocr_device_close(s->ref_dev);
    ocr_device_close(s->dev);
    free(s->hx), free(s->hy), free(s->mag_map);
}

/* The warm-up and the timed runs, each checked. */
static ocr_status runs(const cli_options *o, cu_run *s, const cu_ref *f, uint64_t *ns,
                       cli_custom_result *r) {
    ocr_status st = OCR_OK;
    unsigned char got[64] = {0};
    for (unsigned i = 0; st == OCR_OK && i <= o->repeats; ++i)
        if ((st = timed_call(o, s, got, &ns[i])) == OCR_OK) judge(o, s, f, got, (int)i, r);
    return st;
}

/* The second data set behind the verdict (docs/output.md): one-sided x and
 * y (exact where the first was one-sided), so that lost values cannot
 * cancel (a dot of signed data hides a quarter of its products inside any
 * proven bound); written over both copies of x and y, its reference made,
 * one untimed call checked. */
static ocr_status second_data(const cli_options *o, cu_run *s, cu_ref *f, cli_custom_result *r) {
    ocr_status st;
    unsigned char got[64] = {0};
    uint64_t ns;
    size_t bytes = o->size * ocr_type_size(s->type);
    r->data2 = o->data == OCR_DATA_ONE_SIDED ? OCR_DATA_EXACT : OCR_DATA_ONE_SIDED;
    if ((st = make_data(o, s, r->data2)) != OCR_OK) return st;
    cl_mem m[4] = {s->x, s->y, s->rx, s->ry};
    for (int k = 0; k < 4 && st == OCR_OK; ++k) {
        cl_command_queue q = ocr_device_queue(k < 2 || !s->ref_dev ? s->dev : s->ref_dev);
        cl_int err = m[k] ? clEnqueueWriteBuffer(q, m[k], CL_TRUE, 0, bytes, k % 2 ? s->hy : s->hx,
                                                 0, NULL, NULL)
                          : CL_SUCCESS;
        if (err != CL_SUCCESS) {
            fprintf(stderr, "oclReduction: writing the second data set failed: %s\n",
                    ocr_cl_error_name(err));
            st = OCR_OPENCL;
        }
    }
    const preset *p = preset_of(o->preset);
    memset(f, 0, sizeof *f);
    if (st == OCR_OK) st = p ? preset_reference(p, s, o->size, f) : free_reference(o, s, f);
    if (st == OCR_OK && (st = timed_call(o, s, got, &ns)) == OCR_OK)
        judge(o, s, f, got, (int)o->repeats + 1, r);
    return st;
}

ocr_status cli_run_custom(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    cu_run s;
    cu_ref f;
    memset(&s, 0, sizeof s), memset(&f, 0, sizeof f);
    const preset *p = preset_of(o->preset);
    cli_custom_result r = {.name = p ? p->name : "custom", .passed = 1, .bad_run = -1};
    uint64_t *ns = malloc(((size_t)o->repeats + 1) * sizeof *ns);
    ocr_status st = ns ? setup(o, &s) : OCR_NO_MEMORY;
    if (st == OCR_OK) st = p ? preset_reference(p, &s, o->size, &f) : free_reference(o, &s, &f);
    if (st == OCR_OK) st = runs(o, &s, &f, ns, &r);
    cu_ref f2 = f;
    if (st == OCR_OK) st = second_data(o, &s, &f2, &r);
    if (st == OCR_OK) {
        r.map = p ? p->map : o->map, r.reduce = p ? p->reduce : o->reduce;
        r.neutral = p ? p->neutral : o->neutral;
        const cu_ref *shown = r.bad_run == (int)o->repeats + 1 ? &f2 : &f;
        r.tolerance = shown->tol, r.depth = shown->depth, r.bytes = bytes_read(o, &s);
        ocr_median_min_u64(ns + 1, o->repeats, &r.median, &r.min);
        cli_report_custom(o, ocr_device_get_info(s.dev)->name, s.type, &r);
        if (!r.passed) st = OCR_WRONG;
    }
    cu_release(&s);
    free(ns);
    return st;
}
