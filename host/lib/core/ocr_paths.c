/* ocr_paths.c - where a binary of a build tree finds the source tree's
 * kernels: in a marker file the build writes beside its binaries, so that no
 * path of the source or build tree is compiled into the library (an installed
 * copy names neither). And where the per-user cache lies. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MARKER "oclreduction-source-kernels"
#define MAX_UP 2 /* build/, and binaries one or two levels below (build/tests/) */

const char *ocr_source_kernel_dir(const char *exe_dir) {
    static _Thread_local char dir[PATH_MAX];
    char d[PATH_MAX], path[PATH_MAX + sizeof MARKER + 1];
    if (!exe_dir || !exe_dir[0]) return NULL;
    snprintf(d, sizeof d, "%s", exe_dir);
    for (int up = 0; up <= MAX_UP; ++up) {
        snprintf(path, sizeof path, "%s/" MARKER, d);
        FILE *f = fopen(path, "r");
        if (f) {
            char *line = fgets(dir, sizeof dir, f);
            fclose(f);
            if (!line) return NULL;
            dir[strcspn(dir, "\n")] = '\0';
            return dir[0] ? dir : NULL;
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d) break;
        *slash = '\0';
    }
    return NULL;
}

int ocr_cache_path(const char *name, char *buf, size_t len) {
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = x && *x
                ? snprintf(buf, len, "%s/oclreduction/%s", x, name)
                : snprintf(buf, len, "%s/.cache/oclreduction/%s", home && *home ? home : ".", name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int ocr_mkdirs_for(const char *path) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
    for (char *s = p + 1; *s; ++s)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
            *s = '/';
        }
    return 0;
}
