/* ocr_program.c - find a kernel's .cl file, expand its includes, choose the
 * work-group geometry for the device, build it and report a failed build. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef OCR_SOURCE_KERNEL_DIR
#define OCR_SOURCE_KERNEL_DIR ""
#endif
#ifndef OCR_BUILD_DIR
#define OCR_BUILD_DIR ""
#endif
#ifndef OCR_INSTALL_KERNEL_DIR
#define OCR_INSTALL_KERNEL_DIR ""
#endif
#ifndef OCR_INSTALL_KERNEL_DIR_REL
#define OCR_INSTALL_KERNEL_DIR_REL "../share/oclreduction/cl"
#endif

char *ocr_read_file(const char *path, size_t *len) {
    struct stat sb;
    FILE *f = NULL;
    char *buf = NULL;
    long size;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        ocr_errorf("kernel file %s is not a regular file", path);
        return NULL;
    }
    if (!(f = fopen(path, "rb"))) {
        ocr_errorf("cannot open kernel file %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        ocr_errorf("cannot read kernel file %s: %s", path, strerror(errno));
        goto done;
    }
    buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        ocr_errorf("cannot read kernel file %s: %s", path, buf ? strerror(errno) : "out of memory");
        free(buf);
        buf = NULL;
        goto done;
    }
    buf[size] = '\0';
    if (size == 0) {
        ocr_errorf("kernel file %s is empty", path);
        free(buf);
        buf = NULL;
        goto done;
    }
    if (len) *len = (size_t)size;
done:
    fclose(f);
    return buf;
}

static char *join(const char *dir, const char *file) {
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, file);
    return p;
}

static int is_file(const char *p) {
    return access(p, R_OK) == 0;
}

/* The directory holding this executable, or "" where it cannot be known. */
static void exe_dir(char *buf, size_t len) {
    buf[0] = '\0';
#ifdef __linux__
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) {
        buf[0] = '\0';
        return;
    }
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
#else
    (void)len;
#endif
}

static char *find_file(const char *file, const char *explicit_dir, int quiet) {
    const char *dirs[5];
    const char *why[5];
    char exe[PATH_MAX], rel[PATH_MAX + 64];
    int nd = 0;
    if (explicit_dir) {
        dirs[nd] = explicit_dir, why[nd++] = "--kernel-dir";
    } else {
        const char *env = getenv("OCLREDUCTION_KERNEL_DIR");
        if (env && *env) dirs[nd] = env, why[nd++] = "$OCLREDUCTION_KERNEL_DIR";
        exe_dir(exe, sizeof exe);
        size_t bl = strlen(OCR_BUILD_DIR);
        /* A binary inside the build tree reads the source tree's kernels, so an
         * edited .cl file takes effect without reinstalling. */
        if (bl && strncmp(exe, OCR_BUILD_DIR, bl) == 0 && (exe[bl] == '/' || exe[bl] == '\0'))
            dirs[nd] = OCR_SOURCE_KERNEL_DIR, why[nd++] = "source tree";
        if (exe[0]) {
            snprintf(rel, sizeof rel, "%s/%s", exe, OCR_INSTALL_KERNEL_DIR_REL);
            dirs[nd] = rel, why[nd++] = "installed, beside the binary";
        }
        if (OCR_INSTALL_KERNEL_DIR[0])
            dirs[nd] = OCR_INSTALL_KERNEL_DIR, why[nd++] = "installed data directory";
    }
    for (int i = 0; i < nd; ++i) {
        char *p = join(dirs[i], file);
        if (p && is_file(p)) return p;
        free(p);
    }
    if (quiet) return NULL;
    ocr_errorf("kernel file %s not found. Searched:", file);
    for (int i = 0; i < nd; ++i)
        fprintf(stderr, "  %s/%s  (%s)\n", dirs[i], file, why[i]);
    if (!explicit_dir)
        fprintf(stderr, "Point --kernel-dir or OCLREDUCTION_KERNEL_DIR at the cl/ directory.\n");
    return NULL;
}

char *ocr_find_kernel_file(const char *file, const char *explicit_dir) {
    return find_file(file, explicit_dir, 0);
}

