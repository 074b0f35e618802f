/*
 * grade.c - oclReduction --grade: one student kernel against a fixed matrix of
 * cases chosen to catch the classic mistakes (docs/labs/grading.md): the
 * matrix, the order it runs in, and the verdict. grade_run.c runs the cases,
 * grade_report.c writes the report.
 *
 * Every value case is checked on two data sets (ocr_run: the exact data of
 * --seed, then one-sided data on which losses cannot cancel), at two
 * geometries the teacher's command line decides (-w and --elems-per-group,
 * then twice both, or half where the device takes nothing larger), and the
 * race check runs oclgrind at each.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_grade.h"
#include "grade_matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LARGE ((uint64_t)1 << 22) /* the large size where E is too large for two passes */

/* The kernel contract of a --kernel-file: these types, these operators (the
 * bitwise ones on integers only). By default every pair is a group of the
 * first geometry, in this order (int sum first: the speed case). */
static const ocr_type contract_types[] = {OCR_INT,   OCR_UINT,  OCR_LONG,
                                          OCR_ULONG, OCR_FLOAT, OCR_DOUBLE};
static const ocr_op contract_ops[] = {OCR_SUM, OCR_PROD, OCR_MIN, OCR_MAX,
                                      OCR_AND, OCR_OR,   OCR_XOR};
/* At the second geometry, one group per type with an operator for which
 * every element matters (where the teacher left it in the matrix). */
static const ocr_op second_op[] = {
    [OCR_INT] = OCR_SUM,   [OCR_UINT] = OCR_XOR,   [OCR_LONG] = OCR_XOR,
    [OCR_ULONG] = OCR_SUM, [OCR_FLOAT] = OCR_PROD, [OCR_DOUBLE] = OCR_SUM};
/* The race check's types (op sum), those of them graded. */
static const ocr_type race_types[] = {OCR_INT, OCR_LONG, OCR_FLOAT};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Whether the matrix grades (t, op) under o's --grade-types / --grade-ops
 * (and the kernel contract: bitwise operators on integers). */
static int graded(const cli_options *o, ocr_type t, ocr_op op) {
    return (!o->grade_types || (o->grade_types >> t & 1)) &&
           (!o->grade_ops || (o->grade_ops >> op & 1)) && ocr_op_valid_for(op, t);
}

/* The kernel contract's (type, operator) pairs this grading did not grade,
 * and why not (for the report). */
static void not_graded(grader *g) {
    unsigned k = 0;
    for (unsigned t = 0; t < COUNT(contract_types); ++t)
        for (unsigned p = 0; p < COUNT(contract_ops); ++p) {
            ocr_type ty = contract_types[t];
            ocr_op op = contract_ops[p];
            if (!ocr_op_valid_for(op, ty)) continue;
            const char *w = NULL;
            if (!graded(g->o, ty, op)) w = "left out by --grade-types / --grade-ops";
            for (unsigned gi = 0; gi < g->ngroups && !w; ++gi)
                if (g->groups[gi].type == ty && g->groups[gi].op == op &&
                    g->cases[g->groups[gi].first].verdict == V_SKIPPED)
                    w = "the device has no double precision (cl_khr_fp64)";
            if (w) g->not_graded[k] = (type_op){.type = ty, .op = op}, g->not_graded_why[k++] = w;
        }
    g->nnot_graded = k;
}

/* --quick: the pairs a wrong kernel fails first. min, max and prod are
 * where an accumulator started at 0 instead of the operator's identity is
 * wrong (sum hides it); uint min, where 0 is the smallest value; float
 * prod, a product of floats; int sum, the ladder's case. */
static const type_op quick_pairs[] = {
    {OCR_INT, OCR_SUM},  {OCR_INT, OCR_PROD},   {OCR_INT, OCR_MIN},  {OCR_INT, OCR_MAX},
    {OCR_UINT, OCR_MIN}, {OCR_FLOAT, OCR_PROD}, {OCR_FLOAT, OCR_MAX}};

