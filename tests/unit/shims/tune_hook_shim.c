/*
 * tune_hook_shim.c - a test-only LD_PRELOAD library that lets a test
 * interleave two tuners storing into one cache (tune_edges_test.sh race):
 * with OCR_TUNE_TEST_HOOK=PREFIX,
 *   opening the cache's lock file (tune.tsv.lock)  creates PREFIX.locking
 *   the rename onto tune.tsv                       creates PREFIX.rename, then
 *                                                  waits up to a minute for
 *                                                  PREFIX.go
 * The library knows nothing of it: the points are the C library's calls
 * that the tuning cache's store makes (host/lib/opencl/ocr_tune_cache.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whether path names `file` (its last component). */
static int names(const char *path, const char *file) {
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, file) == 0;
}

/* Creates PREFIX.<point>; at "rename", waits for PREFIX.go. */
static void hook(const char *point) {
    const char *pre = getenv("OCR_TUNE_TEST_HOOK");
    char p[1100];
    if (!pre || !*pre) return;
    snprintf(p, sizeof p, "%s.%s", pre, point);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
    if (strcmp(point, "rename") != 0) return;
    snprintf(p, sizeof p, "%s.go", pre);
    for (int i = 0; i < 6000 && access(p, F_OK) != 0; ++i)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
}

int openat(int dfd, const char *path, int flags, ...) {
    static int (*real)(int, const char *, int, ...);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    if (names(path, "tune.tsv.lock")) hook("locking");
    return real(dfd, path, flags, mode);
}

int renameat(int olddfd, const char *old, int newdfd, const char *new_) {
    static int (*real)(int, const char *, int, const char *);
    if (!real) real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    if (names(new_, "tune.tsv")) hook("rename");
    return real(olddfd, old, newdfd, new_);
}
