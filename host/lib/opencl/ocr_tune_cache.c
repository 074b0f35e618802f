/* ocr_tune_cache.c - the tuning cache that --tune (run/ocr_tune.c) fills
 * and every build of the tunable kernel reads: lookup, store, apply and the
 * kernel source's hash that keys an entry. Below the reducer (which reads it
 * for each reducer it creates) and the benchmark engines alike, so the
 * reducer floor never uses the tuner's. An entry is kept for the device,
 * driver, element type and kernel source it was tuned on: defaults tuned on
 * one GPU are not tuned for the next. The cache is read and written like the
 * program cache (ocr_paths.c): only this user's files that no one else can
 * write, no link followed. */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TUNE_MAGIC "oclreduction-tune-1"

/* FNV-1a over the kernel's source files: an edited kernel is not the tuned one. */
static uint64_t fnv(uint64_t h, const char *s) {
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static const char *const hashed[] = {"reduce7.cl", "reduce_common.h"};

/* The same hash over the sources compiled into the library: equal to the
 * files' when the library was built from them. */
static int embedded_hash(uint64_t *h) {
    *h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 2; ++i) {
        size_t j = 0;
        while (j < ocr_embedded_count && strcmp(ocr_embedded_files[j].name, hashed[i]))
            ++j;
        if (j == ocr_embedded_count) return -1;
        *h = fnv(*h, ocr_embedded_files[j].text);
    }
    return 0;
}

static int source_hash(const char *kernel_dir, uint64_t *h) {
    const char *const *files = hashed;
    *h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 2; ++i) {
        char *path = ocr_find_kernel_file_quiet(files[i], kernel_dir);
        FILE *f = path ? fopen(path, "rb") : NULL;
        free(path);
        if (!f) return -1;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf - 1, f)) > 0) {
            buf[n] = '\0';
            *h = fnv(*h, buf);
        }
        fclose(f);
    }
    return 0;
}

void ocr_tune_cache_path(char *buf, size_t len) {
    ocr_cache_path("tune.tsv", buf, len);
}

/* One cache line: magic, device, driver, type, source hash, then the tuning. */
static int parse_line(char *line, char **f, int nf) {
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, "\t\n", &save); t && n < nf;
         t = strtok_r(NULL, "\t\n", &save))
        f[n++] = t;
    return n;
}

/* The values --tune tries besides the registry's default (ocr_kernels.c):
 * an entry's unroll must be one of them. */
const unsigned ocr_tune_other_unrolls[OCR_TUNE_N_UNROLLS] = {4, 16, 2};
/* The groups per compute unit it tries besides the registry's default. */
const size_t ocr_tune_gpu_other_gpcu[OCR_TUNE_N_GPCU] = {4, 16, 2, 32},
             ocr_tune_cpu_other_gpcu[OCR_TUNE_N_GPCU] = {1, 2, 8, 16};

/* The most groups an entry may have on dev: as many per compute unit as the
 * sweep's largest candidate. More would leave most of a run to the host's
 * finish (a group count past n launches no kernel at all). */
static size_t most_groups(const ocr_device *dev) {
    const ocr_kernel_spec *r7 = ocr_kernel_for(OCR_KERNEL_REDUCER);
    size_t most = r7->grid.gpu_items_per_cu / r7->local_size;
    if (r7->grid.cpu_groups_per_cu > most) most = r7->grid.cpu_groups_per_cu;
    for (size_t i = 0; i < OCR_TUNE_N_GPCU; ++i) {
        if (ocr_tune_gpu_other_gpcu[i] > most) most = ocr_tune_gpu_other_gpcu[i];
        if (ocr_tune_cpu_other_gpcu[i] > most) most = ocr_tune_cpu_other_gpcu[i];
    }
    return (dev->info.compute_units ? dev->info.compute_units : 1) * most;
}

/* A whole number, decimal within [1, max] or hex within [0, max]: no sign, no junk. */
static int parse_num(const char *s, int base, unsigned long long max, unsigned long long *out) {
    char *end;
    if (!((*s >= '0' && *s <= '9') || (base == 16 && strchr("abcdefABCDEF", *s)))) return 0;
    errno = 0;
    *out = strtoull(s, &end, base);
    return !errno && !*end && *out >= (base == 16 ? 0 : 1) && *out <= max;
}

