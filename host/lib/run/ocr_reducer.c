/* ocr_reducer.c - reduce7 on the caller's context, queue and buffer: built
 * once per reducer (and shared by reducers built alike, ocr_program_cache.c),
 * in the tune cache's geometry when there is one, passes planned by
 * ocr_plan_make down to one value on the device, scratch kept between calls.
 * A call costs its argument checks and the commands of its plan (one launch
 * and the read where the device finishes in one launch): no allocation, no
 * sub-buffer (the kernel takes the offsets), and events only where a caller,
 * another queue or an out-of-order one needs them. Like the whole library it
 * prints nothing; every message of a call is also captured
 * (ocr_capture_begin) into the reducer's last-error text. */
#include "ocr_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct readback readback;

struct ocr_reducer {
    cl_context ctx; /* retained */
    cl_device_id device;
    ocr_device dev; /* its info, for the build; the context borrowed */
    ocr_type type;
    ocr_op op;
    size_t es; /* element size */
    ocr_kernel *k;
    cl_mem scratch[2]; /* the passes' outputs, ping-pong (the last pass writes the result) */
    uint64_t scratch_n[2];
    const readback *rb;   /* how the blocking call brings its value to the host */
    cl_mem result;        /* one element, for the blocking call */
    cl_mem stage;         /* "pinned": host memory the value is read into */
    void *host;           /* "pinned", "direct": the mapped element */
    cl_command_queue own; /* "pinned", "direct": the queue of the one map and unmap */
    cl_command_queue q;   /* the last queue checked (retained: its address stays its own) */
    int q_ooo;            /* ... executes out of order */
    cl_event last;      /* the previous call's last command, which the next may need to wait for */
    int last_elsewhere; /* ... enqueued on another queue than q */
    cl_event *wl;       /* a call's wait list when it joins the caller's and last */
    cl_uint wl_cap;
    char *err; /* the last call's message, NULL after a success */
};

/* The message of the calling thread's last failed ocr_reducer_create. */
static _Thread_local char create_error[1024];

const char *ocr_version(void) {
    return OCR_VERSION;
}

/* Keeps the captured text as r's message if the call failed. */
static void keep_error(char **slot, char *text, ocr_status st) {
    free(*slot);
    *slot = NULL;
    if (st == OCR_OK) {
        free(text);
        return;
    }
    *slot = text ? text : malloc(sizeof "unknown error (no message)");
    if (!text && *slot)
        memcpy(*slot, "unknown error (no message)", sizeof "unknown error (no message)");
}

/* ---- the blocking call's value: how it reaches the host --------------------- */

/* The value of the command whose event is `ev` (NULL: the last one enqueued
 * on the in-order queue q) into *value; *keep: a command still running that
 * the next call must wait for, or NULL. */
typedef ocr_status (*fetch_fn)(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep);

/* $OCLREDUCTION_READBACK picks a row (docs/library.md): "read" is the
 * default; the others are there to be measured (tools/bench_latency.sh,
 * docs/benchmarks.md "Application latency"). */
struct readback {
    const char *name;
    cl_mem_flags result_flags; /* CL_MEM_ALLOC_HOST_PTR: the kernel writes host-visible memory */
    int stage;                 /* a pinned element to read into, mapped once */
    int map_result;            /* the result itself mapped once */
    int wait_kernel;           /* the last kernel's event is waited for */
    fetch_fn fetch;
};

static cl_uint n_of(cl_event ev) {
    return ev ? 1 : 0;
}
static const cl_event *list_of(const cl_event *ev) {
    return *ev ? ev : NULL;
}

/* A blocking read of the one element. */
static ocr_status fetch_read(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                             cl_event *keep) {
    ocr_status st = OCR_OK;
    *keep = NULL;
    OCR_CL(
        clEnqueueReadBuffer(q, r->result, CL_TRUE, 0, r->es, value, n_of(ev), list_of(&ev), NULL));
fail:
    return st;
}

/* A read into pinned memory, its event waited for. */
static ocr_status fetch_pinned(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep) {
    ocr_status st = OCR_OK;
    cl_event rd = NULL;
    *keep = NULL;
    OCR_CL(clEnqueueReadBuffer(q, r->result, CL_FALSE, 0, r->es, r->host, n_of(ev), list_of(&ev),
                               &rd));
    OCR_CL(clWaitForEvents(1, &rd));
    memcpy(value, r->host, r->es);
fail:
    if (rd) clReleaseEvent(rd);
    return st;
}

