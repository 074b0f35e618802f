/* ocr_report.c - the report of one run: text in the tutorial's shape, or one
 * CSV row, or one JSON object. docs/output.md documents every field. */
#include "ocr_internal.h"

#include <inttypes.h>

static double ms(uint64_t ns) {
    return (double)ns / 1e6;
}
static double ratio(uint64_t a, uint64_t b) {
    return b ? (double)a / (double)b : 0.0;
}

/* Figures derived from the medians, shared by every format. */
typedef struct {
    double gbs, memops, speedup, kernel_speedup, best_speedup;
} derived;

static derived derive(const ocr_result *r, size_t es) {
    derived d = {0, 0, 0, 0, 0};
    uint64_t kns = r->median.kernels_ns;
    if (kns) {
        d.gbs = (double)(r->plan.elems_read * es) / (double)kns; /* bytes per ns = GB/s */
        d.memops = (double)r->plan.elems_read / (double)kns * 1e9;
    }
    d.speedup = ratio(r->ref_ns_median, r->median.gpu_ns);
    d.kernel_speedup = ratio(r->ref_ns_median, kns);
    d.best_speedup = ratio(r->best_ns_median, r->median.gpu_ns);
    return d;
}

static void text(FILE *f, const ocr_device *dev, const ocr_kernel *k, const ocr_report_info *ri,
                 const ocr_result *r, const derived *d) {
    const ocr_device_info *in = &dev->info;
    const ocr_plan *p = &r->plan;
    char got[64], want[64];
    fprintf(f, "Using kernel '%s' (%s)\n", ri->kernel_name, k->path);
    fprintf(f, "Number of elements: %" PRIu64 " (%s %s, seed %" PRIu64 ")\n", p->n,
            ocr_type_name(ri->type), ocr_op_name(ri->op), ri->seed);
    fprintf(f, "Platform: %s (%s)\n", in->platform, in->platform_version);
    fprintf(f, "Will use this device: %s (driver %s, %s)\n", in->name, in->driver, in->version);
    fprintf(f,
            "Passes: %u, work-group size %zu, %" PRIu64 " value%s finished on the CPU (M = %" PRIu64
            "), host memory: %s\n",
            p->npasses, k->geom.local_size, p->leftover, p->leftover == 1 ? "" : "s", p->m,
            ocr_host_mem_name(r->host_mem));
    fprintf(f, "Result: %s (reference %s", ocr_value_str(ri->type, r->result, got, sizeof got),
            ocr_value_str(ri->type, r->expected, want, sizeof want));
    if (r->tolerance > 0) fprintf(f, ", tolerance %.3g", r->tolerance);
    fprintf(f, ")\n\n%s\n\n", r->passed ? "Test PASSED!" : "Test FAILED!");

    const ocr_times *md = &r->median, *mn = &r->min;
    if (md->kernels_ns > 0) {
        fprintf(f, "GPU Memory IO: %.4g memops/s\n", d->memops);
        fprintf(f, "GPU Memory bandwidth: %.3f GB/s\n", d->gbs);
    } else {
        fprintf(f, "GPU Memory IO: n/a (no kernel ran: n <= M)\n");
    }
    fprintf(f, "T kernels: %.5g ms (median of %u; min %.5g)\n", ms(md->kernels_ns), r->repeats,
            ms(mn->kernels_ns));
    fprintf(f, "T gpu: %.5g ms (H2D %.4g + kernels %.4g + D2H %.4g + CPU %.4g; min %.5g)\n",
            ms(md->gpu_ns), ms(md->h2d_ns), ms(md->kernels_ns), ms(md->d2h_ns), ms(md->cpu_ns),
            ms(mn->gpu_ns));
    fprintf(f, "T ref: %.5g ms (naive CPU loop; min %.5g)\n", ms(r->ref_ns_median),
            ms(r->ref_ns_min));
    if (r->best_ns_median)
        fprintf(f, "T best CPU: %.5g ms (%u threads, SIMD; min %.5g)%s\n", ms(r->best_ns_median),
                r->cpu_threads, ms(r->best_ns_min), r->best_passed ? "" : " WRONG RESULT");
    fprintf(f, "Speedup: %.4g", d->speedup);
    if (md->kernels_ns) fprintf(f, " (kernels only: %.4g)", d->kernel_speedup);
    if (r->best_ns_median) fprintf(f, "; vs best CPU: %.4g", d->best_speedup);
    fprintf(f, "\n");
}

