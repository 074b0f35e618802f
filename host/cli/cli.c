/* cli.c - the options table, the parser it drives and the --help it prints. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How an option's value is stored. Every row of the table says where
 * (offsetof into cli_options), as what, and within which range. */
typedef enum {
    T_FLAG,   /* int = 1 */
    T_STR,    /* const char * = the argument */
    T_U64,    /* uint64_t, K/M/G suffixes, within [min, max] */
    T_UINT,   /* unsigned, likewise */
    T_SIZE,   /* size_t, likewise */
    T_INT,    /* int, likewise */
    T_CHOICE, /* int-sized enum = index of the argument in choices[] */
    T_CUSTOM, /* parse() does it */
} opt_type;

typedef struct option_def option_def;
struct option_def {
    char short_name; /* 0: long form only */
    const char *long_name;
    const char *arg; /* NULL: a flag */
    const char *help;
    opt_type type;
    size_t off;
    uint64_t min, max;
    const char *const *choices; /* T_CHOICE, NULL-terminated */
    ocr_status (*parse)(const option_def *d, const char *val, cli_options *o);
};

static ocr_status bad(const char *what, const char *opt, const char *val);

/* "unknown WHAT for --OPT (a b c)", the names from the type and operator
 * tables (ocr_types.c). */
static ocr_status bad_name(const char *what, const char *opt, int count, const char *(*name)(int),
                           const char *val) {
    char msg[160];
    int n = snprintf(msg, sizeof msg, "unknown %s for --%s (", what, opt);
    for (int i = 0; i < count && n > 0 && n < (int)sizeof msg; ++i)
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", i ? " " : "", name(i));
    if (n > 0 && n < (int)sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, ")");
    return bad(msg, NULL, val);
}
static const char *type_name_at(int i) {
    return ocr_type_name((ocr_type)i);
}
static const char *op_name_at(int i) {
    return ocr_op_name((ocr_op)i);
}

static ocr_status parse_type(const option_def *d, const char *val, cli_options *o) {
    (void)d;
    return ocr_type_from_name(val, &o->type) == 0
               ? OCR_OK
               : bad_name("type", "type", OCR_NTYPES, type_name_at, val);
}
static ocr_status parse_op(const option_def *d, const char *val, cli_options *o) {
    (void)d;
    return ocr_op_from_name(val, &o->op) == 0
               ? OCR_OK
               : bad_name("operator", "op", OCR_NOPS, op_name_at, val);
}
/* --grade-types / --grade-ops: a comma list of names, as a bit set. */
static ocr_status parse_grade_list(const option_def *d, const char *val, cli_options *o) {
    int types = !strcmp(d->long_name, "grade-types");
    unsigned *set = types ? &o->grade_types : &o->grade_ops;
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", val);
    *set = 0;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        ocr_type t;
        ocr_op op;
        if (types && ocr_type_from_name(w, &t) == 0 && !ocr_type_is_storage(t))
            *set |= 1u << t;
        else if (!types && ocr_op_from_name(w, &op) == 0 && !ocr_op_is_arg(op))
            *set |= 1u << op;
        else
            return bad(types
                           ? "--grade-types takes int uint long ulong float double, comma-separated"
                           : "--grade-ops takes sum prod min max and or xor, comma-separated",
                       NULL, w);
    }
    return *set ? OCR_OK : bad("an empty list", NULL, val);
}
static ocr_status parse_data(const option_def *d, const char *val, cli_options *o) {
    (void)d;
    o->one_bin = !strcmp(val, "one-bin"); /* --histogram's: its own samples, one value */
    if (o->one_bin) {
        o->data = OCR_DATA_UNIFORM;
        return OCR_OK;
    }
    return ocr_data_kind_from_name(val, &o->data) == 0
               ? OCR_OK
               : bad("unknown value for --data (exact uniform one-sided max one-bin)", NULL, val);
}
/* --range LO,HI: two finite numbers, LO < HI (strtod's whole text each). */
static ocr_status parse_range(const option_def *d, const char *val, cli_options *o) {
    char *end = NULL;
    (void)d;
    errno = 0;
    double lo = strtod(val, &end);
    if (end == val || *end != ',' || errno) return bad("--range takes LO,HI", NULL, val);
    const char *hi_at = end + 1;
    double hi = strtod(hi_at, &end);
    if (end == hi_at || *end || errno || !isfinite(lo) || !isfinite(hi) || !(lo < hi))
        return bad("--range takes LO,HI: two finite numbers, LO < HI", NULL, val);
    o->range_lo = lo, o->range_hi = hi, o->range_given = 1;
    return OCR_OK;
}
static ocr_status parse_host_mem(const option_def *d, const char *val, cli_options *o) {
    (void)d; /* "auto" is the default, not a choice */
    if (ocr_host_mem_from_name(val, &o->host_mem) != 0 || o->host_mem == OCR_HOST_AUTO)
        return bad("unknown value for --host-mem (pageable pinned zero-copy)", NULL, val);
    return OCR_OK;
}
static ocr_status parse_device_type(const option_def *d, const char *val, cli_options *o) {
    static const char *const n[] = {"gpu", "cpu", "accelerator", "all"};
    static const cl_device_type t[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU,
                                       CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL};
    (void)d;
    for (int i = 0; i < 4; ++i)
        if (!strcmp(val, n[i])) {
            o->device.type = t[i];
            o->device.type_given = 1;
            return OCR_OK;
        }
    return bad("unknown device type for -t (gpu cpu accelerator all)", NULL, val);
}
static ocr_status parse_number(const option_def *d, const char *val, cli_options *o);
static ocr_status parse_device(const option_def *d, const char *val, cli_options *o) {
    if (!strcmp(val, "all")) {
        o->all_devices = 1;
        return OCR_OK;
    }
    return parse_number(d, val, o); /* an index, as a T_INT row */
}
static ocr_status parse_build_options(const option_def *d, const char *val, cli_options *o) {
    size_t len = strlen(val);
    (void)d;
    for (const char *c = val; *c; ++c)
        if (*c < 0x20 || *c > 0x7e)
            return bad("--build-options takes printable ASCII on one line", NULL, NULL);
    if (len == 0 || len > 512) return bad("--build-options needs 1 to 512 characters", NULL, NULL);
    if (ocr_build_options_check(val) != OCR_OK) { /* the library's message said why */
        fprintf(stderr, "Try 'oclReduction --help'.\n");
        return OCR_USAGE;
    }
    o->build_options = val;
    return OCR_OK;
}

