/*
 * grade_oclgrind.c - what oclgrind said, read by kind, for the grader's race
 * checks (grade_run.c) and --race-check (race_check.c). Not every line on
 * oclgrind's stderr is a finding: the compiler's warnings ("1 warning
 * generated.") go there too, and are never a verdict. Each report oclgrind
 * writes opens with a line at the margin naming its kind, its body indented
 * by a tab; a line that is none of these (nor the run's own "oclReduction:"
 * message) is text the grader cannot read, the checker's problem, never a
 * verdict against the student.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_grade.h"
#include "grade_matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options every run under oclgrind gets. --uniform-writes: without it
 * oclgrind hides a write-write race whose writers store the same value (every
 * work-item storing out[group]). --max-errors: oclgrind stops reporting after
 * 1000, and a missing barrier's uninitialized reads (reported at once) come
 * before its races (reported when the group ends): up to 1024 of them. */
const char *const grade_oclgrind_options[] = {"--data-races", "--check-api", "--uniform-writes",
                                              "--max-errors", "8192",        NULL};

char *grade_read_log(const char *path, size_t cap) {
    FILE *f = fopen(path, "rb");
    char *buf = malloc(cap + 1);
    size_t n = f && buf ? fread(buf, 1, cap, f) : 0;
    if (f) fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* The report headers of oclgrind 21.10 (its plugins' messages), by kind. */
static const struct {
    const char *head;
    grade_oclgrind_kind kind;
} heads[] = {
    {"Read-write data race", OG_RACE},
    {"Write-write data race", OG_RACE},
    {"Work-group divergence detected", OG_RACE}, /* a barrier not every work-item reaches */
    {"Work-item divergence detected", OG_RACE},
    {"Invalid read", OG_INVALID},
    {"Invalid write", OG_INVALID},
    {"Unaligned address", OG_INVALID},
    {"Uninitialized value", OG_UNINIT},
    {"Uninitialized address", OG_UNINIT},
};

/* One line: explained to a student in the feedback. */
const char *const grade_oclgrind_meaning[OG_KINDS] = {
    "oclgrind found a data race: two work-items touch the same address, at least one "
    "writing, with no barrier between them (or a barrier that not every work-item of the "
    "group reaches)",
    "oclgrind found an invalid memory access: a read or write outside its buffer (global "
    "or local), misaligned, or a write to the read-only input",
    "oclgrind found an uninitialized value used: a value read before anything was stored "
    "there (local memory, a private variable, or past the input's end) went into a store, "
    "an address or a branch",
};

static int starts(const char *line, const char *word) {
    return strncmp(line, word, strlen(word)) == 0;
}

/* A compiler diagnostic line of clang's (a warning, a note, the count). */
static int compiler_line(const char *line, size_t n) {
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 255 ? n : 255), line);
    unsigned count;
    char word[16];
    if (sscanf(buf, "%u warning%15s generated.", &count, word) == 2) return 1;
    return strstr(buf, ": warning: ") != NULL || strstr(buf, ": note: ") != NULL;
}

void grade_read_oclgrind(const char *log, grade_oclgrind_said *s) {
    memset(s, 0, sizeof *s);
    for (int k = 0; k < OG_KINDS; ++k)
        s->at[k] = -1;
    s->unknown_at = -1;
    int in_report = 0, in_warning = 0;
    for (const char *line = log, *next; *line; line = next) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        next = line + n + (nl != NULL);
        int kind = -1;
        for (size_t h = 0; h < sizeof heads / sizeof heads[0] && kind < 0; ++h)
            if (starts(line, heads[h].head)) kind = (int)heads[h].kind;
        if (kind >= 0) {
            if (!s->count[kind]++) s->at[kind] = line - log;
            in_report = 1, in_warning = 0;
        } else if (compiler_line(line, n)) {
            s->warnings += !starts(line, " ") && strstr(line, "generated.") == NULL;
            in_warning = 1, in_report = 0;
        } else if (n == 0) {
            in_report = in_warning = 0; /* reports are separated by blank lines */
        } else if (line[0] == '\t' || starts(line, "[cut: ")) {
            /* a report's body (indented), the grader's cut */
        } else if (starts(line, "oclReduction") ||
                   (starts(line, "Oclgrind: ") && strstr(line, " errors generated") != NULL)) {
            in_report = in_warning = 0; /* the run's own words (its exit status says), or
                                           oclgrind's count of its reports */
        } else if (!in_report && !in_warning) {
            if (!s->unknown++) s->unknown_at = line - log;
        } /* else: a warning's quoted source and caret, or a report's unindented tail */
    }
}

/* c->detail: what the kind means, then oclgrind's log from its first report
 * of that kind, cut at a line's end (the cut said). */
static void explain(grade_case *c, grade_oclgrind_kind kind, const char *from) {
    static const char cut[] = "\n[cut]";
    int n = snprintf(c->detail, sizeof c->detail, "%s:\n%s", grade_oclgrind_meaning[kind], from);
    if (n < 0 || (size_t)n < sizeof c->detail) return;
    size_t keep = sizeof c->detail - sizeof cut;
    while (keep > 0 && c->detail[keep] != '\n')
        --keep;
    memcpy(c->detail + keep, cut, sizeof cut);
}

int grade_race_verdict(grade_case *c, const char *log, int status) {
    static const grade_verdict verdict[OG_KINDS] = {V_RACE, V_OUT_OF_BOUNDS, V_UNINITIALIZED};
    grade_oclgrind_said s;
    grade_read_oclgrind(log, &s);
    for (int k = 0; k < OG_KINDS; ++k) /* the gravest kind found decides */
        if (s.count[k]) {
            c->verdict = verdict[k];
            explain(c, (grade_oclgrind_kind)k, log + s.at[k]);
            return 0;
        }
    if (s.unknown) return -1;
    c->verdict = status == 0 ? V_PASS : V_WRONG;
    if (status != 0)
        snprintf(c->detail, sizeof c->detail,
                 "under oclgrind the run's own check failed at n = %llu (the value cases say how)",
                 (unsigned long long)c->n);
    else if (s.warnings || log[0])
        snprintf(c->detail, sizeof c->detail, "the compiler warned (never a verdict):\n%.1000s",
                 log + strspn(log, "\n"));
    return 0;
}
