/*
 * test_reducer_calls.c MODE [ARG] - what issue 26 changed in the reducer, each
 * value against the host's. share: one program for reducers built alike
 * (threads too), released with the last; its binary on disk used by the next
 * build, damaged copies ignored, OCLREDUCTION_PROGRAM_CACHE=off. tuned
 * KERNEL_DIR: the tune cache's entry taken (the input type's for a widening
 * reducer; not when asked, stale, or with the caller's geometry), offsets
 * through both access patterns. into: values
 * gathered in one buffer. queues: calls on two queues wait for each other; an
 * out-of-order queue. readback: every OCLREDUCTION_READBACK row. offsets:
 * small offsets and result offsets, int read into long too (for oclgrind).
 * plans [CASE]: first passes below, at and past the blocking call's one-launch
 * limit (finish_max_groups) and the full grid, blocking and async, no call
 * making a scratch buffer (CASE: one row of the table, for oclgrind).
 * tunecache FILE: the geometry is FILE's int entry (written by --tune). Each
 * mode but tunecache has an XDG_CACHE_HOME of its own: no user's cache is
 * read or written.
 */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h"                   /* the program cache's counters */
#include "reducer/ocr_readback.h"     /* the OCLREDUCTION_READBACK rows */
#include "reducer/ocr_reducer_priv.h" /* its scratch buffers, made once */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static char cache_dir[] = "/tmp/test_reducer_calls_XXXXXX";

/* Element i of every input: integers in [-500, 500), distinct from the index. */
static int64_t value(uint64_t i) {
    return (int64_t)((i * 2654435761u) % 1000) - 500;
}

/* n elements of type t (int, long, float or double) holding value(i). */
static cl_mem input(ocr_type t, uint64_t n) {
    cl_int err;
    size_t es = ocr_type_size(t);
    char *h = malloc(n * es);
    for (uint64_t i = 0; i < n; ++i) {
        int64_t v = value(i);
        if (t == OCR_INT) ((int32_t *)h)[i] = (int32_t)v;
        if (t == OCR_LONG) ((int64_t *)h)[i] = v;
        if (t == OCR_FLOAT) ((float *)h)[i] = (float)v;
        if (t == OCR_DOUBLE) ((double *)h)[i] = (double)v;
    }
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * es, h, &err);
    CL_OK(err);
    free(h);
    return b;
}

/* The sum of value(off .. off + n - 1): exact for every type (|sum| < 2^24). */
static int64_t want(uint64_t off, uint64_t n) {
    int64_t s = 0;
    for (uint64_t i = off; i < off + n; ++i)
        s += value(i);
    return s;
}

static int64_t as_int(ocr_type t, const void *v) {
    const ocr_value *x = v;
    return t == OCR_INT     ? x->i
           : t == OCR_LONG  ? x->l
           : t == OCR_FLOAT ? (int64_t)x->f
                            : (int64_t)x->d;
}

/* A sum reducer reading `in` (t, or narrower: widening), combining in t. */
static ocr_reducer *make_from(ocr_type in, ocr_type t, const ocr_reducer_options *o) {
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create_widening(ctx, dev, in, t, OCR_SUM, o, &r);
    EXPECT(st == OCR_OK, "create %s sum: %s", ocr_type_name(t), ocr_reducer_last_error(NULL));
    if (st != OCR_OK) exit(1);
    return r;
}
#define make(t, o) make_from(t, t, o)

/* 3000 groups and no finish in the same launch: several passes, scratch
 * ping-pong, the last pass writing at the offset. */
static const ocr_reducer_options many = {.groups = 3000, .build_options = "-cl-std=CL1.2"};

static int has_fp64(void) {
    cl_device_fp_config fp = 0;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL));
    return fp != 0;
}

/* Blocking sums of [off, off + n) for every (off, n) of the lists; the count wrong. */
static unsigned sums(ocr_reducer *r, ocr_type t, cl_mem b, uint64_t total, const uint64_t *offs,
                     size_t no, const uint64_t *lens, size_t nl) {
    unsigned bad = 0;
    for (size_t i = 0; i < no; ++i)
        for (size_t j = 0; j < nl; ++j) {
            uint64_t off = offs[i], n = lens[j];
            if (off + n > total) continue;
            ocr_value v;
            ocr_status st = ocr_reducer_reduce(r, q, b, off, n, &v);
            if (st != OCR_OK || as_int(t, &v) != want(off, n)) {
                if (!bad++)
                    printf("FAIL %s offset %llu n %llu: status %d (%s), got %lld, expected %lld\n",
                           ocr_type_name(t), (unsigned long long)off, (unsigned long long)n,
                           (int)st, ocr_reducer_last_error(r), (long long)as_int(t, &v),
                           (long long)want(off, n));
            }
        }
    check_failures += bad != 0;
    return bad;
}