static int known_unroll(unsigned long long u) {
    if (u == ocr_kernel_for(OCR_KERNEL_REDUCER)->grid.unroll) return 1;
    for (size_t i = 0; i < OCR_TUNE_N_UNROLLS; ++i)
        if (u == ocr_tune_other_unrolls[i]) return 1;
    return 0;
}

typedef struct {
    const char *device, *driver, *type;
    unsigned long long hash;
    ocr_tuning tu;
} tune_entry;

/* Splits and checks every field of a line (line is modified). NULL if it is
 * an entry, else why not, in buf. */
static const char *parse_entry(char *line, tune_entry *e, char *buf, size_t len) {
    char *f[12], *end;
    unsigned long long w, g, u, a;
    memset(&e->tu, 0, sizeof e->tu);
    if (parse_line(line, f, 12) != 10 || strcmp(f[0], TUNE_MAGIC)) return "not a tuning entry";
    e->device = f[1], e->driver = f[2], e->type = f[3];
    if (!parse_num(f[4], 16, UINT64_MAX, &e->hash)) return "the source hash is not a hex number";
    /* what -w and -g take (ocr_core.h) */
    if (!parse_num(f[5], 10, OCR_MAX_LOCAL_SIZE, &w) || (w & (w - 1)))
        snprintf(buf, len, "work-group size %s is not a power of two from 1 to %zu", f[5],
                 OCR_MAX_LOCAL_SIZE);
    else if (!parse_num(f[6], 10, OCR_MAX_GROUPS, &g))
        snprintf(buf, len, "groups %s is not a number from 1 to %zu", f[6], OCR_MAX_GROUPS);
    else if (!parse_num(f[7], 10, 64, &u) || !known_unroll(u))
        snprintf(buf, len, "unroll %s is not one that --tune tries (2, 4, 8, 16)", f[7]);
    else if (!parse_num(f[8], 10, 2, &a))
        snprintf(buf, len, "access %s is not 1 (strided) or 2 (blocked)", f[8]);
    else if (!((e->tu.kernel_ms = strtod(f[9], &end)) > 0) || *end || !isfinite(e->tu.kernel_ms))
        snprintf(buf, len, "time %s ms is not a finite positive number", f[9]);
    else {
        e->tu.local_size = (size_t)w, e->tu.groups = (size_t)g;
        e->tu.unroll = (unsigned)u, e->tu.access = (int)a;
        return NULL;
    }
    return buf;
}

int ocr_tune_lookup(const ocr_device *dev, ocr_type t, const char *kernel_dir, ocr_tuning *out,
                    char *note, size_t note_len) {
    return ocr_tune_lookup_ex(dev, t, kernel_dir, 0, out, note, note_len);
}

/* Says once per process why the tuning cache was not read or written. */
static void note_once(const char *why) {
    static int noted;
    if (!why[0] || __atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED)) return;
    ocr_errorf("note: not using the tuning cache: %s", why);
}

/* The tuning cache opened to read, or NULL: absent, or not safe to trust
 * (ocr_cache_open; noted once). */
static FILE *open_cache(void) {
    char why[PATH_MAX + 128];
    struct stat st;
    int dfd = ocr_cache_dir("", 0, why, sizeof why), fd = -1;
    if (dfd >= 0) fd = ocr_cache_open(dfd, "tune.tsv", O_RDONLY, &st, why, sizeof why);
    note_once(why);
    if (dfd >= 0) close(dfd);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f) close(fd);
    return f;
}

/* Why e cannot run on dev as tuned, in buf, or NULL. */
static const char *beyond_device(const ocr_device *dev, const tune_entry *e, char *buf,
                                 size_t len) {
    const ocr_device_info *in = &dev->info;
    size_t wg = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    if (e->tu.local_size > wg)
        snprintf(buf, len, "work-group size %zu exceeds the device's maximum %zu", e->tu.local_size,
                 wg);
    else if (e->tu.groups > most_groups(dev))
        snprintf(buf, len, "groups %zu exceed the %zu this device's sweep tries at most",
                 e->tu.groups, most_groups(dev));
    else
        return NULL;
    return buf;
}

