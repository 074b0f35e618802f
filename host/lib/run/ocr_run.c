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
#include "run.h"

#include <stddef.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

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

/* A kernel under test writes only out[0..n_out) and reads only its groups'
 * elements; its buffers get room past those, filled with poison and checked
 * after every run (the guard): a write at out[get_global_id(0)], one past
 * the end, or a read past the last group then lands in memory of ours, the
 * same way every time, instead of corrupting the heap now and then. */
enum { GUARD_BYTES = 4096, READ_GUARD_MAX = 1 << 20, POISON = 0x7F };

/* Room past `used` bytes for reads of the last group's whole span (`span`
 * bytes), at most READ_GUARD_MAX (a huge E must not cost a huge buffer). */
static uint64_t read_room(uint64_t used, uint64_t span) {
    uint64_t extra = span > used ? span - used : 0;
    return used + (extra < READ_GUARD_MAX ? extra : READ_GUARD_MAX);
}

/* Bytes of the input buffer and of each scratch buffer, and the bytes of
 * scratch buffer i that its passes write (the guard starts there). */
typedef struct {
    uint64_t in, scratch[2], used[2];
} layout;

/* es: bytes of an input element; the passes write ocr_acc_size's (argmin and
 * argmax write 16-byte keys). */
static void layout_of(const ocr_kernel *k, const ocr_plan *p, uint64_t es, layout *l) {
    int guarded = !k->geom.tree;
    const uint64_t aes = ocr_acc_size(k->type, k->op);
    uint64_t e = k->geom.elems_per_group;
    l->in = p->n * es;
    for (unsigned i = 0; i < 2; ++i)
        l->used[i] = l->scratch[i] = scratch_elems(p, i) * aes;
    if (!guarded) return;
    if (p->npasses) l->in = read_room(l->in, p->pass[0].groups * e * es);
    l->in += GUARD_BYTES;
    for (unsigned s = 0; s < p->npasses; ++s) {
        const ocr_pass *ps = &p->pass[s];
        unsigned w = s % 2; /* pass s writes scratch[s % 2], reads scratch[(s + 1) % 2] */
        if (ps->n_out * aes > l->used[w]) l->used[w] = ps->n_out * aes;
        if (ps->global_size * aes > l->scratch[w]) l->scratch[w] = ps->global_size * aes;
        uint64_t read = s > 0 ? read_room(p->pass[s - 1].n_out * aes, ps->groups * e * aes) : 0;
        if (read > l->scratch[!w]) l->scratch[!w] = read;
    }
    for (unsigned i = 0; i < 2; ++i) {
        if (l->used[i] > l->scratch[i]) l->scratch[i] = l->used[i];
        l->scratch[i] += GUARD_BYTES;
    }
}

/* Whether the run checks a second data set (ocr_run_options.second). */
static int second_due(const ocr_kernel *k, const ocr_run_options *opt) {
    return opt->second == OCR_SECOND_ON || (opt->second == OCR_SECOND_AUTO && !k->geom.tree);
}

