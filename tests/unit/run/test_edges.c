/*
 * test_edges.c - the library's edges (issue 24), on the first OpenCL device:
 *   - extra build options with a bare -D, -I or -U are OCR_USAGE from the
 *     check, from ocr_kernel_build and from ocr_reducer_create (POCL's option
 *     parser crashed on them);
 *   - ocr_reducer_reduce_async refuses a result buffer whose element 0 lies
 *     among the elements reduced (the same cl_mem, a sub-buffer of it, its
 *     parent) and accepts one that lies outside them; ocr_reducer_reduce_into
 *     judges the element at its result offset, not element 0;
 *   - a -D or -U of any name the kernels are built with (every entry of
 *     ocr_build_reserved_name, in every spelling) is OCR_USAGE from the
 *     check, ocr_reducer_create and ocr_kernel_build;
 *   - segment offsets: ocr_segment_offsets_check, and an offsets buffer that
 *     is (or overlaps) the result buffer is OCR_USAGE;
 *   - ocr_reducer_geometry(NULL) is NULL; ocr_reducer_plan refuses NULL and n = 0;
 *   - ocr_kernel_build refuses a work-group size or group count past
 *     OCR_MAX_LOCAL_SIZE / OCR_MAX_GROUPS (buffers sized from them would
 *     overflow) and builds one within them;
 *   - ocr_split_shares: no parts, zero, negative, NaN, huge and infinite
 *     weights give defined counts that add up to n, in bounded time.
 *
 *   test_edges KERNEL_DIR
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "ocr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

/* The forms issue 24 names, and neighbours: each must be refused, naming the flag. */
static const char *const bad_options[] = {
    "-D",     "-I",   "-U",     "-D ",    "-DA -D",          " -I\t",
    "-D -DA", "-D=1", "-I -DA", "-U -DB", "-cl-std=CL1.2 -D"};
static const char *const good_options[] = {
    NULL, "", "-DA", "-D A", "-DA=1 -DB=2", "-I /tmp", "-I/tmp -DX=1", "-cl-fast-relaxed-math"};

static void build_options(const char *kernel_dir) {
    for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; ++i) {
        const char *o = bad_options[i];
        CHECK(ocr_build_options_check(o) == OCR_USAGE);
        CHECK(strstr(ocr_last_error(), "needs") != NULL);
        /* The reducer, from the embedded kernels and from files. */
        for (int files = 0; files < 2; ++files) {
            ocr_reducer_options ro = {.kernel_dir = files ? kernel_dir : NULL, .build_options = o};
            ocr_reducer *r = (ocr_reducer *)&ro; /* must come back NULL */
            ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &ro, &r);
            CHECK(st == OCR_USAGE);
            CHECK(r == NULL);
            CHECK(strstr(ocr_reducer_last_error(NULL), "build options") != NULL);
            if (st != OCR_USAGE) printf("  build options \"%s\": status %d\n", o, (int)st);
        }
    }
    for (size_t i = 0; i < sizeof good_options / sizeof good_options[0]; ++i)
        CHECK(ocr_build_options_check(good_options[i]) == OCR_OK);
    /* A good option still builds and reduces. */
    ocr_reducer_options ro = {.build_options = "-D EDGE_TEST=1"};
    ocr_reducer *r = NULL;
    CHECK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &ro, &r) == OCR_OK);
    ocr_reducer_release(r);
}

static char kept_message[512];
static void keep_message(void *user, const char *message) {
    (void)user;
    snprintf(kept_message, sizeof kept_message, "%s", message);
}

/* Every reserved name in every spelling the compiler takes, refused; names
 * beside them pass. -DOCR_IDENTITY=5 made an int sum 4788 for 4103, OCR_OK. */