/* The (type, operator) groups of the first geometry. */
static unsigned first_pairs(const cli_options *o, type_op *to) {
    unsigned k = 0;
    if (o->quick && !o->list_cases) {
        for (unsigned i = 0; i < COUNT(quick_pairs); ++i)
            if (graded(o, quick_pairs[i].type, quick_pairs[i].op)) to[k++] = quick_pairs[i];
        if (k) return k; /* else the narrowing left none of them: its own pairs */
    }
    for (unsigned t = 0; t < COUNT(contract_types); ++t)
        for (unsigned p = 0; p < COUNT(contract_ops); ++p)
            if (graded(o, contract_types[t], contract_ops[p]))
                to[k++] = (type_op){.type = contract_types[t], .op = contract_ops[p]};
    return k;
}

/* The second geometry's groups: per graded type, its operator of second_op,
 * else its first graded one. */
static unsigned second_pairs(const cli_options *o, type_op *to) {
    unsigned k = 0;
    for (unsigned t = 0; t < COUNT(contract_types); ++t) {
        ocr_type ty = contract_types[t];
        int found = graded(o, ty, second_op[ty]);
        if (found) to[k++] = (type_op){.type = ty, .op = second_op[ty]};
        for (unsigned p = 0; p < COUNT(contract_ops) && !found; ++p)
            if ((found = graded(o, ty, contract_ops[p])))
                to[k++] = (type_op){.type = ty, .op = contract_ops[p]};
    }
    return k;
}

