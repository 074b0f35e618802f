#define _POSIX_C_SOURCE 200809L
/*
 * ocr_mpi.c - oclReduction --mpi: one reduction over the ranks of an MPI job
 * (compiled only with -DOCR_MPI=ON). Each rank takes a contiguous share of
 * the global index range, makes its elements of the one seeded input
 * (ocr_data_fill_range), reduces them on the device its node-local rank
 * picks, and MPI_Reduce combines the ranks' values on rank 0, which prints
 * the one report. docs/scale.md says how to run it.
 *
 * No hang on errors: every rank captures its own stderr while it works, and
 * the ranks agree on the worst status (MPI_Allreduce) before anything that
 * needs them all (the runs, whose barriers keep the ranks in step, and the
 * MPI_Reduce). On failure rank 0 prints the first failing rank's message and
 * every rank exits with the worst status.
 */
#include "modes.h"
#include "cli_report.h"

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MSG_LEN = 4096 };

/* Under a launcher every rank parses the same arguments and would print the
 * same usage error: only rank 0 says it. MPI has not started yet, so the rank
 * comes from the launcher's environment (Open MPI, PMI, PMIx). */
int cli_mpi_mute_parse(int argc, char **argv) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    if (!r) r = getenv("PMIX_RANK");
    int mpi = 0;
    for (int i = 1; i < argc; ++i)
        mpi |= strcmp(argv[i], "--mpi") == 0;
    if (!mpi || !r || strcmp(r, "0") == 0) return -1;
    fflush(stderr);
    int saved = dup(2), nul = open("/dev/null", O_WRONLY);
    if (saved < 0 || nul < 0 || dup2(nul, 2) < 0) {
        if (saved >= 0) close(saved);
        saved = -1;
    }
    if (nul >= 0) close(nul);
    return saved;
}

