/*
 * peers.c - reduce7 against the OpenCL reductions applications use today, on
 * one device, in one process, over one input buffer (bench/drivers/peers.sh adds
 * PyOpenCL and prints the table).
 *
 *   ocr_peers [-p P] [-d D] [-t gpu|cpu|all] [--kernel-dir DIR] [--sizes "20 25 28"]
 *             [--types "int float"] [-r R] [--budget SECONDS] [--seed S] [--no-header]
 *   ocr_peers [device and size options] --which
 *
 * Prints CSV rows (header: see `columns`) on stdout; progress and skipped
 * peers on stderr. Exit 0 when our answers are right (a peer's wrong answer is
 * a finding, reported in its row), 1 when ours are wrong, 2 usage, 3 runtime.
 * --which prints the options that name the same device, sizes and runs to
 * bench/peers/peers_pyopencl.py, and exits.
 *
 * Timed region, the same for every side: the host clock (CLOCK_MONOTONIC)
 * from before the first enqueue until the sum is in host memory, launches and
 * each side's own allocations and read-back included. The input is already
 * on the device (written once, untimed). Each side runs twice untimed (program
 * builds, caches), then R times, round-robin with the other sides so that
 * noise on a shared machine falls on all of them alike; a side whose call is
 * so slow that R calls would pass --budget runs fewer (at least 3). Median and
 * minimum are reported, and every timed call's answer is checked against an
 * exact reference.
 *
 *  ours             reduce7 built by the library with the device's defaults:
 *                   its passes, a blocking read of the values left, the CPU
 *                   finish. Scratch buffers are made once, as a reducer would.
 *  ours_m1          the same with M = 1: every pass on the device, one value read.
 *  clblast_sum      CLBlastSsum into a 1-element buffer made once, then a
 *                   blocking read of it. Float only: CLBlast has no integer sum.
 *  clblast_asum     CLBlastSasum likewise, over a second buffer (see data).
 *  boost_reduce     boost::compute::reduce(first, last, &host_value, queue):
 *                   makes its temporary buffers and reads the value itself.
 *  boost_accumulate boost::compute::accumulate(first, last, 0, queue): int
 *                   goes to reduce; float runs Boost's serial kernel (one
 *                   work-item), which Boost documents, to keep the order.
 *
 * Data: integer values, so every sum is exact. Element i draws h = splitmix64
 * of (seed, i); the value is +-(1 + h/2 mod K), sign from h's low bit, K = 1024
 * for int and 4 for float. Every partial sum a library forms by adding
 * contiguous or strided ranges is a random walk far below 2^24, so float sums
 * are exact too. xASUM gets +-1 at every s-th element and 0 elsewhere, s =
 * max(1, n / 2^23), so that sum |x| <= 2^23 is exact in any order.
 * bench/peers/peers_pyopencl.py draws the same values.
 *
 * Needs: the library (reduce7) and libOpenCL. CLBlast (libclblast.so.1) and
 * the Boost.Compute module (libocr_peers_boost.so) are loaded at run time:
 * from $OCR_PEERS_CLBLAST / $OCR_PEERS_BOOST, else beside this program, else
 * the system's library path; each is skipped with a message when missing.
 */
#define _POSIX_C_SOURCE          200809L /* readlink */
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIZES 16
#define MAX_REPS  1000

static const char columns[] = "platform_index,device_index,device,driver,type,n,peer,median_ms,"
                              "min_ms,gbs,reps,result,expected,correct,note";

/* ---- data ------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fills x with the sum data and returns their exact sum. */
static int64_t fill_sum(void *x, uint64_t n, ocr_type t, uint64_t seed) {
    int64_t s = 0;
    int64_t k = t == OCR_INT ? 1024 : 4;
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t h = splitmix64(seed, i);
        int64_t v = 1 + (int64_t)((h >> 1) % (uint64_t)k);
        if (h & 1) v = -v;
        s += v;
        if (t == OCR_INT)
            ((cl_int *)x)[i] = (cl_int)v;
        else
            ((cl_float *)x)[i] = (cl_float)v;
    }
    return s;
}

/* Fills x with the xASUM data and returns their exact sum of magnitudes. */
static int64_t fill_asum(cl_float *x, uint64_t n, uint64_t seed) {
    uint64_t step = n >> 23 > 1 ? n >> 23 : 1;
    int64_t s = 0;
    for (uint64_t i = 0; i < n; ++i) {
        x[i] = 0.0f;
        if (i % step == 0) {
            x[i] = (splitmix64(seed, i) & 1) ? -1.0f : 1.0f;
            ++s;
        }
    }
    return s;
}

