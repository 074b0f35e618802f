/* ocr_readback.c - the reducer's blocking call and its value's way home: the
 * first row of the table that is a default for the device's type, "spin" on
 * a GPU (1-3 us less per call in four latency runs on an H100 and an H200),
 * "read" elsewhere (a CPU device would lose a core to the polling).
 *
 * The other rows exist to be measured (bench/drivers/latency.sh,
 * docs/perf/latency.md): only a lab build of this file (OCR_READBACK_LAB:
 * the archive oclreduction_lab, for bench/ and the tests, never installed)
 * has them, and $OCLREDUCTION_READBACK to pick one. */
#include "ocr_readback.h"

#include <stdlib.h>
#include <string.h>

typedef ocr_status (*fetch_fn)(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep);

struct ocr_readback_row {
    const char *name;
    cl_mem_flags result_flags; /* CL_MEM_ALLOC_HOST_PTR: the kernel writes host-visible memory */
    int stage;                 /* a pinned element to read into, mapped once */
    int map_result;            /* the result itself mapped once */
    int wait_kernel;           /* the last kernel's event is waited for */
    fetch_fn fetch;
    cl_device_type default_for; /* the device types this row is the default for */
};

static cl_uint n_of(cl_event ev) {
    return ev ? 1 : 0;
}
static const cl_event *list_of(const cl_event *ev) {
    return *ev ? ev : NULL;
}

/* A blocking read of the one element. */
static ocr_status fetch_read(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                             cl_event *keep) {
    ocr_status st = OCR_OK;
    *keep = NULL;
    OCR_CL(clEnqueueReadBuffer(q, rb->result, CL_TRUE, 0, rb->es, value, n_of(ev), list_of(&ev),
                               NULL));
fail:
    return st;
}

/* Flushes q and polls ev (no sleep) for up to a millisecond, then waits for
 * it: a thread that blocks may wake late. */