/* --- include expansion --------------------------------------------------- */

/* Appends to a growing string; returns 0 on failure. */
typedef struct {
    char *s;
    size_t len, cap;
} strbuf;

static int sb_add(strbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) return 0;
        b->s = p, b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 1;
}

static int sb_printf(strbuf *b, const char *fmt, const char *s, int n) {
    char tmp[PATH_MAX + 64];
    int k = snprintf(tmp, sizeof tmp, fmt, n, s);
    return k > 0 && sb_add(b, tmp, (size_t)k);
}

/*
 * The host expands `#include "file"` itself instead of passing -I: include
 * paths with spaces are parsed differently by different OpenCL compilers, and
 * some drivers cache binaries by source text, so an edited header would not be
 * rebuilt. #line directives keep build-log line numbers pointing at the files.
 * Includes are searched beside the including file, then in each of `dirs`.
 */
static int expand(strbuf *out, const char *path, char *const *dirs, int ndirs, int depth) {
    size_t len;
    char *src, *line, *next;
    int ok = 1, lineno = 1;
    if (depth > 8) {
        ocr_errorf("includes nested too deeply at %s", path);
        return 0;
    }
    if (!(src = ocr_read_file(path, &len))) return 0;
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    ok = sb_printf(out, "#line %d \"%s\"\n", path, 1);
    for (line = src; ok && *line; line = next, ++lineno) {
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            ++p;
        char name[256];
        if (sscanf(p, "#include \"%255[^\"]\"", name) == 1) {
            char *inc = join(dir, name);
            for (int d = 0; inc && !is_file(inc) && d < ndirs; ++d) {
                free(inc);
                inc = join(dirs[d], name);
            }
            if (!inc || !is_file(inc)) {
                ocr_errorf("%s:%d: cannot find included file \"%s\" (searched %s%s%s%s%s)", path,
                           lineno, name, dir, ndirs > 0 ? ", " : "", ndirs > 0 ? dirs[0] : "",
                           ndirs > 1 ? ", " : "", ndirs > 1 ? dirs[1] : "");
                free(inc);
                ok = 0;
                break;
            }
            ok = expand(out, inc, dirs, ndirs, depth + 1) &&
                 sb_printf(out, "#line %d \"%s\"\n", path, lineno + 1);
            free(inc);
        } else {
            ok = sb_add(out, line, (size_t)(next - line));
            if (ok && next[-1] != '\n') ok = sb_add(out, "\n", 1);
        }
    }
    free(src);
    return ok;
}

/* --- build --------------------------------------------------------------- */

/* reduce7: 16-byte loads issued per work-item before the first is used. */
#define REDUCE7_UNROLL 8

static int is_pow2(size_t x) {
    return x && !(x & (x - 1));
}
static size_t floor_pow2(size_t x) {
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

static void print_build_failure(cl_program prog, cl_device_id dev, const char *path,
                                const char *options) {
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n)
        log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        log[n] = '\0';
    else if (log)
        log[0] = '\0';
    fprintf(stderr,
            "oclReduction: building %s failed\n"
            "  build options: %s\n"
            "  build log:\n%s\n",
            path, options, log && log[0] ? log : "  (the compiler left no log)");
    free(log);
}

