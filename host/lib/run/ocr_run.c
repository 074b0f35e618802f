#define _POSIX_C_SOURCE 200809L
/* ocr_run.c - run a planned reduction: upload, one launch per pass with the
 * two buffers swapped in between, read back the leftovers, finish on the CPU,
 * check, and time every part (one warm-up, then the median of R runs).
 *
 * Layering: this is the benchmark routine (host data, repetitions, timing,
 * the check) around the same launch code as the primitive: both ocr_run and
 * ocr_reducer_reduce[_async] (ocr_reducer.c) enqueue a plan (ocr_plan.c) of a
 * built kernel (ocr_program.c) through ocr_passes_enqueue (ocr_passes.c). What
 * only the benchmark adds: the upload, the CPU finish below M, the poisoned
 * scratch, the warm-up and the per-pass event times. */
#include "ocr_internal.h"

#include <stddef.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

/* An event's device-clock start and end, and their difference (subtracted in
 * integers, converted later). */
static ocr_status event_span(cl_event ev, uint64_t *start, uint64_t *end, uint64_t *ns) {
    ocr_status st = OCR_OK;
    cl_ulong t0 = 0, t1 = 0;
    OCR_CL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
    OCR_CL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    *start = t0, *end = t1;
    *ns = t1 >= t0 ? (uint64_t)(t1 - t0) : 0;
fail:
    return st;
}

/* Memory this process may still take: MemAvailable, capped by RLIMIT_AS. */
static uint64_t host_available(void) {
    uint64_t avail = UINT64_MAX;
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = (uint64_t)kb * 1024;
    if (f) fclose(f);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < avail)
        avail = rl.rlim_cur;
    return avail;
}

static ocr_host_mem resolve_host_mem(const ocr_device *dev, ocr_host_mem h) {
    return h != OCR_HOST_AUTO ? h : dev->info.host_unified ? OCR_HOST_ZERO_COPY : OCR_HOST_PINNED;
}

