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
    if (!(buf = malloc((size_t)size + 1))) {
        ocr_errorf("out of host memory while reading %s (%ld bytes)", path, size);
        goto done;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        ocr_errorf("cannot read kernel file %s: %s", path,
                   ferror(f) ? strerror(errno) : "it changed while being read");
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

/* 0 if the file can be read, else why not (ENOENT, EACCES, ...). */
static int unreadable(const char *p) {
    return access(p, R_OK) == 0 ? 0 : errno ? errno : EACCES;
}

/* 0 if d is a directory this process may search, else why not. */
static int bad_dir(const char *d) {
    struct stat sb;
    if (stat(d, &sb) != 0) return errno;
    if (!S_ISDIR(sb.st_mode)) return ENOTDIR;
    return access(d, X_OK) == 0 ? 0 : errno;
}

static const char *dir_problem(int err) {
    return err == ENOENT ? "does not exist" : err == ENOTDIR ? "is not a directory" : strerror(err);
}

/* A $OCLREDUCTION_KERNEL_DIR that cannot be used is skipped, but never
 * silently: the kernels then come from somewhere the user did not ask for.
 * Once per process (every build searches again). */
static void warn_env_dir(const char *env, int err, const char *used) {
    static int warned;
    if (warned) return;
    warned = 1;
    ocr_errorf("warning: OCLREDUCTION_KERNEL_DIR=%s %s; %s%s", env, dir_problem(err),
               used ? "using " : "ignoring it", used ? used : "");
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
    int err[5];
    char exe[PATH_MAX], rel[PATH_MAX + 64];
    int nd = 0, env_at = -1, env_err = 0;
    const char *env = NULL;
    if (explicit_dir) {
        dirs[nd] = explicit_dir, why[nd++] = "--kernel-dir";
    } else {
        env = getenv("OCLREDUCTION_KERNEL_DIR");
        if (env && *env) {
            env_err = bad_dir(env);
            env_at = nd;
            dirs[nd] = env, why[nd++] = "$OCLREDUCTION_KERNEL_DIR";
        }
        exe_dir(exe, sizeof exe);
        /* A binary inside the build tree reads the source tree's kernels, so an
         * edited .cl file takes effect without reinstalling. */
        const char *tree = ocr_source_kernel_dir(exe);
        if (tree) dirs[nd] = tree, why[nd++] = "source tree";
        if (exe[0]) {
            snprintf(rel, sizeof rel, "%s/%s", exe, OCR_INSTALL_KERNEL_DIR_REL);
            dirs[nd] = rel, why[nd++] = "installed, beside the binary";
        }
        if (OCR_INSTALL_KERNEL_DIR[0])
            dirs[nd] = OCR_INSTALL_KERNEL_DIR, why[nd++] = "installed data directory";
    }
    int denied = 0;
    for (int i = 0; i < nd; ++i) {
        char *p = join(dirs[i], file);
        if (!p) {
            ocr_errorf("out of host memory");
            return NULL;
        }
        err[i] = i == env_at && env_err ? env_err : unreadable(p);
        if (!err[i]) {
            if (env_err && quiet != 2) warn_env_dir(env, env_err, dirs[i]);
            return p;
        }
        free(p);
        denied |= err[i] != ENOENT && err[i] != ENOTDIR;
    }
    if (quiet) { /* 2: not a word (a probe, like the tuning cache's) */
        if (env_err && quiet == 1) warn_env_dir(env, env_err, NULL);
        return NULL;
    }
    /* "Not found" only when nothing was there: a file or directory without
     * read permission says so. */
    ocr_errorf_begin("kernel file %s %s. Searched:", file, denied ? "cannot be read" : "not found");
    for (int i = 0; i < nd; ++i)
        ocr_errprintf("  %s/%s  (%s): %s%s\n", dirs[i], file, why[i],
                      i == env_at && env_err ? "the directory " : "",
                      i == env_at && env_err ? dir_problem(env_err) : strerror(err[i]));
    if (!explicit_dir)
        ocr_errprintf("Point --kernel-dir or OCLREDUCTION_KERNEL_DIR at the cl/ directory.\n");
    ocr_errorf_end();
    return NULL;
}

char *ocr_find_kernel_file(const char *file, const char *explicit_dir) {
    ocr_last_error_clear();
    return find_file(file, explicit_dir, 0);
}

char *ocr_find_kernel_file_quiet(const char *file, const char *explicit_dir) {
    return find_file(file, explicit_dir, 2);
}

/* --- include expansion --------------------------------------------------- */

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} strbuf;

