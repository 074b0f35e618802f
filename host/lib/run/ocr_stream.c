/* ocr_stream.c - reduce an input larger than one device buffer (or than the
 * device) by streaming it in chunks. Two slots, each a pinned host buffer and
 * a device buffer: the host generates chunk i + 1 into one slot while chunk i
 * uploads from the other (queue A) and the reducer reduces the chunk before
 * it (queue B, waiting on its upload event). An upload into a slot waits for
 * the reduction that last read that slot's device buffer, so at most two
 * chunks are in flight and the transfer never stops for the kernels: the
 * rate approaches min(upload, kernel rate), the upload on a GPU.
 * docs/streaming.md says more. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOTS = 2, H2D_REPS = 5 };
#define CHUNK_CAP_BYTES                                                                            \
    ((uint64_t)256 << 20) /* enough to hide launch costs; bounds pinned memory */

uint64_t ocr_stream_default_chunk(const ocr_device *dev, ocr_type t) {
    uint64_t b = dev->info.max_alloc / 4;
    if (b > CHUNK_CAP_BYTES) b = CHUNK_CAP_BYTES;
    uint64_t c = b / ocr_type_size(t);
    return c ? c : 1;
}

ocr_status ocr_stream_supported(ocr_type t, ocr_op o, ocr_data_kind kind) {
    /* Chunk sums of exact data are exact, and so is their combination (a
     * contiguous order); uniform float sums and products would need an error
     * bound over the chunks, which the streamed check does not make. */
    if (ocr_type_is_float(t) && kind != OCR_DATA_EXACT && (o == OCR_SUM || o == OCR_PROD)) {
        ocr_errorf("streaming checks bit for bit: %s %s needs --data exact (uniform data is "
                   "checked against an error bound, which a streamed run does not make)",
                   ocr_type_name(t), ocr_op_name(o));
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(o, t)) {
        ocr_errorf("%s needs an integer type, not %s", ocr_op_name(o), ocr_type_name(t));
        return OCR_USAGE;
    }
    return OCR_OK;
}

enum { FILL_THREADS = 16 };

typedef struct {
    void *dst;
    uint64_t off, cnt, n;
    ocr_type t;
    ocr_op o;
    const ocr_stream_options *opt;
} fill_job;

static void *fill_part(void *arg) {
    const fill_job *j = arg;
    ocr_data_fill_range(j->dst, j->off, j->cnt, j->n, j->t, j->o, j->opt->seed, j->opt->data);
    return NULL;
}

/* Generating the input is the stream's producer: one core makes some 70 M
 * elements/s, far below any GPU link, so large chunks are made by up to 16
 * threads (ocr_data_fill_range's elements depend on their index only). */
static void fill(void *dst, uint64_t off, uint64_t cnt, uint64_t n, ocr_type t, ocr_op o,
                 const ocr_stream_options *opt) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nt = cores < 1 ? 1 : cores > FILL_THREADS ? FILL_THREADS : (unsigned)cores;
    if (cnt < ((uint64_t)1 << 20)) nt = 1; /* small chunks: not worth a thread */
    pthread_t th[FILL_THREADS];
    int started[FILL_THREADS] = {0};
    fill_job job[FILL_THREADS];
    uint64_t per = cnt / nt;
    for (unsigned k = 0; k < nt; ++k) {
        uint64_t first = k * per;
        job[k] = (fill_job){(char *)dst + first * ocr_type_size(t),
                            off + first,
                            k + 1 == nt ? cnt - first : per,
                            n,
                            t,
                            o,
                            opt};
        if (k > 0) started[k] = pthread_create(&th[k], NULL, fill_part, &job[k]) == 0;
    }
    fill_part(&job[0]);
    for (unsigned k = 1; k < nt; ++k)
        if (started[k])
            pthread_join(th[k], NULL);
        else
            fill_part(&job[k]); /* no thread: made here */
}

/* The reference: each chunk's exact reference, combined in chunk order. */
static void reference(void *buf, uint64_t n, uint64_t chunk, ocr_type t, ocr_op o,
                      const ocr_stream_options *opt, ocr_value *expected) {
    *expected = ocr_identity(t, o);
    for (uint64_t off = 0; off < n; off += chunk) {
        uint64_t cnt = n - off < chunk ? n - off : chunk;
        ocr_reference cr;
        fill(buf, off, cnt, n, t, o, opt);
        ocr_reference_make(buf, cnt, t, o, 0, opt->data, &cr);
        *expected = ocr_combine(t, o, *expected, cr.expected);
    }
}

/* Chunk slot s: upload cnt elements from its pinned memory on queue A once the
 * reduction that last read its device buffer is done (*done), then reduce them
 * on queue B once uploaded, into `out`; *up and *done become the new events. */
