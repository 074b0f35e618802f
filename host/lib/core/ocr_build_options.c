/* ocr_build_options.c - the caller's extra build options, checked before any
 * compiler sees them. POCL 3.1's option parser crashes (SIGSEGV) on a -D or
 * -I with nothing after it, so a bad string must never reach clBuildProgram:
 * the CLI checks --build-options while parsing, and every build checks again
 * (ocr_kernel_build_ex), so library callers are covered too. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static const char spaces[] = " \t\n\v\f\r";

/* The names the kernels are built with: the host's -D options (type,
 * operator, identity, geometry, modes: ocr_program.c, ocr_segments.c) and
 * the macros and types of cl/ (reduce_common.h, reduce*.cl, segreduce.cl,
 * histogram.cl).
 * A caller's -D or -U of one would change what the library computes behind
 * its back (-DOCR_IDENTITY=5 made a sum wrong with OCR_OK), so each is
 * refused. "X*": every name that starts with X. The one list: the build
 * check, the CLI, the grader and Python all come here, and
 * tests/scripts/reserved_names_test.sh checks it against cl/. */
static const char *const reserved[] = {
    "OCR_*", "SEG_*",    "ACC_*",      "ACC",         "T",
    "UT",    "IN_T",     "V",          "VU",          "TL",
    "TV",    "PAIR",     "LOCAL_SIZE", "BLOCK",       "ELEMS_PER_GROUP",
    "VEC",   "UNROLL",   "LANES",      "ARG_LANES",   "FOLD",
    "LANE",  "LANE_KEY", "LOADV",      "TAKE",        "STEP",
    "VSIGN", "SEGS",     "SEGS_ARGS",  "KERNEL_NAME", "CASCADE",
    "RUN",   "RUNS",     "VMERGE",     "HIST_*",      "ocr_rk_*",
};

const char *ocr_build_reserved_name(size_t i) {
    return i < sizeof reserved / sizeof reserved[0] ? reserved[i] : NULL;
}

/* OpenCL C itself: a -D or -U of a keyword, a type or a built-in function
 * the kernels use rewrites the kernels (-Dfloat=int made a custom float sum
 * -3.6e24 with OCR_OK; -Dbarrier(x)=mem_fence(x) races on a GPU). Generous
 * on purpose: no kernel of a caller needs to redefine one. "X*": every name
 * that starts with X; a type name also with a vector width (float4). */
static const char *const opencl_names[] = {
    "kernel",
    "global",
    "local",
    "constant",
    "private",
    "generic",
    "read_only",
    "write_only",
    "read_write",
    "restrict",
    "inline",
    "static",
    "extern",
    "const",
    "volatile",
    "register",
    "auto",
    "signed",
    "unsigned",
    "void",
    "struct",
    "union",
    "enum",
    "typedef",
    "sizeof",
    "return",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "goto",
    "true",
    "false",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "event_t",
    "defined",
    "get_*",
    "barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "work_group_*",
    "sub_group_*",
    "atomic_*",
    "atom_*",
    "vload*",
    "vstore*",
    "convert_*",
    "as_*",
    "async_work_group_*",
    "wait_group_events",
    "prefetch",
    "printf",
    "min",
    "max",
    "fmin",
    "fmax",
    "fma",
    "mad",
    "mad24",
    "mul24",
    "mul_hi",
    "mad_hi",
    "mad_sat",
    "add_sat",
    "sub_sat",
    "hadd",
    "rhadd",
    "clamp",
    "select",
    "bitselect",
    "abs",
    "abs_diff",
    "fabs",
    "sqrt",
    "rsqrt",
    "ceil",
    "floor",
    "round",
    "trunc",
    "log2",
    "exp",
    "log",
    "pow",
    "isnan",
    "isinf",
    "isfinite",
    "isnormal",
    "signbit",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "isequal",
    "isnotequal",
    "upsample",
    "popcount",
    "rotate",
    "clz",
    "copysign",
    "nextafter",
    "__kernel",
    "__global",
    "__local",
    "__constant",
    "__private",
    "__generic",
    "__read_only",
    "__write_only",
    "__read_write",
    "__attribute__",
    "__restrict",
    "__inline",
    "CLK_*",
    "INFINITY",
    "NAN",
    "FLT_*",
    "DBL_*",
    "INT_*",
    "UINT_*",
    "LONG_*",
    "ULONG_*",
    "CHAR_*",
    "UCHAR_*",
    "SCHAR_*",
    "SHRT_*",
    "USHRT_*",
    "HALF_*",
    "MAXFLOAT",
    "HUGE_VALF",
    "HUGE_VAL",
};
static const char *const opencl_types[] = {"bool", "char", "uchar", "short", "ushort", "int",
                                           "uint", "long", "ulong", "half",  "float",  "double"};

/* The OpenCL C name (its list entry) that name[0..len) is, or NULL. */
static const char *opencl_entry(const char *name, size_t len) {
    static const char *const widths[] = {"", "2", "3", "4", "8", "16"};
    for (size_t i = 0; i < sizeof opencl_types / sizeof opencl_types[0]; ++i) {
        size_t tl = strlen(opencl_types[i]);
        for (size_t w = 0; len >= tl && w < sizeof widths / sizeof widths[0]; ++w)
            if (len == tl + strlen(widths[w]) && strncmp(name, opencl_types[i], tl) == 0 &&
                strncmp(name + tl, widths[w], len - tl) == 0)
                return opencl_types[i];
    }
    for (size_t i = 0; i < sizeof opencl_names / sizeof opencl_names[0]; ++i) {
        size_t rl = strlen(opencl_names[i]);
        if (opencl_names[i][rl - 1] == '*'
                ? len >= rl - 1 && strncmp(name, opencl_names[i], rl - 1) == 0
                : len == rl && strncmp(name, opencl_names[i], rl) == 0)
            return opencl_names[i];
    }
    return NULL;
}

