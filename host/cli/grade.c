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
#include "grade.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const grade_verdict_names[V_NVERDICTS] = {
    "PASS",  "PASS_UNCHECKED", "WRONG", "BUILD_ERROR", "OUT_OF_BOUNDS",
    "CRASH", "TIMEOUT",        "RACE",  "SKIPPED",     "NOT_RUN"};

#define LARGE ((uint64_t)1 << 22) /* the large size where E is too large for two passes */

/* The groups: every group runs every size of its geometry. Operators beside
 * sum catch a hard-coded '+': prod and max for int, min and xor for long,
 * max and prod for float. At the second geometry, three groups whose every
 * element matters: int sum, long xor, float prod. */
typedef struct {
    ocr_type type;
    ocr_op op;
} type_op;
static const type_op first_groups[] = {
    {OCR_INT, OCR_SUM},   {OCR_INT, OCR_PROD},  {OCR_INT, OCR_MAX},
    {OCR_LONG, OCR_SUM},  {OCR_LONG, OCR_MIN},  {OCR_LONG, OCR_XOR},
    {OCR_FLOAT, OCR_SUM}, {OCR_FLOAT, OCR_MAX}, {OCR_FLOAT, OCR_PROD}};
static const type_op second_groups[] = {
    {OCR_INT, OCR_SUM}, {OCR_LONG, OCR_XOR}, {OCR_FLOAT, OCR_PROD}};
static const ocr_type race_types[] = {OCR_INT, OCR_LONG, OCR_FLOAT};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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

/* The sizes for E elements per group, sorted, distinct: one element, a
 * partial group, one group less one, exactly one, one past it; last groups
 * of 3, E/2 and E-2 elements (mid-length tails); many groups with an odd
 * tail (the first prime above 64 E); and a large size, the speed case's:
 * 1.5 E^2 + 3, two passes with mid-length tails in both (last groups of 3
 * and E/2 + 1), while that stays below 2^23; else 2^22. */
static unsigned make_sizes(uint64_t e, uint64_t *s) {
    uint64_t p = 64 * e + 1;
    while (!is_prime(p))
        ++p;
    uint64_t two = e * e + e * e / 2 + 3, big = two <= ((uint64_t)1 << 23) ? two : LARGE;
    uint64_t v[] = {
        1, 2, e - 1, e, e + 1, 2 * e + 3, 5 * e + e / 2, 8 * e - 2, p, big > p ? big : p + 1};
    qsort(v, COUNT(v), sizeof v[0], by_value);
    unsigned k = 0;
    for (unsigned i = 0; i < COUNT(v) && k < GRADE_MAX_SIZES; ++i)
        if (v[i] >= 1 && (k == 0 || v[i] != s[k - 1])) s[k++] = v[i];
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
    g->nsizes[geo] = make_sizes(g->geo[geo].elems, g->sizes[geo]);
    for (unsigned i = 0; i < count; ++i) {
        grade_group *gr = &g->groups[g->ngroups++];
        *gr = (grade_group){to[i].type, to[i].op, geo, g->ncases, g->nsizes[geo]};
        for (unsigned s = 0; s < g->nsizes[geo]; ++s)
            add_case(g, 0, geo, to[i].type, to[i].op, g->sizes[geo][s]);
    }
    g->nvalue = g->ncases;
}

/* The second geometry: twice the work-items and the elements per group
 * (keeping their ratio, which some kernels rely on), where the device takes
 * that many work-items; else half of both. A kernel with a hard-coded group
 * size, or a race that needs more work-items, shows at one of the two. */
static void choose_second(grader *g) {
    grade_geometry a = g->geo[0];
    if (g->device_limit >= 2 * a.local && 2 * a.elems <= ((uint64_t)1 << 30))
        g->geo[1] = (grade_geometry){2 * a.local, 2 * a.elems};
    else if (a.local >= 2 && a.elems >= 8 && a.elems % 2 == 0)
        g->geo[1] = (grade_geometry){a.local / 2, a.elems / 2};
    else
        return; /* one work-item and tiny groups: nothing else to try */
    g->ngeo = 2;
}

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

void grade_plan_second(grader *g) {
    g->second_planned = 1;
    choose_second(g);
    if (g->ngeo == 2) add_groups(g, 1, second_groups, COUNT(second_groups));
}

/* Whether type t failed to build at geometry geo (its race check is then a
 * BUILD_ERROR too, without running). */
static int build_failed(const grader *g, unsigned geo, ocr_type t) {
    for (unsigned i = 0; i < g->nvalue; ++i)
        if (g->cases[i].geo == geo && g->cases[i].type == t && g->cases[i].verdict == V_BUILD_ERROR)
            return 1;
    return 0;
}

/* The race checks: int, long and float at n = 2E + 3 (several groups and a
 * partial last one) at each geometry. After a time-out only the first runs,
 * with the case limit: an out-of-bounds write can hang the run, and oclgrind
 * names it. */
