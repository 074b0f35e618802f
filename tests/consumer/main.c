/* Reduces 4103 ints of its own buffer with the installed library's reducer:
 * the stable API (ocr_reducer.h), all the shared library exports. */
/* An application chooses its OpenCL version; the library needs 1.2. */
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr_reducer.h>
#include <stdio.h>

enum { N = 4103 };

/* A context and queue on the first device, and a buffer of host[0..N). */
static cl_int setup(cl_context *ctx, cl_device_id *dev, cl_command_queue *q, cl_mem *buf,
                    cl_int *host) {
    cl_platform_id platform;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, dev, NULL);
    if (err == CL_SUCCESS) *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
    if (err == CL_SUCCESS) *q = clCreateCommandQueue(*ctx, *dev, 0, &err);
    if (err == CL_SUCCESS)
        *buf = clCreateBuffer(*ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *host, host,
                              &err);
    return err;
}

int main(void) {
    static cl_int host[N];
    ocr_value want = ocr_identity(OCR_INT, OCR_SUM), got = {0};
    for (int i = 0; i < N; ++i) {
        ocr_value x;
        x.i = host[i] = i % 1000 - 500;
        want = ocr_combine(OCR_INT, OCR_SUM, want, x);
    }
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    cl_mem buf;
    cl_int err = setup(&ctx, &dev, &q, &buf, host);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "consumer: OpenCL failed (%d)\n", (int)err);
        return 3;
    }
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r);
    if (st == OCR_OK) st = ocr_reducer_reduce(r, q, buf, 0, N, &got);
    if (st == OCR_OK)
        printf("consumer: %s\n", got.i == want.i ? "PASSED" : "FAILED");
    else /* the library prints nothing: say why here */
        fprintf(stderr, "consumer: %s: %s\n", ocr_status_name(st), ocr_reducer_last_error(r));
    ocr_reducer_release(r);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return st != OCR_OK ? (int)st : got.i == want.i ? 0 : 1;
}
