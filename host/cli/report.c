/* report.c - the reports oclReduction writes itself (cli_report.h). */
#include "cli_report.h"

#include <string.h>

static double ms(uint64_t ns) {
    return (double)ns / 1e6;
}
static double gbs(uint64_t bytes, uint64_t ns) {
    return ns ? (double)bytes / (double)ns : 0.0;
}
static void json_str(const char *s) {
    ocr_report_quoted(stdout, OCR_FORMAT_JSON, s);
}

void cli_report_kernels(void) {
    const ocr_kernel_spec *s;
    for (size_t i = 0; (s = ocr_kernel_at(i)) != NULL; ++i)
        printf("%-27s %-35s %s\n", s->name, s->file, s->summary);
}

void cli_report_explain(const char *kernel, const ocr_device *dev, const ocr_kernel *k,
                        const ocr_plan *plan, size_t elem_size) {
    printf("Kernel %s (%s) on %s\nBuild options: %s\n", kernel, ocr_kernel_path(k),
           ocr_device_get_info(dev)->name, ocr_kernel_options(k));
    ocr_plan_print(stdout, plan, elem_size);
}

void cli_report_peak(double copy_gbs, double read_gbs, uint64_t bytes, unsigned repeats) {
    printf("Copy rate: %.3f GB/s (cl/copy.cl over %llu bytes, read + write, median of %u)\n"
           "Bandwidth read: %.1f%% of the copy rate\n",
           copy_gbs, (unsigned long long)bytes, repeats, 100 * read_gbs / copy_gbs);
}

void cli_report_tuned(const cli_options *o, const ocr_device *dev, const ocr_tuning *best,
                      double seconds, const char *cache_path) {
    const ocr_device_info *in = ocr_device_get_info(dev);
    printf("Tuned reduce7 for %s (driver %s), %s, %llu elements:\n"
           "  work-group size %zu, %zu groups, unroll %u, %s access: %.4f ms\n"
           "  (%u of %u configurations timed in %.0f s; budget %u s)\n"
           "Stored in %s; runs of reduce7 on this device now use it.\n",
           in->name, in->driver, ocr_type_name(o->type), (unsigned long long)o->size,
           best->local_size, best->groups, best->unroll, best->access == 2 ? "blocked" : "strided",
           best->kernel_ms, best->tried, best->total, seconds, o->tune_budget, cache_path);
}

/* ---- -d all ---------------------------------------------------------------- */

void cli_report_comparison(const char *kernel, uint64_t n, const ocr_device_choice *choices,
                           const cli_device_row *rows, int count) {
    static const char *const outcome[] = {"PASSED", "FAILED", "usage error", "error"};
    printf("\nComparison (%s, %llu elements):\n%-4s %-40s %12s %12s %10s %9s  %s\n", kernel,
           (unsigned long long)n, "p.d", "device", "t gpu", "t kernel", "GB/s", "speedup",
           "result");
    for (int i = 0; i < count; ++i)
        printf("%d.%-2d %-40.40s %9.4f ms %9.4f ms %10.3f %9.3f  %s\n", choices[i].platform,
               choices[i].device, rows[i].device, rows[i].t_gpu, rows[i].t_kernels, rows[i].gbs,
               rows[i].speedup, outcome[cli_exit_code(rows[i].st)]);
}

void cli_report_device_failed(const ocr_device_choice *c, const cli_device_row *row) {
    static const char *const outcome[] = {"passed", "failed", "usage error", "error"};
    printf("{\"platform_index\": %d, \"device_index\": %d, \"device\": \"%s\", "
           "\"status\": \"%s\"}\n",
           c->platform, c->device,
           strcmp(row->device, "(not opened)") ? "(see stderr)" : "(not opened)",
           outcome[cli_exit_code(row->st)]);
}

/* ---- --segments ------------------------------------------------------------ */

static void segments_json(const cli_options *o, const char *device, const cli_segments_result *r) {
    printf("{\"segments\": true, \"k\": %llu, \"n\": %llu, \"type\": \"%s\", \"op\": \"%s\", "
           "\"seed\": %llu, \"data\": \"%s\", \"device\": ",
           (unsigned long long)r->k, (unsigned long long)o->size, ocr_type_name(o->type),
           ocr_op_name(o->op), (unsigned long long)o->seed, ocr_data_kind_name(o->data));
    json_str(device);
    printf(", \"offsets\": \"%s\", \"min_length\": %llu, \"max_length\": %llu, "
           "\"runs\": %llu, \"kernel_ms\": %.6g, \"kernel_ms_min\": %.6g, \"gbps\": %.6g, "
           "\"wrong_values\": %llu, \"verdict\": \"%s\"}\n",
           ocr_type_name(r->off_type), (unsigned long long)r->min_len,
           (unsigned long long)r->max_len, (unsigned long long)r->runs, r->median / 1e6,
           r->min / 1e6, r->gbps, (unsigned long long)r->wrong, r->wrong ? "FAILED" : "PASSED");
}

