/* ocr_program_cache.c - one built program per (context, device, source,
 * options), shared by every kernel built alike: a second reducer of the same
 * kind costs no compiler run. Entries are counted and freed with their last
 * user; a build runs outside the lock, and whoever wants the same program
 * meanwhile waits for it. With OCR_BUILD_DISK_CACHE (the reducer's builds) a
 * program's binary is also kept on disk, keyed by the device, its driver, the
 * options and the whole source text, so the next process builds from it: on
 * POCL about 1 ms instead of 25. The disk is best effort: an entry that does
 * not match, is damaged or does not build is ignored, and rewritten after the
 * source build. A binary is code this process runs, so only files and
 * directories this user owns and no one else can write are read, no link is
 * followed, writes go through a fresh O_EXCL temporary file and rename, and
 * the directory is kept under a size bound, least recently used out. */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DISK_MAGIC  "oclreduction-program-1\n"
#define MAX_FILE    ((uint64_t)256 << 20)
#define DEFAULT_MAX ((uint64_t)64 << 20) /* docs/library.md */

enum { BUILDING, READY, FAILED };

typedef struct entry {
    struct entry *next;
    cl_context ctx; /* the program retains it: no other context reuses the address */
    cl_device_id device;
    char *options, *src;
    size_t len;
    cl_program prog;
    int state;
    unsigned users;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t built = PTHREAD_COND_INITIALIZER;
static entry *entries;
static ocr_program_cache_stats stats;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}
#define FNV0 0xcbf29ce484222325ull

/* ---- disk ------------------------------------------------------------------ */

/* OCLREDUCTION_CACHE_MAX: the bytes the programs directory may hold, with an
 * optional K, M or G; 0 turns the disk off. Anything else: the default. */
static uint64_t disk_max(void) {
    const char *e = getenv("OCLREDUCTION_CACHE_MAX");
    char *end;
    if (!e || *e < '0' || *e > '9') return DEFAULT_MAX;
    errno = 0;
    unsigned long long v = strtoull(e, &end, 10);
    int shift = !*end               ? 0
                : !strcmp(end, "K") ? 10
                : !strcmp(end, "M") ? 20
                : !strcmp(end, "G") ? 30
                                    : -1;
    if (errno || shift < 0 || v > (UINT64_MAX >> shift)) return DEFAULT_MAX;
    return (uint64_t)v << shift;
}

static int disk_wanted(const ocr_device *dev) {
    const char *e = getenv("OCLREDUCTION_PROGRAM_CACHE");
    if (e && (!strcmp(e, "off") || !strcmp(e, "0") || !strcmp(e, "no"))) return 0;
    /* oclgrind reports its findings against the source: always build from it. */
    return strstr(dev->info.platform, "Oclgrind") == NULL && disk_max() > 0;
}

/* Says once per process why a part of the disk cache was not used. */
static void note_once(const char *why) {
    static int noted;
    if (!why[0] || __atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED)) return;
    ocr_errorf("note: not using the disk program cache: %s", why);
}

/* What a binary is valid for, then the source: compared whole on a load. */
static char *disk_key(const ocr_device *dev, const entry *e, size_t *klen) {
    const ocr_device_info *in = &dev->info;
    size_t room = e->len + strlen(e->options) + 2048;
    char *k = malloc(room);
    if (!k) return NULL;
    int n = snprintf(k, room,
                     DISK_MAGIC "device: %s\nvendor: %s\nversion: %s\ndriver: %s\nplatform: %s\n"
                                "platform version: %s\noptions: %s\nsource bytes: %zu\n",
                     in->name, in->vendor, in->version, in->driver, in->platform,
                     in->platform_version, e->options, e->len);
    if (n < 0 || (size_t)n + e->len + 1 > room) {
        free(k);
        return NULL;
    }
    memcpy(k + n, e->src, e->len);
    k[n + e->len] = '\0';
    *klen = (size_t)n + e->len + 1; /* with its NUL */
    return k;
}

/* An entry's name in the programs directory: the key's hash. */
static void disk_name(const char *key, size_t klen, char *name, size_t len) {
    snprintf(name, len, "%016llx.bin", (unsigned long long)fnv(FNV0, key, klen));
}

