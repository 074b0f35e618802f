/*
 * latency.c - what an application waits for: host wall time per call of the
 * reducer (include/oclreduction/ocr_reducer.h) with its input resident on the
 * device, beside the OpenCL platform's floor. bench/drivers/latency.sh runs it
 * round after round, alternating with bench/cub/cub_latency.cu, and prints the
 * table of docs/perf/latency.md.
 *
 *   ocr_latency [-p P] [-d D] [--kernel-dir DIR] [--sizes "10 16 20"] [--types "int float"]
 *               [-r REPS] [-w WARMUP] [--sides a,b,...] [--round R] [--reverse]
 *               [--rotate MIB] [--batch B] [--contexts K] [--local L] [--groups G]
 *               [--no-header] [--list-sides]
 *
 * -p takes a platform index or part of its name (any case), -d a device index
 * within it (default 0 and 0; $OCR_PLATFORM and $OCR_DEVICE when the options
 * are absent). Prints CSV rows (header: `columns`) on stdout, one per side,
 * type and size; the device, driver and progress on stderr. Exit 0 when every
 * value was right, 1 when one was wrong, 2 usage, 3 runtime.
 *
 * A call is timed on the host clock (CLOCK_MONOTONIC) from before its first
 * OpenCL command until its value is where the side puts it: in host memory
 * (blocking sides), or on the device with the completion event waited for
 * (async_wait), or per call of --batch calls back to back (async_tput, whose
 * REPS calls make REPS / B samples). Per size, each side runs WARMUP untimed
 * calls and then REPS timed ones in a row; the sides take turns in an order
 * that rotates with --round, and --reverse runs the sizes downwards, so that
 * drift falls on all alike. --contexts K repeats it all in K contexts of one
 * process (kept until the end; context k's rows have round R * K + k), to
 * tell a mode of the process from one of the context. --local and --groups
 * set the reducers' work-group size and groups of the first pass (their
 * options' local_size and groups; reduce_cu_groups keeps one per compute
 * unit), to compare geometries. The
 * row keeps the median, the spread (min, p10, p90, max) and the plan of the
 * reducer's call (passes, groups and work-group size of the first, whether it
 * finishes in one launch). Every value is checked against an exact reference:
 * the data are small integers, so float sums are exact too.
 *
 * The sides (--list-sides): the floors, a one-work-item kernel and its 4-byte
 * value brought home five ways (a blocking read; a read into pinned memory,
 * its event waited for or polled; a map of host-visible memory the kernel
 * wrote; the same memory kept mapped); the blocking reducer as an application
 * gets it (reduce: the library's read-back for the device, spin on a GPU), its
 * value brought home each way ($OCLREDUCTION_READBACK: reduce_read, _pinned,
 * _spin, _map, _mapspin, _direct, _wait: the kernel's event waited for before
 * the read, _aside: the read on the reducer's own queue), in two launches, with one group per
 * compute unit, or over
 * --rotate MiB of windows (not resident in the cache; these three with the
 * default read-back); and the
 * async reducer. To tell apart what makes a blocking read slow after the reducer's kernel: the
 * floor's write and read after a kernel as wide as the reducer's first pass (cl_floor_wide) and
 * with the reducer's per-group ticket (cl_floor_ticket), after one work-item busy for microseconds
 * (cl_floor_busy; its value read into pinned memory and polled, cl_floor_busy_spin, and the
 * same with the read enqueued before the kernel may start, cl_floor_busy_gate), after a wide
 * kernel reading the input (cl_floor_load); the
 * reducer's value copied by a one-work-item kernel before the read
 * (reduce_hop); and the blocking call's parts, the async call and a blocking
 * read, with a clFlush between them (async_flush_read) or not (async_read).
 */
/* The OpenCL 1.2 calls without deprecation warnings; ocr.h: the reducer, and
 * ocr_plan_make for the rows' plans. */
#define _POSIX_C_SOURCE          200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 32
#define MAX_REPS  100000
#define MAX_BATCH 1024

static const char columns[] =
    "round,side,type,log2n,reps,median_us,min_us,p10_us,p90_us,max_us,passes,groups,local,"
    "finish,correct";

/* The floor kernel writes `v` to p[0]: each call's value is new, so a stale
 * read is caught. */