static void segments_text(const cli_options *o, const char *device, const cli_segments_result *r) {
    printf("Segmented reduction: %llu segments, %llu elements (%s %s, seed %llu, %s data)\n",
           (unsigned long long)r->k, (unsigned long long)o->size, ocr_type_name(o->type),
           ocr_op_name(o->op), (unsigned long long)o->seed, ocr_data_kind_name(o->data));
    printf("Device: %s\n", device);
    printf("Segment lengths: %llu to %llu (seeded random cuts), %s offsets, one library call\n",
           (unsigned long long)r->min_len, (unsigned long long)r->max_len,
           ocr_type_name(r->off_type));
    printf("Checked: all %llu runs (1 warm-up + %u timed%s), every segment against its "
           "reference\n",
           (unsigned long long)r->runs, o->repeats,
           o->data == OCR_DATA_ONE_SIDED ? "" : " + 1 on one-sided data per segment");
    if (r->wrong)
        printf("Wrong: %llu value%s over all runs (the first: segment %llu)\n",
               (unsigned long long)r->wrong, r->wrong == 1 ? "" : "s",
               (unsigned long long)r->first);
    printf("\nTest %s!\n\n", r->wrong ? "FAILED" : "PASSED");
    printf("T kernel: %.5g ms (median of %u; min %.5g)\n", r->median / 1e6, o->repeats,
           r->min / 1e6);
    printf("Bandwidth: %.4g GB/s (input, offsets and results / T kernel)\n", r->gbps);
}

void cli_report_segments(const cli_options *o, const char *device, const cli_segments_result *r) {
    if (o->format == OCR_FORMAT_JSON)
        segments_json(o, device, r);
    else
        segments_text(o, device, r);
}

/* ---- --histogram ---------------------------------------------------------- */

static const char *const hist_method_label[] = {"auto", "global", "local", "aggregate"};

static const char *hist_data(const cli_options *o) {
    return o->one_bin ? "one-bin" : "uniform";
}

static void histogram_csv(const cli_options *o, const char *device, const cli_histogram_result *r) {
    printf("histogram,bins,lo,hi,n,type,method,seed,data,device,runs,counted,kernel_ms,"
           "kernel_ms_min,gbps,wrong_bins,verdict\n");
    printf("1,%llu,%.17g,%.17g,%llu,%s,%s,%llu,%s,", (unsigned long long)o->histogram, r->lo, r->hi,
           (unsigned long long)o->size, ocr_type_name(o->type),
           r->kernel ? r->kernel : hist_method_label[o->hist_method], (unsigned long long)o->seed,
           hist_data(o));
    ocr_report_quoted(stdout, OCR_FORMAT_CSV, device);
    printf(",%llu,%llu,%.6g,%.6g,%.6g,%llu,%s\n", (unsigned long long)r->runs,
           (unsigned long long)r->counted, r->median / 1e6, r->min / 1e6, r->gbps,
           (unsigned long long)r->wrong, r->wrong || r->past_end ? "FAILED" : "PASSED");
}

static void histogram_json(const cli_options *o, const char *device,
                           const cli_histogram_result *r) {
    printf("{\"histogram\": true, \"bins\": %llu, \"lo\": %.17g, \"hi\": %.17g, \"n\": %llu, "
           "\"type\": \"%s\", \"method\": \"%s\", \"seed\": %llu, \"data\": \"%s\", "
           "\"device\": ",
           (unsigned long long)o->histogram, r->lo, r->hi, (unsigned long long)o->size,
           ocr_type_name(o->type), r->kernel ? r->kernel : hist_method_label[o->hist_method],
           (unsigned long long)o->seed, hist_data(o));
    json_str(device);
    printf(", \"runs\": %llu, \"counted\": %llu, \"kernel_ms\": %.6g, \"kernel_ms_min\": %.6g, "
           "\"gbps\": %.6g, \"wrong_bins\": %llu, \"verdict\": \"%s\"}\n",
           (unsigned long long)r->runs, (unsigned long long)r->counted, r->median / 1e6,
           r->min / 1e6, r->gbps, (unsigned long long)r->wrong,
           r->wrong || r->past_end ? "FAILED" : "PASSED");
}