static const uint64_t offs[] = {0, 1, 2, 3, 5, 8, 15, 16, 17, 31, 33};
static const uint64_t lens[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65, 1000, 4099, 70001};
#define NOFFS (sizeof offs / sizeof offs[0])
#define NLENS (sizeof lens / sizeof lens[0])

/* ---- share -------------------------------------------------------------------------- */

static ocr_program_cache_stats stats(void) {
    ocr_program_cache_stats s;
    ocr_program_cache_stats_get(&s);
    return s;
}

/* The one binary file the cache holds (the test's cache is empty at first). */
static int cache_file(char *path, size_t len) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/oclreduction/programs/*.bin 2>/dev/null", cache_dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    char line[512];
    while (p && fgets(line, sizeof line, p))
        if (n++ == 0) snprintf(path, len, "%.*s", (int)strcspn(line, "\n"), line);
    if (p) pclose(p);
    return n;
}

struct thread_arg {
    pthread_barrier_t *bar;
    cl_mem b;
    int ok;
};

/* Create, wait until every thread has its reducer, reduce, release. */
static void *create_together(void *p) {
    struct thread_arg *a = p;
    ocr_reducer *r = NULL;
    ocr_value v;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_LONG, OCR_SUM, NULL, &r);
    pthread_barrier_wait(a->bar);
    a->ok = st == OCR_OK && ocr_reducer_reduce(r, q, a->b, 7, 5000, &v) == OCR_OK &&
            v.l == want(7, 5000);
    pthread_barrier_wait(a->bar);
    ocr_reducer_release(r);
    return NULL;
}

/* Damages a cache file (its layout: key text and NUL, binary length, binary,
 * FNV-1a of all before): 0 flips a byte of the binary, 1 replaces the binary
 * by garbage with a checksum that matches, 2 cuts the file in half. */
static void damage(const char *path, int how) {
    FILE *f = fopen(path, "rb");
    static unsigned char buf[64 << 20];
    size_t size = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    EXPECT(size > 64, "read %s", path);
    size_t klen = strlen((char *)buf) + 1, n = size - klen - 16;
    if (how == 0) buf[klen + 8 + n / 2] ^= 0x40;
    if (how == 1) {
        for (size_t i = 0; i < n; ++i)
            buf[klen + 8 + i] = (unsigned char)(i * 7 + 1);
        uint64_t sum = 0xcbf29ce484222325ull; /* FNV-1a */
        for (size_t i = 0; i + 8 < size; ++i)
            sum = (sum ^ buf[i]) * 0x100000001b3ull;
        memcpy(buf + size - 8, &sum, 8);
    }
    if (how == 2) size /= 2;
    f = fopen(path, "wb");
    EXPECT(f && fwrite(buf, 1, size, f) == size && fclose(f) == 0, "rewrite %s", path);
}

#define DELTA(a, b, field) ((long)((b).field - (a).field))

/* Sets path to the file of the int sum's binary: the first in an empty cache. */
static void share_memory(cl_mem b, char *path, size_t len) {
    ocr_program_cache_stats s0 = stats();
    ocr_reducer *r1 = make(OCR_INT, NULL);
    ocr_program_cache_stats s1 = stats();
    EXPECT(cache_file(path, len) == 1, "expected one binary on disk");
    EXPECT(DELTA(s0, s1, source_builds) == 1 && DELTA(s0, s1, binary_builds) == 0 &&
               DELTA(s0, s1, entries) == 1 && DELTA(s0, s1, stored) == 1,
           "first create: %ld source, %ld binary builds, %ld entries, %ld stored",
           DELTA(s0, s1, source_builds), DELTA(s0, s1, binary_builds), DELTA(s0, s1, entries),
           DELTA(s0, s1, stored));
    ocr_reducer *r2 = make(OCR_INT, NULL);
    ocr_program_cache_stats s2 = stats();
    EXPECT(DELTA(s1, s2, source_builds) + DELTA(s1, s2, binary_builds) == 0 &&
               DELTA(s1, s2, shared) == 1 && DELTA(s1, s2, entries) == 0,
           "second create built again (%ld) or did not share (%ld)",
           DELTA(s1, s2, source_builds) + DELTA(s1, s2, binary_builds), DELTA(s1, s2, shared));
    ocr_reducer_options other = {.build_options = "-D TEST_OTHER=1"};
    ocr_reducer *r3 = make(OCR_INT, &other);
    ocr_program_cache_stats s3 = stats();
    EXPECT(DELTA(s2, s3, source_builds) == 1 && DELTA(s2, s3, entries) == 1,
           "other options share a program");
    ocr_reducer_release(r1); /* r2 still holds the program */
    EXPECT(stats().entries == s3.entries, "released before its last user");
    ocr_value v;
    EXPECT(ocr_reducer_reduce(r2, q, b, 3, 99990, &v) == OCR_OK && v.i == want(3, 99990),
           "the sharer after the first's release: %d", v.i);
    ocr_reducer_release(r2);
    ocr_reducer_release(r3);
    EXPECT(stats().entries == s0.entries, "not released with the last user: %u entries",
           stats().entries);
    printf("ok   two reducers share one program; released with the last (%ld builds)\n",
           DELTA(s0, stats(), source_builds));
}

