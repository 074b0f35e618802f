/* ocr_program_cache.c - one built program per (context, device, source,
 * options), shared by every kernel built alike: a second reducer of the same
 * kind costs no compiler run. Entries are counted and freed with their last
 * user; a build runs outside the lock, and whoever wants the same program
 * meanwhile waits for it. With OCR_BUILD_DISK_CACHE (the reducer's builds) a
 * program's binary is also kept on disk, keyed by the device, its driver, the
 * options and the whole source text, so the next process builds from it: on
 * POCL about 1 ms instead of 25. The disk is best effort: an entry that does
 * not match, is damaged or does not build is ignored, and rewritten after the
 * source build; writes go through a temporary file and rename. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DISK_MAGIC "oclreduction-program-1\n"
#define MAX_FILE   ((uint64_t)256 << 20)

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

static int disk_wanted(const ocr_device *dev) {
    const char *e = getenv("OCLREDUCTION_PROGRAM_CACHE");
    if (e && (!strcmp(e, "off") || !strcmp(e, "0") || !strcmp(e, "no"))) return 0;
    /* oclgrind reports its findings against the source: always build from it. */
    return strstr(dev->info.platform, "Oclgrind") == NULL;
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

static int disk_path(const char *key, size_t klen, char *path, size_t len) {
    char name[64];
    snprintf(name, sizeof name, "programs/%016llx.bin", (unsigned long long)fnv(FNV0, key, klen));
    return ocr_cache_path(name, path, len);
}

/* The file's binary if the file is this key's and whole; NULL otherwise. */
static unsigned char *disk_read(const char *path, const char *key, size_t klen, size_t *blen) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL, *bin = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || (uint64_t)size > MAX_FILE ||
        (size_t)size < klen + 16 || fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)size)) ||
        fread(buf, 1, (size_t)size, f) != (size_t)size)
        goto done;
    uint64_t n, sum;
    memcpy(&n, buf + klen, sizeof n);
    memcpy(&sum, buf + size - 8, sizeof sum);
    if (memcmp(buf, key, klen) != 0 || n == 0 || n != (uint64_t)size - klen - 16 ||
        sum != fnv(FNV0, buf, (size_t)size - 8))
        goto done;
    if ((bin = malloc((size_t)n))) memcpy(bin, buf + klen + 8, (size_t)n);
    *blen = (size_t)n;
done:
    free(buf);
    fclose(f);
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

/* Keeps p's binary under the key: a whole file or none. 1 if stored. */
static int disk_store(cl_program p, cl_device_id dev, const char *key, size_t klen,
                      const char *path) {
    static unsigned counter;
    size_t blen = 0;
    unsigned char *bin = binary_of(p, dev, &blen);
    char tmp[1200];
    int stored = 0;
    if (!bin) return 0;
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    FILE *f = ocr_mkdirs_for(tmp) == 0 ? fopen(tmp, "wb") : NULL;
    if (f) {
        uint64_t n = blen, sum = fnv(fnv(fnv(FNV0, key, klen), &n, sizeof n), bin, blen);
        int ok = fwrite(key, 1, klen, f) == klen && fwrite(&n, sizeof n, 1, f) == 1 &&
                 fwrite(bin, 1, blen, f) == blen && fwrite(&sum, sizeof sum, 1, f) == 1;
        stored = fclose(f) == 0 && ok && rename(tmp, path) == 0;
        if (!stored) remove(tmp);
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
                            const char *path, outcome *how) {
    size_t blen = 0;
    cl_int err, bin_err;
    unsigned char *bin = disk_read(path, key, klen, &blen);
    if (!bin) {
        how->rejected = access(path, F_OK) == 0;
        return NULL;
    }
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
    char path[1100];
    char *key = disk ? disk_key(dev, e, &klen) : NULL;
    if (key && disk_path(key, klen, path, sizeof path) != 0) free(key), key = NULL;
    if (key && (*out = disk_load(dev, e, key, klen, path, how))) {
        how->from_binary = 1;
        free(key);
        return CL_SUCCESS;
    }
    const char *text = e->src;
    *out = clCreateProgramWithSource(dev->context, 1, &text, &e->len, &err);
    *call = "clCreateProgramWithSource";
    if (err == CL_SUCCESS) {
        *call = "clBuildProgram";
        err = clBuildProgram(*out, 1, &dev->device, e->options, NULL, NULL);
    }
    if (err == CL_SUCCESS && key) how->stored = disk_store(*out, dev->device, key, klen, path);
    free(key);
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

cl_int ocr_program_get(const ocr_device *dev, const char *src, size_t len, const char *options,
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