static ocr_status enqueue_chunk(ocr_reducer *red, cl_command_queue qa, cl_command_queue qb,
                                cl_mem dbuf, const void *hp, uint64_t cnt, size_t es, cl_mem out,
                                cl_event *up, cl_event *done) {
    ocr_status st = OCR_OK;
    OCR_CL(clEnqueueWriteBuffer(qa, dbuf, CL_FALSE, 0, (size_t)(cnt * es), hp, *done ? 1 : 0,
                                *done ? done : NULL, up));
    OCR_CL(clFlush(qa));
    if (*done) {
        clReleaseEvent(*done);
        *done = NULL;
    }
    st = ocr_reducer_reduce_async(red, qb, dbuf, 0, cnt, out, 1, up, done);
fail:
    return st;
}

ocr_status ocr_stream_run(ocr_device *dev, ocr_type t, ocr_op o, uint64_t n,
                          const ocr_stream_options *opt, ocr_stream_result *res) {
    ocr_status st = OCR_OK;
    cl_int err = CL_SUCCESS;
    ocr_reducer *red = NULL;
    cl_command_queue qa = NULL, qb = NULL;
    cl_mem dbuf[SLOTS] = {NULL, NULL}, pin[SLOTS] = {NULL, NULL}, out = NULL;
    void *hp[SLOTS] = {NULL, NULL};
    cl_event up[SLOTS] = {NULL, NULL}, done[SLOTS] = {NULL, NULL}, ev = NULL;
    ocr_value *vals = NULL;
    size_t es = ocr_type_size(t);
    ocr_last_error_clear();
    memset(res, 0, sizeof *res);
    res->n = n, res->type = t, res->op = o, res->automatic = opt->automatic;
    res->max_alloc = dev->info.max_alloc;
    if ((st = ocr_stream_supported(t, o, opt->data)) != OCR_OK) return st;
    if (n == 0) {
        ocr_errorf("cannot stream 0 elements");
        return OCR_USAGE;
    }
    uint64_t chunk = opt->chunk ? opt->chunk : ocr_stream_default_chunk(dev, t);
    if (chunk > n) chunk = n;
    if (chunk * es > dev->info.max_alloc) {
        ocr_errorf("a chunk of %llu elements needs a %llu MiB buffer; %s allows at most %llu MiB "
                   "per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller --chunk",
                   (unsigned long long)chunk, (unsigned long long)((chunk * es) >> 20),
                   dev->info.name, (unsigned long long)(dev->info.max_alloc >> 20));
        return OCR_TOO_LARGE;
    }
    uint64_t nchunks = n / chunk + (n % chunk != 0), bytes = chunk * es;
    res->chunk = chunk, res->chunks = nchunks;
    if (!(vals = calloc((size_t)nchunks, sizeof *vals))) {
        ocr_errorf("out of host memory for %llu chunk values", (unsigned long long)nchunks);
        return OCR_NO_MEMORY;
    }

    ocr_reducer_options ro = {.kernel_dir = opt->kernel_dir,
                              .local_size = opt->local_size,
                              .groups = opt->groups,
                              .build_options = opt->build_options};
    if ((st = ocr_reducer_create(dev->context, dev->device, t, o, &ro, &red)) != OCR_OK) goto fail;
    qa = clCreateCommandQueue(dev->context, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    qb = clCreateCommandQueue(dev->context, dev->device, 0, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    for (int s = 0; s < SLOTS; ++s) {
        dbuf[s] = clCreateBuffer(dev->context, CL_MEM_READ_ONLY, (size_t)bytes, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer (device chunk)");
        pin[s] = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                (size_t)bytes, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer (pinned chunk)");
        /* Mapped for the whole run: page-locked memory the uploads copy from. */
        hp[s] = clEnqueueMapBuffer(qa, pin[s], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   (size_t)bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
    }
    out = clCreateBuffer(dev->context, CL_MEM_READ_WRITE, es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer (result)");

    /* The pinned upload rate in this run: the first chunk alone, median of 5. */
    {
        uint64_t cnt = chunk, ns[H2D_REPS];
        fill(hp[0], 0, cnt, n, t, o, opt);
        for (int i = 0; i < H2D_REPS; ++i) {
            cl_ulong t0 = 0, t1 = 0;
            uint64_t h0 = ocr_now_ns();
            OCR_CL(clEnqueueWriteBuffer(qa, dbuf[0], CL_TRUE, 0, (size_t)(cnt * es), hp[0], 0, NULL,
                                        &ev));
            uint64_t h1 = ocr_now_ns();
            cl_int e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
            if (e == CL_PROFILING_INFO_NOT_AVAILABLE) {
                /* Intel's CPU runtime runs a small blocking write at once,
                 * without a profiled command: time it with the host clock. */
                t0 = 0, t1 = h1 - h0;
            } else {
                OCR_CHECK(e, "clGetEventProfilingInfo");
                OCR_CL(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
            }
            clReleaseEvent(ev);
            ev = NULL;
            ns[i] = t1 > t0 ? (uint64_t)(t1 - t0) : 0;
        }
        res->h2d_ns = ocr_median_u64(ns, H2D_REPS);
        res->h2d_bytes = cnt * es;
    }

    /* The stream. */
    uint64_t w0 = ocr_now_ns();
    for (uint64_t i = 0; i < nchunks; ++i) {
        int s = (int)(i % SLOTS);
        uint64_t off = i * chunk, cnt = n - off < chunk ? n - off : chunk;
        if (up[s]) { /* the slot's pinned memory is free once its last upload is done */
            OCR_CL(clWaitForEvents(1, &up[s]));
            clReleaseEvent(up[s]);
            up[s] = NULL;
        }
        uint64_t f0 = ocr_now_ns();
        fill(hp[s], off, cnt, n, t, o, opt);
        res->fill_ns += ocr_now_ns() - f0;
        /* Into the device buffer once the reduction that last read it is done. */
        if ((st = enqueue_chunk(red, qa, qb, dbuf[s], hp[s], cnt, es, out, &up[s], &done[s])) !=
            OCR_OK)
            goto fail;
        /* In order on queue B: the next reduction writes `out` after this read. */
        OCR_CL(clEnqueueReadBuffer(qb, out, CL_FALSE, 0, es, &vals[i], 0, NULL, NULL));
        OCR_CL(clFlush(qb));
    }
    OCR_CL(clFinish(qb));
    res->wall_ns = ocr_now_ns() - w0;

    /* The same stream again with the input ready in the slots (the values are
     * not checked): the rate when the producer does not limit it, the one to
     * hold against the pinned upload rate. */
    for (int s = 0; s < SLOTS; ++s)
        if (up[s]) {
            clReleaseEvent(up[s]);
            up[s] = NULL;
        }
    w0 = ocr_now_ns();
    for (uint64_t i = 0; i < nchunks; ++i) {
        int s = (int)(i % SLOTS);
        uint64_t off = i * chunk, cnt = n - off < chunk ? n - off : chunk;
        if (up[s]) clReleaseEvent(up[s]);
        up[s] = NULL;
        if ((st = enqueue_chunk(red, qa, qb, dbuf[s], hp[s], cnt, es, out, &up[s], &done[s])) !=
            OCR_OK)
            goto fail;
        OCR_CL(clFlush(qb));
    }
    OCR_CL(clFinish(qb));
    res->pipe_ns = ocr_now_ns() - w0;
    res->pipe_gbs = res->pipe_ns ? (double)(n * es) / (double)res->pipe_ns : 0;

    res->result = ocr_identity(t, o);
    for (uint64_t i = 0; i < nchunks; ++i)
        res->result = ocr_combine(t, o, res->result, vals[i]);
    OCR_CL(clFinish(qa));
    reference(hp[0], n, chunk, t, o, opt, &res->expected);
    res->any_order = ocr_reference_any_order(t, o, n, opt->data);
    ocr_reference chk = {res->expected, 0, 0, res->any_order};
    res->passed = ocr_check(t, &chk, res->result);
    res->e2e_gbs = res->wall_ns ? (double)(n * es) / (double)res->wall_ns : 0;
    res->h2d_gbs = res->h2d_ns ? (double)res->h2d_bytes / (double)res->h2d_ns : 0;
    st = res->passed ? OCR_OK : OCR_WRONG;
fail:
    /* Nothing may still read the slots or write vals when they go. */
    if (qb) clFinish(qb);
    if (qa) clFinish(qa);
    if (ev) clReleaseEvent(ev);
    for (int s = SLOTS - 1; s >= 0; --s) {
        if (done[s]) clReleaseEvent(done[s]);
        if (up[s]) clReleaseEvent(up[s]);
        if (hp[s]) {
            clEnqueueUnmapMemObject(qa, pin[s], hp[s], 0, NULL, NULL);
            clFinish(qa);
        }
        if (pin[s]) clReleaseMemObject(pin[s]);
        if (dbuf[s]) clReleaseMemObject(dbuf[s]);
    }
    if (out) clReleaseMemObject(out);
    if (qb) clReleaseCommandQueue(qb);
    if (qa) clReleaseCommandQueue(qa);
    ocr_reducer_release(red);
    free(vals);
    return st;
}

/* ---- report --------------------------------------------------------------- */

static double ms(uint64_t ns) {
    return (double)ns / 1e6;
}

static void json_str(FILE *f, const char *s) {
    ocr_quoted(f, s, 1);
}

void ocr_stream_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_report_info *ri,
                       const ocr_stream_result *r) {
    const ocr_device_info *in = &dev->info;
    size_t es = ocr_type_size(r->type);
    double ratio = r->h2d_gbs > 0 ? r->e2e_gbs / r->h2d_gbs : 0;
    char got[64], want[64];
    ocr_value_str(r->type, r->result, got, sizeof got);
    ocr_value_str(r->type, r->expected, want, sizeof want);
    if (fmt == OCR_FORMAT_JSON) {
        fputs("{\"stream\": true, \"kernel\": ", f);
        json_str(f, ri->kernel_name);
        fprintf(f,
                ", \"type\": \"%s\", \"op\": \"%s\", \"n\": %llu, \"seed\": %llu, \"data\": "
                "\"%s\", \"device\": ",
                ocr_type_name(r->type), ocr_op_name(r->op), (unsigned long long)r->n,
                (unsigned long long)ri->seed, ocr_data_kind_name(ri->data));
        json_str(f, in->name);
        fprintf(f,
                ", \"automatic\": %s, \"max_alloc_bytes\": %llu, \"chunks\": %llu, \"chunk\": "
                "%llu, \"chunk_bytes\": %llu, \"result\": ",
                r->automatic ? "true" : "false", (unsigned long long)r->max_alloc,
                (unsigned long long)r->chunks, (unsigned long long)r->chunk,
                (unsigned long long)(r->chunk * es));
        json_str(f, got);
        fputs(", \"expected\": ", f);
        json_str(f, want);
        fprintf(f, ", \"exact\": true, \"passed\": %s, \"wall_ms\": %.6f, \"fill_ms\": %.6f, ",
                r->passed ? "true" : "false", ms(r->wall_ns), ms(r->fill_ns));
        fputs("\"e2e_gbs\": ", f);
        ocr_json_num(f, r->e2e_gbs);
        fprintf(f, ", \"h2d_chunk_ms\": %.6f, \"h2d_gbs\": ", ms(r->h2d_ns));
        ocr_json_num(f, r->h2d_gbs);
        fputs(", \"e2e_over_h2d\": ", f);
        ocr_json_num(f, ratio);
        fprintf(f, ", \"ready_ms\": %.6f, \"ready_gbs\": ", ms(r->pipe_ns));
        ocr_json_num(f, r->pipe_gbs);
        fputs(", \"ready_over_h2d\": ", f);
        ocr_json_num(f, r->h2d_gbs > 0 ? r->pipe_gbs / r->h2d_gbs : 0);
        fputs("}\n", f);
        return;
    }
    fprintf(f, "Streamed '%s': %llu elements (%s %s, seed %llu, %s data)\n", ri->kernel_name,
            (unsigned long long)r->n, ocr_type_name(r->type), ocr_op_name(r->op),
            (unsigned long long)ri->seed, ocr_data_kind_name(ri->data));
    if (r->automatic)
        fprintf(f,
                "Streaming automatically: the input needs %llu MiB, more than one buffer may "
                "hold (CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu MiB)\n",
                (unsigned long long)((r->n * es) >> 20), (unsigned long long)(r->max_alloc >> 20));
    fprintf(f, "Platform: %s (%s)\n", in->platform, in->platform_version);
    fprintf(f, "Will use this device: %s (driver %s, %s)\n", in->name, in->driver, in->version);
    fprintf(f,
            "Chunks: %llu of %llu elements (%.3f MiB); 2 pinned host slots, 2 device buffers; "
            "upload and reduction on two queues\n",
            (unsigned long long)r->chunks, (unsigned long long)r->chunk,
            (double)(r->chunk * es) / (1 << 20));
    if (ri->build_options) fprintf(f, "Build options added: %s\n", ri->build_options);
    ocr_print_result(f, r->type, r->result, r->expected, "", 1, r->any_order, 0, 0, 0);
    fprintf(f,
            ")\nChecked: the chunks' values combined in order against the chunks' references "
            "combined alike\n\n%s\n\n",
            r->passed ? "Test PASSED!" : "Test FAILED!");
    fprintf(f,
            "T wall: %.5g ms (host clock, first chunk generated to last value read; the host "
            "spent %.5g ms generating the input)\n",
            ms(r->wall_ns), ms(r->fill_ns));
    fprintf(f, "End to end: %.3f GB/s of input (input bytes / T wall)\n", r->e2e_gbs);
    fprintf(f, "Pinned H2D: %.3f GB/s (one chunk's upload alone, %.3f MiB, median of %d)\n",
            r->h2d_gbs, (double)r->h2d_bytes / (1 << 20), H2D_REPS);
    fprintf(f, "End to end / pinned H2D: %.3f\n", ratio);
    fprintf(f,
            "Input ready in host memory: %.3f GB/s (the same stream again without generating "
            "the input: %.5g ms), %.3f of pinned H2D\n",
            r->pipe_gbs, ms(r->pipe_ns), r->h2d_gbs > 0 ? r->pipe_gbs / r->h2d_gbs : 0);
}