/* Appends n bytes; 0 when out of memory. */
static int sb_add(strbuf *b, const char *s, size_t n) {
    if (n > SIZE_MAX / 4 - b->len) return 0;
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

static int sb_str(strbuf *b, const char *s) {
    return sb_add(b, s, strlen(s));
}

/* `#line N "path"`, the path escaped as a string literal. */
static int sb_line(strbuf *b, int n, const char *path) {
    char num[32];
    snprintf(num, sizeof num, "#line %d \"", n);
    int ok = sb_str(b, num);
    for (const char *p = path; ok && *p; ++p)
        ok = (*p == '"' || *p == '\\' ? sb_add(b, "\\", 1) : 1) && sb_add(b, p, 1);
    return ok && sb_str(b, "\"\n");
}

/* If [p, end) is a line `#include "name"` (blanks allowed around the '#'),
 * points *name at the name and returns its length, else 0. Bounded by the
 * line: sscanf on the rest of the buffer would measure all of it (strlen) on
 * every line, quadratic in the file size. */
static size_t include_name(const char *p, const char *end, const char **name) {
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    if (p == end || *p++ != '#') return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    if (end - p < 8 || memcmp(p, "include", 7) != 0) return 0;
    p += 7;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    if (p == end || *p != '"') return 0;
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q) return 0;
    *name = p + 1;
    return (size_t)(q - p - 1);
}

typedef struct {
    strbuf out;
    char *const *dirs; /* where includes are searched after the including file's directory */
    int ndirs;
    int mirror;   /* oclgrind: mirror the top file's lines first (see mirror_lines) */
    int embedded; /* read the sources compiled into the library, not files */
} expansion;

/* Embedded sources are named EMBEDDED "/" their path relative to cl/, so
 * build logs say where a line came from and includes resolve as for files. */
#define EMBEDDED "<embedded>"

static const ocr_embedded_file *embedded_find(const char *path) {
    size_t pl = strlen(EMBEDDED);
    if (strncmp(path, EMBEDDED "/", pl + 1) != 0) return NULL;
    for (size_t i = 0; i < ocr_embedded_count; ++i)
        if (!strcmp(ocr_embedded_files[i].name, path + pl + 1)) return &ocr_embedded_files[i];
    return NULL;
}

/* A malloc'd copy of an embedded source, as ocr_read_file gives a file. */
static char *embedded_read(const char *path, size_t *len) {
    const ocr_embedded_file *f = embedded_find(path);
    char *s = f ? malloc(f->len + 1) : NULL;
    if (!f)
        ocr_errorf("no embedded kernel source %s", path);
    else if (!s)
        ocr_errorf("out of host memory while reading %s", path);
    if (!s) return NULL;
    memcpy(s, f->text, f->len + 1);
    *len = f->len;
    return s;
}

/* An embedded include: beside the including source, then at the top of cl/. */
static char *embedded_include(const char *dir, const char *name, const char *from, int lineno) {
    char *p = join(dir, name);
    if (p && !embedded_find(p)) {
        free(p);
        p = join(EMBEDDED, name);
        if (p && !embedded_find(p)) {
            ocr_errorf("%s:%d: cannot find included file \"%s\" among the embedded sources", from,
                       lineno, name);
            free(p);
            return NULL;
        }
    }
    if (!p) ocr_errorf("out of host memory while reading %s", from);
    return p;
}

/* Finds an included file beside the including one, then in each of dirs.
 * NULL with one message if it is in none of them or cannot be read. */
static char *find_include(const expansion *ex, const char *dir, const char *name, const char *from,
                          int lineno) {
    char *denied = NULL; /* the first candidate there but unreadable */
    int denied_err = 0;
    for (int d = -1; d < ex->ndirs; ++d) {
        char *p = join(d < 0 ? dir : ex->dirs[d], name);
        if (!p) {
            ocr_errorf("out of host memory while reading %s", from);
            free(denied);
            return NULL;
        }
        int e = unreadable(p);
        if (!e) {
            free(denied);
            return p;
        }
        if (e != ENOENT && e != ENOTDIR && !denied) {
            denied = p, denied_err = e;
            continue;
        }
        free(p);
    }
    if (denied)
        ocr_errorf("%s:%d: cannot read included file %s: %s", from, lineno, denied,
                   strerror(denied_err));
    else
        ocr_errorf("%s:%d: cannot find included file \"%s\" (searched %s%s%s%s%s)", from, lineno,
                   name, dir, ex->ndirs > 0 ? ", " : "", ex->ndirs > 0 ? ex->dirs[0] : "",
                   ex->ndirs > 1 ? ", " : "", ex->ndirs > 1 ? ex->dirs[1] : "");
    free(denied);
    return NULL;
}

