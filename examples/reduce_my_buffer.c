/*
 * reduce_my_buffer.c - an OpenCL program that owns its context, queue and
 * buffer, and reduces the buffer with the oclreduction library.
 *
 * For every type and operator: fill a buffer with seeded data, create a
 * reducer once, reduce the whole buffer (blocking), a part of it from an
 * offset, and the whole again without blocking (the result left in
 * a buffer of ours, behind an event), and compare each value with the plain
 * CPU loop (ocr_combine). The data are small integers, exact in any order
 * (float sums below 5 million elements), so the comparison is bit for bit,
 * floats included. One line per case; exit status 0 when all agree, 1 when
 * one does not, 3 when OpenCL fails. It uses the stable API alone
 * (ocr_reducer.h), all that the shared library exports.
 *
 *   reduce_my_buffer [N...]   (default sizes: 1 3 4103 1000003)
 */
/* An application chooses its OpenCL version; the library needs 1.2. */
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr_reducer.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "reduce_my_buffer: %s failed (%d)\n", #call, (int)e_);                 \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

/* Seeded data: integers -3..3 (for products -1 and 1) as type t. */
static void fill(void *host, uint64_t n, ocr_type t, ocr_op o, uint64_t seed) {
    size_t es = ocr_type_size(t);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t h = ((i + seed) * 0x9E3779B97F4A7C15ull) >> 40;
        int k = o == OCR_PROD ? (h & 1 ? 1 : -1) : (int)(h % 7) - 3;
        ocr_value v;
        memset(&v, 0, sizeof v);
        if (t == OCR_FLOAT)
            v.f = (float)k;
        else if (t == OCR_DOUBLE)
            v.d = k;
        else if (es == 4)
            v.i = k; /* uint: the same bits, wrapping as the kernels wrap */
        else
            v.l = k;
        memcpy((char *)host + i * es, &v, es);
    }
}

/* The plain CPU loop: ocr_combine from the identity, element by element
 * (argmin/argmax: each element with its index, so the first extreme wins). */
static ocr_value cpu_loop(const void *host, uint64_t n, ocr_type t, ocr_op o) {
    size_t es = ocr_type_size(t);
    ocr_value a = ocr_identity(t, o);
    for (uint64_t i = 0; i < n; ++i) {
        ocr_value v;
        memset(&v, 0, sizeof v);
        memcpy(&v, (const char *)host + i * es, es);
        if (ocr_op_is_arg(o)) v.arg.index = i;
        a = ocr_combine(t, o, a, v);
    }
    return a;
}

/* One comparison: prints the line, returns 1 if the values agree. */
static int report(ocr_type t, ocr_op o, const char *how, uint64_t n, ocr_value got,
                  ocr_value want) {
    char g[64], w[64];
    /* argmin/argmax: the value and where it is */
    int arg = ocr_op_is_arg(o);
    int ok =
        memcmp(&got, &want, ocr_type_size(t)) == 0 && (!arg || got.arg.index == want.arg.index);
    printf("%-6s %-6s %-6s n=%-8" PRIu64 " %s %s", ocr_type_name(t), ocr_op_name(o), how, n,
           ok ? "ok  " : "FAIL", ocr_value_str(t, got, g, sizeof g));
    if (arg) printf(" at %" PRIu64, got.arg.index);
    if (!ok)
        printf(" (expected %s at %" PRIu64 ")", ocr_value_str(t, want, w, sizeof w),
               arg ? want.arg.index : 0);
    putchar('\n');
    return ok;
}