/* The read into pinned memory, flushed and its event polled (no sleep) for up
 * to a millisecond, then waited for: a thread that blocks may wake late. */
static ocr_status fetch_spin(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                             cl_event *keep) {
    ocr_status st = OCR_OK;
    cl_event rd = NULL;
    cl_int s = CL_QUEUED;
    *keep = NULL;
    OCR_CL(clEnqueueReadBuffer(q, r->result, CL_FALSE, 0, r->es, r->host, n_of(ev), list_of(&ev),
                               &rd));
    OCR_CL(clFlush(q));
    for (uint64_t t0 = ocr_now_ns(); s > CL_COMPLETE && ocr_now_ns() - t0 < 1000000;)
        OCR_CL(clGetEventInfo(rd, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    if (s != CL_COMPLETE) OCR_CL(clWaitForEvents(1, &rd)); /* still running, or failed */
    memcpy(value, r->host, r->es);
fail:
    if (rd) clReleaseEvent(rd);
    return st;
}

/* The kernel wrote host-visible memory: map it (no copy where the device
 * shares the host's memory), read, unmap. */
static ocr_status fetch_map(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                            cl_event *keep) {
    ocr_status st = OCR_OK;
    cl_int err;
    *keep = NULL;
    void *p = clEnqueueMapBuffer(q, r->result, CL_TRUE, CL_MAP_READ, 0, r->es, n_of(ev),
                                 list_of(&ev), NULL, &err);
    OCR_CHECK(err, "clEnqueueMapBuffer");
    memcpy(value, p, r->es);
    OCR_CL(clEnqueueUnmapMemObject(q, r->result, p, 0, NULL, keep));
fail:
    return st;
}

/* The kernel wrote the mapped element itself; its event waited for. OpenCL
 * does not promise that a kernel's writes to a mapped buffer reach the
 * mapping: measured, never the default (docs/benchmarks.md). */
static ocr_status fetch_direct(ocr_reducer *r, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep) {
    ocr_status st = OCR_OK;
    (void)q;
    *keep = NULL;
    OCR_CL(clWaitForEvents(1, &ev));
    memcpy(value, r->host, r->es);
fail:
    return st;
}

static const readback readbacks[] = {
    {"read", 0, 0, 0, 0, fetch_read},
    {"pinned", 0, 1, 0, 0, fetch_pinned},
    {"spin", 0, 1, 0, 0, fetch_spin},
    {"map", CL_MEM_ALLOC_HOST_PTR, 0, 0, 0, fetch_map},
    {"direct", CL_MEM_ALLOC_HOST_PTR, 0, 1, 1, fetch_direct},
};
#define NREADBACKS (sizeof readbacks / sizeof readbacks[0])

/* The blocking call's result element, and host memory mapped once where the
 * row wants it (on a queue of the reducer's own, kept for the unmap). */
static ocr_status setup_readback(ocr_reducer *r) {
    ocr_status st = OCR_OK;
    cl_int err;
    const char *env = getenv("OCLREDUCTION_READBACK");
    size_t i = 0;
    while (env && *env && i < NREADBACKS && strcmp(env, readbacks[i].name))
        ++i;
    if (i == NREADBACKS) {
        ocr_errorf("OCLREDUCTION_READBACK=%s: expected read, pinned, spin, map or direct", env);
        return OCR_USAGE;
    }
    r->rb = &readbacks[env && *env ? i : 0];
    r->result = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | r->rb->result_flags, r->es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    if (!r->rb->stage && !r->rb->map_result) return OCR_OK;
    if (r->rb->stage) {
        r->stage =
            clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, r->es, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
    }
    r->own = clCreateCommandQueue(r->ctx, r->device, 0, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    r->host = clEnqueueMapBuffer(r->own, r->stage ? r->stage : r->result, CL_TRUE,
                                 CL_MAP_READ | CL_MAP_WRITE, 0, r->es, 0, NULL, NULL, &err);
    OCR_CHECK(err, "clEnqueueMapBuffer");
fail:
    return st;
}

static void release_readback(ocr_reducer *r) {
    if (r->host) {
        clEnqueueUnmapMemObject(r->own, r->stage ? r->stage : r->result, r->host, 0, NULL, NULL);
        clFinish(r->own);
    }
    if (r->own) clReleaseCommandQueue(r->own);
    if (r->stage) clReleaseMemObject(r->stage);
    if (r->result) clReleaseMemObject(r->result);
}

/* ---- create and release -------------------------------------------------------- */

/* The device must be one of the context's: say so, rather than leave it to a
 * CL_INVALID_DEVICE from the build. */
static ocr_status check_device(cl_context ctx, cl_device_id device) {
    ocr_status st = OCR_OK;
    cl_uint ndev = 0;
    cl_device_id *devs = NULL;
    OCR_CL(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof ndev, &ndev, NULL));
    if (!(devs = malloc((ndev ? ndev : 1) * sizeof *devs))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    OCR_CL(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, ndev * sizeof *devs, devs, NULL));
    cl_uint i = 0;
    while (i < ndev && devs[i] != device)
        ++i;
    if (i == ndev) {
        ocr_errorf("ocr_reducer_create: the device is not one of the context's %u device%s", ndev,
                   ndev == 1 ? "" : "s");
        st = OCR_USAGE;
    }
fail:
    free(devs);
    return st;
}

/* reduce7's request: the caller's geometry, else the tune cache's entry for
 * this device, driver, type and kernel source (ocr_tune.c), else the
 * built-in defaults. */
static ocr_build_request request(ocr_reducer *r, const ocr_reducer_options *opt) {
    ocr_build_request rq = {
        .spec = *ocr_kernel_find("reduce7"),
        .kernel_dir = opt ? opt->kernel_dir : NULL,
        .type = r->type,
        .op = r->op,
        .local_size = opt ? opt->local_size : 0,
        .groups = opt ? opt->groups : 0,
        .extra_options = opt ? opt->build_options : NULL,
    };
    ocr_tuning tu;
    char note[8]; /* why an entry was ignored: the CLI's to print, not the library's */
    if (!rq.local_size && !rq.groups && !(opt && opt->ignore_tuning) &&
        ocr_tune_lookup_ex(&r->dev, r->type, rq.kernel_dir, rq.kernel_dir == NULL, &tu, note,
                           sizeof note)) {
        rq.local_size = tu.local_size, rq.groups = tu.groups;
        rq.unroll = tu.unroll, rq.access = tu.access;
    }
    return rq;
}

static ocr_status create(cl_context ctx, cl_device_id device, ocr_type type, ocr_op op,
                         const ocr_reducer_options *opt, ocr_reducer *r) {
    ocr_status st = OCR_OK;
    if (!ctx || !device) {
        ocr_errorf("ocr_reducer_create: the context and the device must not be NULL");
        return OCR_USAGE;
    }
    if ((unsigned)type >= OCR_NTYPES || (unsigned)op >= OCR_NOPS) {
        ocr_errorf("ocr_reducer_create: unknown type (%d) or operator (%d)", (int)type, (int)op);
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(op, type)) {
        ocr_errorf("operator %s needs an integer type, not %s", ocr_op_name(op),
                   ocr_type_name(type));
        return OCR_USAGE;
    }
    if ((st = check_device(ctx, device)) != OCR_OK) return st;
    if ((st = ocr_device_wrap(ctx, device, &r->dev)) != OCR_OK) return st;
    OCR_CL(clRetainContext(ctx));
    r->ctx = ctx;
    OCR_CL(clRetainDevice(device));
    r->device = device;
    r->type = type;
    r->op = op;
    r->es = ocr_type_size(type);

    ocr_build_request rq = request(r, opt);
    int flags = (rq.kernel_dir ? 0 : OCR_BUILD_EMBEDDED) | OCR_BUILD_DISK_CACHE;
    if ((st = ocr_kernel_build_ex(&r->dev, &rq, flags, &r->k)) != OCR_OK) return st;
    st = setup_readback(r);
fail:
    return st;
}

ocr_status ocr_reducer_create(cl_context ctx, cl_device_id device, ocr_type type, ocr_op op,
                              const ocr_reducer_options *opt, ocr_reducer **out) {
    ocr_last_error_clear();
    int tok = ocr_capture_begin();
    ocr_status st = OCR_OK;
    ocr_reducer *r = NULL;
    if (!out) {
        ocr_errorf("ocr_reducer_create: out must not be NULL");
        st = OCR_USAGE;
    } else if (!(r = calloc(1, sizeof *r))) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
    } else {
        *out = NULL;
        st = create(ctx, device, type, op, opt, r);
    }
    char *text = ocr_capture_end(tok);
    create_error[0] = '\0';
    if (st != OCR_OK) {
        snprintf(create_error, sizeof create_error, "%s",
                 text ? text : "unknown error (no message)");
        ocr_reducer_release(r);
        r = NULL;
    }
    free(text);
    if (out) *out = r;
    return st;
}

void ocr_reducer_release(ocr_reducer *r) {
    if (!r) return;
    if (r->last) clReleaseEvent(r->last);
    if (r->q) clReleaseCommandQueue(r->q);
    release_readback(r);
    for (int i = 1; i >= 0; --i)
        if (r->scratch[i]) clReleaseMemObject(r->scratch[i]);
    ocr_kernel_release(r->k);
    if (r->device) clReleaseDevice(r->device);
    if (r->ctx) clReleaseContext(r->ctx);
    free(r->wl);
    free(r->err);
    free(r);
}

const char *ocr_reducer_last_error(const ocr_reducer *r) {
    if (!r) return create_error;
    return r->err ? r->err : "";
}

const ocr_geometry *ocr_reducer_geometry(const ocr_reducer *r) {
    return &r->k->geom;
}

/* ---- a call's checks ---------------------------------------------------------- */

/* The size in bytes of a buffer of the reducer's context. Asked at every call:
 * a buffer's address may come back as another's once the caller releases it. */
static ocr_status buffer_size(const ocr_reducer *r, cl_mem m, const char *what, size_t *size) {
    ocr_status st = OCR_OK;
    cl_context c = NULL;
    if (!m) {
        ocr_errorf("%s must not be NULL", what);
        return OCR_USAGE;
    }
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof *size, size, NULL));
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL));
    if (c != r->ctx) {
        ocr_errorf("%s belongs to another context than the reducer's", what);
        st = OCR_USAGE;
    }
