/* ocr_run.c - run a planned reduction: upload, one launch per pass with the
 * two buffers swapped in between, read back the leftovers, finish on the CPU,
 * check, and time every part (one warm-up, then the median of R runs). */
#include "ocr_internal.h"

#include <stdlib.h>
#include <string.h>

static ocr_status event_ns(cl_event ev, uint64_t *ns) {
    ocr_status st = OCR_OK;
    cl_ulong t0 = 0, t1 = 0;
    OCR_CL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
    OCR_CL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    *ns = t1 >= t0 ? (uint64_t)(t1 - t0) : 0; /* subtract in integers, convert later */
fail:
    return st;
}

/* Refuses sizes the device cannot hold before any allocation is tried. */
static ocr_status check_fits(const ocr_device_info *in, uint64_t a_bytes, uint64_t b_bytes) {
    if (a_bytes > in->max_alloc) {
        ocr_errorf("the input needs a %llu MiB buffer; %s allows at most %llu MiB per buffer "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller -s",
                   (unsigned long long)(a_bytes >> 20), in->name,
                   (unsigned long long)(in->max_alloc >> 20));
        return OCR_RUNTIME;
    }
    if (a_bytes + b_bytes > in->global_mem) {
        ocr_errorf("the buffers need %llu MiB; %s has %llu MiB of global memory: use a smaller -s",
                   (unsigned long long)((a_bytes + b_bytes) >> 20), in->name,
                   (unsigned long long)(in->global_mem >> 20));
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

/* One full reduction on the device; fills the times of this run. */
static ocr_status run_once(ocr_device *dev, ocr_kernel *k, const ocr_plan *plan, const void *data,
                           size_t es, cl_mem a, cl_mem b, void *left, ocr_value *result,
                           ocr_times *t) {
    ocr_status st = OCR_OK;
    cl_command_queue q = dev->queue;
    cl_event ev_w = NULL, ev_r = NULL, ev_k[OCR_MAX_PASSES];
    unsigned nk = 0;
    cl_mem in = a, out = b;
    memset(t, 0, sizeof *t);

    OCR_CL(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, plan->n * es, data, 0, NULL, &ev_w));
    for (unsigned i = 0; i < plan->npasses; ++i) {
        const ocr_pass *s = &plan->pass[i];
        cl_ulong n_in = s->n_in; /* the partial count of this pass, not the original n */
        size_t global = (size_t)s->global_size, local = (size_t)s->local_size;
        OCR_CL(clSetKernelArg(k->kernel, 0, sizeof in, &in));
        OCR_CL(clSetKernelArg(k->kernel, 1, sizeof out, &out));
        OCR_CL(clSetKernelArg(k->kernel, 2, sizeof n_in, &n_in));
        OCR_CL(clEnqueueNDRangeKernel(q, k->kernel, 1, NULL, &global, &local, 0, NULL, &ev_k[nk]));
        ++nk;
        cl_mem tmp = in; /* ping-pong: this output is the next input */
        in = out;
        out = tmp;
    }
    OCR_CL(clEnqueueReadBuffer(q, in, CL_TRUE, 0, plan->leftover * es, left, 0, NULL, &ev_r));

    uint64_t t0 = ocr_now_ns();
    *result = ocr_reduce_naive(left, plan->leftover, k->type, k->op);
    t->cpu_ns = ocr_now_ns() - t0;

    if ((st = event_ns(ev_w, &t->h2d_ns)) != OCR_OK || (st = event_ns(ev_r, &t->d2h_ns)) != OCR_OK)
        goto fail;
    for (unsigned i = 0; i < nk; ++i) {
        uint64_t ns;
        if ((st = event_ns(ev_k[i], &ns)) != OCR_OK)
            goto fail;
        t->kernels_ns += ns;
    }
    t->gpu_ns = t->h2d_ns + t->kernels_ns + t->d2h_ns + t->cpu_ns;
fail:
    /* A failed call leaves the queue in an unknown state: drain it before the
     * events and buffers go. */
    if (st != OCR_OK)
        clFinish(q);
    if (ev_r)
        clReleaseEvent(ev_r);
    while (nk > 0)
        clReleaseEvent(ev_k[--nk]);
    if (ev_w)
        clReleaseEvent(ev_w);
    return st;
}

ocr_status ocr_run(ocr_device *dev, ocr_kernel *k, const void *data, uint64_t n, ocr_type t,
                   ocr_op o, const ocr_run_options *opt, ocr_result *res) {
    ocr_status st = OCR_OK;
    cl_int err;
    cl_mem a = NULL, b = NULL;
    void *left = NULL;
    uint64_t *samples = NULL;
    size_t es = ocr_type_size(t);
    unsigned reps = opt->repeats ? opt->repeats : 1;
    ocr_reference ref;
    ocr_times *times = NULL;

    memset(res, 0, sizeof *res);
    if (t != k->type || o != k->op) {
        ocr_errorf("the kernel was built for %s %s, not %s %s", ocr_type_name(k->type),
                   ocr_op_name(k->op), ocr_type_name(t), ocr_op_name(o));
        return OCR_USAGE;
    }
    uint64_t m = opt->m ? opt->m : k->default_m;
    if (ocr_plan_make(&k->geom, n, m, &res->plan) != OCR_OK) {
        ocr_errorf("cannot plan a reduction of %llu elements with M = %llu", (unsigned long long)n,
                   (unsigned long long)m);
        return OCR_USAGE;
    }
    const ocr_plan *plan = &res->plan;
    uint64_t b_elems = plan->npasses ? plan->pass[0].n_out : 1;
    if ((st = check_fits(&dev->info, n * es, b_elems * es)) != OCR_OK)
        return st;

    a = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, n * es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    b = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, b_elems * es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    left = malloc(plan->leftover * es);
    times = calloc(reps, sizeof *times);
    samples = calloc(reps, sizeof *samples);
    if (!left || !times || !samples) {
        ocr_errorf("out of host memory");
        st = OCR_RUNTIME;
        goto fail;
    }

    for (unsigned r = 0; r <= reps; ++r) { /* r == 0 is the warm-up */
        ocr_times tr;
        if ((st = run_once(dev, k, plan, data, es, a, b, left, &res->result, &tr)) != OCR_OK)
            goto fail;
        if (r > 0)
            times[r - 1] = tr;
    }
    /* Median and minimum of each part, and of the total on its own. */
#define STAT(field)                                                                                \
    do {                                                                                           \
        for (unsigned i = 0; i < reps; ++i)                                                        \
            samples[i] = times[i].field;                                                           \
        res->min.field = ocr_min_u64(samples, reps);                                               \
        res->median.field = ocr_median_u64(samples, reps);                                         \
    } while (0)
    STAT(h2d_ns);
    STAT(kernels_ns);
    STAT(d2h_ns);
    STAT(cpu_ns);
    STAT(gpu_ns);
#undef STAT

    /* The tutorial's CPU reference: the naive loop, timed the same way. The
     * sink keeps the calls from being optimised away. */
    volatile uint64_t sink = ocr_reduce_naive(data, n, t, o).ul;
    for (unsigned r = 0; r < reps; ++r) {
        uint64_t t0 = ocr_now_ns();
        sink ^= ocr_reduce_naive(data, n, t, o).ul;
        samples[r] = ocr_now_ns() - t0;
    }
    (void)sink;
    res->ref_ns_min = ocr_min_u64(samples, reps);
    res->ref_ns_median = ocr_median_u64(samples, reps);

    ocr_reference_make(data, n, t, o, plan->depth, &ref);
    res->expected = ref.expected;
    res->tolerance = ref.tolerance;
    res->passed = ocr_check(t, &ref, res->result);
    res->repeats = reps;
    st = res->passed ? OCR_OK : OCR_WRONG;
fail:
    free(samples);
    free(times);
    free(left);
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);
    return st;
}
