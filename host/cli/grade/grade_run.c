/*
 * grade_run.c - the grader's children: isolation, time limits, blame.
 *
 * The grading process never touches OpenCL. Each group of cases (one build of
 * one type, operator and geometry) runs in a child that opens the device,
 * builds the kernel once and runs the sizes in turn, saying on a pipe when
 * each case starts and how it ended. The parent reads that pipe with read()
 * (no stdio buffer between poll() and the lines: every line is acted on as
 * soon as it arrives), so each case gets its own deadline and a hang is
 * blamed on the case that hung. A child that dies is a CRASH of the case in
 * flight, one that stays silent past --timeout is killed (TIMEOUT); either
 * way a new child goes on with the next case. What the kernel prints (its
 * stdout) comes back on a second pipe and is kept, capped, for the log: it
 * never reaches the report. The race check runs oclgrind on this program,
 * as a child with a time limit too.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_grade.h"
#include "grade_matrix.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { SPEED_REPS = 5 };

typedef enum { JOB_GROUP, JOB_SPEED, JOB_REF, JOB_RACE } job_kind;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double grade_now(void) {
    return now_s();
}

/* "grading: 120 of 594 value cases, 0 of 6 race checks, about 9 s left" on a
 * terminal. The estimate: the value cases left at the pace of those done;
 * the race checks left at the pace of those done, or, before the first,
 * at 40 value cases each (oclgrind simulates: one race check costs about
 * what a group of builds does). */
void grade_progress(const grader *g, int race) {
    static double last;
    double now = now_s();
    if (!isatty(2) || (!race && now - last < 0.25)) return;
    last = now;
    double v_pace = g->cases_done
                        ? (g->values_s + (g->races_done ? 0 : now - g->t_values0)) / g->cases_done
                        : 0;
    double r_pace = g->races_done ? (now - g->t_races0) / g->races_done : 40 * v_pace;
    unsigned v_left = g->nvalue > g->cases_done ? g->nvalue - g->cases_done : 0;
    unsigned r_left = g->nraces > g->races_done ? g->nraces - g->races_done : 0;
    double left = v_left * v_pace + r_left * r_pace;
    fprintf(stderr, "\rgrading: %u of %u value cases, %u of %u race checks", g->cases_done,
            g->nvalue, g->races_done, g->nraces);
    if (v_pace > 0) fprintf(stderr, ", about %.0f s left  ", left);
}

/* A case's time limit: --timeout, or more where reduce6, timed on this
 * machine at the start of the grading, says the machine is slow now (a
 * loaded lab server): LIMIT_FACTOR times its wall time per element, times
 * the case's size. A correct kernel's verdict then does not depend on the
 * load; a small case that hangs still ends at --timeout. */
enum { LIMIT_FACTOR = 100 };
double grade_case_limit(const grader *g, uint64_t n) {
    double lim = g->o->timeout;
    if (g->ref_wall > 0 && g->ref_n) {
        double derived = LIMIT_FACTOR * g->ref_wall * ((double)n / (double)g->ref_n);
        lim = derived > lim ? derived : lim;
    }
    return lim;
}

/* ---- the child: device, build, cases ------------------------------------ */

/* One line to the parent; a message's line breaks become spaces. */
static void say(int fd, const char *fmt, ...) {
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; ++c)
        if (*c == '\n' || *c == '\r') *c = ' ';
    strcat(line, "\n");
    if (write(fd, line, strlen(line)) < 0) _exit(3);
}

/* The child's end: what the kernel printed must reach the parent first. */
static void leave(void) {
    fflush(NULL);
    _exit(0);
}

/* Group gi's kernel (reduce6 for the speed reference when ref), built on
 * dev; NULL after saying why not: H (the harness cannot run this geometry
 * here: it leaves), B (the kernel does not build or fit), U (the device
 * cannot run this type). */
