/* cli_grade.h - oclReduction --grade: a student kernel against a fixed matrix of
 * cases, each isolated in a child process with a time limit, plus a race
 * check under oclgrind and a speed ratio (docs/labs/grading.md).
 *
 * The parts: grade.c plans the matrix and decides the verdict, grade_run.c
 * runs the cases in child processes (isolation, time limits, the kernel's
 * own output), grade_report.c writes the report from the case records;
 * grade_matrix.h holds what they share. */
#ifndef OCR_CLI_GRADE_H
#define OCR_CLI_GRADE_H

#include "cli.h"

/* Grades o->kernel_file and prints the report in o->format. OCR_OK: every
 * value check passed, races checked or not (PASS, PASS_UNCHECKED);
 * OCR_WRONG: the kernel is wrong in any way (WRONG, BUILD_ERROR,
 * OUT_OF_BOUNDS, CRASH, TIMEOUT, RACE); OCR_RUNTIME: the environment is
 * broken (no device, an unreadable kernel file, a matrix this machine cannot
 * hold). */
ocr_status cli_grade(const cli_options *o);

/* oclgrind's path on PATH, 0 if none (--race-check's too). */
int grade_find_oclgrind(char *path, size_t len);

/* grade_oclgrind.c: oclgrind's stderr read by kind (a kind is a verdict:
 * RACE, OUT_OF_BOUNDS, UNINITIALIZED; a compiler warning never is). */
typedef enum { OG_RACE, OG_INVALID, OG_UNINIT, OG_KINDS } grade_oclgrind_kind;
typedef struct {
    unsigned count[OG_KINDS]; /* reports of each kind */
    long at[OG_KINDS];        /* where each kind's first report starts in the log, -1: none */
    unsigned warnings;        /* the compiler's warnings */
    unsigned unknown;         /* lines that are none of these: the checker's, never a verdict */
    long unknown_at;          /* the first of them, -1: none */
} grade_oclgrind_said;
void grade_read_oclgrind(const char *log, grade_oclgrind_said *s);
/* The first cap bytes of the file at path, malloc'd and ended ("" if it
 * cannot be read; NULL when out of memory). */
char *grade_read_log(const char *path, size_t cap);
enum { GRADE_LOG_CAP = 8 << 20 }; /* --max-errors 8192 reports, about 3 MB */
/* The options every run under oclgrind gets (NULL-terminated), and what each
 * kind means, in a line. */
extern const char *const grade_oclgrind_options[];
extern const char *const grade_oclgrind_meaning[OG_KINDS];

#endif
