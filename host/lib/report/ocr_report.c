/* ocr_report.c - the report of one run: text in the tutorial's shape, or one
 * CSV row, or one JSON object. docs/output.md documents every field; the CSV
 * and JSON fields come from one table, fields() below. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A result as text: the value, and " at index I" for argmin/argmax. */
static const char *ocr_result_str(ocr_type t, ocr_op o, ocr_value v, char *buf, size_t len) {
    ocr_value_str(t, v, buf, len);
    if (ocr_op_is_arg(o)) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " at index %" PRIu64, v.arg.index);
    }
    return buf;
}

/* "Result: GOT (reference WANT<what>, exact... | error ...": the check's line of
 * the text report, without its closing parenthesis (single and split runs). */
void ocr_print_result(FILE *f, ocr_type t, ocr_op o, ocr_value got, ocr_value want,
                      const char *what, int exact, int any_order, double err_ulps, double tol_ulps,
                      double tol) {
    char a[64], b[64];
    fprintf(f, "Result: %s (reference %s%s", ocr_result_str(t, o, got, a, sizeof a),
            ocr_result_str(t, o, want, b, sizeof b), what);
    if (exact)
        fprintf(f, ", exact%s", any_order ? "" : " in every order of contiguous or strided ranges");
    else
        fprintf(f, ", error %.3g ulps, bound %.3g ulps = %.3g", err_ulps, tol_ulps, tol);
}

/* The index of an argmin/argmax result as text, or NULL (other operators). */
static const char *index_str(ocr_op o, ocr_value v, char *buf, size_t len) {
    if (!ocr_op_is_arg(o)) return NULL;
    snprintf(buf, len, "%" PRIu64, v.arg.index);
    return buf;
}

double ocr_ms(uint64_t ns) {
    return (double)ns / 1e6;
}
double ocr_ratio(uint64_t a, uint64_t b) {
    return b ? (double)a / (double)b : 0.0;
}

void ocr_json_open(FILE *f, const char *kind, const ocr_report_info *ri, ocr_type t, ocr_op o,
                   uint64_t n) {
    fprintf(f, "{\"%s\": true, \"kernel\": ", kind);
    ocr_report_quoted(f, OCR_FORMAT_JSON, ri->kernel_name);
    fprintf(f, ", \"type\": \"%s\", \"op\": \"%s\", \"n\": %llu, \"seed\": %llu, \"data\": \"%s\"",
            ocr_type_name(t), ocr_op_name(o), (unsigned long long)n, (unsigned long long)ri->seed,
            ocr_data_kind_name(ri->data));
}

/* Figures derived from the medians, shared by every format. */
typedef struct {
    double gbs, memops, speedup, kernel_speedup, best_speedup;
    /* The tutorial's figures: it counts N/2 elements moved per T kernels
     * (its "T memops/sec" is (N/2) / T kernels in ms), and its T gpu leaves
     * the upload out (kernels + read-back + CPU finish). */
    double tut_gbs, tut_memops, tut_speedup;
} derived;

static derived derive(const ocr_result *r, size_t es) {
    derived d;
    memset(&d, 0, sizeof d);
    uint64_t kns = r->median.kernels_ns;
    if (kns) {
        d.gbs = (double)(r->plan.elems_read * es) / (double)kns; /* bytes per ns = GB/s */
        d.memops = (double)r->plan.elems_read / (double)kns * 1e9;
        d.tut_gbs = (double)(r->plan.n / 2) * (double)es / (double)kns;
        d.tut_memops = (double)(r->plan.n / 2) / ocr_ms(kns);
    }
    d.speedup = ocr_ratio(r->ref_ns_median, r->median.gpu_ns);
    d.kernel_speedup = ocr_ratio(r->ref_ns_median, kns);
    d.best_speedup = ocr_ratio(r->best_ns_median, r->median.gpu_ns);
    d.tut_speedup = ocr_ratio(r->ref_ns_median, r->median.resident_ns);
    return d;
}

static const char *no_launch_note = "no kernel launched: N <= M, the CPU did all the work";

