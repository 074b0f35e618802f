/* ocr_libdir.c - the directory of the file this library's code lies in: the
 * shared library itself (liboclreduction.so), or the program an archive was
 * linked into. An installed library finds its kernels relative to it, so a
 * moved prefix keeps working whichever program loads it. */
#define _GNU_SOURCE /* dladdr */
#include "core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void ocr_library_dir(char *buf, size_t len) {
    Dl_info info;
    buf[0] = '\0';
    if (!dladdr((void *)(uintptr_t)&ocr_library_dir, &info) || !info.dli_fname ||
        info.dli_fname[0] != '/')
        return; /* a relative name says nothing once the working directory moved */
    int n = snprintf(buf, len, "%s", info.dli_fname);
    char *slash = strrchr(buf, '/');
    if (n < 0 || (size_t)n >= len || !slash)
        buf[0] = '\0';
    else
        *slash = '\0';
}
