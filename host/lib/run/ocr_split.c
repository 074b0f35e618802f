#define _POSIX_C_SOURCE 200809L
/* ocr_split.c - one reduction over several devices of one host: a context,
 * queue and host thread per device, each reducing a contiguous share of the
 * one input with ocr_run; the host combines the parts' values in the
 * kernels' arithmetic. Every run starts on all devices together (a barrier
 * in ocr_run's sync hook), so the slowest device sets each run's time, as it
 * would in an application. */
#include "run.h"

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
    ocr_tune_apply(p->dev, &brq, p->tuning, sizeof p->tuning);
    if ((p->st = ocr_kernel_build(p->dev, &brq, &p->kernel)) != OCR_OK) return NULL;
    if (w->probe) { /* 4M elements at most, 3 timed runs: a rate, not a benchmark */
        uint64_t pn = sh->n < ((uint64_t)1 << 22) ? sh->n : (uint64_t)1 << 22;
        ocr_run_options po = *sh->opt;
        ocr_result r;
        po.repeats = 3, po.cpu = OCR_CPU_NONE, po.sync = NULL;
        ocr_status st = ocr_run(p->dev, p->kernel, sh->data, pn, &po, &r);
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
    p->st = ocr_run(p->dev, p->kernel, slice, p->count, &ro, &p->res);
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
    ocr_median_min_u64(tmp, reps, med, mn);
}

/* What one split run works with besides res->part: the threads' workers,
 * which parts have a share, and per-run scratch (repeats + 1 values each). */
typedef struct {
    shared sh;
    worker *w;
    int *active;
    double *weights;
    uint64_t *count, *agg, *tmp, *comb;
} split_state;