static void histogram_text(const cli_options *o, const char *device,
                           const cli_histogram_result *r) {
    printf("Histogram: %llu bins over [%g, %g], %llu samples (%s, seed %llu, %s data), "
           "%s %s\n",
           (unsigned long long)o->histogram, r->lo, r->hi, (unsigned long long)o->size,
           ocr_type_name(o->type), (unsigned long long)o->seed, hist_data(o),
           r->kernel ? "kernel" : "method",
           r->kernel ? r->kernel : hist_method_label[o->hist_method]);
    printf("Device: %s\n", device);
    if (r->kernel)
        printf("Grid: %zu groups x %zu work-items, one launch (the kernel strides over n)\n",
               r->groups, r->local);
    printf("Checked: all %llu runs (1 warm-up + %u timed%s), every bin against a CPU loop, bit "
           "for bit (%llu samples in range)\n",
           (unsigned long long)r->runs, o->repeats, r->kernel ? ", 1 on edge data of seed + 1" : "",
           (unsigned long long)r->counted);
    if (r->past_end)
        printf("Wrong: the kernel wrote past the last bin (counts[%llu]) in %llu run%s\n",
               (unsigned long long)o->histogram, (unsigned long long)r->past_end,
               r->past_end == 1 ? "" : "s");
    if (r->wrong)
        printf("Wrong: %llu bin%s over all runs (the first: bin %llu)\n",
               (unsigned long long)r->wrong, r->wrong == 1 ? "" : "s",
               (unsigned long long)r->first);
    printf("\nTest %s!\n\n", r->wrong || r->past_end ? "FAILED" : "PASSED");
    printf("T kernel: %.5g ms (median of %u; min %.5g)\n", r->median / 1e6, o->repeats,
           r->min / 1e6);
    printf("Bandwidth: %.4g GB/s (input / T kernel)\n", r->gbps);
}

void cli_report_histogram(const cli_options *o, const char *device, const cli_histogram_result *r) {
    if (o->format == OCR_FORMAT_JSON)
        histogram_json(o, device, r);
    else if (o->format == OCR_FORMAT_CSV)
        histogram_csv(o, device, r);
    else
        histogram_text(o, device, r);
}

/* ---- --preset and --map ----------------------------------------------------- */

static void custom_json(const cli_options *o, const char *device, ocr_type t,
                        const cli_custom_result *r) {
    const char *keys[] = {"kernel", "map", "reduce", "neutral"};
    const char *vals[] = {r->name, r->map, r->reduce, r->neutral};
    for (int k = 0; k < 4; ++k) {
        printf("%s\"%s\": ", k ? ", " : "{", keys[k]);
        json_str(vals[k]);
    }
    printf(", \"preset\": %s, \"type\": \"%s\", \"n\": %llu, \"seed\": %llu, \"data\": "
           "\"%s\", \"device\": ",
           o->preset ? "true" : "false", ocr_type_name(t), (unsigned long long)o->size,
           (unsigned long long)o->seed, ocr_data_kind_name(o->data));
    json_str(device);
    printf(", \"result\": ");
    json_str(r->result);
    printf(", \"expected\": ");
    json_str(r->expected);
    printf(", \"tolerance\": %.6g, \"depth\": %llu, \"passed\": %s, \"repetitions\": %u, "
           "\"bad_run\": %d, \"data2\": \"%s\", \"bandwidth_gbs\": %.3f, \"median\": "
           "{\"t_kernels_ms\": %.6f}, \"min\": "
           "{\"t_kernels_ms\": %.6f}}\n",
           r->tolerance, (unsigned long long)r->depth, r->passed ? "true" : "false", o->repeats,
           r->bad_run, ocr_data_kind_name(r->data2), gbs(r->bytes, r->median), ms(r->median),
           ms(r->min));
}