/* Every entry goes through parse_entry's checks, whichever source keys it. */
int ocr_tune_lookup_ex(const ocr_device *dev, ocr_type t, const char *kernel_dir, int embedded,
                       ocr_tuning *out, char *note, size_t note_len) {
    char path[1024], why[160], *line = NULL;
    size_t cap = 0;
    uint64_t h;
    note[0] = '\0';
    if ((embedded ? embedded_hash(&h) : source_hash(kernel_dir, &h)) != 0) return 0;
    ocr_tune_cache_path(path, sizeof path);
    FILE *f = open_cache();
    if (!f) return 0;
    int found = 0, lineno = 0;
    while (!found && getline(&line, &cap, f) >= 0) { /* whole lines, however long */
        tune_entry e;
        const char *bad = parse_entry(line, &e, why, sizeof why);
        ++lineno;
        if (!bad && (strcmp(e.device, dev->info.name) || strcmp(e.driver, dev->info.driver) ||
                     strcmp(e.type, ocr_type_name(t))))
            continue;
        if (!bad) bad = beyond_device(dev, &e, why, sizeof why);
        if (bad) {
            snprintf(note, note_len, "ignored line %d of %s: %s", lineno, path, bad);
            continue;
        }
        if (e.hash != h) {
            snprintf(note, note_len,
                     "ignored the tuning in %s: reduce7.cl changed since it was tuned", path);
            continue;
        }
        *out = e.tu;
        found = 1;
    }
    free(line);
    fclose(f);
    if (found) snprintf(out->source, sizeof out->source, "%s", path);
    return found;
}

/* Waits for the cache's lock (tune.tsv.lock in dfd, fcntl): one store at a
 * time, so concurrent tuners keep each other's entries. The descriptor, or -1. */
static int lock_cache(int dfd, const char *path) {
    char why[PATH_MAX + 128];
    struct stat st;
    int fd = ocr_cache_open(dfd, "tune.tsv.lock", O_RDWR | O_CREAT, &st, why, sizeof why);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd < 0 && !why[0]) snprintf(why, sizeof why, "%s", strerror(errno));
    while (fd >= 0 && fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) {
            snprintf(why, sizeof why, "%s", strerror(errno));
            close(fd);
            fd = -1;
        }
    if (fd < 0) ocr_errorf("cannot lock the tuning cache (%s.lock): %s", path, why);
    return fd;
}

/* The cache file to rewrite, opened to read (*in; NULL: none yet), or a
 * refusal: one that is not safe to trust (a link, another user's, writable
 * by others, not a regular file), or read-only. *mode: its mode (0: new). */
static ocr_status cache_old(int dfd, const char *path, FILE **in, mode_t *mode) {
    char why[PATH_MAX + 128];
    struct stat st;
    *in = NULL, *mode = 0;
    int fd = ocr_cache_open(dfd, "tune.tsv", O_RDONLY, &st, why, sizeof why);
    if (fd < 0 && why[0]) {
        ocr_errorf("the tuning was not stored: %s", why);
        return OCR_IO;
    }
    if (fd < 0) return OCR_OK; /* no cache yet */
    if (!(st.st_mode & S_IWUSR)) {
        ocr_errorf("the tuning cache %s is read-only (mode %03o): the tuning was not stored; "
                   "make it writable or remove it",
                   path, (unsigned)(st.st_mode & 0777));
        close(fd);
        return OCR_IO;
    }
    *mode = st.st_mode & 0755;
    if (!(*in = fdopen(fd, "r"))) close(fd);
    return *in ? OCR_OK : OCR_IO;
}

/* Writes the cache afresh through a new temporary file in dfd: every other
 * valid entry of `in` kept, this key's old one and broken lines dropped, the
 * new entry added, the mode kept. Called with the lock held; closes in. */