static ocr_kernel *build_group(const grader *g, ocr_device *dev, unsigned gi, int ref, int fd) {
    const grade_group *gr = &g->groups[gi];
    const grade_geometry *geo = &g->geo[gr->geo];
    const ocr_device_info *in = ocr_device_get_info(dev);
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    ocr_kernel *k = NULL;
    if (geo->local > limit)
        say(fd, "H %s takes at most %zu work-items per group, not %zu: choose a smaller -w",
            in->name, limit, geo->local),
            leave();
    if (!ref && gr->type == OCR_DOUBLE && !in->fp64) return say(fd, "U"), NULL; /* not graded */
    ocr_build_request rq = {0};
    if (ref) {
        rq.spec = *ocr_kernel_find("reduce6");
        rq.kernel_dir = g->o->kernel_dir;
        rq.type = OCR_INT, rq.op = OCR_SUM;
    } else {
        rq.spec = cli_file_kernel(g->o->kernel_name, g->o->kernel_file, geo->local, geo->elems,
                                  "graded kernel");
        rq.spec.caps |= OCR_KERNEL_CONFINED; /* its includes stay in its folder */
        rq.kernel_file = g->o->kernel_file;
        rq.type = gr->type, rq.op = gr->op;
        rq.local_size = geo->local;
        rq.extra_options = g->o->build_options;
    }
    double t0 = now_s();
    ocr_status st = ocr_kernel_build(dev, &rq, &k);
    say(fd, "K %u %.0f", gi, (now_s() - t0) * 1e3); /* the build's time, for --grade-profile */
    if (st == OCR_OK) return k;
    /* A kernel that does not compile, or does not fit (its attributes, its
     * local memory, its registers at this size), or whose text cannot be
     * loaded (UTF-16, an include that is missing or leaves its folder), is
     * the kernel's fault; the message is on stderr, the case's log. */
    if (!ref && (st == OCR_BUILD || st == OCR_RUNTIME || st == OCR_OPENCL || st == OCR_IO))
        return say(fd, "B"), NULL;
    say(fd, "H %s", ref ? "reduce6, the speed reference, does not build" : ocr_last_error());
    leave();
    return NULL;
}

/* The verdict of one run, with the data set that failed. */
static grade_verdict run_verdict(ocr_status st, const ocr_result *r, int *data) {
    *data = -1;
    if (st == OCR_OK) return V_PASS;
    if (st != OCR_WRONG) return V_CRASH; /* a launch or a finish failed: the kernel did it */
    if (r->oob_pass) return V_OUT_OF_BOUNDS;
    *data = r->bad_run ? (int)OCR_DATA_EXACT : (int)r->second.data;
    return V_WRONG;
}

/* Case i on kernel k, its data in `data` (room for the largest case): the
 * S, T and R lines. */
static void run_case(const grader *g, ocr_device *dev, ocr_kernel *k, unsigned i, int timed,
                     void *data, int fd) {
    const grade_case *c = &g->cases[i];
    ocr_type t = c->type;
    ocr_op op = c->op;
    ocr_run_options ro = {.repeats = timed ? SPEED_REPS : 1,
                          .cpu = OCR_CPU_NONE,
                          .data = OCR_DATA_EXACT,
                          .seed = g->o->seed};
    say(fd, "S %u", i);
    ocr_data_fill(data, c->n, t, op, g->o->seed, OCR_DATA_EXACT);
    ocr_result r;
    ocr_status st = ocr_run(dev, k, data, c->n, &ro, &r);
    if (st == OCR_NO_MEMORY || st == OCR_TOO_LARGE || st == OCR_USAGE)
        say(fd, "H %s", ocr_last_error()), leave();
    char got[64] = "-", want[64] = "-";
    int ran = st == OCR_OK || st == OCR_WRONG, set;
    grade_verdict v = run_verdict(st, &r, &set);
    const int second = set == (int)r.second.data && ran;
    if (ran) {
        ocr_value_str(t, second ? r.second.result : r.result, got, sizeof got);
        ocr_value_str(t, second ? r.second.expected : r.expected, want, sizeof want);
    }
    if (v == V_OUT_OF_BOUNDS)
        say(fd,
            "T %u pass %u wrote element %llu of its output, which holds %llu values (found "
            "in the poisoned guard past the output, the same way every run)",
            i, r.oob_pass - 1, (unsigned long long)r.oob_index, (unsigned long long)r.oob_values);
    say(fd, "R %u %d %d %s %s %llu", i, (int)v, set, got, want,
        (unsigned long long)(ran ? r.median.kernels_ns : 0));
    ocr_result_release(&r);
}

/* The group case i belongs to. */
static unsigned group_of(const grader *g, unsigned i) {
    unsigned gi = 0;
    while (gi + 1 < g->ngroups && g->groups[gi + 1].first <= i)
        ++gi;
    return gi;
}

/* Runs cases [first, end) in one process: the device opened once, each
 * group's kernel built once, before its first case here (one child, one
 * device, one build per (type, operator, geometry): the matrix's cost is
 * its builds). One line per event on fd:
 *   D limit      the device's largest work-group
 *   E            the device cannot be opened (a broken environment)
 *   H message    the harness cannot run here (too large, no memory)
 *   G gi at      group gi's build starts, its messages at byte `at` of stderr
 *   K gi ms      it ended, after ms milliseconds
 *   B            the group's kernel does not build (the log is on stderr)
 *   U            the device cannot run the group's type (double without fp64)
 *   S i          case i starts
 *   T i detail   what case i did wrong, in words (before its R)
 *   R i V data got expected kernel_ns
 * kind JOB_SPEED: case i = the speed case, group 0's kernel, timed; JOB_REF:
 * reduce6 at the speed case's size, the reference. */