/* The single run's layout: what ran, on what, the value, the verdict, the times. */
static void custom_text(const cli_options *o, const char *device, ocr_type t,
                        const cli_custom_result *r) {
    printf("Custom reduction '%s': map %s, reduce %s, neutral %s\n", r->name, r->map, r->reduce,
           r->neutral);
    printf("Number of elements: %llu (%s x and y, seed %llu, %s data)\n",
           (unsigned long long)o->size, ocr_type_name(t), (unsigned long long)o->seed,
           ocr_data_kind_name(o->data));
    printf("Will use this device: %s\n", device);
    printf("Result: %s (reference %s", r->result, r->expected);
    if (r->tolerance > 0)
        printf(", bound %.3g, %llu roundings deep", r->tolerance, (unsigned long long)r->depth);
    printf(")\nChecked: all %u runs (1 warm-up + %u timed) + 1 on %s data", o->repeats + 1,
           o->repeats, ocr_data_kind_name(r->data2));
    if (r->bad_run >= 0) printf("; run %d is the first wrong, its value above", r->bad_run);
    printf("\n\nTest %s!\n\n", r->passed ? "PASSED" : "FAILED");
    printf("T kernels: %.5g ms (median of %u; min %.5g)\n", ms(r->median), o->repeats, ms(r->min));
    printf("Bandwidth read: %.4g GB/s (bytes the map reads / T kernels)\n",
           gbs(r->bytes, r->median));
}

void cli_report_custom(const cli_options *o, const char *device, ocr_type t,
                       const cli_custom_result *r) {
    if (o->format == OCR_FORMAT_JSON)
        custom_json(o, device, t, r);
    else
        custom_text(o, device, t, r);
}

/* ---- --mpi ----------------------------------------------------------------- */

/* The table of ranks, one row each. */
static void mpi_ranks_text(const cli_options *o, int ranks, const cli_rank_info *ri) {
    size_t es = ocr_type_size(o->type);
    printf("%4s %-16s %-30s %12s %12s %12s %12s %9s  %s\n", "rank", "host", "device", "offset",
           "elements", "T kernels", "T total", "GB/s", "check");
    for (int r = 0; r < ranks; ++r) {
        const cli_rank_info *x = &ri[r];
        printf("%4d %-16.16s %-30.30s %12llu %12llu", r, x->host,
               x->count ? x->device : "(no share)", (unsigned long long)x->offset,
               (unsigned long long)x->count);
        if (x->count)
            printf(" %9.4f ms %9.4f ms %9.3f  %s\n", ms(x->kernels_ns), ms(x->gpu_ns),
                   gbs(x->elems_read * es, x->kernels_ns), x->passed ? "PASSED" : "FAILED");
        else
            printf("  (fewer elements than ranks: adds the identity)\n");
    }
}

/* The result against its reference, and the verdict. */
static void mpi_result_text(const cli_options *o, const cli_mpi_view *g) {
    char got[64], want[64];
    printf("Result: %s (reference %s %s", ocr_value_str(o->type, g->result, got, sizeof got),
           ocr_value_str(o->type, g->expected, want, sizeof want),
           g->whole ? "of the whole input on rank 0" : "from the ranks' references combined");
    if (g->exact)
        printf(", exact%s",
               g->any_order ? "" : " in every order of contiguous or strided ranges (N > 2^23)");
    else
        printf(", error %.3g ulps, bound %.3g ulps = %.3g",
               ocr_error_ulps(o->type, g->expected, g->result),
               ocr_ulps_of(o->type, g->expected, g->tolerance), g->tolerance);
    printf(")\nChecked: each rank's share against its own reference in all %u runs; the "
           "MPI_Reduce result against the reference\n\n%s\n\n",
           o->repeats + 1, g->passed ? "Test PASSED!" : "Test FAILED!");
}

/* The aggregate times. */
static void mpi_times_text(const cli_options *o, const cli_mpi_view *g) {
    size_t es = ocr_type_size(o->type);
    printf("Aggregate (median of %u runs; every run starts on all ranks together after an "
           "MPI_Barrier, the slowest rank sets its time):\n",
           o->repeats);
    printf("T kernels: %.5g ms (min %.5g); bandwidth read %.3f GB/s (every rank's bytes / the "
           "slowest rank's T kernels)\n",
           ms(g->med.kernels), ms(g->min.kernels), gbs(g->elems_read * es, g->med.kernels));
    printf("T gpu: %.5g ms (kernels + read-back + CPU finish + MPI_Reduce, input already on the "
           "devices; min %.5g)\n",
           ms(g->med.resident), ms(g->min.resident));
    printf("T total: %.5g ms end to end from host memory (H2D + kernels + D2H + CPU + "
           "MPI_Reduce; min %.5g): %.3f GB/s of input\n",
           ms(g->med.total), ms(g->min.total), gbs(o->size * es, g->med.total));
    printf("T MPI_Reduce: %.6f ms (one value per rank to rank 0, after a barrier)\n",
           ms(g->reduce_ns));
    printf("T wall: %.5g ms (rank 0's clock from one run's barrier to the next: the slowest "
           "rank's run and the barrier; min %.5g)\n",
           ms(g->med.wall), ms(g->min.wall));
}