int main(int argc, char **argv) {
    uint64_t sizes[16] = {1, 3, 4103, 1000003};
    int nsizes = 4;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; ++i)
            sizes[nsizes++] = strtoull(argv[i], NULL, 10);
    }
    uint64_t max_n = 0;
    for (int i = 0; i < nsizes; ++i)
        if (sizes[i] > max_n) max_n = sizes[i];

    /* Our own OpenCL objects: the first device of the first platform. */
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    CHECK(err);
    cl_device_fp_config fp64 = 0;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL));
    printf("oclreduction %s\n", ocr_version());

    void *host = malloc(max_n * 8);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY, max_n * 8, NULL, &err);
    CHECK(err);
    /* Room for any one result: 16 bytes for argmin/argmax (ocr_result_size). */
    cl_mem result_buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 16, NULL, &err);
    CHECK(err);
    if (!host) return 3;

    int failed = 0, cases = 0;
    for (int t = 0; t < OCR_NTYPES; ++t) {
        if (t == OCR_DOUBLE && !fp64) {
            printf("double: skipped (the device has no cl_khr_fp64)\n");
            continue;
        }
        for (int o = 0; o < OCR_NOPS; ++o) {
            if (!ocr_op_valid_for((ocr_op)o, (ocr_type)t)) continue;
            /* the small types (char .. half) reduce in a wider type:
             * tests/unit/reducer/test_small.c */
            if (ocr_type_is_storage((ocr_type)t)) continue;
            size_t es = ocr_type_size((ocr_type)t);
            ocr_reducer *r;
            /* NULL options: the embedded kernel, geometry chosen for the device. */
            if (ocr_reducer_create(ctx, device, (ocr_type)t, (ocr_op)o, NULL, &r) != OCR_OK) {
                fprintf(stderr, "reduce_my_buffer: %s %s: %s\n", ocr_type_name((ocr_type)t),
                        ocr_op_name((ocr_op)o), ocr_reducer_last_error(NULL));
                return 3;
            }
            for (int s = 0; s < nsizes; ++s) {
                uint64_t n = sizes[s];
                ocr_value got, want;
                fill(host, n, (ocr_type)t, (ocr_op)o, 42 + (uint64_t)s);
                CHECK(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, n * es, host, 0, NULL, NULL));

                /* Blocking, the whole buffer. */
                if (ocr_reducer_reduce(r, q, buf, 0, n, &got) != OCR_OK) {
                    fprintf(stderr, "reduce_my_buffer: %s\n", ocr_reducer_last_error(r));
                    return 3;
                }
                want = cpu_loop(host, n, (ocr_type)t, (ocr_op)o);
                failed += !report((ocr_type)t, (ocr_op)o, "whole", n, got, want);

                /* A part: from the third element on (any offset works). */
                uint64_t off = 2;
                if (off < n) {
                    if (ocr_reducer_reduce(r, q, buf, off, n - off, &got) != OCR_OK) {
                        fprintf(stderr, "reduce_my_buffer: %s\n", ocr_reducer_last_error(r));
                        return 3;
                    }
                    want = cpu_loop((char *)host + off * es, n - off, (ocr_type)t, (ocr_op)o);
                    failed += !report((ocr_type)t, (ocr_op)o, "offset", n - off, got, want);
                    ++cases;
                }

                /* Non-blocking: the value stays on the device, in result_buf. */
                cl_event done;
                if (ocr_reducer_reduce_async(r, q, buf, 0, n, result_buf, 0, NULL, &done) !=
                    OCR_OK) {
                    fprintf(stderr, "reduce_my_buffer: %s\n", ocr_reducer_last_error(r));
                    return 3;
                }
                unsigned char element[16];
                CHECK(clEnqueueReadBuffer(q, result_buf, CL_TRUE, 0,
                                          ocr_result_size((ocr_type)t, (ocr_op)o), element, 1,
                                          &done, NULL));
                CHECK(clReleaseEvent(done));
                got = ocr_result_value((ocr_type)t, (ocr_op)o, element);
                want = cpu_loop(host, n, (ocr_type)t, (ocr_op)o);
                failed += !report((ocr_type)t, (ocr_op)o, "async", n, got, want);
                cases += 2;
            }
            ocr_reducer_release(r);
        }
    }
    printf("%d of %d cases agree with the CPU loop\n", cases - failed, cases);
    clReleaseMemObject(result_buf);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(host);
    return failed ? 1 : 0;
}