static void worker(const grader *g, int kind, unsigned first, unsigned end, int fd) {
    ocr_device *dev = NULL;
    ocr_device_choice choice = g->o->device;
    if (ocr_device_open(&choice, &dev) != OCR_OK) say(fd, "E"), leave();
    const ocr_device_info *in = ocr_device_get_info(dev);
    say(fd, "D %zu", in->max_wg < in->max_item0 ? in->max_wg : in->max_item0);
    void *data = NULL;
    uint64_t room = 0; /* elements data holds, of the largest type (8 bytes) */
    ocr_kernel *k = NULL;
    int have = 0; /* k is the current group's (NULL: it did not build) */
    unsigned gi = UINT_MAX;
    for (unsigned i = first; i < end; ++i) {
        unsigned now = kind == JOB_GROUP ? group_of(g, i) : 0;
        if (!have || now != gi) {
            if (k) ocr_kernel_release(k), k = NULL;
            gi = now, have = 1;
            fflush(stderr);
            say(fd, "G %u %lld", gi, (long long)lseek(2, 0, SEEK_CUR)); /* where its log starts */
            k = build_group(g, dev, gi, kind == JOB_REF, fd);
            uint64_t gmost = 0;
            for (unsigned c = i; c < end && (kind != JOB_GROUP || group_of(g, c) == gi); ++c)
                gmost = g->cases[c].n > gmost ? g->cases[c].n : gmost;
            ocr_run_options ro = {.repeats = 1, .cpu = OCR_CPU_NONE, .seed = g->o->seed};
            /* The group's largest case must fit this machine and device before
             * anything is allocated: a harness that cannot hold the matrix is
             * the environment's fault, said as such (a sanitizer's allocator
             * may abort instead of returning NULL, so ask first). */
            if (k && ocr_check_size(dev, k, gmost, &ro) != OCR_OK)
                say(fd,
                    "H n = %llu, the largest size at this geometry, cannot run here (a smaller "
                    "--elems-per-group makes smaller sizes): %s",
                    (unsigned long long)gmost, ocr_last_error()),
                    leave();
            if (k && gmost > room) { /* only once the device said the size can run */
                free(data);
                if (!(data = malloc(gmost * 8)))
                    say(fd, "H cannot allocate %llu MiB for n = %llu",
                        (unsigned long long)(gmost * 8 >> 20), (unsigned long long)gmost),
                        leave();
                room = gmost;
            }
        }
        if (k) run_case(g, dev, k, i, kind != JOB_GROUP, data, fd);
    }
    leave();
}

/* ---- the parent: children, pipes, deadlines ----------------------------- */

/* Ends TEXT (of at most LEN - 1 bytes, MORE bytes after it left out) at its
 * last line's end and says how much was cut, so a diagnostic is never cut
 * mid-line without a word. */
static void cut_at_line(char *text, size_t len, unsigned long long more) {
    if (!more) return;
    static const char fmt[] = "\n[cut: %llu more bytes]";
    size_t room = len > sizeof fmt + 24 ? len - sizeof fmt - 24 : 0, n = strlen(text);
    if (n > room) more += n - room, n = room;
    size_t end = n;
    while (end > 0 && text[end - 1] != '\n')
        --end;
    if (end > 0) more += n - (end - 1), n = end - 1; /* drop the partial line */
    snprintf(text + n, len - n, fmt, more);
}

/* The head (HEAD) or the tail of a file, cut at a line's end with the cut
 * said (the tail: from a line's start). */
static void file_part(const char *path, long from, char *buf, size_t len, int head) {
    FILE *f = fopen(path, "rb");
    buf[0] = '\0';
    if (!f) return;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (head && from > 0 && from <= size)
        size -= from;
    else
        from = 0;
    size_t skip = !head && size > (long)len - 1 ? (size_t)size - len + 1 : 0;
    fseek(f, from + (long)skip, SEEK_SET);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    if (head) {
        cut_at_line(buf, len, size > (long)n ? (unsigned long long)size - n : 0);
    } else if (skip) {
        char *nl = strchr(buf, '\n'), tmp[64];
        size_t from = nl ? (size_t)(nl + 1 - buf) : 0;
        int k = snprintf(tmp, sizeof tmp, "[cut: %llu earlier bytes]\n",
                         (unsigned long long)(skip + from));
        size_t keep = n - from < len - 1 - (size_t)k ? n - from : len - 1 - (size_t)k;
        memmove(buf + k, buf + from, keep);
        memcpy(buf, tmp, (size_t)k);
        buf[k + keep] = '\0';
    }
}

/* The kernel's output, kept up to the cap and counted beyond it. */
static void keep_output(grader *g, const char *b, size_t n) {
    if (!g->output) g->output = malloc(GRADE_OUTPUT_CAP);
    size_t room = g->output ? GRADE_OUTPUT_CAP - g->output_len : 0, k = n < room ? n : room;
    if (k) memcpy(g->output + g->output_len, b, k);
    g->output_len += k;
    g->output_total += n;
}