/* Which run failed first, in words, for text; "" when all passed. */
static void run_verdict(char *buf, size_t len, const ocr_result *r, ocr_type t) {
    char got[64], first[64];
    unsigned total = r->repeats + 1, i = r->bad_run - 1;
    if (!r->bad_run) {
        snprintf(buf, len, "all %u runs (1 warm-up + %u timed) checked%s", total, r->repeats,
                 r->exact ? ", bit for bit" : ", identical to each other");
        return;
    }
    const ocr_run_sample *s = &r->runs[i];
    ocr_value_str(t, s->result, got, sizeof got);
    ocr_value_str(t, r->runs[0].result, first, sizeof first);
    if (i > 0 &&
        memcmp(&s->result, &r->runs[0].result, ocr_type_size(ocr_type_accumulator(t))) != 0)
        snprintf(buf, len, "run %u of %u (0 is the warm-up) gave %s, run 0 gave %s", i, total, got,
                 first);
    else
        snprintf(buf, len, "run %u of %u (0 is the warm-up) gave %s", i, total, got);
}

/* Median over the timed runs of one pass's event (gap: 0) or the gap before it. */
static uint64_t pass_median(const ocr_result *r, unsigned pass, int gap) {
    uint64_t v[256], *tmp = r->repeats <= 256 ? v : malloc(r->repeats * sizeof *tmp);
    if (!tmp) return 0;
    for (unsigned i = 0; i < r->repeats; ++i)
        tmp[i] = gap ? r->runs[i + 1].gap_ns[pass] : r->runs[i + 1].pass_ns[pass];
    uint64_t m = ocr_median_u64(tmp, r->repeats);
    if (tmp != v) free(tmp);
    return m;
}

/* --passes: each launch's geometry, event time and rate, and what the device
 * clock saw between launches; then the host's view of the same gaps. */
static void passes_table(FILE *f, const ocr_result *r, size_t es) {
    const ocr_plan *p = &r->plan;
    fprintf(f, "\nPasses (medians of %u runs; gap: device idle before the launch):\n", r->repeats);
    fprintf(f, "  %4s %12s %6s %12s %12s %12s %10s %12s\n", "pass", "global", "local", "elems in",
            "elems out", "event ms", "GB/s", "gap ms");
    for (unsigned i = 0; i < p->npasses; ++i) {
        const ocr_pass *s = &p->pass[i];
        uint64_t ev = pass_median(r, i, 0), gap = pass_median(r, i, 1);
        fprintf(f,
                "  %4u %12" PRIu64 " %6" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12.6f %10.3f "
                "%12.6f\n",
                i, s->global_size, s->local_size, s->n_in, s->n_out, ocr_ms(ev),
                ev ? (double)(s->n_in * es) / (double)ev : 0.0, ocr_ms(gap));
    }
    uint64_t wall = r->median.wall_ns, events = r->median.gpu_ns;
    fprintf(f,
            "  host clock: T wall %.6f ms - T total %.6f ms = %.6f ms per reduction not in any "
            "event (launches, gaps, host work)\n",
            ocr_ms(wall), ocr_ms(events), wall > events ? ocr_ms(wall - events) : 0.0);
}

/* The second data set's line and the guard's, where they have something to
 * say (docs/output.md, "What is checked"). */
static void second_lines(FILE *f, const ocr_report_info *ri, const ocr_result *r) {
    char got[64], want[64];
    if (r->second.runs)
        fprintf(f, "Second data set: %s, seed %" PRIu64 ": %s (reference %s, %u runs): %s\n",
                ocr_data_kind_name(r->second.data), ri->seed,
                ocr_result_str(ri->type, ri->op, r->second.result, got, sizeof got),
                ocr_result_str(ri->type, ri->op, r->second.expected, want, sizeof want),
                r->second.runs, r->second.passed ? "passed" : "FAILED");
    if (r->oob_pass)
        fprintf(f,
                "Out of bounds: the kernel wrote element %" PRIu64 " of the output of pass %u, "
                "which holds %" PRIu64 " values (found in the guard past it)\n",
                r->oob_index, r->oob_pass - 1, r->oob_values);
}