static void mpi_text(const cli_options *o, const char *kernel, int ranks, const cli_rank_info *ri,
                     const cli_mpi_view *g) {
    printf("MPI: '%s' over %d rank%s on %d host%s: %llu elements (%s %s, seed %llu, %s data)\n",
           kernel, ranks, ranks == 1 ? "" : "s", g->hosts, g->hosts == 1 ? "" : "s",
           (unsigned long long)o->size, ocr_type_name(o->type), ocr_op_name(o->op),
           (unsigned long long)o->seed, ocr_data_kind_name(o->data));
    mpi_ranks_text(o, ranks, ri);
    mpi_result_text(o, g);
    mpi_times_text(o, g);
}

/* JSON: per_rank's elements. */
static void mpi_ranks_json(const cli_options *o, int ranks, const cli_rank_info *ri) {
    size_t es = ocr_type_size(o->type);
    printf(", \"per_rank\": [");
    for (int r = 0; r < ranks; ++r) {
        const cli_rank_info *x = &ri[r];
        printf("%s\n{\"rank\": %d, \"host\": ", r ? "," : "", r);
        json_str(x->host);
        printf(", \"device\": ");
        if (x->count)
            json_str(x->device);
        else
            printf("null");
        printf(", \"offset\": %llu, \"elements\": %llu, \"t_kernels_ms\": %.6f, \"t_gpu_ms\": "
               "%.6f, \"t_gpu_tutorial_ms\": %.6f, \"h2d_ms\": %.6f, \"bandwidth_gbs\": %.3f, "
               "\"passed\": %s}",
               (unsigned long long)x->offset, (unsigned long long)x->count, ms(x->kernels_ns),
               ms(x->gpu_ns), ms(x->resident_ns), ms(x->h2d_ns),
               gbs(x->elems_read * es, x->kernels_ns), x->passed ? "true" : "false");
    }
    printf("]");
}

static void mpi_json(const cli_options *o, const char *kernel, int ranks, const cli_rank_info *ri,
                     const cli_mpi_view *g) {
    size_t es = ocr_type_size(o->type);
    char v[64];
    printf("{\"mpi\": true, \"kernel\": ");
    json_str(kernel);
    printf(", \"type\": \"%s\", \"op\": \"%s\", \"n\": %llu, \"seed\": %llu, \"data\": \"%s\", "
           "\"ranks\": %d, \"hosts\": %d, \"result\": ",
           ocr_type_name(o->type), ocr_op_name(o->op), (unsigned long long)o->size,
           (unsigned long long)o->seed, ocr_data_kind_name(o->data), ranks, g->hosts);
    json_str(ocr_value_str(o->type, g->result, v, sizeof v));
    printf(", \"expected\": ");
    json_str(ocr_value_str(o->type, g->expected, v, sizeof v));
    printf(", \"reference\": \"%s\", \"exact\": %s, \"passed\": %s, \"repetitions\": %u",
           g->whole ? "whole input" : "ranks combined", g->exact ? "true" : "false",
           g->passed ? "true" : "false", o->repeats);
    printf(", \"bandwidth_gbs\": %.3f, \"bandwidth_e2e_gbs\": %.3f",
           gbs(g->elems_read * es, g->med.kernels), gbs(o->size * es, g->med.total));
    for (int k = 0; k < 2; ++k) {
        const cli_mpi_times *a = k ? &g->min : &g->med;
        printf(", \"%s\": {\"t_kernels_ms\": %.6f, \"t_gpu_tutorial_ms\": %.6f, \"t_gpu_ms\": "
               "%.6f, \"wall_ms\": %.6f, \"reduce_ms\": %.6f}",
               k ? "min" : "median", ms(a->kernels), ms(a->resident), ms(a->total), ms(a->wall),
               ms(g->reduce_ns));
    }
    mpi_ranks_json(o, ranks, ri);
    printf("}\n");
}

void cli_report_mpi(const cli_options *o, const char *kernel, int ranks, const cli_rank_info *ri,
                    const cli_mpi_view *g) {
    if (o->format == OCR_FORMAT_JSON)
        mpi_json(o, kernel, ranks, ri, g);
    else
        mpi_text(o, kernel, ranks, ri, g);
}