static void reserved_names(void) {
    static const char *const forms[] = {"-D%s",
                                        "-D%s=5",
                                        "-D %s",
                                        "-D %s=5",
                                        "-U%s",
                                        "-U %s",
                                        "\"-D%s=5\"",
                                        "-D \"%s=5\"",
                                        "\"-D\" \"%s\"",
                                        "-D '%s'",
                                        "-cl-mad-enable -D%s=(1)",
                                        "--define-macro=%s",
                                        "--define-macro %s",
                                        "--undefine-macro %s",
                                        "-DA=1 -D\t%s",
                                        "-D%s\\=1",
                                        "-D%s(x)=x",
                                        "-D'%s\\\\=1'"};
    char name[64], opts[160];
    size_t i;
    for (i = 0; ocr_build_reserved_name(i); ++i) {
        const char *e = ocr_build_reserved_name(i);
        snprintf(name, sizeof name, "%s", e);
        if (name[strlen(name) - 1] == '*') name[strlen(name) - 1] = 'X'; /* OCR_* -> OCR_X */
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
            snprintf(opts, sizeof opts, forms[f], name);
            int ok = ocr_build_options_check(opts) == OCR_USAGE &&
                     strstr(ocr_last_error(), "the kernels are built with") != NULL;
            CHECK(ok);
            if (!ok) printf("  \"%s\" not refused\n", opts);
        }
    }
    CHECK(i >= 20); /* the list is there */
    /* a file read ahead of the kernel could define them past the check */
    static const char *const files[] = {"-include /tmp/x.h", "-include/tmp/x.h",
                                        "-cl-mad-enable -imacros x.h", "--include=x.h"};
    ocr_set_message_callback(keep_message, NULL); /* ocr_last_error() keeps the first ones */
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f)
        CHECK(ocr_build_options_check(files[f]) == OCR_USAGE &&
              strstr(kept_message, "read ahead of the kernel") != NULL);
    ocr_set_message_callback(NULL, NULL);
    static const char *const fine[] = {"-DOCR", "-DTT=1",   "-D LOCAL_SIZES", "-DMY_OCR_T",
                                       "-Dt=1", "-I OCR_T", "-DVALUE=OCR_T"};
    for (size_t f = 0; f < sizeof fine / sizeof fine[0]; ++f)
        CHECK(ocr_build_options_check(fine[f]) == OCR_OK);
    /* The reducer and the benchmark API refuse it before building. */
    ocr_reducer_options ro = {.build_options = "-DOCR_IDENTITY=5"};
    ocr_reducer *r = NULL;
    CHECK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &ro, &r) == OCR_USAGE);
    CHECK(r == NULL);
    ocr_device *d = NULL;
    ocr_device_choice any = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    CHECK(ocr_device_open(&any, &d) == OCR_OK);
    if (!d) return;
    ocr_build_request rq = {.spec = *ocr_kernel_find("reduce6"),
                            .type = OCR_INT,
                            .op = OCR_SUM,
                            .extra_options = "-D LOCAL_SIZE=64"};
    ocr_kernel *k = NULL;
    CHECK(ocr_kernel_build(d, &rq, &k) == OCR_USAGE);
    CHECK(k == NULL);
    ocr_kernel_release(k);
    ocr_device_close(d);
}

/* Segment offsets: ocr_segment_offsets_check refuses decreasing ones and
 * ones past n; the segmented call refuses an offsets buffer that is the
 * result buffer, or a sub-buffer overlapping it (the kernel raced with itself). */