static int is_prime(uint64_t x) {
    if (x < 2) return 0;
    for (uint64_t d = 2; d * d <= x; ++d)
        if (x % d == 0) return 0;
    return 1;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* splitmix64: the unpublished sizes from the grade seed, the same on every
 * machine. */
static uint64_t next_draw(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A size in [lo, hi], capped at LARGE (and at least 1). */
static uint64_t draw_in(uint64_t *state, uint64_t lo, uint64_t hi) {
    hi = hi < LARGE ? hi : LARGE;
    lo = lo < hi ? lo : hi;
    lo = lo ? lo : 1;
    return lo + next_draw(state) % (hi - lo + 1);
}

/* The sizes no document names, drawn from the grade seed for geometry geo:
 * inside one group, a few groups, many groups, and a large size of the same
 * magnitude as the published largest. A kernel right only at the published
 * sizes fails here. */
static unsigned drawn_sizes(uint64_t seed, unsigned geo, uint64_t e, uint64_t *d) {
    uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (geo + 1));
    d[0] = draw_in(&state, 3, e > 4 ? e - 2 : 3);
    d[1] = draw_in(&state, e + 2, 16 * e);
    d[2] = draw_in(&state, 64 * e + 2, 1024 * e);
    d[3] = draw_in(&state, LARGE / 4, LARGE * 3 / 4);
    return GRADE_DRAWN;
}

/* The sizes for E elements per group, sorted, distinct: one element, a
 * partial group, one group less one, exactly one, one past it; last groups
 * of 3, E/2 and E-2 elements (mid-length tails); many groups with an odd
 * tail (the first prime above 64 E); and a large size, the speed case's:
 * 1.5 E^2 + 3, two passes with mid-length tails in both (last groups of 3
 * and E/2 + 1), while that stays below 2^23; else 2^22. Those are
 * published (docs/labs/grading.md), sorted; the drawn ones (drawn_sizes)
 * are not, and follow them. */
static unsigned make_sizes(grader *g, unsigned geo, uint64_t *s) {
    uint64_t e = g->geo[geo].elems, p = 64 * e + 1;
    while (!is_prime(p))
        ++p;
    uint64_t two = e * e + e * e / 2 + 3, big = two <= ((uint64_t)1 << 23) ? two : LARGE;
    uint64_t v[10] = {
        1, 2, e - 1, e, e + 1, 2 * e + 3, 5 * e + e / 2, 8 * e - 2, p, big > p ? big : p + 1};
    qsort(v, COUNT(v), sizeof v[0], by_value);
    unsigned k = 0;
    for (unsigned i = 0; i < COUNT(v); ++i)
        if (v[i] >= 1 && (k == 0 || v[i] != s[k - 1])) s[k++] = v[i];
    g->npublished[geo] = k;
    /* The drawn sizes come after the published ones: a kernel that fails at
     * a published size fails first there, whatever the seed. */
    uint64_t *d = g->drawn[geo];
    drawn_sizes(g->grade_seed, geo, e, d);
    if (g->o->quick) return k; /* the published sizes only: the same check on every edit */
    qsort(d, GRADE_DRAWN, sizeof d[0], by_value);
    for (unsigned i = 0; i < GRADE_DRAWN; ++i) {
        int seen = 0;
        for (unsigned j = 0; j < k; ++j)
            seen |= s[j] == d[i];
        if (!seen) s[k++] = d[i];
    }
    return k;
}

static grade_case *add_case(grader *g, int race, unsigned geo, ocr_type t, ocr_op op, uint64_t n) {
    grade_case *c = &g->cases[g->ncases++];
    memset(c, 0, sizeof *c);
    *c = (grade_case){.race = race, .geo = geo, .type = t, .op = op, .n = n};
    c->verdict = race ? V_SKIPPED : V_NOT_RUN;
    c->data = -1;
    return c;
}

/* The value groups of geometry geo, and their cases. */
static void add_groups(grader *g, unsigned geo, const type_op *to, unsigned count) {
    g->nsizes[geo] = make_sizes(g, geo, g->sizes[geo]);
    for (unsigned i = 0; i < count; ++i) {
        grade_group *gr = &g->groups[g->ngroups++];
        *gr = (grade_group){.type = to[i].type,
                            .op = to[i].op,
                            .geo = geo,
                            .first = g->ncases,
                            .count = g->nsizes[geo]};
        for (unsigned s = 0; s < g->nsizes[geo]; ++s)
            add_case(g, 0, geo, to[i].type, to[i].op, g->sizes[geo][s]);
    }
    g->nvalue = g->ncases;
}

/* The second geometry: twice the work-items and the elements per group
 * (keeping their ratio, which some kernels rely on), where the device takes
 * that many work-items; else half of both. A kernel with a hard-coded group
 * size, or a race that needs more work-items, shows at one of the two. */
static void choose_second(grader *g, size_t device_limit) {
    grade_geometry a = g->geo[0];
    if (device_limit >= 2 * a.local && 2 * a.elems <= ((uint64_t)1 << 30))
        g->geo[1] = (grade_geometry){.local = 2 * a.local, .elems = 2 * a.elems};
    else if (a.local >= 2 && a.elems >= 8 && a.elems % 2 == 0)
        g->geo[1] = (grade_geometry){.local = a.local / 2, .elems = a.elems / 2};
    else
        return; /* one work-item and tiny groups: nothing else to try */
    g->ngeo = 2;
}

int grade_find_oclgrind(char *path, size_t len) {
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/oclgrind", d);
        if (access(path, X_OK) == 0) return 1;
    }
    return 0;
}

/* The second geometry's groups, once the device's largest work-group is known. */
static void plan_second(grader *g, size_t device_limit) {
    if (g->o->quick) return; /* the command line's geometry only */
    choose_second(g, device_limit);
    type_op to[COUNT(contract_types)];
    if (g->ngeo == 2) add_groups(g, 1, to, second_pairs(g->o, to));
}

/* The value checks. reduce6's child tells the device's largest work-group
 * first, so the second geometry's groups join the matrix before any group
 * runs; where it could not tell, the first group that does adds them after
 * the first geometry's (the matrix's order is the same either way). */
static void run_values(grader *g) {
    size_t limit = grade_run_reference(g);
    if (g->env_broken) return;
    int planned = limit != 0;
    if (planned) plan_second(g, limit);
    for (unsigned from = 0, end; from < g->ngroups; from = end) {
        end = g->ngroups;
        limit = grade_run_groups(g, from);
        if (!planned && limit) planned = 1, plan_second(g, limit);
    }
    if (!g->o->quick) grade_run_speed(g);
}

/* Whether type t failed to build at geometry geo (its race check is then a
 * BUILD_ERROR too, without running). */