/*
 * oclgrind names a diagnostic's place by the #line-mapped file and number, but
 * quotes line N of the source string it was given, whatever the file: with
 * includes expanded above the kernel, that is some other line (the end of a
 * comment, a #pragma of the header). So under oclgrind the string opens with
 * an inert copy of the top file, inside `#if 0`, whose line N is the file's
 * line N: the kernel's own lines are then numbered and quoted alike. Line 1
 * gives way to the `#if 0`; copied lines that start with '#' are commented
 * out, so no directive in the copy (nor one in a comment opened on line 1) can
 * unbalance the #if. Places inside included files (reduce_common.h) are still
 * quoted from the top file: one string cannot hold two files at the same line
 * numbers.
 */
static int mirror_lines(strbuf *out, const char *src, const char *end) {
    int ok = sb_str(out, "#if 0\n"), first = 1;
    for (const char *line = src, *next; ok && line < end; line = next, first = 0) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        next = nl ? nl + 1 : end;
        if (first) continue;
        const char *p = line;
        while (p < next && (*p == ' ' || *p == '\t'))
            ++p;
        if (p < next && *p == '#') ok = sb_add(out, "//", 2);
        ok = ok && sb_add(out, line, (size_t)(next - line)) && (nl || sb_add(out, "\n", 1));
    }
    return ok && sb_str(out, "#endif\n");
}

/*
 * The host expands `#include "file"` itself instead of passing -I: include
 * paths with spaces are parsed differently by different OpenCL compilers, and
 * some drivers cache binaries by source text, so an edited header would not be
 * rebuilt. #line directives keep build-log line numbers pointing at the files.
 * Includes are searched beside the including file, then in each of ex->dirs.
 * Linear in the size of the files. Every failure prints one message.
 */
static int expand(expansion *ex, const char *path, int depth) {
    size_t len;
    char *src;
    int ok = 1, lineno = 1;
    if (depth > 8) {
        ocr_errorf("includes nested too deeply at %s", path);
        return 0;
    }
    if (!(src = ex->embedded ? embedded_read(path, &len) : ocr_read_file(path, &len))) return 0;
    const char *end = src + len, *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (depth == 0 && ex->mirror) ok = mirror_lines(&ex->out, src, end);
    ok = ok && sb_line(&ex->out, 1, path);
    for (const char *line = src, *next; ok && line < end; line = next, ++lineno) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        next = nl ? nl + 1 : end;
        const char *name;
        size_t nlen = include_name(line, next, &name);
        if (!nlen) {
            ok = sb_add(&ex->out, line, (size_t)(next - line)) && (nl || sb_add(&ex->out, "\n", 1));
            continue;
        }
        char nm[256];
        if (nlen >= sizeof nm) {
            ocr_errorf("%s:%d: included file name too long", path, lineno);
            free(src);
            return 0;
        }
        memcpy(nm, name, nlen);
        nm[nlen] = '\0';
        char *inc = ex->embedded ? embedded_include(dir, nm, path, lineno)
                                 : find_include(ex, dir, nm, path, lineno);
        if (!inc || !expand(ex, inc, depth + 1)) {
            free(inc);
            free(src);
            return 0; /* the message is printed */
        }
        free(inc);
        ok = sb_line(&ex->out, lineno + 1, path);
    }
    free(src);
    if (!ok) ocr_errorf("out of host memory while reading %s", path);
    return ok;
}

/* --- build --------------------------------------------------------------- */

static int is_pow2(size_t x) {
    return x && !(x & (x - 1));
}
static size_t floor_pow2(size_t x) {
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

/* The build log, malloc'd ("" when there is none), or NULL. */
static char *build_log(cl_program prog, cl_device_id dev) {
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n)
        log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        log[n] = '\0';
    else if (log)
        log[0] = '\0';
    /* Drop trailing blank lines: the message ends the report. */
    for (size_t l = log ? strlen(log) : 0; l && (log[l - 1] == '\n' || log[l - 1] == ' ');)
        log[--l] = '\0';
    return log;
}

static void print_build_failure(cl_program prog, cl_device_id dev, const char *path,
                                const char *options) {
    char *log = build_log(prog, dev);
    ocr_errorf_begin("building %s failed", path);
    ocr_errprintf("  build options: %s\n"
                  "  build log:\n%s\n",
                  options, log && log[0] ? log : "  (the compiler left no log)");
    ocr_errorf_end();
    free(log);
}

/* CL_INVALID_BUILD_OPTIONS: the build never started, so the options are the
 * news, not a compiler log. One message. */
static void print_bad_options(cl_program prog, const ocr_device *dev, const char *path,
                              const char *options, const char *extra) {
    char *log = build_log(prog, dev->device);
    ocr_errorf_begin("%s rejected the build options for %s (CL_INVALID_BUILD_OPTIONS)",
                     dev->info.name, path);
    ocr_errprintf("  build options: %s\n", options);
    if (extra && *extra) ocr_errprintf("  of which added with --build-options: %s\n", extra);
    if (log && log[0]) ocr_errprintf("  the compiler says: %s\n", log);
    ocr_errorf_end();
    free(log);
}