void cli_mpi_unmute(int saved) {
    if (saved < 0) return;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* The matching MPI datatype and operator. Integer sums, products and bitwise
 * operators go through the unsigned type of the same width: the same bits as
 * the kernels' wrapping arithmetic, without signed overflow in the library.
 * Built at run time: MPI's handles need not be constant expressions. */
static MPI_Datatype mpi_type(ocr_type t, ocr_op o) {
    int wrap = o != OCR_MIN && o != OCR_MAX;
    const MPI_Datatype types[OCR_NTYPES] = {wrap ? MPI_UNSIGNED : MPI_INT,
                                            MPI_UNSIGNED,
                                            wrap ? MPI_UINT64_T : MPI_INT64_T,
                                            MPI_UINT64_T,
                                            MPI_FLOAT,
                                            MPI_DOUBLE};
    return types[t];
}
static MPI_Op mpi_op(ocr_op o) {
    const MPI_Op ops[OCR_NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
    return ops[o];
}

/* When a rank dies, the launcher ends the others: Open MPI sends each
 * SIGTERM, then SIGKILL a second later, and exits with the dead rank's
 * status. A survivor that just died of SIGTERM would say nothing of why, so
 * each rank says so on its real stderr (not the capture below: term_fd
 * follows it) and exits 3, the status of an error outside the reduction. */
static volatile sig_atomic_t term_fd = 2;
static char term_msg[320];
static size_t term_len;

static void on_term(int sig) {
    (void)sig;
    ssize_t w = write((int)term_fd, term_msg, term_len);
    (void)w;
    _exit(cli_exit_code(OCR_RUNTIME));
}

static void catch_term(int rank, int size, const char *host) {
    struct sigaction sa;
    int n = snprintf(term_msg, sizeof term_msg,
                     "oclReduction: --mpi: rank %d of %d (%s) ended by the launcher (SIGTERM) "
                     "before the job finished: another rank failed, or mpirun was stopped; no "
                     "result\n",
                     rank, size, host);
    term_len = n < 0 ? 0 : (size_t)n < sizeof term_msg ? (size_t)n : sizeof term_msg - 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
}

/* This rank's stderr, kept in a temporary file while it works. */
typedef struct {
    int saved;
    FILE *tmp;
} err_capture;

static void capture_start(err_capture *c) {
    fflush(stderr);
    c->tmp = tmpfile();
    c->saved = c->tmp ? dup(2) : -1;
    if (c->saved >= 0 && dup2(fileno(c->tmp), 2) < 0) {
        close(c->saved);
        c->saved = -1;
    }
    if (c->saved >= 0) term_fd = c->saved;
}

/* Restores stderr and returns what was written meanwhile (NUL-terminated,
 * at most len - 1 bytes, trailing newlines dropped). */
static void capture_stop(err_capture *c, char *buf, size_t len) {
    size_t n = 0;
    fflush(stderr);
    if (c->saved >= 0) {
        term_fd = 2;
        dup2(c->saved, 2);
        close(c->saved);
        c->saved = -1;
    }
    if (c->tmp) {
        rewind(c->tmp);
        n = fread(buf, 1, len - 1, c->tmp);
        fclose(c->tmp);
        c->tmp = NULL;
    }
    while (n > 0 && buf[n - 1] == '\n')
        --n;
    buf[n] = '\0';
}

/* The runs' barrier: every rank starts run r together; rank 0 notes when. */
typedef struct {
    unsigned calls;
    uint64_t *release_ns; /* rank 0: repeats + 2 entries */
} barrier_sync;

static void sync_ranks(void *ctx) {
    barrier_sync *b = ctx;
    MPI_Barrier(MPI_COMM_WORLD);
    if (b->release_ns) b->release_ns[b->calls] = ocr_now_ns();
    b->calls++;
}

/* The ranks' gravest outcome, as an exit code (0..3, which are also the values
 * of OCR_OK, OCR_WRONG, OCR_USAGE and OCR_RUNTIME): library statuses are not
 * ordered by gravity, exit codes are. */
static ocr_status agree(ocr_status st) {
    int mine = cli_exit_code(st), worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return (ocr_status)worst;
}

/* The device of node-local rank `lrank`: -d N on every rank if given, else
 * the node's GPUs (or, without any, the devices of -t) in turn. */
static ocr_status choose_device(const cli_options *o, int lrank, ocr_device_choice *c) {
    ocr_device_choice list[OCR_SPLIT_MAX];
    int n = 0;
    if (o->device.device >= 0) {
        *c = o->device;
        return OCR_OK;
    }
    ocr_status st = ocr_device_select(&o->device, 1, list, OCR_SPLIT_MAX, &n);
    if (st != OCR_OK) return st;
    if (n == 0) {
        fprintf(stderr, "oclReduction: --mpi: no OpenCL device found for this rank (see --list)\n");
        return OCR_RUNTIME;
    }
    *c = list[lrank % n];
    return OCR_OK;
}

/* One rank's share and its run. */
typedef struct {
    ocr_device *dev;
    ocr_kernel *kernel;
    void *data;
    ocr_result res;
    int ran; /* res holds a run */
    uint64_t offset, count;
} share;

static ocr_status setup(const cli_options *o, int rank, int size, int lrank, ocr_build_request *rq,
                        share *s, cli_rank_info *info) {
    ocr_device_choice choice;
    char tuning[1200];
    uint64_t base = o->size / (uint64_t)size, extra = o->size % (uint64_t)size;
    uint64_t r = (uint64_t)rank;
    s->count = base + (r < extra);
    s->offset = r * base + (r < extra ? r : extra);
    ocr_status st = cli_make_request(o, rq);
    if (st != OCR_OK || s->count == 0) return st; /* no share: the identity, no device */
    if ((st = choose_device(o, lrank, &choice)) != OCR_OK) return st;
    if ((st = ocr_device_open(&choice, &s->dev)) != OCR_OK) return st;
    snprintf(info->device, sizeof info->device, "%.127s", ocr_device_get_info(s->dev)->name);
    ocr_build_request brq = *rq; /* reduce7: this device's tuned geometry, as a single run's */
    ocr_tune_apply(s->dev, &brq, tuning, sizeof tuning);
    if ((st = ocr_kernel_build(s->dev, &brq, &s->kernel)) != OCR_OK) return st;
    ocr_run_options ro = cli_run_options(o, o->m, OCR_CPU_NONE);
    if ((st = ocr_check_size(s->dev, s->kernel, s->count, &ro)) != OCR_OK) return st;
    if (!(s->data = cli_make_input(o, s->offset, s->count, "the share"))) return OCR_RUNTIME;
    return OCR_OK;
}

/* Rank 0, after a failure anywhere: the first failing rank's message. */
static void report_failure(int rank, int size, int mine, const char *msg) {
    int *sts = rank == 0 ? calloc((size_t)size, sizeof *sts) : NULL;
    char *msgs = rank == 0 ? calloc((size_t)size, MSG_LEN) : NULL;
    if (rank == 0 && (!sts || !msgs)) {
        fprintf(stderr, "oclReduction: --mpi: a rank failed; out of memory for its message\n");
        MPI_Abort(MPI_COMM_WORLD, OCR_RUNTIME);
    }
    mine = cli_exit_code((ocr_status)mine);
    MPI_Gather(&mine, 1, MPI_INT, sts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(msg, MSG_LEN, MPI_CHAR, msgs, MSG_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    int first = -1, nfail = 0;
    char list[256] = "";
    for (int r = 0; r < size; ++r)
        if (sts[r] >= OCR_USAGE) {
            size_t l = strlen(list);
            if (first < 0) first = r;
            if (l + 16 < sizeof list) snprintf(list + l, sizeof list - l, " %d", r);
            ++nfail;
        }
    if (first < 0) first = 0;
    const char *m = msgs + (size_t)first * MSG_LEN;
    fprintf(
        stderr,
        "oclReduction: --mpi: rank %d of %d failed (exit status %d; %d rank%s failed:%s)%s\n%s%s",
        first, size, sts[first], nfail, nfail == 1 ? "" : "s", list, m[0] ? ":" : "", m,
        m[0] ? "\n" : "");
    free(sts);
    free(msgs);
}

/* Medians and minima over runs 1..reps of the ranks' slowest part. */
static void aggregate(const uint64_t *runs, int size, unsigned reps, const uint64_t *release,
                      uint64_t reduce_ns, cli_mpi_times *med, cli_mpi_times *mn) {
    uint64_t *v = malloc(reps * sizeof *v);
    if (!v) return;
    for (int f = 0; f < 4; ++f) {
        for (unsigned r = 1; r <= reps; ++r) {
            uint64_t mx = 0;
            for (int k = 0; f < 3 && k < size; ++k) {
                uint64_t x = runs[((size_t)k * 3 + (size_t)f) * (reps + 1) + r];
                if (x > mx) mx = x;
            }
            v[r - 1] = f == 3 ? release[r + 1] - release[r] : mx + (f > 0 ? reduce_ns : 0);
        }
        uint64_t mi, me;
        ocr_median_min_u64(v, reps, &me, &mi);
        uint64_t *dm = f == 0   ? &med->kernels
                       : f == 1 ? &med->resident
                       : f == 2 ? &med->total
                                : &med->wall;
        uint64_t *dn = f == 0   ? &mn->kernels
                       : f == 1 ? &mn->resident
                       : f == 2 ? &mn->total
                                : &mn->wall;
        *dm = me, *dn = mi;
    }
    free(v);
}

/* Rank 0: the reference of the whole input (filled here when it fits in
 * 1 GiB, or when a rank's check has a tolerance), else the ranks' exact
 * references combined as the kernels would. */
static void global_reference(const cli_options *o, int size, const cli_rank_info *ri,
                             cli_mpi_view *g) {
    size_t es = ocr_type_size(o->type);
    uint64_t depth = 0;
    int tolerant = 0;
    for (int r = 0; r < size; ++r) {
        if (ri[r].depth > depth) depth = ri[r].depth;
        if (ri[r].tolerance > 0) tolerant = 1;
    }
    void *all = NULL;
    if (o->size * es <= ((uint64_t)1 << 30) || tolerant) all = malloc((size_t)(o->size * es));
    if (all) {
        ocr_reference ref;
        ocr_data_fill(all, o->size, o->type, o->op, o->seed, o->data);
        ocr_reference_make(all, o->size, o->type, o->op, depth + (uint64_t)size, o->data, &ref);
        free(all);
        g->whole = 1, g->expected = ref.expected, g->tolerance = ref.tolerance;
        g->any_order = ref.any_order;
        g->exact = ref.tolerance == 0;
    } else {
        g->expected = ocr_identity(o->type, o->op);
        for (int r = 0; r < size; ++r)
            if (ri[r].count) g->expected = ocr_combine(o->type, o->op, g->expected, ri[r].expected);
        g->exact = 1, g->any_order = 1;
    }
    ocr_reference chk = {
        .expected = g->expected, .tolerance = g->tolerance, .any_order = g->any_order};
    g->passed = ocr_check(o->type, &chk, g->result);
}

/* This rank's place in the job: its rank, the node-local rank that picks its
 * device, and the number of hosts. */
typedef struct {
    int rank, size, lrank, hosts;
    char host[CLI_MPI_NAME_LEN];
} world;

static int world_start(int *argc, char ***argv, world *w) {
    int is_first = 0, name_len = 0;
    char proc[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Comm node;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &w->lrank);
    MPI_Comm_free(&node);
    is_first = w->lrank == 0;
    MPI_Allreduce(&is_first, &w->hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_processor_name(proc, &name_len);
    snprintf(w->host, sizeof w->host, "%s", proc);
    catch_term(w->rank, w->size, w->host);
    return 0;
}

/* Setup, then (once every rank is ready) the runs in step, with this rank's
 * stderr captured into msg; *mine is this rank's status, the result the
 * ranks' agreed one. */
static ocr_status setup_and_run(const cli_options *o, const world *w, ocr_build_request *rq,
                                share *s, cli_rank_info *info, barrier_sync *bs, ocr_status *mine,
                                char *msg, size_t len) {
    err_capture cap;
    capture_start(&cap);
    ocr_status st = w->rank == 0 && !bs->release_ns ? OCR_RUNTIME : OCR_OK;
    if (st != OCR_OK) fprintf(stderr, "oclReduction: out of host memory\n");
    if (st == OCR_OK) st = setup(o, w->rank, w->size, w->lrank, rq, s, info);
    ocr_status all = agree(st);
    if (all == OCR_OK) { /* every rank is ready: the runs, in step */
        if (s->count) {
            ocr_run_options ro = cli_run_options(o, o->m, OCR_CPU_NONE);
            ro.sync = sync_ranks, ro.sync_ctx = bs;
            st = ocr_run(s->dev, s->kernel, s->data, s->count, &ro, &s->res);
            s->ran = st == OCR_OK || st == OCR_WRONG;
        }
        while (bs->calls < o->repeats + 2) /* no share, or a failed run: still every barrier */
            sync_ranks(bs);
        all = agree(st);
    }
    capture_stop(&cap, msg, len);
    *mine = st;
    return all;
}

/* What this rank tells rank 0: info, and its runs' kernels, resident and
 * total times (3 x (reps + 1) values, malloc'd; NULL if out of memory). */
static uint64_t *rank_runs(const share *s, unsigned reps, ocr_status st, cli_rank_info *info) {
    uint64_t *mine = calloc(3 * ((size_t)reps + 1), sizeof *mine);
    info->status = (int)st;
    info->passed = !s->count || (s->ran && s->res.passed);
    info->offset = s->offset, info->count = s->count;
    if (!s->ran) return mine;
    info->depth = s->res.plan.depth, info->elems_read = s->res.plan.elems_read;
    info->kernels_ns = s->res.median.kernels_ns, info->gpu_ns = s->res.median.gpu_ns;
    info->resident_ns = s->res.median.resident_ns, info->h2d_ns = s->res.median.h2d_ns;
    info->expected = s->res.expected, info->tolerance = s->res.tolerance;
    for (unsigned r = 0; mine && r <= reps; ++r) {
        mine[r] = s->res.runs[r].t.kernels_ns;
        mine[reps + 1 + r] = s->res.runs[r].t.resident_ns;
        mine[2 * (reps + 1) + r] = s->res.runs[r].t.gpu_ns;
    }
    return mine;
}

/* Rank 0 gathers every rank's info and runs, checks the global value and
 * prints the report; every rank returns the verdict. */
static ocr_status gather_and_report(const cli_options *o, const world *w, const char *kernel,
                                    const cli_rank_info *info, const uint64_t *mine,
                                    cli_mpi_view *g, const uint64_t *release_ns) {
    unsigned reps = o->repeats;
    int n = 3 * ((int)reps + 1), verdict = 0;
    cli_rank_info *ri = w->rank == 0 ? calloc((size_t)w->size, sizeof *ri) : NULL;
    uint64_t *runs = w->rank == 0 ? calloc((size_t)w->size * (size_t)n, sizeof *runs) : NULL;
    int ok = mine && (w->rank != 0 || (ri && runs)), all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (w->rank == 0)
            fprintf(stderr, "oclReduction: --mpi: out of host memory for the report\n");
        free(runs);
        free(ri);
        return OCR_RUNTIME;
    }
    MPI_Gather(info, (int)sizeof *info, MPI_BYTE, ri, (int)sizeof *info, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    MPI_Gather(mine, n, MPI_UINT64_T, runs, n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (w->rank == 0) {
        global_reference(o, w->size, ri, g);
        for (int r = 0; r < w->size; ++r) {
            g->elems_read += ri[r].elems_read;
            if (!ri[r].passed) g->passed = 0;
        }
        aggregate(runs, w->size, reps, release_ns, g->reduce_ns, &g->med, &g->min);
        cli_report_mpi(o, kernel, w->size, ri, g);
        verdict = g->passed ? OCR_OK : OCR_WRONG;
    }
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(runs);
    free(ri);
    return (ocr_status)verdict;
}

/* Every message after MPI starts goes through rank 0. */
ocr_status cli_run_mpi(const cli_options *o, int *argc, char ***argv) {
    world w = {.size = 1, .hosts = 1};
    if (world_start(argc, argv, &w) != 0) {
        fprintf(stderr, "oclReduction: --mpi: MPI_Init failed\n");
        return OCR_RUNTIME;
    }
    if (cli_mpi_agree(o, w.rank) != OCR_OK) { /* before anything the options shape */
        MPI_Finalize();
        return OCR_USAGE;
    }
    cli_rank_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "%s", w.host);
    share s;
    memset(&s, 0, sizeof s);
    ocr_build_request rq;
    memset(&rq, 0, sizeof rq);
    barrier_sync bs = {.release_ns = w.rank == 0 ? calloc(o->repeats + 2, sizeof(uint64_t)) : NULL};
    static char msg[MSG_LEN];
    ocr_status st, all = setup_and_run(o, &w, &rq, &s, &info, &bs, &st, msg, sizeof msg);
    if (all >= OCR_USAGE) {
        report_failure(w.rank, w.size, (int)st, msg);
        goto done;
    }
    if (w.rank == 0 && msg[0]) fprintf(stderr, "%s\n", msg); /* rank 0's notes and warnings */

    /* Combine: one value per rank (the identity where there is no share). */
    ocr_value part = s.ran ? s.res.result : ocr_identity(o->type, o->op);
    cli_mpi_view g;
    memset(&g, 0, sizeof g);
    g.hosts = w.hosts;
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = ocr_now_ns();
    MPI_Reduce(&part, &g.result, 1, mpi_type(o->type, o->op), mpi_op(o->op), 0, MPI_COMM_WORLD);
    g.reduce_ns = ocr_now_ns() - t0;
    uint64_t *mine = rank_runs(&s, o->repeats, st, &info);
    all = gather_and_report(o, &w, rq.spec.name, &info, mine, &g, bs.release_ns);
    free(mine);
done:
    if (s.ran) ocr_result_release(&s.res);
    free(s.data);
    ocr_kernel_release(s.kernel);
    ocr_device_close(s.dev);
    free(bs.release_ns);
    fflush(stdout);
    MPI_Finalize();
    return all;
}
