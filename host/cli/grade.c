/*
 * grade.c - oclReduction --grade: one student kernel against a fixed matrix of
 * cases chosen to catch the classic mistakes (docs/labs/grading.md).
 *
 * Isolation: this process never touches OpenCL. Each (type, operator) group
 * of cases runs in a child process that opens the device, builds the kernel
 * once and runs the sizes in turn, reporting every case on a pipe before and
 * after it runs. A child that dies is a CRASH of the case in flight, one that
 * stays silent past --timeout is killed (TIMEOUT); either way a new child
 * goes on with the next case. The race check runs oclgrind on this same
 * program, as a child with the same time limit.
 */
#define _POSIX_C_SOURCE 200809L
#include "grade.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { V_PASS, V_WRONG, V_BUILD_ERROR, V_CRASH, V_TIMEOUT, V_RACE, V_SKIPPED, V_NOT_RUN };
static const char *const verdict_names[] = {"PASS",    "WRONG", "BUILD_ERROR", "CRASH",
                                            "TIMEOUT", "RACE",  "SKIPPED",     "NOT_RUN"};

/* The matrix: every group runs every size. Operators beside sum catch a
 * hard-coded '+': prod and max for int, min and xor for long, max and prod
 * for float (exact data: every float element matters up to 200 elements and
 * each negative one flips a product's sign beyond). */
static const struct {
    ocr_type type;
    ocr_op op;
} groups[] = {{OCR_INT, OCR_SUM},   {OCR_INT, OCR_PROD},  {OCR_INT, OCR_MAX},
              {OCR_LONG, OCR_SUM},  {OCR_LONG, OCR_MIN},  {OCR_LONG, OCR_XOR},
              {OCR_FLOAT, OCR_SUM}, {OCR_FLOAT, OCR_MAX}, {OCR_FLOAT, OCR_PROD}};
#define NGROUPS    (sizeof groups / sizeof groups[0])
#define NSIZES     7
#define NCASES     (NGROUPS * NSIZES)
#define LARGE      ((uint64_t)1 << 22) /* the speed case, and the matrix's large size */
#define SPEED_REPS 5
#define SLOW_RATIO 4.0 /* SLOW beyond 4x reduce6's kernel time */
#define SEED       1

typedef struct {
    int verdict;
    uint64_t n;
    char got[64], want[64];
    uint64_t kernel_ns;
    char detail[1024];
} grade_case;

typedef struct {
    const cli_options *o;
    size_t local;
    uint64_t sizes[NSIZES];
    grade_case cases[NCASES];
    char self[PATH_MAX];
    int env_broken, timed_out;
    char env_msg[1024];
    uint64_t ref_ns;
} grader;

static int is_prime(uint64_t x) {
    if (x < 2) return 0;
    for (uint64_t d = 2; d * d <= x; ++d)
        if (x % d == 0) return 0;
    return 1;
}

