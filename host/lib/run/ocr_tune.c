/* ocr_tune.c - per-device tuning of reduce7 (--tune) and the cache that keeps
 * the winner: the geometry that matters is swept on the device at hand, and
 * later runs on the same device, driver, element type and kernel source use
 * it. Defaults tuned on one GPU are not tuned for the next. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int ocr_tune_lookup(const ocr_device *dev, ocr_type t, const char *kernel_dir, ocr_tuning *out,
                    char *note, size_t note_len) {
    return ocr_tune_lookup_ex(dev, t, kernel_dir, 0, out, note, note_len);
}

int ocr_tune_lookup_ex(const ocr_device *dev, ocr_type t, const char *kernel_dir, int embedded,
                       ocr_tuning *out, char *note, size_t note_len) {
    char path[1024], line[1024];
    uint64_t h;
    note[0] = '\0';
    if ((embedded ? embedded_hash(&h) : source_hash(kernel_dir, &h)) != 0) return 0;
    ocr_tune_cache_path(path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found = 0, lineno = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *fld[12];
        ++lineno;
        int n = parse_line(line, fld, 12);
        unsigned long long hash;
        ocr_tuning tu;
        if (n != 10 || strcmp(fld[0], TUNE_MAGIC) || sscanf(fld[4], "%llx", &hash) != 1 ||
            sscanf(fld[5], "%zu", &tu.local_size) != 1 || sscanf(fld[6], "%zu", &tu.groups) != 1 ||
            sscanf(fld[7], "%u", &tu.unroll) != 1 || sscanf(fld[8], "%d", &tu.access) != 1 ||
            sscanf(fld[9], "%lf", &tu.kernel_ms) != 1 || !tu.local_size || !tu.groups ||
            tu.unroll < 1 || tu.unroll > 16 || tu.access < 1 || tu.access > 2) {
            snprintf(note, note_len, "ignored line %d of %s: not a tuning entry", lineno, path);
            continue;
        }
        if (strcmp(fld[1], dev->info.name) || strcmp(fld[2], dev->info.driver) ||
            strcmp(fld[3], ocr_type_name(t)))
            continue;
        if (hash != h) {
            snprintf(note, note_len,
                     "ignored the tuning in %s: reduce7.cl changed since it was tuned", path);
            continue;
        }
        *out = tu;
        found = 1;
    }
    fclose(f);
    if (found) snprintf(out->source, sizeof out->source, "%s", path);
    return found;
}

ocr_status ocr_tune_store(const ocr_device *dev, ocr_type t, const char *kernel_dir,
                          const ocr_tuning *tu) {
    ocr_last_error_clear();
    char path[1024], tmp[1100], line[1024], copy[1024];
    uint64_t h;
    if (source_hash(kernel_dir, &h) != 0) {
        ocr_errorf("cannot read reduce7.cl to key the tuning cache");
        return OCR_IO;
    }
    ocr_tune_cache_path(path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (ocr_mkdirs_for(tmp) != 0) {
        ocr_errorf("cannot create the directory of %s: %s", path, strerror(errno));
        return OCR_IO;
    }
    FILE *out = fopen(tmp, "w"), *in = fopen(path, "r");
    if (!out) {
        ocr_errorf("cannot write %s: %s", tmp, strerror(errno));
        if (in) fclose(in);
        return OCR_IO;
    }
    /* Keep every other valid entry; drop this key's old one and broken lines. */
    while (in && fgets(line, sizeof line, in)) {
        char *fld[12];
        snprintf(copy, sizeof copy, "%s", line);
        int n = parse_line(copy, fld, 12);
        if (n != 10 || strcmp(fld[0], TUNE_MAGIC)) continue;
        if (!strcmp(fld[1], dev->info.name) && !strcmp(fld[2], dev->info.driver) &&
            !strcmp(fld[3], ocr_type_name(t)))
            continue;
        fputs(line, out);
    }
    if (in) fclose(in);
    fprintf(out, "%s\t%s\t%s\t%s\t%llx\t%zu\t%zu\t%u\t%d\t%.6f\n", TUNE_MAGIC, dev->info.name,
            dev->info.driver, ocr_type_name(t), (unsigned long long)h, tu->local_size, tu->groups,
            tu->unroll, tu->access, tu->kernel_ms);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        ocr_errorf("cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return OCR_IO;
    }
    return OCR_OK;
}

/* reduce7's build request for (type, sum) with the candidate's geometry (NULL:
 * the built-in defaults). */
static ocr_build_request r7_request(ocr_type t, const char *kernel_dir, const ocr_tuning *c) {
    ocr_build_request rq = {0};
    rq.spec = *ocr_kernel_find("reduce7");
    rq.kernel_dir = kernel_dir;
    rq.type = t;
    rq.op = OCR_SUM;
    if (c) {
        rq.local_size = c->local_size;
        rq.groups = c->groups;
        rq.unroll = c->unroll;
        rq.access = c->access;
    }
    return rq;
}

