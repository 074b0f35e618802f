/*
 * ocr_cpu.c - the optimized CPU baseline: what a good CPU programmer would
 * write, so "GPU vs CPU" is not only "GPU vs a naive loop" (the tutorial warns
 * that a good CPU code can be ten times faster than its dummy reference).
 *
 * The input is split into one contiguous chunk per thread. Each thread keeps
 * LANES independent accumulators, which breaks the loop-carried dependency and
 * lets the compiler turn the loop into SIMD instructions (AVX2 where the CPU
 * has it, chosen at run time on x86-64). Integer results are exact (the same
 * wrap-around arithmetic in another order); float results are checked against
 * the reference with the same bound as the device.
 */
#define _POSIX_C_SOURCE 200809L
#include "core.h"
#include "ocr_ops.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define LANES   16
#define MAX_THR 256

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define MULTIVERSION
#endif

/* acc[j] = EXPR(a = acc[j], v = x[i + j]); then the lanes fold into one. */
#define LANES_LOOP(TY, FIELD, EXPR)                                                                \
    do {                                                                                           \
        const TY *x = (const TY *)data;                                                            \
        TY acc[LANES];                                                                             \
        for (int j = 0; j < LANES; ++j)                                                            \
            acc[j] = id.FIELD;                                                                     \
        uint64_t i = lo;                                                                           \
        for (; i + LANES <= hi; i += LANES)                                                        \
            for (int j = 0; j < LANES; ++j) {                                                      \
                TY a = acc[j], v = x[i + j];                                                       \
                acc[j] = (EXPR);                                                                   \
            }                                                                                      \
        for (; i < hi; ++i) {                                                                      \
            TY a = acc[0], v = x[i];                                                               \
            acc[0] = (EXPR);                                                                       \
        }                                                                                          \
        TY a = acc[0];                                                                             \
        for (int j = 1; j < LANES; ++j) {                                                          \
            TY v = acc[j];                                                                         \
            a = (EXPR);                                                                            \
        }                                                                                          \
        out.FIELD = a;                                                                             \
    } while (0)

/* Float min/max propagate NaN like the reference and the kernels (OCR_FMIN:
 * comparisons and a select, which vectorize). */
MULTIVERSION
static ocr_value chunk(const void *data, uint64_t lo, uint64_t hi, ocr_type t, ocr_op o) {
    ocr_value out, id = ocr_identity(t, o);
    memset(&out, 0, sizeof out);
    OCR_DISPATCH(t, o, LANES_LOOP)
    return out;
}

typedef struct {
    const void *data;
    uint64_t lo, hi;
    ocr_type t;
    ocr_op o;
    ocr_value r;
} job;

static void *worker(void *arg) {
    job *j = arg;
    j->r = chunk(j->data, j->lo, j->hi, j->t, j->o);
    return NULL;
}

/* Longest chain of operations: a lane's run through its chunk, the lane fold,
 * then the threads' results one after another (for the float bound). */
uint64_t ocr_best_depth(uint64_t n, unsigned threads) {
    return n / ((uint64_t)threads * LANES) + 2 * LANES + threads + 16;
}

ocr_value ocr_reduce_best(const void *data, uint64_t n, ocr_type t, ocr_op o, unsigned threads,
                          unsigned *threads_used) {
    job jobs[MAX_THR];
    pthread_t tid[MAX_THR];
    if (ocr_op_is_arg(o)) { /* one pass in order finds the first index */
        if (threads_used) *threads_used = 1;
        return ocr_arg_reduce(data, n, t, o);
    }
    if (ocr_type_is_storage(t)) { /* small types: the widening loop, one thread */
        if (threads_used) *threads_used = 1;
        return ocr_small_reduce(data, n, t, o);
    }
    if (threads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (unsigned)c : 1;
    }
    if (threads > MAX_THR) threads = MAX_THR;
    if (n < (uint64_t)threads * 65536) /* small inputs: threads cost more than they save */
        threads = (unsigned)(n / 65536) + 1;
    /* Chunk boundaries on 64-byte multiples keep every thread's loads aligned alike. */
    uint64_t per = (n / threads + 15) & ~(uint64_t)15;
    int created[MAX_THR] = {0};
    for (unsigned k = 0; k < threads; ++k) {
        uint64_t lo = per * k, hi = k + 1 == threads ? n : per * (k + 1);
        jobs[k] = (job){data, lo < n ? lo : n, hi < n ? hi : n, t, o, {0}};
    }
    for (unsigned k = 1; k < threads; ++k) /* a thread that cannot start runs inline */
        if (!(created[k] = pthread_create(&tid[k], NULL, worker, &jobs[k]) == 0)) worker(&jobs[k]);
    worker(&jobs[0]); /* this thread takes the first chunk */
    ocr_value r = jobs[0].r;
    for (unsigned k = 1; k < threads; ++k) {
        if (created[k]) pthread_join(tid[k], NULL);
        r = ocr_combine(t, o, r, jobs[k].r);
    }
    if (threads_used) *threads_used = threads;
    return r;
}