static int is_entry_name(const char *s) {
    return strlen(s) == 20 && strspn(s, "0123456789abcdef") == 16 && !strcmp(s + 16, ".bin");
}

static int read_all(int fd, unsigned char *buf, size_t n) {
    while (n) {
        ssize_t r = read(fd, buf, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        buf += r, n -= (size_t)r;
    }
    return 0;
}

/* The entry's binary if the file is a safe one (ocr_cache_open), this key's
 * and whole, touched as just used; NULL otherwise (*rejected: a file was there). */
static unsigned char *disk_read(int dfd, const char *name, const char *key, size_t klen,
                                size_t *blen, int *rejected) {
    struct stat st;
    char why[600];
    unsigned char *buf = NULL, *bin = NULL;
    int fd = ocr_cache_open(dfd, name, O_RDONLY, &st, why, sizeof why);
    *rejected = fd >= 0 || why[0];
    note_once(why);
    if (fd < 0) return NULL;
    size_t size = (size_t)st.st_size;
    if ((uint64_t)st.st_size > MAX_FILE || size < klen + 16 || !(buf = malloc(size)) ||
        read_all(fd, buf, size) != 0)
        goto done;
    uint64_t n, sum;
    memcpy(&n, buf + klen, sizeof n);
    memcpy(&sum, buf + size - 8, sizeof sum);
    if (memcmp(buf, key, klen) != 0 || n == 0 || n != (uint64_t)size - klen - 16 ||
        sum != fnv(FNV0, buf, size - 8))
        goto done;
    if ((bin = malloc((size_t)n))) memcpy(bin, buf + klen + 8, (size_t)n);
    *blen = (size_t)n;
    futimens(fd, NULL); /* its age is its last use: the eviction's order */
done:
    free(buf);
    close(fd);
    return bin;
}

/* p's binary for dev, malloc'd, or NULL. */
static unsigned char *binary_of(cl_program p, cl_device_id dev, size_t *blen) {
    cl_uint nd = 0;
    cl_device_id devs[64];
    size_t sizes[64];
    unsigned char *bins[64] = {NULL};
    if (clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof nd, &nd, NULL) != CL_SUCCESS ||
        nd == 0 || nd > 64 ||
        clGetProgramInfo(p, CL_PROGRAM_DEVICES, nd * sizeof *devs, devs, NULL) != CL_SUCCESS ||
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, nd * sizeof *sizes, sizes, NULL) != CL_SUCCESS)
        return NULL;
    cl_uint i = 0;
    while (i < nd && devs[i] != dev)
        ++i;
    if (i == nd || sizes[i] == 0 || (uint64_t)sizes[i] > MAX_FILE / 2 ||
        !(bins[i] = malloc(sizes[i])))
        return NULL;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, nd * sizeof *bins, bins, NULL) != CL_SUCCESS) {
        free(bins[i]);
        return NULL;
    }
    *blen = sizes[i];
    return bins[i];
}

typedef struct {
    char name[24];
    uint64_t size;
    struct timespec used;
} kept;

