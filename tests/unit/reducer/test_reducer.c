/*
 * test_reducer.c - the reducer (host/lib/reducer/ocr_reducer.c) on a context of its own.
 *
 *   test_reducer KERNEL_DIR    every check below; stderr must stay empty
 *   test_reducer fault NAME    under the fault shim (OCR_FAULT=NAME:1): the
 *                              failing call is reported through the status and
 *                              the message, and nothing is printed
 *
 * The reducer must print nothing, ever: stderr is redirected to a file for
 * the whole run and must be empty at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* An error: the status, and a message naming `what`. */
static void expect_error(ocr_status got, ocr_status want, const char *msg, const char *what,
                         const char *label) {
    EXPECT(got == want, "%s: status %d (%s), expected %d (%s)", label, (int)got,
           ocr_status_name(got), (int)want, ocr_status_name(want));
    EXPECT(msg && strstr(msg, what), "%s: message \"%s\" lacks \"%s\"", label, msg ? msg : "(null)",
           what);
    printf("ok   %s: status %d, \"%.100s%s\"\n", label, (int)got, msg ? msg : "",
           msg && strlen(msg) > 100 ? "..." : "");
}

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

/* n ints 1..n in a buffer: their sum is n(n+1)/2, exact. */
static cl_mem int_buffer(uint64_t n) {
    cl_int err;
    int *h = malloc(n * sizeof *h);
    for (uint64_t i = 0; i < n; ++i)
        h[i] = (int)(i + 1);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *h, h, &err);
    CL_OK(err);
    free(h);
    return b;
}