/* One child at work and what it works on. */
typedef struct {
    job_kind kind;
    int active, ended;
    pid_t pid;
    int msg, out; /* the pipes from it, -1 once closed */
    char line[2048], errlog[96];
    size_t len;
    double deadline, start_limit, case_start;
    long log_from; /* where the current build's messages start in errlog */
    int killed, status;
    unsigned gi, first, end; /* JOB_GROUP: cases [first, end); gi: the group building */
    int cur, done;           /* the case in flight (-1: none); the last one finished */
    uint64_t printed;        /* bytes of output from this child */
    int over_output;         /* killed for printing more than --grade-output */
    grade_case *race;        /* JOB_RACE */
    unsigned limit;
} job;

/* A file a child writes may reach this many MiB, however small --grade-output
 * (which limits what a case prints, read on the pipe): the compilers' caches
 * (POCL's kernel binaries, the program cache) write files of several MiB. */
enum { FSIZE_FLOOR = 256 };

/* Forks j's child with its stdout on a pipe, its stderr in j->errlog and,
 * for workers, a message pipe; it dies with the grader however the grader
 * ends. Returns 0 in the child (with the message pipe's end in *msg_fd). */
static int spawn(grader *g, job *j, int *msg_fd) {
    int out[2], msg[2] = {-1, -1}, with_msg = j->kind != JOB_RACE;
    j->msg = j->out = -1, j->len = 0, j->killed = j->ended = 0, j->printed = 0, j->over_output = 0;
    if ((with_msg && pipe(msg) != 0) || pipe(out) != 0) goto broken;
    fflush(NULL);
    pid_t parent = getpid();
    if ((j->pid = fork()) < 0) goto broken;
    ++g->children;
    if (j->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL); /* the folder is the grader's */
        if (getppid() != parent) _exit(3);
        /* A kernel's memory must not take the machine (a large private array
         * per work-item grows a child past 10 GB): over the limit it dies. */
        struct rlimit as = {(rlim_t)g->o->grade_memory << 20, (rlim_t)g->o->grade_memory << 20};
        if (g->o->grade_memory && !OCR_ADDRESS_SANITIZED) setrlimit(RLIMIT_AS, &as);
        /* CPU time (SIGXCPU past it: a loop that the wall-clock deadline
         * would catch later on a loaded machine) and the stderr file's size
         * (SIGXFSZ: a build or a checker that writes without end). */
        struct rlimit cpu = {g->o->grade_cpu, g->o->grade_cpu + 5};
        if (g->o->grade_cpu) setrlimit(RLIMIT_CPU, &cpu);
        rlim_t fsize = (rlim_t)(g->o->grade_output > FSIZE_FLOOR ? g->o->grade_output : FSIZE_FLOOR)
                       << 20;
        struct rlimit fs = {fsize, fsize};
        if (g->o->grade_output) setrlimit(RLIMIT_FSIZE, &fs);
        int e = open(j->errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (e >= 0) dup2(e, 2);
        dup2(out[1], 1);
        close(out[0]), close(out[1]);
        if (with_msg) close(msg[0]);
        *msg_fd = msg[1];
        return 0;
    }
    close(out[1]);
    j->out = out[0];
    if (with_msg) close(msg[1]), j->msg = msg[0];
    j->active = 1;
    return 1;
broken:
    snprintf(g->env_msg, sizeof g->env_msg, "cannot start a child: %s", strerror(errno));
    g->env_broken = 1;
    return -1;
}

static void on_worker_line(grader *g, job *j, char *line);

/* Reads what j's child sent on fd (i: 0 messages, 1 output); closes the
 * pipe at its end. Message lines are framed here, not by stdio, so none
 * waits in a buffer while poll() sees an empty pipe. */
static void drain(grader *g, job *j, int i) {
    char buf[65536];
    int *fd = i ? &j->out : &j->msg;
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {
        close(*fd), *fd = -1;
        return;
    }
    if (i) {
        if (j->kind != JOB_RACE) keep_output(g, buf, (size_t)n); /* oclgrind's run: its report */
        j->printed += (uint64_t)n;
        if (g->o->grade_output && j->printed > (uint64_t)g->o->grade_output << 20 && !j->killed)
            kill(j->pid, SIGKILL), j->killed = j->over_output = 1; /* --grade-output */
        return;
    }
    for (ssize_t k = 0; k < n; ++k) {
        if (buf[k] == '\n') {
            j->line[j->len] = '\0', j->len = 0;
            on_worker_line(g, j, j->line);
        } else if (j->len + 1 < sizeof j->line) {
            j->line[j->len++] = buf[k];
        }
    }
}

/* Waits until at least one of the active jobs' children has ended (both
 * pipes closed, or killed at its deadline), handing on what they send;
 * reaps the ones that ended. */