/* One build attempt with the given local size. */
static ocr_status build_once(ocr_device *dev, ocr_kernel *k, const char *source,
                             const ocr_build_request *rq, size_t local, size_t vec, int blocked) {
    ocr_status st = OCR_OK;
    cl_int err;
    const ocr_kernel_spec *sp = &rq->spec;
    const char *ut = ocr_unsigned_twin(rq->type);
    char opts[1024];
    int n = snprintf(opts, sizeof opts,
                     "-D OCR_T=%s -D OCR_IS_FLOAT=%d -D OCR_OP=%d -D OCR_IDENTITY=%s "
                     "-D LOCAL_SIZE=%zu",
                     ocr_type_name(rq->type), ocr_type_is_float(rq->type), (int)rq->op,
                     ocr_identity_source(rq->type, rq->op), local);
    if (ut) n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_UT=%s", ut);
    if (rq->type == OCR_DOUBLE) n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_FP64=1");
    if (sp->kind == OCR_PER_GROUP)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK=%zu -D ELEMS_PER_GROUP=%zu",
                      sp->block, sp->block * sp->loads_per_slot);
    if (sp->kind == OCR_PER_GRID) {
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -D VEC=%zu -D UNROLL=%d -D OCR_BLOCKED=%d", vec, REDUCE7_UNROLL, blocked);
    }
    if (rq->extra_options)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " %s", rq->extra_options);
    if (n <= 0 || (size_t)n >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    free(k->options);
    k->options = strdup(opts);

    if (k->kernel) clReleaseKernel(k->kernel), k->kernel = NULL;
    if (k->program) clReleaseProgram(k->program), k->program = NULL;
    k->program = clCreateProgramWithSource(dev->context, 1, &source, NULL, &err);
    OCR_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(k->program, 1, &dev->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        print_build_failure(k->program, dev->device, k->path, opts);
        OCR_CHECK(err, "clBuildProgram");
    }
    k->kernel = clCreateKernel(k->program, sp->name, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        ocr_errorf("%s has no kernel named '%s'", k->path, sp->name);
        return OCR_RUNTIME;
    }
    OCR_CHECK(err, "clCreateKernel");
fail:
    return st;
}

