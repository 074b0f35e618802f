#define _POSIX_C_SOURCE 200809L
/* main.c - oclReduction: a thin command-line shell over the ocr library. */
#include "cli.h"
#include "grade.h"

#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 32

static void list_kernels(void) {
    const ocr_kernel_spec *s;
    for (size_t i = 0; (s = ocr_kernel_at(i)) != NULL; ++i)
        printf("%-27s %-35s %s\n", s->name, s->file, s->summary);
}

/* One row of the --device all comparison table. */
typedef struct {
    char device[256];
    ocr_status st;
    double t_gpu, t_kernels, gbs, speedup;
} summary;

/* The build request the options describe; OCR_USAGE for an unknown kernel,
 * OCR_RUNTIME for a --kernel-file that cannot be opened. */
static ocr_status make_request(const cli_options *o, ocr_build_request *rq) {
    *rq = (ocr_build_request){0};
    if (o->kernel_file) { /* a student kernel: one output per group of E elements */
        ocr_kernel_spec s = {o->kernel_name,
                             o->kernel_file,
                             OCR_PER_GROUP,
                             o->local_size ? o->local_size : 64,
                             (size_t)o->elems_per_group,
                             1,
                             o->elems_per_group,
                             "user kernel",
                             {0}};
        rq->spec = s;
        rq->kernel_file = o->kernel_file;
        if (cli_check_kernel_file(o->kernel_file) != OCR_OK) return OCR_RUNTIME;
    } else {
        const ocr_kernel_spec *s = ocr_kernel_find(o->kernel);
        if (!s) {
            fprintf(stderr,
                    "oclReduction: unknown kernel '%s' (see --list-kernels)\n"
                    "Try 'oclReduction --help'.\n",
                    o->kernel);
            return OCR_USAGE;
        }
        rq->spec = *s;
    }
    rq->kernel_dir = o->kernel_dir;
    rq->type = o->type;
    rq->op = o->op;
    rq->local_size = o->local_size;
    rq->groups = o->groups;
    rq->access = o->access;
    rq->extra_options = o->build_options;
    return OCR_OK;
}

/* --stream, or -n 7 beyond one buffer (host/lib/run/ocr_stream.c): the input made
 * chunk by chunk, never whole in host memory. */
/* What every report of a run takes from the command line. */
static ocr_report_info report_info(const cli_options *o, const ocr_build_request *rq) {
    return (ocr_report_info){.kernel_name = rq->spec.name,
                             .type = o->type,
                             .op = o->op,
                             .seed = o->seed,
                             .data = o->data,
                             .build_options = o->build_options};
}