/* Whether the host and the device can hold the buffers of this plan. */
static ocr_status check_fits(const ocr_device *dev, const ocr_kernel *k, const ocr_plan *plan,
                             const ocr_run_options *opt) {
    const ocr_device_info *in = &dev->info;
    uint64_t es = ocr_type_size(k->in_type);
    layout l;
    layout_of(k, plan, es, &l);
    uint64_t a = plan->n * es; /* n <= 2^40 and es <= 8: no overflow */
    uint64_t b = l.scratch[0] + l.scratch[1];
    /* The input itself, plus the pinned staging copy or the zero-copy buffer;
     * on a device that shares host memory (a CPU) its buffers live there too
     * (POCL aborts, rather than failing a call, when it cannot back them).
     * A second data set adds its own input. */
    ocr_host_mem hm = resolve_host_mem(dev, opt->host_mem);
    uint64_t host = hm == OCR_HOST_PAGEABLE ? a : 2 * a;
    if (in->host_unified) host += b + (hm == OCR_HOST_ZERO_COPY ? 0 : l.in);
    if (second_due(k, opt)) host += a;
    uint64_t avail = host_available();
    if (host > avail) {
        ocr_errorf("the input needs %llu MiB of host memory (%s path); %llu MiB are available: "
                   "use a smaller -s",
                   (unsigned long long)(host >> 20), ocr_host_mem_name(hm),
                   (unsigned long long)(avail >> 20));
        return OCR_TOO_LARGE;
    }
    if (l.in > in->max_alloc) {
        ocr_errorf("the input needs a %llu MiB buffer; %s allows at most %llu MiB per buffer "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller -s",
                   (unsigned long long)(l.in >> 20), in->name,
                   (unsigned long long)(in->max_alloc >> 20));
        return OCR_TOO_LARGE;
    }
    if (l.in + b > in->global_mem) {
        ocr_errorf("the buffers need %llu MiB; %s has %llu MiB of global memory: use a smaller -s",
                   (unsigned long long)((l.in + b) >> 20), in->name,
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
    layout size;     /* of each buffer, guards included */
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
    /* The leftovers: values, or keys (argmin/argmax) unless no pass ran. */
    const int keys = ocr_op_is_arg(k->op) && plan->npasses;
    /* After a pass: values of k->type (a small type's accumulator); with none,
     * the input itself. */
    const ocr_type lt = plan->npasses ? k->type : k->in_type;
    const size_t les = keys ? sizeof(ocr_arg_key) : ocr_type_size(lt);
    OCR_CL(clEnqueueReadBuffer(q, last, CL_TRUE, 0, plan->leftover * les, left, 0, NULL, &ev_r));

    uint64_t t0 = ocr_now_ns();
    /* accurate: the groups' accumulators where a pass of several groups ran last */
    rs->result = keys               ? ocr_arg_finish(left, plan->leftover, k->type, k->op)
                 : k->geom.accurate ? ocr_sum_accurate_parts(left, plan->leftover, k->type,
                                                             plan->npasses && plan->leftover > 1)
                                    : ocr_reduce_naive(left, plan->leftover, lt, k->op);
    t->cpu_ns = ocr_now_ns() - t0;
    t->wall_ns = ocr_now_ns() - wall0;

    uint64_t t_start, t_end = 0, prev_end = 0, ns;
    for (int i = 0; i < 2 && ev_w[i]; ++i) {
        if ((st = ocr_event_span(ev_w[i], wall0, &t_start, &prev_end, &ns)) != OCR_OK) goto fail;
        t->h2d_ns += ns;
    }
    if ((st = ocr_event_span(ev_r, wall0, &t_start, &t_end, &t->d2h_ns)) != OCR_OK) goto fail;
    /* Each pass's event, and the device-clock gap before it: from the end of
     * the previous command (the upload, for pass 0) to its start (0 where the
     * runtime gave no times: ocr_event_span's 0s). */
    for (unsigned i = 0; i < nk; ++i) {
        if ((st = ocr_event_span(ev_k[i], wall0, &t_start, &t_end, &rs->pass_ns[i])) != OCR_OK)
            goto fail;
        rs->gap_ns[i] = prev_end && t_start > prev_end ? t_start - prev_end : 0;
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

/* Writes poison over bytes [off, end) of m. */
static ocr_status poison(cl_command_queue q, cl_mem m, uint64_t off, uint64_t end) {
    ocr_status st = OCR_OK;
    uint64_t bytes = end - off;
    size_t chunk = bytes < ((size_t)1 << 20) ? (size_t)bytes : (size_t)1 << 20;
    unsigned char *junk = malloc(chunk ? chunk : 1);
    if (!junk) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    memset(junk, POISON, chunk);
    for (; off < end; off += chunk) {
        size_t len = end - off < chunk ? (size_t)(end - off) : chunk;
        OCR_CL(clEnqueueWriteBuffer(q, m, CL_TRUE, (size_t)off, len, junk, 0, NULL, NULL));
    }
fail:
    free(junk);
    return st;
}

/* Puts `bytes` of input where the runs read it (untimed: an application would
 * produce its data there): the staging copy (pinned), the buffer itself
 * (zero-copy), or nowhere yet (pageable: each run's upload copies it). */
static ocr_status buffers_set_input(cl_command_queue q, buffers *b, const void *data,
                                    uint64_t bytes) {
    ocr_status st = OCR_OK;
    cl_int err;
    b->src = b->mapped ? b->mapped : data;
    if (b->mapped) memcpy(b->mapped, data, bytes);
    if (b->mode == OCR_HOST_ZERO_COPY) {
        void *p =
            clEnqueueMapBuffer(q, b->in, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
        memcpy(p, data, bytes);
        OCR_CL(clEnqueueUnmapMemObject(q, b->in, p, 0, NULL, NULL));
    }
fail:
    return st;
}

/* Creates the buffers for `mode` (sizes in b->size) and puts the input of
 * `bytes` where the runs expect it. */
static ocr_status buffers_make(ocr_device *dev, buffers *b, const void *data, uint64_t bytes) {
    ocr_status st = OCR_OK;
    cl_int err;
    cl_command_queue q = dev->queue;
    const layout *l = &b->size;
    cl_mem_flags host = b->mode == OCR_HOST_ZERO_COPY ? CL_MEM_ALLOC_HOST_PTR : 0;
    b->in = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | host, l->in, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    if (b->mode == OCR_HOST_PINNED) {
        b->staging = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes,
                                    NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
        /* stays mapped: a page-locked pointer to copy from */
        b->mapped =
            clEnqueueMapBuffer(q, b->staging, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
    }
    if ((st = buffers_set_input(q, b, data, bytes)) != OCR_OK) goto fail;
    for (int i = 0; i < 2; ++i) {
        b->scratch[i] = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, l->scratch[i], NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
    }
    /* Scratch starts as large garbage (0x7F bytes: about 2^31, 3e38, 1e306 in
     * the element types), not as the zeros a fresh buffer often holds, so a
     * kernel that reads its output before writing it fails on the first run.
     * Written, not filled: oclgrind takes clEnqueueFillBuffer's bytes for
     * uninitialized ones. The input's guard gets the same. */
    if ((st = poison(q, b->scratch[0], 0, l->scratch[0])) != OCR_OK ||
        (st = poison(q, b->scratch[1], 0, l->scratch[1])) != OCR_OK ||
        (st = poison(q, b->in, bytes, l->in)) != OCR_OK)
        goto fail;
    OCR_CL(clFinish(q));
fail:
    return st;
}

/* After a run of a kernel under test: the first byte of either scratch
 * buffer's guard that is no longer poison, as res->oob_*. */
static ocr_status check_guards(cl_command_queue q, const buffers *b, size_t es, ocr_result *res) {
    ocr_status st = OCR_OK;
    unsigned char *buf = NULL;
    for (unsigned i = 0; i < 2 && !res->oob_pass; ++i) {
        uint64_t from = b->size.used[i], len = b->size.scratch[i] - from;
        free(buf);
        if (!(buf = malloc(len))) {
            ocr_errorf("out of host memory");
            return OCR_NO_MEMORY;
        }
        OCR_CL(clEnqueueReadBuffer(q, b->scratch[i], CL_TRUE, from, len, buf, 0, NULL, NULL));
        for (uint64_t j = 0; j < len; ++j)
            if (buf[j] != POISON) {
                res->oob_pass = i + 1;
                res->oob_index = (from + j) / es;
                res->oob_values = from / es;
                break;
            }
    }
fail:
    free(buf);
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
static void time_cpu(const void *data, uint64_t n, ocr_type t, ocr_op o, const ocr_run_options *opt,
                     unsigned reps, uint64_t *samples, ocr_result *res) {
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

/* The runs on one data set: `count` of them into runs[0..count), each
 * checked against ref and against runs[0] bit for bit; *bad = 1 + the first
 * that failed, or 0. A kernel under test's guards are checked after each. */
static ocr_status checked_runs(ocr_device *dev, ocr_kernel *k, const ocr_plan *plan,
                               const buffers *bf, void *left, const ocr_reference *ref,
                               const ocr_run_options *opt, unsigned count, ocr_run_sample *runs,
                               unsigned *bad, ocr_result *res) {
    ocr_status st = OCR_OK;
    size_t es = ocr_type_size(k->in_type);
    for (unsigned r = 0; r < count; ++r) {
        ocr_run_sample *rs = &runs[r];
        if (opt && opt->sync) opt->sync(opt->sync_ctx);
        if ((st = run_once(dev, k, plan, bf, es, left, rs)) != OCR_OK) return st;
        if (!k->geom.tree && (st = check_guards(dev->queue, bf, es, res)) != OCR_OK) return st;
        rs->passed = ocr_check(k->type, ref, rs->result) &&
                     memcmp(&rs->result, &runs[0].result, ocr_acc_size(k->type, k->op)) == 0;
        if (!rs->passed && !*bad) *bad = r + 1;
    }
    if (opt && opt->sync) opt->sync(opt->sync_ctx);
    return st;
}

/* The second data set (ocr_run_options.second) in the same buffers: made,
 * uploaded, run twice (a warm-up and one run) and checked, into res->second. */
static ocr_status second_data(ocr_device *dev, ocr_kernel *k, const ocr_plan *plan, buffers *bf,
                              void *left, const ocr_run_options *opt, ocr_result *res) {
    ocr_status st = OCR_OK;
    size_t es = ocr_type_size(k->in_type);
    uint64_t n = plan->n;
    ocr_run_sample runs[2];
    ocr_reference ref;
    unsigned bad = 0;
    void *data = malloc(n * es);
    if (!data) {
        ocr_errorf("out of host memory for the second data set (%llu MiB)",
                   (unsigned long long)((n * es) >> 20));
        return OCR_NO_MEMORY;
    }
    res->second.data = opt->data == OCR_DATA_ONE_SIDED ? OCR_DATA_EXACT : OCR_DATA_ONE_SIDED;
    ocr_data_fill(data, n, k->in_type, k->op, opt->seed, res->second.data);
    ocr_reference_make(data, n, k->in_type, k->op, plan->depth, res->second.data, &ref);
    if (k->geom.accurate) ocr_reference_accurate(k->type, k->op, &ref);
    if ((st = buffers_set_input(dev->queue, bf, data, n * es)) != OCR_OK) goto fail;
    memset(runs, 0, sizeof runs);
    st = checked_runs(dev, k, plan, bf, left, &ref, NULL, 2, runs, &bad, res);
    if (st != OCR_OK) goto fail;
    res->second.runs = 2;
    res->second.passed = bad == 0;
    res->second.result = runs[bad ? bad - 1 : 1].result;
    res->second.expected = ref.expected;
fail:
    free(data);
    return st;
}

ocr_status ocr_run(ocr_device *dev, ocr_kernel *k, const void *data, uint64_t n,
                   const ocr_run_options *opt, ocr_result *res) {
    const ocr_type t = k->in_type; /* the data's type (a small type's input) */
    const ocr_op o = k->op;
    ocr_last_error_clear();
    ocr_status st = OCR_OK;
    buffers bf = {0};
    void *left = NULL;
    uint64_t *samples = NULL;
    size_t es = ocr_type_size(t);
    unsigned reps = opt->repeats ? opt->repeats : 1;
    ocr_reference ref;

    memset(res, 0, sizeof *res);
    const ocr_plan *plan = &res->plan;
    if ((st = plan_for(k, n, opt, &res->plan)) != OCR_OK || (st = check_fits(dev, k, plan, opt)))
        return st;
    bf.mode = resolve_host_mem(dev, opt->host_mem);
    layout_of(k, plan, es, &bf.size);
    res->host_mem = bf.mode;
    if ((st = buffers_make(dev, &bf, data, n * es)) != OCR_OK) goto fail;
    left = malloc(plan->leftover * ocr_acc_size(t, o));
    res->runs = calloc((size_t)reps + 1, sizeof *res->runs);
    samples = calloc(reps, sizeof *samples);
    if (!left || !res->runs || !samples) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
        goto fail;
    }
    ocr_reference_make(data, n, t, o, plan->depth, opt->data, &ref);
    if (k->geom.accurate) ocr_reference_accurate(t, o, &ref); /* 1 ulp, not the depth's bound */
    OCR_TAKE_REFERENCE(res, ref);
    st = checked_runs(dev, k, plan, &bf, left, &ref, opt, reps + 1, res->runs, &res->bad_run, res);
    if (st != OCR_OK) goto fail;
    if (second_due(k, opt) && (st = second_data(dev, k, plan, &bf, left, opt, res)) != OCR_OK)
        goto fail;
    res->result = res->runs[res->bad_run ? res->bad_run - 1 : reps].result;
    res->passed = res->bad_run == 0 && !res->oob_pass && (!res->second.runs || res->second.passed);
    res->err_ulps = ocr_error_ulps(t, res->expected, res->result);
    res->tol_ulps = ocr_ulps_of(t, res->expected, res->tolerance);
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