static int build_failed(const grader *g, unsigned geo, ocr_type t) {
    for (unsigned i = 0; i < g->nvalue; ++i)
        if (g->cases[i].geo == geo && g->cases[i].type == t && g->cases[i].verdict == V_BUILD_ERROR)
            return 1;
    return 0;
}

/* Whether type t is among the graded ones (any operator). */
static int type_graded(const cli_options *o, ocr_type t) {
    for (unsigned p = 0; p < COUNT(contract_ops); ++p)
        if (graded(o, t, contract_ops[p])) return 1;
    return 0;
}

/* The race checks: int, long and float (those graded; else the first graded
 * type), op sum, at n = 2E + 3 (several groups and a partial last one) at
 * each geometry. After a time-out only the first runs, with the case limit:
 * an out-of-bounds write can hang the run, and oclgrind names it. */
static void run_races(grader *g) {
    unsigned idx[GRADE_MAX_CASES], count = 0;
    for (unsigned geo = 0; geo < g->ngeo; ++geo) {
        unsigned before = g->ncases;
        for (unsigned r = 0; r < COUNT(race_types) && !(g->o->quick && g->ncases > before); ++r)
            if (type_graded(g->o, race_types[r]))
                add_case(g, 1, geo, race_types[r], OCR_SUM, 2 * g->geo[geo].elems + 3);
        if (g->ncases == before) /* none of them graded */
            add_case(g, 1, geo, g->groups[0].type, OCR_SUM, 2 * g->geo[geo].elems + 3);
    }
    for (unsigned i = g->nvalue; i < g->ncases; ++i) {
        grade_case *c = &g->cases[i];
        if (build_failed(g, c->geo, c->type)) {
            c->verdict = V_BUILD_ERROR;
            snprintf(c->detail, sizeof c->detail, "the kernel does not build for %s",
                     ocr_type_name(c->type));
        } else if (g->have_oclgrind && !g->stopped) {
            idx[count++] = i;
        } else if (g->have_oclgrind) {
            c->verdict = V_NOT_RUN; /* a value case crashed or hung: no more children */
        }
    }
    g->nraces = count;
    grade_run_races(g, idx, count);
    for (unsigned k = 0; k < count; ++k)
        if (g->cases[idx[k]].verdict == V_SKIPPED && !g->cases[idx[k]].checker_failed && g->stopped)
            g->cases[idx[k]].verdict = V_NOT_RUN; /* after a race check that hung */
}

/* A RACE whose values are wrong too says both: the first RACE case's
 * detail names the wrong value cases. */
static void race_and_wrong(grader *g) {
    if (g->verdict != V_RACE || !g->wrong_values) return;
    const grade_case *w = NULL;
    for (unsigned i = 0; i < g->nvalue && !w; ++i)
        if (g->cases[i].verdict == V_WRONG) w = &g->cases[i];
    grade_case *c = &g->cases[g->first];
    char more[400];
    snprintf(more, sizeof more,
             "the values are also wrong: %u value cases WRONG (first: %s %s n=%llu, got %s, "
             "expected %s)",
             g->wrong_values, ocr_type_name(w->type), ocr_op_name(w->op), (unsigned long long)w->n,
             w->got, w->want);
    /* a long race diagnostic gives way (cut at a line's end, the cut said) so
     * that this line is always whole */
    static const char cut[] = "\n[cut]";
    size_t at = strlen(c->detail), need = strlen(more) + 1;
    if (at + need >= sizeof c->detail) {
        size_t keep = sizeof c->detail - need - sizeof cut;
        while (keep > 0 && c->detail[keep] != '\n')
            --keep;
        memcpy(c->detail + keep, cut, sizeof cut);
        at = keep + sizeof cut - 1;
    }
    snprintf(c->detail + at, sizeof c->detail - at, "%s%s", at ? "\n" : "", more);
}

/* The grade: the gravest failure. A kernel that does not build comes first;
 * a race or an out-of-bounds write comes before the crash, hang or wrong
 * value it may cause. Without oclgrind, or where it failed on its own,
 * passing every value check is PASS_UNCHECKED, never a bare PASS; a race
 * check the checker could not run counts neither way. */