/* A create from the cache's file, and its results; what the counters moved by. */
static ocr_program_cache_stats create_from_disk(cl_mem b, const char *label) {
    ocr_program_cache_stats s0 = stats(), s1;
    ocr_reducer *r = make(OCR_INT, NULL);
    s1 = stats();
    sums(r, OCR_INT, b, 100000, offs, NOFFS, lens, NLENS);
    ocr_reducer_release(r);
    ocr_program_cache_stats d = {0};
    d.source_builds = s1.source_builds - s0.source_builds;
    d.binary_builds = s1.binary_builds - s0.binary_builds;
    d.stored = s1.stored - s0.stored;
    d.rejected = s1.rejected - s0.rejected;
    printf("ok   %s: %lu source, %lu binary builds, %lu stored, %lu rejected\n", label,
           d.source_builds, d.binary_builds, d.stored, d.rejected);
    return d;
}

static void share_disk(cl_mem b, const char *path) {
    ocr_program_cache_stats d = create_from_disk(b, "from disk");
    EXPECT(d.binary_builds == 1 && d.source_builds == 0, "the stored binary was not used");
    static const char *const what[] = {"a flipped byte", "garbage that passes the checksum",
                                       "a file cut in half"};
    for (int how = 0; how < 3; ++how) {
        damage(path, how);
        d = create_from_disk(b, what[how]);
        EXPECT(d.rejected == 1 && d.source_builds == 1 && d.stored == 1 && d.binary_builds == 0,
               "%s: not ignored and rewritten", what[how]);
    }
    d = create_from_disk(b, "rewritten");
    EXPECT(d.binary_builds == 1, "the rewritten file was not used");
    setenv("OCLREDUCTION_PROGRAM_CACHE", "off", 1);
    remove(path);
    d = create_from_disk(b, "OCLREDUCTION_PROGRAM_CACHE=off");
    EXPECT(d.stored == 0 && d.binary_builds == 0 && access(path, F_OK) != 0,
           "the disk was used though turned off");
    unsetenv("OCLREDUCTION_PROGRAM_CACHE");
}

static void share_threads(void) {
    enum { T = 4 };
    pthread_t th[T];
    pthread_barrier_t bar;
    struct thread_arg a[T];
    cl_mem b = input(OCR_LONG, 6000);
    ocr_program_cache_stats s0 = stats(), s1;
    pthread_barrier_init(&bar, NULL, T);
    for (int i = 0; i < T; ++i) {
        a[i] = (struct thread_arg){&bar, b, 0};
        pthread_create(&th[i], NULL, create_together, &a[i]);
    }
    int ok = 1;
    for (int i = 0; i < T; ++i)
        pthread_join(th[i], NULL), ok &= a[i].ok;
    s1 = stats();
    long builds = DELTA(s0, s1, source_builds) + DELTA(s0, s1, binary_builds);
    EXPECT(ok && builds == 1 && DELTA(s0, s1, shared) == T - 1 && s1.entries == s0.entries,
           "%d threads: %ld builds, %ld shared, results %s", T, builds, DELTA(s0, s1, shared),
           ok ? "right" : "WRONG");
    printf("ok   %d threads creating at once: %ld build, %ld shared\n", T, builds,
           DELTA(s0, s1, shared));
    pthread_barrier_destroy(&bar);
    clReleaseMemObject(b);
}

static void share(void) {
    char path[600], any[600];
    cl_mem b = input(OCR_INT, 100000);
    share_memory(b, path, sizeof path);
    EXPECT(cache_file(any, sizeof any) == 2, "expected two binaries on disk");
    share_disk(b, path);
    share_threads();
    clReleaseMemObject(b);
}

/* ---- tuned ---------------------------------------------------------------------------- */

static void expect_geometry(ocr_reducer *r, size_t local, uint64_t groups, uint64_t epg,
                            const char *label) {
    const ocr_geometry *g = ocr_reducer_geometry(r);
    EXPECT(g->local_size == local && g->max_groups == groups && g->elems_per_group == epg,
           "%s: work-group %zu, groups %llu, %llu elements per item and iteration; expected %zu, "
           "%llu, %llu",
           label, g->local_size, (unsigned long long)g->max_groups,
           (unsigned long long)g->elems_per_group, local, (unsigned long long)groups,
           (unsigned long long)epg);
}