static ocr_status poll_event(cl_command_queue q, cl_event ev) {
    ocr_status st = OCR_OK;
    cl_int s = CL_QUEUED;
    OCR_CL(clFlush(q));
    for (uint64_t t0 = ocr_now_ns(); s > CL_COMPLETE && ocr_now_ns() - t0 < 1000000;)
        OCR_CL(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    if (s != CL_COMPLETE) OCR_CL(clWaitForEvents(1, &ev)); /* still running, or failed */
fail:
    return st;
}

/* The read into pinned memory behind ev, its event polled (else waited for). */
static ocr_status read_pinned(ocr_readback *rb, cl_command_queue q, cl_event ev, int poll,
                              void *value) {
    ocr_status st = OCR_OK;
    cl_event rd = NULL;
    OCR_CL(clEnqueueReadBuffer(q, rb->result, CL_FALSE, 0, rb->es, rb->host, n_of(ev), list_of(&ev),
                               &rd));
    if (poll)
        st = poll_event(q, rd);
    else
        OCR_CL(clWaitForEvents(1, &rd));
    if (st == OCR_OK) memcpy(value, rb->host, rb->es);
fail:
    if (rd) clReleaseEvent(rd);
    return st;
}

static ocr_status fetch_spin(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                             cl_event *keep) {
    *keep = NULL;
    return read_pinned(rb, q, ev, 1, value);
}

#ifdef OCR_READBACK_LAB
/* A read into pinned memory, its event waited for. */
static ocr_status fetch_pinned(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep) {
    *keep = NULL;
    return read_pinned(rb, q, ev, 0, value);
}

/* The read enqueued on the reducer's own queue behind the kernel's event,
 * into pinned memory, polled: whether a read on another queue than the
 * running kernel's escapes the slow read mode (docs/perf/latency.md). */
static ocr_status fetch_aside(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                              cl_event *keep) {
    ocr_status st = OCR_OK;
    cl_event rd = NULL;
    *keep = NULL;
    OCR_CL(clEnqueueReadBuffer(rb->own, rb->result, CL_FALSE, 0, rb->es, rb->host, n_of(ev),
                               list_of(&ev), &rd));
    OCR_CL(clFlush(q)); /* the kernel's queue too: the read waits for it */
    if ((st = poll_event(rb->own, rd)) != OCR_OK) goto fail;
    memcpy(value, rb->host, rb->es);
fail:
    if (st != OCR_OK) clFinish(rb->own); /* nothing of ours left to write the element */
    if (rd) clReleaseEvent(rd);
    return st;
}

/* The kernel's event waited for first, then a blocking read with nothing
 * left before it: whether the read after a pending kernel is what costs. */
static ocr_status fetch_wait(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                             cl_event *keep) {
    ocr_status st = OCR_OK;
    *keep = NULL;
    OCR_CL(clWaitForEvents(1, &ev));
    OCR_CL(clEnqueueReadBuffer(q, rb->result, CL_TRUE, 0, rb->es, value, 0, NULL, NULL));
fail:
    return st;
}

/* The kernel wrote host-visible memory: map it (no copy where the device
 * shares the host's memory), read, unmap (the next command on the in-order
 * queue waits for the unmap). poll: a non-blocking map, flushed and its
 * event polled as in fetch_spin; where the device writes host memory itself
 * the map copies nothing, so nothing but the kernel is waited for. */
static ocr_status map_read(ocr_readback *rb, cl_command_queue q, cl_event ev, int poll, void *value,
                           cl_event *keep) {
    ocr_status st = OCR_OK;
    cl_int err;
    cl_event mp = NULL;
    *keep = NULL;
    void *p = clEnqueueMapBuffer(q, rb->result, poll ? CL_FALSE : CL_TRUE, CL_MAP_READ, 0, rb->es,
                                 n_of(ev), list_of(&ev), poll ? &mp : NULL, &err);
    OCR_CHECK(err, "clEnqueueMapBuffer");
    if (poll && (st = poll_event(q, mp)) != OCR_OK) goto fail;
    memcpy(value, p, rb->es);
    OCR_CL(clEnqueueUnmapMemObject(q, rb->result, p, 0, NULL, keep));
fail:
    if (mp) clReleaseEvent(mp);
    return st;
}

static ocr_status fetch_map(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                            cl_event *keep) {
    return map_read(rb, q, ev, 0, value, keep);
}

static ocr_status fetch_mapspin(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                                cl_event *keep) {
    return map_read(rb, q, ev, 1, value, keep);
}

/* The kernel wrote the mapped element itself; its event waited for. OpenCL
 * does not promise that a kernel's writes to a mapped buffer reach the
 * mapping: measured, never the default (docs/perf/latency.md). */
static ocr_status fetch_direct(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                               cl_event *keep) {
    ocr_status st = OCR_OK;
    (void)q;
    *keep = NULL;
    OCR_CL(clWaitForEvents(1, &ev));
    memcpy(value, rb->host, rb->es);
fail:
    return st;
}
#endif

static const ocr_readback_row rows[] = {
    {"spin", 0, 1, 0, 0, fetch_spin, CL_DEVICE_TYPE_GPU},
    {"read", 0, 0, 0, 0, fetch_read, ~(cl_device_type)0},
#ifdef OCR_READBACK_LAB
    {"pinned", 0, 1, 0, 0, fetch_pinned, 0},
    {"map", CL_MEM_ALLOC_HOST_PTR, 0, 0, 0, fetch_map, 0},
    {"mapspin", CL_MEM_ALLOC_HOST_PTR, 0, 0, 0, fetch_mapspin, 0},
    {"direct", CL_MEM_ALLOC_HOST_PTR, 0, 1, 1, fetch_direct, 0},
    {"wait", 0, 0, 0, 1, fetch_wait, 0},
    {"aside", 0, 1, 0, 1, fetch_aside, 0},
#endif
};
#define NROWS (sizeof rows / sizeof rows[0])

#ifdef OCR_READBACK_LAB
/* The row $OCLREDUCTION_READBACK names in *i (NROWS: unset); OCR_USAGE for
 * a name that is not in the table. */
static ocr_status row_asked(size_t *i) {
    const char *env = getenv("OCLREDUCTION_READBACK");
    *i = NROWS;
    if (!env || !*env) return OCR_OK;
    for (*i = 0; *i < NROWS; ++*i)
        if (!strcmp(env, rows[*i].name)) return OCR_OK;
    ocr_errorf("OCLREDUCTION_READBACK=%s: expected read, pinned, spin, map, mapspin, direct, "
               "wait or aside",
               env);
    return OCR_USAGE;
}
#else
static ocr_status row_asked(size_t *i) {
    *i = NROWS; /* the shipped library: always the device type's default */
    return OCR_OK;
}
#endif

/* The result element, and host memory mapped once where the row wants it (on
 * a queue of the reducer's own, kept for the unmap). */
ocr_status ocr_readback_open(cl_context ctx, cl_device_id dev, size_t es, ocr_readback *rb) {
    cl_int err;
    cl_device_type type = 0;
    size_t i;
    memset(rb, 0, sizeof *rb);
    ocr_status st = row_asked(&i);
    if (st != OCR_OK) return st;
    if (i == NROWS) {
        OCR_CL(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL));
        for (i = 0; !(rows[i].default_for & type);) /* "read" is every type's */
            ++i;
    }
    rb->row = &rows[i];
    rb->es = es;
    rb->result = clCreateBuffer(ctx, CL_MEM_READ_WRITE | rb->row->result_flags, es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    if (!rb->row->stage && !rb->row->map_result) return OCR_OK;
    if (rb->row->stage) {
        rb->stage = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, es, NULL, &err);
        OCR_CHECK(err, "clCreateBuffer");
    }
    rb->own = clCreateCommandQueue(ctx, dev, 0, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    rb->host = clEnqueueMapBuffer(rb->own, rb->stage ? rb->stage : rb->result, CL_TRUE,
                                  CL_MAP_READ | CL_MAP_WRITE, 0, es, 0, NULL, NULL, &err);
    OCR_CHECK(err, "clEnqueueMapBuffer");
fail:
    return st;
}

const char *ocr_readback_row_name(size_t i) {
    return i < NROWS ? rows[i].name : NULL;
}

void ocr_readback_close(ocr_readback *rb) {
    if (rb->host) {
        clEnqueueUnmapMemObject(rb->own, rb->stage ? rb->stage : rb->result, rb->host, 0, NULL,
                                NULL);
        clFinish(rb->own);
    }
    if (rb->own) clReleaseCommandQueue(rb->own);
    if (rb->stage) clReleaseMemObject(rb->stage);
    if (rb->result) clReleaseMemObject(rb->result);
    memset(rb, 0, sizeof *rb);
}

int ocr_readback_wants_event(const ocr_readback *rb) {
    return rb->row->wait_kernel;
}

ocr_status ocr_readback_fetch(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                              cl_event *keep) {
    return rb->row->fetch(rb, q, ev, value, keep);
}