const char *cli_split_pair(const char *p, int *plat, int *dev) {
    int v[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        const char *start = p;
        for (; *p >= '0' && *p <= '9' && p - start < 3; ++p)
            v[k] = v[k] * 10 + (*p - '0');
        if (p == start || (k == 0 && *p++ != '.')) return NULL;
    }
    if ((*p != ',' && *p != '\0') || (*p == ',' && !p[1])) return NULL;
    *plat = v[0], *dev = v[1];
    return *p ? p + 1 : p;
}

/* "all", or platform.device pairs separated by commas; main enumerates. */
static ocr_status parse_split(const option_def *d, const char *val, cli_options *o) {
    (void)d;
    if (strcmp(val, "all") != 0) {
        const char *p = val;
        int pairs = 0, a, b;
        do {
            if (!(p = cli_split_pair(p, &a, &b)))
                return bad("--split takes all or platform.device pairs such as 0.0,0.1", NULL, val);
            ++pairs;
        } while (*p);
        if (pairs > OCR_SPLIT_MAX) return bad("--split: too many devices", NULL, val);
    }
    o->split = val;
    return OCR_OK;
}
static ocr_status parse_shares(const option_def *d, const char *val, cli_options *o) {
    (void)d;
    return ocr_shares_from_name(val, &o->shares) == 0
               ? OCR_OK
               : bad("unknown value for --split-shares (equal rate)", NULL, val);
}

static const char *const access_names[] = {"auto", "strided", "blocked", NULL};
static const char *const cpu_names[] = {"naive", "best", "none", NULL}; /* ocr_cpu_baseline */
static const char *const hist_method_names[] = {"auto", "global", "local", "aggregate",
                                                NULL};                   /* ocr_histogram_method */
static const char *const format_names[] = {"text", "csv", "json", NULL}; /* ocr_format */

/* T_CHOICE and T_FLAG store an int: the enums they fill must be int-sized. */
_Static_assert(sizeof(ocr_format) == sizeof(int) && sizeof(ocr_cpu_baseline) == sizeof(int),
               "enums filled by T_CHOICE rows must be int-sized");

