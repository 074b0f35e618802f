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
#include "run.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SLOTS = 2, H2D_REPS = OCR_STREAM_H2D_REPS, ROUNDS = OCR_STREAM_ROUNDS };
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
    if (ocr_type_is_float(t) && kind == OCR_DATA_UNIFORM && (o == OCR_SUM || o == OCR_PROD)) {
        ocr_errorf("streaming checks bit for bit: %s %s needs --data exact (uniform data is "
                   "checked against an error bound, which a streamed run does not make)",
                   ocr_type_name(t), ocr_op_name(o));
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(o, t)) {
        ocr_errorf("%s needs an integer type, not %s", ocr_op_name(o), ocr_type_name(t));
        return OCR_USAGE;
    }
    if (ocr_type_is_storage(t)) {
        ocr_errorf("streaming reads no %s data yet (small types: single reductions)",
                   ocr_type_name(t));
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

/* A stream's device side: the reducer, queue A (uploads) and queue B
 * (reductions), two slots (a device buffer and a pinned host buffer mapped
 * at hp), the one-value result buffer, and each slot's last upload and last
 * reduction. */
typedef struct {
    ocr_device *dev;
    const ocr_stream_options *opt;
    ocr_type t;
    ocr_op o;
    uint64_t n, chunk, nchunks;
    size_t es;
    ocr_reducer *red;
    cl_command_queue qa, qb;
    cl_mem dbuf[SLOTS], pin[SLOTS], out;
    void *hp[SLOTS];
    cl_event up[SLOTS], done[SLOTS];
} stream;

/* The reducer, the queues and the slots. */
static ocr_status stream_open(stream *s) {
    ocr_status st = OCR_OK;
    cl_int err = CL_SUCCESS;
    const ocr_stream_options *opt = s->opt;
    cl_context ctx = s->dev->context;
    size_t bytes = (size_t)(s->chunk * s->es);
    ocr_reducer_options ro = {.size = sizeof ro,
                              .kernel_dir = opt->kernel_dir,
                              .local_size = opt->local_size,
                              .groups = opt->groups,
                              .build_options = opt->build_options};
    if ((st = ocr_reducer_create(ctx, s->dev->device, s->t, s->o, &ro, &s->red)) != OCR_OK)
        return st;
    s->qa = clCreateCommandQueue(ctx, s->dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    s->qb = clCreateCommandQueue(ctx, s->dev->device, 0, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    for (int k = 0; k < SLOTS; ++k) {
        s->dbuf[k] = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer (device chunk)");
        s->pin[k] =
            clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer (pinned chunk)");
        /* Mapped for the whole run: page-locked memory the uploads copy from. */
        s->hp[k] = clEnqueueMapBuffer(s->qa, s->pin[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                      bytes, 0, NULL, NULL, &err);
        OCR_CHECK(err, "clEnqueueMapBuffer");
    }
    s->out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, s->es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer (result)");
fail:
    return st;
}

/* Nothing may still read the slots (or write the values) when they go. */
static void stream_close(stream *s) {
    if (s->qb) clFinish(s->qb);
    if (s->qa) clFinish(s->qa);
    for (int k = SLOTS - 1; k >= 0; --k) {
        if (s->done[k]) clReleaseEvent(s->done[k]);
        if (s->up[k]) clReleaseEvent(s->up[k]);
        if (s->hp[k]) {
            clEnqueueUnmapMemObject(s->qa, s->pin[k], s->hp[k], 0, NULL, NULL);
            clFinish(s->qa);
        }
        if (s->pin[k]) clReleaseMemObject(s->pin[k]);
        if (s->dbuf[k]) clReleaseMemObject(s->dbuf[k]);
    }
    if (s->out) clReleaseMemObject(s->out);
    if (s->qb) clReleaseCommandQueue(s->qb);
    if (s->qa) clReleaseCommandQueue(s->qa);
    ocr_reducer_release(s->red);
}

/* The pinned upload rate in this run: the first chunk alone, median of
 * OCR_STREAM_H2D_REPS. */
static ocr_status time_h2d(stream *s, ocr_stream_result *res) {
    ocr_status st = OCR_OK;
    cl_event ev = NULL;
    uint64_t cnt = s->chunk, ns[H2D_REPS];
    fill(s->hp[0], 0, cnt, s->n, s->t, s->o, s->opt);
    for (int i = 0; i < H2D_REPS; ++i) {
        uint64_t h0 = ocr_now_ns(), t0, t1;
        OCR_CL(clEnqueueWriteBuffer(s->qa, s->dbuf[0], CL_TRUE, 0, (size_t)(cnt * s->es), s->hp[0],
                                    0, NULL, &ev));
        /* Intel's CPU runtime may give no times for this blocking write: the
         * host clock around it stands in (ocr_event_span) */
        if ((st = ocr_event_span(ev, h0, &t0, &t1, &ns[i])) != OCR_OK) goto fail;
        clReleaseEvent(ev);
        ev = NULL;
    }
    res->h2d_ns = ocr_median_u64(ns, H2D_REPS);
    res->h2d_bytes = cnt * s->es;
fail:
    if (ev) clReleaseEvent(ev);
    return st;
}

/* Chunk slot k: upload cnt elements from its pinned memory on queue A once
 * the reduction that last read its device buffer is done, then reduce them
 * on queue B once uploaded, into `out`; the slot's events become the new ones. */
static ocr_status enqueue_chunk(stream *s, int k, uint64_t cnt) {
    ocr_status st = OCR_OK;
    cl_event *done = &s->done[k];
    OCR_CL(clEnqueueWriteBuffer(s->qa, s->dbuf[k], CL_FALSE, 0, (size_t)(cnt * s->es), s->hp[k],
                                *done ? 1 : 0, *done ? done : NULL, &s->up[k]));
    OCR_CL(clFlush(s->qa));
    if (*done) {
        clReleaseEvent(*done);
        *done = NULL;
    }
    st = ocr_reducer_reduce_async(s->red, s->qb, s->dbuf[k], 0, cnt, s->out, 1, &s->up[k], done);
fail:
    return st;
}

/* One pass of every chunk through the slots. With vals, the stream proper:
 * each chunk generated into its slot once the slot's last upload is done,
 * and its value read into vals[i]; without, the slots' contents sent again
 * as they are (the rate when the producer does not limit it). */
static ocr_status chunk_loop(stream *s, ocr_value *vals, uint64_t *fill_ns) {
    ocr_status st = OCR_OK;
    for (uint64_t i = 0; i < s->nchunks; ++i) {
        int k = (int)(i % SLOTS);
        uint64_t off = i * s->chunk, cnt = s->n - off < s->chunk ? s->n - off : s->chunk;
        if (s->up[k] && vals) OCR_CL(clWaitForEvents(1, &s->up[k]));
        if (s->up[k]) clReleaseEvent(s->up[k]);
        s->up[k] = NULL;
        if (vals) {
            uint64_t f0 = ocr_now_ns();
            fill(s->hp[k], off, cnt, s->n, s->t, s->o, s->opt);
            *fill_ns += ocr_now_ns() - f0;
        }
        if ((st = enqueue_chunk(s, k, cnt)) != OCR_OK) goto fail;
        /* In order on queue B: the next reduction writes `out` after this read. */
        if (vals)
            OCR_CL(clEnqueueReadBuffer(s->qb, s->out, CL_FALSE, 0, s->es, &vals[i], 0, NULL, NULL));
        OCR_CL(clFlush(s->qb));
    }
    OCR_CL(clFinish(s->qb));
fail:
    return st;
}

/* The yardstick: every chunk uploaded from its slot's pinned memory into its
 * slot's device buffer, in order on queue A, nothing else; host clock from
 * the first enqueue to the last upload's end. */
static ocr_status copy_loop(stream *s, uint64_t *ns) {
    ocr_status st = OCR_OK;
    OCR_CL(clFinish(s->qb));
    OCR_CL(clFinish(s->qa));
    uint64_t t0 = ocr_now_ns();
    for (uint64_t i = 0; i < s->nchunks; ++i) {
        int k = (int)(i % SLOTS);
        uint64_t off = i * s->chunk, cnt = s->n - off < s->chunk ? s->n - off : s->chunk;
        OCR_CL(clEnqueueWriteBuffer(s->qa, s->dbuf[k], CL_FALSE, 0, (size_t)(cnt * s->es), s->hp[k],
                                    0, NULL, NULL));
        if (i % 4 == 3) OCR_CL(clFlush(s->qa));
    }
    OCR_CL(clFinish(s->qa));
    *ns = ocr_now_ns() - t0;
fail:
    return st;
}

/* The stream with the input ready in the slots (values not checked) and the
 * copy-only yardstick, alternated round by round so drift falls on both;
 * medians. */
static ocr_status ready_rounds(stream *s, ocr_stream_result *res) {
    ocr_status st = OCR_OK;
    uint64_t pipe[ROUNDS], copy[ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) {
        int copy_first = r % 2;
        if (copy_first && (st = copy_loop(s, &copy[r])) != OCR_OK) goto fail;
        uint64_t w0 = ocr_now_ns();
        if ((st = chunk_loop(s, NULL, NULL)) != OCR_OK) goto fail;
        pipe[r] = ocr_now_ns() - w0;
        if (!copy_first && (st = copy_loop(s, &copy[r])) != OCR_OK) goto fail;
    }
    res->pipe_ns = ocr_median_u64(pipe, ROUNDS);
    res->copy_ns = ocr_median_u64(copy, ROUNDS);
fail:
    return st;
}

/* The chunks' values combined in order, against the chunks' references
 * combined alike. */
static void check(stream *s, const ocr_value *vals, ocr_stream_result *res) {
    res->result = ocr_identity(s->t, s->o);
    for (uint64_t i = 0; i < s->nchunks; ++i)
        res->result = ocr_combine(s->t, s->o, res->result, vals[i]);
    reference(s->hp[0], s->n, s->chunk, s->t, s->o, s->opt, &res->expected);
    res->any_order = ocr_reference_any_order(s->t, s->o, s->n, s->opt->data);
    ocr_reference chk = {res->expected, 0, 0, res->any_order, 0};
    res->passed = ocr_check(s->t, &chk, res->result);
}

/* The chunk size, or a refusal: one chunk must fit one buffer. */
static ocr_status chunk_size(const ocr_device *dev, ocr_type t, uint64_t n,
                             const ocr_stream_options *opt, uint64_t *chunk) {
    size_t es = ocr_type_size(t);
    uint64_t c = opt->chunk ? opt->chunk : ocr_stream_default_chunk(dev, t);
    if (c > n) c = n;
    if (c * es > dev->info.max_alloc) {
        ocr_errorf("a chunk of %llu elements needs a %llu MiB buffer; %s allows at most %llu MiB "
                   "per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller --chunk",
                   (unsigned long long)c, (unsigned long long)((c * es) >> 20), dev->info.name,
                   (unsigned long long)(dev->info.max_alloc >> 20));
        return OCR_TOO_LARGE;
    }
    *chunk = c;
    return OCR_OK;
}

ocr_status ocr_stream_run(ocr_device *dev, ocr_type t, ocr_op o, uint64_t n,
                          const ocr_stream_options *opt, ocr_stream_result *res) {
    ocr_status st = OCR_OK;
    ocr_value *vals = NULL;
    stream s = {.dev = dev, .opt = opt, .t = t, .o = o, .n = n, .es = ocr_type_size(t)};
    ocr_last_error_clear();
    memset(res, 0, sizeof *res);
    res->n = n, res->type = t, res->op = o, res->automatic = opt->automatic;
    res->max_alloc = dev->info.max_alloc;
    if ((st = ocr_stream_supported(t, o, opt->data)) != OCR_OK) return st;
    if (n == 0) {
        ocr_errorf("cannot stream 0 elements");
        return OCR_USAGE;
    }
    if ((st = chunk_size(dev, t, n, opt, &s.chunk)) != OCR_OK) return st;
    s.nchunks = n / s.chunk + (n % s.chunk != 0);
    res->chunk = s.chunk, res->chunks = s.nchunks;
    if (!(vals = calloc((size_t)s.nchunks, sizeof *vals))) {
        ocr_errorf("out of host memory for %llu chunk values", (unsigned long long)s.nchunks);
        return OCR_NO_MEMORY;
    }
    if ((st = stream_open(&s)) != OCR_OK || (st = time_h2d(&s, res)) != OCR_OK) goto fail;
    uint64_t w0 = ocr_now_ns();
    if ((st = chunk_loop(&s, vals, &res->fill_ns)) != OCR_OK) goto fail;
    res->wall_ns = ocr_now_ns() - w0;
    /* The same stream again with the input ready in the slots (the values are
     * not checked), against the same bytes copied alone. */
    if ((st = ready_rounds(&s, res)) != OCR_OK) goto fail;
    res->pipe_gbs = res->pipe_ns ? (double)(n * s.es) / (double)res->pipe_ns : 0;
    res->copy_gbs = res->copy_ns ? (double)(n * s.es) / (double)res->copy_ns : 0;
    OCR_CL(clFinish(s.qa));
    check(&s, vals, res);
    res->e2e_gbs = res->wall_ns ? (double)(n * s.es) / (double)res->wall_ns : 0;
    res->h2d_gbs = res->h2d_ns ? (double)res->h2d_bytes / (double)res->h2d_ns : 0;
    st = res->passed ? OCR_OK : OCR_WRONG;
fail:
    stream_close(&s);
    free(vals);
    return st;
}