static void run_races(grader *g) {
    unsigned idx[GRADE_MAX_CASES], count = 0;
    for (unsigned geo = 0; geo < g->ngeo; ++geo)
        for (unsigned r = 0; r < COUNT(race_types); ++r)
            add_case(g, 1, geo, race_types[r], OCR_SUM, 2 * g->geo[geo].elems + 3);
    for (unsigned i = g->nvalue; i < g->ncases; ++i) {
        grade_case *c = &g->cases[i];
        if (build_failed(g, c->geo, c->type)) {
            c->verdict = V_BUILD_ERROR;
            snprintf(c->detail, sizeof c->detail, "the kernel does not build for %s",
                     ocr_type_name(c->type));
        } else if (g->have_oclgrind && (!g->timed_out || i == g->nvalue)) {
            idx[count++] = i;
        }
    }
    if (isatty(2)) fprintf(stderr, "\rgrading: %u race checks under oclgrind      ", count);
    grade_run_races(g, idx, count);
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
    size_t at = strlen(c->detail);
    snprintf(c->detail + at, sizeof c->detail - at, "%s%s", at ? "\n" : "", more);
}

/* The grade: the gravest failure. A kernel that does not build comes first;
 * a race or an out-of-bounds write comes before the crash, hang or wrong
 * value it may cause. Without oclgrind, or where it failed on its own,
 * passing every value check is PASS_UNCHECKED, never a bare PASS; a race
 * check the checker could not run counts neither way. */
static void decide(grader *g) {
    static const grade_verdict gravity[] = {V_BUILD_ERROR, V_RACE,    V_OUT_OF_BOUNDS,
                                            V_CRASH,       V_TIMEOUT, V_WRONG};
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
        ++g->total;
        g->passed += g->cases[i].verdict == V_PASS;
    }
    g->ratio = g->speed_ns && g->ref_ns ? (double)g->speed_ns / (double)g->ref_ns : 0;
    race_and_wrong(g);
}

/* The kernel's own output goes to stderr (the per-student log of
 * tools/grade_class.sh), capped; never into the report. */
static void print_output(const grader *g) {
    if (!g->output_total) return;
    fprintf(stderr,
            "oclReduction: --grade: the kernel printed %llu bytes (kept out of the report); "
            "the first %zu follow\n",
            (unsigned long long)g->output_total, g->output_len);
    fwrite(g->output, 1, g->output_len, stderr);
    if (g->output_len && g->output[g->output_len - 1] != '\n') fputc('\n', stderr);
}

/* The matrix of the first geometry, the speed case, oclgrind. */
static ocr_status setup(grader *g, const cli_options *o) {
    memset(g, 0, sizeof *g);
    g->o = o;
    g->geo[0] = (grade_geometry){o->local_size ? o->local_size : 64, o->elems_per_group};
    g->ngeo = 1;
    add_groups(g, 0, first_groups, COUNT(first_groups));
    g->speed = g->groups[0].first + g->groups[0].count - 1; /* int sum, the largest size */
    g->have_oclgrind = find_oclgrind(g->oclgrind, sizeof g->oclgrind);
    g->timeout_group = -1;
    ssize_t sl = readlink("/proc/self/exe", g->self, sizeof g->self - 1);
    if (sl <= 0) {
        fprintf(stderr, "oclReduction: --grade cannot find its own executable\n");
        return OCR_RUNTIME;
    }
    g->self[sl] = '\0';
    return cli_check_kernel_file(o->kernel_file);
}

ocr_status cli_grade(const cli_options *o) {
    static grader g; /* large: keep it off the stack */
    if (setup(&g, o) != OCR_OK) return OCR_RUNTIME;
    snprintf(g.tmpdir, sizeof g.tmpdir, "/tmp/ocr-grade-XXXXXX");
    if (!mkdtemp(g.tmpdir)) {
        fprintf(stderr, "oclReduction: cannot make a temporary directory: %s\n", strerror(errno));
        return OCR_RUNTIME;
    }
    if (isatty(2)) fprintf(stderr, "grading: value checks (two at a time)...");
    grade_run_values(&g);
    for (unsigned i = 0; i < g.nvalue; ++i)
        if (g.cases[i].verdict == V_NOT_RUN)
            snprintf(g.cases[i].detail, sizeof g.cases[i].detail,
                     "not run: an earlier case timed out");
    if (!g.env_broken) run_races(&g);
    if (isatty(2)) fprintf(stderr, "\r%70s\r", "");
    char path[128];
    for (unsigned k = 0; k < 2; ++k) /* each child slot's stderr */
        snprintf(path, sizeof path, "%s/stderr%u", g.tmpdir, k), unlink(path);
    rmdir(g.tmpdir);
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
