/* ocr_paths.c - where a binary of a build tree finds the source tree's
 * kernels: in a marker file the build writes beside its binaries, so that no
 * path of the source or build tree is compiled into the library (an installed
 * copy names neither). */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

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
