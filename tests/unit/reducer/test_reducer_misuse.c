/*
 * test_reducer_misuse.c - a reducer misused is refused (OCR_USAGE), never a
 * crash or a wrong value (host/lib/reducer/ocr_reducer_guard.c).
 *
 *   test_reducer_misuse threads    4 threads call one reducer at once, each
 *                                  on its own queue and data, retrying until
 *                                  60 calls each succeeded (the reducer passes
 *                                  between threads and queues): every call is
 *                                  OCR_OK with the right sum, or OCR_USAGE
 *                                  "used from two threads at once"
 *   test_reducer_misuse inflight   a call held in the reducer (its queue waits
 *                                  for a user event): another thread's calls,
 *                                  and its release, are refused until it ends;
 *                                  then all works
 *   test_reducer_misuse released   a second release and every call after
 *                                  release: refused, no memory touched (ASan)
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define CALLS   60      /* right answers each thread waits for */
#define TRIES   2000000 /* refusals are instant: a bound, never reached */
#define N       20011

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static ocr_reducer *red;

/* N ints base, base + 1, ...: their sum is N * base + N(N-1)/2. */
static cl_mem ints(int base, int64_t *sum) {
    cl_int err;
    int *h = malloc(N * sizeof *h);
    *sum = 0;
    for (int i = 0; i < N; ++i)
        h[i] = base + i, *sum += h[i];
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &err);
    CL_OK(err);
    free(h);
    return b;
}

static int refused_as_busy(ocr_status st) {
    return st == OCR_USAGE && strstr(ocr_last_error(), "used from two threads at once");
}

/* ---- threads: calls at once ---------------------------------------------------- */

typedef struct {
    int id, ok, busy, wrong;
} tally;

static void *caller(void *arg) {
    tally *t = arg;
    cl_int err;
    cl_command_queue tq = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    int64_t want;
    cl_mem b = ints(1000 * t->id + 1, &want);
    for (int c = 0; t->ok < CALLS && c < TRIES; ++c) {
        ocr_value v = {0};
        ocr_status st = ocr_reducer_reduce(red, tq, b, 0, N, &v);
        if (st == OCR_OK && v.i == want)
            ++t->ok;
        else if (refused_as_busy(st))
            ++t->busy, sched_yield(); /* and again: the reducer passes between threads */
        else {
            if (++t->wrong <= 3)
                printf("FAIL thread %d call %d: status %s, value %lld (want %lld): %s\n", t->id, c,
                       ocr_status_name(st), (long long)v.i, (long long)want, ocr_last_error());
        }
    }
    clReleaseMemObject(b);
    clReleaseCommandQueue(tq);
    return NULL;
}

static void threads(void) {
    pthread_t th[THREADS];
    tally t[THREADS] = {{0}};
    for (int i = 0; i < THREADS; ++i) {
        t[i].id = i;
        CHECK(pthread_create(&th[i], NULL, caller, &t[i]) == 0);
    }
    int ok = 0, busy = 0, wrong = 0;
    for (int i = 0; i < THREADS; ++i) {
        pthread_join(th[i], NULL);
        ok += t[i].ok, busy += t[i].busy, wrong += t[i].wrong;
    }
    printf("threads: %d calls: %d right, %d refused as used from two threads, %d else\n",
           ok + busy + wrong, ok, busy, wrong);
    EXPECT(wrong == 0, "%d calls neither right nor refused", wrong);
    for (int i = 0; i < THREADS; ++i)
        EXPECT(t[i].ok == CALLS, "thread %d: %d right answers of %d", i, t[i].ok, CALLS);
    int64_t want;
    cl_mem b = ints(7, &want);
    ocr_value v = {0};
    EXPECT(ocr_reducer_reduce(red, q, b, 0, N, &v) == OCR_OK && v.i == want,
           "after the threads: %lld, want %lld (%s)", (long long)v.i, (long long)want,
           ocr_last_error());
    clReleaseMemObject(b);
}

/* ---- inflight: a call held inside the reducer --------------------------------------- */

typedef struct {
    cl_command_queue q;
    cl_mem b;
    atomic_int started;
    ocr_status st;
    ocr_value v;
} held;

static void *held_call(void *arg) {
    held *h = arg;
    atomic_store(&h->started, 1);
    h->st = ocr_reducer_reduce(red, h->q, h->b, 0, N, &h->v);
    return NULL;
}

