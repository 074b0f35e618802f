#define _POSIX_C_SOURCE 200809L
/* ocr_split.c - one reduction over several devices of one host: a context,
 * queue and host thread per device, each reducing a contiguous share of the
 * one input with ocr_run; the host combines the parts' values in the
 * kernels' arithmetic. Every run starts on all devices together (a barrier
 * in ocr_run's sync hook), so the slowest device sets each run's time, as it
 * would in an application. */
#include "ocr_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const share_names[] = {"equal", "rate"};

const char *ocr_shares_name(ocr_shares s) {
    return share_names[s];
}
int ocr_shares_from_name(const char *s, ocr_shares *out) {
    int i = ocr_name_index(s, share_names, 2);
    if (i >= 0) *out = (ocr_shares)i;
    return i < 0 ? -1 : 0;
}

/* A weight as used: infinite weights (if any) take 1 and all others 0;
 * otherwise finite positive weights are scaled by the largest (so that their
 * sum cannot overflow), and NaN, zero and negative ones count as 0. */
static double share_weight(double w, double wmax) {
    if (isinf(wmax)) return isinf(w) && w > 0 ? 1.0 : 0.0;
    return w > 0 && w <= wmax ? w / wmax : 0.0;
}

void ocr_split_shares(uint64_t n, unsigned parts, const double *weights, uint64_t *count) {
    uint64_t given = 0;
    double wmax = 0, total = 0;
    if (parts == 0) return;
    for (unsigned i = 0; weights && i < parts; ++i)
        if (weights[i] > wmax) wmax = weights[i]; /* NaN compares false */
    for (unsigned i = 0; wmax > 0 && i < parts; ++i)
        total += share_weight(weights[i], wmax); /* at most parts */
    for (unsigned i = 0; i < parts; ++i) {
        if (total > 0) {
            double c = floor((double)n * (share_weight(weights[i], wmax) / total));
            count[i] = c >= (double)(n - given) ? n - given : (uint64_t)c;
        } else {
            count[i] = n / parts + (i < n % parts);
        }
        given += count[i];
    }
    /* Rounding leaves a few elements over: to the parts that take any, earliest first. */
    uint64_t rest = n - given;
    unsigned takers = 0, k = 0;
    for (unsigned i = 0; i < parts; ++i)
        takers += total == 0 || share_weight(weights[i], wmax) > 0;
    for (unsigned i = 0; rest && i < parts; ++i)
        if (total == 0 || share_weight(weights[i], wmax) > 0)
            count[i] += rest / takers + (k++ < rest % takers);
}

/* What the device threads share. */
typedef struct {
    const ocr_build_request *rq;
    const void *data;
    uint64_t n;
    const ocr_run_options *opt;
    ocr_type type;
    ocr_op op;
    pthread_barrier_t barrier;
    uint64_t *release_ns; /* when each barrier let the devices go (repeats + 2) */
} shared;

typedef struct {
    shared *sh;
    ocr_split_part *p;
    unsigned calls; /* barrier calls so far: every thread makes repeats + 2 */
    int probe;      /* phase 1: probe the rate too */
} worker;

/* The sync hook: every device starts run r together; the last to arrive
 * notes the time. */