static void segment_offsets(void) {
    const uint32_t good[] = {0, 5, 5, 10}, down[] = {0, 5, 3, 10}, past[] = {0, 5, 11};
    const uint64_t good64[] = {2, 7}, past64[] = {0, UINT64_MAX};
    CHECK(ocr_segment_offsets_check(good, OCR_UINT, 3, 10) == OCR_OK);
    CHECK(ocr_segment_offsets_check(good64, OCR_ULONG, 1, 10) == OCR_OK);
    CHECK(ocr_segment_offsets_check(down, OCR_UINT, 3, 10) == OCR_USAGE);
    CHECK(strstr(ocr_last_error(), "offsets[2] = 3 is below the one before") != NULL);
    CHECK(ocr_segment_offsets_check(past, OCR_UINT, 2, 10) == OCR_USAGE);
    CHECK(strstr(ocr_last_error(), "offsets[2] = 11 is past the end") != NULL);
    CHECK(ocr_segment_offsets_check(past64, OCR_ULONG, 1, 10) == OCR_USAGE);
    CHECK(ocr_segment_offsets_check(good, OCR_INT, 3, 10) == OCR_USAGE);

    cl_int err;
    int data[64];
    for (int i = 0; i < 64; ++i)
        data[i] = i;
    cl_mem in =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    cl_mem both = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    ocr_reducer *r = NULL;
    CHECK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r) == OCR_OK);
    if (!r) return;
    uint32_t offs[] = {0, 16, 32, 64};
    clEnqueueWriteBuffer(q, both, CL_TRUE, 0, sizeof offs, offs, 0, NULL, NULL);
    /* the same buffer, the results over the offsets, then after them */
    CHECK(ocr_reducer_reduce_segments(r, q, in, 0, 64, both, OCR_UINT, 3, both, 1, 0, NULL, NULL) ==
          OCR_USAGE);
    CHECK(strstr(ocr_reducer_last_error(r), "offsets buffer and the result buffer overlap") !=
          NULL);
    CHECK(ocr_reducer_reduce_segments(r, q, in, 0, 64, both, OCR_UINT, 3, both, 4, 0, NULL, NULL) ==
          OCR_OK);
    int got[3] = {0, 0, 0};
    clEnqueueReadBuffer(q, both, CL_TRUE, 4 * sizeof(int), sizeof got, got, 0, NULL, NULL);
    CHECK(got[0] == 120 && got[1] == 376 && got[2] == 1520);
    /* sub-buffers of one buffer: overlapping refused, apart accepted */
    cl_buffer_region ro = {0, 1024}, rr = {0, 1024}, ra = {2048, 1024};
    cl_mem so = clCreateSubBuffer(both, 0, CL_BUFFER_CREATE_TYPE_REGION, &ro, &err);
    cl_mem sr = clCreateSubBuffer(both, 0, CL_BUFFER_CREATE_TYPE_REGION, &rr, &err);
    cl_mem sa = clCreateSubBuffer(both, 0, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
    CHECK(ocr_reducer_reduce_segments(r, q, in, 0, 64, so, OCR_UINT, 3, sr, 2, 0, NULL, NULL) ==
          OCR_USAGE);
    CHECK(ocr_reducer_reduce_segments(r, q, in, 0, 64, so, OCR_UINT, 3, sa, 0, 0, NULL, NULL) ==
          OCR_OK);
    clFinish(q);
    clReleaseMemObject(sa), clReleaseMemObject(sr), clReleaseMemObject(so);
    ocr_reducer_release(r);
    clReleaseMemObject(both), clReleaseMemObject(in);
}

/* Geometries past the bounds are refused before anything is made. */
static void geometry_bounds(void) {
    ocr_device *d = NULL;
    ocr_device_choice any = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    CHECK(ocr_device_open(&any, &d) == OCR_OK);
    if (!d) return;
    const struct {
        size_t local_size, groups;
        ocr_status want;
    } rows[] = {{OCR_MAX_LOCAL_SIZE + 1, 0, OCR_USAGE},
                {0, OCR_MAX_GROUPS + 1, OCR_USAGE},
                {0, SIZE_MAX, OCR_USAGE},
                {SIZE_MAX, SIZE_MAX / 2 + 2, OCR_USAGE},
                {0, OCR_MAX_GROUPS / 64, OCR_OK}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        ocr_build_request rq = {.spec = *ocr_kernel_find("reduce7"),
                                .type = OCR_INT,
                                .local_size = rows[i].local_size,
                                .groups = rows[i].groups};
        ocr_kernel *k = NULL;
        ocr_status st = ocr_kernel_build(d, &rq, &k);
        EXPECT(st == rows[i].want, "build with local size %zu and %zu groups: status %d (%s)",
               rows[i].local_size, rows[i].groups, (int)st, ocr_last_error());
        if (rows[i].want != OCR_OK) CHECK(k == NULL && strstr(ocr_last_error(), "at most"));
        ocr_kernel_release(k);
    }
    ocr_device_close(d);
}