/* The reserved entry that the macro name[0..len) is, or NULL. */
static const char *reserved_entry(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; ++i) {
        size_t rl = strlen(reserved[i]);
        if (reserved[i][rl - 1] == '*' ? len >= rl - 1 && strncmp(name, reserved[i], rl - 1) == 0
                                       : len == rl && strncmp(name, reserved[i], rl) == 0)
            return reserved[i];
    }
    return NULL;
}

/* The options that take an argument, attached (-DNAME) or as the next word;
 * clang's long spellings of -D and -U too. */
static const struct {
    const char *flag;
    const char *needs; /* what the argument is, for the message */
    int macro;         /* 1: the argument is a macro name (before any '=') */
} with_argument[] = {
    {"--define-macro", "a macro name", 1},
    {"--undefine-macro", "a macro name", 1},
    {"-D", "a macro name (-D NAME, -DNAME or -DNAME=VALUE)", 1},
    {"-U", "a macro name (-U NAME or -UNAME)", 1},
    {"-I", "a directory (-I DIR or -IDIR)", 0},
};

static int starts_identifier(const char *s) {
    return *s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
}

/* The next word from *p into w, as a shell would split it: quotes ('...',
 * "...") removed, a backslash keeping the next character (outside '...');
 * 0 when none is left. */
static int next_word(const char **p, char *w) {
    const char *s = *p + strspn(*p, spaces);
    char q = 0;
    if (!*s) return 0;
    while (*s && (q || !strchr(spaces, *s))) {
        if (q ? *s == q : *s == '"' || *s == '\'') {
            q = q ? 0 : *s++;
            continue;
        }
        if (*s == '\\' && q != '\'' && s[1]) ++s;
        *w++ = *s++;
    }
    *w = '\0';
    *p = s;
    return 1;
}

/* Options that read a file into the build ahead of the kernel, where it could
 * define the kernels' own names past the check above. */
static const char *const prefix_files[] = {"-include", "-imacros", "--include", "--imacros"};

/* One word w (and for a bare flag, the next from *p, into arg). */
static ocr_status check_word(const char *options, const char *w, const char **p, char *arg) {
    for (size_t i = 0; i < sizeof prefix_files / sizeof prefix_files[0]; ++i)
        if (strncmp(w, prefix_files[i], strlen(prefix_files[i])) == 0) {
            ocr_errorf("build options \"%s\": %s is refused: a file read ahead of the kernel "
                       "could define the names the library builds it with",
                       options, prefix_files[i]);
            return OCR_USAGE;
        }
    for (size_t i = 0; i < sizeof with_argument / sizeof with_argument[0]; ++i) {
        const char *f = with_argument[i].flag;
        size_t fl = strlen(f);
        if (strncmp(w, f, fl) != 0) continue;
        const char *a = w + fl; /* attached (--define-macro=NAME), else the next word */
        if (fl > 2 && *a == '=')
            ++a;
        else if (fl > 2 && *a)
            continue; /* another long option */
        if (!*a) a = next_word(p, arg) ? arg : "";
        if (!*a || *a == '-' || (with_argument[i].macro && !starts_identifier(a))) {
            ocr_errorf("build options \"%s\": %s needs %s", options, f, with_argument[i].needs);
            return OCR_USAGE;
        }
        /* the name: its identifier characters (T(x)=x and T\=1 name T) */
        size_t len = strspn(a, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
        const char *r = with_argument[i].macro ? reserved_entry(a, len) : NULL;
        if (r) {
            ocr_errorf("build options \"%s\": %s %.*s: the kernels are built with that name "
                       "(%s), which the library sets itself",
                       options, f, (int)len, a, r);
            return OCR_USAGE;
        }
        if (with_argument[i].macro && (r = opencl_entry(a, len)) != NULL) {
            ocr_errorf("build options \"%s\": %s %.*s: that is an OpenCL C keyword, type or "
                       "built-in function (%s) the library's kernels use",
                       options, f, (int)len, a, r);
            return OCR_USAGE;
        }
        return OCR_OK;
    }
    return OCR_OK;
}

ocr_status ocr_build_options_check(const char *options) {
    const char *p = options ? options : "";
    ocr_status st = OCR_OK;
    char *w = malloc(2 * strlen(p) + 2), *arg = w ? w + strlen(p) + 1 : NULL;
    if (!w) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    while (st == OCR_OK && next_word(&p, w))
        st = check_word(options, w, &p, arg);
    free(w);
    return st;
}

/* An accurate sum's TwoSum recovers each addition's rounding error from
 * (s - (t - z)) + (x - z), which is 0 to a compiler allowed to reassociate. */
ocr_status ocr_build_options_check_accurate(const char *options) {
    static const char *const reassociating[] = {"-cl-fast-relaxed-math",
                                                "-cl-unsafe-math-optimizations"};
    for (size_t i = 0; i < sizeof reassociating / sizeof reassociating[0]; ++i)
        if (options && strstr(options, reassociating[i])) {
            ocr_errorf("build options \"%s\": %s lets the compiler reassociate float additions, "
                       "which undoes an accurate sum's compensation",
                       options, reassociating[i]);
            return OCR_USAGE;
        }
    return OCR_OK;
}