#define F(field) offsetof(cli_options, field)
/* The row forms, each (short name, long name, [argument,] ..., help). */
#define ROW(sh, ln, ar, hp) .short_name = sh, .long_name = ln, .arg = ar, .help = hp
#define FLAG(sh, ln, fld, hp)                                                                      \
    { ROW(sh, ln, NULL, hp), .type = T_FLAG, .off = F(fld) }
#define STR(sh, ln, ar, fld, hp)                                                                   \
    { ROW(sh, ln, ar, hp), .type = T_STR, .off = F(fld) }
#define NUM(sh, ln, ar, ty, fld, lo, hi, hp)                                                       \
    { ROW(sh, ln, ar, hp), .type = ty, .off = F(fld), .min = lo, .max = hi }
#define CHOICE(sh, ln, ar, fld, names, hp)                                                         \
    { ROW(sh, ln, ar, hp), .type = T_CHOICE, .off = F(fld), .choices = names }
#define CUSTOM(sh, ln, ar, fn, hp)                                                                 \
    { ROW(sh, ln, ar, hp), .type = T_CUSTOM, .parse = fn }

static const option_def options[] = {
    STR('n', "kernel", "K", kernel, "kernel: 0..7 or a name (reduce6, race_tail); default 6"),
    NUM('s', "size", "N", T_U64, size, 1, (uint64_t)1 << 40,
        "number of elements, K/M/G suffixes allowed; default 32M (2^25)"),
    NUM('M', "threshold", "M", T_U64, m, 1, UINT64_MAX >> 8,
        "finish on the CPU once at most M values remain; default per kernel"),
    NUM('r', "repeat", "R", T_UINT, repeats, 1, 100000,
        "timed runs after one warm-up (median reported); default 10"),
    NUM(0, "seed", "S", T_U64, seed, 0, UINT64_MAX, "seed of the input data; default 1"),
    CUSTOM(0, "type", "T", parse_type,
           "element type: int uint long ulong float double char uchar short ushort half; "
           "default int (the last five are read as such and combined in long, ulong or float)"),
    CUSTOM(0, "op", "O", parse_op,
           "operator: sum prod min max and or xor argmin argmax; default sum"),
    NUM('w', "local-size", "L", T_SIZE, local_size, 1, OCR_MAX_LOCAL_SIZE,
        "work-group size, where the kernel allows one"),
    NUM('g', "groups", "G", T_SIZE, groups, 1, OCR_MAX_GROUPS,
        "work-groups per launch (reduce7, or a --histogram --kernel-file's one launch); default "
        "from the device"),
    NUM('p', "platform", "P", T_INT, device.platform, 0, 1000, "platform index (see --list)"),
    {ROW('d', "device", "D", "device index (within -p, else among all devices), or all"),
     .type = T_INT, .off = F(device.device), .min = 0, .max = 1000, .parse = parse_device},
    CUSTOM('t', "device-type", "T", parse_device_type,
           "gpu, cpu, accelerator or all; default: a GPU if any"),
    CHOICE(0, "access", "A", access, access_names,
           "reduce7's loads: strided (GPUs), blocked (CPUs) or auto"),
    CUSTOM(0, "host-mem", "H", parse_host_mem,
           "pageable, pinned or zero-copy; default: zero-copy where the device shares host "
           "memory, else pinned"),
    CHOICE(0, "cpu-baseline", "B", cpu, cpu_names,
           "naive; best (also a multithreaded SIMD CPU reduction); none"),
    CHOICE(0, "format", "F", format, format_names,
           "report as text, csv (header + one row) or json; default text"),
    STR(0, "kernel-dir", "DIR", kernel_dir, "read the .cl files from DIR"),
    STR(0, "kernel-file", "FILE", kernel_file,
        "run your own kernel (with --kernel-name, --elems-per-group); with --histogram, your "
        "histogram kernel (--kernel-name; docs/labs/lab9-histogram.md)"),
    STR(0, "kernel-name", "NAME", kernel_name, "kernel function in --kernel-file"),
    NUM(0, "elems-per-group", "E", T_U64, elems_per_group, 2, (uint64_t)1 << 30,
        "elements one work-group of --kernel-file reduces to one"),
    CUSTOM(0, "build-options", "OPTS", parse_build_options,
           "appended to the kernel's OpenCL build options (e.g. -cl-std=CL2.0)"),
    FLAG(0, "accurate", accurate,
         "compensated float/double sum within 1 ulp of the exact sum, checked to 1 ulp (-n 7)"),
    CUSTOM(0, "data", "D", parse_data,
           "exact (default: float sums exact in any order, checked bit for bit), uniform, or "
           "one-sided (losses cannot cancel: a --kernel-file run's second data set), or max "
           "(every element the integer type's largest: --type char -s 16M sums to 2130706432; "
           "with --accurate, the float type's largest in signs + + - -: partial sums overflow, "
           "the sum is 0, the largest or inf by n mod 4); --histogram: uniform (default) or "
           "one-bin (every sample one value)"),
    FLAG('l', "list", list, "list platforms and devices, then exit"),
    FLAG(0, "list-kernels", list_kernels,
         "list the built-in kernels, one a line: name, file, summary; then exit"),
    FLAG(0, "explain", explain, "print the pass plan and exit without running"),
    FLAG(0, "passes", passes, "after the report, each launch's size, time, GB/s and gap"),
    FLAG(0, "resources", resources,
         "after building, the kernel's resources and estimated occupancy"),
    FLAG(0, "peak", peak, "also time a copy kernel: bandwidth as a % of the copy rate"),
    FLAG(0, "grade", grade,
         "grade --kernel-file against a fixed matrix of cases (docs/labs/grading.md)"),
    NUM(0, "timeout", "S", T_UINT, timeout, 1, 3600,
        "seconds the run may take, then it is abandoned (exit 3); --grade: a case's least "
        "limit, default 20"),
    NUM(0, "grade-seed", "S", T_U64, grade_seed, 0, UINT64_MAX,
        "--grade: the seed of the unpublished sizes; default drawn fresh and printed"),
    NUM(0, "grade-memory", "MIB", T_UINT, grade_memory, 0, 1u << 20,
        "--grade: MiB of address space each grading child may use (0: no limit), default 4096"),
    NUM(0, "grade-cpu", "S", T_UINT, grade_cpu, 0, 86400,
        "--grade: seconds of CPU time each grading child may use (0: no limit), default 600"),
    NUM(0, "grade-output", "MIB", T_UINT, grade_output, 0, 1u << 20,
        "--grade: MiB a graded case may print (0: no limit), default 64"),
    FLAG(0, "quick", quick,
         "--grade: a self-check in seconds, the cases most likely to fail; not a grade "
         "(docs/labs/grading.md)"),
    FLAG(0, "grade-profile", grade_profile,
         "--grade: where the time went (reference, builds, cases, race checks), on stderr"),
    CUSTOM(0, "grade-types", "LIST", parse_grade_list,
           "--grade: grade only these types (default int,uint,long,ulong,float,double)"),
    CUSTOM(0, "grade-ops", "LIST", parse_grade_list,
           "--grade: grade only these operators (default sum,prod,min,max,and,or,xor)"),
    FLAG(0, "race-check", race_check,
         "run under oclgrind: exit 1 and 'Race check: RACE' on a race (a --grade race replay; "
         "also a --histogram --kernel-file)"),
    FLAG(0, "list-cases", list_cases,
         "--grade: print the graded (type, operator) pairs, then exit (no --kernel-file needed)"),
    FLAG(0, "tune", tune,
         "sweep reduce7's geometry on this device and cache the fastest (docs/tuning.md)"),
    NUM(0, "tune-budget", "S", T_UINT, tune_budget, 1, 3600,
        "--tune: seconds to spend; default 60"),
    CUSTOM(0, "split", "LIST", parse_split,
           "reduce one input over several devices at once: all (GPUs if any), or P.D,P.D,..."),
    CUSTOM(0, "split-shares", "S", parse_shares,
           "--split: equal (default) or rate (proportional to a probe run's GB/s)"),
    FLAG(0, "mpi", mpi,
         "under mpirun: each rank reduces its share, then MPI_Reduce (-DOCR_MPI=ON)"),
    FLAG(0, "stream", stream,
         "reduce7 in chunks through two device buffers, upload overlapping reduction; also "
         "automatic for -n 7 beyond one buffer (docs/streaming.md)"),
    NUM(0, "chunk", "N", T_U64, chunk, 1, (uint64_t)1 << 40,
        "--stream: elements per chunk; default a quarter of the device's max allocation, at "
        "most 256 MiB"),
    NUM(0, "segments", "K", T_UINT, segments, 1, 1u << 30,
        "reduce -s N elements as K segments of seeded random lengths in one call "
        "(ocr_reducer_reduce_segments), each checked"),
    NUM(0, "histogram", "BINS", T_U64, histogram, 1, (uint64_t)1 << 31,
        "a histogram of -s N seeded samples of --type into BINS even bins over --range "
        "(ocr_reducer_histogram), checked bit for bit against a CPU loop"),
    CUSTOM(0, "range", "LO,HI", parse_range,
           "--histogram: the bins' range, [LO, HI] (HI in the last bin); default [0, 256] for "
           "uchar and char, [0, BINS] for the other integers, [0, 1] for floats"),
    CHOICE(0, "hist-method", "M", hist_method, hist_method_names,
           "--histogram: auto (default), global (one global atomic a sample), local (counts "
           "in local memory), aggregate (local, and runs of one bin counted once)"),
    STR(0, "preset", "NAME", preset,
        "a custom reduction of the generated float data (--type double too): dot (x . y, y "
        "from another seed stream), nrm2, asum or stats (count, mean, variance), checked "
        "within a bound from the kernel's order of operations, on two data sets"),
    STR(0, "map", "EXPR", map,
        "a custom reduction: OpenCL C of i, x[] and y[] (the generated data of --type), e.g. "
        "'x[i] * y[i]'; with --reduce and --neutral; checked against one work-item's sequential "
        "run (docs/library.md)"),
    STR(0, "reduce", "EXPR", reduce, "--map: combines a and b, e.g. 'a + b' or 'max(a, b)'"),
    STR(0, "neutral", "V", neutral, "--map: the value of an empty input, e.g. 0"),
    FLAG('h', "help", help, "print this help, then exit"),
    FLAG('V', "version", version, "print the version, then exit"),
};
#define NOPTIONS (sizeof options / sizeof options[0])

