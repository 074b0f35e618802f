/*
 * race_check.c - oclReduction --race-check: the run on the command line, under
 * oclgrind (grade_oclgrind_options, and --uninitialized), judged as the grader
 * judges its race check (grade_oclgrind.c): oclgrind's reports read by kind
 * (exit 1, "Race check: RACE", OUT_OF_BOUNDS or UNINITIALIZED; a compiler
 * warning is none, text it cannot read is the checker's failure, exit 3); the run's own check
 * failing is exit 1 too; oclgrind failing on its own (a signal, a status that
 * is none of the run's) is tried again without --uninitialized, and if it
 * fails again it is the checker's failure (exit 3), never the kernel's. A
 * --grade report's race replay is this command.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_grade.h"
#include "modes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs oclgrind on this program with argv minus --race-check, its stderr in
 * the file `log`. Returns the wait status, or -1 when it cannot start. */
static int under_oclgrind(const char *oclgrind, const char *self, int uninit, int argc, char **argv,
                          const char *log) {
    char **a = calloc((size_t)argc + 8, sizeof *a);
    int k = 0, status = -1;
    if (!a) return -1;
    a[k++] = (char *)oclgrind;
    for (const char *const *p = grade_oclgrind_options; *p; ++p)
        a[k++] = (char *)*p;
    if (uninit) a[k++] = "--uninitialized";
    a[k++] = (char *)self;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--race-check") != 0) a[k++] = argv[i];
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) dup2(fd, 2);
        execv(a[0], a);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    free(a);
    return pid > 0 ? status : -1;
}

/* Copies the file at path to stderr. */
static void relay(const char *path) {
    FILE *f = fopen(path, "rb");
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stderr);
    if (f) fclose(f);
}

ocr_status cli_run_race_check(const cli_options *o, int *argc, char ***argv) {
    char oclgrind[PATH_MAX], self[PATH_MAX], log[] = "/tmp/ocr-race-XXXXXX";
    (void)o;
    if (!grade_find_oclgrind(oclgrind, sizeof oclgrind)) {
        fprintf(stderr, "oclReduction: --race-check needs oclgrind on PATH\n");
        return OCR_RUNTIME;
    }
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    int fd = mkstemp(log);
    if (sl <= 0 || fd < 0) {
        fprintf(stderr, "oclReduction: --race-check cannot start: %s\n", strerror(errno));
        return OCR_RUNTIME;
    }
    close(fd);
    self[sl] = '\0';
    int st = -1, code = -1;
    for (int uninit = 1; uninit >= 0; --uninit) {
        st = under_oclgrind(oclgrind, self, uninit, *argc, *argv, log);
        code = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (code == 0 || code == 1) break;
        if (uninit)
            fprintf(stderr, "oclReduction: oclgrind --uninitialized failed; again without it\n");
    }
    grade_oclgrind_said said;
    relay(log);
    char *head = grade_read_log(log, GRADE_LOG_CAP);
    unlink(log);
    if (!head) {
        fprintf(stderr, "oclReduction: --race-check: out of host memory\n");
        return OCR_RUNTIME;
    }
    grade_read_oclgrind(head, &said);
    free(head);
    static const char *const word[OG_KINDS] = {"RACE", "OUT_OF_BOUNDS", "UNINITIALIZED"};
    int kind = said.count[OG_RACE]      ? OG_RACE
               : said.count[OG_INVALID] ? OG_INVALID
               : said.count[OG_UNINIT]  ? OG_UNINIT
                                        : -1;
    if (kind < 0 && said.unknown && (code == 0 || code == 1)) {
        printf("Race check: not checked: the checker failed (output it could not read)\n");
        return OCR_RUNTIME;
    }
    if (code != 0 && code != 1) {
        printf("Race check: not checked: the checker failed (%s %d)\n",
               st >= 0 && WIFSIGNALED(st) ? "signal" : "status",
               st >= 0 && WIFSIGNALED(st) ? WTERMSIG(st) : code);
        return OCR_RUNTIME;
    }
    if (kind >= 0)
        printf("Race check: %s (oclgrind's report above: %s)\n", word[kind],
               grade_oclgrind_meaning[kind]);
    else
        printf("Race check: %s\n", code ? "WRONG" : "PASS");
    return kind >= 0 || code ? OCR_WRONG : OCR_OK;
}
