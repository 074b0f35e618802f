/* custom.c - --preset dot|nrm2|asum|stats and --map/--reduce/--neutral: the
 * library's custom reducer (ocr_reducer_create_custom) over the generated
 * data, x (the seeded input of -s N) and y (the same size from another seed
 * stream), timed and checked. Presets against C loops in double; a free
 * expression against the same spec run by one work-item (local_size 1,
 * one group: on a CPU the chunk walk, four running values over the whole
 * input; the embedded kernel), on a CPU device where there is
 * one, else on the same device: integers exactly, float within 1e-5 and
 * double within 1e-12 of (|reference| + 1). */
#include "modes.h"

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
    ocr_device *dev, *ref_dev; /* ref_dev: the reference's, when another */
    ocr_reducer *r, *ref;
    cl_mem x, y, rx, ry;
    void *hx, *hy;
    ocr_type type;
    char decl[96];
} cu_run;

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

static ocr_status setup(const cli_options *o, cu_run *s) {
    ocr_status st;
    ocr_custom_arg args[2];
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    char pre[1024];
    ocr_reducer_options opt = OCR_REDUCER_OPTIONS;
    opt.kernel_dir = o->kernel_dir, opt.local_size = o->local_size, opt.groups = o->groups;
    opt.build_options = o->build_options;
    s->type = o->preset && !cli_given(o, "type") ? OCR_FLOAT : o->type;
    cli_options oy = *o;
    oy.type = s->type;
    oy.seed = o->seed * 6364136223846793005ull + 1442695040888963407ull; /* y's stream */
    cli_options ox = oy;
    ox.seed = o->seed;
    make_spec(o, s, &sp, args, pre, sizeof pre);
    size_t bytes = o->size * ocr_type_size(s->type);
    if (!(s->hx = cli_make_input(&ox, 0, o->size, "x")) ||
        !(s->hy = cli_make_input(&oy, 0, o->size, "y")))
        return OCR_NO_MEMORY;
    if ((st = ocr_device_open(&o->device, &s->dev)) != OCR_OK ||
        (st = ocr_reducer_create_custom(ocr_device_context(s->dev), ocr_device_id(s->dev), &sp,
                                        &opt, &s->r)) != OCR_OK ||
        (st = upload(s->dev, s, bytes, &s->x, &s->y)) != OCR_OK || o->preset)
        return st;
    ocr_reducer_options one =
        OCR_REDUCER_OPTIONS;            /* one work-item: the chunk walk over all of it */
    one.local_size = 1, one.groups = 1; /* the embedded kernel, whatever --kernel-dir */
    reference_device(s);
    ocr_device *d = s->ref_dev ? s->ref_dev : s->dev;
    if ((st = ocr_reducer_create_custom(ocr_device_context(d), ocr_device_id(d), &sp, &one,
                                        &s->ref)) != OCR_OK)
        return st;
    if (!s->ref_dev) {
        s->rx = s->x, s->ry = s->y;
        clRetainMemObject(s->x), clRetainMemObject(s->y);
        return OCR_OK;
    }
    return upload(d, s, bytes, &s->rx, &s->ry);
}

/* ---- the checks ------------------------------------------------------------------ */

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

/* A preset's value (printed) against its C loop in double: within
 * n * eps(type) of the sum of magnitudes. */
static int check_preset(const cli_options *o, const cu_run *s, const unsigned char *got) {
    const preset *p = preset_of(o->preset);
    uint64_t n = o->size;
    double want = 0, mag = 0, eps = s->type == OCR_FLOAT ? 0x1p-24 : 0x1p-53;
    int stats = !strcmp(p->name, "stats");
    for (uint64_t i = 0; i < n; ++i) {
        double a = elem(s, s->hx, i), v = !strcmp(p->name, "dot")    ? a * elem(s, s->hy, i)
                                          : !strcmp(p->name, "asum") ? fabs(a)
                                          : stats                    ? a
                                                                     : a * a;
        want += v, mag += fabs(v);
    }
    size_t es = ocr_type_size(s->type);
    double g = as_double(s->type, got), bound = (double)(n + 2) * eps * mag;
    if (stats) {
        double mean = want / (double)n, m2 = 0, gmean = as_double(s->type, got + es),
               gm2 = as_double(s->type, got + 2 * es);
        for (uint64_t i = 0; i < n; ++i)
            m2 += (elem(s, s->hx, i) - mean) * (elem(s, s->hx, i) - mean);
        printf("Custom stats: count %.0f, mean %.9g, variance %.9g (reference %.9g, %.9g)\n", g,
               gmean, gm2 / g, mean, m2 / (double)n);
        return g == (double)n && fabs(gmean - mean) <= bound / (double)n + eps * fabs(mean) &&
               fabs(gm2 - m2) <= 1e3 * (double)(n + 2) * eps * (m2 + mag * fabs(mean));
    }
    if (!strcmp(p->name, "nrm2")) { /* scale * sqrt(ssq) against sqrt(sum of squares) */
        double norm = g * sqrt(as_double(s->type, got + es)), ref = sqrt(want);
        printf("Custom nrm2: %.9g (reference %.9g)\n", norm, ref);
        return fabs(norm - ref) <= (double)(n + 2) * eps * ref + 1e-300;
    }
    printf("Custom %s: %.9g (reference %.9g, bound %.3g)\n", p->name, g, want, bound);
    return fabs(g - want) <= bound;
}

