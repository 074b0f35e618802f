/* grade_report.c - the --grade report: text, one JSON document or CSV, all
 * written from the same case records (grade_matrix.h) and the summary grade.c made.
 * docs/labs/grading.md describes every field. */
#define _POSIX_C_SOURCE 200809L
#include "grade_matrix.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define SLOW_RATIO 4.0 /* SLOW beyond 4x reduce6's kernel time */

const char *const grade_verdict_names[V_NVERDICTS] = {
    "PASS",    "PASS_UNCHECKED", "WRONG",         "BUILD_ERROR", "OUT_OF_BOUNDS", "CRASH",
    "TIMEOUT", "RACE",           "UNINITIALIZED", "SKIPPED",     "NOT_RUN"};

/* S for a POSIX shell: as it is when every character is safe, else in single
 * quotes (a file named "smith, john.cl" replays as it is named). */
static int shell_word(char *buf, size_t len, const char *s) {
    if (s[0] &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-=:+,@%") ==
            strlen(s))
        return snprintf(buf, len, "%s", s);
    size_t k = 0;
    if (len < 3) return -1;
    buf[k++] = '\'';
    for (; *s && k + 6 < len; ++s) {
        if (*s == '\'') {
            memcpy(buf + k, "'\\''", 4), k += 4;
        } else {
            buf[k++] = *s;
        }
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return *s ? -1 : (int)k;
}

/* The command that reproduces case i on its own: the value run, or for a race
 * check the same run under oclgrind, judged (--race-check). */
void grade_replay(const grader *g, unsigned i, char *buf, size_t len) {
    const cli_options *o = g->o;
    const grade_case *c = &g->cases[i];
    const grade_geometry *geo = &g->geo[c->geo];
    char file[PATH_MAX + 64], name[320], opts[1100] = "";
    shell_word(file, sizeof file, o->kernel_file);
    shell_word(name, sizeof name, o->kernel_name);
    if (o->build_options) {
        char q[1060];
        shell_word(q, sizeof q, o->build_options);
        snprintf(opts, sizeof opts, " --build-options %s", q);
    }
    if (c->race) /* --race-check: under oclgrind, RACE is exit 1 (race_check.c) */
        snprintf(buf, len,
                 "oclReduction --race-check --kernel-file %s --kernel-name %s --elems-per-group "
                 "%llu -w %zu --type %s -s %llu --seed %llu -r 1 --cpu-baseline none%s",
                 file, name, (unsigned long long)geo->elems, geo->local, ocr_type_name(c->type),
                 (unsigned long long)c->n, (unsigned long long)o->seed, opts);
    else
        snprintf(buf, len,
                 "oclReduction --kernel-file %s --kernel-name %s --elems-per-group %llu -w %zu "
                 "--type %s --op %s -s %llu --seed %llu -r 1%s",
                 file, name, (unsigned long long)geo->elems, geo->local, ocr_type_name(c->type),
                 ocr_op_name(c->op), (unsigned long long)c->n, (unsigned long long)o->seed, opts);
}

/* A comma list of the names in bit set `set` (ocr_type or ocr_op values). */
static void name_list(char *buf, size_t len, unsigned set, int types) {
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < 32 && k < len; ++i)
        if (set >> i & 1)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "",
                                  types ? ocr_type_name((ocr_type)i) : ocr_op_name((ocr_op)i));
}

/* The command that repeats the whole grading: the same matrix (the grade
 * seed's sizes), the same data, the same limits. */
void grade_regrade(const grader *g, char *buf, size_t len) {
    const cli_options *o = g->o;
    char file[PATH_MAX + 64], name[320], opts[1100] = "", q[1060], list[200];
    shell_word(file, sizeof file, o->kernel_file);
    shell_word(name, sizeof name, o->kernel_name);
    size_t k = 0;
    if (o->grade_types)
        name_list(list, sizeof list, o->grade_types, 1),
            k += (size_t)snprintf(opts + k, sizeof opts - k, " --grade-types %s", list);
    if (o->grade_ops)
        name_list(list, sizeof list, o->grade_ops, 0),
            k += (size_t)snprintf(opts + k, sizeof opts - k, " --grade-ops %s", list);
    if (o->build_options)
        shell_word(q, sizeof q, o->build_options),
            snprintf(opts + k, sizeof opts - k, " --build-options %s", q);
    char seed[48] = " --quick"; /* --quick draws no sizes: no grade seed */
    if (!o->quick)
        snprintf(seed, sizeof seed, " --grade-seed %llu", (unsigned long long)g->grade_seed);
    snprintf(buf, len,
             "oclReduction --grade --kernel-file %s --kernel-name %s --elems-per-group %llu -w %zu "
             "--seed %llu%s --timeout %u%s",
             file, name, (unsigned long long)g->geo[0].elems, g->geo[0].local,
             (unsigned long long)o->seed, seed, o->timeout, opts);
}