static ocr_status rewrite(int dfd, const char *path, FILE *in, mode_t mode, const ocr_device *dev,
                          ocr_type t, uint64_t h, const ocr_tuning *tu) {
    char tmp[96], why[160], *line = NULL, *copy = NULL;
    size_t cap = 0;
    int fd = ocr_cache_tmp(dfd, "tune.tsv", tmp, sizeof tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        ocr_errorf("cannot write a temporary file beside %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd), unlinkat(dfd, tmp, 0);
        if (in) fclose(in);
        return OCR_IO;
    }
    while (in && getline(&line, &cap, in) >= 0) {
        tune_entry e;
        free(copy);
        if (!(copy = strdup(line)) || parse_entry(copy, &e, why, sizeof why)) continue;
        if (!strcmp(e.device, dev->info.name) && !strcmp(e.driver, dev->info.driver) &&
            !strcmp(e.type, ocr_type_name(t)))
            continue;
        fputs(line, out);
    }
    free(copy);
    free(line);
    if (in) fclose(in);
    fprintf(out, "%s\t%s\t%s\t%s\t%llx\t%zu\t%zu\t%u\t%d\t%.6f\n", TUNE_MAGIC, dev->info.name,
            dev->info.driver, ocr_type_name(t), (unsigned long long)h, tu->local_size, tu->groups,
            tu->unroll, tu->access, tu->kernel_ms);
    int bad = mode && fchmod(fileno(out), mode) != 0; /* the old file's mode */
    if (fclose(out) != 0) bad = 1;
    if (bad || renameat(dfd, tmp, dfd, "tune.tsv") != 0) {
        ocr_errorf("cannot write %s: %s", path, strerror(errno));
        unlinkat(dfd, tmp, 0);
        return OCR_IO;
    }
    return OCR_OK;
}

ocr_status ocr_tune_store(const ocr_device *dev, ocr_type t, const char *kernel_dir,
                          const ocr_tuning *tu) {
    ocr_last_error_clear();
    char path[1024], why[PATH_MAX + 128];
    uint64_t h;
    mode_t mode;
    FILE *in;
    if (source_hash(kernel_dir, &h) != 0) {
        ocr_errorf("cannot read reduce7.cl to key the tuning cache");
        return OCR_IO;
    }
    ocr_tune_cache_path(path, sizeof path);
    int dfd = ocr_cache_dir("", 1, why, sizeof why);
    if (dfd < 0) {
        if (why[0])
            ocr_errorf("the tuning was not stored: %s", why);
        else if (!path[0])
            ocr_errorf("the tuning was not stored: no per-user cache (neither XDG_CACHE_HOME "
                       "nor HOME is an absolute path)");
        else
            ocr_errorf("cannot create the directory of %s: %s", path, strerror(errno));
        return OCR_IO;
    }
    int lock = lock_cache(dfd, path);
    ocr_status st = lock < 0 ? OCR_IO : cache_old(dfd, path, &in, &mode);
    if (st == OCR_OK) st = rewrite(dfd, path, in, mode, dev, t, h, tu);
    if (lock >= 0) close(lock); /* releases the lock */
    close(dfd);
    return st;
}

void ocr_tune_apply(const ocr_device *dev, ocr_build_request *rq, char *tuning, size_t len) {
    ocr_tuning tu;
    char note[1200];
    if (len) tuning[0] = '\0';
    if (rq->kernel_file || !(rq->spec.caps & OCR_KERNEL_TUNABLE) || rq->local_size || rq->groups ||
        rq->access)
        return;
    if (ocr_tune_lookup(dev, rq->type, rq->kernel_dir, &tu, note, sizeof note)) {
        rq->local_size = tu.local_size, rq->groups = tu.groups;
        rq->unroll = tu.unroll, rq->access = tu.access;
        rq->spec.caps |= OCR_KERNEL_TUNED;
        snprintf(tuning, len, "tuned for this device (%s)", tu.source);
    } else {
        if (note[0]) ocr_errorf("note: %s", note);
        snprintf(tuning, len, "built-in defaults (--tune tunes them for this device)");
    }
}