static void errors(const char *kernel_dir) {
    ocr_reducer *r = NULL, *bad = NULL;
    ocr_value v;
    cl_int err;
    ocr_status st;
    cl_mem b = int_buffer(1000);

    st = ocr_reducer_create(ctx, dev, OCR_FLOAT, OCR_XOR, NULL, &bad);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(NULL), "needs an integer type",
                 "create float xor");
    EXPECT(bad == NULL, "a failed create leaves *out NULL");

    ocr_reducer_options o = {.kernel_dir = "/nonexistent/kernels"};
    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &o, &bad);
    expect_error(st, OCR_IO, ocr_reducer_last_error(NULL), "reduce7.cl not found",
                 "create with a missing kernel_dir");

    /* Geometries past the limits: refused before anything is made (a huge
     * group count would size buffers that overflow). */
    const struct {
        size_t local_size, groups;
    } too_big[] = {{OCR_MAX_LOCAL_SIZE + 1, 0},
                   {0, OCR_MAX_GROUPS + 1},
                   {0, SIZE_MAX},
                   {SIZE_MAX, (size_t)1 << 63}};
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; ++i) {
        ocr_reducer_options g = {.local_size = too_big[i].local_size, .groups = too_big[i].groups};
        st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &g, &bad);
        expect_error(st, OCR_USAGE, ocr_reducer_last_error(NULL), "at most",
                     "create with a local size or group count past the limits");
        EXPECT(bad == NULL, "a refused geometry leaves *out NULL");
    }
    /* A work-group size within OCR_MAX_LOCAL_SIZE but past the device's limit:
     * the device's limit, OCR_TOO_LARGE (it was OCR_RUNTIME), for reduce7's
     * reducer and a custom one alike. */
    size_t wg = 0, items[3] = {0, 0, 0}, over = 1;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL));
    while (over <= (wg < items[0] ? wg : items[0]))
        over *= 2; /* the smallest power of two past the limit */
    if (over <= OCR_MAX_LOCAL_SIZE) {
        ocr_reducer_options w = {.local_size = over};
        st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &w, &bad);
        expect_error(st, OCR_TOO_LARGE, ocr_reducer_last_error(NULL), "at most",
                     "create with a work-group size past the device's limit");
        EXPECT(bad == NULL && ocr_reducer_last_cl_error(NULL) == 0,
               "a refused work-group size: *out NULL, no OpenCL error (%d)",
               (int)ocr_reducer_last_cl_error(NULL));
        ocr_custom_arg x = {"x", OCR_INT, 1};
        ocr_custom_spec cs = {
            .type = OCR_INT, .neutral = "0", .reduce = "a + b", .args = &x, .num_args = 1};
        st = ocr_reducer_create_custom(ctx, dev, &cs, &w, &bad);
        expect_error(st, OCR_TOO_LARGE, ocr_reducer_last_error(NULL), "at most",
                     "custom create with a work-group size past the device's limit");
    }
    ocr_reducer_options most = {.groups = OCR_MAX_GROUPS / 64}; /* within: made */
    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &most, &bad);
    EXPECT(st == OCR_OK, "create with %zu groups: %s", most.groups, ocr_reducer_last_error(NULL));
    ocr_reducer_release(bad), bad = NULL;

    /* a build that fails (a -D of OpenCL C's own names is refused before it) */
    ocr_reducer_options bo = {.build_options =
                                  "-D this_is_not_declared=1 -D this_is_not_declared=2 -Werror"};
    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &bo, &bad);
    expect_error(st, OCR_BUILD, ocr_reducer_last_error(NULL), "this_is_not_declared",
                 "create with a failing build (the log is in the message)");
    ocr_reducer_options bs = {.build_options = "-cl-std=CL9.9"};
    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &bs, &bad);
    /* The options are in the message whatever the platform calls the
     * failure: POCL CL_INVALID_BUILD_OPTIONS, NVIDIA CL_BUILD_PROGRAM_FAILURE
     * with a log saying so. */
    const char *bm = ocr_reducer_last_error(NULL);
    expect_error(st, OCR_BUILD, bm, "-cl-std=CL9.9", "create with bad build options");
    EXPECT(bm && (strstr(bm, "CL_INVALID_BUILD_OPTIONS") || strstr(bm, "CL_BUILD_PROGRAM_FAILURE")),
           "bad build options: the message names neither failure: \"%s\"", bm ? bm : "(null)");

    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r);
    EXPECT(st == OCR_OK && r, "create int sum: %s", ocr_reducer_last_error(NULL));
    if (!r) exit(1);
    EXPECT(!strcmp(ocr_reducer_last_error(NULL), ""), "a good create clears the thread's message");
    EXPECT(!strcmp(ocr_reducer_last_error(r), ""), "a new reducer has no message");

    v.i = -1;
    st = ocr_reducer_reduce(r, q, b, 0, 0, &v); /* nothing: the identity, as every form */
    EXPECT(st == OCR_OK && v.i == 0, "n = 0: status %d, sum %d (%s)", (int)st, v.i,
           ocr_reducer_last_error(r));
    st = ocr_reducer_reduce(r, q, b, 0, 1001, &v);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(r), "beyond the input buffer",
                 "n past the end");
    st = ocr_reducer_reduce(r, q, b, 999, 2, &v);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(r), "beyond the input buffer",
                 "offset + n past the end");
    st = ocr_reducer_reduce(r, q, NULL, 0, 10, &v);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(r), "must not be NULL", "NULL buffer");

    cl_mem tiny = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2, NULL, &err);
    CL_OK(err);
    st = ocr_reducer_reduce_async(r, q, b, 0, 10, tiny, 0, NULL, NULL);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(r), "result buffer holds 2 bytes",
                 "result buffer too small");
    clReleaseMemObject(tiny);

    /* A queue of another context. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    cl_command_queue oq = clCreateCommandQueue(other, dev, 0, &err);
    CL_OK(err);
    st = ocr_reducer_reduce(r, oq, b, 0, 10, &v);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(r), "another context", "foreign queue");
    clReleaseCommandQueue(oq);
    clReleaseContext(other);

    /* Still usable, and a success clears the message. */
    st = ocr_reducer_reduce(r, q, b, 0, 1000, &v);
    EXPECT(st == OCR_OK && v.i == 500500, "sum of 1..1000 after errors: status %d, %d", (int)st,
           v.i);
    EXPECT(!strcmp(ocr_reducer_last_error(r), ""), "a success clears the message");
    printf("ok   after the errors: sum 1..1000 = %d\n", v.i);
    ocr_reducer_release(r);

    /* The explicit kernel directory works too. */
    ocr_reducer_options kd = {.kernel_dir = kernel_dir};
    st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &kd, &r);
    EXPECT(st == OCR_OK, "create from %s: %s", kernel_dir, ocr_reducer_last_error(NULL));
    if (st == OCR_OK) {
        st = ocr_reducer_reduce(r, q, b, 0, 1000, &v);
        EXPECT(st == OCR_OK && v.i == 500500, "kernel_dir: sum %d", v.i);
        printf("ok   kernel_dir %s: sum 1..1000 = %d\n", kernel_dir, v.i);
        ocr_reducer_release(r);
    }
    clReleaseMemObject(b);
}