static const char floor_src[] =
    "__kernel void one(__global uint *p, uint v) { p[0] = v; }\n"
    /* the floor over as many groups as the reducer's first pass at n (the
     * data are not read): does a wide kernel before the read cost more? */
    "__kernel void wide(__global uint *p, uint v) { if (get_global_id(0) == 0) p[0] = v; }\n"
    /* ... and with the reducer's ending: a ticket per group, the last group
     * writes the value and resets the counter */
    "__kernel void ticket(__global uint *p, uint v, volatile __global uint *t) {\n"
    "  __local uint last;\n"
    "  if (get_local_id(0) == 0) last = atomic_inc(t) == get_num_groups(0) - 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (last && get_local_id(0) == 0) { p[0] = v; atomic_xchg(t, 0u); }\n"
    "}\n"
    /* one work-item busy for `iters` steps before the write: a kernel as long
     * as the reducer's that touches no memory (the test is never true) */
    "__kernel void busy(__global uint *p, uint v, uint iters) {\n"
    "  uint x = v;\n"
    "  for (uint i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;\n"
    "  p[0] = x == 0u && iters == 0xffffffffu ? 1u : v;\n"
    "}\n"
    /* the wide floor reading the input as the reducer's first pass does (the
     * sum is used only by a test that is never true) */
    "__kernel void load(__global uint *p, uint v, __global const uint *x, ulong n) {\n"
    "  uint a = 0;\n"
    "  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) a += x[i];\n"
    "  if (get_global_id(0) == 0 || (a == 0x7fffffffu && v == 0xffffffffu)) p[0] = v;\n"
    "}\n"
    /* one value copied by a one-work-item kernel (reduce_hop) */
    "__kernel void hop(__global uint *d, __global const uint *s) { d[0] = s[0]; }\n";

typedef struct {
    cl_context cx;
    cl_device_id dev;
    cl_command_queue q;
    cl_program prog;
    cl_kernel one, wide, ticket, hop, busy, load;
    cl_mem tk;                              /* ticket's counter */
    cl_mem fl, stage, ahp, ahp_direct, res; /* floor output, pinned stage, host-visible, results */
    void *pinned, *direct;                  /* stage and ahp_direct, mapped once */
    ocr_type type;
    size_t es;
    cl_mem x;            /* the input */
    uint64_t n_alloc;    /* its elements: the largest n, at least --rotate MiB */
    uint64_t n, windows; /* this size, and how many windows of n --rotate cycles over */
    double *want;        /* the exact sum of each window */
    unsigned batch;
    double t_stop; /* when the value was where the side puts it */
} ctx;

/* ---- data ------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Element i: +-(1 + h mod K), K = 1024 for int, 4 for float: every partial sum
 * of a float reduction stays an exact integer (bench/cub/cub_latency.cu draws the
 * same values). */
static int value_at(ocr_type t, uint64_t i) {
    uint64_t h = splitmix64(i);
    int v = 1 + (int)((h >> 1) % (t == OCR_INT ? 1024u : 4u));
    return h & 1 ? -v : v;
}