static void wait_any(grader *g, job *jobs, unsigned n) {
    for (int ended = 0; !ended;) {
        struct pollfd pf[8];
        double now = now_s(), next = now + 3600;
        for (unsigned k = 0; k < n; ++k) {
            pf[2 * k] = (struct pollfd){.fd = jobs[k].active ? jobs[k].msg : -1, .events = POLLIN};
            pf[2 * k + 1] =
                (struct pollfd){.fd = jobs[k].active ? jobs[k].out : -1, .events = POLLIN};
            if (jobs[k].active && jobs[k].deadline < next) next = jobs[k].deadline;
        }
        int pr = poll(pf, 2 * n, next > now ? (int)((next - now) * 1000) + 1 : 0);
        if (pr < 0 && errno != EINTR) break;
        for (unsigned k = 0; k < n; ++k) {
            job *j = &jobs[k];
            for (int i = 0; i < 2 && j->active && pr > 0; ++i)
                if (pf[2 * k + i].revents & (POLLIN | POLLHUP | POLLERR)) drain(g, j, i);
            if (j->active && (j->msg >= 0 || j->out >= 0) && now_s() > j->deadline) {
                kill(j->pid, SIGKILL); /* silent too long: the case in flight hangs */
                j->killed = 1;
            }
            if (!j->active || (!j->killed && (j->msg >= 0 || j->out >= 0))) continue;
            if (j->msg >= 0) close(j->msg), j->msg = -1;
            if (j->out >= 0) close(j->out), j->out = -1;
            waitpid(j->pid, &j->status, 0);
            j->active = 0, j->ended = ended = 1;
        }
    }
}

/* ---- value checks ------------------------------------------------------- */

/* Group j->gi did not run (V_SKIPPED: the device has no double; V_BUILD_ERROR:
 * it does not build). A build's log is kept once, in the first case of the
 * first group it broke; the others point there (the same log 48 times would
 * bury the one line a student needs). */
static void group_done(grader *g, job *j, grade_verdict v) {
    const grade_group *gr = &g->groups[j->gi];
    grade_case *c0 = &g->cases[gr->first];
    if (v == V_BUILD_ERROR) {
        file_part(j->errlog, j->log_from, c0->detail, sizeof c0->detail, 1);
        for (unsigned k = 0; k < gr->first && g->cases[k].race == 0; ++k)
            if (g->cases[k].verdict == V_BUILD_ERROR && !strcmp(g->cases[k].detail, c0->detail)) {
                snprintf(c0->detail, sizeof c0->detail,
                         "the kernel does not build for %s %s: the same compiler log as case %u",
                         ocr_type_name(gr->type), ocr_op_name(gr->op), k);
                break;
            }
    }
    for (unsigned k = gr->first; k < gr->first + gr->count; ++k) {
        grade_case *c = &g->cases[k];
        c->verdict = v;
        if (v == V_SKIPPED)
            snprintf(c->detail, sizeof c->detail,
                     "not graded: the device has no double precision (cl_khr_fp64)");
        else if (k > gr->first)
            snprintf(c->detail, sizeof c->detail,
                     "the kernel does not build for %s %s (the compiler's log: case %u)",
                     ocr_type_name(gr->type), ocr_op_name(gr->op), gr->first);
    }
    j->done = (int)(gr->first + gr->count) - 1;
    g->cases_done += gr->count;
}

