#define _POSIX_C_SOURCE 200809L
/* runners.c - what each mode of oclReduction runs: one device, every device
 * (-d all), one input over several devices (--split), a stream (--stream),
 * the tuner (--tune). Each opens what it needs and runs; the reports are
 * report.c's or the library's. */
#include "grade/cli_grade.h"
#include "modes.h"
#include "cli_report.h"

#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 32

/* What every report of a run takes from the command line. */
static ocr_report_info report_info(const cli_options *o, const ocr_build_request *rq) {
    return (ocr_report_info){.kernel_name = rq->spec.name,
                             .type = o->type,
                             .op = o->op,
                             .seed = o->seed,
                             .data = o->data,
                             .build_options = o->build_options};
}

/* --stream, or -n 7 beyond one buffer (host/lib/run/ocr_stream.c): the input
 * made chunk by chunk, never whole in host memory. */
static ocr_status run_stream(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                             cli_device_row *sum) {
    ocr_stream_options so = {.chunk = o->chunk,
                             .seed = o->seed,
                             .data = o->data,
                             .kernel_dir = o->kernel_dir,
                             .local_size = o->local_size,
                             .groups = o->groups,
                             .build_options = o->build_options,
                             .automatic = !o->stream};
    ocr_stream_result r;
    ocr_status st = ocr_stream_run(dev, o->type, o->op, o->size, &so, &r);
    if (st == OCR_OK || st == OCR_WRONG) {
        ocr_report_info ri = report_info(o, rq);
        ocr_stream_report(stdout, o->format, dev, &ri, &r);
        sum->t_gpu = (double)r.wall_ns / 1e6;
        sum->gbs = r.e2e_gbs;
    }
    return st;
}

/* A streamable kernel beyond one buffer is streamed in chunks instead of
 * refused; the size chose it, so what the --stream row forbids is refused. */
static int streams_by_size(const cli_options *o, const ocr_build_request *rq,
                           const ocr_device *dev) {
    return !o->explain && !rq->kernel_file && (rq->spec.caps & OCR_KERNEL_STREAMABLE) &&
           o->size * ocr_type_size(o->type) > ocr_device_get_info(dev)->max_alloc;
}

static ocr_status stream_by_size(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                                 cli_device_row *sum) {
    const char *c = cli_mode_forbidden(cli_mode_find("--stream"), o);
    if (c) {
        fprintf(stderr,
                "oclReduction: %llu elements exceed one buffer of %s, so reduce7 streams "
                "them, which cannot apply --%s: drop it or use a smaller -s\n",
                (unsigned long long)o->size, ocr_device_get_info(dev)->name, c);
        return OCR_USAGE;
    }
    return run_stream(o, rq, dev, sum);
}

/* Builds the kernel as this device runs it: the tuned geometry where the
 * cache has one (tuning says where it came from), and for --resources on
 * NVIDIA -cl-nv-verbose, whose build log holds the registers. */
static ocr_status build(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                        char *tuning, size_t len, ocr_kernel **k) {
    ocr_build_request brq = *rq;
    char opts[600];
    ocr_tune_apply(dev, &brq, tuning, len);
    if (o->resources && ocr_device_has_extension(dev, "cl_nv_device_attribute_query")) {
        snprintf(opts, sizeof opts, "%s%s-cl-nv-verbose",
                 rq->extra_options ? rq->extra_options : "", rq->extra_options ? " " : "");
        brq.extra_options = opts;
    }
    ocr_status st = ocr_kernel_build(dev, &brq, k);
    if (st == OCR_OK && o->resources) {
        ocr_occupancy occ;
        ocr_kernel_occupancy(dev, *k, &occ);
        ocr_resources_print(stdout, dev, *k, rq->spec.name, &occ);
        printf("\n");
    }
    return st;
}

/* --explain: the plan, nothing run. */
static ocr_status explain(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                          const ocr_kernel *k, uint64_t m) {
    ocr_plan plan;
    ocr_status st = ocr_plan_make(ocr_kernel_geometry(k), o->size, m, &plan);
    if (st == OCR_OK) cli_report_explain(rq->spec.name, dev, k, &plan, ocr_type_size(o->type));
    return st;
}

/* --peak: the copy rate of the device, and the run's bandwidth against it. */
static ocr_status peak(const cli_options *o, ocr_device *dev, const ocr_result *res) {
    size_t es = ocr_type_size(o->type);
    uint64_t bytes = o->size * es;
    double copy = 0;
    const ocr_device_info *in = ocr_device_get_info(dev);
    if (bytes > in->max_alloc) bytes = in->max_alloc;
    ocr_status st = ocr_copy_rate(dev, o->kernel_dir, bytes, o->repeats, &copy);
    if (copy > 0 && res->median.kernels_ns)
        cli_report_peak(copy, (double)(res->plan.elems_read * es) / (double)res->median.kernels_ns,
                        o->size * es, o->repeats);
    return st;
}