static double as_double(ocr_type t, const ocr_value *v) {
    return t == OCR_INT ? (double)v->i : (double)v->f;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "ocr_latency: %s failed: %s\n", #call, ocr_cl_error_name(e_));         \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* ---- the sides ---------------------------------------------------------------- */

typedef struct side side;
typedef int (*run_fn)(ctx *c, const side *s, long call, double *value);

struct side {
    const char *name;
    run_fn run;
    int reducer;        /* 0: a floor (its value is the call's number) */
    const char *mode;   /* $OCLREDUCTION_READBACK of the reducer, NULL: the default */
    int cu_groups;      /* groups = compute units */
    int two_launches;   /* M = 1 in two launches (-cl-std=CL1.2 turns the finish off) */
    int rotate;         /* cycle over --rotate MiB of windows */
    int unpromised;     /* relies on what OpenCL does not promise: a wrong value is a
                           finding, marked in its row, not a failure of the run */
    ocr_reducer *r[2];  /* per type: int, float */
    const char *kernel; /* floor_wide: wide, ticket, busy or load (floor_src) */
    int how;            /* floor_wide: its read (floor_wide_run) */
};

static int launch_one(ctx *c, cl_mem out, long call, cl_event *ev) {
    size_t one = 1;
    cl_uint v = (cl_uint)call;
    TRY(clSetKernelArg(c->one, 0, sizeof out, &out));
    TRY(clSetKernelArg(c->one, 1, sizeof v, &v));
    TRY(clEnqueueNDRangeKernel(c->q, c->one, 1, NULL, &one, &one, 0, NULL, ev));
    return 0;
}

/* Polls an event until it completes: a wait that never sleeps. */
static int spin(cl_event ev) {
    cl_int status = CL_QUEUED;
    while (status > CL_COMPLETE)
        TRY(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    return status == CL_COMPLETE ? 0 : -1;
}

/* The floor: a one-work-item kernel and a blocking 4-byte read. */
static int floor_read(ctx *c, const side *s, long call, double *value) {
    cl_uint got = 0;
    (void)s;
    if (launch_one(c, c->fl, call, NULL)) return -1;
    TRY(clEnqueueReadBuffer(c->q, c->fl, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    c->t_stop = now_us();
    *value = got;
    return 0;
}

/* ... the read into pinned memory (ALLOC_HOST_PTR, mapped once), its event
 * waited for (or polled). */
static int floor_pinned_run(ctx *c, long call, double *value, int poll) {
    cl_event ev = NULL;
    if (launch_one(c, c->fl, call, NULL)) return -1;
    TRY(clEnqueueReadBuffer(c->q, c->fl, CL_FALSE, 0, 4, c->pinned, 0, NULL, &ev));
    if (poll) {
        TRY(clFlush(c->q));
        if (spin(ev)) return -1;
    } else {
        TRY(clWaitForEvents(1, &ev));
    }
    c->t_stop = now_us();
    clReleaseEvent(ev);
    *value = *(cl_uint *)c->pinned;
    return 0;
}
static int floor_pinned(ctx *c, const side *s, long call, double *value) {
    (void)s;
    return floor_pinned_run(c, call, value, 0);
}
static int floor_spin(ctx *c, const side *s, long call, double *value) {
    (void)s;
    return floor_pinned_run(c, call, value, 1);
}

/* ... the kernel writing an ALLOC_HOST_PTR buffer, mapped (blocking) to read. */
static int floor_map(ctx *c, const side *s, long call, double *value) {
    cl_int err;
    (void)s;
    if (launch_one(c, c->ahp, call, NULL)) return -1;
    cl_uint *p = clEnqueueMapBuffer(c->q, c->ahp, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err);
    TRY(err);
    c->t_stop = now_us();
    *value = *p;
    TRY(clEnqueueUnmapMemObject(c->q, c->ahp, p, 0, NULL, NULL));
    return 0;
}

/* ... the kernel writing an ALLOC_HOST_PTR buffer that stays mapped, read once
 * its event completes. OpenCL does not promise this (a kernel may not write a
 * mapped buffer): measured, every value checked. */
static int floor_direct(ctx *c, const side *s, long call, double *value) {
    cl_event ev = NULL;
    (void)s;
    if (launch_one(c, c->ahp_direct, call, &ev)) return -1;
    TRY(clWaitForEvents(1, &ev));
    c->t_stop = now_us();
    clReleaseEvent(ev);
    *value = *(volatile cl_uint *)c->direct;
    return 0;
}

/* Work-items and groups of the wide floors at n: 128-wide groups, a
 * work-item per 32 elements, at most 1056 groups (the reducer's first pass
 * at 2^14..2^22 on an H100). */
static void wide_geometry(const ctx *c, size_t *global, size_t *local) {
    uint64_t items = c->n / 32;
    *local = 128;
    items = items < *local ? *local : items > 1056 * 128 ? 1056 * 128 : items;
    *global = (size_t)(items / *local * *local);
}

/* The floor's value after a wide kernel (wide, ticket, busy, load): a
 * blocking read (how 0), or a read into pinned memory polled (1), enqueued
 * before the kernel may start: the kernel waits for a user event opened once
 * the read is enqueued (2). */
static int floor_wide_run(ctx *c, cl_kernel k, long call, double *value, int how) {
    size_t global, local;
    cl_uint v = (cl_uint)call, got = 0;
    wide_geometry(c, &global, &local);
    TRY(clSetKernelArg(k, 0, sizeof c->fl, &c->fl));
    TRY(clSetKernelArg(k, 1, sizeof v, &v));
    if (k == c->ticket) TRY(clSetKernelArg(k, 2, sizeof c->tk, &c->tk));
    if (k == c->load) {
        cl_ulong n = c->n;
        TRY(clSetKernelArg(k, 2, sizeof c->x, &c->x));
        TRY(clSetKernelArg(k, 3, sizeof n, &n));
    }
    if (k == c->busy) {
        cl_uint iters = 1024; /* a few microseconds */
        TRY(clSetKernelArg(k, 2, sizeof iters, &iters));
        global = local = 1;
    }
    cl_int err = CL_SUCCESS;
    cl_event gate = how == 2 ? clCreateUserEvent(c->cx, &err) : NULL, rd = NULL;
    TRY(err);
    TRY(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, gate ? 1 : 0, gate ? &gate : NULL,
                               NULL));
    if (!how) {
        TRY(clEnqueueReadBuffer(c->q, c->fl, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    } else {
        TRY(clEnqueueReadBuffer(c->q, c->fl, CL_FALSE, 0, 4, c->pinned, 0, NULL, &rd));
        if (gate) {
            TRY(clSetUserEventStatus(gate, CL_COMPLETE));
            clReleaseEvent(gate);
        }
        TRY(clFlush(c->q));
        if (spin(rd)) return -1;
        clReleaseEvent(rd);
        got = *(cl_uint *)c->pinned;
    }
    c->t_stop = now_us();
    *value = got;
    return 0;
}
/* The wide floors' side: its kernel (s->kernel) and its read (s->how). */
static int floor_wide(ctx *c, const side *s, long call, double *value) {
    cl_kernel k = !strcmp(s->kernel, "ticket") ? c->ticket
                  : !strcmp(s->kernel, "busy") ? c->busy
                  : !strcmp(s->kernel, "load") ? c->load
                                               : c->wide;
    return floor_wide_run(c, k, call, value, s->how);
}

static ocr_reducer *reducer_of(const ctx *c, const side *s) {
    return s->r[c->type == OCR_FLOAT];
}

static size_t window(const ctx *c, const side *s, long call) {
    return s->rotate ? (size_t)((uint64_t)call % c->windows * c->n) : 0;
}

static int ok(ocr_status st, const ocr_reducer *r) {
    if (st == OCR_OK) return 1;
    fprintf(stderr, "ocr_latency: %s\n", ocr_reducer_last_error(r));
    return 0;
}

/* The blocking call: the value in host memory. */
static int reduce_blocking(ctx *c, const side *s, long call, double *value) {
    ocr_value v;
    ocr_reducer *r = reducer_of(c, s);
    if (!ok(ocr_reducer_reduce(r, c->q, c->x, window(c, s, call), c->n, &v), r)) return -1;
    c->t_stop = now_us();
    *value = as_double(c->type, &v);
    return 0;
}

/* The async call, its completion event waited for: the value on the device
 * (read back untimed, for the check). */
static int async_wait(ctx *c, const side *s, long call, double *value) {
    ocr_reducer *r = reducer_of(c, s);
    cl_event done = NULL;
    if (!ok(ocr_reducer_reduce_async(r, c->q, c->x, window(c, s, call), c->n, c->res, 0, NULL,
                                     &done),
            r))
        return -1;
    TRY(clWaitForEvents(1, &done));
    c->t_stop = now_us();
    clReleaseEvent(done);
    ocr_value v;
    TRY(clEnqueueReadBuffer(c->q, c->res, CL_TRUE, 0, c->es, &v, 0, NULL, NULL));
    *value = as_double(c->type, &v);
    return 0;
}

/* The async call, then a one-work-item kernel copying its value to the
 * floor's buffer, and the floor's blocking read: is the read after the
 * reducer's kernel what is slow, or the reducer? */
static int reduce_hop(ctx *c, const side *s, long call, double *value) {
    ocr_reducer *r = reducer_of(c, s);
    size_t one = 1;
    ocr_value v;
    memset(&v, 0, sizeof v);
    (void)call;
    if (!ok(ocr_reducer_reduce_async(r, c->q, c->x, window(c, s, call), c->n, c->res, 0, NULL,
                                     NULL),
            r))
        return -1;
    TRY(clSetKernelArg(c->hop, 0, sizeof c->fl, &c->fl));
    TRY(clSetKernelArg(c->hop, 1, sizeof c->res, &c->res));
    TRY(clEnqueueNDRangeKernel(c->q, c->hop, 1, NULL, &one, &one, 0, NULL, NULL));
    TRY(clEnqueueReadBuffer(c->q, c->fl, CL_TRUE, 0, 4, &v, 0, NULL, NULL));
    c->t_stop = now_us();
    *value = as_double(c->type, &v);
    return 0;
}

/* The async call (no event), then a blocking read of its value, with a
 * clFlush between them or not: does the blocking call differ from its parts? */
static int async_read_run(ctx *c, const side *s, long call, double *value, int flush) {
    ocr_reducer *r = reducer_of(c, s);
    ocr_value v;
    memset(&v, 0, sizeof v);
    if (!ok(ocr_reducer_reduce_async(r, c->q, c->x, window(c, s, call), c->n, c->res, 0, NULL,
                                     NULL),
            r))
        return -1;
    if (flush) TRY(clFlush(c->q));
    TRY(clEnqueueReadBuffer(c->q, c->res, CL_TRUE, 0, c->es, &v, 0, NULL, NULL));
    c->t_stop = now_us();
    *value = as_double(c->type, &v);
    return 0;
}
static int async_read(ctx *c, const side *s, long call, double *value) {
    return async_read_run(c, s, call, value, 0);
}
static int async_flush_read(ctx *c, const side *s, long call, double *value) {
    return async_read_run(c, s, call, value, 1);
}

/* --batch async calls back to back, each into its own element of one buffer
 * (ocr_reducer_reduce_into), the last one's event waited for. */
static int async_tput(ctx *c, const side *s, long call, double *value) {
    ocr_reducer *r = reducer_of(c, s);
    cl_event done = NULL;
    for (unsigned b = 0; b < c->batch; ++b)
        if (!ok(ocr_reducer_reduce_into(r, c->q, c->x, window(c, s, call), c->n, c->res, b, 0, NULL,
                                        b + 1 == c->batch ? &done : NULL),
                r))
            return -1;
    TRY(clWaitForEvents(1, &done));
    c->t_stop = now_us();
    clReleaseEvent(done);
    ocr_value v;
    TRY(clEnqueueReadBuffer(c->q, c->res, CL_TRUE, (c->batch - 1) * c->es, c->es, &v, 0, NULL,
                            NULL));
    *value = as_double(c->type, &v);
    return 0;
}

static side sides[] = {
    {"cl_floor", floor_read, 0, NULL, 0, 0, 0, 0, {0}, NULL, 0},
    {"cl_floor_pinned", floor_pinned, 0, NULL, 0, 0, 0, 0, {0}, NULL, 0},
    {"cl_floor_spin", floor_spin, 0, NULL, 0, 0, 0, 0, {0}, NULL, 0},
    {"cl_floor_map", floor_map, 0, NULL, 0, 0, 0, 0, {0}, NULL, 0},
    {"cl_floor_direct", floor_direct, 0, NULL, 0, 0, 0, 1, {0}, NULL, 0},
    {"cl_floor_wide", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "wide", 0},
    {"cl_floor_ticket", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "ticket", 0},
    {"cl_floor_busy", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "busy", 0},
    {"cl_floor_busy_spin", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "busy", 1},
    {"cl_floor_busy_gate", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "busy", 2},
    {"cl_floor_load", floor_wide, 0, NULL, 0, 0, 0, 0, {0}, "load", 0},
    {"reduce", reduce_blocking, 1, NULL, 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_read", reduce_blocking, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_pinned", reduce_blocking, 1, "pinned", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_map", reduce_blocking, 1, "map", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_mapspin", reduce_blocking, 1, "mapspin", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_direct", reduce_blocking, 1, "direct", 0, 0, 0, 1, {0}, NULL, 0},
    {"reduce_spin", reduce_blocking, 1, "spin", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_wait", reduce_blocking, 1, "wait", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_aside", reduce_blocking, 1, "aside", 0, 0, 0, 0, {0}, NULL, 0},
    {"reduce_two_launches", reduce_blocking, 1, NULL, 0, 1, 0, 0, {0}, NULL, 0},
    {"reduce_cu_groups", reduce_blocking, 1, NULL, 1, 0, 0, 0, {0}, NULL, 0},
    {"reduce_cold", reduce_blocking, 1, NULL, 0, 0, 1, 0, {0}, NULL, 0},
    {"reduce_hop", reduce_hop, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
    {"async_read", async_read, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
    {"async_flush_read", async_flush_read, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
    {"async_wait", async_wait, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
    {"async_tput", async_tput, 1, "read", 0, 0, 0, 0, {0}, NULL, 0},
};
#define NSIDES (sizeof sides / sizeof sides[0])

/* ---- one side at one size ------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *sorted, unsigned n, double p) {
    return sorted[(unsigned)(p * (n - 1) + 0.5)];
}

/* WARMUP untimed calls, then REPS timed ones, and the row. 0, 1 when a value
 * was wrong, -1 when a call failed. */
static int run_side(ctx *c, side *s, unsigned reps, unsigned warm, int round, double *t) {
    int wrong = 0;
    unsigned k = 0;
    if (s->run == async_tput) { /* as many reductions as the others: a sample is a batch */
        warm = (warm + c->batch - 1) / c->batch;
        reps = (reps + c->batch - 1) / c->batch;
    }
    for (long call = 0; call < (long)(warm + reps); ++call) {
        double value = 0, t0 = now_us();
        if (s->run(c, s, call, &value)) return -1;
        double want = s->reducer ? c->want[s->rotate ? (uint64_t)call % c->windows : 0]
                                 : (double)(cl_uint)call;
        if (value != want && !wrong)
            fprintf(stderr, "ocr_latency: %s %s n=%llu call %ld: %.17g, expected %.17g\n", s->name,
                    ocr_type_name(c->type), (unsigned long long)c->n, call, value, want);
        wrong |= value != want;
        if (call >= (long)warm) t[k++] = (c->t_stop - t0) / (s->run == async_tput ? c->batch : 1);
    }
    qsort(t, k, sizeof *t, cmp_double);
    ocr_plan p;
    memset(&p, 0, sizeof p);
    if (s->reducer) ocr_reducer_plan(reducer_of(c, s), c->n, s->run == reduce_blocking, &p);
    printf("%d,%s,%s,%d,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%llu,%llu,%d,%d\n", round, s->name,
           ocr_type_name(c->type), 63 - __builtin_clzll(c->n), k, pct(t, k, 0.5), t[0],
           pct(t, k, 0.1), pct(t, k, 0.9), t[k - 1], p.npasses,
           (unsigned long long)(p.npasses ? p.pass[0].groups : 0),
           (unsigned long long)(p.npasses ? p.pass[0].local_size : 0),
           p.npasses ? p.pass[0].finish : 0, !wrong);
    fflush(stdout);
    return wrong && !s->unpromised;
}

/* ---- set-up ---------------------------------------------------------------------- */

typedef struct {
    const char *platform, *kernel_dir;
    int device;
    unsigned nsizes, sizes[MAX_SIZES], reps, warm, batch, rotate_mib, contexts;
    unsigned local, groups; /* the reducers' work-group size and groups, 0: the library's */
    ocr_type types[2];
    unsigned ntypes;
    int round, reverse, header;
    unsigned char use[NSIDES];
} options;

/* -p: an index, or part of a platform's name (any case). */
static int pick_platform(const char *want, cl_platform_id *out) {
    cl_platform_id ps[16];
    cl_uint np = 0;
    TRY(clGetPlatformIDs(16, ps, &np));
    char *end;
    long i = strtol(want, &end, 10);
    if (!*end && i >= 0 && i < (long)np) return *out = ps[i], 0;
    for (cl_uint p = 0; p < np; ++p) {
        char name[256], a[256], b[256];
        TRY(clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
        size_t j = 0;
        for (; name[j] && j + 1 < sizeof a; ++j)
            a[j] = (char)tolower((unsigned char)name[j]);
        a[j] = '\0';
        for (j = 0; want[j] && j + 1 < sizeof b; ++j)
            b[j] = (char)tolower((unsigned char)want[j]);
        b[j] = '\0';
        if (strstr(a, b)) return *out = ps[p], 0;
    }
    fprintf(stderr, "ocr_latency: no platform %s among %u\n", want, np);
    return -1;
}

static int open_device(ctx *c, const options *o) {
    cl_platform_id p;
    cl_device_id devs[16];
    cl_uint nd = 0;
    cl_int err;
    char name[256], driver[128], pname[256];
    if (pick_platform(o->platform, &p)) return -1;
    TRY(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 16, devs, &nd));
    if (o->device < 0 || (cl_uint)o->device >= nd) {
        fprintf(stderr, "ocr_latency: no device %d on that platform (%u)\n", o->device, nd);
        return -1;
    }
    c->dev = devs[o->device];
    TRY(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname, pname, NULL));
    TRY(clGetDeviceInfo(c->dev, CL_DEVICE_NAME, sizeof name, name, NULL));
    TRY(clGetDeviceInfo(c->dev, CL_DRIVER_VERSION, sizeof driver, driver, NULL));
    fprintf(stderr, "ocr_latency: device: %s, %s, driver %s, oclreduction %s\n", pname, name,
            driver, ocr_version());
    c->cx = clCreateContext(NULL, 1, &c->dev, NULL, NULL, &err);
    TRY(err);
    c->q = clCreateCommandQueue(c->cx, c->dev, 0, &err);
    TRY(err);
    const char *src = floor_src;
    c->prog = clCreateProgramWithSource(c->cx, 1, &src, NULL, &err);
    TRY(err);
    TRY(clBuildProgram(c->prog, 1, &c->dev, "", NULL, NULL));
    c->one = clCreateKernel(c->prog, "one", &err);
    TRY(err);
    c->wide = clCreateKernel(c->prog, "wide", &err);
    TRY(err);
    c->ticket = clCreateKernel(c->prog, "ticket", &err);
    TRY(err);
    c->hop = clCreateKernel(c->prog, "hop", &err);
    TRY(err);
    c->busy = clCreateKernel(c->prog, "busy", &err);
    TRY(err);
    c->load = clCreateKernel(c->prog, "load", &err);
    TRY(err);
    return 0;
}

/* The floors' buffers, and results for --batch async calls. */
static int floor_buffers(ctx *c) {
    cl_int err;
    const cl_mem_flags ah = CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
    c->fl = clCreateBuffer(c->cx, CL_MEM_READ_WRITE, 4, NULL, &err);
    TRY(err);
    cl_uint zero = 0;
    c->tk = clCreateBuffer(c->cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &zero, &err);
    TRY(err);
    c->stage = clCreateBuffer(c->cx, ah, 8, NULL, &err);
    TRY(err);
    c->ahp = clCreateBuffer(c->cx, ah, 4, NULL, &err);
    TRY(err);
    c->ahp_direct = clCreateBuffer(c->cx, ah, 4, NULL, &err);
    TRY(err);
    c->res = clCreateBuffer(c->cx, CL_MEM_READ_WRITE, MAX_BATCH * 8, NULL, &err);
    TRY(err);
    c->pinned = clEnqueueMapBuffer(c->q, c->stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 8, 0,
                                   NULL, NULL, &err);
    TRY(err);
    c->direct = clEnqueueMapBuffer(c->q, c->ahp_direct, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 4,
                                   0, NULL, NULL, &err);
    TRY(err);
    return 0;
}

/* The input of one type on the device, its host copy kept for the references. */
static int load_data(ctx *c, void **host) {
    cl_int err;
    *host = malloc(c->n_alloc * c->es);
    if (!*host) {
        fprintf(stderr, "ocr_latency: out of host memory\n");
        return -1;
    }
    for (uint64_t i = 0; i < c->n_alloc; ++i) {
        int v = value_at(c->type, i);
        if (c->type == OCR_INT)
            ((cl_int *)*host)[i] = v;
        else
            ((cl_float *)*host)[i] = (cl_float)v;
    }
    c->x = clCreateBuffer(c->cx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, c->n_alloc * c->es, *host,
                          &err);
    TRY(err);
    return 0;
}

/* The reducers of the chosen sides, for this type (their builds untimed). */
static int make_reducers(ctx *c, const options *o) {
    cl_uint cus = 0;
    double first = -1, next = 0;
    unsigned made = 0;
    TRY(clGetDeviceInfo(c->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    for (size_t i = 0; i < NSIDES; ++i) {
        side *s = &sides[i];
        if (!o->use[i] || !s->reducer) continue;
        ocr_reducer_options ro = {.kernel_dir = o->kernel_dir,
                                  .local_size = o->local,
                                  .groups = s->cu_groups ? cus : o->groups,
                                  .build_options = s->two_launches ? "-cl-std=CL1.2" : NULL};
        if (s->mode)
            setenv("OCLREDUCTION_READBACK", s->mode, 1);
        else
            unsetenv("OCLREDUCTION_READBACK"); /* the library's default for the device */
        ocr_reducer **r = &s->r[c->type == OCR_FLOAT];
        double t0 = now_us();
        if (!ok(ocr_reducer_create(c->cx, c->dev, c->type, OCR_SUM, &ro, r), NULL)) return -1;
        double ms = (now_us() - t0) / 1e3;
        if (first < 0)
            first = ms;
        else if (!s->cu_groups && !ro.build_options) /* the same program as the first */
            next = made++ && next < ms ? next : ms;
    }
    unsetenv("OCLREDUCTION_READBACK");
    fprintf(stderr, "ocr_latency: create: %s: first %.3f ms, then %.3f ms (fastest of %u alike)\n",
            ocr_type_name(c->type), first, next, made);
    return 0;
}

/* This size's windows and their exact sums (those the calls will use). */
static int set_size(ctx *c, const void *host, unsigned log2n, unsigned calls, int rotate) {
    c->n = (uint64_t)1 << log2n;
    c->windows = rotate ? c->n_alloc / c->n : 1;
    uint64_t used = c->windows < calls ? c->windows : calls;
    free(c->want);
    if (!(c->want = malloc(used * sizeof *c->want))) return -1;
    for (uint64_t w = 0; w < used; ++w) {
        int64_t sum = 0;
        for (uint64_t i = w * c->n; i < (w + 1) * c->n; ++i)
            sum += c->type == OCR_INT ? ((const cl_int *)host)[i]
                                      : (int64_t)((const cl_float *)host)[i];
        c->want[w] = c->type == OCR_INT ? (double)(cl_int)(uint32_t)sum : (double)sum;
    }
    return 0;
}

/* Every chosen side at every size of one type. 0, 1 (a wrong value) or -1. */
static int run_type(ctx *c, const options *o, double *t) {
    void *host = NULL;
    int wrong = 0, rotate = 0;
    unsigned maxlog = 0;
    for (unsigned i = 0; i < o->nsizes; ++i)
        maxlog = o->sizes[i] > maxlog ? o->sizes[i] : maxlog;
    for (size_t i = 0; i < NSIDES; ++i)
        rotate |= o->use[i] && sides[i].rotate;
    c->es = ocr_type_size(c->type);
    c->n_alloc = (uint64_t)1 << maxlog;
    if (rotate && c->n_alloc < ((uint64_t)o->rotate_mib << 20) / c->es)
        c->n_alloc = ((uint64_t)o->rotate_mib << 20) / c->es;
    if (load_data(c, &host) || make_reducers(c, o)) wrong = -1;
    for (unsigned k = 0; k < o->nsizes && wrong >= 0; ++k) {
        unsigned log2n = o->sizes[o->reverse ? o->nsizes - 1 - k : k];
        if (set_size(c, host, log2n, o->warm + o->reps, rotate)) wrong = -1;
        fprintf(stderr, "ocr_latency: %s 2^%u\n", ocr_type_name(c->type), log2n);
        for (size_t j = 0; j < NSIDES && wrong >= 0; ++j) {
            size_t i = (j + (size_t)o->round) % NSIDES; /* the order rotates by round */
            if (!o->use[i]) continue;
            int rc = run_side(c, &sides[i], o->reps, o->warm, o->round, t);
            wrong = rc < 0 ? -1 : wrong | rc;
        }
    }
    for (size_t i = 0; i < NSIDES; ++i) {
        ocr_reducer_release(sides[i].r[c->type == OCR_FLOAT]);
        sides[i].r[c->type == OCR_FLOAT] = NULL;
    }
    if (c->x) clReleaseMemObject(c->x);
    c->x = NULL;
    free(host);
    return wrong;
}

/* ---- options --------------------------------------------------------------------- */

static int usage(void) {
    fprintf(stderr,
            "usage: ocr_latency [-p P] [-d D] [--kernel-dir DIR] [--sizes \"10 16 20\"]\n"
            "                   [--types \"int float\"] [-r REPS] [-w WARMUP] [--sides a,b,...]\n"
            "                   [--round R] [--reverse] [--rotate MIB] [--batch B] [--no-header]\n"
            "                   [--contexts K] [--local L] [--groups G] [--list-sides]\n");
    return 2;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = (unsigned)v;
    return 0;
}

/* A list of numbers or names, blank- or comma-separated, each checked by `one`. */
static int parse_list(const char *s, int (*one)(const char *w, options *o), options *o) {
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *w = strtok_r(buf, " ,", &save); w; w = strtok_r(NULL, " ,", &save), ++n)
        if (one(w, o)) return -1;
    return n ? 0 : -1;
}
static int one_size(const char *w, options *o) {
    return o->nsizes == MAX_SIZES || parse_uint(w, 1, 31, &o->sizes[o->nsizes++]);
}
static int one_type(const char *w, options *o) {
    if (o->ntypes == 2 || (strcmp(w, "int") && strcmp(w, "float"))) return -1;
    o->types[o->ntypes++] = strcmp(w, "int") ? OCR_FLOAT : OCR_INT;
    return 0;
}
static int one_side(const char *w, options *o) {
    for (size_t i = 0; i < NSIDES; ++i)
        if (!strcmp(w, sides[i].name)) return o->use[i] = 1, 0;
    fprintf(stderr, "ocr_latency: no side %s (--list-sides)\n", w);
    return -1;
}

static int parse(int argc, char **argv, options *o) {
    const char *env_p = getenv("OCR_PLATFORM"), *env_d = getenv("OCR_DEVICE");
    unsigned dev = 0;
    *o = (options){.platform = env_p && *env_p ? env_p : "0",
                   .reps = 300,
                   .warm = 30,
                   .batch = 16,
                   .rotate_mib = 256,
                   .contexts = 1,
                   .header = 1};
    if (env_d && *env_d && parse_uint(env_d, 0, 64, &dev)) return usage();
    o->device = (int)dev;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
        if (!strcmp(a, "-p") && v)
            o->platform = v;
        else if (!strcmp(a, "-d") && v)
            bad = parse_uint(v, 0, 64, &dev), o->device = (int)dev;
        else if (!strcmp(a, "--kernel-dir") && v)
            o->kernel_dir = v;
        else if (!strcmp(a, "--sizes") && v)
            o->nsizes = 0, bad = parse_list(v, one_size, o);
        else if (!strcmp(a, "--types") && v)
            o->ntypes = 0, bad = parse_list(v, one_type, o);
        else if (!strcmp(a, "--sides") && v)
            memset(o->use, 0, sizeof o->use), bad = parse_list(v, one_side, o);
        else if (!strcmp(a, "-r") && v)
            bad = parse_uint(v, 1, MAX_REPS, &o->reps);
        else if (!strcmp(a, "-w") && v)
            bad = parse_uint(v, 0, MAX_REPS, &o->warm);
        else if (!strcmp(a, "--batch") && v)
            bad = parse_uint(v, 1, MAX_BATCH, &o->batch);
        else if (!strcmp(a, "--contexts") && v)
            bad = parse_uint(v, 1, 64, &o->contexts);
        else if (!strcmp(a, "--local") && v)
            bad = parse_uint(v, 1, 1 << 16, &o->local);
        else if (!strcmp(a, "--groups") && v)
            bad = parse_uint(v, 1, 1 << 24, &o->groups);
        else if (!strcmp(a, "--rotate") && v)
            bad = parse_uint(v, 1, 1 << 16, &o->rotate_mib);
        else if (!strcmp(a, "--round") && v) {
            unsigned r;
            bad = parse_uint(v, 0, 1 << 20, &r), o->round = (int)r;
        } else if ((takes = 0), !strcmp(a, "--reverse"))
            o->reverse = 1;
        else if (!strcmp(a, "--no-header"))
            o->header = 0;
        else if (!strcmp(a, "--list-sides")) {
            for (size_t s = 0; s < NSIDES; ++s)
                printf("%s\n", sides[s].name);
            exit(0);
        } else
            return fprintf(stderr, "ocr_latency: bad option %s\n", a), usage();
        if (bad) return fprintf(stderr, "ocr_latency: bad value for %s: %s\n", a, v), usage();
        i += takes;
    }
    static const unsigned dflt[] = {10, 12, 14, 16, 18, 20, 21, 22, 23, 24, 26, 28};
    if (!o->nsizes) memcpy(o->sizes, dflt, sizeof dflt), o->nsizes = sizeof dflt / sizeof *dflt;
    if (!o->ntypes) o->types[0] = OCR_INT, o->types[1] = OCR_FLOAT, o->ntypes = 2;
    size_t any = 0;
    for (size_t s = 0; s < NSIDES; ++s)
        any |= o->use[s];
    if (!any) memset(o->use, 1, sizeof o->use);
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse(argc, argv, &o), wrong = 0;
    if (rc) return rc;
    double *t = malloc((o.reps + 1) * sizeof *t);
    ctx *cs = calloc(o.contexts, sizeof *cs);
    if (!t || !cs) return 3;
    if (o.header) printf("%s\n", columns);
    /* --contexts K: K contexts one after another, each kept (with its
     * buffers) until the end, so that they coexist; context k's rows carry
     * round R * K + k. */
    int round = o.round;
    for (unsigned k = 0; k < o.contexts && wrong >= 0; ++k) {
        ctx *c = &cs[k];
        c->batch = o.batch;
        o.round = round * (int)o.contexts + (int)k;
        if (open_device(c, &o) || floor_buffers(c)) return 3;
        for (unsigned i = 0; i < o.ntypes && wrong >= 0; ++i) {
            c->type = o.types[i];
            int w = run_type(c, &o, t);
            wrong = w < 0 ? -1 : wrong | w;
        }
        free(c->want);
    }
    free(t);
    free(cs);
    return wrong < 0 ? 3 : wrong;
}