/* One line from a worker (see worker()). */
static void on_worker_line(grader *g, job *j, char *line) {
    unsigned i;
    int v, set, at = 0;
    unsigned long long ns;
    long long from;
    size_t limit;
    char got[64], want[64];
    if (line[0] == 'E') {
        g->env_broken = 1;
        file_part(j->errlog, 0, g->env_msg, sizeof g->env_msg, 0);
    } else if (line[0] == 'H') {
        g->env_broken = 1;
        snprintf(g->env_msg, sizeof g->env_msg, "%s", line + 2);
    } else if (sscanf(line, "D %zu", &limit) == 1) {
        g->device_limit = limit;
    } else if (sscanf(line, "G %u %lld", &i, &from) == 2 && i < g->ngroups) {
        /* The child says where: by the time this line is read its build may
         * have written its log already. */
        j->gi = i, j->log_from = from > 0 ? (long)from : 0;
        j->cur = -1, j->deadline = now_s() + j->start_limit;
        ++g->builds;
    } else if (sscanf(line, "K %u %llu", &i, &ns) == 2) {
        g->build_ms += ns;
    } else if (line[0] == 'U' && j->kind == JOB_GROUP) {
        group_done(g, j, V_SKIPPED);
    } else if (line[0] == 'B' && j->kind == JOB_GROUP) {
        group_done(g, j, V_BUILD_ERROR);
    } else if (sscanf(line, "T %u %n", &i, &at) == 1 && at > 0 && i < j->end) {
        if (j->kind == JOB_GROUP)
            snprintf(g->cases[i].detail, sizeof g->cases[i].detail, "%s", line + at);
    } else if (sscanf(line, "S %u", &i) == 1 && i < j->end) {
        j->cur = (int)i, j->printed = 0; /* --grade-output is per case */
        j->case_start = now_s(); /* each case gets its full limit; twice when it confirms one */
        /* The timing runs (reduce6 first, the pace the limits follow; the
         * speed case) get the start's generous limit: no limit is known yet. */
        j->deadline = j->case_start + (j->kind != JOB_GROUP ? j->start_limit
                                                            : grade_case_limit(g, g->cases[i].n) *
                                                                  (g->cases[i].retried ? 2 : 1));
    } else if (sscanf(line, "R %u %d %d %63s %63s %llu", &i, &v, &set, got, want, &ns) == 6 &&
               i < j->end && v >= 0 && v < V_NVERDICTS) {
        grade_case *k = &g->cases[i];
        if (j->kind == JOB_REF) {
            g->ref_ns = ns, g->ref_n = k->n;
            g->ref_wall = v == V_PASS ? now_s() - j->case_start : 0;
        } else if (j->kind == JOB_SPEED) {
            g->speed_ns = v == V_PASS ? ns : 0;
        } else {
            k->verdict = (grade_verdict)v, k->data = set;
            snprintf(k->got, sizeof k->got, "%s", got);
            snprintf(k->want, sizeof k->want, "%s", want);
            if (v == V_CRASH) file_part(j->errlog, 0, k->detail, sizeof k->detail, 0);
            ++g->cases_done;
            grade_progress(g, 0);
        }
        j->done = (int)i, j->cur = -1;
        j->deadline = now_s() + g->o->timeout;  /* the next case's setup, or the exit */
        if (j->kind == JOB_GROUP && k->retried) /* a time-out not confirmed: said */
            snprintf(k->detail + strlen(k->detail), sizeof k->detail - strlen(k->detail),
                     "%sa first run found no answer within %.0f s; run again with twice the limit, "
                     "it ended",
                     k->detail[0] ? "\n" : "", grade_case_limit(g, k->n));
    }
}

/* Starts a worker on j's cases from j->first on. */
static void start_worker(grader *g, job *j) {
    int fd;
    j->cur = -1, j->done = (int)j->first - 1;
    int sp = spawn(g, j, &fd);
    if (sp == 0) worker(g, (int)j->kind, j->first, j->end, fd);
    /* Starting the child, opening the device and building come before the
     * first case and get a limit of their own: on a loaded machine a build
     * alone can take seconds, which is no fault of the kernel. */
    j->start_limit = 10.0 * g->o->timeout > 60 ? 10.0 * g->o->timeout : 60;
    j->deadline = now_s() + j->start_limit;
}

/* The grader starts no more children for this kernel: case i crashed or
 * hung (a child over a limit: memory, CPU time, output, the clock). Every
 * case not run yet stays NOT_RUN, counted, with the reason. */
static void stop_kernel(grader *g, unsigned i, const char *what) {
    if (g->stopped) return;
    g->stopped = 1;
    const grade_case *c = &g->cases[i];
    snprintf(g->stop_why, sizeof g->stop_why,
             "case %u (%s %s n=%llu) %s: the grader starts no more runs of a kernel that crashed "
             "or hung",
             i, ocr_type_name(c->type), c->race ? "race check" : ocr_op_name(c->op),
             (unsigned long long)c->n, what);
}

/* How the child that ran case k died, in words, the limit it broke named. */
static void crash_detail(grader *g, job *j, grade_case *k) {
    const cli_options *o = g->o;
    int sig = WIFSIGNALED(j->status) ? WTERMSIG(j->status) : 0;
    size_t n = 0, len = sizeof k->detail;
    if (j->over_output)
        n = (size_t)snprintf(k->detail, len,
                             "the run printed more than %u MiB (--grade-output); killed",
                             o->grade_output);
    else if (sig == SIGXCPU)
        n = (size_t)snprintf(k->detail, len,
                             "the run used more than %u s of CPU time (--grade-cpu); killed",
                             o->grade_cpu);
    else if (sig == SIGXFSZ)
        n = (size_t)snprintf(k->detail, len,
                             "the run wrote more than %u MiB of messages (--grade-output); killed",
                             o->grade_output);
    else if (sig)
        n = (size_t)snprintf(k->detail, len, "the run died of signal %d (%s)", sig, strsignal(sig));
    else
        n = (size_t)snprintf(k->detail, len, "the run exited with status %d",
                             WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1);
    if (o->grade_memory && !j->over_output && sig != SIGXCPU && sig != SIGXFSZ && n < len)
        snprintf(k->detail + n, len - n,
                 " (each grading child may use %u MiB of address space, --grade-memory: a "
                 "kernel that needs more, such as a large private array, dies this way)",
                 o->grade_memory);
}