/* One build attempt with the given local size. */
/* How reduce7_finish may let its last group read the other groups' values
 * (cl/reduce7.cl): 1 with OpenCL 2.0/3.0 acquire-release atomics at device
 * scope (*std: the -cl-std option they need), 2 on NVIDIA's OpenCL 1.2, whose
 * global fences are device-wide, 0 (two launches) elsewhere or when the user
 * chose the language version. */
#define OCR_ATOMIC_MEMORY_CAPABILITIES 0x1063 /* OpenCL 3.0 */
#define OCR_ATOMIC_ACQ_REL (1u << 1)
#define OCR_ATOMIC_SCOPE_DEVICE (1u << 5)
static ocr_status finish_mode(const ocr_device *dev, const ocr_build_request *rq, int *mode,
                              const char **std) {
    const ocr_device_info *in = &dev->info;
    ocr_status st = OCR_OK;
    int major = 0, minor = 0;
    *mode = 0;
    *std = "";
    if (rq->spec.kind != OCR_PER_GRID || rq->kernel_file) return OCR_OK;
    if (rq->extra_options && strstr(rq->extra_options, "-cl-std")) return OCR_OK;
    /* oclgrind checks against OpenCL 1.2, where one group reading another's
     * partial is a race: it reports the finish as one (checked), so keep two
     * launches there. */
    if (strstr(in->platform, "Oclgrind")) return OCR_OK;
    if (sscanf(in->version, "OpenCL %d.%d", &major, &minor) != 2) return OCR_OK;
    if (major == 2) {
        *std = " -cl-std=CL2.0"; /* acq_rel and device scope are core in 2.x */
        *mode = 1;
        return OCR_OK;
    }
    if (major >= 3) {
        cl_bitfield caps = 0;
        OCR_CL(clGetDeviceInfo(dev->device, OCR_ATOMIC_MEMORY_CAPABILITIES, sizeof caps, &caps,
                               NULL));
        if ((caps & OCR_ATOMIC_ACQ_REL) && (caps & OCR_ATOMIC_SCOPE_DEVICE)) {
            *std = " -cl-std=CL3.0";
            *mode = 1;
            return OCR_OK;
        }
    }
    if (strstr(in->vendor, "NVIDIA")) *mode = 2;
fail:
    return st;
}

/* 1 if the built program lists `name` among its kernels (CL_PROGRAM_KERNEL_NAMES:
 * a semicolon-separated list). Under oclgrind a kernel it cannot interpret is
 * refused as CL_INVALID_KERNEL_NAME although it is there. */
static int program_lists_kernel(cl_program p, const char *name) {
    char names[4096];
    size_t len = strlen(name);
    if (clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL) != CL_SUCCESS)
        return 0;
    for (const char *s = names; *s;) {
        size_t n = strcspn(s, ";");
        if (n == len && !strncmp(s, name, len)) return 1;
        s += n + (s[n] == ';');
    }
    return 0;
}

static ocr_status build_once(ocr_device *dev, ocr_kernel *k, const strbuf *source,
                             const ocr_build_request *rq, size_t local, size_t vec, int blocked,
                             int finish, const char *std) {
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
    if (ocr_type_traits_of(rq->type)->needs_fp64)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_FP64=1");
    if (sp->kind == OCR_PER_GROUP)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK=%zu -D ELEMS_PER_GROUP=%zu",
                      sp->block, sp->block * sp->loads_per_slot);
    if (sp->kind == OCR_PER_GRID) {
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -D VEC=%zu -D UNROLL=%u -D OCR_BLOCKED=%d", vec,
                      rq->unroll ? rq->unroll : sp->grid.unroll, blocked);
        if (finish) n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_FINISH=%d%s", finish, std);
    }
    /* A user kernel's arguments are checked after the build (check_signature). */
    if (rq->kernel_file) n += snprintf(opts + n, sizeof opts - (size_t)n, " -cl-kernel-arg-info");
    if (rq->extra_options)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " %s", rq->extra_options);
    if (n <= 0 || (size_t)n >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    free(k->options);
    if (!(k->options = strdup(opts))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }

    if (k->finish_kernel) clReleaseKernel(k->finish_kernel), k->finish_kernel = NULL;
    if (k->kernel) clReleaseKernel(k->kernel), k->kernel = NULL;
    ocr_program_put(k->program), k->program = NULL;
    /* Built once per context, device, source and options (ocr_program_cache.c).
     * With its length: a NUL byte in the file reaches the compiler, which says
     * so, instead of silently ending the source there. */
    const char *call;
    err = ocr_program_get(dev, source->s, source->len, opts, k->build_flags, &k->program, &call);
    if (err == CL_INVALID_BUILD_OPTIONS && k->program) {
        print_bad_options(k->program, dev, k->path, opts, rq->extra_options);
        return OCR_BUILD;
    }
    if (err != CL_SUCCESS && k->program)
        print_build_failure(k->program, dev->device, k->path, opts);
    OCR_CHECK(err, call);
    k->kernel = clCreateKernel(k->program, sp->name, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        if (program_lists_kernel(k->program, sp->name))
            ocr_errorf("%s: the OpenCL implementation could not create kernel '%s', which the "
                       "program does contain (see its own messages above)",
                       k->path, sp->name);
        else
            ocr_errorf("%s has no kernel named '%s'", k->path, sp->name);
        return OCR_BUILD;
    }
    OCR_CHECK(err, "clCreateKernel");
    if (sp->kind == OCR_PER_GRID && !rq->kernel_file) { /* an older reduce7.cl takes no offsets */
        cl_uint nargs = 0;
        OCR_CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
        k->offsets = nargs == 5;
    }
    if (finish) {
        k->finish_kernel = clCreateKernel(k->program, "reduce7_finish", &err);
        OCR_CHECK(err, "clCreateKernel");
    }
fail:
    return st;
}