/* Many passes (a large first grid over one work-item groups), scratch grown
 * and reused, sizes up and down. */
static void passes_and_scratch(void) {
    ocr_reducer *r;
    ocr_reducer_options o = {.groups = 3000};
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_LONG, OCR_SUM, &o, &r);
    EXPECT(st == OCR_OK, "create long sum, 3000 groups: %s", ocr_reducer_last_error(NULL));
    if (st != OCR_OK) return;
    uint64_t n_max = 1 << 20;
    int64_t *h = malloc(n_max * sizeof *h);
    for (uint64_t i = 0; i < n_max; ++i)
        h[i] = (int64_t)(i * 2654435761u % 1000003) - 500000;
    cl_int err;
    cl_mem b =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n_max * sizeof *h, h, &err);
    CL_OK(err);
    static const uint64_t sizes[] = {5, 1 << 20, 100000, 2, 1, 777777, 1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        uint64_t n = sizes[s];
        ocr_plan plan;
        ocr_plan_make(ocr_reducer_geometry(r), n, 1, &plan);
        int64_t want = 0;
        for (uint64_t i = 0; i < n; ++i)
            want += h[i];
        ocr_value v;
        st = ocr_reducer_reduce(r, q, b, 0, n, &v);
        EXPECT(st == OCR_OK && v.l == want, "n=%llu: status %d, got %lld, expected %lld",
               (unsigned long long)n, (int)st, (long long)v.l, (long long)want);
        printf("ok   long sum n=%-8llu %u pass%s: %lld\n", (unsigned long long)n, plan.npasses,
               plan.npasses == 1 ? "" : "es", (long long)v.l);
    }
    clReleaseMemObject(b);
    free(h);
    ocr_reducer_release(r);
}

/* Every offset and length in a window around the alignment (the head copied
 * to scratch, the rest read in place), against the sum of 1..n. */
static void offsets(void) {
    ocr_reducer *r;
    cl_uint bits = 0;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r);
    EXPECT(st == OCR_OK, "create int sum: %s", ocr_reducer_last_error(NULL));
    if (st != OCR_OK) return;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
    uint64_t a = bits / 8 / sizeof(int), total = 3 * a + 5000, bad = 0, cases = 0;
    cl_mem b = int_buffer(total); /* element i holds i + 1 */
    uint64_t offs[] = {0, 1, a - 1, a, a + 1, 2 * a - 3};
    uint64_t lens[] = {1, 2, a - 2, a - 1, a, a + 1, 2 * a + 7, 5000};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; ++i)
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; ++j) {
            uint64_t off = offs[i], n = lens[j];
            if (n == 0 || off + n > total) continue;
            ocr_value v;
            /* sum of off+1 .. off+n */
            int32_t want = (int32_t)(uint32_t)(n * (2 * off + n + 1) / 2);
            st = ocr_reducer_reduce(r, q, b, off, n, &v);
            ++cases;
            if (st != OCR_OK || v.i != want) {
                ++bad;
                EXPECT(0, "offset %llu n %llu: status %d (%s), got %d, expected %d",
                       (unsigned long long)off, (unsigned long long)n, (int)st,
                       ocr_reducer_last_error(r), v.i, want);
            }
        }
    printf("ok   %llu offsets and lengths around the %llu-element alignment, %llu wrong\n",
           (unsigned long long)cases, (unsigned long long)a, (unsigned long long)bad);
    clReleaseMemObject(b);
    ocr_reducer_release(r);
}

/* The async call waits for its wait list: the data are written (on another
 * queue) only after the reduction was enqueued behind a user event. */
enum { N_GATED = 100000 };

/* An int max reducer, N_GATED zeros (host *h and buffer *b), a second queue
 * and a closed user event: the wait-list tests' set-up. */
static ocr_reducer *gated_setup(int **h, cl_mem *b, cl_command_queue *q2, cl_event *gate) {
    ocr_reducer *r = NULL;
    cl_int err;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_MAX, NULL, &r);
    EXPECT(st == OCR_OK, "create int max: %s", ocr_reducer_last_error(NULL));
    if (st != OCR_OK) return NULL;
    *h = calloc(N_GATED, sizeof **h);
    *b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N_GATED * sizeof **h, *h,
                        &err);
    CL_OK(err);
    *q2 = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    *gate = clCreateUserEvent(ctx, &err);
    CL_OK(err);
    return r;
}