static void decide(grader *g) {
    static const grade_verdict gravity[] = {
        V_BUILD_ERROR, V_RACE, V_OUT_OF_BOUNDS, V_UNINITIALIZED, V_CRASH, V_TIMEOUT, V_WRONG};
    g->checker_failures = g->races_run = g->wrong_values = 0;
    for (unsigned i = 0; i < g->ncases; ++i) {
        const grade_case *c = &g->cases[i];
        g->checker_failures += c->checker_failed;
        g->races_run += c->race && g->have_oclgrind && c->verdict != V_SKIPPED;
        g->wrong_values += !c->race && c->verdict == V_WRONG;
    }
    g->verdict = g->have_oclgrind && !g->checker_failures ? V_PASS : V_PASS_UNCHECKED;
    g->first = -1;
    for (unsigned k = 0; k < COUNT(gravity) && g->first < 0; ++k)
        for (unsigned i = 0; i < g->ncases && g->first < 0; ++i)
            if (g->cases[i].verdict == gravity[k]) g->verdict = gravity[k], g->first = (int)i;
    g->passed = g->total = 0;
    for (unsigned i = 0; i < g->ncases; ++i) {
        if (g->cases[i].race && (!g->have_oclgrind || g->cases[i].checker_failed)) continue;
        if (!g->cases[i].race && g->cases[i].verdict == V_SKIPPED) continue; /* not graded here */
        ++g->total;
        g->passed += g->cases[i].verdict == V_PASS;
    }
    g->ratio = g->speed_ns && g->ref_ns ? (double)g->speed_ns / (double)g->ref_ns : 0;
    race_and_wrong(g);
    not_graded(g);
}

/* --grade-profile: where the time went, and how many children ran (never
 * more than one at a time). */
static void profile(const grader *g) {
    double total = grade_now() - g->t_start;
    fprintf(stderr,
            "oclReduction: --grade-profile: %.2f s in all; reference (reduce6) %.2f s; value "
            "cases %.2f s (%u cases, %u builds taking %.2f s); speed case %.2f s; race checks "
            "%.2f s (%u under oclgrind); %u children, one at a time\n",
            total, g->ref_s, g->values_s, g->cases_done, g->builds, g->build_ms / 1e3, g->speed_s,
            g->races_s, g->races_done, g->children);
}

/* The kernel's own output goes to stderr (the per-student log of
 * classroom/grade_class.sh), capped; never into the report. */
static void print_output(const grader *g) {
    if (!g->output_total) return;
    fprintf(stderr,
            "oclReduction: --grade: the kernel printed %llu bytes (kept out of the report); "
            "the first %zu follow\n",
            (unsigned long long)g->output_total, g->output_len);
    fwrite(g->output, 1, g->output_len, stderr);
    if (g->output_len && g->output[g->output_len - 1] != '\n') fputc('\n', stderr);
}

/* The grade seed: the teacher's, else drawn fresh (so no one can know the
 * sizes in advance) and said, so the grading can be repeated. */
static uint64_t choose_grade_seed(const cli_options *o) {
    uint64_t s = 0;
    if (o->grade_seed_given || o->quick) return o->grade_seed; /* --quick draws no sizes */
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof s, 1, f) != 1) s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (f) fclose(f);
    s &= ((uint64_t)1 << 53) - 1; /* exact in a JSON number, wherever it is read */
    fprintf(stderr,
            "oclReduction: --grade: grade seed %llu (--grade-seed %llu repeats this grading)\n",
            (unsigned long long)s, (unsigned long long)s);
    return s;
}