/* The tune cache's file with every entry's kernel hash changed (stale). */
static void make_stale(void) {
    char path[1024], cmd[4300];
    ocr_tune_cache_path(path, sizeof path);
    snprintf(cmd, sizeof cmd,
             "awk -F'\t' -v OFS='\t' '{ $5 = 123; print }' '%s' > '%s.new' && "
             "mv '%s.new' '%s'",
             path, path, path, path);
    EXPECT(system(cmd) == 0, "%s", cmd);
}

/* Stores an entry, and checks a reducer of type t takes it and sums right. */
static void tuned_entry(ocr_device *od, const char *kernel_dir, ocr_type t, const ocr_tuning *tu) {
    EXPECT(ocr_tune_store(od, t, kernel_dir, tu) == OCR_OK, "store: %s", ocr_last_error());
    ocr_reducer *r = make(t, NULL);
    char label[128];
    snprintf(label, sizeof label, "%s %s tuned", ocr_type_name(t),
             tu->access == 1 ? "strided" : "blocked");
    expect_geometry(r, tu->local_size, tu->groups, 16 / ocr_type_size(t) * tu->unroll, label);
    cl_mem b = input(t, 80000);
    unsigned bad = sums(r, t, b, 80000, offs, NOFFS, lens, NLENS);
    printf("%s %s: %zu x %zu groups, unroll %u; %zu offsets x %zu lengths, %u wrong\n",
           bad ? "FAIL" : "ok  ", label, tu->local_size, tu->groups, tu->unroll, NOFFS, NLENS, bad);
    clReleaseMemObject(b);
    ocr_reducer_release(r);
}

static void tuned(const char *kernel_dir) {
    ocr_device_choice ch = {0, 0, CL_DEVICE_TYPE_ALL, 0};
    ocr_device *od = NULL;
    if (ocr_device_open(&ch, &od) != OCR_OK) {
        printf("FAIL: ocr_device_open: %s\n", ocr_last_error());
        exit(1);
    }
    ocr_reducer *r = make(OCR_INT, NULL);
    ocr_geometry g0 = *ocr_reducer_geometry(r); /* no cache yet: the defaults */
    ocr_reducer_release(r);
    /* Geometries no default has; strided access is the GPU's (the 16-byte
     * loads after a head read one at a time), blocked the CPU's. */
    ocr_tuning tu = {.local_size = 4, .groups = 13, .unroll = 2, .access = 1, .kernel_ms = 1};
    tuned_entry(od, kernel_dir, OCR_INT, &tu);
    ocr_tuning tl = tu;
    tl.groups = 11; /* long's own, which a widening reducer from int must not take */
    tuned_entry(od, kernel_dir, OCR_LONG, &tl);
    tuned_entry(od, kernel_dir, OCR_FLOAT, &tu);
    ocr_tuning blocked = {.local_size = 2, .groups = 5, .unroll = 8, .access = 2, .kernel_ms = 1};
    if (has_fp64()) tuned_entry(od, kernel_dir, OCR_DOUBLE, &blocked);
    r = make_from(OCR_INT, OCR_LONG, NULL); /* its first pass streams int: int's entry */
    expect_geometry(r, tu.local_size, tu.groups, 4 * tu.unroll, "int into long tuned");
    ocr_reducer_release(r);
    /* The caller's options keep the defaults (but the caller's groups); a stale entry too. */
    ocr_reducer_options opts[3] = {{.ignore_tuning = 1}, {.groups = 7}, {0}};
    static const char *const why[3] = {"ignore_tuning", "groups set by the caller",
                                       "a stale entry"};
    for (int i = 0; i < 3; ++i) {
        if (i == 2) make_stale();
        r = make(OCR_INT, &opts[i]);
        expect_geometry(r, g0.local_size, i == 1 ? 7 : g0.max_groups, g0.elems_per_group, why[i]);
        ocr_reducer_release(r);
    }
    printf("ok   a widening reducer takes its input type's entry; ignore_tuning, the caller's "
           "groups and a stale entry keep the defaults\n");
    ocr_device_close(od);
}

/* ---- into ------------------------------------------------------------------------------ */

/* K values into the odd elements of one buffer, back to back, the even ones
 * (and the bytes around) left as they were. */