/* ---- the sides ------------------------------------------------------------- */

typedef int (*clblast_sum_fn)(size_t n, cl_mem out, size_t out_off, const cl_mem x, size_t x_off,
                              size_t x_inc, cl_command_queue *q, cl_event *ev);
typedef int (*boost_sum_fn)(cl_command_queue q, cl_mem x, size_t n, const char *type,
                            const char *algo, void *out, char *err, size_t errlen);

typedef struct {
    ocr_device *dev;
    cl_command_queue q;
    ocr_type type;
    uint64_t n;
    cl_mem x, x_asum, out1; /* input, xASUM's input, a 1-element result */
    ocr_kernel *k;
    ocr_plan plan[2]; /* ours, ours_m1 */
    cl_mem scratch[2][2];
    void *left;
    clblast_sum_fn clblast[2]; /* sum, asum */
    boost_sum_fn boost;
    char err[512];
} ctx;

/* A failed OpenCL call of this tool, said as the library says its own. */
static ocr_status cl_failed(const char *call, cl_int err, int line) {
    fprintf(stderr, "oclReduction: %.*s failed: %s (%d) at peers.c:%d\n", (int)strcspn(call, "("),
            call, ocr_cl_error_name(err), (int)err, line);
    return OCR_OPENCL;
}
#define PEERS_CHECK(err, call)                                                                     \
    do {                                                                                           \
        cl_int e_ = (err);                                                                         \
        if (e_ != CL_SUCCESS) {                                                                    \
            st = cl_failed((call), e_, __LINE__);                                                  \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define PEERS_CL(call) PEERS_CHECK((call), #call)

/* One reduce7 reduction: the library's launches (ocr_plan_enqueue, as
 * ocr_run and the reducer make them), without the upload. */
static ocr_status ours_run(ctx *c, int m1, void *out) {
    ocr_status st = OCR_OK;
    const ocr_plan *p = &c->plan[m1];
    size_t es = ocr_type_size(c->type);
    cl_mem last = p->npasses ? c->scratch[m1][(p->npasses - 1) % 2] : c->x;
    if ((st = ocr_plan_enqueue(c->q, c->k, p, c->x, c->scratch[m1])) != OCR_OK) goto fail;
    PEERS_CL(clEnqueueReadBuffer(c->q, last, CL_TRUE, 0, p->leftover * es, c->left, 0, NULL, NULL));
    ocr_value v = ocr_reduce_naive(c->left, p->leftover, c->type, OCR_SUM);
    memcpy(out, &v, es);
fail:
    return st;
}

static int side_ours(ctx *c, void *out) {
    return ours_run(c, 0, out) == OCR_OK ? 0 : -1;
}
static int side_ours_m1(ctx *c, void *out) {
    return ours_run(c, 1, out) == OCR_OK ? 0 : -1;
}

static int clblast_run(ctx *c, int asum, void *out) {
    cl_event ev = NULL;
    int s = c->clblast[asum](c->n, c->out1, 0, asum ? c->x_asum : c->x, 0, 1, &c->q, &ev);
    if (s != 0) {
        snprintf(c->err, sizeof c->err, "CLBlast status %d", s);
        return -1;
    }
    if (ev) clReleaseEvent(ev);
    cl_int e = clEnqueueReadBuffer(c->q, c->out1, CL_TRUE, 0, sizeof(cl_float), out, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        snprintf(c->err, sizeof c->err, "clEnqueueReadBuffer: %s", ocr_cl_error_name(e));
    return e == CL_SUCCESS ? 0 : -1;
}
static int side_clblast_sum(ctx *c, void *out) {
    return clblast_run(c, 0, out);
}
static int side_clblast_asum(ctx *c, void *out) {
    return clblast_run(c, 1, out);
}

static int boost_run(ctx *c, const char *algo, void *out) {
    return c->boost(c->q, c->x, c->n, ocr_type_name(c->type), algo, out, c->err, sizeof c->err);
}
static int side_boost_reduce(ctx *c, void *out) {
    return boost_run(c, "reduce", out);
}
static int side_boost_accumulate(ctx *c, void *out) {
    return boost_run(c, "accumulate", out);
}

enum { NEEDS_NOTHING, NEEDS_CLBLAST, NEEDS_BOOST };

/* Every side: its name, what it needs, whether it takes int, and whether it
 * reads the xASUM input. */
static const struct side {
    const char *name;
    int needs, takes_int, asum;
    int (*run)(ctx *, void *);
} sides[] = {
    {"ours", NEEDS_NOTHING, 1, 0, side_ours},
    {"ours_m1", NEEDS_NOTHING, 1, 0, side_ours_m1},
    {"boost_reduce", NEEDS_BOOST, 1, 0, side_boost_reduce},
    {"boost_accumulate", NEEDS_BOOST, 1, 0, side_boost_accumulate},
    {"clblast_sum", NEEDS_CLBLAST, 0, 0, side_clblast_sum},
    {"clblast_asum", NEEDS_CLBLAST, 0, 1, side_clblast_asum},
};
enum { NSIDES = sizeof sides / sizeof sides[0] };

/* ---- loading the peers ----------------------------------------------------- */

/* dlopen()s `file` from $env, else beside this program, else the library path;
 * on failure prints why and returns NULL. */
static void *load(const char *what, const char *env, const char *file) {
    char path[4200], exe[4096];
    const char *e = getenv(env);
    if (e && *e) {
        void *h = dlopen(e, RTLD_NOW | RTLD_LOCAL);
        if (!h) fprintf(stderr, "ocr_peers: %s skipped: %s\n", what, dlerror());
        return h;
    }
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(path, sizeof path, "%s/%s", exe, file);
        if (access(path, F_OK) == 0) {
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (!h) fprintf(stderr, "ocr_peers: %s skipped: %s\n", what, dlerror());
            return h;
        }
    }
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "ocr_peers: %s skipped (set %s to its path): %s\n", what, env, dlerror());
    return h;
}

/* ---- timing ---------------------------------------------------------------- */

typedef struct {
    int on;        /* runs for this type */
    unsigned reps; /* timed calls it gets */
    uint64_t t[MAX_REPS];
    unsigned done, right;
    unsigned char last[8], bad[8]; /* the last answer, the first wrong one */
    int failed;                    /* a call failed: no more calls */
    char note[160];
} record;

static int same(const void *got, const void *want, ocr_type t) {
    if (t == OCR_INT) return *(const cl_int *)got == *(const cl_int *)want;
    return *(const cl_float *)got == *(const cl_float *)want;
}

static void value_str(ocr_type t, const void *v, char *buf, size_t len) {
    if (t == OCR_INT)
        snprintf(buf, len, "%d", (int)*(const cl_int *)v);
    else
        snprintf(buf, len, "%.9g", (double)*(const cl_float *)v);
}

/* The side being called, for the crash report: a peer library that dies
 * (SIGSEGV inside Boost.Compute or CLBlast) is named, with a backtrace, and
 * the rows already printed stay (stdout is flushed row by row). */
static const char *volatile current_side = "setup";

static void on_crash(int sig) {
    static const char head[] = "ocr_peers: crashed (signal ";
    char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ')', ' '};
    void *frames[48];
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, num, sizeof num);
    (void)!write(2, "in side ", 8);
    (void)!write(2, current_side, strlen(current_side));
    (void)!write(2, "\n", 1);
    backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Calls side s once; returns its time in ns, or 0 after a failure (noted). */
static uint64_t call(ctx *c, const struct side *s, record *r, void *out) {
    c->err[0] = '\0';
    current_side = s->name;
    uint64_t t0 = ocr_now_ns();
    int rc = s->run(c, out);
    uint64_t t = ocr_now_ns() - t0;
    if (rc != 0) {
        r->failed = 1;
        snprintf(r->note, sizeof r->note, "call failed: %.140s", c->err[0] ? c->err : "see stderr");
        for (char *p = r->note; *p; ++p)
            if (*p == ',' || *p == '\n') *p = ';';
        return 0;
    }
    return t ? t : 1;
}

/* ---- one (type, n) --------------------------------------------------------- */

typedef struct {
    int pidx, didx;
    const char *device, *driver;
    unsigned reps;
    double budget;
    uint64_t seed;
} setup;

static void csv_text(const char *s) {
    for (; *s; ++s)
        putchar(*s == ',' ? ';' : *s);
}

static ocr_status measure(ctx *c, const setup *su, int have_clblast, int have_boost) {
    ocr_status st = OCR_OK;
    cl_int err;
    size_t es = ocr_type_size(c->type);
    uint64_t bytes = c->n * es;
    void *host = NULL;
    unsigned char want[8] = {0}, want_asum[8] = {0};
    record *rec = calloc(NSIDES, sizeof *rec);
    if (!rec) {
        fprintf(stderr, "oclReduction: out of host memory\n");
        return OCR_RUNTIME;
    }

    /* The input, on the device once. */
    host = malloc(bytes);
    if (!host) {
        fprintf(stderr, "oclReduction: out of host memory (%llu MiB)\n",
                (unsigned long long)(bytes >> 20));
        st = OCR_RUNTIME;
        goto fail;
    }
    int64_t sum = fill_sum(host, c->n, c->type, su->seed);
    if (c->type == OCR_INT) {
        cl_int v = (cl_int)(uint32_t)sum; /* int sums wrap, like the kernels' */
        memcpy(want, &v, 4);
    } else {
        cl_float v = (cl_float)sum;
        memcpy(want, &v, 4);
    }
    c->x = clCreateBuffer(ocr_device_context(c->dev), CL_MEM_READ_ONLY, bytes, NULL, &err);
    PEERS_CHECK(err, "clCreateBuffer");
    PEERS_CL(clEnqueueWriteBuffer(c->q, c->x, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    if (have_clblast && c->type == OCR_FLOAT) {
        cl_float v = (cl_float)fill_asum(host, c->n, su->seed);
        memcpy(want_asum, &v, 4);
        c->x_asum = clCreateBuffer(ocr_device_context(c->dev), CL_MEM_READ_ONLY, bytes, NULL, &err);
        PEERS_CHECK(err, "clCreateBuffer");
        PEERS_CL(clEnqueueWriteBuffer(c->q, c->x_asum, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
    }
    free(host);
    host = NULL;

    /* Our plans and their scratch buffers. */
    for (int m1 = 0; m1 < 2; ++m1) {
        uint64_t m = m1 ? 1 : ocr_kernel_default_m(c->k);
        if ((st = ocr_plan_make(ocr_kernel_geometry(c->k), c->n, m, &c->plan[m1])) != OCR_OK)
            goto fail;
        for (unsigned i = 0; i < 2; ++i) {
            uint64_t e = c->plan[m1].npasses > i ? c->plan[m1].pass[i].n_out : 1;
            c->scratch[m1][i] =
                clCreateBuffer(ocr_device_context(c->dev), CL_MEM_READ_WRITE, e * es, NULL, &err);
            PEERS_CHECK(err, "clCreateBuffer");
        }
    }
    c->left = malloc(
        (c->plan[0].leftover > c->plan[1].leftover ? c->plan[0].leftover : c->plan[1].leftover) *
        es);
    if (!c->left) {
        fprintf(stderr, "oclReduction: out of host memory\n");
        st = OCR_RUNTIME;
        goto fail;
    }

    /* Warm-up: two untimed calls each; the second one's time sets its reps. */
    fprintf(stderr, "ocr_peers: %s, n = %llu\n", ocr_type_name(c->type), (unsigned long long)c->n);
    for (int i = 0; i < NSIDES; ++i) {
        const struct side *s = &sides[i];
        record *r = &rec[i];
        r->on = (c->type == OCR_FLOAT || s->takes_int) &&
                (s->needs != NEEDS_CLBLAST || have_clblast) &&
                (s->needs != NEEDS_BOOST || have_boost);
        if (!r->on) continue;
        unsigned char out[8];
        uint64_t t = 0;
        for (int w = 0; w < 2 && !r->failed; ++w)
            t = call(c, s, r, out);
        double per = (double)t / 1e9;
        r->reps = su->reps;
        if (per * su->reps > su->budget) {
            unsigned fit = (unsigned)(su->budget / per);
            r->reps = fit < 3 ? 3 : fit;
            if (r->reps < su->reps)
                snprintf(r->note, sizeof r->note, "%u of %u runs (%.3g s each; --budget %.3g s)",
                         r->reps, su->reps, per, su->budget);
        }
    }

    /* Timed: round-robin over the sides. */
    for (unsigned rep = 0; rep < su->reps; ++rep)
        for (int i = 0; i < NSIDES; ++i) {
            record *r = &rec[i];
            if (!r->on || r->failed || rep >= r->reps) continue;
            unsigned char out[8] = {0};
            uint64_t t = call(c, &sides[i], r, out);
            if (!t) continue;
            r->t[r->done++] = t;
            memcpy(r->last, out, 8);
            if (same(out, sides[i].asum ? want_asum : want, c->type))
                ++r->right;
            else if (r->done - r->right == 1)
                memcpy(r->bad, out, 8);
        }

    /* Rows. */
    for (int i = 0; i < NSIDES; ++i) {
        record *r = &rec[i];
        if (!r->on) continue;
        char got[64], exp[64];
        int wrong = r->right < r->done;
        value_str(c->type, wrong ? r->bad : r->last, got, sizeof got);
        value_str(c->type, sides[i].asum ? want_asum : want, exp, sizeof exp);
        double med = r->done ? (double)ocr_median_u64(r->t, r->done) / 1e6 : 0;
        double mn = r->done ? (double)ocr_min_u64(r->t, r->done) / 1e6 : 0;
        printf("%d,%d,", su->pidx, su->didx);
        csv_text(su->device);
        putchar(',');
        csv_text(su->driver);
        printf(",%s,%llu,%s,%.6f,%.6f,%.3f,%u,%s,%s,%u/%u,", ocr_type_name(c->type),
               (unsigned long long)c->n, sides[i].name, med, mn,
               med > 0 ? (double)bytes / med / 1e6 : 0, r->done, got, exp, r->right, r->done);
        if (wrong)
            printf("WRONG: %u of %u answers differ from the exact sum; ", r->done - r->right,
                   r->done);
        csv_text(r->note);
        putchar('\n');
        if (wrong) {
            fprintf(stderr,
                    "ocr_peers: %s gave %s for %s n=%llu, exact %s (%u of %u calls wrong)\n",
                    sides[i].name, got, ocr_type_name(c->type), (unsigned long long)c->n, exp,
                    r->done - r->right, r->done);
            if (sides[i].needs == NEEDS_NOTHING && st == OCR_OK) st = OCR_WRONG;
        }
        if (r->failed && sides[i].needs == NEEDS_NOTHING) st = OCR_RUNTIME;
    }
    fflush(stdout);

fail:
    clFinish(c->q);
    free(c->left);
    c->left = NULL;
    for (int m1 = 1; m1 >= 0; --m1)
        for (int i = 1; i >= 0; --i)
            if (c->scratch[m1][i]) {
                clReleaseMemObject(c->scratch[m1][i]);
                c->scratch[m1][i] = NULL;
            }
    if (c->x_asum) clReleaseMemObject(c->x_asum);
    if (c->x) clReleaseMemObject(c->x);
    c->x = c->x_asum = NULL;
    free(host);
    free(rec);
    return st;
}

/* ---- main ------------------------------------------------------------------ */

/* Runs this program again on the same device with only `lib`'s peer (and
 * ours) on one small input of `type`, output discarded: the signal that
 * killed it, 0 if it ended. A peer library that crashes (Boost.Compute 1.83's
 * GPU reduce does on NVIDIA's OpenCL) is then skipped with a message instead
 * of taking the whole table down; one that answers wrong still runs and is
 * marked WRONG. */
static int probe_crash(int argc, char **argv, const char *lib, const char *type) {
    char *extra[] = {"--peers", (char *)lib, "--sizes",    "10",      "-r",
                     "1",       "--types",   (char *)type, "--probe", NULL};
    enum { NEXTRA = sizeof extra / sizeof extra[0] };
    char **av = calloc((size_t)argc + NEXTRA, sizeof *av);
    if (!av) return 0;
    for (int i = 0; i < argc; ++i)
        av[i] = argv[i];
    for (int i = 0; i < NEXTRA; ++i)
        av[argc + i] = extra[i];
    extern char **environ;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int sig = 0, status = 0;
    if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, av, environ) == 0 &&
        waitpid(pid, &status, 0) == pid && WIFSIGNALED(status))
        sig = WTERMSIG(status);
    posix_spawn_file_actions_destroy(&fa);
    free(av);
    return sig;
}

static int usage(const char *msg) {
    fprintf(stderr,
            "ocr_peers: %s\nusage: ocr_peers [-p P] [-d D] [-t gpu|cpu|all] [--kernel-dir DIR] "
            "[--sizes \"20 25 28\"] [--types \"int float\"] [-r R] [--budget SECONDS] [--seed S] "
            "[--no-header] [--which] [--peers \"boost clblast\"]\n",
            msg);
    return OCR_USAGE;
}

/* The index of the device's platform and its index within it (what PyOpenCL's
 * get_platforms()[p].get_devices()[d] names). */
static void device_indices(cl_device_id id, int *pidx, int *didx) {
    cl_platform_id plats[16];
    cl_uint np = 0;
    *pidx = *didx = -1;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return;
    for (cl_uint p = 0; p < np && p < 16; ++p) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && d < 64; ++d)
            if (devs[d] == id) {
                *pidx = (int)p;
                *didx = (int)d;
                return;
            }
    }
}

/* The library prints nothing unless asked: its messages, as the CLI shows them. */
static void print_message(void *user, const char *message) {
    (void)user;
    fprintf(stderr, "oclReduction: %s\n", message);
}

/* The end of a run. Boost.Compute and CLBlast keep OpenCL programs in static
 * caches, released by their destructors at exit; from a dlopen()ed module
 * that crashes (SIGSEGV, exit 139) on NVIDIA's runtime after every row was
 * printed and right (boostorg/compute#836, CLBlast#126; POCL does not mind).
 * So CLBlast's cache is emptied while the device is open, and the process
 * ends without exit-time destructors: its end releases the rest. */
static int leave(ocr_device *dev, void *clblast, ocr_status st) {
    int (*clear)(void) = NULL; /* CLBlastStatusCode CLBlastClearCache(void) */
    if (clblast) *(void **)&clear = dlsym(clblast, "CLBlastClearCache");
    if (clear) (void)clear();
    ocr_device_close(dev);
    fflush(stdout);
    fflush(stderr);
    _exit(st == OCR_OK ? 0 : st == OCR_WRONG ? 1 : st == OCR_USAGE ? 2 : 3); /* the CLI's codes */
}

int main(int argc, char **argv) {
    ocr_set_message_callback(print_message, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0); /* rows survive a peer that crashes */
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    ocr_device_choice choice = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    const char *kdir = NULL, *sizes_arg = NULL, *types_arg = "int float";
    setup su = {0};
    su.reps = 0;
    su.budget = 10;
    su.seed = 1;
    int header = 1, which = 0, probe = 0;
    const char *peers = "boost clblast";
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-header") || !strcmp(a, "--which") || !strcmp(a, "--probe")) {
            if (a[2] == 'n')
                header = 0;
            else if (a[2] == 'w')
                which = 1;
            else
                probe = 1, header = 0;
            continue;
        }
        if (!v) return usage("missing value");
        ++i;
        if (!strcmp(a, "-p"))
            choice.platform = atoi(v);
        else if (!strcmp(a, "-d"))
            choice.device = atoi(v);
        else if (!strcmp(a, "-t")) {
            choice.type_given = 1;
            choice.type = !strcmp(v, "gpu")   ? CL_DEVICE_TYPE_GPU
                          : !strcmp(v, "cpu") ? CL_DEVICE_TYPE_CPU
                                              : CL_DEVICE_TYPE_ALL;
        } else if (!strcmp(a, "--kernel-dir"))
            kdir = v;
        else if (!strcmp(a, "--sizes"))
            sizes_arg = v;
        else if (!strcmp(a, "--types"))
            types_arg = v;
        else if (!strcmp(a, "-r"))
            su.reps = (unsigned)atoi(v);
        else if (!strcmp(a, "--budget"))
            su.budget = atof(v);
        else if (!strcmp(a, "--seed"))
            su.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--peers"))
            peers = v;
        else
            return usage("unknown option");
    }
    if (su.reps > MAX_REPS || su.budget <= 0) return usage("bad -r or --budget");

    ocr_device *dev = NULL;
    ocr_status st = ocr_device_open(&choice, &dev);
    if (st != OCR_OK) return st;
    const ocr_device_info *in = ocr_device_get_info(dev);
    int gpu = (in->type & CL_DEVICE_TYPE_GPU) != 0;
    /* Defaults: smaller on CPUs, where 2^28 takes seconds per call. */
    if (!sizes_arg) sizes_arg = gpu ? "20 25 28" : "20 23 25";
    if (!su.reps) su.reps = gpu ? 20 : 5;
    uint64_t sizes[MAX_SIZES];
    int nsizes = 0;
    for (const char *p = sizes_arg; *p;) {
        char *end;
        unsigned long l = strtoul(p, &end, 10);
        if (end == p) break;
        if (l < 1 || l > 31 || nsizes == MAX_SIZES) {
            ocr_device_close(dev);
            return usage("--sizes takes log2 sizes from 1 to 31");
        }
        sizes[nsizes++] = (uint64_t)1 << l;
        p = end;
    }
    device_indices(ocr_device_id(dev), &su.pidx, &su.didx);
    if (which) { /* what bench/drivers/peers.sh hands PyOpenCL: the same device, sizes and runs */
        printf("-p %d -d %d --sizes \"%s\" -r %u --budget %g --seed %llu\n", su.pidx, su.didx,
               sizes_arg, su.reps, su.budget, (unsigned long long)su.seed);
        ocr_device_close(dev);
        return OCR_OK;
    }
    su.device = in->name;
    su.driver = in->driver;
    fprintf(stderr, "ocr_peers: %s (%s, driver %s), platform %d device %d\n", in->name,
            in->platform, in->driver, su.pidx, su.didx);

    ctx c = {0};
    int sig;
    c.dev = dev;
    c.q = ocr_device_queue(dev);
    void *hb =
        strstr(peers, "clblast") ? load("CLBlast", "OCR_PEERS_CLBLAST", "libclblast.so.1") : NULL;
    if (hb && !probe && (sig = probe_crash(argc, argv, "clblast", "float"))) {
        fprintf(stderr,
                "ocr_peers: CLBlast skipped: it crashed (signal %d) in a probe run on this "
                "device\n",
                sig);
        hb = NULL;
    }
    if (hb) {
        *(void **)&c.clblast[0] = dlsym(hb, "CLBlastSsum");
        *(void **)&c.clblast[1] = dlsym(hb, "CLBlastSasum");
        if (!c.clblast[0] || !c.clblast[1])
            fprintf(stderr, "ocr_peers: CLBlast skipped: no CLBlastSsum/Sasum\n");
    }
    void *hx = strstr(peers, "boost")
                   ? load("Boost.Compute", "OCR_PEERS_BOOST", "libocr_peers_boost.so")
                   : NULL;
    if (hx && !probe && (sig = probe_crash(argc, argv, "boost", "int"))) {
        fprintf(stderr,
                "ocr_peers: Boost.Compute skipped: it crashed (signal %d) in a probe run on "
                "this device\n",
                sig);
        hx = NULL;
    }
    if (hx) {
        *(void **)&c.boost = dlsym(hx, "ocr_peers_boost_sum");
        const char *(*version)(void);
        *(void **)&version = dlsym(hx, "ocr_peers_boost_version");
        fprintf(stderr, "ocr_peers: Boost.Compute of Boost %s\n",
                version ? version() : "(unknown)");
    }
    int have_clblast = c.clblast[0] && c.clblast[1], have_boost = c.boost != NULL;

    if (header) puts(columns);
    for (const char *tp = types_arg; *tp && st <= OCR_WRONG;) {
        tp += strspn(tp, " ");
        size_t len = strcspn(tp, " ");
        if (!len) break;
        char tn[16];
        snprintf(tn, sizeof tn, "%.*s", (int)len, tp);
        tp += len;
        ocr_type t;
        if (ocr_type_from_name(tn, &t) || (t != OCR_INT && t != OCR_FLOAT)) {
            st = usage("--types takes int and float");
            break;
        }
        ocr_build_request rq = {
            .spec = *ocr_kernel_find("reduce7"), .kernel_dir = kdir, .type = t, .op = OCR_SUM};
        c.type = t;
        if ((st = ocr_kernel_build(dev, &rq, &c.k)) != OCR_OK) break;
        for (int i = 0; i < nsizes && st <= OCR_WRONG; ++i) {
            c.n = sizes[i];
            c.out1 = clCreateBuffer(ocr_device_context(dev), CL_MEM_READ_WRITE, sizeof(cl_float),
                                    NULL, NULL);
            ocr_status s2 = c.out1 ? measure(&c, &su, have_clblast, have_boost) : OCR_RUNTIME;
            if (c.out1) clReleaseMemObject(c.out1);
            c.out1 = NULL;
            if (s2 > st) st = s2;
        }
        ocr_kernel_release(c.k);
        c.k = NULL;
    }
    return leave(dev, hb, st);
}