static ocr_status state_alloc(split_state *z, unsigned nparts, unsigned reps,
                              ocr_split_result *res) {
    res->part = calloc(nparts, sizeof *res->part);
    z->w = calloc(nparts, sizeof *z->w);
    z->active = calloc(nparts, sizeof *z->active);
    z->weights = calloc(nparts, sizeof *z->weights);
    z->count = calloc(nparts, sizeof *z->count);
    z->sh.release_ns = calloc(reps + 2, sizeof *z->sh.release_ns);
    z->agg = calloc(reps + 1, sizeof *z->agg);
    z->tmp = calloc(reps + 1, sizeof *z->tmp);
    z->comb = calloc(reps + 1, sizeof *z->comb);
    if (!res->part || !z->w || !z->active || !z->weights || !z->count || !z->sh.release_ns ||
        !z->agg || !z->tmp || !z->comb) {
        ocr_errorf("out of host memory");
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

static void state_free(split_state *z) {
    free(z->comb);
    free(z->tmp);
    free(z->agg);
    free(z->sh.release_ns);
    free(z->count);
    free(z->weights);
    free(z->active);
    free(z->w);
}

/* Phase 1: the devices opened in turn on this thread (the first calls into
 * an OpenCL driver are not always safe from several threads at once: POCL 3.1
 * has then reported no devices), then the builds (and probes) at once. */
static ocr_status open_and_build(split_state *z, ocr_split_result *res) {
    ocr_status st = OCR_OK;
    for (unsigned i = 0; i < res->nparts; ++i)
        if ((st = ocr_device_open(&res->part[i].choice, &res->part[i].dev)) != OCR_OK) return st;
    if ((st = on_threads(setup, z->w, res->nparts, NULL)) != OCR_OK) return st;
    for (unsigned i = 0; i < res->nparts; ++i)
        if (res->part[i].st > st) st = res->part[i].st;
    return st;
}

/* Each part's slice of the input; the number with a share. */
static unsigned assign_shares(split_state *z, ocr_split_result *res) {
    unsigned nactive = 0;
    for (unsigned i = 0; i < res->nparts; ++i)
        z->weights[i] = res->part[i].probe_gbs;
    ocr_split_shares(res->n, res->nparts, res->shares == OCR_SHARES_RATE ? z->weights : NULL,
                     z->count);
    for (uint64_t i = 0, off = 0; i < res->nparts; off += z->count[i], ++i) {
        res->part[i].offset = off, res->part[i].count = z->count[i];
        z->active[i] = z->count[i] > 0;
        nactive += (unsigned)z->active[i];
    }
    return nactive;
}

/* Phase 2: every share at once (devices with no share sit it out). */
static ocr_status run_shares(split_state *z, ocr_split_result *res, unsigned nactive) {
    ocr_status st = OCR_OK;
    if (pthread_barrier_init(&z->sh.barrier, NULL, nactive) != 0) {
        ocr_errorf("cannot create a barrier for %u host threads", nactive);
        return OCR_RUNTIME;
    }
    st = on_threads(run_share, z->w, res->nparts, z->active);
    pthread_barrier_destroy(&z->sh.barrier);
    if (st != OCR_OK) return st;
    for (unsigned i = 0; i < res->nparts; ++i)
        if (z->active[i] && res->part[i].st != OCR_WRONG && res->part[i].st > st)
            st = res->part[i].st;
    return st;
}

/* Combine each run's values in device order, as the kernels would, and
 * check it against the reference of the whole input. The depth (for the
 * float bound) is the deepest part's plus one operation per part. z->agg
 * gets each run's combine time. */
static void combine_and_check(split_state *z, ocr_split_result *res, const void *data,
                              const ocr_run_options *opt) {
    ocr_type t = res->type;
    ocr_op o = res->op;
    size_t es = ocr_type_size(t);
    uint64_t depth = 0;
    res->passed = 1;
    for (unsigned i = 0; i < res->nparts; ++i)
        if (z->active[i]) {
            const ocr_result *r = &res->part[i].res;
            if (r->plan.depth > depth) depth = r->plan.depth;
            res->elems_read += r->plan.elems_read;
            if (!r->passed) res->passed = 0;
        }
    ocr_reference ref;
    ocr_reference_make(data, res->n, t, o, depth + res->nparts, opt->data, &ref);
    OCR_TAKE_REFERENCE(res, ref);
    ocr_value first = ocr_identity(t, o);
    for (unsigned r = 0; r <= res->repeats; ++r) {
        uint64_t t0 = ocr_now_ns();
        ocr_value v = ocr_identity(t, o);
        for (unsigned i = 0; i < res->nparts; ++i)
            if (z->active[i]) v = ocr_combine(t, o, v, res->part[i].res.runs[r].result);
        z->agg[r] = ocr_now_ns() - t0;
        if (r == 0) first = v;
        int ok = ocr_check(t, &ref, v) && memcmp(&v, &first, es) == 0;
        if (!ok && !res->bad_run) res->bad_run = r + 1, res->result = v; /* the first failure */
        if (r == res->repeats && !res->bad_run) res->result = v;
    }
    if (res->bad_run) res->passed = 0;
    res->err_ulps = ocr_error_ulps(t, res->expected, res->result);
    res->tol_ulps = ocr_ulps_of(t, res->expected, res->tolerance);
}

/* The aggregate of each run: the slowest device's part (+ the combine, in
 * z->agg), then medians and minima over the runs; the wall clock from one
 * barrier to the next. */
static void aggregate(split_state *z, ocr_split_result *res) {
    unsigned reps = res->repeats;
    uint64_t dummy;
    med_min(z->agg, reps, z->tmp, &res->combine_ns, &dummy);
    const size_t offs[] = {offsetof(ocr_times, h2d_ns), offsetof(ocr_times, kernels_ns),
                           offsetof(ocr_times, d2h_ns), offsetof(ocr_times, cpu_ns),
                           offsetof(ocr_times, gpu_ns), offsetof(ocr_times, resident_ns)};
    for (size_t f = 0; f < sizeof offs / sizeof offs[0]; ++f) {
        for (unsigned r = 0; r <= reps; ++r) {
            uint64_t mx = 0, c = 0;
            for (unsigned i = 0; i < res->nparts; ++i)
                if (z->active[i]) {
                    memcpy(&c, (const char *)&res->part[i].res.runs[r].t + offs[f], sizeof c);
                    if (c > mx) mx = c;
                }
            int plus = offs[f] == offsetof(ocr_times, gpu_ns) ||
                       offs[f] == offsetof(ocr_times, resident_ns);
            z->comb[r] = mx + (plus ? z->agg[r] : 0);
        }
        med_min(z->comb, reps, z->tmp, (uint64_t *)((char *)&res->median + offs[f]),
                (uint64_t *)((char *)&res->min + offs[f]));
    }
    for (unsigned r = 1; r <= reps; ++r) /* run r: from barrier r to barrier r + 1 */
        z->agg[r] = z->sh.release_ns[r + 1] - z->sh.release_ns[r];
    med_min(z->agg, reps, z->tmp, &res->median.wall_ns, &res->min.wall_ns);
}

ocr_status ocr_split_run(const ocr_device_choice *choices, unsigned nparts,
                         const ocr_build_request *rq, const void *data, uint64_t n,
                         const ocr_run_options *opt, ocr_shares shares, ocr_split_result *res) {
    ocr_status st = OCR_OK;
    unsigned reps = opt->repeats ? opt->repeats : 1;
    split_state z;
    memset(&z, 0, sizeof z);
    z.sh.rq = rq, z.sh.data = data, z.sh.n = n, z.sh.opt = opt;
    z.sh.type = rq->type, z.sh.op = rq->op;
    memset(res, 0, sizeof *res);
    res->nparts = nparts, res->shares = shares, res->n = n, res->repeats = reps;
    res->type = rq->type, res->op = rq->op;
    if (ocr_type_is_storage(rq->type)) {
        ocr_errorf("a split reads no %s data yet (small types: single reductions)",
                   ocr_type_name(rq->type));
        return OCR_USAGE;
    }
    if (nparts == 0 || nparts > OCR_SPLIT_MAX || n == 0) {
        ocr_errorf("cannot split %llu elements over %u devices (1 to %d)", (unsigned long long)n,
                   nparts, OCR_SPLIT_MAX);
        return OCR_USAGE;
    }
    if ((st = state_alloc(&z, nparts, reps, res)) != OCR_OK) goto fail;
    for (unsigned i = 0; i < nparts; ++i) {
        res->part[i].choice = choices[i];
        z.w[i] = (worker){&z.sh, &res->part[i], 0, shares == OCR_SHARES_RATE};
    }
    if ((st = open_and_build(&z, res)) != OCR_OK) goto fail;
    if ((st = run_shares(&z, res, assign_shares(&z, res))) != OCR_OK) goto fail;
    combine_and_check(&z, res, data, opt);
    aggregate(&z, res);
    st = res->passed ? OCR_OK : OCR_WRONG;
fail:
    state_free(&z);
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