/* "int sum n=1 (64 x 1024): WRONG", or the race check's equivalent. */
static void case_name(const grader *g, const grade_case *c, char *buf, size_t len) {
    const grade_geometry *geo = &g->geo[c->geo];
    if (c->race)
        snprintf(buf, len, "race check %s n=%llu (%zu x %llu): %s", ocr_type_name(c->type),
                 (unsigned long long)c->n, geo->local, (unsigned long long)geo->elems,
                 grade_verdict_names[c->verdict]);
    else
        snprintf(buf, len, "%s %s n=%llu (%zu x %llu): %s", ocr_type_name(c->type),
                 ocr_op_name(c->op), (unsigned long long)c->n, geo->local,
                 (unsigned long long)geo->elems, grade_verdict_names[c->verdict]);
}

static const char *data_name(const grade_case *c) {
    return c->data < 0 ? NULL : ocr_data_kind_name((ocr_data_kind)c->data);
}

static const char *speed_word(double ratio) {
    return ratio == 0 ? "n/a" : ratio > SLOW_RATIO ? "SLOW" : "OK";
}

/* How the race check went, in words: "oclgrind" when it checked every case. */
static void race_check(const grader *g, char *buf, size_t len) {
    const char *tool = "";
    for (unsigned i = g->nvalue; i < g->ncases; ++i)
        if (g->cases[i].checker_failed) tool = g->cases[i].tool;
    if (!g->have_oclgrind)
        snprintf(buf, len, "skipped: oclgrind not found, races not checked");
    else if (g->checker_failures)
        snprintf(buf, len, "not checked: the checker failed (%s) in %u of %u race checks", tool,
                 g->checker_failures, g->checker_failures + g->races_run);
    else
        snprintf(buf, len, "oclgrind");
}

/* The rule a verdict says the kernel broke, in a line. */
static const char *const rules[V_NVERDICTS] = {
    [V_WRONG] = "the result must be the operator's reduction of all n elements, for every size, "
                "type and operator (an accumulator starts at the operator's identity: 0 is "
                "right for sum, or and xor only)",
    [V_BUILD_ERROR] = "the kernel must build for every type and operator of the kernel contract",
    [V_OUT_OF_BOUNDS] = "a group may read only in[0, n) and write only its own out[] element",
    [V_CRASH] = "a run must end without a crash, inside the grader's memory, CPU-time and "
                "output limits",
    [V_TIMEOUT] = "every case must end within its time limit",
    [V_RACE] = "no two work-items may touch one location, one of them writing, without a "
               "barrier between them",
    [V_UNINITIALIZED] = "every value a kernel reads must have been written first"};

/* The student's feedback: the first failing case, the rule it breaks, its
 * detail (cut to FEEDBACK_DETAIL bytes at a line's end), the replay command,
 * and a count of the rest by verdict; a few KB whatever failed (a BUILD_ERROR
 * or a TIMEOUT once listed every case: 90-155 KB). */
