/* ocr_tune.c - per-device tuning of reduce7 (--tune): the geometry that
 * matters is swept on the device at hand, and the winner goes into the
 * tuning cache (opencl/ocr_tune_cache.c), which later runs and reducers on
 * the same device, driver, element type and kernel source read. Defaults
 * tuned on one GPU are not tuned for the next. */
#include "run.h"

#include <stdlib.h>

/* reduce7's build request for (type, sum) with the candidate's geometry (NULL:
 * the built-in defaults). */
static ocr_build_request r7_request(ocr_type t, const char *kernel_dir, const ocr_tuning *c) {
    ocr_build_request rq = {0};
    rq.spec = *ocr_kernel_for(OCR_KERNEL_REDUCER);
    rq.kernel_dir = kernel_dir;
    rq.type = t;
    rq.op = OCR_SUM;
    if (c) {
        rq.local_size = c->local_size;
        rq.groups = c->groups;
        rq.unroll = c->unroll;
        rq.access = c->access;
    }
    return rq;
}

/* One candidate: build, run `reps` times, median kernel time (0 if it fails). */
static double try_one(ocr_device *dev, ocr_type t, const void *data, uint64_t n, unsigned reps,
                      const char *kernel_dir, const ocr_tuning *c) {
    ocr_build_request rq = r7_request(t, kernel_dir, c);
    ocr_kernel *k = NULL;
    if (ocr_kernel_build(dev, &rq, &k) != OCR_OK) return 0;
    ocr_run_options ro = {.repeats = reps, .cpu = OCR_CPU_NONE};
    ocr_result r;
    double ms = 0;
    if (ocr_run(dev, k, data, n, &ro, &r) == OCR_OK) ms = (double)r.median.kernels_ns / 1e6;
    ocr_result_release(&r);
    ocr_kernel_release(k);
    return ms;
}

ocr_status ocr_tune_run(ocr_device *dev, ocr_type t, uint64_t n, double budget_s,
                        const char *kernel_dir, ocr_tuning *best, ocr_tune_progress_fn progress,
                        void *ctx) {
    ocr_last_error_clear();
    const ocr_device_info *in = &dev->info;
    int gpu = (in->type & CL_DEVICE_TYPE_GPU) != 0;
    if (ocr_type_is_storage(t)) {
        ocr_errorf("--tune tunes no %s data yet (small types: single reductions)",
                   ocr_type_name(t));
        return OCR_USAGE;
    }
    size_t es = ocr_type_size(t);
    void *data = malloc(n * es);
    if (!data) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    ocr_data_fill(data, n, t, OCR_SUM, 1, OCR_DATA_EXACT);
    /* The space: on GPUs the work-group size, resident groups per compute
     * unit and loads in flight, with strided (coalesced) access; on CPUs,
     * blocked access with one work-item per group and the groups per core
     * (UNROLL does not apply to blocked access). The registry row's
     * defaults first (ocr_kernels.c); the others around them. */
    const ocr_kernel_spec *r7 = ocr_kernel_for(OCR_KERNEL_REDUCER);
    const size_t gpu_local[] = {r7->local_size, 64, 256, 512, 1024};
    const size_t *go = ocr_tune_gpu_other_gpcu, *co = ocr_tune_cpu_other_gpcu;
    const unsigned *uo = ocr_tune_other_unrolls;
    const size_t gpu_gpcu[] = {r7->grid.gpu_items_per_cu / r7->local_size, go[0], go[1], go[2],
                               go[3]};
    const unsigned gpu_unroll[] = {r7->grid.unroll, uo[0], uo[1], uo[2]};
    const size_t cpu_gpcu[] = {r7->grid.cpu_groups_per_cu, co[0], co[1], co[2], co[3]};
    ocr_tuning cand[128];
    unsigned nc = 0;
    if (gpu) {
        for (size_t a = 0; a < 5; ++a)
            for (size_t b = 0; b < 5; ++b)
                for (size_t u = 0; u < 4; ++u) {
                    if (gpu_local[a] > in->max_wg) continue;
                    ocr_tuning c = {.local_size = gpu_local[a],
                                    .groups = in->compute_units * gpu_gpcu[b],
                                    .unroll = gpu_unroll[u],
                                    .access = 1};
                    cand[nc++] = c;
                }
    } else {
        for (size_t b = 0; b < 5; ++b) {
            ocr_tuning c = {.local_size = r7->grid.cpu_local_size,
                            .groups = in->compute_units * cpu_gpcu[b],
                            .unroll = r7->grid.unroll,
                            .access = 2};
            cand[nc++] = c;
        }
    }
    double t0 = (double)ocr_now_ns() / 1e9;
    best->kernel_ms = 0;
    unsigned tried = 0;
    size_t max_local = 0; /* what the compiled default allows (registers): larger is skipped */
    {
        ocr_build_request rq = r7_request(t, kernel_dir, NULL);
        ocr_kernel *k = NULL;
        if (ocr_kernel_build(dev, &rq, &k) == OCR_OK)
            max_local = ocr_kernel_get_resources(k)->work_group_size;
        ocr_kernel_release(k);
    }
    for (unsigned i = 0; i < nc; ++i) {
        if (i > 0 && (double)ocr_now_ns() / 1e9 - t0 > budget_s) break;
        if (max_local && cand[i].local_size > max_local) continue;
        double ms = try_one(dev, t, data, n, 5, kernel_dir, &cand[i]);
        ++tried;
        if (ms > 0 && (best->kernel_ms == 0 || ms < best->kernel_ms)) {
            *best = cand[i];
            best->kernel_ms = ms;
        }
        if (progress) {
            ocr_tune_step step = {.index = i + 1,
                                  .total = nc,
                                  .tried = &cand[i],
                                  .ms = ms,
                                  .best_ms = best->kernel_ms};
            progress(ctx, &step);
        }
    }
    if (progress) progress(ctx, NULL);
    free(data);
    if (best->kernel_ms == 0) {
        ocr_errorf("--tune: no configuration of reduce7 ran on %s", in->name);
        return OCR_RUNTIME;
    }
    best->tried = tried;
    best->total = nc;
    return OCR_OK;
}