static void into_one(ocr_type t, const ocr_reducer_options *o) {
    enum { K = 9, NB = 2 * K + 1 };
    static const uint64_t ns[K] = {1, 2, 5, 4099, 100000, 299990, 3, 77777, 17};
    const size_t es = ocr_type_size(t);
    unsigned char fill[NB * 8], got[NB * 8];
    cl_int err;
    memset(fill, 0x7b, sizeof fill);
    ocr_reducer *r = make(t, o);
    cl_mem b = input(t, 310000);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, NB * es, fill, &err);
    CL_OK(err);
    cl_event done = NULL;
    for (unsigned j = 0; j < K; ++j) {
        unsigned at = 2 * ((j * 4) % K) + 1; /* a permutation of the odd elements */
        ocr_status st = ocr_reducer_reduce_into(r, q, b, 3 * j + 1, ns[j], res, at, 0, NULL,
                                                j + 1 == K ? &done : NULL);
        EXPECT(st == OCR_OK, "into %u: %s", at, ocr_reducer_last_error(r));
    }
    CL_OK(clWaitForEvents(1, &done));
    CL_OK(clReleaseEvent(done));
    CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, NB * es, got, 0, NULL, NULL));
    unsigned bad = 0;
    for (unsigned j = 0; j < K; ++j) {
        unsigned at = 2 * ((j * 4) % K) + 1;
        ocr_value v = {0};
        memcpy(&v, got + at * es, es);
        if (as_int(t, &v) != want(3 * j + 1, ns[j])) ++bad;
        EXPECT(as_int(t, &v) == want(3 * j + 1, ns[j]), "element %u: %lld, expected %lld", at,
               (long long)as_int(t, &v), (long long)want(3 * j + 1, ns[j]));
    }
    for (unsigned e = 0; e < NB; e += 2)
        EXPECT(!memcmp(got + e * es, fill, es), "element %u was written", e);
    ocr_plan p;
    ocr_plan_make(ocr_reducer_geometry(r), 299990, 1, &p);
    printf("%s %s: %d values into the odd elements of one buffer (299990 in %u pass%s), %u wrong\n",
           bad ? "FAIL" : "ok  ", ocr_type_name(t), K, p.npasses, p.npasses == 1 ? "" : "es", bad);
    ocr_status st = ocr_reducer_reduce_into(r, q, b, 0, 10, res, NB, 0, NULL, NULL);
    EXPECT(st == OCR_USAGE && strstr(ocr_reducer_last_error(r), "result buffer holds"),
           "a result offset past the end: status %d, \"%s\"", (int)st, ocr_reducer_last_error(r));
    clReleaseMemObject(res), clReleaseMemObject(b), ocr_reducer_release(r);
}

static void into(void) {
    into_one(OCR_INT, NULL);
    into_one(OCR_LONG, &many);
    if (has_fp64()) into_one(OCR_DOUBLE, NULL);
}

/* ---- plans ------------------------------------------------------------------------------ */

/* n whose first pass has k groups of g (the last one half full). */
static uint64_t n_for(const ocr_geometry *g, uint64_t k) {
    uint64_t per = g->local_size * g->elems_per_group;
    return (k - 1) * per + per / 2 + 1;
}

/* The value of r over [0, n) on the host: a sum, or argmax's first index. */
static int64_t want_of(ocr_op op, uint64_t n) {
    if (op == OCR_SUM) return want(0, n);
    uint64_t at = 0;
    for (uint64_t i = 1; i < n; ++i)
        if (value(i) > value(at)) at = i;
    return (int64_t)at;
}
static int64_t got_of(ocr_op op, ocr_type t, const ocr_value *v) {
    return op == OCR_SUM ? as_int(t, v) : (int64_t)v->arg.index;
}

/* One reducer at first passes of 1 .. max_groups groups and past them: the
 * blocking call (two launches from finish_max_groups + 1 groups until the
 * grid is full, where the device finishes in one) and the async call (one
 * launch at every count) both right. */
static void plans_one(ocr_type in, ocr_type t, ocr_op op, int accurate) {
    ocr_reducer_options o = {.local_size = 8, .groups = 600, .accurate = accurate};
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create_widening(ctx, dev, in, t, op, &o, &r);
    EXPECT(st == OCR_OK, "create: %s", ocr_reducer_last_error(NULL));
    if (st != OCR_OK) return;
    const ocr_geometry *g = ocr_reducer_geometry(r);
    const cl_mem made[2] = {r->scratch[0], r->scratch[1]};
    static const uint64_t ks[] = {1, 2, 255, 256, 257, 431, 599, 600, 601, 1500};
    const size_t nk = sizeof ks / sizeof ks[0];
    cl_int err;
    cl_mem b = input(in, n_for(g, ks[nk - 1])),
           res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    CL_OK(err);
    unsigned bad = 0, split = 0;
    for (size_t i = 0; i < nk; ++i) {
        uint64_t n = n_for(g, ks[i]);
        ocr_value v, a;
        memset(&a, 0, sizeof a);
        st = ocr_reducer_reduce(r, q, b, 0, n, &v);
        bad += st != OCR_OK || got_of(op, t, &v) != want_of(op, n);
        st = ocr_reducer_reduce_async(r, q, b, 0, n, res, 0, NULL, NULL);
        if (st == OCR_OK)
            CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, sizeof a, &a, 0, NULL, NULL));
        bad += st != OCR_OK || got_of(op, t, &a) != want_of(op, n);
        /* which plans ran: the blocking one two launches here, the async one */
        ocr_plan pb, pa;
        CHECK(ocr_reducer_plan(r, n, 1, &pb) == OCR_OK && ocr_reducer_plan(r, n, 0, &pa) == OCR_OK);
        split += pb.npasses > pa.npasses;
    }
    /* Where the device finishes in one launch, groups 256..599 split (accurate
     * sums plan their own group counts, so at least some of them). */
    if (g->finishes) CHECK(g->finish_max_groups == 255 && split >= (accurate ? 1u : 4u));
    /* the scratch the reducer made for the full grid served every call */
    CHECK(made[0] && made[1] && r->scratch[0] == made[0] && r->scratch[1] == made[1]);
    check_failures += bad != 0;
    printf("%s %s %s%s: first passes of 1 to %llu groups and past them, blocking and async, %u "
           "wrong; %u sizes planned in two launches for the blocking call, one for async\n",
           bad ? "FAIL" : "ok  ", ocr_type_name(t), op == OCR_SUM ? "sum" : "argmax",
           accurate ? " (accurate)" : "", (unsigned long long)g->max_groups, bad, split);
    clReleaseMemObject(res), clReleaseMemObject(b), ocr_reducer_release(r);
}

