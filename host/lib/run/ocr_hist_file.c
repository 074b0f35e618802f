/* ocr_hist_file.c - one launch of a student's histogram kernel
 * (--histogram --kernel-file; the kernel built by ocr_kernel_build with
 * OCR_KERNEL_HISTOGRAM, so its signature was checked against the
 * histogram's): the counts zeroed, one launch over a grid of groups x
 * local work-items (the kernel strides over any n), its event timed.
 * Checking the counts is the caller's (it holds the CPU loop). Prints
 * nothing. */
#include "run.h"

#include <stdlib.h>

/* Groups per compute unit when the caller leaves the grid to us: enough to
 * keep every unit busy, few enough that a grid-stride loop is what covers n. */
#define HIST_FILE_GROUPS_PER_CU 4

size_t ocr_hist_file_groups(const ocr_device *dev, size_t groups) {
    size_t g = groups ? groups : (size_t)dev->info.compute_units * HIST_FILE_GROUPS_PER_CU;
    return g ? g : 1;
}

ocr_status ocr_hist_file_run(ocr_device *dev, ocr_kernel *k, cl_mem in, uint64_t n, cl_mem counts,
                             const ocr_hist_file_options *opt, ocr_hist_file_launch *out) {
    ocr_last_error_clear();
    ocr_status st = OCR_OK;
    cl_event ev = NULL;
    cl_uint *zeros = NULL, bins = (cl_uint)opt->bins;
    cl_ulong nn = n;
    cl_float lo = opt->lo, hi = opt->hi;
    size_t local = k->geom.local_size, groups = ocr_hist_file_groups(dev, opt->groups);
    size_t global = groups * local;
    uint64_t t0, t1, h0;
    if (opt->bins == 0 || opt->bins >= 0xffffffffull) {
        ocr_errorf("histogram kernel: bins must be 1 .. 2^32 - 2 (bins %llu)",
                   (unsigned long long)opt->bins);
        return OCR_USAGE;
    }
    out->local = local, out->groups = groups, out->ns = 0;
    /* The counts and the guard element behind them start at zero: written
     * from the host, not filled (oclgrind's --uninitialized check, which
     * --race-check runs, takes a filled buffer for uninitialized). */
    if (!(zeros = calloc((size_t)opt->bins + 1, sizeof *zeros))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    OCR_CL(clEnqueueWriteBuffer(dev->queue, counts, CL_TRUE, 0,
                                ((size_t)opt->bins + 1) * sizeof *zeros, zeros, 0, NULL, NULL));
    OCR_CL(clSetKernelArg(k->kernel, 0, sizeof in, &in));
    OCR_CL(clSetKernelArg(k->kernel, 1, sizeof nn, &nn));
    OCR_CL(clSetKernelArg(k->kernel, 2, sizeof counts, &counts));
    OCR_CL(clSetKernelArg(k->kernel, 3, sizeof bins, &bins));
    OCR_CL(clSetKernelArg(k->kernel, 4, sizeof lo, &lo));
    OCR_CL(clSetKernelArg(k->kernel, 5, sizeof hi, &hi));
    h0 = ocr_now_ns();
    OCR_CL(clEnqueueNDRangeKernel(dev->queue, k->kernel, 1, NULL, &global, &local, 0, NULL, &ev));
    OCR_CL(clWaitForEvents(1, &ev));
    st = ocr_event_span(ev, h0, &t0, &t1, &out->ns);
fail:
    free(zeros);
    if (ev) clReleaseEvent(ev);
    return st;
}