static void text(FILE *f, const ocr_device *dev, const ocr_kernel *k, const ocr_report_info *ri,
                 const ocr_result *r, const derived *d) {
    const ocr_device_info *in = &dev->info;
    const ocr_plan *p = &r->plan;
    char runs[256];
    fprintf(f, "Using kernel '%s' (%s)\n", ri->kernel_name, k->path);
    /* a small type's values are its accumulator's: "char sum in long"
     * (argmin/argmax compare the elements themselves: "char argmax") */
    const int acc = ocr_type_is_storage(ri->type) && !ocr_op_is_arg(ri->op);
    fprintf(f, "Number of elements: %" PRIu64 " (%s %s%s%s, seed %" PRIu64 ", %s data)\n", p->n,
            ocr_type_name(ri->type), ocr_op_name(ri->op), acc ? " in " : "",
            acc ? ocr_type_name(ocr_type_accumulator(ri->type)) : "", ri->seed,
            ocr_data_kind_name(ri->data));
    fprintf(f, "Platform: %s (%s)\n", in->platform, in->platform_version);
    fprintf(f, "Will use this device: %s (driver %s, %s)\n", in->name, in->driver, in->version);
    fprintf(f,
            "Passes: %u, work-group size %zu, %" PRIu64 " value%s finished on the CPU (M = %" PRIu64
            "), host memory: %s\n",
            p->npasses, k->geom.local_size, p->leftover, p->leftover == 1 ? "" : "s", p->m,
            ocr_host_mem_name(r->host_mem));
    if (ri->build_options) fprintf(f, "Build options added: %s\n", ri->build_options);
    if (ri->tuning) fprintf(f, "Tuning: %s\n", ri->tuning);
    if (k->geom.accurate)
        fprintf(f, "Accurate sum: on (compensated in the kernel; checked to 1 ulp of the exact "
                   "sum)\n");
    ocr_print_result(f, ri->type, ri->op, r->result, r->expected, "", r->exact, r->any_order,
                     r->err_ulps, r->tol_ulps, r->tolerance);
    run_verdict(runs, sizeof runs, r, ri->type);
    fprintf(f, ")\nChecked: %s\n", runs);
    second_lines(f, ri, r);
    fprintf(f, "\n%s", r->passed ? "Test PASSED!" : "Test FAILED!");
    if (!p->npasses) fprintf(f, " (%s)", no_launch_note);
    fputs("\n\n", f);

    const ocr_times *md = &r->median, *mn = &r->min;
    /* First the tutorial's six lines, in its definitions, then ours. */
    if (md->kernels_ns > 0) {
        /* The tutorial's figure, per millisecond as it is computed (the
         * tutorial labels it "T memops/sec") */
        fprintf(f,
                "GPU Memory IO: %.4g memops/ms (the tutorial's \"T memops/sec\": N/2 / T kernels "
                "in ms)\n",
                d->tut_memops);
        fprintf(f, "GPU Memory bandwidth: %.3f GB/s\n", d->tut_gbs);
    } else {
        fprintf(f, "GPU Memory IO: n/a (%s)\n", no_launch_note);
    }
    fprintf(f, "T kernels: %.5g ms (median of %u; min %.5g)\n", ocr_ms(md->kernels_ns), r->repeats,
            ocr_ms(mn->kernels_ns));
    fprintf(f,
            "T gpu: %.5g ms (kernels + read-back + CPU finish, input already on the device; "
            "min %.5g)\n",
            ocr_ms(md->resident_ns), ocr_ms(mn->resident_ns));
    fprintf(f, "T ref: %.5g ms (naive CPU loop; min %.5g)\n", ocr_ms(r->ref_ns_median),
            ocr_ms(r->ref_ns_min));
    fprintf(f, "Speedup: %.4g (T ref / T gpu)\n", d->tut_speedup);
    fprintf(f, "(The tutorial's definitions: N/2 elements per T kernels, upload excluded.)\n\n");
    fprintf(f, "End to end, upload included:\n");
    fprintf(f,
            "T total: %.5g ms (median of the runs' totals; median parts: H2D %.4g, kernels %.4g, "
            "D2H %.4g, CPU %.4g; min %.5g)\n",
            ocr_ms(md->gpu_ns), ocr_ms(md->h2d_ns), ocr_ms(md->kernels_ns), ocr_ms(md->d2h_ns),
            ocr_ms(md->cpu_ns), ocr_ms(mn->gpu_ns));
    fprintf(f, "T wall: %.5g ms (host clock per reduction, launches and gaps included; min %.5g)\n",
            ocr_ms(md->wall_ns), ocr_ms(mn->wall_ns));
    if (md->kernels_ns > 0)
        fprintf(f, "Bandwidth read: %.3f GB/s (bytes every pass reads / T kernels)\n", d->gbs);
    if (r->best_ns_median)
        fprintf(f, "T best CPU: %.5g ms (%u threads, SIMD; min %.5g)%s\n",
                ocr_ms(r->best_ns_median), r->cpu_threads, ocr_ms(r->best_ns_min),
                r->best_passed ? "" : " WRONG RESULT");
    fprintf(f, "Speedup end to end: %.4g", d->speedup);
    if (md->kernels_ns) fprintf(f, " (kernels only: %.4g)", d->kernel_speedup);
    if (r->best_ns_median) fprintf(f, "; vs best CPU: %.4g", d->best_speedup);
    fprintf(f, "\n");
    if (ri->passes) passes_table(f, r, ocr_type_size(ri->type));
}