static const struct plan_case {
    const char *name;
    ocr_type in, t;
    ocr_op op;
    int accurate;
} plan_cases[] = {
    {"int", OCR_INT, OCR_INT, OCR_SUM, 0},
    {"long_from_int", OCR_INT, OCR_LONG, OCR_SUM, 0},
    {"argmax", OCR_INT, OCR_INT, OCR_ARGMAX, 0},
    {"accurate_double", OCR_DOUBLE, OCR_DOUBLE, OCR_SUM, 1},
};

/* Every case, or the one named `only`. */
static void plans(const char *only) {
    unsigned ran = 0;
    for (size_t i = 0; i < sizeof plan_cases / sizeof plan_cases[0]; ++i) {
        const struct plan_case *c = &plan_cases[i];
        if (only && strcmp(only, c->name)) continue;
        ++ran;
        if (c->t == OCR_DOUBLE && !has_fp64())
            printf("skip %s: the device has no double\n", c->name);
        else
            plans_one(c->in, c->t, c->op, c->accurate);
    }
    CHECK(ran > 0); /* a name that is no case runs nothing */
}

/* ---- queues ----------------------------------------------------------------------------- */

static cl_int status_of(cl_event ev) {
    cl_int s = 0;
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    return s;
}

/* A call on a second queue waits for the previous call on the first (they
 * share scratch): behind a closed gate, neither completes. */
static void two_queues(void) {
    int before = check_failures;
    cl_int err;
    enum { N = 200000 };
    ocr_reducer *r = make(OCR_INT, NULL);
    cl_mem b = input(OCR_INT, N);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &err);
    CL_OK(err);
    cl_command_queue q2 = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    cl_event gate = clCreateUserEvent(ctx, &err), d1 = NULL, d2 = NULL;
    CL_OK(err);
    EXPECT(ocr_reducer_reduce_into(r, q, b, 0, N, res, 0, 1, &gate, &d1) == OCR_OK, "call 1: %s",
           ocr_reducer_last_error(r));
    EXPECT(ocr_reducer_reduce_into(r, q2, b, 5, N - 5, res, 1, 0, NULL, &d2) == OCR_OK,
           "call 2: %s", ocr_reducer_last_error(r));
    CL_OK(clFlush(q2));
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    EXPECT(status_of(d2) != CL_COMPLETE, "the call on the second queue did not wait for the first");
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    CL_OK(clWaitForEvents(1, &d2));
    EXPECT(status_of(d1) == CL_COMPLETE, "the second call completed before the first");
    /* Blocking calls alternating between the queues. */
    ocr_value v;
    for (int i = 0; i < 6; ++i) {
        ocr_status st = ocr_reducer_reduce(r, i % 2 ? q2 : q, b, (size_t)i, N - 9, &v);
        EXPECT(st == OCR_OK && v.i == want((uint64_t)i, N - 9), "blocking on queue %d: %d",
               i % 2 + 1, v.i);
    }
    int got[2];
    CL_OK(clEnqueueReadBuffer(q2, res, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    EXPECT(got[0] == want(0, N) && got[1] == want(5, N - 5), "values %d %d", got[0], got[1]);
    printf("%s two queues: the second call waits behind the first's gate\n",
           check_failures != before ? "FAIL" : "ok  ");
    clReleaseEvent(d1), clReleaseEvent(d2), clReleaseEvent(gate);
    clReleaseCommandQueue(q2);
    clReleaseMemObject(res), clReleaseMemObject(b), ocr_reducer_release(r);
}

/* On an out-of-order queue the passes and the calls still follow each other. */
static void out_of_order(void) {
    cl_command_queue_properties props = 0;
    cl_int err;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        printf("ok   skipped: the device has no out-of-order queues\n");
        return;
    }
    enum { K = 24, N = 300000 };
    ocr_reducer *r = make(OCR_LONG, &many);
    cl_mem b = input(OCR_LONG, N);
    cl_mem res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, K * sizeof(int64_t), NULL, &err);
    CL_OK(err);
    cl_command_queue qo =
        clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    CL_OK(err);
    unsigned bad = 0;
    for (unsigned j = 0; j < K; ++j) {
        uint64_t off = j * 11, n = N - off - j * 997;
        ocr_value v;
        if (j % 3 == 2) { /* now and then a blocking call in between */
            if (ocr_reducer_reduce(r, qo, b, off, n, &v) != OCR_OK || v.l != want(off, n)) ++bad;
        }
        EXPECT(ocr_reducer_reduce_into(r, qo, b, off, n, res, j, 0, NULL, NULL) == OCR_OK,
               "async %u: %s", j, ocr_reducer_last_error(r));
    }
    CL_OK(clFinish(qo));
    int64_t got[K];
    CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    for (unsigned j = 0; j < K; ++j)
        bad += got[j] != want(j * 11, N - j * 11 - j * 997);
    EXPECT(bad == 0, "out of order: %u values wrong", bad);
    ocr_plan p;
    ocr_plan_make(ocr_reducer_geometry(r), N, 1, &p);
    printf("%s an out-of-order queue: %d calls of %u passes each, %u wrong\n",
           bad ? "FAIL" : "ok  ", K + K / 3, p.npasses, bad);
    clReleaseCommandQueue(qo);
    clReleaseMemObject(res), clReleaseMemObject(b), ocr_reducer_release(r);
}