/* n ints 1..n after `lead` zeros: the sum of the n is n(n+1)/2. */
static cl_mem int_buffer(size_t lead, size_t n) {
    cl_int err;
    int *h = calloc(lead + n, sizeof *h);
    for (size_t i = 0; i < n; ++i)
        h[lead + i] = (int)(i + 1);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (lead + n) * sizeof *h,
                              h, &err);
    CL_OK(err);
    free(h);
    return b;
}

static cl_mem sub(cl_mem b, size_t origin, size_t size) {
    cl_int err;
    cl_buffer_region reg = {origin, size};
    cl_mem s = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    CL_OK(err);
    return s;
}

/* Reduces [offset, offset + n) of in into element `at` of out (at 0: through
 * ocr_reducer_reduce_async): the status, and (on OCR_OK) that value read back. */
static ocr_status reduce_at(ocr_reducer *r, cl_mem in, size_t offset, uint64_t n, cl_mem out,
                            size_t at, int *value) {
    cl_event done = NULL;
    ocr_status st = at ? ocr_reducer_reduce_into(r, q, in, offset, n, out, at, 0, NULL, &done)
                       : ocr_reducer_reduce_async(r, q, in, offset, n, out, 0, NULL, &done);
    if (st == OCR_OK) {
        CL_OK(clEnqueueReadBuffer(q, out, CL_TRUE, at * sizeof *value, sizeof *value, value, 1,
                                  &done, NULL));
        clReleaseEvent(done);
    }
    CL_OK(clFinish(q));
    return st;
}

static void refused(ocr_status st, const char *label) {
    CHECK(st == OCR_USAGE);
    CHECK(strstr(ocr_last_error(), "overlaps") != NULL);
    printf("%s %s: status %d\n", st == OCR_USAGE ? "ok  " : "FAIL", label, (int)st);
}

static void overlap(void) {
    ocr_reducer *r = NULL;
    cl_uint bits = 0;
    int v = 0;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
    size_t al = bits >= 8 ? bits / 8 : 1, ai = al / sizeof(int); /* a sub-buffer origin */
    const size_t n = 4103;
    CHECK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r) == OCR_OK);
    if (!r) return;
    cl_mem b = int_buffer(ai, n); /* ai zeros, then 1..n */
    const int want = (int)(n * (n + 1) / 2);

    refused(reduce_at(r, b, 0, ai + n, b, 0, &v), "the same buffer, element 0 reduced");
    cl_mem one = sub(b, al, sizeof(int));
    refused(reduce_at(r, b, ai, n, one, 0, &v), "a sub-buffer of the input inside the range");
    clReleaseMemObject(one);
    cl_mem head = sub(b, 0, al + n * sizeof(int));
    refused(reduce_at(r, head, 0, ai + n, b, 0, &v),
            "the input a sub-buffer, the result its parent");
    clReleaseMemObject(head);

    /* Outside the range: allowed, and right. Element 0 of b is a lead zero. */
    CHECK(reduce_at(r, b, ai, n, b, 0, &v) == OCR_OK && v == want);
    cl_mem tail = sub(b, al, n * sizeof(int)); /* the 1..n */
    CHECK(reduce_at(r, tail, 0, n, b, 0, &v) == OCR_OK && v == want);
    CHECK(reduce_at(r, tail, 1, n - 1, tail, 0, &v) == OCR_OK && v == want - 1);
    clReleaseMemObject(tail);
    printf("ok   results outside the range: %d\n", v);

    /* A result offset: its element is the one judged, wherever element 0 lies. */
    refused(reduce_at(r, b, ai, n, b, ai + 5, &v), "element 0 outside, the result offset inside");
    tail = sub(b, al, n * sizeof(int));
    refused(reduce_at(r, tail, 0, n, b, ai + n - 1, &v), "the parent's element at the offset");
    clReleaseMemObject(tail);
    cl_mem c = int_buffer(ai, n); /* b's elements 0 and ai hold values written above */
    CHECK(reduce_at(r, c, 0, ai + n - 1, c, ai + n - 1, &v) == OCR_OK && v == want - (int)n);
    clReleaseMemObject(c);
    printf("ok   element 0 inside the range, the result offset after it: %d\n", v);

    CHECK(ocr_reducer_geometry(NULL) == NULL);
    CHECK(ocr_reducer_geometry(r) != NULL);
    ocr_plan p;
    CHECK(ocr_reducer_plan(NULL, 10, 1, &p) == OCR_USAGE &&
          ocr_reducer_plan(r, 0, 1, &p) == OCR_USAGE);
    CHECK(ocr_reducer_plan(r, 1000, 0, &p) == OCR_OK && p.leftover == 1);
    clReleaseMemObject(b);
    ocr_reducer_release(r);
}