/* The matrix of the first geometry, the speed case, oclgrind. */
static ocr_status setup(grader *g, const cli_options *o) {
    memset(g, 0, sizeof *g);
    g->o = o;
    g->grade_seed = choose_grade_seed(o);
    g->geo[0] =
        (grade_geometry){.local = o->local_size ? o->local_size : 64, .elems = o->elems_per_group};
    g->ngeo = 1;
    type_op to[COUNT(contract_types) * COUNT(contract_ops)];
    add_groups(g, 0, to, first_pairs(o, to));
    /* the speed case: int sum at the largest published size (the same for every seed) */
    g->speed = g->groups[0].first + g->npublished[0] - 1;
    g->have_oclgrind = grade_find_oclgrind(g->oclgrind, sizeof g->oclgrind);
    ssize_t sl = readlink("/proc/self/exe", g->self, sizeof g->self - 1);
    if (sl <= 0) {
        fprintf(stderr, "oclReduction: --grade cannot find its own executable\n");
        return OCR_RUNTIME;
    }
    g->self[sl] = '\0';
    cli_ladder_note(o);
    return cli_check_kernel_file(o->kernel_file);
}

/* --list-cases: the graded (type, operator) pairs, for a rubric to check
 * against; no device is opened (double is listed: a device without it is
 * said in the report's not_graded). */
static ocr_status list_cases(const cli_options *o) {
    type_op to[COUNT(contract_types) * COUNT(contract_ops)];
    unsigned n = first_pairs(o, to);
    int json = o->format == OCR_FORMAT_JSON;
    if (json) fputs("{\"graded\": [", stdout);
    for (unsigned i = 0; i < n; ++i)
        printf(json ? "%s{\"type\": \"%s\", \"op\": \"%s\"}" : "%s%s %s\n", json && i ? ", " : "",
               ocr_type_name(to[i].type), ocr_op_name(to[i].op));
    if (json) puts("]}");
    return OCR_OK;
}

/* SIGINT and SIGTERM: the children die with the grader (PR_SET_PDEATHSIG);
 * the temporary folder is removed here (async-signal-safe calls only). */
static char tmp_files[3][96];
static void on_signal(int sig) {
    unlink(tmp_files[0]), unlink(tmp_files[1]), rmdir(tmp_files[2]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static ocr_status make_tmpdir(grader *g) {
    snprintf(g->tmpdir, sizeof g->tmpdir, "/tmp/ocr-grade-XXXXXX");
    if (!mkdtemp(g->tmpdir)) {
        fprintf(stderr, "oclReduction: cannot make a temporary directory: %s\n", strerror(errno));
        return OCR_RUNTIME;
    }
    for (unsigned k = 0; k < 2; ++k) /* each child slot's stderr */
        snprintf(tmp_files[k], sizeof tmp_files[k], "%s/stderr%u", g->tmpdir, k);
    snprintf(tmp_files[2], sizeof tmp_files[2], "%s", g->tmpdir);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return OCR_OK;
}

ocr_status cli_grade(const cli_options *o) {
    static grader g; /* large: keep it off the stack */
    if (o->list_cases) return list_cases(o);
    if (setup(&g, o) != OCR_OK || make_tmpdir(&g) != OCR_OK) return OCR_RUNTIME;
    if (isatty(2)) fprintf(stderr, "grading: value checks...");
    g.t_start = grade_now();
    run_values(&g);
    if (!g.env_broken) run_races(&g);
    for (unsigned i = 0; i < g.ncases; ++i)
        if (g.cases[i].verdict == V_NOT_RUN)
            snprintf(g.cases[i].detail, sizeof g.cases[i].detail, "not run: %s", g.stop_why);
    if (isatty(2)) fprintf(stderr, "\r%90s\r", "");
    if (o->grade_profile) profile(&g);
    unlink(tmp_files[0]), unlink(tmp_files[1]), rmdir(tmp_files[2]);
    print_output(&g);
    free(g.output);
    g.output = NULL;
    if (g.env_broken) {
        fprintf(stderr, "oclReduction: --grade: the environment is broken, not the kernel:\n%s\n",
                g.env_msg[0] ? g.env_msg : "(the device could not be opened)");
        return OCR_RUNTIME;
    }
    decide(&g);
    grade_report(&g);
    return g.verdict == V_PASS || g.verdict == V_PASS_UNCHECKED ? OCR_OK : OCR_WRONG;
}