static void sync_all(void *ctx) {
    worker *w = ctx;
    unsigned i = w->calls++;
    if (pthread_barrier_wait(&w->sh->barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
        w->sh->release_ns[i] = ocr_now_ns();
}

/* Phase 1, on the device's thread: build (reduce7 with this device's
 * tuned geometry, as a single-device run would), and for RATE shares time a
 * short end-to-end run. */
static void *setup(void *arg) {
    worker *w = arg;
    ocr_split_part *p = w->p;
    const shared *sh = w->sh;
    ocr_build_request brq = *sh->rq;
    if (brq.spec.kind == OCR_PER_GRID && !brq.kernel_file && !brq.local_size && !brq.groups &&
        !brq.access) {
        ocr_tuning tu;
        char note[1200];
        if (ocr_tune_lookup(p->dev, sh->type, brq.kernel_dir, &tu, note, sizeof note)) {
            brq.local_size = tu.local_size, brq.groups = tu.groups;
            brq.unroll = tu.unroll, brq.access = tu.access;
            snprintf(p->tuning, sizeof p->tuning, "tuned for this device (%s)", tu.source);
        } else {
            if (note[0]) ocr_errorf("note: %s", note);
            snprintf(p->tuning, sizeof p->tuning,
                     "built-in defaults (--tune tunes them for this device)");
        }
    }
    if ((p->st = ocr_kernel_build(p->dev, &brq, &p->kernel)) != OCR_OK) return NULL;
    if (w->probe) { /* 4M elements at most, 3 timed runs: a rate, not a benchmark */
        uint64_t pn = sh->n < ((uint64_t)1 << 22) ? sh->n : (uint64_t)1 << 22;
        ocr_run_options po = *sh->opt;
        ocr_result r;
        po.repeats = 3, po.cpu = OCR_CPU_NONE, po.sync = NULL;
        ocr_status st = ocr_run(p->dev, p->kernel, sh->data, pn, sh->type, sh->op, &po, &r);
        if (st == OCR_OK || st == OCR_WRONG) {
            if (r.median.gpu_ns)
                p->probe_gbs = (double)(pn * ocr_type_size(sh->type)) / (double)r.median.gpu_ns;
            ocr_result_release(&r);
        } else {
            p->st = st;
        }
    }
    return NULL;
}

/* Phase 2, on the device's thread: its share, every run started with the
 * others. A run that fails still makes its barrier calls, so no device waits
 * for one that has left. */
static void *run_share(void *arg) {
    worker *w = arg;
    ocr_split_part *p = w->p;
    const shared *sh = w->sh;
    ocr_run_options ro = *sh->opt;
    ro.cpu = OCR_CPU_NONE; /* a CPU loop on one thread would slow the others' devices */
    ro.sync = sync_all, ro.sync_ctx = w;
    const char *slice = (const char *)sh->data + p->offset * ocr_type_size(sh->type);
    p->st = ocr_run(p->dev, p->kernel, slice, p->count, sh->type, sh->op, &ro, &p->res);
    while (w->calls < ro.repeats + 2)
        sync_all(w);
    return NULL;
}

/* Runs fn on one thread per part in `which` (NULL: all) and waits for them. */
static ocr_status on_threads(void *(*fn)(void *), worker *w, unsigned n, const int *which) {
    pthread_t th[OCR_SPLIT_MAX];
    int started[OCR_SPLIT_MAX];
    ocr_status st = OCR_OK;
    for (unsigned i = 0; i < n; ++i) {
        started[i] = 0;
        if (which && !which[i]) continue;
        if (pthread_create(&th[i], NULL, fn, &w[i]) != 0) {
            ocr_errorf("cannot start a host thread for device %d.%d", w[i].p->choice.platform,
                       w[i].p->choice.device);
            st = OCR_RUNTIME;
            break;
        }
        started[i] = 1;
    }
    for (unsigned i = 0; i < n; ++i)
        if (started[i]) pthread_join(th[i], NULL);
    return st;
}

/* Median and minimum over runs 1..reps of v[1..reps] (v[0]: the warm-up). */
static void med_min(const uint64_t *v, unsigned reps, uint64_t *tmp, uint64_t *med, uint64_t *mn) {
    memcpy(tmp, v + 1, reps * sizeof *tmp);
    *mn = ocr_min_u64(tmp, reps);
    *med = ocr_median_u64(tmp, reps);
}

ocr_status ocr_split_run(const ocr_device_choice *choices, unsigned nparts,
                         const ocr_build_request *rq, const void *data, uint64_t n,
                         const ocr_run_options *opt, ocr_shares shares, ocr_split_result *res) {
    ocr_status st = OCR_OK;
    unsigned reps = opt->repeats ? opt->repeats : 1;
    shared sh;
    worker *w = NULL;
    int *active = NULL, barrier = 0;
    uint64_t *agg = NULL, *tmp = NULL, *comb = NULL;
    double *weights = NULL;
    uint64_t *count = NULL;
    memset(&sh, 0, sizeof sh);
    sh.rq = rq, sh.data = data, sh.n = n, sh.opt = opt, sh.type = rq->type, sh.op = rq->op;
    memset(res, 0, sizeof *res);
    res->nparts = nparts, res->shares = shares, res->n = n, res->repeats = reps;
    res->type = rq->type, res->op = rq->op;
    if (nparts == 0 || nparts > OCR_SPLIT_MAX || n == 0) {
        ocr_errorf("cannot split %llu elements over %u devices (1 to %d)", (unsigned long long)n,
                   nparts, OCR_SPLIT_MAX);
        return OCR_USAGE;
    }
    res->part = calloc(nparts, sizeof *res->part);
    w = calloc(nparts, sizeof *w);
    active = calloc(nparts, sizeof *active);
    weights = calloc(nparts, sizeof *weights);
    count = calloc(nparts, sizeof *count);
    sh.release_ns = calloc(reps + 2, sizeof *sh.release_ns);
    agg = calloc(reps + 1, sizeof *agg);
    tmp = calloc(reps + 1, sizeof *tmp);
    comb = calloc(reps + 1, sizeof *comb);
    if (!res->part || !w || !active || !weights || !count || !sh.release_ns || !agg || !tmp ||
        !comb) {
        ocr_errorf("out of host memory");
        st = OCR_RUNTIME;
        goto fail;
    }
    for (unsigned i = 0; i < nparts; ++i) {
        res->part[i].choice = choices[i];
        w[i] = (worker){&sh, &res->part[i], 0, shares == OCR_SHARES_RATE};
    }

    /* Opened in turn on this thread: the first calls into an OpenCL driver
     * are not always safe from several threads at once (POCL 3.1 has then
     * reported no devices). Then the builds (and probes) at once; stop if
     * any device cannot. */
    for (unsigned i = 0; i < nparts; ++i)
        if ((st = ocr_device_open(&res->part[i].choice, &res->part[i].dev)) != OCR_OK) goto fail;
    if ((st = on_threads(setup, w, nparts, NULL)) != OCR_OK) goto fail;
    for (unsigned i = 0; i < nparts; ++i)
        if (res->part[i].st > st) st = res->part[i].st;
    if (st != OCR_OK) goto fail;

    for (unsigned i = 0; i < nparts; ++i)
        weights[i] = res->part[i].probe_gbs;
    ocr_split_shares(n, nparts, shares == OCR_SHARES_RATE ? weights : NULL, count);
    unsigned nactive = 0;
    for (uint64_t i = 0, off = 0; i < nparts; off += count[i], ++i) {
        res->part[i].offset = off, res->part[i].count = count[i];
        active[i] = count[i] > 0;
        nactive += (unsigned)active[i];
    }

    /* Phase 2: every share at once (devices with no share sit it out). */
    if (pthread_barrier_init(&sh.barrier, NULL, nactive) != 0) {
        ocr_errorf("cannot create a barrier for %u host threads", nactive);
        st = OCR_RUNTIME;
        goto fail;
    }
    barrier = 1;
    if ((st = on_threads(run_share, w, nparts, active)) != OCR_OK) goto fail;
    for (unsigned i = 0; i < nparts; ++i)
        if (active[i] && res->part[i].st != OCR_WRONG && res->part[i].st > st) st = res->part[i].st;
    if (st != OCR_OK) goto fail;

    /* Combine each run's values in device order, as the kernels would, and
     * check it against the reference of the whole input. The depth (for the
     * float bound) is the deepest part's plus one operation per part. */
    ocr_type t = rq->type;
    ocr_op o = rq->op;
    size_t es = ocr_type_size(t);
    uint64_t depth = 0;
    res->passed = 1;
    for (unsigned i = 0; i < nparts; ++i)
        if (active[i]) {
            const ocr_result *r = &res->part[i].res;
            if (r->plan.depth > depth) depth = r->plan.depth;
            res->elems_read += r->plan.elems_read;
            if (!r->passed) res->passed = 0;
        }
    ocr_reference ref;
    ocr_reference_make(data, n, t, o, depth + nparts, opt->data, &ref);
    res->expected = ref.expected;
    res->tolerance = ref.tolerance;
    res->exact = ref.tolerance == 0;
    res->any_order = ref.any_order;
    ocr_value first = ocr_identity(t, o);
    for (unsigned r = 0; r <= reps; ++r) {
        uint64_t t0 = ocr_now_ns();
        ocr_value v = ocr_identity(t, o);
        for (unsigned i = 0; i < nparts; ++i)
            if (active[i]) v = ocr_combine(t, o, v, res->part[i].res.runs[r].result);
        agg[r] = ocr_now_ns() - t0;
        if (r == 0) first = v;
        int ok = ocr_check(t, &ref, v) && memcmp(&v, &first, es) == 0;
        if (!ok && !res->bad_run) res->bad_run = r + 1, res->result = v; /* the first failure */
        if (r == reps && !res->bad_run) res->result = v;
    }
    if (res->bad_run) res->passed = 0;
    res->err_ulps = ocr_error_ulps(t, res->expected, res->result);
    res->tol_ulps = ocr_ulps_of(t, res->expected, res->tolerance);
    uint64_t dummy;
    med_min(agg, reps, tmp, &res->combine_ns, &dummy);

    /* The aggregate of each run: the slowest device's part (+ the combine). */
    const size_t offs[] = {offsetof(ocr_times, h2d_ns), offsetof(ocr_times, kernels_ns),
                           offsetof(ocr_times, d2h_ns), offsetof(ocr_times, cpu_ns),
                           offsetof(ocr_times, gpu_ns), offsetof(ocr_times, resident_ns)};
    for (size_t f = 0; f < sizeof offs / sizeof offs[0]; ++f) {
        for (unsigned r = 0; r <= reps; ++r) {
            uint64_t mx = 0, c = 0;
            for (unsigned i = 0; i < nparts; ++i)
                if (active[i]) {
                    memcpy(&c, (const char *)&res->part[i].res.runs[r].t + offs[f], sizeof c);
                    if (c > mx) mx = c;
                }
            int plus = offs[f] == offsetof(ocr_times, gpu_ns) ||
                       offs[f] == offsetof(ocr_times, resident_ns);
            comb[r] = mx + (plus ? agg[r] : 0);
        }
        med_min(comb, reps, tmp, (uint64_t *)((char *)&res->median + offs[f]),
                (uint64_t *)((char *)&res->min + offs[f]));
    }
    for (unsigned r = 1; r <= reps; ++r) /* run r: from barrier r to barrier r + 1 */
        agg[r] = sh.release_ns[r + 1] - sh.release_ns[r];
    med_min(agg, reps, tmp, &res->median.wall_ns, &res->min.wall_ns);
    st = res->passed ? OCR_OK : OCR_WRONG;
fail:
    if (barrier) pthread_barrier_destroy(&sh.barrier);
    free(comb);
    free(tmp);
    free(agg);
    free(sh.release_ns);
    free(count);
    free(weights);
    free(active);
    free(w);
    return st;
}

void ocr_split_release(ocr_split_result *r) {
    for (unsigned i = 0; r->part && i < r->nparts; ++i) {
        ocr_result_release(&r->part[i].res);
        ocr_kernel_release(r->part[i].kernel);
        ocr_device_close(r->part[i].dev);
    }
    free(r->part);
    r->part = NULL;
}

/* ---- report --------------------------------------------------------------- */

static double ms(uint64_t ns) {
    return (double)ns / 1e6;
}
static double gbs(uint64_t bytes, uint64_t ns) {
    return ns ? (double)bytes / (double)ns : 0.0;
}

static void text(FILE *f, const ocr_report_info *ri, const ocr_split_result *r) {
    size_t es = ocr_type_size(r->type);
    fprintf(f, "Split '%s' over %u devices: %llu elements (%s %s, seed %llu, %s data)\n",
            ri->kernel_name, r->nparts, (unsigned long long)r->n, ocr_type_name(r->type),
            ocr_op_name(r->op), (unsigned long long)ri->seed, ocr_data_kind_name(ri->data));
    fprintf(f, "Shares: %s\n",
            r->shares == OCR_SHARES_RATE
                ? "rate (proportional to each device's end-to-end GB/s in a probe run)"
                : "equal");
    fprintf(f, "%-4s %-34s %12s %7s %12s %12s %10s %10s  %s\n", "p.d", "device", "elements",
            "share", "T kernels", "T total", "GB/s", "GB/s e2e", "check");
    for (unsigned i = 0; i < r->nparts; ++i) {
        const ocr_split_part *p = &r->part[i];
        const ocr_result *s = &p->res;
        const char *name = p->dev ? ocr_device_get_info(p->dev)->name : "(not opened)";
        fprintf(f, "%d.%-2d %-34.34s %12llu %6.2f%%", p->choice.platform, p->choice.device, name,
                (unsigned long long)p->count, 100.0 * (double)p->count / (double)r->n);
        if (!p->count) {
            fprintf(f, "  (no share: fewer elements than devices)\n");
            continue;
        }
        fprintf(f, " %9.4f ms %9.4f ms %10.3f %10.3f  %s\n", ms(s->median.kernels_ns),
                ms(s->median.gpu_ns), gbs(s->plan.elems_read * es, s->median.kernels_ns),
                gbs(p->count * es, s->median.gpu_ns), s->passed ? "PASSED" : "FAILED");
    }
    for (unsigned i = 0; r->shares == OCR_SHARES_RATE && i < r->nparts; ++i)
        fprintf(f, "Probe %d.%d: %.3f GB/s end to end\n", r->part[i].choice.platform,
                r->part[i].choice.device, r->part[i].probe_gbs);
    ocr_print_result(f, r->type, r->result, r->expected, " of the whole input", r->exact,
                     r->any_order, r->err_ulps, r->tol_ulps, r->tolerance);
    fprintf(f,
            ")\nChecked: each device's share against its own reference in all %u runs; the "
            "combination of every run%s\n\n%s\n\n",
            r->repeats + 1, r->bad_run ? "" : ", identical in all",
            r->passed ? "Test PASSED!" : "Test FAILED!");
    const ocr_times *md = &r->median, *mn = &r->min;
    fprintf(f,
            "Aggregate (median of %u runs; every run starts on all devices together, the "
            "slowest device sets its time):\n",
            r->repeats);
    fprintf(f,
            "T kernels: %.5g ms (min %.5g); bandwidth read %.3f GB/s (every device's bytes / "
            "the slowest device's T kernels)\n",
            ms(md->kernels_ns), ms(mn->kernels_ns), gbs(r->elems_read * es, md->kernels_ns));
    fprintf(f,
            "T gpu: %.5g ms (kernels + read-back + CPU finish + combine, input already on the "
            "devices; min %.5g)\n",
            ms(md->resident_ns), ms(mn->resident_ns));
    fprintf(f,
            "T total: %.5g ms end to end from host memory (H2D + kernels + D2H + CPU + "
            "combine; min %.5g): %.3f GB/s of input\n",
            ms(md->gpu_ns), ms(mn->gpu_ns), gbs(r->n * es, md->gpu_ns));
    fprintf(f, "T combine: %.6f ms (host, %u values)\n", ms(r->combine_ns), r->nparts);
    fprintf(f,
            "T wall: %.5g ms (host clock from the start on every device to the end on the "
            "last, per run; min %.5g)\n",
            ms(md->wall_ns), ms(mn->wall_ns));
}

static void json_str(FILE *f, const char *s) {
    ocr_quoted(f, s, 1);
}

static void json_times(FILE *f, const char *name, const ocr_times *t, uint64_t combine) {
    fprintf(f,
            "\"%s\": {\"t_kernels_ms\": %.6f, \"t_gpu_tutorial_ms\": %.6f, \"t_gpu_ms\": %.6f, "
            "\"h2d_ms\": %.6f, \"d2h_ms\": %.6f, \"wall_ms\": %.6f, \"combine_ms\": %.6f}",
            name, ms(t->kernels_ns), ms(t->resident_ns), ms(t->gpu_ns), ms(t->h2d_ns),
            ms(t->d2h_ns), ms(t->wall_ns), ms(combine));
}

static void json(FILE *f, const ocr_report_info *ri, const ocr_split_result *r) {
    size_t es = ocr_type_size(r->type);
    char v[64];
    fputs("{\"split\": true, \"kernel\": ", f);
    json_str(f, ri->kernel_name);
    fprintf(f,
            ", \"type\": \"%s\", \"op\": \"%s\", \"n\": %llu, \"seed\": %llu, \"data\": \"%s\", "
            "\"devices\": %u, \"shares\": \"%s\", \"result\": ",
            ocr_type_name(r->type), ocr_op_name(r->op), (unsigned long long)r->n,
            (unsigned long long)ri->seed, ocr_data_kind_name(ri->data), r->nparts,
            ocr_shares_name(r->shares));
    json_str(f, ocr_value_str(r->type, r->result, v, sizeof v));
    fputs(", \"expected\": ", f);
    json_str(f, ocr_value_str(r->type, r->expected, v, sizeof v));
    fprintf(f, ", \"exact\": %s, \"passed\": %s, \"bad_run\": %u, \"repetitions\": %u, ",
            r->exact ? "true" : "false", r->passed ? "true" : "false", r->bad_run, r->repeats);
    fputs("\"err_ulps\": ", f);
    ocr_json_num(f, r->err_ulps);
    fputs(", \"bandwidth_gbs\": ", f);
    ocr_json_num(f, gbs(r->elems_read * es, r->median.kernels_ns));
    fputs(", \"bandwidth_e2e_gbs\": ", f);
    ocr_json_num(f, gbs(r->n * es, r->median.gpu_ns));
    fputs(", ", f);
    json_times(f, "median", &r->median, r->combine_ns);
    fputs(", ", f);
    json_times(f, "min", &r->min, r->combine_ns);
    fputs(", \"parts\": [", f);
    for (unsigned i = 0; i < r->nparts; ++i) {
        const ocr_split_part *p = &r->part[i];
        fprintf(f,
                "%s\n{\"platform_index\": %d, \"device_index\": %d, \"offset\": %llu, "
                "\"elements\": %llu, \"share\": %.6f, \"probe_gbs\": ",
                i ? "," : "", p->choice.platform, p->choice.device, (unsigned long long)p->offset,
                (unsigned long long)p->count, (double)p->count / (double)r->n);
        ocr_json_num(f, p->probe_gbs);
        fputs(", \"report\": ", f);
        if (p->count && p->res.runs) { /* the single-device report of its share */
            ocr_report_info pi = *ri;
            pi.json_runs = 0, pi.csv_header = 0, pi.passes = 0;
            pi.tuning = p->tuning[0] ? p->tuning : NULL;
            ocr_report(f, OCR_FORMAT_JSON, p->dev, p->kernel, &pi, &p->res);
        } else {
            fputs("null", f);
        }
        fputc('}', f);
    }
    fputs("]}\n", f);
}

void ocr_split_report(FILE *f, ocr_format fmt, const ocr_report_info *ri,
                      const ocr_split_result *r) {
    if (fmt == OCR_FORMAT_JSON)
        json(f, ri, r);
    else
        text(f, ri, r);
}