#define SIGNATURE "__kernel void %s(__global const T *in, __global T *out, const ulong n)"

/* One message for a kernel file whose arguments do not fit the harness. */
static ocr_status bad_signature(const ocr_kernel *k, const char *name, const char *what,
                                const ocr_build_request *rq) {
    ocr_errorf_begin("%s: kernel '%s' does not fit the harness: %s.", k->path, name, what);
    ocr_errprintf("  Its signature must be " SIGNATURE "\n"
                  "  (T is the element type, %s here; see docs/labs/starter.cl)\n",
                  name, ocr_type_name(rq->type));
    ocr_errorf_end();
    return OCR_BUILD;
}

static const char *qualifier_name(cl_kernel_arg_address_qualifier q) {
    switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        return "__global";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return "__constant";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return "__local";
    default:
        return "a value (private)";
    }
}

/* The scalar type a (pointer or vector) type name is made of, if it is a
 * built-in one: "float4*" -> "float"; NULL for typedef names we cannot see
 * through. */
static const char *scalar_of(const char *tname, char *buf, size_t len) {
    static const char *const scalars[] = {"char", "uchar", "short", "ushort", "int",   "uint",
                                          "long", "ulong", "half",  "float",  "double"};
    size_t n = strcspn(tname, "0123456789* ");
    if (n >= len) return NULL;
    memcpy(buf, tname, n);
    buf[n] = '\0';
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; ++i)
        if (!strcmp(buf, scalars[i])) return buf;
    return NULL;
}

/*
 * A --kernel-file kernel gets (buffer in, buffer out, ulong n). Checked after
 * the build, so a wrong signature is named as such instead of ending in a raw
 * clSetKernelArg error: the argument count always; the address spaces and
 * types where the device keeps argument information (it may not:
 * CL_KERNEL_ARG_INFO_NOT_AVAILABLE); the size of n by setting it.
 */
static ocr_status check_signature(ocr_kernel *k, const ocr_build_request *rq) {
    ocr_status st = OCR_OK;
    const char *name = rq->spec.name;
    static const char *const role[3] = {"argument 0 (the input)", "argument 1 (the output)",
                                        "argument 2 (n)"};
    char what[256], tname[128], sbuf[32];
    cl_uint nargs = 0;
    OCR_CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
    if (nargs != 3) {
        snprintf(what, sizeof what, "it takes %u argument%s, not 3", nargs, nargs == 1 ? "" : "s");
        return bad_signature(k, name, what, rq);
    }
    for (cl_uint i = 0; i < 3; ++i) {
        cl_kernel_arg_address_qualifier q = 0;
        cl_int e =
            clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, NULL);
        if (e == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) break;
        OCR_CHECK(e, "clGetKernelArgInfo");
        int ok = i == 2 ? q == CL_KERNEL_ARG_ADDRESS_PRIVATE
                        : q == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
                              (i == 0 && q == CL_KERNEL_ARG_ADDRESS_CONSTANT);
        if (!ok) {
            snprintf(what, sizeof what, "%s is %s; it must be %s", role[i], qualifier_name(q),
                     i == 2 ? "a ulong value" : "a __global pointer");
            return bad_signature(k, name, what, rq);
        }
        e = clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof tname, tname, NULL);
        if (e == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) continue;
        OCR_CHECK(e, "clGetKernelArgInfo");
        const char *sc = scalar_of(tname, sbuf, sizeof sbuf);
        /* Pointers must point to T (or vectors of T); n must be a 64-bit
         * integer (long would do, for any n the host can hold). */
        if (i < 2 && sc && strcmp(sc, ocr_type_name(rq->type)) != 0) {
            snprintf(what, sizeof what, "%s is %s, but the data are %s (--type)", role[i], tname,
                     ocr_type_name(rq->type));
            return bad_signature(k, name, what, rq);
        }
        if (i == 2 && sc && ((strcmp(sc, "ulong") && strcmp(sc, "long")) || strchr(tname, '*'))) {
            snprintf(what, sizeof what, "%s is %s; it must be ulong", role[i], tname);
            return bad_signature(k, name, what, rq);
        }
    }
    /* Without argument information: n's size at least (a uint n would read
     * half of the value the host passes). */
    cl_ulong zero = 0;
    cl_int e = clSetKernelArg(k->kernel, 2, sizeof zero, &zero);
    if (e == CL_INVALID_ARG_SIZE || e == CL_INVALID_ARG_VALUE || e == CL_INVALID_MEM_OBJECT ||
        e == CL_INVALID_SAMPLER) {
        snprintf(what, sizeof what, "%s is not a 64-bit value (%s)", role[2], ocr_cl_error_name(e));
        return bad_signature(k, name, what, rq);
    }
    OCR_CHECK(e, "clSetKernelArg");