/* The -d all table's row of a run. */
static void summarize(const ocr_result *res, size_t es, cli_device_row *sum) {
    sum->t_gpu = (double)res->median.gpu_ns / 1e6;
    sum->t_kernels = (double)res->median.kernels_ns / 1e6;
    sum->gbs = res->median.kernels_ns
                   ? (double)(res->plan.elems_read * es) / (double)res->median.kernels_ns
                   : 0.0;
    sum->speedup = res->median.gpu_ns ? (double)res->ref_ns_median / (double)res->median.gpu_ns : 0;
}

/* Runs the built kernel over the input (made on first use, `*data`, and
 * shared by every device) and prints the report. */
static ocr_status run_and_report(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                                 ocr_kernel *k, uint64_t m, void **data, int csv_header,
                                 const char *tuning, cli_device_row *sum) {
    ocr_result res;
    ocr_run_options ro = cli_run_options(o, m, o->cpu);
    /* Refuse sizes the host or the device cannot hold before touching memory. */
    ocr_status st = ocr_check_size(dev, k, o->size, &ro);
    if (st != OCR_OK) return st;
    if (!*data && !(*data = cli_make_input(o, 0, o->size, "the input"))) return OCR_RUNTIME;
    st = ocr_run(dev, k, *data, o->size, &ro, &res);
    if (st != OCR_OK && st != OCR_WRONG) return st;
    ocr_report_info ri = report_info(o, rq);
    ri.csv_header = csv_header;
    ri.json_runs = 1;
    ri.passes = o->passes;
    ri.tuning = tuning[0] ? tuning : NULL;
    ocr_report(stdout, o->format, dev, k, &ri, &res);
    if (o->peak) {
        ocr_status ps = peak(o, dev, &res);
        if (ps != OCR_OK) st = ps;
    }
    summarize(&res, ocr_type_size(o->type), sum);
    ocr_result_release(&res);
    return st;
}

/* Opens one device, builds, then explains or runs and reports. */
static ocr_status run_on(const cli_options *o, const ocr_build_request *rq,
                         const ocr_device_choice *choice, void **data, int csv_header,
                         cli_device_row *sum) {
    ocr_device *dev = NULL;
    ocr_kernel *k = NULL;
    char tuning[1200] = "";
    *sum = (cli_device_row){.device = "(not opened)", .st = OCR_OK};
    ocr_status st = ocr_device_open(choice, &dev);
    if (st != OCR_OK) goto done;
    snprintf(sum->device, sizeof sum->device, "%s", ocr_device_get_info(dev)->name);
    if (streams_by_size(o, rq, dev)) {
        st = stream_by_size(o, rq, dev, sum);
        goto done;
    }
    if ((st = build(o, rq, dev, tuning, sizeof tuning, &k)) != OCR_OK) goto done;
    uint64_t m = o->m ? o->m : ocr_kernel_default_m(k);
    if (o->explain)
        st = explain(o, rq, dev, k, m);
    else
        st = run_and_report(o, rq, dev, k, m, data, csv_header, tuning, sum);
done:
    sum->st = st;
    ocr_kernel_release(k);
    ocr_device_close(dev);
    return st;
}

/* --device all: the same run on every device (of platform -p, if given), then
 * one table (text), one JSON array with an element per device, or one CSV
 * header and a row per device that ran. The exit status is the worst of them
 * (3 over 1 over 0). */
static ocr_status run_all(const cli_options *o, const ocr_build_request *rq) {
    ocr_device_choice choices[MAX_DEVICES];
    cli_device_row sums[MAX_DEVICES];
    void *data = NULL;
    int n = 0;
    ocr_status st = ocr_device_select(&o->device, 0, choices, MAX_DEVICES, &n);
    if (st != OCR_OK) return st;
    if (n == 0) {
        fprintf(stderr, "oclReduction: no OpenCL device found%s (see --list)\n",
                o->device.platform >= 0 ? " on that platform" : "");
        return OCR_RUNTIME;
    }
    int json = o->format == OCR_FORMAT_JSON && !o->explain;
    if (o->format == OCR_FORMAT_CSV && !o->explain) ocr_report_csv_header(stdout);
    if (json) fputs("[\n", stdout);
    for (int i = 0; i < n; ++i) {
        if (json && i > 0) fputs(",\n", stdout);
        fflush(stdout); /* the device's own messages go to stderr in order */
        ocr_status s = run_on(o, rq, &choices[i], &data, 0, &sums[i]);
        if (json && s != OCR_OK && s != OCR_WRONG) cli_report_device_failed(&choices[i], &sums[i]);
        if (cli_exit_code(s) > cli_exit_code(st)) st = s;
        if (o->format == OCR_FORMAT_TEXT && i + 1 < n) printf("\n");
    }
    free(data);
    if (json) fputs("]\n", stdout);
    if (o->format == OCR_FORMAT_TEXT && !o->explain)
        cli_report_comparison(rq->spec.name, o->size, choices, sums, n);
    return st;
}