static ocr_status run_stream(const cli_options *o, const ocr_build_request *rq, ocr_device *dev,
                             summary *sum) {
    ocr_stream_options so = {o->chunk,      o->seed,   o->data,          o->kernel_dir,
                             o->local_size, o->groups, o->build_options, !o->stream};
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

/* Opens one device, builds, then explains or runs and reports. `*data` is
 * filled on first use and shared by every device. */
static ocr_status run_on(const cli_options *o, const ocr_build_request *rq,
                         const ocr_device_choice *choice, void **data, int csv_header,
                         summary *sum) {
    ocr_device *dev = NULL;
    ocr_kernel *k = NULL;
    ocr_result res;
    size_t es = ocr_type_size(o->type);
    *sum = (summary){"(not opened)", OCR_OK, 0, 0, 0, 0};
    ocr_status st = ocr_device_open(choice, &dev);
    if (st != OCR_OK) goto done;
    snprintf(sum->device, sizeof sum->device, "%s", ocr_device_get_info(dev)->name);
    /* reduce7 beyond one buffer: streamed in chunks instead of refused. */
    if (o->stream || (!o->explain && !rq->kernel_file && !strcmp(rq->spec.name, "reduce7") &&
                      o->size * es > ocr_device_get_info(dev)->max_alloc)) {
        const char *c = o->stream ? NULL : cli_stream_conflict(o);
        if (c) { /* --stream refuses these; here the size chose streaming */
            fprintf(stderr,
                    "oclReduction: %llu elements exceed one buffer of %s, so reduce7 streams "
                    "them, which cannot apply --%s: drop it or use a smaller -s\n",
                    (unsigned long long)o->size, ocr_device_get_info(dev)->name, c);
            st = OCR_USAGE;
            goto done;
        }
        st = run_stream(o, rq, dev, sum);
        goto done;
    }
    /* --resources on NVIDIA: the build log of -cl-nv-verbose holds the registers. */
    ocr_build_request brq = *rq;
    /* reduce7 with no geometry of the user's: the tuned one, if this device,
     * driver and type have a cache entry for today's kernel source. */
    char tuning[1200] = "";
    if (rq->spec.kind == OCR_PER_GRID && !rq->kernel_file && !o->local_size && !o->groups &&
        !o->access) {
        ocr_tuning tu;
        char note[1200];
        if (ocr_tune_lookup(dev, o->type, rq->kernel_dir, &tu, note, sizeof note)) {
            brq.local_size = tu.local_size, brq.groups = tu.groups;
            brq.unroll = tu.unroll, brq.access = tu.access;
            snprintf(tuning, sizeof tuning, "tuned for this device (%s)", tu.source);
        } else {
            if (note[0]) fprintf(stderr, "oclReduction: note: %s\n", note);
            snprintf(tuning, sizeof tuning,
                     "built-in defaults (--tune tunes them for this device)");
        }
    }
    char opts[600];
    if (o->resources && ocr_device_has_extension(dev, "cl_nv_device_attribute_query")) {
        snprintf(opts, sizeof opts, "%s%s-cl-nv-verbose",
                 rq->extra_options ? rq->extra_options : "", rq->extra_options ? " " : "");
        brq.extra_options = opts;
    }
    if ((st = ocr_kernel_build(dev, &brq, &k)) != OCR_OK) goto done;
    if (o->resources) {
        ocr_occupancy occ;
        ocr_kernel_occupancy(dev, k, &occ);
        ocr_resources_print(stdout, dev, k, rq->spec.name, &occ);
        printf("\n");
    }
    uint64_t m = o->m ? o->m : ocr_kernel_default_m(k);
    if (o->explain) {
        ocr_plan plan;
        if ((st = ocr_plan_make(ocr_kernel_geometry(k), o->size, m, &plan)) != OCR_OK) goto done;
        printf("Kernel %s (%s) on %s\nBuild options: %s\n", rq->spec.name, ocr_kernel_path(k),
               ocr_device_get_info(dev)->name, ocr_kernel_options(k));
        ocr_plan_print(stdout, &plan, es);
        goto done;
    }
    ocr_run_options ro = {o->repeats, m, o->host_mem, o->cpu, o->data, NULL, NULL};
    /* Refuse sizes the host or the device cannot hold before touching memory. */
    if ((st = ocr_check_size(dev, k, o->size, &ro)) != OCR_OK) goto done;
    if (!*data) {
        if (!(*data = malloc((size_t)(o->size * es)))) {
            fprintf(stderr, "oclReduction: cannot allocate %llu MiB of host memory for the input\n",
                    (unsigned long long)((o->size * es) >> 20));
            st = OCR_RUNTIME;
            goto done;
        }
        ocr_data_fill(*data, o->size, o->type, o->op, o->seed, o->data);
    }
    st = ocr_run(dev, k, *data, o->size, o->type, o->op, &ro, &res);
    if (st == OCR_OK || st == OCR_WRONG) {
        ocr_report_info ri = report_info(o, rq);
        ri.csv_header = csv_header;
        ri.json_runs = 1;
        ri.passes = o->passes;
        ri.tuning = tuning[0] ? tuning : NULL;
        ocr_report(stdout, o->format, dev, k, &ri, &res);
        double copy = 0;
        if (o->peak && st != OCR_RUNTIME) {
            uint64_t bytes = o->size * es;
            const ocr_device_info *in = ocr_device_get_info(dev);
            if (bytes > in->max_alloc) bytes = in->max_alloc;
            ocr_status ps = ocr_copy_rate(dev, o->kernel_dir, bytes, o->repeats, &copy);
            if (ps != OCR_OK) st = ps;
        }
        if (copy > 0 && res.median.kernels_ns) {
            double gbs = (double)(res.plan.elems_read * es) / (double)res.median.kernels_ns;
            printf("Copy rate: %.3f GB/s (cl/copy.cl over %llu bytes, read + write, median of %u)\n"
                   "Bandwidth read: %.1f%% of the copy rate\n",
                   copy, (unsigned long long)(o->size * es), o->repeats, 100 * gbs / copy);
        }
        sum->t_gpu = (double)res.median.gpu_ns / 1e6;
        sum->t_kernels = (double)res.median.kernels_ns / 1e6;
        sum->gbs = res.median.kernels_ns
                       ? (double)(res.plan.elems_read * es) / (double)res.median.kernels_ns
                       : 0.0;
        sum->speedup =
            res.median.gpu_ns ? (double)res.ref_ns_median / (double)res.median.gpu_ns : 0;
        ocr_result_release(&res);
    }
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
    ocr_device_choice all[MAX_DEVICES], choices[MAX_DEVICES];
    summary sums[MAX_DEVICES];
    void *data = NULL;
    int na = 0, n = 0;
    ocr_status st = ocr_device_enumerate(o->device.type, all, MAX_DEVICES, &na);
    if (st != OCR_OK) return st;
    for (int i = 0; i < na; ++i)
        if (o->device.platform < 0 || all[i].platform == o->device.platform) choices[n++] = all[i];
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
        if (json && s != OCR_OK && s != OCR_WRONG) {
            static const char *const outcome[] = {"passed", "failed", "usage error", "error"};
            printf("{\"platform_index\": %d, \"device_index\": %d, \"device\": \"%s\", "
                   "\"status\": \"%s\"}\n",
                   choices[i].platform, choices[i].device,
                   strcmp(sums[i].device, "(not opened)") ? "(see stderr)" : "(not opened)",
                   outcome[cli_exit_code(s)]);
        }
        if (cli_exit_code(s) > cli_exit_code(st)) st = s;
        if (o->format == OCR_FORMAT_TEXT && i + 1 < n) printf("\n");
    }
    free(data);
    if (json) fputs("]\n", stdout);
    if (o->format == OCR_FORMAT_TEXT && !o->explain) {
        printf("\nComparison (%s, %llu elements):\n%-4s %-40s %12s %12s %10s %9s  %s\n",
               rq->spec.name, (unsigned long long)o->size, "p.d", "device", "t gpu", "t kernel",
               "GB/s", "speedup", "result");
        static const char *const outcome[] = {"PASSED", "FAILED", "usage error", "error"};
        for (int i = 0; i < n; ++i)
            printf("%d.%-2d %-40.40s %9.4f ms %9.4f ms %10.3f %9.3f  %s\n", choices[i].platform,
                   choices[i].device, sums[i].device, sums[i].t_gpu, sums[i].t_kernels, sums[i].gbs,
                   sums[i].speedup, outcome[cli_exit_code(sums[i].st)]);
    }
    return st;
}