fail:
    return st;
}

/* What the built kernel needs, as the device reports it. */
static ocr_status query_resources(const ocr_device *dev, ocr_kernel *k) {
    ocr_status st = OCR_OK;
    ocr_kernel_resources *r = &k->res;
    size_t wg = 0, mult = 0, req[3] = {0, 0, 0};
    cl_ulong lmem = 0, pmem = 0;
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                    &wg, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device,
                                    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult,
                                    &mult, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem,
                                    &lmem, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem,
                                    &pmem, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                    sizeof req, req, NULL));
    r->work_group_size = wg;
    r->preferred_multiple = mult;
    r->local_mem = lmem;
    r->private_mem = pmem;
    r->required_size = req[0];
fail:
    return st;
}

/* reduce7_finish's own buffers: the ticket counter (zero; each launch's last
 * group leaves it zero again) and one value per group. Kept out of the
 * caller's scratch, so every pass enqueues the same first arguments. */
static ocr_status setup_finish(ocr_device *dev, ocr_kernel *k, size_t local) {
    ocr_status st = OCR_OK;
    cl_int err;
    size_t wg = 0;
    OCR_CL(clGetKernelWorkGroupInfo(k->finish_kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof wg, &wg, NULL));
    if (wg < local) { /* the finish needs more registers than reduce7: launch twice */
        clReleaseKernel(k->finish_kernel), k->finish_kernel = NULL;
        return OCR_OK;
    }
    cl_uint zero = 0;
    k->finish_ticket = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      sizeof zero, &zero, &err);
    OCR_CHECK(err, "clCreateBuffer");
    k->finish_partial = clCreateBuffer(dev->context, CL_MEM_READ_WRITE,
                                       (size_t)k->geom.max_groups * ocr_type_size(k->type), NULL,
                                       &err);
    OCR_CHECK(err, "clCreateBuffer");
    cl_uint at = k->offsets ? 5 : 3; /* after in, out, n and the offsets */
    OCR_CL(clSetKernelArg(k->finish_kernel, at, sizeof(cl_mem), &k->finish_ticket));
    OCR_CL(clSetKernelArg(k->finish_kernel, at + 1, sizeof(cl_mem), &k->finish_partial));
    k->geom.finishes = 1;
fail:
    return st;
}

ocr_status ocr_kernel_build(ocr_device *dev, const ocr_build_request *rq, ocr_kernel **out) {
    ocr_last_error_clear();
    return ocr_kernel_build_ex(dev, rq, 0, out);
}

/* --- source: find the file and expand its includes ------------------------ */

/* Sets k->path and returns the expanded source in *src (the caller frees
 * src->s, also on failure). Includes come from beside the file, then from the
 * root of its kernel directory (for lab/), then from the standard kernel
 * directory, so a student's kernel or a --kernel-dir of a few files can use
 * reduce_common.h without a copy. */