/* A free expression's value against one work-item's. */
static ocr_status check_free(const cli_options *o, cu_run *s, const unsigned char *got, int *ok) {
    unsigned char want[8] = {0};
    char a[64], b[64];
    ocr_custom_value v[2] = {{s->rx, 0, {0}}, {s->ry, 0, {0}}};
    cl_command_queue q = ocr_device_queue(s->ref_dev ? s->ref_dev : s->dev);
    ocr_status st = ocr_reducer_reduce_custom(s->ref, q, o->size, v, want);
    if (st != OCR_OK) return st;
    ocr_value gv, wv;
    memset(&gv, 0, sizeof gv), memset(&wv, 0, sizeof wv);
    memcpy(&gv, got, ocr_type_size(s->type)), memcpy(&wv, want, ocr_type_size(s->type));
    if (ocr_type_is_float(s->type)) {
        double g = as_double(s->type, got), w = as_double(s->type, want);
        double tol = (s->type == OCR_FLOAT ? 1e-5 : 1e-12) * (fabs(w) + 1);
        *ok = g == w || fabs(g - w) <= tol || (isnan(g) && isnan(w));
    } else {
        *ok = !memcmp(got, want, ocr_type_size(s->type));
    }
    if (ocr_type_size(s->type) < 4) /* the value's bits as an int for printing */
        gv.l = s->type == OCR_CHAR    ? (int8_t)got[0]
               : s->type == OCR_UCHAR ? got[0]
                                      : gv.l,
        wv.l = s->type == OCR_CHAR    ? (int8_t)want[0]
               : s->type == OCR_UCHAR ? want[0]
                                      : wv.l;
    printf("Custom map %s, reduce %s: %s (one work-item: %s)\n", o->map, o->reduce,
           ocr_value_str(s->type, gv, a, sizeof a), ocr_value_str(s->type, wv, b, sizeof b));
    return OCR_OK;
}

static void cu_release(cu_run *s) {
    cl_mem m[4] = {s->x, s->y, s->rx, s->ry};
    for (int k = 0; k < 4; ++k)
        if (m[k]) clReleaseMemObject(m[k]);
    ocr_reducer_release(s->r);
    ocr_reducer_release(s->ref);
    ocr_device_close(s->ref_dev);
    ocr_device_close(s->dev);
    free(s->hx), free(s->hy);
}

ocr_status cli_run_custom(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    cu_run s;
    memset(&s, 0, sizeof s);
    unsigned char got[64] = {0};
    uint64_t best = UINT64_MAX;
    ocr_status st = setup(o, &s);
    ocr_custom_value v[2] = {{s.x, 0, {0}}, {s.y, 0, {0}}};
    for (unsigned i = 0; st == OCR_OK && i <= o->repeats; ++i) {
        uint64_t t0 = ocr_now_ns();
        st = ocr_reducer_reduce_custom(s.r, ocr_device_queue(s.dev), o->size, v, got);
        uint64_t t = ocr_now_ns() - t0;
        if (i && t < best) best = t;
    }
    int ok = 0;
    if (st == OCR_OK) {
        printf("Device: %s\nElements: %llu %s (x and y)\n", ocr_device_get_info(s.dev)->name,
               (unsigned long long)o->size, ocr_type_name(s.type));
        if (o->preset)
            ok = check_preset(o, &s, got);
        else
            st = check_free(o, &s, got, &ok);
    }
    if (st == OCR_OK) {
        printf("Time: %.3f ms per blocking call (best of %u)\n", (double)best / 1e6, o->repeats);
        printf("Result: %s\n", ok ? "PASSED" : "FAILED");
        if (!ok) st = OCR_WRONG;
    }
    cu_release(&s);
    return st;
}