/* 1, 2, E-1, E, E+1, the first prime above 64 E, and 2^22 (sorted, E >= 2). */
static void make_sizes(uint64_t e, uint64_t *s) {
    uint64_t p = 64 * e + 1;
    while (!is_prime(p))
        ++p;
    uint64_t v[NSIZES] = {1, 2, e - 1, e, e + 1, p, LARGE > p ? LARGE : p + 1};
    memcpy(s, v, sizeof v);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the child: device, build, cases ------------------------------------ */

static ocr_build_request request(const grader *g, ocr_type t, ocr_op op, const char *name,
                                 const char *file, uint64_t e) {
    ocr_build_request rq = {0};
    ocr_kernel_spec s = {name, file, OCR_PER_GROUP,   g->local, (size_t)e,
                         1,    e,    "graded kernel", {0}, 0};
    rq.spec = s;
    rq.kernel_file = file;
    rq.type = t;
    rq.op = op;
    rq.local_size = g->local;
    rq.extra_options = g->o->build_options;
    return rq;
}

/* Runs cases [first, end) of group gi; one line per event on fd:
 *   E            the device cannot be opened (a broken environment)
 *   B            the kernel does not build (the log is on stderr)
 *   S i          case i starts
 *   R i V got expected kernel_ns
 * For gi == NGROUPS: reduce6 at the large size, the speed reference. */
static void child(const grader *g, unsigned gi, unsigned first, unsigned end, int fd) {
    ocr_device *dev = NULL;
    ocr_kernel *k = NULL;
    int ref = gi == NGROUPS;
    ocr_type t = ref ? OCR_INT : groups[gi].type;
    ocr_op op = ref ? OCR_SUM : groups[gi].op;
    ocr_device_choice choice = g->o->device;
    if (ocr_device_open(&choice, &dev) != OCR_OK) {
        dprintf(fd, "E\n");
        _exit(0);
    }
    ocr_build_request rq;
    if (ref) {
        rq = (ocr_build_request){0};
        rq.spec = *ocr_kernel_find("reduce6");
        rq.kernel_dir = g->o->kernel_dir;
        rq.type = t, rq.op = op;
    } else {
        rq = request(g, t, op, g->o->kernel_name, g->o->kernel_file, g->o->elems_per_group);
    }
    if (ocr_kernel_build(dev, &rq, &k) != OCR_OK) {
        dprintf(fd, ref ? "E\n" : "B\n");
        _exit(0);
    }
    void *data = malloc(g->sizes[NSIZES - 1] * ocr_type_size(t));
    if (!data) _exit(3);
    for (unsigned i = first; i < end; ++i) {
        uint64_t n = ref ? g->sizes[NSIZES - 1] : g->sizes[i % NSIZES];
        int timed = ref || (gi == 0 && i % NSIZES == NSIZES - 1);
        dprintf(fd, "S %u\n", i);
        ocr_data_fill(data, n, t, op, SEED, OCR_DATA_EXACT);
        ocr_run_options ro = {.repeats = timed ? SPEED_REPS : 1, .cpu = OCR_CPU_NONE};
        ocr_result r;
        ocr_status st = ocr_run(dev, k, data, n, t, op, &ro, &r);
        char got[64] = "-", want[64] = "-";
        if (st == OCR_OK || st == OCR_WRONG) {
            ocr_value_str(t, r.result, got, sizeof got);
            ocr_value_str(t, r.expected, want, sizeof want);
        }
        int v = st == OCR_OK ? V_PASS : st == OCR_WRONG ? V_WRONG : V_CRASH;
        dprintf(fd, "R %u %d %s %s %llu\n", i, v, got, want,
                (unsigned long long)(st == OCR_OK || st == OCR_WRONG ? r.median.kernels_ns : 0));
        ocr_result_release(&r);
    }
    _exit(0);
}

/* ---- the parent: children, time limits, verdicts ------------------------ */

/* The first (head) or last bytes of a file, for a case's detail: the start
 * of a build log, the end of an error. */
static void file_part(const char *path, char *buf, size_t len, int head) {
    FILE *f = fopen(path, "rb");
    buf[0] = '\0';
    if (!f) return;
    if (!head && fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size > (long)len - 1)
            fseek(f, size - (long)len + 1, SEEK_SET);
        else
            fseek(f, 0, SEEK_SET);
    }
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}
#define tail_of(p, b, l) file_part(p, b, l, 0)

/* Runs group gi from case `first` on; restarts a child after a crash or a
 * time-out so the remaining cases still run. */