/* ---- readback ---------------------------------------------------------------------------- */

static void readback(void) {
    static const uint64_t few_offs[] = {0, 3, 16};
    static const uint64_t few_lens[] = {1, 2, 77, 4099, 250000};
    cl_mem b = input(OCR_INT, 300000);
    cl_bool unified = CL_FALSE;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL));
    const char *mode;
    for (size_t m = 0; (mode = ocr_readback_row_name(m)) != NULL; ++m) {
        /* direct: a kernel writing a mapped buffer, which OpenCL does not promise
         * to show through the mapping; sure only where device memory is the host's */
        if (!strcmp(mode, "direct") && !unified) {
            printf(
                "ok   OCLREDUCTION_READBACK=direct: skipped (memory not shared with the host)\n");
            continue;
        }
        setenv("OCLREDUCTION_READBACK", mode, 1);
        ocr_reducer *r = make(OCR_INT, NULL), *r2 = make(OCR_INT, &many);
        unsetenv("OCLREDUCTION_READBACK");
        unsigned bad = sums(r, OCR_INT, b, 300000, few_offs, 3, few_lens, 5);
        bad += sums(r2, OCR_INT, b, 300000, few_offs, 3, few_lens, 5);
        printf("%s OCLREDUCTION_READBACK=%s: %u sums wrong\n", bad ? "FAIL" : "ok  ", mode, bad);
        ocr_reducer_release(r);
        ocr_reducer_release(r2);
    }
    ocr_reducer *bad = NULL;
    setenv("OCLREDUCTION_READBACK", "bogus", 1);
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &bad);
    unsetenv("OCLREDUCTION_READBACK");
    EXPECT(st == OCR_USAGE && !bad && strstr(ocr_reducer_last_error(NULL), "READBACK=bogus"),
           "an unknown readback: status %d, \"%s\"", (int)st, ocr_reducer_last_error(NULL));
    clReleaseMemObject(b);
}

/* ---- offsets (small enough for oclgrind) ------------------------------------------------ */

static void small_offsets(void) {
    static const uint64_t so[] = {0, 1, 2, 3, 5, 17};
    static const uint64_t sl[] = {1, 2, 3, 4, 5, 9, 64, 1001};
    /* read, combined: a widening reducer's head is of int elements, 4 to a load */
    static const ocr_type types[][2] = {
        {OCR_INT, OCR_INT}, {OCR_LONG, OCR_LONG}, {OCR_INT, OCR_LONG}};
    cl_int err;
    for (int i = 0; i < 3; ++i) {
        ocr_type in = types[i][0], t = types[i][1];
        size_t es = ocr_type_size(t);
        ocr_reducer *r = make_from(in, t, NULL);
        cl_mem b = input(in, 1100);
        unsigned bad = sums(r, t, b, 1100, so, 6, sl, 8);
        /* and into elements 1, 2, 3 of a buffer whose elements 0 and 4 stay zero */
        unsigned char zero[40] = {0}, got[40];
        cl_mem res =
            clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 5 * es, zero, &err);
        CL_OK(err);
        for (unsigned j = 1; j <= 3; ++j)
            EXPECT(ocr_reducer_reduce_into(r, q, b, j, 1000 + j, res, j, 0, NULL, NULL) == OCR_OK,
                   "into %u: %s", j, ocr_reducer_last_error(r));
        CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, 5 * es, got, 0, NULL, NULL));
        for (unsigned j = 1; j <= 3; ++j) {
            ocr_value v = {0};
            memcpy(&v, got + j * es, es);
            bad += as_int(t, &v) != want(j, 1000 + j);
        }
        EXPECT(bad == 0 && !memcmp(got, zero, es) && !memcmp(got + 4 * es, zero, es),
               "%s: %u wrong, or a neighbour written", ocr_type_name(t), bad);
        printf("%s %s into %s: %d offsets x %d lengths and 3 result offsets, %u wrong\n",
               bad ? "FAIL" : "ok  ", ocr_type_name(in), ocr_type_name(t), 6, 8, bad);
        clReleaseMemObject(res), clReleaseMemObject(b), ocr_reducer_release(r);
    }
}

