/* ocr_paths.c - where a binary of a build tree finds the source tree's
 * kernels: in a marker file the build writes beside its binaries, so that no
 * path of the source or build tree is compiled into the library (an installed
 * copy names neither). And where the per-user cache lies. */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* The cache's top directory: $XDG_CACHE_HOME/oclreduction, else
 * $HOME/.cache/oclreduction. Only an absolute base counts: a relative or unset
 * one would put the cache in whatever directory the process runs in. */
static int cache_top(char *buf, size_t len) {
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (x && x[0] == '/')
        n = snprintf(buf, len, "%s/oclreduction", x);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/oclreduction", home);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int ocr_cache_path(const char *name, char *buf, size_t len) {
    char top[PATH_MAX];
    if (len) buf[0] = '\0';
    if (cache_top(top, sizeof top) != 0) return -1;
    int n = snprintf(buf, len, "%s/%s", top, name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Why fd (what `what` names) may not be trusted, or NULL: it must be of
 * `type`, this user's, and writable by no one else. */
static const char *unsafe(int fd, mode_t type, struct stat *st, char *why, size_t len,
                          const char *what) {
    if (fstat(fd, st) != 0)
        snprintf(why, len, "%s: %s", what, strerror(errno));
    else if ((st->st_mode & S_IFMT) != type)
        snprintf(why, len, "%s is not a %s", what, type == S_IFDIR ? "directory" : "regular file");
    else if (st->st_uid != geteuid())
        snprintf(why, len, "%s belongs to another user (uid %lu)", what, (unsigned long)st->st_uid);
    else if (st->st_mode & 022)
        snprintf(why, len, "%s is writable by its group or others (mode %03o)", what,
                 (unsigned)(st->st_mode & 0777));
    else
        return NULL;
    return why;
}

/* What open(O_NOFOLLOW) failing with err means. */
static const char *link_or(int err) {
    return err == ELOOP || err == ENOTDIR ? "a symbolic link or not a directory" : strerror(err);
}

/* Opens directory `name` below dfd (or the absolute path, dfd < 0) without
 * following a link, creating it 0700 when `create` and missing. */
static int open_dir(int dfd, const char *name, int create) {
    int at = dfd < 0 ? AT_FDCWD : dfd, flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(at, name, flags);
    if (fd < 0 && errno == ENOENT && create && (mkdirat(at, name, 0700) == 0 || errno == EEXIST))
        fd = openat(at, name, flags);
    return fd;
}

/* mkdir -p of the directories above the cache's top (0700 where made). */
static void make_parents(const char *top) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", top);
    for (char *s = p + 1; *s; ++s)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST) return;
            *s = '/';
        }
}

int ocr_cache_dir(const char *sub, int create, char *why, size_t len) {
    char top[PATH_MAX], what[PATH_MAX + 64];
    struct stat st;
    why[0] = '\0';
    if (cache_top(top, sizeof top) != 0) return -1;
    if (create) make_parents(top);
    int fd = open_dir(-1, top, create), err = errno;
    snprintf(what, sizeof what, "the cache directory %s", top);
    if (fd < 0 && err != ENOENT) snprintf(why, len, "%s: %s", what, link_or(err));
    if (fd >= 0 && unsafe(fd, S_IFDIR, &st, why, len, what)) close(fd), fd = -1;
    if (fd < 0 || !sub || !sub[0]) return fd;
    int sfd = open_dir(fd, sub, create);
    err = errno;
    snprintf(what, sizeof what, "the cache directory %s/%s", top, sub);
    if (sfd < 0 && err != ENOENT) snprintf(why, len, "%s: %s", what, link_or(err));
    if (sfd >= 0 && unsafe(sfd, S_IFDIR, &st, why, len, what)) close(sfd), sfd = -1;
    close(fd);
    return sfd;
}

int ocr_cache_open(int dfd, const char *name, int flags, struct stat *st, char *why, size_t len) {
    char what[600];
    why[0] = '\0';
    /* O_NONBLOCK: a FIFO planted at the name does not wait for a writer. */
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600), err = errno;
    snprintf(what, sizeof what, "the cache file %s", name);
    if (fd < 0) {
        if (err == ELOOP)
            snprintf(why, len, "%s is a symbolic link", what);
        else if (err != ENOENT)
            snprintf(why, len, "%s: %s", what, strerror(err));
        errno = err;
        return -1;
    }
    if (unsafe(fd, S_IFREG, st, why, len, what)) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int ocr_cache_tmp(int dfd, const char *stem, char *name, size_t len) {
    static unsigned counter;
    for (int i = 0; i < 16; ++i) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        unsigned long r =
            ((unsigned long)ts.tv_nsec * 2654435761u) ^ ((unsigned long)getpid() << 20) ^ c;
        snprintf(name, len, ".%s.%lx.tmp", stem, r);
        /* O_EXCL: never an existing file, nor a link's target. */
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}