/* After j's child ended early: blames the case in flight (or the next one,
 * if none). A time-out is confirmed once, in a new child with twice the
 * limit (a busy machine, not the kernel); a confirmed TIMEOUT or a CRASH
 * stops the kernel (stop_kernel). */
static void finish_worker(grader *g, job *j) {
    if (j->done >= (int)j->end - 1 || g->env_broken || j->kind != JOB_GROUP) return;
    unsigned bad = j->cur >= 0 ? (unsigned)j->cur : (unsigned)j->done + 1;
    grade_case *k = &g->cases[bad];
    if (j->killed && !j->over_output && j->cur >= 0 && !k->retried) {
        k->retried = 1;
        j->first = bad;
        start_worker(g, j);
        return;
    }
    int xcpu = WIFSIGNALED(j->status) && WTERMSIG(j->status) == SIGXCPU;
    if (xcpu) { /* over --grade-cpu: a time limit, said as such */
        k->verdict = V_TIMEOUT;
        crash_detail(g, j, k);
        g->timed_out = 1;
        stop_kernel(g, bad, "used up its CPU time");
    } else if (j->killed && !j->over_output) {
        k->verdict = V_TIMEOUT;
        if (j->cur >= 0)
            snprintf(k->detail, sizeof k->detail,
                     "no answer within %.0f s, nor within %.0f s when run again; killed",
                     grade_case_limit(g, k->n), 2 * grade_case_limit(g, k->n));
        else
            snprintf(k->detail, sizeof k->detail,
                     "the device or the build did not answer within %.0f s; killed",
                     j->start_limit);
        g->timed_out = 1;
        stop_kernel(g, bad, "timed out");
    } else {
        k->verdict = V_CRASH;
        crash_detail(g, j, k);
        stop_kernel(g, bad, "crashed");
    }
}

static void job_init(grader *g, job *j, job_kind kind) {
    memset(j, 0, sizeof *j);
    j->kind = kind;
    snprintf(j->errlog, sizeof j->errlog, "%s/stderr0", g->tmpdir);
}

/* Runs one worker of `kind` on cases [first, end), waiting for it (and for
 * the one that confirms a time-out): one child at a time. */
static void run_alone(grader *g, job_kind kind, unsigned first, unsigned end) {
    job j;
    job_init(g, &j, kind);
    j.first = first, j.end = end;
    start_worker(g, &j);
    while (j.active) {
        wait_any(g, &j, 1);
        j.ended = 0;
        finish_worker(g, &j);
    }
}

size_t grade_run_reference(grader *g) {
    double t0 = now_s();
    run_alone(g, JOB_REF, g->speed, g->speed + 1);
    g->ref_s += now_s() - t0;
    return g->device_limit;
}

size_t grade_run_groups(grader *g, unsigned from) {
    if (from >= g->ngroups || g->stopped || g->env_broken) return g->device_limit;
    const grade_group *last = &g->groups[g->ngroups - 1];
    double t0 = now_s();
    g->t_values0 = t0 - g->values_s; /* the value phase's start, as if it ran without a break */
    run_alone(g, JOB_GROUP, g->groups[from].first, last->first + last->count);
    g->values_s += now_s() - t0;
    return g->device_limit;
}

void grade_run_speed(grader *g) {
    double t0 = now_s();
    if (!g->env_broken && !g->stopped && g->cases[g->speed].verdict == V_PASS)
        run_alone(g, JOB_SPEED, g->speed, g->speed + 1);
    g->speed_s += now_s() - t0;
}

/* ---- the race check: oclgrind on this program --------------------------- */