/* ---- tunecache ------------------------------------------------------------------------------ */

/* The reducer's geometry is FILE's int entry (local size, groups, unroll). */
static void tunecache(const char *file) {
    char line[1024];
    size_t local = 0, groups = 0;
    unsigned unroll = 0, found = 0;
    FILE *f = fopen(file, "r");
    while (f && fgets(line, sizeof line, f)) {
        char *fld[10], *save = NULL;
        int n = 0;
        for (char *t = strtok_r(line, "\t\n", &save); t && n < 10;
             t = strtok_r(NULL, "\t\n", &save))
            fld[n++] = t;
        if (n == 10 && !strcmp(fld[3], "int"))
            local = strtoul(fld[5], NULL, 10), groups = strtoul(fld[6], NULL, 10),
            unroll = (unsigned)strtoul(fld[7], NULL, 10), ++found;
    }
    if (f) fclose(f);
    EXPECT(found == 1, "%s holds %u int entries", file, found);
    ocr_reducer *r = make(OCR_INT, NULL);
    expect_geometry(r, local, groups, 4 * unroll, "from the --tune cache");
    cl_mem b = input(OCR_INT, 80000);
    unsigned bad = sums(r, OCR_INT, b, 80000, offs, NOFFS, lens, NLENS);
    printf("%s the reducer took %s's int entry: %zu x %zu groups, unroll %u; %u sums wrong\n",
           bad ? "FAIL" : "ok  ", file, local, groups, unroll, bad);
    clReleaseMemObject(b);
    ocr_reducer_release(r);
}

/* POCL keeps its compiled kernels under $XDG_CACHE_HOME/pocl unless
 * POCL_CACHE_DIR says otherwise: pin it where it is, so that only our cache
 * moves (a cold POCL cache recompiles everything, and leaks inside POCL that
 * the sanitizer build would report). */
static int keep_pocl_cache(void) {
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[1024];
    if (getenv("POCL_CACHE_DIR")) return 0;
    snprintf(dir, sizeof dir, "%s%s/pocl",
             x && *x ? x
             : home  ? home
                     : ".",
             x && *x ? "" : "/.cache");
    return setenv("POCL_CACHE_DIR", dir, 1);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    int needs_arg = !strcmp(mode, "tuned") || !strcmp(mode, "tunecache");
    if (argc < 2 + needs_arg) {
        fprintf(stderr, "usage: test_reducer_calls share | tuned KERNEL_DIR | into | queues | "
                        "readback | offsets | plans [CASE] | tunecache FILE\n");
        return 2;
    }
    int own_cache = strcmp(mode, "tunecache") != 0;
    if (own_cache &&
        (keep_pocl_cache() || !mkdtemp(cache_dir) || setenv("XDG_CACHE_HOME", cache_dir, 1))) {
        perror("test_reducer_calls: a cache directory");
        return 1;
    }
    CL_OPEN_FIRST(dev, ctx, q);
    if (!strcmp(mode, "share"))
        share();
    else if (!strcmp(mode, "tuned"))
        tuned(argv[2]);
    else if (!strcmp(mode, "into"))
        into();
    else if (!strcmp(mode, "queues"))
        two_queues(), out_of_order();
    else if (!strcmp(mode, "readback"))
        readback();
    else if (!strcmp(mode, "offsets"))
        small_offsets();
    else if (!strcmp(mode, "plans"))
        plans(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(mode, "tunecache"))
        tunecache(argv[2]);
    else
        return fprintf(stderr, "test_reducer_calls: unknown mode %s\n", mode), 2;
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    if (own_cache) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
        if (system(cmd) != 0) printf("note: could not remove %s\n", cache_dir);
    }
    printf("%s\n", check_failures ? "FAILED" : "PASSED");
    return check_failures ? 1 : 0;
}