/* --split's devices: for "all", every GPU (or, without any, every device),
 * or every device of -t's type if given, on platform -p if given; else the
 * list's platform.device pairs (checked by the parser). One message and
 * OCR_RUNTIME if none is found. */
static ocr_status split_choices(const cli_options *o, ocr_device_choice *out, int max, int *count) {
    *count = 0;
    if (strcmp(o->split, "all") == 0) {
        ocr_status st = ocr_device_select(&o->device, 1, out, max, count);
        if (st != OCR_OK) return st;
    } else {
        int a, b;
        for (const char *p = o->split; p && *p && *count < max;)
            if ((p = cli_split_pair(p, &a, &b)))
                out[(*count)++] = (ocr_device_choice){
                    .platform = a, .device = b, .type = CL_DEVICE_TYPE_ALL, .type_given = 1};
    }
    if (*count == 0) {
        fprintf(stderr, "oclReduction: --split %s: no OpenCL device found (see --list)\n",
                o->split);
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

/* --split: one input over several devices at once (host/lib/run/ocr_split.c). */
static ocr_status run_split(const cli_options *o, const ocr_build_request *rq) {
    ocr_device_choice choices[OCR_SPLIT_MAX];
    int n = 0;
    ocr_status st = split_choices(o, choices, OCR_SPLIT_MAX, &n);
    if (st != OCR_OK) return st;
    void *data = cli_make_input(o, 0, o->size, "the input");
    if (!data) return OCR_RUNTIME;
    ocr_run_options ro = cli_run_options(o, o->m, OCR_CPU_NONE);
    ocr_split_result res;
    st = ocr_split_run(choices, (unsigned)n, rq, data, o->size, &ro, o->shares, &res);
    if (st == OCR_OK || st == OCR_WRONG) {
        ocr_report_info ri = report_info(o, rq);
        ocr_split_report(stdout, o->format, &ri, &res);
    }
    ocr_split_release(&res);
    free(data);
    return st;
}

/* --tune: sweep reduce7 on one device and keep the winner in the cache. */
static ocr_status tune(const cli_options *o) {
    ocr_device *dev = NULL;
    ocr_tuning best;
    char path[1024];
    ocr_status st = ocr_device_open(&o->device, &dev);
    if (st != OCR_OK) return st;
    double t0 = (double)ocr_now_ns() / 1e9;
    st = ocr_tune_run(dev, o->type, o->size, o->tune_budget, o->kernel_dir, &best,
                      isatty(2) ? ocr_tune_progress_print : NULL, stderr);
    if (st == OCR_OK) st = ocr_tune_store(dev, o->type, o->kernel_dir, &best);
    if (st == OCR_OK) {
        ocr_tune_cache_path(path, sizeof path);
        cli_report_tuned(o, dev, &best, (double)ocr_now_ns() / 1e9 - t0, path);
    }
    ocr_device_close(dev);
    return st;
}

/* ---- the modes' runners (the table's last column) -------------------------- */

/* The single run, on the device the options choose. */
static ocr_status run_single(const cli_options *o, const ocr_build_request *rq) {
    void *data = NULL;
    cli_device_row sum;
    ocr_status st = run_on(o, rq, &o->device, &data, 1, &sum);
    free(data);
    return st;
}

/* --stream, on the device the options choose. */
static ocr_status run_streamed(const cli_options *o, const ocr_build_request *rq) {
    ocr_device *dev = NULL;
    cli_device_row sum;
    ocr_status st = ocr_device_open(&o->device, &dev);
    if (st == OCR_OK) st = run_stream(o, rq, dev, &sum);
    ocr_device_close(dev);
    return st;
}

/* Runs fn with the build request the options describe. */
static ocr_status with_request(const cli_options *o,
                               ocr_status (*fn)(const cli_options *, const ocr_build_request *)) {
    ocr_build_request rq;
    ocr_status st = cli_make_request(o, &rq);
    return st != OCR_OK ? st : fn(o, &rq);
}

ocr_status cli_run_single(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return with_request(o, run_single);
}

ocr_status cli_run_all(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return with_request(o, run_all);
}

ocr_status cli_run_split(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return with_request(o, run_split);
}

ocr_status cli_run_stream(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return with_request(o, run_streamed);
}

ocr_status cli_run_tune(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return tune(o);
}

ocr_status cli_run_grade(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    return cli_grade(o);
}

#ifndef OCR_HAVE_MPI
/* --mpi without MPI: how to get it (with MPI, mpi.c runs it). */
ocr_status cli_run_mpi(const cli_options *o, int *argc, char ***argv) {
    (void)o, (void)argc, (void)argv;
    fprintf(stderr, "oclReduction: --mpi needs a build with MPI: cmake -DOCR_MPI=ON "
                    "(docs/scale.md)\n");
    return OCR_USAGE;
}
#endif