/* One candidate: build, run `reps` times, median kernel time (0 if it fails). */
static double try_one(ocr_device *dev, ocr_type t, const void *data, uint64_t n, unsigned reps,
                      const char *kernel_dir, const ocr_tuning *c) {
    ocr_build_request rq = r7_request(t, kernel_dir, c);
    ocr_kernel *k = NULL;
    if (ocr_kernel_build(dev, &rq, &k) != OCR_OK) return 0;
    ocr_run_options ro = {.repeats = reps, .cpu = OCR_CPU_NONE};
    ocr_result r;
    double ms = 0;
    if (ocr_run(dev, k, data, n, t, OCR_SUM, &ro, &r) == OCR_OK)
        ms = (double)r.median.kernels_ns / 1e6;
    ocr_result_release(&r);
    ocr_kernel_release(k);
    return ms;
}

ocr_status ocr_tune_run(ocr_device *dev, ocr_type t, uint64_t n, double budget_s,
                        const char *kernel_dir, ocr_tuning *best, FILE *progress) {
    ocr_last_error_clear();
    const ocr_device_info *in = &dev->info;
    int gpu = (in->type & CL_DEVICE_TYPE_GPU) != 0;
    size_t es = ocr_type_size(t);
    void *data = malloc(n * es);
    if (!data) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    ocr_data_fill(data, n, t, OCR_SUM, 1, OCR_DATA_EXACT);
    /* The space: on GPUs the work-group size, resident groups per compute
     * unit and loads in flight, with strided (coalesced) access; on CPUs,
     * blocked access with one work-item per group and the groups per core
     * (UNROLL does not apply to blocked access). The registry row's
     * defaults first (ocr_kernels.c); the others around them. */
    const ocr_kernel_spec *r7 = ocr_kernel_find("reduce7");
    const size_t gpu_local[] = {r7->local_size, 64, 256, 512, 1024};
    const size_t gpu_gpcu[] = {r7->grid.gpu_items_per_cu / r7->local_size, 4, 16, 2, 32};
    const unsigned gpu_unroll[] = {r7->grid.unroll, 4, 16, 2};
    const size_t cpu_gpcu[] = {r7->grid.cpu_groups_per_cu, 1, 2, 8, 16};
    ocr_tuning cand[128];
    unsigned nc = 0;
    if (gpu) {
        for (size_t a = 0; a < 5; ++a)
            for (size_t b = 0; b < 5; ++b)
                for (size_t u = 0; u < 4; ++u) {
                    if (gpu_local[a] > in->max_wg) continue;
                    ocr_tuning c = {.local_size = gpu_local[a],
                                    .groups = in->compute_units * gpu_gpcu[b],
                                    .unroll = gpu_unroll[u],
                                    .access = 1};
                    cand[nc++] = c;
                }
    } else {
        for (size_t b = 0; b < 5; ++b) {
            ocr_tuning c = {.local_size = r7->grid.cpu_local_size,
                            .groups = in->compute_units * cpu_gpcu[b],
                            .unroll = r7->grid.unroll,
                            .access = 2};
            cand[nc++] = c;
        }
    }
    double t0 = (double)ocr_now_ns() / 1e9;
    best->kernel_ms = 0;
    unsigned tried = 0;
    size_t max_local = 0; /* what the compiled default allows (registers): larger is skipped */
    {
        ocr_build_request rq = r7_request(t, kernel_dir, NULL);
        ocr_kernel *k = NULL;
        if (ocr_kernel_build(dev, &rq, &k) == OCR_OK)
            max_local = ocr_kernel_get_resources(k)->work_group_size;
        ocr_kernel_release(k);
    }
    for (unsigned i = 0; i < nc; ++i) {
        if (i > 0 && (double)ocr_now_ns() / 1e9 - t0 > budget_s) break;
        if (max_local && cand[i].local_size > max_local) continue;
        double ms = try_one(dev, t, data, n, 5, kernel_dir, &cand[i]);
        ++tried;
        if (ms > 0 && (best->kernel_ms == 0 || ms < best->kernel_ms)) {
            *best = cand[i];
            best->kernel_ms = ms;
        }
        if (progress)
            fprintf(progress,
                    "\rtune: %u/%u  w=%zu groups=%zu unroll=%u %s: %.4f ms (best %.4f)   ", i + 1,
                    nc, cand[i].local_size, cand[i].groups, cand[i].unroll,
                    cand[i].access == 2 ? "blocked" : "strided", ms, best->kernel_ms);
    }
    if (progress) fprintf(progress, "\n");
    free(data);
    if (best->kernel_ms == 0) {
        ocr_errorf("--tune: no configuration of reduce7 ran on %s", in->name);
        return OCR_RUNTIME;
    }
    best->tried = tried;
    best->total = nc;
    return OCR_OK;
}