static void wait_list(void) {
    enum { N = N_GATED };
    int *h;
    cl_mem b;
    cl_command_queue q2;
    cl_event gate, done = NULL;
    cl_int err;
    ocr_status st;
    ocr_reducer *r = gated_setup(&h, &b, &q2, &gate);
    if (!r) return;
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int), NULL, &err);
    CL_OK(err);
    st = ocr_reducer_reduce_async(r, q, b, 0, N, res, 1, &gate, &done);
    EXPECT(st == OCR_OK && done, "async: %s", ocr_reducer_last_error(r));
    cl_int status;
    CL_OK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    EXPECT(status != CL_COMPLETE, "the reduction finished before its wait list");
    h[N / 2] = 12345; /* the maximum, written after the enqueue */
    CL_OK(clEnqueueWriteBuffer(q2, b, CL_TRUE, 0, N * sizeof *h, h, 0, NULL, NULL));
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    CL_OK(clWaitForEvents(1, &done));
    int got = 0;
    CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    EXPECT(got == 12345, "the reduction saw the data written after the gate: %d", got);
    printf("ok   async behind a user event: max %d\n", got);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseCommandQueue(q2);
    clReleaseMemObject(res);
    clReleaseMemObject(b);
    free(h);
    ocr_reducer_release(r);
}

/* Opens the gate a while after the blocking call has begun waiting. */
static void *open_later(void *gate) {
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    clSetUserEventStatus(*(cl_event *)gate, CL_COMPLETE);
    return NULL;
}

/* ocr_reducer_reduce_wait: the blocking call behind a write of its input on
 * another queue that a user event holds back (opened by a thread while the
 * call blocks): the value is the written data's. Without the wait the
 * reduction would read the zeros that were there. */
static void blocking_wait_list(void) {
    enum { N = N_GATED };
    int *h;
    cl_mem b;
    cl_command_queue q2;
    cl_event gate, wrote = NULL;
    ocr_status st;
    ocr_reducer *r = gated_setup(&h, &b, &q2, &gate);
    if (!r) return;
    h[N / 3] = 4321;
    CL_OK(clEnqueueWriteBuffer(q2, b, CL_FALSE, 0, N * sizeof *h, h, 1, &gate, &wrote));
    CL_OK(clFlush(q2));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, open_later, &gate) == 0);
    ocr_value v = {0};
    st = ocr_reducer_reduce_wait(r, q, b, 0, N, 1, &wrote, &v);
    pthread_join(t, NULL);
    EXPECT(st == OCR_OK && v.i == 4321, "blocking behind the gated write: status %d, max %d (%s)",
           (int)st, v.i, ocr_reducer_last_error(r));
    printf("ok   blocking behind a gated write: max %d\n", v.i);
    st = ocr_reducer_reduce_wait(r, q, b, 0, N, 1, NULL, &v);
    EXPECT(st == OCR_USAGE, "a wait list of 1 event, NULL: status %d", (int)st);
    CL_OK(clFinish(q2));
    clReleaseEvent(wrote);
    clReleaseEvent(gate);
    clReleaseCommandQueue(q2);
    clReleaseMemObject(b);
    free(h);
    ocr_reducer_release(r);
}

/* int elements combined in long (ocr_reducer_create_widening): sums past
 * INT_MAX exact at every offset around the alignment, with the one-launch
 * finish where the device has it and with two launches (-cl-std=CL1.2). */