/* A string as a JSON or CSV string literal (every JSON and CSV writer's). */
void ocr_report_quoted(FILE *f, ocr_format fmt, const char *s) {
    int json = fmt == OCR_FORMAT_JSON;
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (json && (c == '"' || c == '\\'))
            fprintf(f, "\\%c", c);
        else if (json && c < 0x20)
            fprintf(f, "\\u%04x", c);
        else if (!json && c == '"')
            fputs("\"\"", f);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* ---- the field table of CSV and JSON -------------------------------------- */

enum { CSV = 1, JSON = 2, BOTH = 3 };
typedef enum { V_STR, V_U64, V_BOOL, V_MS, V_NUM } vkind;

typedef struct {
    const char *name;
    unsigned where;
    vkind kind;
    const char *s; /* V_STR (NULL: empty in CSV, null in JSON) */
    uint64_t u;    /* V_U64, V_BOOL, V_MS (nanoseconds) */
    double x;      /* V_NUM */
    const char *fmt;
} field;

#define MAX_FIELDS 64

typedef struct {
    char got[64], want[64], got2[64], want2[64], oob[160], idx[24], widx[24];
    field e[MAX_FIELDS];
    size_t n;
} table;

static void add(table *t, const char *name, unsigned where, vkind kind, const char *s, uint64_t u,
                double x, const char *fmt) {
    t->e[t->n++] = (field){name, where, kind, s, u, x, fmt};
}
#define STR(name, w, v)      add(t, name, w, V_STR, (v), 0, 0, NULL)
#define U64(name, w, v)      add(t, name, w, V_U64, NULL, (v), 0, NULL)
#define BOOL(name, w, v)     add(t, name, w, V_BOOL, NULL, (v) != 0, 0, NULL)
#define MSF(name, w, v)      add(t, name, w, V_MS, NULL, (v), 0, NULL)
#define NUM(name, w, v, fmt) add(t, name, w, V_NUM, NULL, 0, (v), fmt)

/* Every CSV column and JSON member, in CSV order (new fields go at the end,
 * so scripts that read columns by position keep working). The JSON median and
 * min objects are the *_ms fields of `median`/`min` with the prefix dropped. */
static void fields(table *t, const ocr_device_info *in, const ocr_kernel *k,
                   const ocr_report_info *ri, const ocr_result *r, const derived *d) {
    const ocr_plan *p = &r->plan;
    t->n = 0;
    STR("kernel", BOTH, ri->kernel_name);
    STR("kernel_file", JSON, k->path);
    STR("type", BOTH, ocr_type_name(ri->type));
    STR("op", BOTH, ocr_op_name(ri->op));
    U64("n", BOTH, p->n);
    U64("m", BOTH, p->m);
    U64("seed", BOTH, ri->seed);
    STR("device", BOTH, in->name);
    STR("platform", BOTH, in->platform);
    STR("driver", BOTH, in->driver);
    STR("device_version", JSON, in->version);
    U64("work_group_size", BOTH, k->geom.local_size);
    U64("passes", BOTH, p->npasses);
    U64("leftover", JSON, p->leftover);
    STR("host_mem", BOTH, ocr_host_mem_name(r->host_mem));
    STR("result", BOTH, ocr_value_str(ri->type, r->result, t->got, sizeof t->got));
    STR("expected", BOTH, ocr_value_str(ri->type, r->expected, t->want, sizeof t->want));
    NUM("tolerance", JSON, r->tolerance, "%g");
    BOOL("passed", BOTH, r->passed);
    U64("repetitions", BOTH, r->repeats);
    MSF("t_kernels_ms", CSV, r->median.kernels_ns);
    MSF("t_gpu_ms", CSV, r->median.gpu_ns);
    MSF("h2d_ms", CSV, r->median.h2d_ns);
    MSF("d2h_ms", CSV, r->median.d2h_ns);
    MSF("cpu_ms", CSV, r->median.cpu_ns);
    MSF("t_ref_ms", CSV, r->ref_ns_median);
    MSF("t_best_ms", CSV, r->best_ns_median);
    MSF("min_t_kernels_ms", CSV, r->min.kernels_ns);
    MSF("min_t_gpu_ms", CSV, r->min.gpu_ns);
    NUM("bandwidth_gbs", BOTH, d->gbs, "%.3f");
    NUM("memops_per_s", JSON, d->memops, "%.6g");
    NUM("speedup", BOTH, d->speedup, "%.4f");
    NUM("kernel_speedup", BOTH, d->kernel_speedup, "%.4f");
    NUM("best_speedup", BOTH, d->best_speedup, "%.4f");
    U64("cpu_threads", JSON, r->cpu_threads);
    STR("data", BOTH, ocr_data_kind_name(ri->data));
    BOOL("exact", BOTH, r->exact);
    BOOL("any_order", BOTH, r->any_order);
    NUM("err_ulps", BOTH, r->err_ulps, "%.4g");
    NUM("tol_ulps", BOTH, r->tol_ulps, "%.4g");
    U64("bad_run", BOTH, r->bad_run);
    MSF("wall_ms", CSV, r->median.wall_ns);
    MSF("min_wall_ms", CSV, r->min.wall_ns);
    STR("build_options", BOTH, k->options);
    STR("note", BOTH, p->npasses ? NULL : no_launch_note);
    STR("tuning", JSON, ri->tuning);
    MSF("t_gpu_tutorial_ms", CSV, r->median.resident_ns);
    NUM("speedup_tutorial", BOTH, d->tut_speedup, "%.4f");
    NUM("bandwidth_tutorial_gbs", BOTH, d->tut_gbs, "%.3f");
    NUM("memops_tutorial", BOTH, d->tut_memops, "%.6g");
    const int two = r->second.runs != 0;
    STR("data2", BOTH, two ? ocr_data_kind_name(r->second.data) : NULL);
    STR("data2_result", BOTH, two ? ocr_value_str(ri->type, r->second.result, t->got2, 64) : NULL);
    STR("data2_expected", BOTH,
        two ? ocr_value_str(ri->type, r->second.expected, t->want2, 64) : NULL);
    BOOL("data2_passed", BOTH, !two || r->second.passed);
    if (r->oob_pass)
        snprintf(t->oob, sizeof t->oob, "pass %u wrote element %" PRIu64 " of %" PRIu64,
                 r->oob_pass - 1, r->oob_index, r->oob_values);
    STR("out_of_bounds", BOTH, r->oob_pass ? t->oob : NULL);
    STR("index", BOTH, index_str(ri->op, r->result, t->idx, sizeof t->idx));
    STR("expected_index", BOTH, index_str(ri->op, r->expected, t->widx, sizeof t->widx));
    BOOL("accurate", JSON, k->geom.accurate);
}

/* One value. JSON has no inf or nan: non-finite numbers are written as null. */
static void value(FILE *f, const field *e, int json) {
    switch (e->kind) {
    case V_STR: /* CSV quotes only what needs it (and names with spaces) */
        if (e->s && (json || strpbrk(e->s, ",\" \r\n")))
            ocr_report_quoted(f, json ? OCR_FORMAT_JSON : OCR_FORMAT_CSV, e->s);
        else if (e->s)
            fputs(e->s, f);
        else if (json)
            fputs("null", f);
        break;
    case V_U64:
        fprintf(f, "%" PRIu64, e->u);
        break;
    case V_BOOL:
        fputs(json ? (e->u ? "true" : "false") : (e->u ? "1" : "0"), f);
        break;
    case V_MS: /* nanoseconds as milliseconds: six decimals print them exactly */
        fprintf(f, "%" PRIu64 ".%06" PRIu64, e->u / 1000000, e->u % 1000000);
        break;
    default:
        if (isfinite(e->x))
            fprintf(f, e->fmt, e->x);
        else if (json)
            fputs("null", f);
        else
            fputs(isnan(e->x) ? "nan" : e->x > 0 ? "inf" : "-inf", f);
        break;
    }
}

void ocr_report_csv_header(FILE *f) {
    static const ocr_result zr;
    static const ocr_kernel zk;
    static const ocr_device_info zi;
    static const ocr_report_info zri = {.kernel_name = ""};
    static table t;
    derived d;
    memset(&d, 0, sizeof d);
    fields(&t, &zi, &zk, &zri, &zr, &d);
    const char *sep = "";
    for (size_t i = 0; i < t.n; ++i)
        if (t.e[i].where & CSV) fprintf(f, "%s%s", sep, t.e[i].name), sep = ",";
    fputc('\n', f);
}

static void csv(FILE *f, const table *t) {
    const char *sep = "";
    for (size_t i = 0; i < t->n; ++i)
        if (t->e[i].where & CSV) fputs(sep, f), value(f, &t->e[i], 0), sep = ",";
    fputc('\n', f);
}

/* The times of one run, or of the median or min, as JSON members. */
static void json_times(FILE *f, const char *name, const ocr_times *t, const uint64_t *ref,
                       const uint64_t *best) {
    const struct {
        const char *n;
        uint64_t v;
    } m[] = {{"t_kernels_ms", t->kernels_ns},
             {"t_gpu_ms", t->gpu_ns},
             {"h2d_ms", t->h2d_ns},
             {"d2h_ms", t->d2h_ns},
             {"cpu_ms", t->cpu_ns},
             {"wall_ms", t->wall_ns},
             {"t_gpu_tutorial_ms", t->resident_ns},
             {"t_ref_ms", ref ? *ref : 0},
             {"t_best_ms", best ? *best : 0}};
    fprintf(f, "\"%s\": {", name);
    for (size_t i = 0; i < sizeof m / sizeof m[0] - (ref ? 0 : 2); ++i) {
        field e = {m[i].n, JSON, V_MS, NULL, m[i].v, 0, NULL};
        fprintf(f, "%s\"%s\": ", i ? ", " : "", m[i].n);
        value(f, &e, 1);
    }
    fputc('}', f);
}

static void json(FILE *f, const table *t, const ocr_report_info *ri, const ocr_result *r) {
    fputc('{', f);
    const char *sep = "";
    for (size_t i = 0; i < t->n; ++i)
        if (t->e[i].where & JSON) {
            fprintf(f, "%s\"%s\": ", sep, t->e[i].name);
            value(f, &t->e[i], 1);
            sep = ", ";
        }
    fputs(", ", f);
    json_times(f, "median", &r->median, &r->ref_ns_median, &r->best_ns_median);
    fputs(", ", f);
    json_times(f, "min", &r->min, &r->ref_ns_min, &r->best_ns_min);
    if (ri->json_runs && r->runs) {
        fputs(", \"runs\": [", f);
        for (unsigned i = 0; i <= r->repeats; ++i) {
            const ocr_run_sample *s = &r->runs[i];
            char v[64];
            fprintf(f, "%s{\"run\": %u, ", i ? ", " : "", i);
            json_times(f, "times", &s->t, NULL, NULL);
            fputs(", \"result\": ", f);
            ocr_report_quoted(f, OCR_FORMAT_JSON, ocr_value_str(ri->type, s->result, v, sizeof v));
            fprintf(f, ", \"passed\": %s", s->passed ? "true" : "false");
            for (int g = 0; g < 2; ++g) { /* each launch's event, and the gap before it */
                fprintf(f, ", \"%s\": [", g ? "gap_ms" : "pass_ms");
                for (unsigned q = 0; q < r->plan.npasses; ++q) {
                    field e = {"", JSON, V_MS, NULL, g ? s->gap_ns[q] : s->pass_ns[q], 0, NULL};
                    fputs(q ? ", " : "", f);
                    value(f, &e, 1);
                }
                fputc(']', f);
            }
            fputc('}', f);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
}

void ocr_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_kernel *k,
                const ocr_report_info *ri, const ocr_result *r) {
    derived d = derive(r, ocr_type_size(ri->type));
    if (fmt == OCR_FORMAT_TEXT) {
        text(f, dev, k, ri, r, &d);
        return;
    }
    table t;
    fields(&t, &dev->info, k, ri, r, &d);
    if (fmt == OCR_FORMAT_CSV) {
        if (ri->csv_header) ocr_report_csv_header(f);
        csv(f, &t);
    } else {
        json(f, &t, ri, r);
    }
}

/* A JSON number, or null where JSON has none (NaN, infinities). */
void ocr_json_num(FILE *f, double x) {
    if (isfinite(x))
        fprintf(f, "%.6g", x);
    else
        fputs("null", f);
}