/* Counts add up to n and each equals want[i]. */
static void shares(uint64_t n, unsigned parts, const double *w, const uint64_t *want,
                   const char *label) {
    uint64_t c[8], sum = 0;
    int same = 1;
    memset(c, 0xab, sizeof c);
    ocr_split_shares(n, parts, w, c);
    for (unsigned i = 0; i < parts; ++i)
        sum += c[i], same &= c[i] == want[i];
    CHECK(sum == n);
    CHECK(same);
    printf("%s shares %s:", same && sum == n ? "ok  " : "FAIL", label);
    for (unsigned i = 0; i < parts; ++i)
        printf(" %llu", (unsigned long long)c[i]);
    printf("\n");
}

static void split_shares(void) {
    const double inf = INFINITY, nan_ = NAN;
    uint64_t untouched = 7;
    ocr_split_shares(10, 0, NULL, &untouched); /* no parts: nothing, no division */
    ocr_split_shares(10, 0, (const double[]){1}, &untouched);
    CHECK(untouched == 7);
    const uint64_t big = (uint64_t)1 << 34;
    shares(3000, 2, (const double[]){1e308, 0.5e308}, (const uint64_t[]){2000, 1000}, "huge");
    shares(big, 2, (const double[]){1e308, 1e308}, (const uint64_t[]){big / 2, big / 2},
           "huge at 2^34");
    shares(1000, 2, (const double[]){inf, 1}, (const uint64_t[]){1000, 0}, "inf, 1");
    shares(1001, 3, (const double[]){inf, 2, inf}, (const uint64_t[]){501, 0, 500}, "inf, 2, inf");
    shares(1000, 2, (const double[]){-inf, 1}, (const uint64_t[]){0, 1000}, "-inf, 1");
    shares(1000, 2, (const double[]){nan_, 1}, (const uint64_t[]){0, 1000}, "nan, 1");
    shares(1000, 3, (const double[]){-1, 0, 3}, (const uint64_t[]){0, 0, 1000}, "-1, 0, 3");
    shares(1001, 2, (const double[]){0, 0}, (const uint64_t[]){501, 500}, "all zero");
    shares(1001, 2, (const double[]){nan_, nan_}, (const uint64_t[]){501, 500}, "all nan");
    shares(1000, 3, (const double[]){1, 1, 2}, (const uint64_t[]){250, 250, 500}, "1, 1, 2");
    shares(10, 3, (const double[]){1, 1, 1}, (const uint64_t[]){4, 3, 3}, "1, 1, 1");
    shares(10, 3, (const double[]){4.9e-324, 4.9e-324, 0}, (const uint64_t[]){5, 5, 0},
           "subnormal");
    uint64_t c[3];
    ocr_split_shares(UINT64_MAX, 3, (const double[]){1, 1, 1}, c); /* n rounds up in a double */
    CHECK(c[0] + c[1] + c[2] == UINT64_MAX);
    for (int i = 0; i < 3; ++i)
        CHECK(c[i] > UINT64_MAX / 3 - 4096 && c[i] < UINT64_MAX / 3 + 4096);
    shares(0, 2, (const double[]){inf, 1}, (const uint64_t[]){0, 0}, "n = 0");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_edges KERNEL_DIR\n");
        return 2;
    }
    split_shares(); /* no device needed */
    CL_OPEN_FIRST(dev, ctx, q);
    build_options(argv[1]);
    reserved_names();
    segment_offsets();
    geometry_bounds();
    overlap();
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary("test_edges");
}