enum { FEEDBACK_DETAIL = 1536 };
void grade_feedback(const grader *g, char *buf, size_t len) {
    size_t k = 0;
    buf[0] = '\0';
    if (g->first < 0) return;
    const grade_case *c = &g->cases[g->first];
    char name[200], rp[GRADE_REPLAY_LEN], detail[FEEDBACK_DETAIL];
    case_name(g, c, name, sizeof name);
#define PUT(...)                                                                                   \
    (k += (size_t)snprintf(buf + k, k < len ? len - k : 0, __VA_ARGS__), k = k < len ? k : len - 1)
    PUT("First failure: %s\n", name);
    if (c->verdict == V_WRONG)
        PUT("  got %s, expected %s (%s data)\n", c->got, c->want,
            data_name(c) ? data_name(c) : "?");
    if (rules[c->verdict]) PUT("  rule: %s\n", rules[c->verdict]);
    if (c->detail[0]) {
        size_t n = strlen(c->detail), keep = n < sizeof detail ? n : sizeof detail - 32;
        while (keep < n && keep > 0 && c->detail[keep] != '\n')
            --keep;
        snprintf(detail, sizeof detail, "%.*s%s", (int)keep, c->detail, keep < n ? "\n[cut]" : "");
        for (char *line = detail, *nl; line; line = nl ? nl + 1 : NULL) {
            nl = strchr(line, '\n');
            PUT("  %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
        }
    }
    grade_replay(g, (unsigned)g->first, rp, sizeof rp);
    PUT("  replay: %s\n", rp);
    unsigned count[V_NVERDICTS] = {0}, rest = 0;
    for (unsigned i = 0; i < g->ncases; ++i) {
        grade_verdict v = g->cases[i].verdict;
        if ((int)i == g->first || v == V_PASS || v == V_SKIPPED) continue;
        ++count[v], ++rest;
    }
    if (!rest) {
        PUT("  no other case failed\n");
        return;
    }
    PUT("  and %u more case%s not passed:", rest, rest == 1 ? "" : "s");
    for (int v = 0, sep = 0; v < V_NVERDICTS; ++v)
        if (count[v]) PUT("%s %u %s", sep++ ? "," : "", count[v], grade_verdict_names[v]);
    PUT("\n");
    if (count[V_NOT_RUN] && g->stopped) PUT("  not run because %s\n", g->stop_why);
#undef PUT
}

/* ---- text ----------------------------------------------------------------- */

static void text_geometry(const grader *g, unsigned geo) {
    const grade_geometry *ge = &g->geo[geo];
    printf("Geometry %u: %zu work-items, %llu elements per group%s\n", geo + 1, ge->local,
           (unsigned long long)ge->elems, geo ? "" : " (the command line's)");
    for (unsigned gi = 0; gi < g->ngroups; ++gi) {
        const grade_group *gr = &g->groups[gi];
        if (gr->geo != geo) continue;
        printf("  %-6s %-5s", ocr_type_name(gr->type), ocr_op_name(gr->op));
        unsigned same = 1;
        for (unsigned s = 1; s < gr->count; ++s)
            same += g->cases[gr->first + s].verdict == g->cases[gr->first].verdict;
        grade_verdict v0 = g->cases[gr->first].verdict;
        if (same == gr->count && v0 != V_PASS) /* a row of one failure, in a word */
            printf(" %s x%u", grade_verdict_names[v0], gr->count);
        else
            for (unsigned s = 0; s < gr->count; ++s)
                printf(" %s", grade_verdict_names[g->cases[gr->first + s].verdict]);
        putchar('\n');
    }
    printf("  sizes:");
    for (unsigned s = 0; s < g->nsizes[geo]; ++s)
        printf(" %llu", (unsigned long long)g->sizes[geo][s]);
    if (g->o->quick) {
        puts(" (the published sizes only)");
    } else {
        printf("\n  (drawn from the grade seed:");
        for (unsigned s = 0; s < GRADE_DRAWN; ++s)
            printf(" %llu", (unsigned long long)g->drawn[geo][s]);
        puts(")");
    }
    for (unsigned i = g->nvalue; i < g->ncases && g->have_oclgrind; ++i)
        if (g->cases[i].geo == geo)
            printf("  race check (%s, n = %llu, oclgrind): %s%s%s%s\n",
                   ocr_type_name(g->cases[i].type), (unsigned long long)g->cases[i].n,
                   grade_verdict_names[g->cases[i].verdict],
                   g->cases[i].checker_failed ? " (not checked: the checker failed (" : "",
                   g->cases[i].checker_failed ? g->cases[i].tool : "",
                   g->cases[i].checker_failed ? "))" : "");
}

static void text_report(const grader *g) {
    const cli_options *o = g->o;
    printf("Grading %s (kernel %s; every case on two data sets: exact and one-sided, seed "
           "%llu; grade seed %llu)\n",
           o->kernel_file, o->kernel_name, (unsigned long long)o->seed,
           (unsigned long long)g->grade_seed);
    for (unsigned geo = 0; geo < g->ngeo; ++geo)
        text_geometry(g, geo);
    const type_op *ng = g->not_graded;
    const char *const *why = g->not_graded_why;
    for (unsigned i = 0; i < g->nnot_graded; ++i) { /* one line per reason */
        int same_before = i && why[i] == why[i - 1],
            same_after = i + 1 < g->nnot_graded && why[i + 1] == why[i];
        printf("%s%s %s", same_before ? ", " : "Not graded: ", ocr_type_name(ng[i].type),
               ocr_op_name(ng[i].op));
        if (!same_after) printf(" (%s)\n", why[i]);
    }
    if (!g->have_oclgrind)
        printf("  race check: SKIPPED (oclgrind not found: races not checked; install it)\n");
    char fb[GRADE_FEEDBACK_LEN];
    grade_feedback(g, fb, sizeof fb);
    fputs(fb, stdout);
    if (g->ratio > 0)
        printf("Speed: %.3gx reduce6's kernel time at n = %llu (%s; SLOW above %.0fx)\n", g->ratio,
               (unsigned long long)g->cases[g->speed].n, speed_word(g->ratio), SLOW_RATIO);
    char rc[160];
    race_check(g, rc, sizeof rc);
    char rg[GRADE_REPLAY_LEN];
    grade_regrade(g, rg, sizeof rg);
    printf("Regrade: %s\n", rg);
    printf("%s: %s (%u of %u checks passed%s%s%s)\n", o->quick ? "Quick check" : "Grade",
           grade_verdict_names[g->verdict], g->passed, g->total,
           strcmp(rc, "oclgrind") ? "; race check " : "", strcmp(rc, "oclgrind") ? rc : "",
           o->quick ? "; a self-check, not a grade: --grade without --quick runs the whole matrix"
                    : "");
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_str(const char *s) {
    if (s)
        ocr_report_quoted(stdout, OCR_FORMAT_JSON, s);
    else
        fputs("null", stdout);
}

static void json_case(const grader *g, unsigned i) {
    const grade_case *c = &g->cases[i];
    const grade_geometry *geo = &g->geo[c->geo];
    printf("%s\n {\"case\": %u, \"check\": \"%s\", \"local_size\": %zu, \"elems_per_group\": %llu, "
           "\"type\": \"%s\", \"op\": \"%s\", \"n\": %llu, \"verdict\": \"%s\", \"data\": ",
           i ? "," : "", i, c->race ? "race" : "value", geo->local, (unsigned long long)geo->elems,
           ocr_type_name(c->type), ocr_op_name(c->op), (unsigned long long)c->n,
           grade_verdict_names[c->verdict]);
    json_str(data_name(c));
    fputs(", \"result\": ", stdout), json_str(c->got[0] ? c->got : "-");
    fputs(", \"expected\": ", stdout), json_str(c->want[0] ? c->want : "-");
    fputs(", \"detail\": ", stdout), json_str(c->detail);
    printf(", \"limit_s\": %.1f", c->race ? 0.0 : grade_case_limit(g, c->n));
    printf(", \"checker_failed\": %s", c->checker_failed ? "true" : "false");
    char rp[GRADE_REPLAY_LEN];
    grade_replay(g, i, rp, sizeof rp);
    fputs(", \"replay\": ", stdout), json_str(rp);
    putchar('}');
}

/* "graded" and "not_graded": the (type, operator) pairs, the latter with why. */
static void json_pairs(const grader *g) {
    unsigned k = 0;
    fputs(", \"graded\": [", stdout);
    for (unsigned gi = 0; gi < g->ngroups; ++gi) {
        const grade_group *gr = &g->groups[gi];
        if (gr->geo || g->cases[gr->first].verdict == V_SKIPPED) continue;
        printf("%s{\"type\": \"%s\", \"op\": \"%s\"}", k++ ? ", " : "", ocr_type_name(gr->type),
               ocr_op_name(gr->op));
    }
    fputs("], \"not_graded\": [", stdout);
    for (unsigned i = 0; i < g->nnot_graded; ++i)
        printf("%s{\"type\": \"%s\", \"op\": \"%s\", \"why\": \"%s\"}", i ? ", " : "",
               ocr_type_name(g->not_graded[i].type), ocr_op_name(g->not_graded[i].op),
               g->not_graded_why[i]);
    putchar(']');
}

static void json_report(const grader *g) {
    const cli_options *o = g->o;
    char first[200] = "";
    fputs("{\"kernel_file\": ", stdout), json_str(o->kernel_file);
    fputs(", \"kernel_name\": ", stdout), json_str(o->kernel_name);
    printf(", \"seed\": %llu, \"data_sets\": [\"%s\", \"%s\"], \"timeout_s\": %u, "
           "\"geometries\": [",
           (unsigned long long)o->seed, ocr_data_kind_name(OCR_DATA_EXACT),
           ocr_data_kind_name(OCR_DATA_ONE_SIDED), o->timeout);
    for (unsigned k = 0; k < g->ngeo; ++k) {
        printf("%s{\"local_size\": %zu, \"elems_per_group\": %llu, \"drawn_sizes\": [",
               k ? ", " : "", g->geo[k].local, (unsigned long long)g->geo[k].elems);
        for (unsigned s = 0; s < GRADE_DRAWN; ++s)
            printf("%s%llu", s ? ", " : "", (unsigned long long)g->drawn[k][s]);
        fputs("]}", stdout);
    }
    char rg[GRADE_REPLAY_LEN];
    grade_regrade(g, rg, sizeof rg);
    printf("], \"grade_seed\": %llu, \"regrade\": ", (unsigned long long)g->grade_seed);
    json_str(rg);
    json_pairs(g);
    fputs(", \"cases\": [", stdout);
    for (unsigned i = 0; i < g->ncases; ++i)
        json_case(g, i);
    if (g->first >= 0) case_name(g, &g->cases[g->first], first, sizeof first);
    char rc[160];
    race_check(g, rc, sizeof rc);
    printf("],\n \"summary\": {\"verdict\": \"%s\", \"passed\": %u, \"cases\": %u, "
           "\"race_check\": \"%s\", \"checker_failures\": %u, \"wrong_values\": %u, "
           "\"reference\": \"reduce6\", \"reference_wall_s\": %.3f, \"speed_ratio\": ",
           grade_verdict_names[g->verdict], g->passed, g->total, rc, g->checker_failures,
           g->wrong_values, g->ref_wall);
    if (g->ratio > 0)
        printf("%.3f", g->ratio);
    else
        fputs("null", stdout);
    printf(", \"speed\": \"%s\", \"grade_seed\": %llu, \"first_failure\": ", speed_word(g->ratio),
           (unsigned long long)g->grade_seed);
    json_str(first);
    unsigned not_run = 0;
    for (unsigned i = 0; i < g->ncases; ++i)
        not_run += g->cases[i].verdict == V_NOT_RUN;
    char fb[GRADE_FEEDBACK_LEN];
    grade_feedback(g, fb, sizeof fb);
    printf(", \"not_run\": %u, \"not_run_why\": ", not_run);
    json_str(not_run && g->stopped ? g->stop_why : NULL);
    printf(", \"quick\": %s, \"feedback\": ", g->o->quick ? "true" : "false");
    json_str(fb);
    fputs("}}\n", stdout);
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_str(const char *s) {
    putchar('"');
    for (; *s; ++s)
        fputs(*s == '"' ? "\"\"" : *s == '\n' ? " " : (char[2]){*s, 0}, stdout);
    putchar('"');
}

/* The columns keep their places (classroom/grade_class.sh reads the summary row
 * by position); new ones go at the end. */
static void csv_report(const grader *g) {
    char first[200] = "";
    puts("case,check,type,op,n,verdict,result,expected,detail,local_size,elems_per_group,data,"
         "checker_failed");
    for (unsigned i = 0; i < g->ncases; ++i) {
        const grade_case *c = &g->cases[i];
        printf("%u,%s,%s,%s,%llu,%s,%s,%s,", i, c->race ? "race" : "value", ocr_type_name(c->type),
               ocr_op_name(c->op), (unsigned long long)c->n, grade_verdict_names[c->verdict],
               c->got[0] ? c->got : "-", c->want[0] ? c->want : "-");
        csv_str(c->detail);
        printf(",%zu,%llu,%s,%d\n", g->geo[c->geo].local, (unsigned long long)g->geo[c->geo].elems,
               data_name(c) ? data_name(c) : "", c->checker_failed);
    }
    printf("summary,,,,,%s,%u/%u,", grade_verdict_names[g->verdict], g->passed, g->total);
    if (g->ratio > 0) printf("%.3f", g->ratio);
    putchar(',');
    if (g->first >= 0) case_name(g, &g->cases[g->first], first, sizeof first);
    csv_str(first);
    printf(",%u,%llu\n", g->checker_failures, (unsigned long long)g->grade_seed);
}

void grade_report(const grader *g) {
    if (g->o->format == OCR_FORMAT_JSON)
        json_report(g);
    else if (g->o->format == OCR_FORMAT_CSV)
        csv_report(g);
    else
        text_report(g);
}