/* --split: one input over several devices at once (host/lib/run/ocr_split.c). */
static ocr_status run_split(const cli_options *o, const ocr_build_request *rq) {
    ocr_device_choice choices[OCR_SPLIT_MAX];
    int n = 0;
    size_t es = ocr_type_size(o->type);
    ocr_status st = cli_split_choices(o, choices, OCR_SPLIT_MAX, &n);
    if (st != OCR_OK) return st;
    void *data = malloc((size_t)(o->size * es));
    if (!data) {
        fprintf(stderr, "oclReduction: cannot allocate %llu MiB of host memory for the input\n",
                (unsigned long long)((o->size * es) >> 20));
        return OCR_RUNTIME;
    }
    ocr_data_fill(data, o->size, o->type, o->op, o->seed, o->data);
    ocr_run_options ro = {o->repeats, o->m, o->host_mem, OCR_CPU_NONE, o->data, NULL, NULL};
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
    const ocr_device_info *in = ocr_device_get_info(dev);
    double t0 = (double)ocr_now_ns() / 1e9;
    st = ocr_tune_run(dev, o->type, o->size, o->tune_budget, o->kernel_dir, &best,
                      isatty(2) ? stderr : NULL);
    if (st == OCR_OK) st = ocr_tune_store(dev, o->type, o->kernel_dir, &best);
    if (st == OCR_OK) {
        ocr_tune_cache_path(path, sizeof path);
        printf("Tuned reduce7 for %s (driver %s), %s, %llu elements:\n"
               "  work-group size %zu, %zu groups, unroll %u, %s access: %.4f ms\n"
               "  (%u of %u configurations timed in %.0f s; budget %u s)\n"
               "Stored in %s; runs of reduce7 on this device now use it.\n",
               in->name, in->driver, ocr_type_name(o->type), (unsigned long long)o->size,
               best.local_size, best.groups, best.unroll, best.access == 2 ? "blocked" : "strided",
               best.kernel_ms, best.tried, best.total, (double)ocr_now_ns() / 1e9 - t0,
               o->tune_budget, path);
    }
    ocr_device_close(dev);
    return st;
}

