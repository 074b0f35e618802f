/* ocr_source.c - a kernel's source: find its .cl file (explicit directory,
 * $OCLREDUCTION_KERNEL_DIR, the source tree, the installed kernels beside
 * the library and beside the program, the installed data directory),
 * or take the copy compiled into the library, and expand its includes (and
 * refuse any include left for the compiler: ocr_source_scan.c). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "opencl.h"

#include <errno.h>
#include <fcntl.h>
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
#ifndef OCR_INSTALL_KERNEL_DIR_LIB_REL
#define OCR_INSTALL_KERNEL_DIR_LIB_REL "../share/oclreduction/cl"
#endif

/* Only a regular file is read: a FIFO or a device would block or never end.
 * O_NONBLOCK keeps the open of a FIFO from waiting for a writer; fstat then
 * says what was opened (no window between a check and the open). */
static FILE *open_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        ocr_errorf("cannot open kernel file %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        ocr_errorf("kernel file %s is not a regular file", path);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        ocr_errorf("cannot open kernel file %s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *ocr_read_file(const char *path, size_t *len) {
    FILE *f = NULL;
    char *buf = NULL;
    long size;
    if (!(f = open_regular(path))) return NULL;
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
    const char *dirs[6];
    const char *why[6];
    int err[6];
    char exe[PATH_MAX], rel[PATH_MAX + 64], lib[PATH_MAX], lib_rel[PATH_MAX + 64];
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
        /* An installed shared library finds the kernels installed with it,
         * wherever the prefix was moved and whichever program loads it. */
        ocr_library_dir(lib, sizeof lib);
        if (lib[0] && strcmp(lib, exe) != 0) {
            snprintf(lib_rel, sizeof lib_rel, "%s/%s", lib, OCR_INSTALL_KERNEL_DIR_LIB_REL);
            dirs[nd] = lib_rel, why[nd++] = "installed, beside the library";
        }
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

/* Appends n bytes; 0 when out of memory. */
static int sb_add(ocr_strbuf *b, const char *s, size_t n) {
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

static int sb_str(ocr_strbuf *b, const char *s) {
    return sb_add(b, s, strlen(s));
}

/* `#line N "path"`, the path escaped as a string literal; a control
 * character (a newline in a file name would end the directive) shows as '?'
 * there, in build logs only. */
static int sb_line(ocr_strbuf *b, int n, const char *path) {
    char num[32];
    snprintf(num, sizeof num, "#line %d \"", n);
    int ok = sb_str(b, num);
    for (const char *p = path; ok && *p; ++p)
        ok = (unsigned char)*p < 0x20 || *p == 0x7f
                 ? sb_add(b, "?", 1)
                 : (*p == '"' || *p == '\\' ? sb_add(b, "\\", 1) : 1) && sb_add(b, p, 1);
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
    ocr_strbuf out;
    char *const *dirs; /* where includes are searched after the including file's directory */
    int ndirs;
    int mirror;    /* oclgrind: mirror the top file's lines first (see mirror_lines) */
    int embedded;  /* read the sources compiled into the library, not files */
    char *confine; /* a --kernel-file's folder (real path): its includes stay inside */
    /* Where each #line the host wrote leads in the output, to name a file and
     * line for an offset there (compiler_reads_nothing); the student's own #line
     * cannot move it. */
    struct src_mark {
        size_t at;
        int line;
        char *path;
    } * marks;
    size_t nmarks, capmarks;
} expansion;

/* The host's `#line n "path"`, its place recorded; 0 when out of memory. */
static int mark_line(expansion *ex, int n, const char *path) {
    if (ex->nmarks == ex->capmarks) {
        size_t cap = ex->capmarks ? ex->capmarks * 2 : 16;
        struct src_mark *m = realloc(ex->marks, cap * sizeof *m);
        if (!m) return 0;
        ex->marks = m, ex->capmarks = cap;
    }
    if (!sb_line(&ex->out, n, path)) return 0;
    char *copy = strdup(path);
    if (!copy) return 0;
    ex->marks[ex->nmarks++] = (struct src_mark){ex->out.len, n, copy};
    return 1;
}

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

/* Whether path's real path is dir or inside it (NULL dir: anything is). */
static int inside(const char *dir, const char *path) {
    char real[PATH_MAX];
    size_t n = dir ? strlen(dir) : 0;
    if (!dir || !realpath(path, real)) return 1; /* nothing to confine, or nothing there */
    return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0' || n == 1);
}

/* A graded kernel's includes stay in its folder (OCR_KERNEL_CONFINED: it
 * must not read the teacher's files): no absolute name, no "..", no link out. */
static int leaves(const expansion *ex, const char *dir, const char *name, const char *near) {
    if (!ex->confine) return 0;
    if (name[0] == '/') return 1;
    for (const char *p = name; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == name || p[-1] == '/') && (p[2] == '/' || p[2] == '\0')) return 1;
    return inside(ex->confine, dir) && !inside(ex->confine, near);
}

/* Finds an included file beside the including one, then in each of dirs.
 * NULL with one message if it is in none of them, cannot be read, or leaves
 * a --kernel-file's folder. */
static char *find_include(const expansion *ex, const char *dir, const char *name, const char *from,
                          int lineno) {
    char *denied = NULL; /* the first candidate there but unreadable */
    int denied_err = 0;
    char *near = join(dir, name);
    int out = near && leaves(ex, dir, name, near);
    free(near);
    if (out) {
        ocr_errorf("%s:%d: included file \"%s\" is outside the kernel's folder: a kernel file may "
                   "include only files beside it (and reduce_common.h)",
                   from, lineno, name);
        return NULL;
    }
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

/* Source text as editors save it: a UTF-8 byte-order mark (Visual Studio's
 * "UTF-8 with signature") is skipped, or it would land after the #line the
 * host writes first; UTF-16 is refused by name (OpenCL C is read as 8-bit
 * text: it would fail with a confusing log). Returns the text's start, or
 * NULL with a message. */
static const char *text_start(const char *path, const char *src, size_t len) {
    const unsigned char *u = (const unsigned char *)src;
    if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
        ocr_errorf("kernel file %s is UTF-16 text (it begins with the byte-order mark %02X %02X): "
                   "save it as UTF-8",
                   path, u[0], u[1]);
        return NULL;
    }
    return len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? src + 3 : src;
}

/* Appends the line [line, next), ending it with "\n" alone: a CRLF line (a
 * Windows editor's) loses its CR, and a last line without an end gets one. */
static int sb_text_line(ocr_strbuf *out, const char *line, const char *next) {
    size_t n = (size_t)(next - line);
    if (n && line[n - 1] == '\n') --n;
    if (n && line[n - 1] == '\r') --n;
    return sb_add(out, line, n) && sb_add(out, "\n", 1);
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
static int mirror_lines(ocr_strbuf *out, const char *src, const char *end) {
    int ok = sb_str(out, "#if 0\n"), first = 1;
    for (const char *line = src, *next; ok && line < end; line = next, first = 0) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        next = nl ? nl + 1 : end;
        if (first) continue;
        const char *p = line;
        while (p < next && (*p == ' ' || *p == '\t'))
            ++p;
        if (p < next && *p == '#') ok = sb_add(out, "//", 2);
        ok = ok && sb_text_line(out, line, next);
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
    const char *text = text_start(path, src, len), *end = src + len, *slash = strrchr(path, '/');
    if (!text) {
        free(src);
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (depth == 0 && ex->mirror) ok = mirror_lines(&ex->out, text, end);
    ok = ok && mark_line(ex, 1, path);
    for (const char *line = text, *next; ok && line < end; line = next, ++lineno) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        next = nl ? nl + 1 : end;
        const char *name;
        size_t nlen = include_name(line, next, &name);
        if (!nlen) {
            ok = sb_text_line(&ex->out, line, next);
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
        ok = mark_line(ex, lineno + 1, path);
    }
    free(src);
    if (!ok) ocr_errorf("out of host memory while reading %s", path);
    return ok;
}

/* --- what the compiler sees: no #include reaches it (ocr_source_scan.c) --- */

/* 1 if the compiler would read no file of its own in ex->out, else 0 with a
 * message naming the file and line (from the host's #line marks) and the
 * directive as the compiler reads it. */
static int compiler_reads_nothing(const expansion *ex) {
    char text[81];
    size_t o = 0, m = 0, line = 1, start = 0;
    int found =
        ocr_source_find_include(ex->out.s ? ex->out.s : "", ex->out.len, &o, text, sizeof text);
    if (found < 0) ocr_errorf("out of host memory");
    if (found <= 0 || !ex->nmarks) return found == 0;
    /* before the first mark: the oclgrind mirror of the top file, line for line */
    for (size_t i = 0; i < ex->nmarks && ex->marks[i].at <= o; ++i)
        m = i, start = ex->marks[i].at, line = (size_t)ex->marks[i].line;
    for (size_t i = start; i < o; ++i)
        line += ex->out.s[i] == '\n';
    ocr_errorf("%s:%zu: `%s`: an include the compiler would resolve itself (a macro name, <...>, "
               "__has_include, or a directive split by a backslash-newline or a comment, or "
               "spelled %%: or ?\?=); a kernel file may include only with #include \"name\" on a "
               "line of its own, which the host reads",
               ex->marks[m].path, line, text);
    return 0;
}

/* --- source: find the file and expand its includes ------------------------ */

/* Sets k->path and returns the expanded source in *src (the caller frees
 * src->s, also on failure). Includes come from beside the file, then from the
 * root of its kernel directory (for lab/), then from the standard kernel
 * directory, so a student's kernel or a --kernel-dir of a few files can use
 * reduce_common.h without a copy. */
ocr_status ocr_source_load(const ocr_device *dev, const ocr_build_request *rq, int embedded,
                           ocr_kernel *k, ocr_strbuf *src) {
    ocr_status st = OCR_OK;
    const ocr_kernel_spec *sp = &rq->spec;
    expansion ex = {{NULL, 0, 0}, NULL, 0, 0, embedded, NULL, NULL, 0, 0};
    char *inc_dirs[2] = {NULL, NULL};
    int n_inc = 0;
    if (embedded) {
        k->path = malloc(strlen(EMBEDDED) + strlen(sp->file) + 2);
        if (k->path) sprintf(k->path, "%s/%s", EMBEDDED, sp->file);
    } else if (rq->kernel_file) {
        k->path = strdup(rq->kernel_file);
        char *slash = k->path ? strrchr(k->path, '/') : NULL,
             *dir = k->path ? strdup(k->path) : NULL;
        if (dir) dir[slash ? (size_t)(slash - k->path) + (slash == k->path) : 0] = '\0';
        if (sp->caps & OCR_KERNEL_CONFINED)
            ex.confine = dir ? realpath(dir[0] ? dir : ".", NULL) : NULL;
        free(dir);
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
    if (!expand(&ex, k->path, 0) || !compiler_reads_nothing(&ex)) st = OCR_IO;
done:
    *src = ex.out;
    for (size_t i = 0; i < ex.nmarks; ++i)
        free(ex.marks[i].path);
    free(ex.marks);
    free(ex.confine);
    free(inc_dirs[0]);
    free(inc_dirs[1]);
    return st;
}