static void widening(void) {
    enum { N = 3000 };
    cl_int err;
    int *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; ++i)
        h[i] = i % 7 ? INT32_MAX - i : INT32_MIN + i;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &err);
    CL_OK(err);
    const char *opts[2] = {NULL, "-cl-std=CL1.2"};
    for (int k = 0; k < 2; ++k) {
        ocr_reducer_options o = {.size = sizeof o, .build_options = opts[k]};
        ocr_reducer *r = NULL;
        ocr_status st = ocr_reducer_create_widening(ctx, dev, OCR_INT, OCR_LONG, OCR_SUM, &o, &r);
        EXPECT(st == OCR_OK, "create_widening: %s", ocr_reducer_last_error(NULL));
        if (st != OCR_OK) continue;
        int bad = 0;
        static const size_t offs[] = {0, 1, 5, 31, 32, 33, 64, 95};
        static const uint64_t ns[] = {1, 2, 3, 31, 33, 1000, 2900};
        for (size_t i = 0; i < sizeof offs / sizeof *offs; ++i)
            for (size_t j = 0; j < sizeof ns / sizeof *ns; ++j) {
                int64_t want = 0;
                for (uint64_t e = 0; e < ns[j]; ++e)
                    want += h[offs[i] + e];
                ocr_value v = {0};
                st = ocr_reducer_reduce(r, q, b, offs[i], ns[j], &v);
                if (st != OCR_OK || v.l != want) {
                    printf("FAIL widening%s: offset %zu n %llu: %lld, expected %lld (%s)\n",
                           opts[k] ? " (two launches)" : "", offs[i], (unsigned long long)ns[j],
                           (long long)v.l, (long long)want, ocr_reducer_last_error(r));
                    ++bad;
                }
            }
        check_failures += bad;
        if (!bad)
            printf("ok   int read, long combined%s: 56 offsets and sizes exact\n",
                   opts[k] ? " (two launches)" : "");
        ocr_reducer_release(r);
    }
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create_widening(ctx, dev, OCR_LONG, OCR_INT, OCR_SUM, NULL, &r);
    expect_error(st, OCR_USAGE, ocr_reducer_last_error(NULL), "cannot be combined in int",
                 "narrowing refused");
    EXPECT(!r, "no reducer after a failure");
    EXPECT(ocr_type_widens_to(OCR_FLOAT, OCR_DOUBLE) && ocr_type_widens_to(OCR_UINT, OCR_LONG) &&
               ocr_type_widens_to(OCR_LONG, OCR_LONG) &&
               !ocr_type_widens_to(OCR_DOUBLE, OCR_FLOAT) &&
               !ocr_type_widens_to(OCR_INT, OCR_FLOAT) && !ocr_type_widens_to(OCR_LONG, OCR_DOUBLE),
           "ocr_type_widens_to's table");
    clReleaseMemObject(b);
    free(h);
}

/* Float min and max propagate NaN (NumPy's rule), in the kernel and in the
 * host's combine alike, wherever the NaN is. */
static void nan_min_max(void) {
    enum { N = 4103 };
    cl_int err;
    float *h = malloc(N * sizeof *h);
    static const int where[] = {0, 1, 17, 2048, N - 1};
    for (size_t w = 0; w < sizeof where / sizeof *where; ++w) {
        for (int i = 0; i < N; ++i)
            h[i] = (float)(i % 101) - 50.0f;
        h[where[w]] = NAN;
        cl_mem b =
            clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &err);
        CL_OK(err);
        for (ocr_op o = OCR_MIN; o <= OCR_MAX; ++o) {
            ocr_reducer *r = NULL;
            ocr_value v = {0};
            ocr_status st = ocr_reducer_create(ctx, dev, OCR_FLOAT, o, NULL, &r);
            if (st == OCR_OK) st = ocr_reducer_reduce(r, q, b, 0, N, &v);
            EXPECT(st == OCR_OK && isnan(v.f), "%s with NaN at %d: %g (%s)", ocr_op_name(o),
                   where[w], (double)v.f, ocr_last_error());
            ocr_value ref = ocr_reduce_naive(h, N, OCR_FLOAT, o);
            EXPECT(isnan(ref.f), "the reference's %s with NaN at %d: %g", ocr_op_name(o), where[w],
                   (double)ref.f);
            ocr_reducer_release(r);
        }
        clReleaseMemObject(b);
    }
    ocr_value one = {.f = 1.0f}, nan = {.f = NAN};
    EXPECT(isnan(ocr_combine(OCR_FLOAT, OCR_MIN, one, nan).f) &&
               isnan(ocr_combine(OCR_FLOAT, OCR_MAX, nan, one).f),
           "ocr_combine keeps NaN on either side");
    printf("ok   float min and max propagate NaN (device and host)\n");
    free(h);
}