static void inflight(void) {
    cl_int err;
    held h = {0};
    int64_t want_a, want_b;
    h.b = ints(11, &want_a);
    cl_mem b = ints(5, &want_b);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_long), NULL, &err);
    CL_OK(err);
    /* h's queue waits for a user event: h's call blocks inside the reducer */
    cl_event gate = clCreateUserEvent(ctx, &err);
    CL_OK(err);
    h.q = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    CL_OK(clEnqueueMarkerWithWaitList(h.q, 1, &gate, NULL));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, held_call, &h) == 0);
    while (!atomic_load(&h.started))
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    /* Until h's call is in, these calls run (and are right); once it is,
     * they are refused. It stays in until the gate opens: no time limit
     * matters here but the test's own. */
    ocr_status st = OCR_OK;
    int before = 0;
    while (st == OCR_OK) {
        cl_event done = NULL;
        st = ocr_reducer_reduce_async(red, q, b, 0, N, res, 0, NULL, &done);
        if (done) clReleaseEvent(done);
        if (st == OCR_OK) ++before, nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    printf("inflight: %d calls ran before the held call was in\n", before);
    EXPECT(refused_as_busy(st), "a call while another is in: %s, \"%s\"", ocr_status_name(st),
           ocr_last_error());
    ocr_value v;
    EXPECT(refused_as_busy(ocr_reducer_reduce(red, q, b, 0, N, &v)), "blocking: %s",
           ocr_last_error());
    ocr_plan plan;
    EXPECT(refused_as_busy(ocr_reducer_plan(red, N, 1, &plan)), "plan: %s", ocr_last_error());
    cl_event sd = NULL;
    st = ocr_reducer_reduce_strided(red, q, b, 0, N / 2, 2, res, 0, 0, NULL, &sd);
    EXPECT(refused_as_busy(st) && !sd, "strided: %s", ocr_last_error());
    EXPECT(strstr(ocr_reducer_last_error(red), "two threads"), "last_error: \"%s\"",
           ocr_reducer_last_error(red));
    EXPECT(ocr_reducer_geometry(red) != NULL, "the geometry is there while a call is in");
    ocr_reducer_release(red); /* refused: the held call would lose its reducer */
    EXPECT(strstr(ocr_last_error(), "not released"), "release while in use: \"%s\"",
           ocr_last_error());
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    pthread_join(th, NULL);
    EXPECT(h.st == OCR_OK && h.v.i == want_a, "the held call: %s, %lld (want %lld)",
           ocr_status_name(h.st), (long long)h.v.i, (long long)want_a);
    v.i = 0;
    EXPECT(ocr_reducer_reduce(red, q, b, 0, N, &v) == OCR_OK && v.i == want_b,
           "after: %lld, want %lld (%s)", (long long)v.i, (long long)want_b, ocr_last_error());
    clReleaseEvent(gate);
    clReleaseCommandQueue(h.q);
    clReleaseMemObject(h.b);
    clReleaseMemObject(b);
    clReleaseMemObject(res);
}

/* ---- released: a second release and calls after it --------------------------------- */

static int refused_as_dead(ocr_status st) {
    return st == OCR_USAGE && strstr(ocr_last_error(), "not a live reducer");
}

static void released(void) {
    cl_int err;
    int64_t want;
    cl_mem b = ints(3, &want);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(cl_long), NULL, &err);
    CL_OK(err);
    ocr_reducer *r = red;
    ocr_reducer_release(r);
    EXPECT(ocr_last_error()[0] == '\0', "a first release says nothing: \"%s\"", ocr_last_error());
    ocr_reducer_release(r);
    EXPECT(strstr(ocr_last_error(), "not a live reducer"), "second release: \"%s\"",
           ocr_last_error());
    ocr_value v;
    cl_event done = NULL;
    ocr_plan plan;
    EXPECT(refused_as_dead(ocr_reducer_reduce(r, q, b, 0, N, &v)), "reduce: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_reduce_async(r, q, b, 0, N, res, 0, NULL, &done)),
           "reduce_async: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_reduce_into(r, q, b, 0, N, res, 1, 0, NULL, &done)),
           "reduce_into: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_reduce_rows(r, q, b, 0, 2, 3, res, 0, 0, NULL, &done)),
           "rows: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_reduce_columns(r, q, b, 0, 2, 3, res, 0, 0, NULL, &done)),
           "columns: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_reduce_segments(r, q, b, 0, N, NULL, OCR_UINT, 0, res, 0, 0,
                                                       NULL, &done)),
           "segments: %s", ocr_last_error());
    ocr_status st = ocr_reducer_reduce_strided(r, q, b, 0, N / 2, 2, res, 0, 0, NULL, &done);
    EXPECT(refused_as_dead(st), "strided: %s", ocr_last_error());
    EXPECT(refused_as_dead(ocr_reducer_plan(r, N, 1, &plan)), "plan: %s", ocr_last_error());
    EXPECT(done == NULL, "no event from a refused call");
    EXPECT(ocr_reducer_geometry(r) == NULL, "no geometry of a released reducer");
    EXPECT(strstr(ocr_reducer_last_error(r), "not a live reducer"), "last_error: \"%s\"",
           ocr_reducer_last_error(r));
    /* never a reducer at all: refused the same way, its bytes unread */
    ocr_reducer *junk = (ocr_reducer *)(void *)&plan;
    EXPECT(refused_as_dead(ocr_reducer_reduce(junk, q, b, 0, N, &v)), "junk: %s", ocr_last_error());
    ocr_reducer_release(junk);
    EXPECT(strstr(ocr_last_error(), "not a live reducer"), "release junk: \"%s\"",
           ocr_last_error());
    clReleaseMemObject(b);
    clReleaseMemObject(res);
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    CL_OPEN_FIRST(dev, ctx, q);
    if (ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &red) != OCR_OK) {
        printf("FAIL create: %s\n", ocr_reducer_last_error(NULL));
        return 1;
    }
    if (!strcmp(what, "threads"))
        threads();
    else if (!strcmp(what, "inflight"))
        inflight();
    else if (!strcmp(what, "released"))
        released();
    else {
        printf("usage: test_reducer_misuse threads|inflight|released\n");
        return 2;
    }
    if (strcmp(what, "released")) ocr_reducer_release(red);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary(what);
}