static ocr_status load_source(const ocr_device *dev, const ocr_build_request *rq, int embedded,
                              ocr_kernel *k, strbuf *src) {
    ocr_status st = OCR_OK;
    const ocr_kernel_spec *sp = &rq->spec;
    expansion ex = {{NULL, 0, 0}, NULL, 0, 0, embedded};
    char *inc_dirs[2] = {NULL, NULL};
    int n_inc = 0;
    if (embedded) {
        k->path = malloc(strlen(EMBEDDED) + strlen(sp->file) + 2);
        if (k->path) sprintf(k->path, "%s/%s", EMBEDDED, sp->file);
    } else if (rq->kernel_file) {
        k->path = strdup(rq->kernel_file);
    } else {
        k->path = ocr_find_kernel_file(sp->file, rq->kernel_dir);
        if (!k->path) {
            st = OCR_IO;
            goto done;
        }
        inc_dirs[n_inc] = strdup(k->path);
        if (inc_dirs[n_inc]) inc_dirs[n_inc++][strlen(k->path) - strlen(sp->file) - 1] = '\0';
    }
    char *common = embedded ? NULL : find_file("reduce_common.h", NULL, 1);
    if (common) {
        *strrchr(common, '/') = '\0';
        inc_dirs[n_inc++] = common;
    }
    if (!k->path) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
        goto done;
    }
    ex.dirs = inc_dirs;
    ex.ndirs = n_inc;
    ex.mirror = strstr(dev->info.platform, "Oclgrind") != NULL;
    if (!expand(&ex, k->path, 0)) st = OCR_IO;
done:
    *src = ex.out;
    free(inc_dirs[0]);
    free(inc_dirs[1]);
    return st;
}

/* --- device policy: work-group size and access from the device ----------- */

typedef struct {
    size_t local;   /* work-group size */
    size_t vec;     /* reduce7: elements per 16-byte load */
    int blocked;    /* reduce7: blocked (CPU) rather than strided access */
    int user_local; /* the caller fixed the work-group size: never shrink it */
    int user;       /* a kernel under test: nothing known before the build */
} launch_policy;

/* The requested or default local size, fitted to the device, and checked
 * against what the built-in kernels' shapes need. */