static int older(const void *a, const void *b) {
    const struct timespec *x = &((const kept *)a)->used, *y = &((const kept *)b)->used;
    return x->tv_sec != y->tv_sec ? (x->tv_sec < y->tv_sec ? -1 : 1)
                                  : (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* A temporary file (ocr_cache_tmp) an hour old: its process died before the rename. */
static int stale_tmp(const char *s, const struct stat *st) {
    size_t n = strlen(s);
    return s[0] == '.' && n > 5 && !strcmp(s + n - 4, ".tmp") && S_ISREG(st->st_mode) &&
           time(NULL) - st->st_mtim.tv_sec > 3600;
}

/* Deletes the least recently used entries until the directory's entries
 * hold at most `max` bytes, and stale temporary files. */
static void evict(int dfd, uint64_t max) {
    int d2 = dup(dfd);
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    kept *rows = NULL, *more;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    struct dirent *de;
    struct stat st;
    if (!d) {
        if (d2 >= 0) close(d2);
        return;
    }
    while ((de = readdir(d))) {
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (stale_tmp(de->d_name, &st)) unlinkat(dfd, de->d_name, 0);
        if (is_entry_name(de->d_name) && S_ISREG(st.st_mode)) {
            if (n == cap) {
                if (!(more = realloc(rows, (cap = cap * 2 + 16) * sizeof *rows))) break;
                rows = more;
            }
            snprintf(rows[n].name, sizeof rows[n].name, "%s", de->d_name);
            rows[n].size = (uint64_t)st.st_size, rows[n].used = st.st_mtim;
            total += rows[n++].size;
        }
    }
    closedir(d);
    if (n) qsort(rows, n, sizeof *rows, older);
    for (size_t i = 0; i < n && total > max; ++i)
        if (unlinkat(dfd, rows[i].name, 0) == 0) total -= rows[i].size;
    free(rows);
}

/* Keeps p's binary under the key: a whole file or none, then the bound. 1 if stored. */
static int disk_store(cl_program p, cl_device_id dev, const char *key, size_t klen, int dfd,
                      const char *name) {
    size_t blen = 0;
    unsigned char *bin = binary_of(p, dev, &blen);
    char tmp[96];
    int stored = 0, fd = bin ? ocr_cache_tmp(dfd, name, tmp, sizeof tmp) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) close(fd), unlinkat(dfd, tmp, 0);
    if (f) {
        uint64_t n = blen, sum = fnv(fnv(fnv(FNV0, key, klen), &n, sizeof n), bin, blen);
        int ok = fwrite(key, 1, klen, f) == klen && fwrite(&n, sizeof n, 1, f) == 1 &&
                 fwrite(bin, 1, blen, f) == blen && fwrite(&sum, sizeof sum, 1, f) == 1;
        stored = fclose(f) == 0 && ok && renameat(dfd, tmp, dfd, name) == 0;
        if (!stored)
            unlinkat(dfd, tmp, 0);
        else
            evict(dfd, disk_max());
    }
    free(bin);
    return stored;
}

/* The counts of one build, added to the totals under the lock. */
typedef struct {
    int from_binary, stored, rejected;
} outcome;

/* The program from the disk's binary, built; NULL when there is none that
 * builds (rejected when there was a file). */
static cl_program disk_load(const ocr_device *dev, const entry *e, const char *key, size_t klen,
                            int dfd, const char *name, outcome *how) {
    size_t blen = 0;
    cl_int err, bin_err;
    unsigned char *bin = disk_read(dfd, name, key, klen, &blen, &how->rejected);
    if (!bin) return NULL;
    how->rejected = 0;
    const unsigned char *b = bin;
    cl_program p =
        clCreateProgramWithBinary(dev->context, 1, &dev->device, &blen, &b, &bin_err, &err);
    free(bin);
    if (p && err == CL_SUCCESS && bin_err == CL_SUCCESS &&
        clBuildProgram(p, 1, &dev->device, e->options, NULL, NULL) == CL_SUCCESS)
        return p;
    if (p) clReleaseProgram(p);
    how->rejected = 1;
    return NULL;
}

/* ---- the build ---------------------------------------------------------------- */

/* Builds e's program: from the disk's binary when allowed and there is one,
 * else from the source (then stored). */
static cl_int build(const ocr_device *dev, const entry *e, int disk, cl_program *out,
                    const char **call, outcome *how) {
    cl_int err;
    size_t klen = 0;
    char name[32], why[PATH_MAX + 128];
    int dfd = -1;
    char *key = disk ? disk_key(dev, e, &klen) : NULL;
    if (key) {
        disk_name(key, klen, name, sizeof name);
        dfd = ocr_cache_dir("programs", 1, why, sizeof why);
        note_once(why);
    }
    if (dfd >= 0 && (*out = disk_load(dev, e, key, klen, dfd, name, how))) {
        how->from_binary = 1;
        free(key);
        close(dfd);
        return CL_SUCCESS;
    }
    const char *text = e->src;
    *out = clCreateProgramWithSource(dev->context, 1, &text, &e->len, &err);
    *call = "clCreateProgramWithSource";
    if (err == CL_SUCCESS) {
        *call = "clBuildProgram";
        err = clBuildProgram(*out, 1, &dev->device, e->options, NULL, NULL);
    }
    if (err == CL_SUCCESS && dfd >= 0)
        how->stored = disk_store(*out, dev->device, key, klen, dfd, name);
    free(key);
    if (dfd >= 0) close(dfd);
    return err;
}

/* ---- the table ---------------------------------------------------------------- */

static void drop(entry *e) { /* under the lock; e is unlinked once it failed */
    if (--e->users) return;
    free(e->options);
    free(e->src);
    free(e);
}

static void unlink_entry(entry *e) {
    for (entry **p = &entries; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

static entry *find(const ocr_device *dev, const char *src, size_t len, const char *options) {
    for (entry *e = entries; e; e = e->next)
        if (e->ctx == dev->context && e->device == dev->device && e->len == len &&
            !strcmp(e->options, options) && !memcmp(e->src, src, len))
            return e;
    return NULL;
}

static cl_int get(const ocr_device *dev, const char *src, size_t len, const char *options,
                  int flags, cl_program *out, const char **call) {
    entry *e;
    *out = NULL;
    *call = "ocr_program_get";
    pthread_mutex_lock(&lock);
    while ((e = find(dev, src, len, options))) {
        ++e->users;
        while (e->state == BUILDING)
            pthread_cond_wait(&built, &lock);
        if (e->state == READY) {
            ++stats.shared;
            *out = e->prog;
            pthread_mutex_unlock(&lock);
            return CL_SUCCESS;
        }
        drop(e); /* its build failed: try again, here */
    }
    if (!(e = calloc(1, sizeof *e)) || !(e->options = strdup(options)) ||
        !(e->src = malloc(len ? len : 1))) {
        if (e) free(e->options), free(e);
        pthread_mutex_unlock(&lock);
        return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(e->src, src, len);
    e->len = len;
    e->ctx = dev->context, e->device = dev->device;
    e->state = BUILDING, e->users = 1;
    e->next = entries, entries = e;
    pthread_mutex_unlock(&lock);

    outcome how = {0, 0, 0};
    cl_int err = build(dev, e, (flags & OCR_BUILD_DISK_CACHE) && disk_wanted(dev), out, call, &how);

    pthread_mutex_lock(&lock);
    stats.binary_builds += (unsigned long)how.from_binary;
    stats.source_builds += (unsigned long)(!how.from_binary && *out);
    stats.stored += (unsigned long)how.stored;
    stats.rejected += (unsigned long)how.rejected;
    if (err == CL_SUCCESS) {
        e->prog = *out;
        e->state = READY;
    } else { /* the caller reports it, with the failed program's log */
        e->state = FAILED;
        unlink_entry(e);
        drop(e);
    }
    pthread_cond_broadcast(&built);
    pthread_mutex_unlock(&lock);
    return err;
}

/* OCR_BUILD_QUIET: -w joins the options, and so the keys here and on disk
 * (a binary built quietly never stands in for a -Werror build); a caller's
 * -Werror keeps the warnings, which it wants to see fail. */
cl_int ocr_program_get(const ocr_device *dev, const char *src, size_t len, const char *options,
                       int flags, cl_program *out, const char **call) {
    if (!(flags & OCR_BUILD_QUIET) || strstr(options, "-Werror"))
        return get(dev, src, len, options, flags, out, call);
    size_t n = strlen(options);
    char *quiet = malloc(n + sizeof " -w");
    if (!quiet) {
        *out = NULL;
        *call = "ocr_program_get";
        return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(quiet, options, n);
    memcpy(quiet + n, " -w", sizeof " -w");
    cl_int err = get(dev, src, len, quiet, flags, out, call);
    free(quiet);
    return err;
}

void ocr_program_put(cl_program p) {
    if (!p) return;
    pthread_mutex_lock(&lock);
    for (entry *e = entries; e; e = e->next)
        if (e->prog == p && e->state == READY) {
            if (--e->users == 0) {
                unlink_entry(e);
                clReleaseProgram(p);
                free(e->options);
                free(e->src);
                free(e);
            }
            pthread_mutex_unlock(&lock);
            return;
        }
    pthread_mutex_unlock(&lock);
    clReleaseProgram(p); /* one that failed to build: never shared */
}

void ocr_program_cache_stats_get(ocr_program_cache_stats *s) {
    pthread_mutex_lock(&lock);
    *s = stats;
    s->entries = 0;
    for (entry *e = entries; e; e = e->next)
        ++s->entries;
    pthread_mutex_unlock(&lock);
}