/* Under the fault shim: the NAME call fails once, and is reported. */
static void fault(const char *name) {
    ocr_reducer *r = NULL;
    ocr_value v = {0};
    cl_mem b = NULL;
    /* The reducer first: the NAME call to fail is its own, not the test's. */
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r);
    const char *msg = ocr_reducer_last_error(NULL);
    if (st == OCR_OK) {
        b = int_buffer(100000);
        st = ocr_reducer_reduce(r, q, b, 0, 100000, &v);
        msg = ocr_reducer_last_error(r);
    }
    /* The status follows the OpenCL error the shim returns for that call. */
    ocr_status want = !strcmp(name, "clBuildProgram")   ? OCR_BUILD
                      : !strcmp(name, "clCreateBuffer") ? OCR_NO_MEMORY
                                                        : OCR_OPENCL;
    expect_error(st, want, msg, name, "injected failure");
    /* The raw code the shim returned (its defaults for these calls), as the
     * API gives it: the reducer's, or the failed create's. */
    cl_int want_cl = !strcmp(name, "clBuildProgram")           ? CL_BUILD_PROGRAM_FAILURE
                     : !strcmp(name, "clCreateBuffer")         ? CL_MEM_OBJECT_ALLOCATION_FAILURE
                     : !strcmp(name, "clEnqueueNDRangeKernel") ? CL_INVALID_WORK_GROUP_SIZE
                                                               : CL_OUT_OF_RESOURCES;
    cl_int got_cl = ocr_reducer_last_cl_error(r);
    EXPECT(got_cl == want_cl, "ocr_reducer_last_cl_error(%s) %d, expected %d (%s)",
           r ? "r" : "NULL", (int)got_cl, (int)want_cl, name);
    EXPECT(!strcmp(ocr_last_error(), msg), "ocr_last_error() \"%s\" is the reducer's \"%s\"",
           ocr_last_error(), msg);
    if (r && b) { /* the fault was once: the next call succeeds, and clears the code */
        st = ocr_reducer_reduce(r, q, b, 0, 100000, &v);
        EXPECT(st == OCR_OK && ocr_reducer_last_cl_error(r) == 0,
               "after a good call: status %d, code %d", (int)st, (int)ocr_reducer_last_cl_error(r));
    }
    ocr_reducer_release(r);
    if (b) clReleaseMemObject(b);
}

/* 1 if nothing but the OpenCL compiler's own summaries reached stderr: POCL's
 * clang prints "2 warnings and 2 errors generated." there by itself when a
 * build has diagnostics (the library has them in the build log). */
static int stderr_clean(int fd) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    int clean = 1, driver = 0;
    buf[n > 0 ? n : 0] = '\0';
    for (char *line = buf, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len && line[0] >= '0' && line[0] <= '9' && len > 11 &&
            !strcmp(line + len - 11, " generated.")) {
            ++driver;
            continue;
        }
        if (len) {
            printf("FAIL: printed to stderr: %s\n", line);
            clean = 0;
        }
        if (!nl) break;
    }
    if (clean)
        printf("ok   nothing was printed to stderr (%d compiler summary line%s from the driver)\n",
               driver, driver == 1 ? "" : "s");
    return clean;
}

int main(int argc, char **argv) {
    if (argc < 2 || (!strcmp(argv[1], "fault") && argc < 3)) {
        fprintf(stderr, "usage: test_reducer KERNEL_DIR | fault NAME\n");
        return 2;
    }
    /* Everything printed to stderr from here on is a failure. */
    char errpath[] = "/tmp/test_reducer_stderr_XXXXXX";
    int efd = mkstemp(errpath);
    int saved = dup(2);
    if (efd < 0 || saved < 0 || dup2(efd, 2) < 0) {
        perror("test_reducer: redirecting stderr");
        return 1;
    }

    CL_OPEN_FIRST(dev, ctx, q);
    EXPECT(!strcmp(ocr_version(), OCR_VERSION), "ocr_version() %s, header %s", ocr_version(),
           OCR_VERSION);

    if (!strcmp(argv[1], "fault")) {
        /* The build from source is the one to fail: a binary the program cache
         * kept on disk would be built first, and its failure taken for damage. */
        setenv("OCLREDUCTION_PROGRAM_CACHE", "off", 1);
        fault(argv[2]);
    } else {
        errors(argv[1]);
        passes_and_scratch();
        offsets();
        wait_list();
        blocking_wait_list();
        widening();
        nan_min_max();
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);

    fflush(stderr);
    dup2(saved, 2);
    if (!stderr_clean(efd)) ++check_failures;
    close(efd);
    unlink(errpath);
    printf("%s\n", check_failures ? "FAILED" : "PASSED");
    return check_failures ? 1 : 0;
}