static ocr_status choose_policy(const ocr_device *dev, const ocr_build_request *rq, int user,
                                launch_policy *p) {
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    p->user = user;
    p->user_local = rq->local_size != 0;
    p->local = p->user_local ? rq->local_size : sp->local_size ? sp->local_size : 256;
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    p->vec = 16 / ocr_type_size(rq->type);
    /* reduce7: blocked access on CPU devices, coalesced strides elsewhere (a
     * device that says it is both, like oclgrind, counts as a GPU); on a CPU,
     * the registry row's work-group size. */
    cl_device_type ty = in->type;
    p->blocked =
        rq->access ? rq->access == 2 : (ty & CL_DEVICE_TYPE_CPU) && !(ty & CL_DEVICE_TYPE_GPU);
    if (sp->kind == OCR_PER_GRID && p->blocked && !p->user_local)
        p->local = sp->grid.cpu_local_size;
    if (p->local > limit) {
        if (p->user_local) {
            ocr_errorf("%s cannot run work-groups of %zu: its limit is %zu "
                       "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES)",
                       in->name, p->local, limit);
            return OCR_RUNTIME;
        }
        p->local = floor_pow2(limit);
    }
    /* The built-in kernels' shapes are known (their trees halve the group, their
     * blocks split evenly, their local arrays are BLOCK or LOCAL_SIZE values);
     * a user kernel's are not, so it is held only to what the built kernel
     * reports (build_fitted). */
    if (!user && sp->kind != OCR_PER_ITEM && !is_pow2(p->local)) {
        ocr_errorf("%s needs a power-of-two work-group size, not %zu", sp->name, p->local);
        return OCR_USAGE;
    }
    if (!user && sp->kind == OCR_PER_GROUP && sp->block &&
        (p->local > sp->block || sp->block % p->local)) {
        ocr_errorf("%s covers %zu values per group: the work-group size (%zu) must divide it",
                   sp->name, sp->block, p->local);
        return OCR_USAGE;
    }
    size_t lmem = (sp->kind == OCR_PER_GROUP ? sp->block : p->local) * ocr_type_size(rq->type);
    if (!user && lmem > in->local_mem) {
        ocr_errorf("%s needs %zu bytes of local memory per group for %s; %s has %llu", sp->name,
                   lmem, ocr_type_name(rq->type), in->name, (unsigned long long)in->local_mem);
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

/* The launch geometry from the policy and the device, once the work-group
 * size is final. */
static void set_geometry(const ocr_device *dev, const ocr_build_request *rq,
                         const launch_policy *p, ocr_kernel *k) {
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    k->geom.kind = sp->kind;
    k->geom.local_size = p->local;
    k->geom.tree = !p->user;
    if (sp->kind == OCR_PER_ITEM) {
        k->geom.elems_per_group = 2;
    } else if (sp->kind == OCR_PER_GROUP) {
        k->geom.elems_per_group = sp->block * sp->loads_per_slot;
    } else {
        /* per work-item and iteration */
        k->geom.elems_per_group = p->vec * (rq->unroll ? rq->unroll : sp->grid.unroll);
        /* Groups per compute unit from the registry row (ocr_kernels.c). */
        size_t per_cu = in->type & CL_DEVICE_TYPE_GPU ? sp->grid.gpu_items_per_cu / p->local
                                                      : sp->grid.cpu_groups_per_cu;
        k->geom.max_groups =
            rq->groups ? rq->groups : (uint64_t)in->compute_units * (per_cu ? per_cu : 1);
    }
}

/* --- the build: compile, query, and shrink the work-group if needed ------- */

/* Builds until the compiled kernel accepts p->local work-items, checking
 * what it reports against the device. */
static ocr_status build_fitted(ocr_device *dev, ocr_kernel *k, const strbuf *src,
                               const ocr_build_request *rq, int finish, const char *std,
                               launch_policy *p) {
    ocr_status st;
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    for (;;) {
        st = build_once(dev, k, src, rq, p->local, p->vec, p->blocked, finish, std);
        if (st != OCR_OK) return st;
        if (p->user && (st = check_signature(k, rq)) != OCR_OK) return st;
        if ((st = query_resources(dev, k)) != OCR_OK) return st;
        const ocr_kernel_resources *r = &k->res;
        if (r->local_mem > in->local_mem) {
            ocr_errorf("%s uses %llu bytes of local memory per work-group "
                       "(CL_KERNEL_LOCAL_MEM_SIZE); %s has %llu (CL_DEVICE_LOCAL_MEM_SIZE)",
                       sp->name, (unsigned long long)r->local_mem, in->name,
                       (unsigned long long)in->local_mem);
            return OCR_RUNTIME;
        }
        if (r->required_size && r->required_size != p->local) {
            ocr_errorf("%s requires work-groups of %zu (reqd_work_group_size), but runs with %zu: "
                       "use LOCAL_SIZE in the attribute%s",
                       sp->name, r->required_size, p->local,
                       p->user_local ? "" : ", or --local-size");
            return OCR_RUNTIME;
        }
        if (p->local <= r->work_group_size) return OCR_OK;
        /* The compiled kernel allows fewer work-items than we asked for (too
         * many registers, say): shrink, unless the user fixed the size. */
        if (p->user_local || r->work_group_size == 0) {
            ocr_errorf("%s cannot run %s with work-groups of %zu: the compiled kernel allows %zu "
                       "(CL_KERNEL_WORK_GROUP_SIZE)%s",
                       in->name, sp->name, p->local, r->work_group_size,
                       p->user_local ? "; try a smaller --local-size" : "");
            return OCR_RUNTIME;
        }
        p->local = floor_pow2(r->work_group_size);
    }
}

ocr_status ocr_kernel_build_ex(ocr_device *dev, const ocr_build_request *rq, int flags,
                               ocr_kernel **out) {
    ocr_status st = OCR_OK;
    const ocr_device_info *in = &dev->info;
    strbuf src = {NULL, 0, 0};
    launch_policy pol;
    const char *std;
    int finish;
    const int embedded = flags & OCR_BUILD_EMBEDDED;
    const int user = !embedded && rq->kernel_file; /* a kernel under test: nothing known before */
    ocr_kernel *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    k->build_flags = flags;
    k->type = rq->type;
    k->op = rq->op;
    if (ocr_type_traits_of(rq->type)->needs_fp64 && !in->fp64) {
        ocr_errorf("%s does not support double precision (no cl_khr_fp64): use another --type or "
                   "device",
                   in->name);
        st = OCR_RUNTIME;
        goto fail;
    }
    if ((st = load_source(dev, rq, embedded, k, &src)) != OCR_OK) goto fail;
    if ((st = choose_policy(dev, rq, user, &pol)) != OCR_OK) goto fail;
    if ((st = finish_mode(dev, rq, &finish, &std)) != OCR_OK) goto fail;
    if ((st = build_fitted(dev, k, &src, rq, finish, std, &pol)) != OCR_OK) goto fail;
    set_geometry(dev, rq, &pol, k);
    if (finish && (st = setup_finish(dev, k, pol.local)) != OCR_OK) goto fail;
    k->default_m = rq->spec.default_m ? rq->spec.default_m : k->geom.max_groups;
    free(src.s);
    *out = k;
    return OCR_OK;
fail:
    free(src.s);
    ocr_kernel_release(k);
    return st;
}

void ocr_kernel_release(ocr_kernel *k) {
    if (!k) return;
    if (k->finish_partial) clReleaseMemObject(k->finish_partial);
    if (k->finish_ticket) clReleaseMemObject(k->finish_ticket);
    if (k->finish_kernel) clReleaseKernel(k->finish_kernel);
    if (k->kernel) clReleaseKernel(k->kernel);
    ocr_program_put(k->program);
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
const ocr_kernel_resources *ocr_kernel_get_resources(const ocr_kernel *k) {
    return &k->res;
}