/* The plan for n elements with the options' M, or the kernel's default. */
static ocr_status plan_for(const ocr_kernel *k, uint64_t n, const ocr_run_options *opt,
                           ocr_plan *plan) {
    uint64_t m = opt->m ? opt->m : k->default_m;
    if (ocr_plan_make(&k->geom, n, m, plan) != OCR_OK) {
        ocr_errorf("cannot plan a reduction of %llu elements with M = %llu", (unsigned long long)n,
                   (unsigned long long)m);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* Elements of scratch buffer i (0 or 1): the output of pass i, or one. */
static uint64_t scratch_elems(const ocr_plan *p, unsigned i) {
    return p->npasses > i ? p->pass[i].n_out : 1;
}

/* Whether the host and the device can hold the buffers of this plan. */
static ocr_status check_fits(const ocr_device *dev, const ocr_kernel *k, const ocr_plan *plan,
                             const ocr_run_options *opt) {
    const ocr_device_info *in = &dev->info;
    uint64_t es = ocr_type_size(k->type);
    uint64_t a = plan->n * es; /* n <= 2^40 and es <= 8: no overflow */
    uint64_t b = (scratch_elems(plan, 0) + scratch_elems(plan, 1)) * es;
    /* The input itself, plus the pinned staging copy or the zero-copy buffer;
     * on a device that shares host memory (a CPU) its buffers live there too
     * (POCL aborts, rather than failing a call, when it cannot back them). */
    ocr_host_mem hm = resolve_host_mem(dev, opt->host_mem);
    uint64_t host = hm == OCR_HOST_PAGEABLE ? a : 2 * a;
    if (in->host_unified) host += b + (hm == OCR_HOST_ZERO_COPY ? 0 : a);
    uint64_t avail = host_available();
    if (host > avail) {
        ocr_errorf("the input needs %llu MiB of host memory (%s path); %llu MiB are available: "
                   "use a smaller -s",
                   (unsigned long long)(host >> 20), ocr_host_mem_name(hm),
                   (unsigned long long)(avail >> 20));
        return OCR_TOO_LARGE;
    }
    if (a > in->max_alloc) {
        ocr_errorf("the input needs a %llu MiB buffer; %s allows at most %llu MiB per buffer "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller -s",
                   (unsigned long long)(a >> 20), in->name,
                   (unsigned long long)(in->max_alloc >> 20));
        return OCR_TOO_LARGE;
    }
    if (a + b > in->global_mem) {
        ocr_errorf("the buffers need %llu MiB; %s has %llu MiB of global memory: use a smaller -s",
                   (unsigned long long)((a + b) >> 20), in->name,
                   (unsigned long long)(in->global_mem >> 20));
        return OCR_TOO_LARGE;
    }
    return OCR_OK;
}

ocr_status ocr_check_size(const ocr_device *dev, const ocr_kernel *k, uint64_t n,
                          const ocr_run_options *opt) {
    ocr_last_error_clear();
    ocr_plan plan;
    ocr_status st = plan_for(k, n, opt, &plan);
    return st != OCR_OK ? st : check_fits(dev, k, &plan, opt);
}

static const char *const host_mem_names[] = {"auto", "pageable", "pinned", "zero-copy"};

const char *ocr_host_mem_name(ocr_host_mem h) {
    return host_mem_names[h];
}
int ocr_host_mem_from_name(const char *s, ocr_host_mem *h) {
    int i = ocr_name_index(s, host_mem_names, 4);
    if (i >= 0) *h = (ocr_host_mem)i;
    return i < 0 ? -1 : 0;
}

/* The device-side buffers of one reduction. The input has its own buffer, so
 * kernels never overwrite it (zero-copy needs that); the passes ping-pong
 * between two scratch buffers sized for the first two outputs. */
typedef struct {
    ocr_host_mem mode;
    cl_mem in, scratch[2];
    cl_mem staging;  /* PINNED: page-locked host buffer ... */
    void *mapped;    /* ... mapped here for the whole run */
    const void *src; /* what clEnqueueWriteBuffer copies from */
} buffers;

/* Uploads the input the way `mode` says; `ev` times it (two events for zero-copy). */
static ocr_status upload(cl_command_queue q, const buffers *b, uint64_t bytes, cl_event ev[2]) {
    ocr_status st = OCR_OK;
    cl_int err;
    if (b->mode != OCR_HOST_ZERO_COPY) {
        OCR_CL(clEnqueueWriteBuffer(q, b->in, CL_FALSE, 0, bytes, b->src, 0, NULL, &ev[0]));
    } else {
        /* The data already lives in host memory the device reads; what is left
         * is handing it over: a map for writing and an unmap. */
        void *p =
            clEnqueueMapBuffer(q, b->in, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, &ev[0], &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
        OCR_CL(clEnqueueUnmapMemObject(q, b->in, p, 0, NULL, &ev[1]));
    }
fail:
    return st;
}

/* One full reduction on the device; fills the times of this run. */
static ocr_status run_once(ocr_device *dev, ocr_kernel *k, const ocr_plan *plan, const buffers *bf,
                           size_t es, void *left, ocr_run_sample *rs) {
    ocr_times *t = &rs->t;
    ocr_status st = OCR_OK;
    cl_command_queue q = dev->queue;
    cl_event ev_w[2] = {NULL, NULL}, ev_r = NULL, ev_k[OCR_MAX_PASSES];
    unsigned nk = 0;
    /* One in-order queue: the passes need no wait lists; ping-pong between
     * the two scratch buffers, the leftovers read from the last one written. */
    ocr_pass_io io = {.in = bf->in, .scratch = {bf->scratch[0], bf->scratch[1]}};
    cl_mem last = plan->npasses ? bf->scratch[(plan->npasses - 1) % 2] : bf->in;
    memset(t, 0, sizeof *t);

    uint64_t wall0 = ocr_now_ns();
    if ((st = upload(q, bf, plan->n * es, ev_w)) != OCR_OK) goto fail;
    if ((st = ocr_passes_enqueue(q, k, plan, &io, ev_k, &nk)) != OCR_OK) goto fail;
    OCR_CL(clEnqueueReadBuffer(q, last, CL_TRUE, 0, plan->leftover * es, left, 0, NULL, &ev_r));

    uint64_t t0 = ocr_now_ns();
    rs->result = ocr_reduce_naive(left, plan->leftover, k->type, k->op);
    t->cpu_ns = ocr_now_ns() - t0;
    t->wall_ns = ocr_now_ns() - wall0;

    uint64_t t_start, t_end = 0, prev_end = 0, ns;
    for (int i = 0; i < 2 && ev_w[i]; ++i) {
        if ((st = event_span(ev_w[i], &t_start, &prev_end, &ns)) != OCR_OK) goto fail;
        t->h2d_ns += ns;
    }
    if ((st = event_span(ev_r, &t_start, &t_end, &t->d2h_ns)) != OCR_OK) goto fail;
    /* Each pass's event, and the device-clock gap before it: from the end of
     * the previous command (the upload, for pass 0) to its start. */
    for (unsigned i = 0; i < nk; ++i) {
        if ((st = event_span(ev_k[i], &t_start, &t_end, &rs->pass_ns[i])) != OCR_OK) goto fail;
        rs->gap_ns[i] = t_start > prev_end ? t_start - prev_end : 0;
        prev_end = t_end;
        t->kernels_ns += rs->pass_ns[i];
    }
    t->gpu_ns = t->h2d_ns + t->kernels_ns + t->d2h_ns + t->cpu_ns;
    t->resident_ns = t->kernels_ns + t->d2h_ns + t->cpu_ns;
fail:
    /* A failed call leaves the queue in an unknown state: drain it before the
     * events and buffers go. */
    if (st != OCR_OK) clFinish(q);
    if (ev_r) clReleaseEvent(ev_r);
    while (nk > 0)
        clReleaseEvent(ev_k[--nk]);
    for (int i = 1; i >= 0; --i)
        if (ev_w[i]) clReleaseEvent(ev_w[i]);
    return st;
}

static ocr_status poison(cl_command_queue q, cl_mem m, uint64_t bytes) {
    ocr_status st = OCR_OK;
    size_t chunk = bytes < ((size_t)1 << 20) ? (size_t)bytes : (size_t)1 << 20;
    unsigned char *junk = malloc(chunk);
    if (!junk) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    memset(junk, 0x7F, chunk);
    for (uint64_t off = 0; off < bytes; off += chunk) {
        size_t len = bytes - off < chunk ? (size_t)(bytes - off) : chunk;
        OCR_CL(clEnqueueWriteBuffer(q, m, CL_TRUE, (size_t)off, len, junk, 0, NULL, NULL));
    }
fail:
    free(junk);
    return st;
}

/* Creates the buffers for `mode` and puts the input where the runs expect it
 * (once, untimed: an application would produce its data there). */
static ocr_status buffers_make(ocr_device *dev, buffers *b, const void *data, uint64_t bytes,
                               uint64_t s0, uint64_t s1) {
    ocr_status st = OCR_OK;
    cl_int err;
    cl_command_queue q = dev->queue;
    b->src = data;
    if (b->mode == OCR_HOST_ZERO_COPY) {
        b->in = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                               &err);
        OCR_CHECK(err, "clCreateBuffer");
        void *p =
            clEnqueueMapBuffer(q, b->in, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
        memcpy(p, data, bytes);
        OCR_CL(clEnqueueUnmapMemObject(q, b->in, p, 0, NULL, NULL));
    } else {
        b->in = clCreateBuffer(dev->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
    }
    if (b->mode == OCR_HOST_PINNED) {
        b->staging = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes,
                                    NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
        void *p =
            clEnqueueMapBuffer(q, b->staging, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
        memcpy(p, data, bytes);
        b->src = b->mapped = p; /* stays mapped: a page-locked pointer to copy from */
    }
    b->scratch[0] = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, s0, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    b->scratch[1] = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, s1, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    /* Scratch starts as large garbage (0x7F bytes: about 2^31, 3e38, 1e306 in
     * the element types), not as the zeros a fresh buffer often holds, so a
     * kernel that reads its output before writing it fails on the first run.
     * Written, not filled: oclgrind takes clEnqueueFillBuffer's bytes for
     * uninitialized ones. */
    if ((st = poison(q, b->scratch[0], s0)) != OCR_OK || (st = poison(q, b->scratch[1], s1)))
        goto fail;
    OCR_CL(clFinish(q));
fail:
    return st;
}

/* Releases everything; a failure of the unmap or the finish is reported only
 * when nothing failed before (one message per run), releases are not checked:
 * the objects are going away either way. */
static ocr_status buffers_release(ocr_device *dev, buffers *b, ocr_status st) {
#define FIRST_ERROR(err, call)                                                                     \
    do {                                                                                           \
        cl_int e_ = (err);                                                                         \
        if (e_ != CL_SUCCESS && st == OCR_OK) {                                                    \
            ocr_report_cl(call, e_, __FILE__, __LINE__);                                           \
            st = ocr_status_from_cl(e_);                                                           \
        }                                                                                          \
    } while (0)
    if (b->scratch[1]) clReleaseMemObject(b->scratch[1]);
    if (b->scratch[0]) clReleaseMemObject(b->scratch[0]);
    if (b->staging) {
        if (b->mapped) {
            FIRST_ERROR(clEnqueueUnmapMemObject(dev->queue, b->staging, b->mapped, 0, NULL, NULL),
                        "clEnqueueUnmapMemObject");
            FIRST_ERROR(clFinish(dev->queue), "clFinish");
        }
        clReleaseMemObject(b->staging);
    }
    if (b->in) clReleaseMemObject(b->in);
#undef FIRST_ERROR
    return st;
}

/* Median and minimum of field `off` over the timed runs (runs[1..reps]). */
static void stat(const ocr_run_sample *runs, unsigned reps, size_t off, uint64_t *tmp,
                 uint64_t *med, uint64_t *mn) {
    for (unsigned i = 0; i < reps; ++i)
        memcpy(&tmp[i], (const char *)&runs[i + 1].t + off, sizeof tmp[i]);
    ocr_median_min_u64(tmp, reps, med, mn);
}

/* Every part's median and minimum over the timed runs. */
static void run_stats(ocr_result *res, unsigned reps, uint64_t *tmp) {
#define STAT(f) stat(res->runs, reps, offsetof(ocr_times, f), tmp, &res->median.f, &res->min.f)
    STAT(h2d_ns);
    STAT(kernels_ns);
    STAT(d2h_ns);
    STAT(cpu_ns);
    STAT(gpu_ns);
    STAT(wall_ns);
    STAT(resident_ns);
#undef STAT
}

/* The CPU baselines, timed over as many runs: the tutorial's naive loop
 * (unless NONE) and, for BEST, the optimized reduction with its own check. */
static void time_cpu(const void *data, uint64_t n, ocr_type t, ocr_op o,
                     const ocr_run_options *opt, unsigned reps, uint64_t *samples,
                     ocr_result *res) {
    /* The sink keeps the calls from being optimised away. */
    volatile uint64_t sink = opt->cpu != OCR_CPU_NONE ? ocr_reduce_naive(data, n, t, o).ul : 0;
    for (unsigned r = 0; r < reps && opt->cpu != OCR_CPU_NONE; ++r) {
        uint64_t t0 = ocr_now_ns();
        sink ^= ocr_reduce_naive(data, n, t, o).ul;
        samples[r] = ocr_now_ns() - t0;
    }
    (void)sink;
    if (opt->cpu != OCR_CPU_NONE)
        ocr_median_min_u64(samples, reps, &res->ref_ns_median, &res->ref_ns_min);
    res->best_passed = 1;
    if (opt->cpu != OCR_CPU_BEST) return;
    res->best_result = ocr_reduce_best(data, n, t, o, 0, &res->cpu_threads); /* warm-up */
    for (unsigned r = 0; r < reps; ++r) {
        uint64_t t0 = ocr_now_ns();
        res->best_result = ocr_reduce_best(data, n, t, o, 0, NULL);
        samples[r] = ocr_now_ns() - t0;
    }
    ocr_median_min_u64(samples, reps, &res->best_ns_median, &res->best_ns_min);
    /* Its order differs from the device's, so is its depth. */
    ocr_reference any;
    ocr_reference_make(data, n, t, o, ocr_best_depth(n, res->cpu_threads), opt->data, &any);
    res->best_passed = ocr_check(t, &any, res->best_result);
}

void ocr_result_release(ocr_result *res) {
    free(res->runs);
    res->runs = NULL;
}

/* Every run is checked, the warm-up (runs[0]) too: a kernel that is right
 * once and wrong later (stale scratch, a race) must not pass on its last run.
 * Runs must also agree bit for bit with the first. */
static ocr_status runs(ocr_device *dev, ocr_kernel *k, const buffers *bf, void *left,
                       const ocr_reference *ref, const ocr_run_options *opt, unsigned reps,
                       ocr_result *res) {
    ocr_status st = OCR_OK;
    size_t es = ocr_type_size(k->type);
    for (unsigned r = 0; r <= reps; ++r) {
        ocr_run_sample *rs = &res->runs[r];
        if (opt->sync) opt->sync(opt->sync_ctx);
        if ((st = run_once(dev, k, &res->plan, bf, es, left, rs)) != OCR_OK) return st;
        rs->passed = ocr_check(k->type, ref, rs->result) &&
                     memcmp(&rs->result, &res->runs[0].result, es) == 0;
        if (!rs->passed && !res->bad_run) res->bad_run = r + 1;
    }
    if (opt->sync) opt->sync(opt->sync_ctx);
    res->result = res->runs[res->bad_run ? res->bad_run - 1 : reps].result;
    res->passed = res->bad_run == 0;
    res->err_ulps = ocr_error_ulps(k->type, res->expected, res->result);
    res->tol_ulps = ocr_ulps_of(k->type, res->expected, res->tolerance);
    return OCR_OK;
}

ocr_status ocr_run(ocr_device *dev, ocr_kernel *k, const void *data, uint64_t n, ocr_type t,
                   ocr_op o, const ocr_run_options *opt, ocr_result *res) {
    ocr_last_error_clear();
    ocr_status st = OCR_OK;
    buffers bf = {0};
    void *left = NULL;
    uint64_t *samples = NULL;
    size_t es = ocr_type_size(t);
    unsigned reps = opt->repeats ? opt->repeats : 1;
    ocr_reference ref;

    memset(res, 0, sizeof *res);
    if (t != k->type || o != k->op) {
        ocr_errorf("the kernel was built for %s %s, not %s %s", ocr_type_name(k->type),
                   ocr_op_name(k->op), ocr_type_name(t), ocr_op_name(o));
        return OCR_USAGE;
    }
    const ocr_plan *plan = &res->plan;
    if ((st = plan_for(k, n, opt, &res->plan)) != OCR_OK || (st = check_fits(dev, k, plan, opt)))
        return st;
    uint64_t s0 = scratch_elems(plan, 0), s1 = scratch_elems(plan, 1);
    bf.mode = resolve_host_mem(dev, opt->host_mem);
    res->host_mem = bf.mode;
    if ((st = buffers_make(dev, &bf, data, n * es, s0 * es, s1 * es)) != OCR_OK) goto fail;
    left = malloc(plan->leftover * es);
    res->runs = calloc((size_t)reps + 1, sizeof *res->runs);
    samples = calloc(reps, sizeof *samples);
    if (!left || !res->runs || !samples) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
        goto fail;
    }
    ocr_reference_make(data, n, t, o, plan->depth, opt->data, &ref);
    OCR_TAKE_REFERENCE(res, ref);
    if ((st = runs(dev, k, &bf, left, &ref, opt, reps, res)) != OCR_OK) goto fail;
    run_stats(res, reps, samples);
    time_cpu(data, n, t, o, opt, reps, samples, res);
    res->repeats = reps;
    st = res->passed && res->best_passed ? OCR_OK : OCR_WRONG;
fail:
    free(samples);
    free(left);
    st = buffers_release(dev, &bf, st);
    if (st != OCR_OK && st != OCR_WRONG) ocr_result_release(res);
    return st;
}