static void start_race(grader *g, job *j, grade_case *c) {
    const cli_options *o = g->o;
    const grade_geometry *geo = &g->geo[c->geo];
    char e[32], w[32], n[32], s[32];
    snprintf(e, sizeof e, "%llu", (unsigned long long)geo->elems);
    snprintf(w, sizeof w, "%zu", geo->local);
    snprintf(n, sizeof n, "%llu", (unsigned long long)c->n);
    snprintf(s, sizeof s, "%llu", (unsigned long long)o->seed);
    const char *argv[40] = {g->oclgrind};
    int a = 1, fd;
    for (const char *const *p = grade_oclgrind_options; *p; ++p)
        argv[a++] = *p;
    if (!c->no_uninit) argv[a++] = "--uninitialized";
    const char *rest[] = {g->self,
                          "--kernel-file",
                          o->kernel_file,
                          "--kernel-name",
                          o->kernel_name,
                          "--elems-per-group",
                          e,
                          "-w",
                          w,
                          "--type",
                          ocr_type_name(c->type),
                          "-s",
                          n,
                          "--seed",
                          s,
                          "-r",
                          "1",
                          "--cpu-baseline",
                          "none"};
    for (size_t r = 0; r < sizeof rest / sizeof rest[0]; ++r)
        argv[a++] = rest[r];
    if (o->build_options) argv[a++] = "--build-options", argv[a++] = o->build_options;
    argv[a] = NULL;
    j->race = c;
    /* oclgrind simulates, far slower: 8 times the case limit, or just the
     * limit after a time-out (the kernel may well hang here too). */
    double lim = grade_case_limit(g, c->n);
    j->limit = (unsigned)(g->timed_out ? lim : 8 * lim);
    if (spawn(g, j, &fd) == 0) {
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    j->deadline = now_s() + j->limit;
}

/* Whether the program under oclgrind said the kernel does not build (or its
 * includes cannot be read): the student's fault, wherever it shows. */
static int said_build_failed(const char *log) {
    return strstr(log, "oclReduction: building ") != NULL || strstr(log, "included file") != NULL;
}

/* The checker failed on its own (a signal, or a status that is none of the
 * run's verdicts): with --uninitialized, the case runs again without it; else
 * it is not checked, the tool's failure said, never the student's. Returns 1
 * to run the case again. */
static int on_checker_failure(job *j, const char *first, const char *why) {
    grade_case *c = j->race;
    if (why)
        snprintf(c->tool, sizeof c->tool, "%s", why);
    else if (WIFSIGNALED(j->status))
        snprintf(c->tool, sizeof c->tool, "signal %d", WTERMSIG(j->status));
    else
        snprintf(c->tool, sizeof c->tool, "status %d",
                 WIFEXITED(j->status) ? WEXITSTATUS(j->status) : j->status);
    if (!c->no_uninit) {
        c->no_uninit = 1;
        return 1;
    }
    c->verdict = V_SKIPPED, c->checker_failed = 1;
    snprintf(c->detail, sizeof c->detail,
             "not checked: the checker failed (%s), with --uninitialized and without it; "
             "oclgrind's last words: %.400s",
             c->tool, first[0] ? first : "(none)");
    return 0;
}

/* The race check's verdict, from oclgrind's reports read by kind
 * (grade_oclgrind.c): a race, an invalid access, an uninitialized value; a
 * compiler warning is none. Exit 1 is the run's own check failing: a wrong
 * value is WRONG, never a pass (the value checks say which data set). Text
 * that is none of these is the checker's failure. Returns 1 to run the case
 * again (see on_checker_failure). */
static int finish_race(job *j) {
    grade_case *c = j->race;
    char *log = grade_read_log(j->errlog, GRADE_LOG_CAP); /* every report, to read the kinds */
    if (!log) return on_checker_failure(j, "", "out of host memory");
    const char *first = log;
    while (*first == '\n')
        ++first;
    int st = WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1;
    if (j->killed) {
        c->verdict = V_TIMEOUT;
        snprintf(c->detail, sizeof c->detail, "oclgrind found no end within %u s", j->limit);
    } else if (st == 3 && said_build_failed(log)) {
        c->verdict = V_BUILD_ERROR;
        size_t len = strlen(first), keep = len < sizeof c->detail ? len : sizeof c->detail - 1;
        memcpy(c->detail, first, keep), c->detail[keep] = '\0';
        cut_at_line(c->detail, sizeof c->detail, len - keep);
    } else if (st != 0 && st != 1) {
        int again = on_checker_failure(j, first, NULL);
        return free(log), again;
    } else if (grade_race_verdict(c, log, st) < 0) {
        int again = on_checker_failure(j, first, "output it could not read");
        return free(log), again;
    }
    free(log);
    if (c->no_uninit) /* checked, but without --uninitialized: say why */
        snprintf(c->detail + strlen(c->detail), sizeof c->detail - strlen(c->detail),
                 "%soclgrind --uninitialized failed (%s); checked without --uninitialized",
                 c->detail[0] ? "\n" : "", c->tool);
    return 0;
}

/* One at a time, in order; a check the checker failed with --uninitialized
 * runs again at once without it. A TIMEOUT under oclgrind stops the kernel
 * (stop_kernel): the checks after it are NOT_RUN. */
void grade_run_races(grader *g, const unsigned *idx, unsigned count) {
    double t0 = now_s();
    g->t_races0 = t0;
    job j;
    job_init(g, &j, JOB_RACE);
    for (unsigned k = 0; k < count && !g->env_broken && !g->stopped; ++k) {
        grade_case *c = &g->cases[idx[k]];
        do {
            start_race(g, &j, c);
            if (j.active) wait_any(g, &j, 1);
            j.ended = 0;
        } while (!g->env_broken && finish_race(&j));
        if (c->verdict == V_TIMEOUT) stop_kernel(g, idx[k], "timed out under oclgrind");
        ++g->races_done;
        grade_progress(g, 1);
    }
    g->races_s += now_s() - t0;
}
