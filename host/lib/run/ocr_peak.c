/* ocr_peak.c - the device's copy rate, measured with cl/copy.cl in the same
 * process as the reduction it is compared with (--peak). */
#include "run.h"

#include <stdlib.h>
#include <string.h>

ocr_status ocr_copy_rate(ocr_device *dev, const char *kernel_dir, uint64_t bytes, unsigned reps,
                         double *gbs) {
    ocr_last_error_clear();
    ocr_status st = OCR_OK;
    cl_int err;
    cl_program prog = NULL;
    cl_kernel kern = NULL;
    cl_mem a = NULL, b = NULL;
    uint64_t *ns = NULL;
    char *src = NULL, *path = ocr_find_kernel_file("copy.cl", kernel_dir);
    cl_ulong n16 = bytes / 16;
    *gbs = 0;
    if (!path || !(src = ocr_read_file(path, NULL))) {
        st = OCR_IO;
        goto fail;
    }
    if (n16 == 0) n16 = 1;
    if (!(ns = calloc(reps ? reps : 1, sizeof *ns))) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
        goto fail;
    }
    const char *s = src;
    int gpu = (dev->info.type & CL_DEVICE_TYPE_GPU) != 0;
    prog = clCreateProgramWithSource(dev->context, 1, &s, NULL, &err);
    OCR_CHECK(err, "clCreateProgramWithSource");
    OCR_CL(clBuildProgram(prog, 1, &dev->device, gpu ? "-D OCR_BLOCKED=0" : "-D OCR_BLOCKED=1",
                          NULL, NULL));
    kern = clCreateKernel(prog, "copy16", &err);
    OCR_CHECK(err, "clCreateKernel");
    a = clCreateBuffer(dev->context, CL_MEM_READ_ONLY, n16 * 16, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    b = clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, n16 * 16, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    OCR_CL(clSetKernelArg(kern, 0, sizeof a, &a));
    OCR_CL(clSetKernelArg(kern, 1, sizeof b, &b));
    OCR_CL(clSetKernelArg(kern, 2, sizeof n16, &n16));
    /* A grid like reduce7's: about 1024 work-items per compute unit on a GPU,
     * a few per core elsewhere. */
    size_t local = gpu ? 128 : 1, global = (size_t)dev->info.compute_units * (gpu ? 1024 : 4);
    for (unsigned r = 0; r <= reps; ++r) { /* r == 0 warms up */
        cl_event ev = NULL;
        uint64_t h0 = ocr_now_ns(), t0, t1, span = 0;
        OCR_CL(clEnqueueNDRangeKernel(dev->queue, kern, 1, NULL, &global, &local, 0, NULL, &ev));
        err = clWaitForEvents(1, &ev);
        st = err == CL_SUCCESS ? ocr_event_span(ev, h0, &t0, &t1, &span) : OCR_OK;
        clReleaseEvent(ev);
        OCR_CHECK(err, "clWaitForEvents");
        if (st != OCR_OK) goto fail;
        if (r > 0) ns[r - 1] = span ? span : 1;
    }
    *gbs = (double)(2 * n16 * 16) / (double)ocr_median_u64(ns, reps ? reps : 1);
fail:
    if (b) clReleaseMemObject(b);
    if (a) clReleaseMemObject(a);
    if (kern) clReleaseKernel(kern);
    if (prog) clReleaseProgram(prog);
    free(ns);
    free(src);
    free(path);
    return st;
}