void cli_help(FILE *f) {
    fprintf(f, "Usage: oclReduction [options]\n"
               "Reduces N values on an OpenCL device with one of the kernels reduce0..reduce7,\n"
               "checks the result against the CPU and reports kernel, GPU and CPU times.\n\n"
               "Options:\n");
    for (size_t i = 0; i < NOPTIONS; ++i) {
        const option_def *d = &options[i];
        char left[64];
        int n = d->short_name ? snprintf(left, sizeof left, "-%c, ", d->short_name)
                              : snprintf(left, sizeof left, "    ");
        snprintf(left + n, sizeof left - (size_t)n, "--%s%s%s", d->long_name, d->arg ? " " : "",
                 d->arg ? d->arg : "");
        fprintf(f, "  %-26s %s\n", left, d->help);
    }
    fprintf(f, "\nKernels are read at run time from --kernel-dir, $OCLREDUCTION_KERNEL_DIR, the\n"
               "source tree (for a binary in the build tree) or the installed data directory.\n"
               "Exit status: 0 PASSED, 1 wrong result, 2 usage error, 3 OpenCL/runtime error.\n");
}

/* The one mapping from the library's statuses to exit codes; every status
 * not listed is a runtime failure. */
static const struct {
    ocr_status st;
    int code;
} exit_codes[] = {
    {.st = OCR_OK, .code = 0}, {.st = OCR_WRONG, .code = 1}, {.st = OCR_USAGE, .code = 2}};