static ocr_status run_main(int argc, char **argv) {
    cli_options o;
    ocr_build_request rq;
    void *data = NULL;
#ifdef OCR_HAVE_MPI
    int muted = cli_mpi_mute_parse(argc, argv);
    ocr_status st = cli_parse(argc, argv, &o);
    cli_mpi_unmute(muted);
#else
    ocr_status st = cli_parse(argc, argv, &o);
#endif
    if (st != OCR_OK) return st;
    if (o.help) {
        cli_help(stdout);
        return OCR_OK;
    }
    if (o.version) {
        printf("oclReduction %s\n", ocr_version());
        return OCR_OK;
    }
    if (o.list_kernels) {
        list_kernels();
        return OCR_OK;
    }
    if (o.run_timeout && (st = cli_watchdog_start(o.run_timeout)) != OCR_OK) return st;
    if (o.list) return ocr_device_list(stdout);
    if (o.grade) return cli_grade(&o);
    if (o.tune) return tune(&o);
    if (o.mpi) { /* every message after MPI starts goes through rank 0 */
#ifdef OCR_HAVE_MPI
        return cli_mpi_run(&argc, &argv, &o, make_request);
#else
        fprintf(stderr, "oclReduction: --mpi needs a build with MPI: cmake -DOCR_MPI=ON "
                        "(docs/scale.md)\n");
        return OCR_USAGE;
#endif
    }
    if ((st = make_request(&o, &rq)) != OCR_OK) return st;
    if (o.all_devices) return run_all(&o, &rq);
    if (o.split) return run_split(&o, &rq);
    summary sum;
    st = run_on(&o, &rq, &o.device, &data, 1, &sum);
    free(data);
    return st;
}

/* The library prints nothing of its own: its messages reach stderr through
 * cli_print_message. The report is the product: if it cannot be written (a
 * full disk, a closed pipe), say so and fail, whatever the run's verdict was.
 * The exit code comes from the status through cli_exit_code. */
int main(int argc, char **argv) {
    ocr_set_message_callback(cli_print_message, NULL);
    ocr_status st = run_main(argc, argv);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "oclReduction: cannot write the report to standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return cli_exit_code(OCR_RUNTIME);
    }
    return cli_exit_code(st);
}