static void run_group(grader *g, unsigned gi, unsigned first, unsigned end, const char *errlog) {
    while (first < end && !g->env_broken && !g->timed_out) {
        int p[2];
        if (pipe(p) != 0) {
            snprintf(g->env_msg, sizeof g->env_msg, "pipe: %s", strerror(errno));
            g->env_broken = 1;
            return;
        }
        fflush(NULL);
        pid_t parent = getpid(), pid = fork();
        if (pid == 0) {
            /* If the grader dies (killed, not interrupted with its group), the
             * child must not hang on alone: it dies with it. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(3);
            close(p[0]);
            int e = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (e >= 0) dup2(e, 2);
            child(g, gi, first, end, p[1]);
        }
        close(p[1]);
        if (pid < 0) {
            snprintf(g->env_msg, sizeof g->env_msg, "fork: %s", strerror(errno));
            g->env_broken = 1;
            close(p[0]);
            return;
        }
        FILE *in = fdopen(p[0], "r");
        char line[256];
        int cur = -1, killed = 0, done_to = (int)first - 1;
        /* --timeout limits each case's run. Starting the child, opening the
         * device and building the kernel come before the first case and get a
         * limit of their own: on a loaded machine a build alone can take
         * seconds, which is no fault of the kernel's run. */
        double build_limit = 10.0 * g->o->timeout > 60 ? 10.0 * g->o->timeout : 60;
        double deadline = now_s() + build_limit;
        for (;;) {
            struct pollfd pf = {p[0], POLLIN, 0};
            double left = deadline - now_s();
            int pr = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
            if (pr == 0) { /* silent too long: the case in flight hangs */
                kill(pid, SIGKILL);
                killed = 1;
                break;
            }
            if (pr < 0 && errno == EINTR) continue;
            if (!fgets(line, sizeof line, in)) break;
            unsigned i;
            int v;
            unsigned long long ns;
            char got[64], want[64];
            if (line[0] == 'E') {
                g->env_broken = 1;
                tail_of(errlog, g->env_msg, sizeof g->env_msg);
            } else if (line[0] == 'B') {
                for (unsigned c = first; c < end; ++c) {
                    g->cases[c].verdict = V_BUILD_ERROR;
                    file_part(errlog, g->cases[c].detail, sizeof g->cases[c].detail, 1);
                }
                done_to = (int)end - 1;
            } else if (sscanf(line, "S %u", &i) == 1) {
                cur = (int)i;
                deadline = now_s() + g->o->timeout; /* each case gets the full limit */
            } else if (sscanf(line, "R %u %d %63s %63s %llu", &i, &v, got, want, &ns) == 5 &&
                       i < NCASES + 1) {
                grade_case *c = gi == NGROUPS ? NULL : &g->cases[i];
                if (c) {
                    c->verdict = v;
                    snprintf(c->got, sizeof c->got, "%s", got);
                    snprintf(c->want, sizeof c->want, "%s", want);
                    c->kernel_ns = ns;
                    if (v == V_CRASH) tail_of(errlog, c->detail, sizeof c->detail);
                } else {
                    g->ref_ns = ns;
                }
                done_to = (int)i;
                cur = -1;
            }
        }
        fclose(in);
        int status = 0;
        waitpid(pid, &status, 0);
        if (done_to >= (int)end - 1 || g->env_broken) return;
        /* The case in flight (or the build, if none started) did not finish. */
        unsigned bad = cur >= 0 ? (unsigned)cur : first;
        if (gi < NGROUPS) {
            grade_case *c = &g->cases[bad];
            if (killed) {
                c->verdict = V_TIMEOUT;
                if (cur >= 0)
                    snprintf(c->detail, sizeof c->detail, "no answer within %u s; killed",
                             g->o->timeout);
                else
                    snprintf(c->detail, sizeof c->detail,
                             "the build did not finish within %.0f s; killed", build_limit);
                /* The next cases would most likely hang too: stop here. */
                g->timed_out = 1;
            } else {
                c->verdict = V_CRASH;
                if (WIFSIGNALED(status))
                    snprintf(c->detail, sizeof c->detail, "the run died of signal %d (%s)",
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
                else
                    snprintf(c->detail, sizeof c->detail, "the run exited with status %d",
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            }
        }
        first = bad + 1;
    }
}

/* The command line that replays case i on its own. */
static void replay(const grader *g, unsigned i, char *buf, size_t len) {
    const cli_options *o = g->o;
    snprintf(buf, len,
             "oclReduction --kernel-file %s --kernel-name %s --elems-per-group %llu -w %zu "
             "--type %s --op %s -s %llu --seed %d -r 1",
             o->kernel_file, o->kernel_name, (unsigned long long)o->elems_per_group, g->local,
             ocr_type_name(groups[i / NSIZES].type), ocr_op_name(groups[i / NSIZES].op),
             (unsigned long long)g->cases[i].n, SEED);
}

/* ---- the race check: oclgrind on this program, one small case per type -- */

static const ocr_type race_types[] = {OCR_INT, OCR_LONG, OCR_FLOAT};
#define NRACE (sizeof race_types / sizeof race_types[0])

static int find_oclgrind(char *path, size_t len) {
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/oclgrind", d);
        if (access(path, X_OK) == 0) return 1;
    }
    return 0;
}

static void race_case(grader *g, const char *oclgrind, ocr_type t, grade_case *c,
                      const char *errlog) {
    const cli_options *o = g->o;
    char e[32], w[32], n[32];
    snprintf(e, sizeof e, "%llu", (unsigned long long)o->elems_per_group);
    snprintf(w, sizeof w, "%zu", g->local);
    c->n = 2 * o->elems_per_group + 3; /* several groups and a partial last one */
    snprintf(n, sizeof n, "%llu", (unsigned long long)c->n);
    const char *argv[32] = {oclgrind,
                            "--data-races",
                            "--uninitialized",
                            "--check-api",
                            g->self,
                            "--kernel-file",
                            o->kernel_file,
                            "--kernel-name",
                            o->kernel_name,
                            "--elems-per-group",
                            e,
                            "-w",
                            w,
                            "--type",
                            ocr_type_name(t),
                            "-s",
                            n,
                            "-r",
                            "1",
                            "--cpu-baseline",
                            "none"};
    int a = 0;
    while (argv[a])
        ++a;
    if (o->build_options) argv[a++] = "--build-options", argv[a++] = o->build_options;
    argv[a] = NULL;
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* oclgrind goes with the grader, too */
        if (getppid() != parent) _exit(3);
        int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600),
            nul = open("/dev/null", O_WRONLY);
        if (fd >= 0) dup2(fd, 2);
        if (nul >= 0) dup2(nul, 1);
        execv(oclgrind, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    /* oclgrind simulates, far slower: 8 times the case limit, or just the
     * limit after a time-out (the kernel may well hang here too). */
    unsigned limit = g->timed_out ? o->timeout : 8 * o->timeout;
    double deadline = now_s() + limit;
    while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            c->verdict = V_TIMEOUT;
            snprintf(c->detail, sizeof c->detail, "oclgrind found no end within %u s", limit);
            return;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    char log[2048];
    file_part(errlog, log, sizeof log, 1); /* the first diagnostic is the one to read */
    /* oclgrind's diagnostics go to stderr; a clean run writes nothing there. */
    if (WIFEXITED(status) && WEXITSTATUS(status) > 1) { /* the run itself failed */
        c->verdict = V_CRASH;
        snprintf(c->detail, sizeof c->detail, "under oclgrind the run exited %d: %.400s",
                 WEXITSTATUS(status), log);
    } else if (log[0]) {
        c->verdict = V_RACE;
        char *first = log;
        while (*first == '\n')
            ++first;
        snprintf(c->detail, sizeof c->detail, "%.500s", first);
    } else if (!WIFEXITED(status)) {
        c->verdict = V_CRASH;
        snprintf(c->detail, sizeof c->detail, "under oclgrind: status %d", status);
    } else {
        c->verdict = V_PASS;
    }
}

/* ---- reports ------------------------------------------------------------ */

static void json_str(FILE *f, const char *s) {
    ocr_report_quoted(f, OCR_FORMAT_JSON, s);
}

static void csv_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; ++s)
        fputs(*s == '"' ? "\"\"" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
    fputc('"', f);
}

ocr_status cli_grade(const cli_options *o) {
    static grader g; /* large: keep it off the stack */
    memset(&g, 0, sizeof g);
    g.o = o;
    g.local = o->local_size ? o->local_size : 64;
    make_sizes(o->elems_per_group, g.sizes);
    ssize_t sl = readlink("/proc/self/exe", g.self, sizeof g.self - 1);
    if (sl <= 0) {
        fprintf(stderr, "oclReduction: --grade cannot find its own executable\n");
        return OCR_RUNTIME;
    }
    g.self[sl] = '\0';
    if (cli_check_kernel_file(o->kernel_file) != OCR_OK) return OCR_RUNTIME;
    char tmpdir[] = "/tmp/ocr-grade-XXXXXX", errlog[64];
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "oclReduction: cannot make a temporary directory: %s\n", strerror(errno));
        return OCR_RUNTIME;
    }
    snprintf(errlog, sizeof errlog, "%s/stderr", tmpdir);
    int progress = isatty(2); /* a progress line for people, not for logs */
    for (unsigned i = 0; i < NCASES; ++i) {
        g.cases[i].verdict = V_NOT_RUN;
        g.cases[i].n = g.sizes[i % NSIZES];
    }
    for (unsigned gi = 0; gi < NGROUPS && !g.env_broken; ++gi) {
        if (progress)
            fprintf(stderr, "\rgrading: %s %s (%u of %zu)   ", ocr_type_name(groups[gi].type),
                    ocr_op_name(groups[gi].op), gi + 1, NGROUPS);
        run_group(&g, gi, gi * NSIZES, (gi + 1) * NSIZES, errlog);
    }
    if (!g.env_broken && !g.timed_out) run_group(&g, NGROUPS, 0, 1, errlog); /* reduce6: speed */
    for (unsigned i = 0; i < NCASES; ++i)
        if (g.cases[i].verdict == V_NOT_RUN)
            snprintf(g.cases[i].detail, sizeof g.cases[i].detail,
                     "not run: an earlier case timed out");
    grade_case race[NRACE];
    char oclgrind[PATH_MAX];
    int have_oclgrind = find_oclgrind(oclgrind, sizeof oclgrind);
    memset(race, 0, sizeof race);
    /* After a time-out, one race check still runs, with the case limit: an
     * out-of-bounds write can hang or crash the run, and oclgrind names it. */
    unsigned nrace = g.timed_out ? 1 : NRACE;
    for (unsigned r = 0; r < NRACE; ++r)
        race[r].verdict = V_SKIPPED;
    for (unsigned r = 0; r < nrace && !g.env_broken; ++r) {
        if (have_oclgrind) {
            if (progress)
                fprintf(stderr, "\rgrading: race check %s under oclgrind   ",
                        ocr_type_name(race_types[r]));
            race_case(&g, oclgrind, race_types[r], &race[r], errlog);
        }
    }
    if (progress) fprintf(stderr, "\r%60s\r", "");
    unlink(errlog);
    rmdir(tmpdir);
    if (g.env_broken) {
        fprintf(stderr, "oclReduction: --grade: the environment is broken, not the kernel:\n%s\n",
                g.env_msg[0] ? g.env_msg : "(the device could not be opened)");
        return OCR_RUNTIME;
    }

    /* The verdict: the first failure in matrix order, races after. */
    unsigned passed = 0, total = NCASES + (have_oclgrind ? NRACE : 0);
    int first_bad = -1;
    for (unsigned i = 0; i < NCASES; ++i) {
        if (g.cases[i].verdict == V_PASS)
            ++passed;
        else if (first_bad < 0)
            first_bad = (int)i;
    }
    int race_bad = -1;
    for (unsigned r = 0; r < NRACE; ++r) {
        if (race[r].verdict == V_PASS)
            ++passed;
        else if (race[r].verdict != V_SKIPPED && race_bad < 0)
            race_bad = (int)r;
    }
    /* The verdict: the gravest failure. A race or an out-of-bounds access
     * (oclgrind's RACE) comes before the crash, hang or wrong value it causes,
     * which vary from run to run; a kernel that does not build comes first. */
    static const int gravity[] = {V_BUILD_ERROR, V_RACE, V_CRASH, V_TIMEOUT, V_WRONG};
    int verdict = V_PASS;
    for (unsigned k = 0; k < 5 && verdict == V_PASS; ++k) {
        for (unsigned i = 0; i < NCASES; ++i)
            if (g.cases[i].verdict == gravity[k]) verdict = gravity[k];
        for (unsigned r = 0; r < NRACE; ++r)
            if (race[r].verdict == gravity[k]) verdict = gravity[k];
    }
    if (verdict == V_PASS && first_bad >= 0) verdict = g.cases[first_bad].verdict;
    const grade_case *speed = &g.cases[NSIZES - 1]; /* int sum at the large size */
    double ratio = speed->verdict == V_PASS && g.ref_ns ? (double)speed->kernel_ns / g.ref_ns : 0;
    const char *speed_word = ratio == 0 ? "n/a" : ratio > SLOW_RATIO ? "SLOW" : "OK";
    char rp[512], first[700] = "";
    if (first_bad >= 0) {
        const grade_case *c = &g.cases[first_bad];
        replay(&g, (unsigned)first_bad, rp, sizeof rp);
        snprintf(first, sizeof first, "%s %s n=%llu: %s",
                 ocr_type_name(groups[first_bad / NSIZES].type),
                 ocr_op_name(groups[first_bad / NSIZES].op), (unsigned long long)c->n,
                 verdict_names[c->verdict]);
    } else if (race_bad >= 0) {
        snprintf(first, sizeof first, "race check %s: %s", ocr_type_name(race_types[race_bad]),
                 verdict_names[race[race_bad].verdict]);
    }

    FILE *f = stdout;
    if (o->format == OCR_FORMAT_JSON) {
        fputs("{\"kernel_file\": ", f), json_str(f, o->kernel_file);
        fputs(", \"kernel_name\": ", f), json_str(f, o->kernel_name);
        fprintf(f, ", \"elems_per_group\": %llu, \"local_size\": %zu, \"timeout_s\": %u",
                (unsigned long long)o->elems_per_group, g.local, o->timeout);
        fputs(", \"cases\": [", f);
        for (unsigned i = 0; i < NCASES + NRACE; ++i) {
            int is_race = i >= NCASES;
            const grade_case *c = is_race ? &race[i - NCASES] : &g.cases[i];
            ocr_type t = is_race ? race_types[i - NCASES] : groups[i / NSIZES].type;
            fprintf(f,
                    "%s\n {\"case\": %u, \"check\": \"%s\", \"type\": \"%s\", \"op\": \"%s\", "
                    "\"n\": %llu, \"verdict\": \"%s\", \"result\": ",
                    i ? "," : "", i, is_race ? "race" : "value", ocr_type_name(t),
                    is_race ? "sum" : ocr_op_name(groups[i / NSIZES].op), (unsigned long long)c->n,
                    verdict_names[c->verdict]);
            json_str(f, c->got[0] ? c->got : "-");
            fputs(", \"expected\": ", f), json_str(f, c->want[0] ? c->want : "-");
            fputs(", \"detail\": ", f), json_str(f, c->detail);
            if (!is_race) {
                replay(&g, i, rp, sizeof rp);
                fputs(", \"replay\": ", f), json_str(f, rp);
            }
            fputc('}', f);
        }
        fprintf(f,
                "],\n \"summary\": {\"verdict\": \"%s\", \"passed\": %u, \"cases\": %u, "
                "\"race_check\": \"%s\", \"reference\": \"reduce6\", \"speed_ratio\": ",
                verdict_names[verdict], passed, total,
                have_oclgrind ? "oclgrind" : "skipped: oclgrind not found");
        if (ratio > 0)
            fprintf(f, "%.3f", ratio);
        else
            fputs("null", f);
        fprintf(f, ", \"speed\": \"%s\", \"first_failure\": ", speed_word);
        json_str(f, first);
        fputs("}}\n", f);
    } else if (o->format == OCR_FORMAT_CSV) {
        fputs("case,check,type,op,n,verdict,result,expected,detail\n", f);
        for (unsigned i = 0; i < NCASES + NRACE; ++i) {
            int is_race = i >= NCASES;
            const grade_case *c = is_race ? &race[i - NCASES] : &g.cases[i];
            fprintf(f, "%u,%s,%s,%s,%llu,%s,%s,%s,", i, is_race ? "race" : "value",
                    ocr_type_name(is_race ? race_types[i - NCASES] : groups[i / NSIZES].type),
                    is_race ? "sum" : ocr_op_name(groups[i / NSIZES].op), (unsigned long long)c->n,
                    verdict_names[c->verdict], c->got[0] ? c->got : "-",
                    c->want[0] ? c->want : "-");
            csv_str(f, c->detail);
            fputc('\n', f);
        }
        fprintf(f, "summary,,,,,%s,%u/%u,", verdict_names[verdict], passed, total);
        if (ratio > 0) fprintf(f, "%.3f", ratio);
        fputc(',', f);
        csv_str(f, first);
        fputc('\n', f);
    } else {
        fprintf(f, "Grading %s (kernel %s, %llu elements per group, %zu work-items)\n",
                o->kernel_file, o->kernel_name, (unsigned long long)o->elems_per_group, g.local);
        for (unsigned gi = 0; gi < NGROUPS; ++gi) {
            fprintf(f, "  %-6s %-5s", ocr_type_name(groups[gi].type), ocr_op_name(groups[gi].op));
            for (unsigned s = 0; s < NSIZES; ++s)
                fprintf(f, " %s", verdict_names[g.cases[gi * NSIZES + s].verdict]);
            fputc('\n', f);
        }
        fprintf(f, "  sizes: 1 2 %llu %llu %llu %llu %llu\n", (unsigned long long)g.sizes[2],
                (unsigned long long)g.sizes[3], (unsigned long long)g.sizes[4],
                (unsigned long long)g.sizes[5], (unsigned long long)g.sizes[6]);
        if (have_oclgrind)
            for (unsigned r = 0; r < NRACE; ++r)
                fprintf(f, "  race check (%s, n = %llu, oclgrind): %s\n",
                        ocr_type_name(race_types[r]), (unsigned long long)race[r].n,
                        verdict_names[race[r].verdict]);
        else
            fprintf(f, "  race check: SKIPPED (oclgrind not found; install it to check races)\n");
        if (first_bad >= 0) {
            const grade_case *c = &g.cases[first_bad];
            fprintf(f, "First failure: %s\n", first);
            if (c->verdict == V_WRONG) fprintf(f, "  got %s, expected %s\n", c->got, c->want);
            if (c->detail[0]) fprintf(f, "  %s\n", c->detail);
            fprintf(f, "  replay: %s\n", rp);
        } else if (race_bad >= 0) {
            fprintf(f, "First failure: %s\n%s\n", first, race[race_bad].detail);
        }
        if (ratio > 0)
            fprintf(f, "Speed: %.3gx reduce6's kernel time at n = %llu (%s; SLOW above %.0fx)\n",
                    ratio, (unsigned long long)g.sizes[NSIZES - 1], speed_word, SLOW_RATIO);
        fprintf(f, "Grade: %s (%u of %u checks passed)\n", verdict_names[verdict], passed, total);
    }
    return verdict == V_PASS ? OCR_OK : OCR_WRONG;
}
