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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

/* Opens the device and builds group gi's kernel (reduce6 for the speed
 * reference), or says why not and leaves: E (the device cannot be opened),
 * H (the harness cannot run this geometry here), B (the kernel does not
 * build or fit). Tells the device's largest work-group first (D). */
static ocr_kernel *open_and_build(const grader *g, unsigned gi, int fd, ocr_device **dev) {
    int ref = gi == g->ngroups + 1;
    const grade_group *gr = &g->groups[gi < g->ngroups ? gi : 0];
    const grade_geometry *geo = &g->geo[gr->geo];
    ocr_device_choice choice = g->o->device;
    ocr_kernel *k = NULL;
    if (ocr_device_open(&choice, dev) != OCR_OK) say(fd, "E"), leave();
    const ocr_device_info *in = ocr_device_get_info(*dev);
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    say(fd, "D %zu", limit);
    if (geo->local > limit)
        say(fd, "H %s takes at most %zu work-items per group, not %zu: choose a smaller -w",
            in->name, limit, geo->local),
            leave();
    if (!ref && gr->type == OCR_DOUBLE && !in->fp64) say(fd, "U"), leave(); /* not graded here */
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
    ocr_status st = ocr_kernel_build(*dev, &rq, &k);
    if (st == OCR_OK) return k;
    /* A kernel that does not compile, or does not fit (its attributes, its
     * local memory, its registers at this size), or whose text cannot be
     * loaded (UTF-16, an include that is missing or leaves its folder), is
     * the kernel's fault; the message is on stderr, the case's log. */
    if (!ref && (st == OCR_BUILD || st == OCR_RUNTIME || st == OCR_OPENCL || st == OCR_IO))
        say(fd, "B"), leave();
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

/* Runs cases [first, end) of group gi; one line per event on fd:
 *   D limit      the device's largest work-group
 *   E            the device cannot be opened (a broken environment)
 *   H message    the harness cannot run here (too large, no memory)
 *   B            the kernel does not build (the log is on stderr)
 *   U            the device cannot run this type (double without fp64)
 *   S i          case i starts
 *   T i detail   what case i did wrong, in words (before its R)
 *   R i V data got expected kernel_ns
 * gi == ngroups: the speed case (group 0's kernel), timed; ngroups + 1:
 * reduce6 at the speed case's size, the reference. */
static void worker(const grader *g, unsigned gi, unsigned first, unsigned end, int fd) {
    ocr_device *dev = NULL;
    ocr_kernel *k = open_and_build(g, gi, fd, &dev);
    ocr_type t = g->cases[first].type;
    ocr_op op = gi > g->ngroups ? OCR_SUM : g->cases[first].op;
    ocr_run_options ro = {.repeats = gi >= g->ngroups ? SPEED_REPS : 1,
                          .cpu = OCR_CPU_NONE,
                          .data = OCR_DATA_EXACT,
                          .seed = g->o->seed};
    uint64_t most = 0;
    for (unsigned i = first; i < end; ++i)
        most = g->cases[i].n > most ? g->cases[i].n : most;
    /* The largest case must fit this machine and device before anything is
     * allocated: a harness that cannot hold the matrix is the environment's
     * fault, said as such (a failed malloc is too; a sanitizer's allocator
     * may abort instead of returning NULL, so ask first). */
    if (ocr_check_size(dev, k, most, &ro) != OCR_OK)
        say(fd,
            "H n = %llu, the largest size at this geometry, cannot run here (a smaller "
            "--elems-per-group makes smaller sizes): %s",
            (unsigned long long)most, ocr_last_error()),
            leave();
    void *data = malloc(most * ocr_type_size(t));
    if (!data)
        say(fd, "H cannot allocate %llu MiB for n = %llu",
            (unsigned long long)(most * ocr_type_size(t) >> 20), (unsigned long long)most),
            leave();
    for (unsigned i = first; i < end; ++i) {
        uint64_t n = g->cases[i].n;
        say(fd, "S %u", i);
        ocr_data_fill(data, n, t, op, g->o->seed, OCR_DATA_EXACT);
        ocr_result r;
        ocr_status st = ocr_run(dev, k, data, n, &ro, &r);
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
                i, r.oob_pass - 1, (unsigned long long)r.oob_index,
                (unsigned long long)r.oob_values);
        say(fd, "R %u %d %d %s %s %llu", i, (int)v, set, got, want,
            (unsigned long long)(ran ? r.median.kernels_ns : 0));
        ocr_result_release(&r);
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
static void file_part(const char *path, char *buf, size_t len, int head) {
    FILE *f = fopen(path, "rb");
    buf[0] = '\0';
    if (!f) return;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    size_t skip = !head && size > (long)len - 1 ? (size_t)size - len + 1 : 0;
    fseek(f, (long)skip, SEEK_SET);
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

typedef enum { JOB_GROUP, JOB_SPEED, JOB_REF, JOB_RACE } job_kind;

/* One child at work and what it works on. */
typedef struct {
    job_kind kind;
    int active, ended;
    pid_t pid;
    int msg, out; /* the pipes from it, -1 once closed */
    char line[2048], errlog[96];
    size_t len;
    double deadline, start_limit, case_start;
    int killed, status;
    unsigned gi, first, end; /* JOB_GROUP: group gi's cases [first, end) */
    int cur, done;           /* the case in flight (-1: none); the last one finished */
    grade_case *race;        /* JOB_RACE */
    unsigned limit;
} job;

/* Forks j's child with its stdout on a pipe, its stderr in j->errlog and,
 * for workers, a message pipe; it dies with the grader however the grader
 * ends. Returns 0 in the child (with the message pipe's end in *msg_fd). */
static int spawn(grader *g, job *j, int *msg_fd) {
    int out[2], msg[2] = {-1, -1}, with_msg = j->kind != JOB_RACE;
    j->msg = j->out = -1, j->len = 0, j->killed = j->ended = 0;
    if ((with_msg && pipe(msg) != 0) || pipe(out) != 0) goto broken;
    fflush(NULL);
    pid_t parent = getpid();
    if ((j->pid = fork()) < 0) goto broken;
    if (j->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL); /* the folder is the grader's */
        if (getppid() != parent) _exit(3);
        /* A kernel's memory must not take the machine (a large private array
         * per work-item grows a child past 10 GB): over the limit it dies. */
        struct rlimit as = {(rlim_t)g->o->grade_memory << 20, (rlim_t)g->o->grade_memory << 20};
        if (g->o->grade_memory && !OCR_ADDRESS_SANITIZED) setrlimit(RLIMIT_AS, &as);
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

/* One line from a worker (see worker()). */
static void on_worker_line(grader *g, job *j, char *line) {
    unsigned i;
    int v, set, at = 0;
    unsigned long long ns;
    size_t limit;
    char got[64], want[64];
    if (line[0] == 'E') {
        g->env_broken = 1;
        file_part(j->errlog, g->env_msg, sizeof g->env_msg, 0);
    } else if (line[0] == 'H') {
        g->env_broken = 1;
        snprintf(g->env_msg, sizeof g->env_msg, "%s", line + 2);
    } else if (sscanf(line, "D %zu", &limit) == 1) {
        g->device_limit = limit;
    } else if (line[0] == 'U' && j->kind == JOB_GROUP) {
        for (unsigned k = j->first; k < j->end; ++k) {
            g->cases[k].verdict = V_SKIPPED;
            snprintf(g->cases[k].detail, sizeof g->cases[k].detail,
                     "not graded: the device has no double precision (cl_khr_fp64)");
        }
        j->done = (int)j->end - 1;
    } else if (line[0] == 'B' && j->kind == JOB_GROUP) {
        for (unsigned k = j->first; k < j->end; ++k) {
            g->cases[k].verdict = V_BUILD_ERROR;
            file_part(j->errlog, g->cases[k].detail, sizeof g->cases[k].detail, 1);
        }
        j->done = (int)j->end - 1;
    } else if (sscanf(line, "T %u %n", &i, &at) == 1 && at > 0 && i < j->end) {
        if (j->kind == JOB_GROUP)
            snprintf(g->cases[i].detail, sizeof g->cases[i].detail, "%s", line + at);
    } else if (sscanf(line, "S %u", &i) == 1 && i < j->end) {
        j->cur = (int)i;
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
            if (v == V_CRASH) file_part(j->errlog, k->detail, sizeof k->detail, 0);
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
    if (sp == 0)
        worker(g, j->kind == JOB_GROUP ? j->gi : g->ngroups + (j->kind == JOB_REF), j->first,
               j->end, fd);
    /* Starting the child, opening the device and building come before the
     * first case and get a limit of their own: on a loaded machine a build
     * alone can take seconds, which is no fault of the kernel. */
    j->start_limit = 10.0 * g->o->timeout > 60 ? 10.0 * g->o->timeout : 60;
    j->deadline = now_s() + j->start_limit;
}

/* After j's child ended: blames the case in flight (or the start, if none)
 * for an early end and goes on with the next case in a new child, if the
 * group still should run. */
static void finish_worker(grader *g, job *j) {
    if (j->done >= (int)j->end - 1 || g->env_broken || j->kind != JOB_GROUP) return;
    unsigned bad = j->cur >= 0 ? (unsigned)j->cur : (unsigned)j->done + 1;
    grade_case *k = &g->cases[bad];
    if (j->killed && j->cur >= 0 && !k->retried) {
        /* A time-out is confirmed before it is reported: the case again, in a
         * new child, with twice the limit (a busy machine, not the kernel). */
        k->retried = 1;
        j->first = bad;
        start_worker(g, j);
        return;
    }
    if (j->killed) {
        k->verdict = V_TIMEOUT;
        if (j->cur >= 0)
            snprintf(k->detail, sizeof k->detail,
                     "no answer within %.0f s, nor within %.0f s when run again; killed",
                     grade_case_limit(g, k->n), 2 * grade_case_limit(g, k->n));
        else
            snprintf(k->detail, sizeof k->detail,
                     "the device or the build did not answer within %.0f s; killed",
                     j->start_limit);
        g->timed_out = 1; /* the next cases would most likely hang too: stop */
        if (g->timeout_group < 0 || (int)j->gi < g->timeout_group) g->timeout_group = (int)j->gi;
    } else {
        k->verdict = V_CRASH;
        int n = WIFSIGNALED(j->status)
                    ? snprintf(k->detail, sizeof k->detail, "the run died of signal %d (%s)",
                               WTERMSIG(j->status), strsignal(WTERMSIG(j->status)))
                    : snprintf(k->detail, sizeof k->detail, "the run exited with status %d",
                               WIFEXITED(j->status) ? WEXITSTATUS(j->status) : -1);
        if (g->o->grade_memory && n > 0 && (size_t)n < sizeof k->detail)
            snprintf(k->detail + n, sizeof k->detail - (size_t)n,
                     " (each grading child may use %u MiB of address space, --grade-memory: a "
                     "kernel that needs more, such as a large private array, dies this way)",
                     g->o->grade_memory);
    }
    j->first = bad + 1;
    /* A group before the first that timed out runs to its end, as serially. */
    if (j->first < j->end && (g->timeout_group < 0 || (int)j->gi < g->timeout_group))
        start_worker(g, j);
}

/* As a serial run: the groups after the first that timed out are NOT_RUN,
 * whatever a second child got done meanwhile (the gradebook must not depend
 * on timing). */
static void settle(grader *g) {
    if (g->timeout_group < 0) return;
    for (unsigned gi = (unsigned)g->timeout_group + 1; gi < g->ngroups; ++gi)
        for (unsigned i = 0; i < g->groups[gi].count; ++i) {
            grade_case *c = &g->cases[g->groups[gi].first + i];
            c->verdict = V_NOT_RUN, c->data = -1, c->got[0] = c->want[0] = '\0';
            c->detail[0] = '\0';
        }
}

enum { PARALLEL = 2 };

static void job_init(grader *g, job *j, unsigned slot, job_kind kind) {
    memset(j, 0, sizeof *j);
    j->kind = kind;
    snprintf(j->errlog, sizeof j->errlog, "%s/stderr%u", g->tmpdir, slot);
}

/* Runs one worker of `kind` on case i alone, waiting for it. */
static void run_alone(grader *g, job_kind kind, unsigned i) {
    job j;
    job_init(g, &j, 0, kind);
    j.first = i, j.end = i + 1;
    start_worker(g, &j);
    if (j.active) wait_any(g, &j, 1);
}

size_t grade_run_reference(grader *g) {
    run_alone(g, JOB_REF, g->speed);
    return g->device_limit;
}

size_t grade_run_groups(grader *g, unsigned from) {
    job jobs[PARALLEL];
    unsigned next = from;
    for (unsigned k = 0; k < PARALLEL; ++k)
        job_init(g, &jobs[k], k, JOB_GROUP);
    for (;;) {
        unsigned active = 0;
        for (unsigned k = 0; k < PARALLEL; ++k) {
            job *j = &jobs[k];
            if (!j->active && next < g->ngroups && !g->timed_out && !g->env_broken) {
                j->gi = next++, j->first = g->groups[j->gi].first;
                j->end = j->first + g->groups[j->gi].count;
                start_worker(g, j);
            }
            active += j->active;
        }
        if (!active) break;
        wait_any(g, jobs, PARALLEL);
        for (unsigned k = 0; k < PARALLEL; ++k)
            if (jobs[k].ended) jobs[k].ended = 0, finish_worker(g, &jobs[k]);
    }
    settle(g);
    return g->device_limit;
}

void grade_run_speed(grader *g) {
    if (!g->env_broken && !g->timed_out && g->cases[g->speed].verdict == V_PASS)
        run_alone(g, JOB_SPEED, g->speed);
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

void grade_run_races(grader *g, const unsigned *idx, unsigned count) {
    job jobs[PARALLEL];
    unsigned queue[2 * GRADE_MAX_CASES], queued = count, next = 0;
    memcpy(queue, idx, count * sizeof *idx);
    for (unsigned k = 0; k < PARALLEL; ++k)
        job_init(g, &jobs[k], k, JOB_RACE);
    for (;;) {
        unsigned active = 0;
        for (unsigned k = 0; k < PARALLEL; ++k) {
            if (!jobs[k].active && next < queued && !g->env_broken)
                start_race(g, &jobs[k], &g->cases[queue[next++]]);
            active += jobs[k].active;
        }
        if (!active) break;
        wait_any(g, jobs, PARALLEL);
        for (unsigned k = 0; k < PARALLEL; ++k)
            if (jobs[k].ended && (jobs[k].ended = 0, finish_race(&jobs[k])) &&
                queued < 2 * GRADE_MAX_CASES)
                queue[queued++] = (unsigned)(jobs[k].race - g->cases);
    }
}