/* A string as a JSON or CSV string literal. */
static void quoted(FILE *f, const char *s, int json) {
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

/* The fields of the CSV and JSON reports, in order. */
#define TIME_FIELDS(X, t)                                                                          \
    X("t_kernels_ms", ms((t)->kernels_ns))                                                         \
    X("t_gpu_ms", ms((t)->gpu_ns)) X("h2d_ms", ms((t)->h2d_ns)) X("d2h_ms", ms((t)->d2h_ns))       \
        X("cpu_ms", ms((t)->cpu_ns))

static void csv(FILE *f, const ocr_device *dev, const ocr_kernel *k, const ocr_report_info *ri,
                const ocr_result *r, const derived *d) {
    const ocr_device_info *in = &dev->info;
    char got[64], want[64];
    if (ri->csv_header) {
        fputs("kernel,type,op,n,m,seed,device,platform,driver,work_group_size,passes,host_mem,"
              "result,expected,passed,repetitions",
              f);
#define H(name, v) fputs("," name, f);
        TIME_FIELDS(H, &r->median)
#undef H
        fputs(",t_ref_ms,t_best_ms,min_t_kernels_ms,min_t_gpu_ms,bandwidth_gbs,speedup,"
              "kernel_speedup,best_speedup\n",
              f);
    }
    fprintf(f, "%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", ri->kernel_name,
            ocr_type_name(ri->type), ocr_op_name(ri->op), r->plan.n, r->plan.m, ri->seed);
    quoted(f, in->name, 0), fputc(',', f), quoted(f, in->platform, 0), fputc(',', f);
    quoted(f, in->driver, 0);
    fprintf(f, ",%zu,%u,%s,%s,%s,%d,%u", k->geom.local_size, r->plan.npasses,
            ocr_host_mem_name(r->host_mem), ocr_value_str(ri->type, r->result, got, sizeof got),
            ocr_value_str(ri->type, r->expected, want, sizeof want), r->passed, r->repeats);
#define V(name, v) fprintf(f, ",%.6f", (v));
    TIME_FIELDS(V, &r->median)
#undef V
    fprintf(f, ",%.6f,%.6f,%.6f,%.6f,%.3f,%.4f,%.4f,%.4f\n", ms(r->ref_ns_median),
            ms(r->best_ns_median), ms(r->min.kernels_ns), ms(r->min.gpu_ns), d->gbs, d->speedup,
            d->kernel_speedup, d->best_speedup);
}

static void json(FILE *f, const ocr_device *dev, const ocr_kernel *k, const ocr_report_info *ri,
                 const ocr_result *r, const derived *d) {
    const ocr_device_info *in = &dev->info;
    char got[64], want[64];
    fputs("{\"kernel\": ", f), quoted(f, ri->kernel_name, 1);
    fputs(", \"kernel_file\": ", f), quoted(f, k->path, 1);
    fprintf(f,
            ", \"type\": \"%s\", \"op\": \"%s\", \"n\": %" PRIu64 ", \"m\": %" PRIu64
            ", \"seed\": %" PRIu64,
            ocr_type_name(ri->type), ocr_op_name(ri->op), r->plan.n, r->plan.m, ri->seed);
    fputs(", \"device\": ", f), quoted(f, in->name, 1);
    fputs(", \"platform\": ", f), quoted(f, in->platform, 1);
    fputs(", \"driver\": ", f), quoted(f, in->driver, 1);
    fputs(", \"device_version\": ", f), quoted(f, in->version, 1);
    fprintf(f,
            ", \"work_group_size\": %zu, \"passes\": %u, \"leftover\": %" PRIu64
            ", \"host_mem\": \"%s\"",
            k->geom.local_size, r->plan.npasses, r->plan.leftover, ocr_host_mem_name(r->host_mem));
    fprintf(f, ", \"result\": \"%s\", \"expected\": \"%s\", \"tolerance\": %g, \"passed\": %s",
            ocr_value_str(ri->type, r->result, got, sizeof got),
            ocr_value_str(ri->type, r->expected, want, sizeof want), r->tolerance,
            r->passed ? "true" : "false");
    fprintf(f, ", \"repetitions\": %u", r->repeats);
    const ocr_times *ts[2] = {&r->median, &r->min};
    const uint64_t ref[2] = {r->ref_ns_median, r->ref_ns_min},
                   best[2] = {r->best_ns_median, r->best_ns_min};
    for (int i = 0; i < 2; ++i) {
        fprintf(f, ", \"%s\": {", i ? "min" : "median");
        const char *sep = "";
#define J(name, v) fprintf(f, "%s\"" name "\": %.6f", sep, (v)), sep = ", ";
        TIME_FIELDS(J, ts[i])
#undef J
        fprintf(f, ", \"t_ref_ms\": %.6f, \"t_best_ms\": %.6f}", ms(ref[i]), ms(best[i]));
    }
    fprintf(f,
            ", \"bandwidth_gbs\": %.3f, \"memops_per_s\": %.6g, \"speedup\": %.4f, "
            "\"kernel_speedup\": %.4f, \"best_speedup\": %.4f, \"cpu_threads\": %u}\n",
            d->gbs, d->memops, d->speedup, d->kernel_speedup, d->best_speedup, r->cpu_threads);
}

void ocr_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_kernel *k,
                const ocr_report_info *ri, const ocr_result *r) {
    derived d = derive(r, ocr_type_size(ri->type));
    if (fmt == OCR_FORMAT_CSV)
        csv(f, dev, k, ri, r, &d);
    else if (fmt == OCR_FORMAT_JSON)
        json(f, dev, k, ri, r, &d);
    else
        text(f, dev, k, ri, r, &d);
}