int cli_exit_code(ocr_status st) {
    for (size_t i = 0; i < sizeof exit_codes / sizeof exit_codes[0]; ++i)
        if (exit_codes[i].st == st) return exit_codes[i].code;
    return 3;
}

void cli_print_message(void *user, const char *message) {
    (void)user;
    fprintf(stderr, "oclReduction: %s\n", message);
}

/* Readable and a regular file: a FIFO or a device would block the open or
 * never end (O_NONBLOCK: the open of a FIFO does not wait for a writer). */
ocr_status cli_check_kernel_file(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat sb;
    if (fd < 0) {
        fprintf(stderr, "oclReduction: cannot open kernel file %s: %s\n", path, strerror(errno));
        return OCR_RUNTIME;
    }
    int regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    close(fd);
    if (!regular) {
        fprintf(stderr, "oclReduction: kernel file %s is not a regular file\n", path);
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

int cli_parse_size(const char *s, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return -1; /* no sign, no space, not empty */
    for (; *p >= '0' && *p <= '9'; ++p) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k':
    case 'K':
        shift = 10, ++p;
        break;
    case 'm':
    case 'M':
        shift = 20, ++p;
        break;
    case 'g':
    case 'G':
        shift = 30, ++p;
        break;
    default:
        break;
    }
    if (*p != '\0') return -1;
    if (shift && v > (UINT64_MAX >> shift)) return -1;
    v <<= shift;
    if (v > max) return -1;
    *out = v;
    return 0;
}

static const option_def *find_long(const char *name, size_t len) {
    for (size_t i = 0; i < NOPTIONS; ++i)
        if (strlen(options[i].long_name) == len && strncmp(options[i].long_name, name, len) == 0)
            return &options[i];
    return NULL;
}

static const option_def *find_short(char c) {
    for (size_t i = 0; i < NOPTIONS; ++i)
        if (options[i].short_name == c) return &options[i];
    return NULL;
}

static ocr_status bad(const char *what, const char *opt, const char *val) {
    fprintf(stderr, "oclReduction: %s%s%s%s%s\nTry 'oclReduction --help'.\n", what, opt ? " " : "",
            opt ? opt : "", val ? ": " : "", val ? val : "");
    return OCR_USAGE;
}

/* A number within the row's range, stored as the row's type. */
static ocr_status parse_number(const option_def *d, const char *val, cli_options *o) {
    uint64_t v = 0;
    if (cli_parse_size(val, d->max, &v) != 0 || v < d->min) {
        char msg[96];
        snprintf(msg, sizeof msg, "invalid value for --%s (expected %llu..%llu)", d->long_name,
                 (unsigned long long)d->min, (unsigned long long)d->max);
        return bad(msg, NULL, val);
    }
    void *dst = (char *)o + d->off;
    switch (d->type) {
    case T_U64:
        *(uint64_t *)dst = v;
        break;
    case T_UINT:
        *(unsigned *)dst = (unsigned)v;
        break;
    case T_SIZE:
        *(size_t *)dst = (size_t)v;
        break;
    default: /* T_INT: ranges fit an int */
        *(int *)dst = (int)v;
        break;
    }
    return OCR_OK;
}

/* Applies one option with its value (NULL for flags), as its row says. */
static ocr_status apply(const option_def *d, const char *val, cli_options *o) {
    void *dst = (char *)o + d->off;
    if (d->parse) return d->parse(d, val, o);
    switch (d->type) {
    case T_FLAG:
        *(int *)dst = 1;
        return OCR_OK;
    case T_STR:
        *(const char **)dst = val;
        return OCR_OK;
    case T_CHOICE:
        for (int i = 0; d->choices[i]; ++i)
            if (!strcmp(val, d->choices[i])) {
                *(int *)dst = i;
                return OCR_OK;
            }
        {
            char msg[128];
            int n = snprintf(msg, sizeof msg, "unknown value for --%s (", d->long_name);
            for (int i = 0; d->choices[i] && n < (int)sizeof msg; ++i)
                n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", i ? " " : "", d->choices[i]);
            if (n < (int)sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, ")");
            return bad(msg, NULL, val);
        }
    default:
        return parse_number(d, val, o);
    }
}

int cli_given(const cli_options *o, const char *long_name) {
    const option_def *d = find_long(long_name, strlen(long_name));
    return d && (o->given >> (d - options) & 1);
}

ocr_status cli_usage_error(const char *msg) {
    return bad(msg, NULL, NULL);
}

/* The kernel's own rules: the type and operator, and --kernel-file's
 * companions. */
static ocr_status refuse_kernel_choice(const cli_options *o) {
    char msg[160];
    if (!ocr_op_valid_for(o->op, o->type)) {
        snprintf(msg, sizeof msg, "--op %s needs an integer type, not %s", ocr_op_name(o->op),
                 ocr_type_name(o->type));
        return bad(msg, NULL, NULL);
    }
    if (o->one_bin && !o->histogram)
        return bad("--data one-bin is --histogram's (every sample in one bin)", NULL, NULL);
    if (o->data == OCR_DATA_MAX && ocr_type_is_float(o->type) && !o->accurate) {
        snprintf(msg, sizeof msg,
                 "--data max is for integer types, not %s (float and double: "
                 "with --accurate)",
                 ocr_type_name(o->type));
        return bad(msg, NULL, NULL);
    }
    if (o->accurate && (o->op != OCR_SUM || !ocr_type_is_float(o->type))) {
        snprintf(msg, sizeof msg, "--accurate is for float and double sums, not %s %s",
                 ocr_type_name(o->type), ocr_op_name(o->op));
        return bad(msg, NULL, NULL);
    }
    if (o->accurate && ocr_build_options_check_accurate(o->build_options) != OCR_OK) {
        fprintf(stderr, "Try 'oclReduction --help'.\n"); /* the library's message said why */
        return OCR_USAGE;
    }
    if (o->kernel_file) {
        /* a histogram kernel strides over the grid the host states: no block size */
        if (o->histogram && (!o->kernel_name || o->elems_per_group))
            return bad("--histogram --kernel-file needs --kernel-name (and no --elems-per-group: "
                       "the kernel strides over its grid)",
                       NULL, NULL);
        if (!o->kernel_name || (!o->elems_per_group && !o->histogram))
            return bad("--kernel-file needs --kernel-name and --elems-per-group", NULL, NULL);
        if (cli_given(o, "kernel"))
            return bad("-n names a built-in kernel, so it cannot go with --kernel-file", NULL,
                       NULL);
        unsigned loads = cli_ladder_loads(o->kernel_name);
        if (o->elems_per_group % loads) {
            char why[400];
            snprintf(why, sizeof why,
                     "--kernel-name %s: the ladder's %s reads %u x BLOCK elements per group, so "
                     "--elems-per-group must be a multiple of %u, not %llu (half a block would "
                     "read the next group's elements)",
                     o->kernel_name, o->kernel_name, loads, loads,
                     (unsigned long long)o->elems_per_group);
            return bad(why, NULL, NULL);
        }
        if (cli_given(o, "kernel-dir"))
            return bad("--kernel-dir is for built-in kernels, not --kernel-file", NULL, NULL);
    } else {
        static const char *const file_only[] = {"kernel-name", "elems-per-group"};
        for (int i = 0; i < 2; ++i)
            if (cli_given(o, file_only[i])) {
                snprintf(msg, sizeof msg, "--%s applies only with --kernel-file", file_only[i]);
                return bad(msg, NULL, NULL);
            }
    }
    return OCR_OK;
}

ocr_status cli_read_options(int argc, char **argv, cli_options *o) {
    memset(o, 0, sizeof *o);
    o->size = (uint64_t)1 << 25;
    o->repeats = 10;
    o->seed = 1;
    o->type = OCR_INT;
    o->op = OCR_SUM;
    o->device.platform = -1;
    o->device.device = -1;
    o->device.type = CL_DEVICE_TYPE_ALL;
    o->timeout = 20;
    o->grade_memory = 4096;
    o->grade_cpu = 600;
    o->grade_output = 64;
    o->tune_budget = 60;

    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = NULL;
        const option_def *d = NULL;
        if (a[0] == '-' && a[1] == '-' && a[2]) { /* --name or --name=value */
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (!(d = find_long(a + 2, len))) return bad("unknown option", a, NULL);
            if (eq && !d->arg) return bad("option takes no value:", a, NULL);
            val = eq ? eq + 1 : NULL;
        } else if (a[0] == '-' && a[1] && a[1] != '-') { /* -x or -xVALUE */
            if (!(d = find_short(a[1]))) return bad("unknown option", a, NULL);
            if (a[2]) val = d->arg ? a + 2 : NULL;
            if (a[2] && !d->arg) return bad("unknown option", a, NULL);
        } else {
            return bad("unexpected argument", a, NULL);
        }
        if (d->arg && !val) {
            if (i + 1 >= argc) return bad("missing value for", a, NULL);
            val = argv[++i];
        }
        ocr_status st = apply(d, val, o);
        if (st != OCR_OK) return st;
        o->given |= (uint64_t)1 << (d - options);
    }
    if (!o->kernel_file)
        o->spec = o->kernel   ? ocr_kernel_find(o->kernel)
                  : o->stream ? ocr_kernel_for(OCR_KERNEL_REDUCER) /* it streams through one */
                              : ocr_kernel_find(CLI_DEFAULT_KERNEL);
    /* --timeout outside --grade: the whole run's limit (host/cli/watchdog.c) */
    if (cli_given(o, "timeout") && !o->grade) o->run_timeout = o->timeout;
    o->grade_seed_given = cli_given(o, "grade-seed");
    return refuse_kernel_choice(o);
}