fail:
    return st;
}

/* The queue: checked when it changes, then remembered (retained, so that the
 * check cannot go stale). Commands of the previous call on another queue are
 * waited for by the next call's first command. */
static ocr_status use_queue(ocr_reducer *r, cl_command_queue q) {
    ocr_status st = OCR_OK;
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    cl_command_queue_properties props = 0;
    if (q == r->q) return OCR_OK;
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL));
    if (qc != r->ctx || qd != r->device) {
        ocr_errorf("the queue belongs to another %s than the reducer's",
                   qc != r->ctx ? "context" : "device");
        return OCR_USAGE;
    }
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    OCR_CL(clRetainCommandQueue(q));
    if (r->q) clReleaseCommandQueue(r->q);
    r->q = q;
    r->q_ooo = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    r->last_elsewhere = r->last != NULL;
fail:
    return st;
}

/* Everything that can be refused before a command is enqueued. */
static ocr_status check_args(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                             uint64_t n, cl_mem result_buf, size_t result_offset, cl_uint num_wait,
                             const cl_event *wait) {
    ocr_status st;
    size_t size = 0, rsize = 0;
    if (n == 0) {
        ocr_errorf("nothing to reduce: n must be at least 1");
        return OCR_USAGE;
    }
    if (!q) {
        ocr_errorf("the queue must not be NULL");
        return OCR_USAGE;
    }
    if ((num_wait == 0) != (wait == NULL)) {
        ocr_errorf("the wait list and its length disagree (%u events, list %s)", num_wait,
                   wait ? "given" : "NULL");
        return OCR_USAGE;
    }
    if ((st = use_queue(r, q)) != OCR_OK ||
        (st = buffer_size(r, buf, "the input buffer", &size)) != OCR_OK ||
        (st = buffer_size(r, result_buf, "the result buffer", &rsize)) != OCR_OK)
        return st;
    uint64_t have = size / r->es;
    if (offset > have || n > have - offset) {
        ocr_errorf("elements [%llu, %llu + %llu) lie beyond the buffer, which holds %llu %s "
                   "values; a reduction over several buffers is not supported",
                   (unsigned long long)offset, (unsigned long long)offset, (unsigned long long)n,
                   (unsigned long long)have, ocr_type_name(r->type));
        return OCR_USAGE;
    }
    if (result_offset >= rsize / r->es) {
        ocr_errorf("the result buffer holds %zu bytes; one %s at element %zu needs %zu", rsize,
                   ocr_type_name(r->type), result_offset, (result_offset + 1) * r->es);
        return OCR_USAGE;
    }
    if ((offset || result_offset) && !r->k->offsets) {
        ocr_errorf("the reduce7.cl of kernel_dir takes no offsets (an older copy?): "
                   "offset and result_offset must be 0");
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* ---- a call's commands ---------------------------------------------------------- */

/* Scratch buffer i holds at least `need` elements (a larger n may need more). */
static ocr_status grow(ocr_reducer *r, int i, uint64_t need) {
    ocr_status st = OCR_OK;
    cl_int err;
    if (need <= r->scratch_n[i]) return OCR_OK;
    /* Commands still using the old buffer keep it alive until they finish. */
    if (r->scratch[i]) clReleaseMemObject(r->scratch[i]);
    r->scratch[i] = NULL, r->scratch_n[i] = 0;
    r->scratch[i] = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, need * r->es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    r->scratch_n[i] = need;
fail:
    return st;
}

/* The plan for n values, down to one, with its scratch buffers. */
static ocr_status plan_for(ocr_reducer *r, uint64_t n, ocr_plan *p) {
    ocr_status st;
    if (ocr_plan_make(&r->k->geom, n, 1, p) != OCR_OK) {
        ocr_errorf("cannot plan a reduction of %llu elements", (unsigned long long)n);
        return OCR_USAGE;
    }
    /* Pass i writes scratch[i % 2], except the last, which writes the result. */
    for (unsigned i = 0; i + 1 < p->npasses; ++i)
        if ((st = grow(r, (int)(i % 2), p->pass[i].n_out)) != OCR_OK) return st;
    return OCR_OK;
}

/* The first command's wait list: the caller's, and the previous call's last
 * command where queue order does not already put it first (it ran on another
 * queue, or this one runs out of order). No allocation, but when a caller's
 * list is longer than every one before. */
static ocr_status first_wait(ocr_reducer *r, cl_uint num_wait, const cl_event *wait, cl_uint *nw,
                             const cl_event **wl) {
    *nw = num_wait, *wl = wait;
    if (!r->last || (!r->last_elsewhere && !r->q_ooo)) return OCR_OK;
    if (num_wait == 0) {
        *nw = 1, *wl = &r->last;
        return OCR_OK;
    }
    if (num_wait + 1 > r->wl_cap) {
        cl_event *p = realloc(r->wl, (num_wait + 1) * sizeof *p);
        if (!p) {
            ocr_errorf("out of host memory");
            return OCR_NO_MEMORY;
        }
        r->wl = p, r->wl_cap = num_wait + 1;
    }
    memcpy(r->wl, wait, num_wait * sizeof *wait);
    r->wl[num_wait] = r->last;
    *nw = num_wait + 1, *wl = r->wl;
    return OCR_OK;
}

/* The passes over buf[offset...] into result[result_offset], the first
 * waiting for wl; *ev the last command's event when `want` (or when an
 * out-of-order queue chains them), else NULL. */
static ocr_status enqueue(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset, uint64_t n,
                          cl_mem result, size_t result_offset, cl_uint nw, const cl_event *wl,
                          int want, cl_event *ev) {
    ocr_status st = OCR_OK;
    ocr_plan p;
    cl_event evs[OCR_MAX_PASSES];
    unsigned nev = 0;
    *ev = NULL;
    want |= r->q_ooo;
    if (n == 1) { /* one value: itself */
        OCR_CL(clEnqueueCopyBuffer(q, buf, result, offset * r->es, result_offset * r->es, r->es, nw,
                                   wl, want ? ev : NULL));
        return OCR_OK;
    }
    if ((st = plan_for(r, n, &p)) != OCR_OK) return st;
    /* On an out-of-order queue each pass waits for the one before. */
    ocr_pass_io io = {.in = buf,
                      .scratch = {r->scratch[0], r->scratch[1]},
                      .last_out = result,
                      .num_wait = nw,
                      .wait = wl,
                      .chain = r->q_ooo,
                      .in_off = offset,
                      .out_off = result_offset,
                      .events = r->q_ooo ? 0
                                : want   ? 1
                                         : 2};
    st = ocr_passes_enqueue(q, r->k, &p, &io, evs, &nev);
    if (st == OCR_OK && nev) *ev = evs[--nev]; /* the last; the others released */
    while (nev)
        clReleaseEvent(evs[--nev]);
fail:
    return st;
}

/*
 * One call: the checks, then the commands, the first waiting for the caller's
 * list and where needed the previous call (scratch and the finish's counter
 * are shared). *ev: the last command's event when `want`, else NULL. After a
 * failure the commands already enqueued are waited for, so that none can
 * still write scratch when the next call runs, maybe on another queue.
 */
static ocr_status reduce_async(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                               uint64_t n, cl_mem result_buf, size_t result_offset,
                               cl_uint num_wait, const cl_event *wait, int want, cl_event *ev) {
    ocr_status st;
    cl_uint nw;
    const cl_event *wl;
    *ev = NULL;
    if ((st = check_args(r, q, buf, offset, n, result_buf, result_offset, num_wait, wait)) !=
            OCR_OK ||
        (st = first_wait(r, num_wait, wait, &nw, &wl)) != OCR_OK)
        return st;
    st = enqueue(r, q, buf, offset, n, result_buf, result_offset, nw, wl, want, ev);
    if (st != OCR_OK) {
        clFinish(q);
        return st;
    }
    if (r->last) clReleaseEvent(r->last);
    r->last = NULL, r->last_elsewhere = 0;
    return OCR_OK;
}

ocr_status ocr_reducer_reduce_into(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                   uint64_t n, cl_mem result_buf, size_t result_offset,
                                   cl_uint num_wait, const cl_event *wait, cl_event *done) {
    ocr_last_error_clear();
    if (!r) {
        ocr_errorf("the reducer must not be NULL");
        return OCR_USAGE;
    }
    int tok = ocr_capture_begin();
    cl_event ev = NULL;
    if (done) *done = NULL;
    ocr_status st =
        reduce_async(r, q, buf, offset, n, result_buf, result_offset, num_wait, wait, 1, &ev);
    if (st == OCR_OK) {
        r->last = ev; /* the next call may have to wait for it */
        if (done) clRetainEvent(ev), *done = ev;
    }
    keep_error(&r->err, ocr_capture_end(tok), st);
    return st;
}

ocr_status ocr_reducer_reduce_async(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                    uint64_t n, cl_mem result_buf, cl_uint num_wait,
                                    const cl_event *wait, cl_event *done) {
    return ocr_reducer_reduce_into(r, q, buf, offset, n, result_buf, 0, num_wait, wait, done);
}

ocr_status ocr_reducer_reduce(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                              uint64_t n, ocr_value *result) {
    ocr_last_error_clear();
    if (!r) {
        ocr_errorf("the reducer must not be NULL");
        return OCR_USAGE;
    }
    int tok = ocr_capture_begin();
    ocr_status st = OCR_OK;
    cl_event ev = NULL, keep = NULL;
    if (!result) {
        ocr_errorf("result must not be NULL");
        st = OCR_USAGE;
        goto fail;
    }
    memset(result, 0, sizeof *result);
    if ((st = reduce_async(r, q, buf, offset, n, r->result, 0, 0, NULL, r->rb->wait_kernel, &ev)) !=
        OCR_OK)
        goto fail;
    /* On an in-order queue the read follows the launch unasked (ev is NULL). */
    if ((st = r->rb->fetch(r, q, ev, result, &keep)) != OCR_OK) clFinish(q);
    r->last = keep, r->last_elsewhere = 0;
fail:
    if (ev) clReleaseEvent(ev);
    keep_error(&r->err, ocr_capture_end(tok), st);
    return st;
}
