/* An OpenCL 3.0 application: it chooses its own OpenCL version, includes
 * <CL/cl.h> itself and then the reducer's header alone, uses an OpenCL 2.0
 * call (clCreateCommandQueueWithProperties), and reduces a buffer of its own.
 * Built with -Wall -Wextra -Werror: the library's headers must neither
 * redefine CL_TARGET_OPENCL_VERSION nor pull in anything that warns. Exit 0
 * and "PASSED" when the sum of its 100003 ints equals the CPU's. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <oclreduction/ocr_reducer.h>

#include <stdio.h>
#include <stdlib.h>

#define N 100003

static int fail(const char *what, long code) {
    printf("consumer_opencl3: %s failed (%ld)\n", what, code);
    return 3;
}

int main(void) {
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS) return fail("clGetPlatformIDs", 0);
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) return fail("clGetDeviceIDs", err);
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return fail("clCreateContext", err);
    const cl_queue_properties props[] = {0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, props, &err);
    if (err != CL_SUCCESS) return fail("clCreateCommandQueueWithProperties", err);

    /* Its own data: i % 1000 - 500, whose sum the CPU knows exactly. */
    cl_int *host = malloc(N * sizeof *host);
    long long want = 0;
    for (int i = 0; host && i < N; ++i) {
        host[i] = i % 1000 - 500;
        want += host[i];
    }
    if (!host) return fail("malloc", 0);
    cl_mem buf =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *host, host, &err);
    if (err != CL_SUCCESS) return fail("clCreateBuffer", err);

    ocr_reducer_options opt = OCR_REDUCER_OPTIONS;
    ocr_reducer *r = NULL;
    ocr_value v;
    ocr_status st = ocr_reducer_create(ctx, device, OCR_INT, OCR_SUM, &opt, &r);
    if (st == OCR_OK) st = ocr_reducer_reduce(r, q, buf, 0, N, &v);
    if (st != OCR_OK) {
        printf("consumer_opencl3: %s: %s\n", ocr_status_name(st), ocr_reducer_last_error(r));
        return 3;
    }
    int ok = v.i == (cl_int)want;
    printf("consumer_opencl3: sum %d, expected %lld: %s\n", v.i, want, ok ? "PASSED" : "FAILED");
    ocr_reducer_release(r);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host);
    return ok ? 0 : 1;
}