ocr_status ocr_kernel_build(ocr_device *dev, const ocr_build_request *rq, ocr_kernel **out) {
    ocr_status st = OCR_OK;
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    strbuf src = {0};
    char *inc_dirs[2] = {NULL, NULL};
    int n_inc = 0;
    ocr_kernel *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k) {
        ocr_errorf("out of host memory");
        return OCR_RUNTIME;
    }
    k->type = rq->type;
    k->op = rq->op;
    if (rq->type == OCR_DOUBLE && !in->fp64) {
        ocr_errorf("%s does not support double precision (no cl_khr_fp64): use another --type or "
                   "device",
                   in->name);
        st = OCR_RUNTIME;
        goto fail;
    }

    /* Find the file. Includes come from beside it, then from the root of its
     * kernel directory (for lab/), then from the standard kernel directory, so
     * a student's kernel or a --kernel-dir of a few files can use
     * reduce_common.h without a copy. */
    if (rq->kernel_file) {
        k->path = strdup(rq->kernel_file);
    } else {
        k->path = ocr_find_kernel_file(sp->file, rq->kernel_dir);
        if (!k->path) {
            st = OCR_RUNTIME;
            goto fail;
        }
        inc_dirs[n_inc] = strdup(k->path);
        if (inc_dirs[n_inc]) inc_dirs[n_inc++][strlen(k->path) - strlen(sp->file) - 1] = '\0';
    }
    char *common = find_file("reduce_common.h", NULL, 1);
    if (common) {
        *strrchr(common, '/') = '\0';
        inc_dirs[n_inc++] = common;
    }
    if (!k->path || !expand(&src, k->path, inc_dirs, n_inc, 0)) {
        st = OCR_RUNTIME;
        goto fail;
    }

    /* Geometry: the requested or default local size, fitted to the device. */
    int user_local = rq->local_size != 0;
    size_t local = user_local ? rq->local_size : sp->local_size ? sp->local_size : 256;
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    size_t vec = 16 / ocr_type_size(rq->type);
    /* reduce7: blocked access on CPU devices, coalesced strides elsewhere (a
     * device that says it is both, like oclgrind, counts as a GPU). On a CPU,
     * one work-item per group measured fastest (POCL then runs no work-item
     * loop; docs/benchmarks.md). */
    cl_device_type ty = in->type;
    int blocked =
        rq->access ? rq->access == 2 : (ty & CL_DEVICE_TYPE_CPU) && !(ty & CL_DEVICE_TYPE_GPU);
    if (sp->kind == OCR_PER_GRID && blocked && !user_local) local = 1;
    if (local > limit) {
        if (user_local) {
            ocr_errorf("%s cannot run work-groups of %zu: its limit is %zu "
                       "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES)",
                       in->name, local, limit);
            st = OCR_RUNTIME;
            goto fail;
        }
        local = floor_pow2(limit);
    }
    if (sp->kind != OCR_PER_ITEM && !is_pow2(local)) {
        ocr_errorf("%s needs a power-of-two work-group size, not %zu", sp->name, local);
        st = OCR_USAGE;
        goto fail;
    }
    if (sp->kind == OCR_PER_GROUP && sp->block && (local > sp->block || sp->block % local)) {
        ocr_errorf("%s covers %zu values per group: the work-group size (%zu) must divide it",
                   sp->name, sp->block, local);
        st = OCR_USAGE;
        goto fail;
    }
    size_t lmem = (sp->kind == OCR_PER_GROUP ? sp->block : local) * ocr_type_size(rq->type);
    if (lmem > in->local_mem) {
        ocr_errorf("%s needs %zu bytes of local memory per group for %s; %s has %llu", sp->name,
                   lmem, ocr_type_name(rq->type), in->name, (unsigned long long)in->local_mem);
        st = OCR_RUNTIME;
        goto fail;
    }

    for (;;) {
        if ((st = build_once(dev, k, src.s, rq, local, vec, blocked)) != OCR_OK) goto fail;
        size_t kwg = 0;
        cl_ulong klmem = 0;
        OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof kwg, &kwg, NULL));
        OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                        sizeof klmem, &klmem, NULL));
        if (klmem > in->local_mem) {
            ocr_errorf("%s uses %llu bytes of local memory on %s, which has %llu", sp->name,
                       (unsigned long long)klmem, in->name, (unsigned long long)in->local_mem);
            st = OCR_RUNTIME;
            goto fail;
        }
        if (local <= kwg) break;
        /* The compiled kernel allows fewer work-items than we asked for (too
         * many registers, say): shrink, unless the user fixed the size. */
        if (user_local || kwg == 0) {
            ocr_errorf("%s cannot run %s with work-groups of %zu: the compiled kernel allows %zu "
                       "(CL_KERNEL_WORK_GROUP_SIZE)%s",
                       in->name, sp->name, local, kwg,
                       user_local ? "; try a smaller --local-size" : "");
            st = OCR_RUNTIME;
            goto fail;
        }
        local = floor_pow2(kwg);
    }

    k->geom.kind = sp->kind;
    k->geom.local_size = local;
    k->geom.tree = rq->kernel_file == NULL;
    if (sp->kind == OCR_PER_ITEM) {
        k->geom.elems_per_group = 2;
    } else if (sp->kind == OCR_PER_GROUP) {
        k->geom.elems_per_group = sp->block * sp->loads_per_slot;
    } else {
        k->geom.elems_per_group = vec * REDUCE7_UNROLL; /* per work-item and iteration */
        /* About 1024 resident work-items per GPU compute unit measured best on
         * an H100 (docs/benchmarks.md); a CPU core takes a few groups. */
        size_t per_cu = in->type & CL_DEVICE_TYPE_GPU ? 1024 / local : 4;
        k->geom.max_groups =
            rq->groups ? rq->groups : (uint64_t)in->compute_units * (per_cu ? per_cu : 1);
    }
    k->default_m = sp->default_m ? sp->default_m : k->geom.max_groups;
    free(src.s);
    free(inc_dirs[0]);
    free(inc_dirs[1]);
    *out = k;
    return OCR_OK;
fail:
    free(src.s);
    free(inc_dirs[0]);
    free(inc_dirs[1]);
    ocr_kernel_release(k);
    return st;
}

void ocr_kernel_release(ocr_kernel *k) {
    if (!k) return;
    if (k->kernel) clReleaseKernel(k->kernel);
    if (k->program) clReleaseProgram(k->program);
    free(k->path);
    free(k->options);
    free(k);
}

const ocr_geometry *ocr_kernel_geometry(const ocr_kernel *k) {
    return &k->geom;
}
const char *ocr_kernel_path(const ocr_kernel *k) {
    return k->path;
}
const char *ocr_kernel_options(const ocr_kernel *k) {
    return k->options;
}
uint64_t ocr_kernel_default_m(const ocr_kernel *k) {
    return k->default_m;
}
