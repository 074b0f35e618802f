/* cli.c - the options table, the parser it drives and the --help it prints. */
#include "cli.h"

#include <errno.h>
#include <string.h>

enum {
    O_KERNEL,
    O_SIZE,
    O_M,
    O_REPEAT,
    O_SEED,
    O_TYPE,
    O_OP,
    O_LOCAL,
    O_GROUPS,
    O_PLATFORM,
    O_DEVICE,
    O_DEVTYPE,
    O_HOSTMEM,
    O_CPU,
    O_FORMAT,
    O_ACCESS,
    O_KDIR,
    O_KFILE,
    O_KNAME,
    O_EPG,
    O_BUILDOPT,
    O_DATA,
    O_LIST,
    O_LISTK,
    O_EXPLAIN,
    O_PASSES,
    O_RESOURCES,
    O_PEAK,
    O_GRADE,
    O_TIMEOUT,
    O_HELP,
    O_VERSION
};

typedef struct {
    int id;
    char short_name; /* 0: long form only */
    const char *long_name;
    const char *arg; /* NULL: a flag */
    const char *help;
} option_def;

static const option_def options[] = {
    {O_KERNEL, 'n', "kernel", "K", "kernel: 0..7 or a name (reduce6, race_tail); default 6"},
    {O_SIZE, 's', "size", "N", "number of elements, K/M/G suffixes allowed; default 32M (2^25)"},
    {O_M, 'M', "threshold", "M",
     "finish on the CPU once at most M values remain; default per kernel"},
    {O_REPEAT, 'r', "repeat", "R", "timed runs after one warm-up (median reported); default 10"},
    {O_SEED, 0, "seed", "S", "seed of the input data; default 1"},
    {O_TYPE, 0, "type", "T", "element type: int uint long ulong float double; default int"},
    {O_OP, 0, "op", "O", "operator: sum prod min max and or xor; default sum"},
    {O_LOCAL, 'w', "local-size", "L", "work-group size, where the kernel allows one"},
    {O_GROUPS, 'g', "groups", "G", "work-groups per launch (reduce7); default from the device"},
    {O_PLATFORM, 'p', "platform", "P", "platform index (see --list)"},
    {O_DEVICE, 'd', "device", "D", "device index (within -p, else among all devices), or all"},
    {O_DEVTYPE, 't', "device-type", "T", "gpu, cpu, accelerator or all; default: a GPU if any"},
    {O_ACCESS, 0, "access", "A", "reduce7's loads: strided (GPUs), blocked (CPUs) or auto"},
    {O_HOSTMEM, 0, "host-mem", "H",
     "pageable, pinned or zero-copy; default: zero-copy where the "
     "device shares host memory, else pinned"},
    {O_CPU, 0, "cpu-baseline", "B", "naive; best (also a multithreaded SIMD CPU reduction); none"},
    {O_FORMAT, 0, "format", "F", "report as text, csv (header + one row) or json; default text"},
    {O_KDIR, 0, "kernel-dir", "DIR", "read the .cl files from DIR"},
    {O_KFILE, 0, "kernel-file", "FILE",
     "run your own kernel (with --kernel-name, --elems-per-group)"},
    {O_KNAME, 0, "kernel-name", "NAME", "kernel function in --kernel-file"},
    {O_EPG, 0, "elems-per-group", "E", "elements one work-group of --kernel-file reduces to one"},
    {O_BUILDOPT, 0, "build-options", "OPTS",
     "appended to the kernel's OpenCL build options (e.g. -cl-std=CL2.0)"},
    {O_DATA, 0, "data", "D",
     "exact (default: float sums exact in any order, checked bit for bit) or uniform"},
    {O_LIST, 'l', "list", NULL, "list platforms and devices, then exit"},
    {O_LISTK, 0, "list-kernels", NULL, "list the built-in kernels, then exit"},
    {O_EXPLAIN, 0, "explain", NULL, "print the pass plan and exit without running"},
    {O_PASSES, 0, "passes", NULL, "after the report, each launch's size, time, GB/s and gap"},
    {O_RESOURCES, 0, "resources", NULL,
     "after building, the kernel's resources and estimated occupancy"},
    {O_PEAK, 0, "peak", NULL, "also time a copy kernel: bandwidth as a % of the copy rate"},
    {O_GRADE, 0, "grade", NULL,
     "grade --kernel-file against a fixed matrix of cases (docs/labs/grading.md)"},
    {O_TIMEOUT, 0, "timeout", "S", "--grade: seconds one case may run; default 20"},
    {O_HELP, 'h', "help", NULL, "print this help, then exit"},
    {O_VERSION, 'V', "version", NULL, "print the version, then exit"},
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

/* The index of val in names, or -1. */
static int pick(const char *val, const char *const *names, int n) {
    for (int i = 0; i < n; ++i)
        if (!strcmp(val, names[i])) return i;
    return -1;
}

static ocr_status bad(const char *what, const char *opt, const char *val) {
    fprintf(stderr, "oclReduction: %s%s%s%s%s\nTry 'oclReduction --help'.\n", what, opt ? " " : "",
            opt ? opt : "", val ? ": " : "", val ? val : "");
    return OCR_USAGE;
}

/* Applies one option with its value (NULL for flags). */
static ocr_status apply(const option_def *d, const char *val, cli_options *o) {
    uint64_t v = 0;
    char name[40];
    snprintf(name, sizeof name, "--%s", d->long_name);
    /* Numeric options: parse once, with the option's range. */
    static const struct {
        int id;
        uint64_t min, max;
    } ranges[] = {
        {O_SIZE, 1, (uint64_t)1 << 40}, {O_M, 1, UINT64_MAX >> 8}, {O_REPEAT, 1, 100000},
        {O_SEED, 0, UINT64_MAX},        {O_LOCAL, 1, 1 << 16},     {O_GROUPS, 1, 1 << 24},
        {O_PLATFORM, 0, 1000},          {O_DEVICE, 0, 1000},       {O_EPG, 2, (uint64_t)1 << 30},
        {O_TIMEOUT, 1, 3600},
    };
    if (d->id == O_DEVICE && !strcmp(val, "all")) {
        o->all_devices = 1;
        return OCR_OK;
    }
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        if (ranges[i].id == d->id) {
            if (cli_parse_size(val, ranges[i].max, &v) != 0 || v < ranges[i].min) {
                char msg[96];
                snprintf(msg, sizeof msg, "invalid value for %s (expected %llu..%llu)", name,
                         (unsigned long long)ranges[i].min, (unsigned long long)ranges[i].max);
                return bad(msg, NULL, val);
            }
        }
    switch (d->id) {
    case O_KERNEL:
        o->kernel = val;
        break;
    case O_SIZE:
        o->size = v;
        break;
    case O_M:
        o->m = v;
        break;
    case O_REPEAT:
        o->repeats = (unsigned)v;
        break;
    case O_SEED:
        o->seed = v;
        break;
    case O_TYPE:
        if (ocr_type_from_name(val, &o->type) != 0)
            return bad("unknown type for --type (int uint long ulong float double)", NULL, val);
        break;
    case O_OP:
        if (ocr_op_from_name(val, &o->op) != 0)
            return bad("unknown operator for --op (sum prod min max and or xor)", NULL, val);
        break;
    case O_LOCAL:
        o->local_size = (size_t)v;
        break;
    case O_GROUPS:
        o->groups = (size_t)v;
        break;
    case O_PLATFORM:
        o->device.platform = (int)v;
        break;
    case O_DEVICE:
        o->device.device = (int)v;
        break;
    case O_DEVTYPE: {
        static const char *const n[] = {"gpu", "cpu", "accelerator", "all"};
        static const cl_device_type v[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU,
                                           CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL};
        int i = pick(val, n, 4);
        if (i < 0) return bad("unknown device type for -t (gpu cpu accelerator all)", NULL, val);
        o->device.type = v[i];
        o->device.type_given = 1;
        break;
    }
    case O_ACCESS: {
        static const char *const n[] = {"auto", "strided", "blocked"};
        if ((o->access = pick(val, n, 3)) < 0)
            return bad("unknown value for --access (auto strided blocked)", NULL, val);
        break;
    }
    case O_HOSTMEM:
        if (ocr_host_mem_from_name(val, &o->host_mem) != 0 || o->host_mem == OCR_HOST_AUTO)
            return bad("unknown value for --host-mem (pageable pinned zero-copy)", NULL, val);
        break;
    case O_CPU: { /* in ocr_cpu_baseline order */
        static const char *const n[] = {"naive", "best", "none"};
        int i = pick(val, n, 3);
        if (i < 0) return bad("unknown value for --cpu-baseline (naive best none)", NULL, val);
        o->cpu = (ocr_cpu_baseline)i;
        break;
    }
    case O_FORMAT: { /* in ocr_format order */
        static const char *const n[] = {"text", "csv", "json"};
        int i = pick(val, n, 3);
        if (i < 0) return bad("unknown value for --format (text csv json)", NULL, val);
        o->format = (ocr_format)i;
        break;
    }
    case O_KDIR:
        o->kernel_dir = val;
        break;
    case O_KFILE:
        o->kernel_file = val;
        break;
    case O_KNAME:
        o->kernel_name = val;
        break;
    case O_EPG:
        o->elems_per_group = v;
        break;
    case O_BUILDOPT: {
        size_t len = strlen(val);
        for (const char *c = val; *c; ++c)
            if (*c < 0x20 || *c > 0x7e)
                return bad("--build-options takes printable ASCII on one line", NULL, NULL);
        if (len == 0 || len > 512)
            return bad("--build-options needs 1 to 512 characters", NULL, NULL);
        o->build_options = val;
        break;
    }
    case O_DATA:
        if (ocr_data_kind_from_name(val, &o->data) != 0)
            return bad("unknown value for --data (exact uniform)", NULL, val);
        break;
    case O_LIST:
        o->list = 1;
        break;
    case O_LISTK:
        o->list_kernels = 1;
        break;
    case O_EXPLAIN:
        o->explain = 1;
        break;
    case O_PASSES:
        o->passes = 1;
        break;
    case O_RESOURCES:
        o->resources = 1;
        break;
    case O_PEAK:
        o->peak = 1;
        break;
    case O_GRADE:
        o->grade = 1;
        break;
    case O_TIMEOUT:
        o->timeout = (unsigned)v;
        break;
    case O_HELP:
        o->help = 1;
        break;
    case O_VERSION:
        o->version = 1;
        break;
    default:
        break;
    }
    return OCR_OK;
}

/* 1 if the option with this long name was given. */
static int given(const cli_options *o, const char *long_name) {
    const option_def *d = find_long(long_name, strlen(long_name));
    return d && (o->given >> (d - options) & 1);
}

/* Options that cannot take effect are refused rather than ignored: a student
 * who passes -g to reduce3 must not believe the groups changed. */
static ocr_status refuse_inapplicable(const cli_options *o) {
    char msg[160];
    if (!ocr_op_valid_for(o->op, o->type)) {
        snprintf(msg, sizeof msg, "--op %s needs an integer type, not %s", ocr_op_name(o->op),
                 ocr_type_name(o->type));
        return bad(msg, NULL, NULL);
    }
    if (o->kernel_file) {
        if (!o->kernel_name || !o->elems_per_group)
            return bad("--kernel-file needs --kernel-name and --elems-per-group", NULL, NULL);
        if (given(o, "kernel"))
            return bad("-n names a built-in kernel, so it cannot go with --kernel-file", NULL,
                       NULL);
        if (given(o, "kernel-dir"))
            return bad("--kernel-dir is for built-in kernels, not --kernel-file", NULL, NULL);
    } else {
        static const char *const file_only[] = {"kernel-name", "elems-per-group"};
        for (int i = 0; i < 2; ++i)
            if (given(o, file_only[i])) {
                snprintf(msg, sizeof msg, "--%s applies only with --kernel-file", file_only[i]);
                return bad(msg, NULL, NULL);
            }
    }
    if (o->grade && !o->kernel_file)
        return bad("--grade grades a --kernel-file (with --kernel-name, --elems-per-group)", NULL,
                   NULL);
    if (given(o, "timeout") && !o->grade)
        return bad("--timeout applies only with --grade", NULL, NULL);
    if (o->grade) { /* the grader chooses sizes, types, operators and M itself */
        static const char *const fixed[] = {"size",   "type",    "op",     "threshold",
                                            "repeat", "data",    "passes", "resources",
                                            "peak",   "explain", "seed"};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
            if (given(o, fixed[i])) {
                snprintf(msg, sizeof msg, "--%s cannot go with --grade: the matrix is fixed",
                         fixed[i]);
                return bad(msg, NULL, NULL);
            }
        if (o->all_devices) return bad("--grade runs on one device, not -d all", NULL, NULL);
    }
    if (o->all_devices && o->device.device >= 0)
        return bad("choose one of -d all and -d N", NULL, NULL);
    if (o->explain && o->format != OCR_FORMAT_TEXT)
        return bad("--explain prints text only; drop --format", NULL, NULL);
    if ((o->passes || o->resources || o->peak) && o->format != OCR_FORMAT_TEXT)
        return bad("--passes, --resources and --peak print text (JSON has runs[].pass_ms); drop "
                   "--format",
                   NULL, NULL);
    const ocr_kernel_spec *s = o->kernel_file ? NULL : ocr_kernel_find(o->kernel);
    if ((o->kernel_file || s) && (!s || s->kind != OCR_PER_GRID)) { /* unknown: main says */
        static const char *const grid_only[] = {"groups", "access"};
        for (int i = 0; i < 2; ++i)
            if (given(o, grid_only[i])) {
                snprintf(msg, sizeof msg, "--%s applies only to reduce7, not %s", grid_only[i],
                         o->kernel_file ? "a --kernel-file kernel"
                         : s            ? s->name
                                        : o->kernel);
                return bad(msg, NULL, NULL);
            }
    }
    return OCR_OK;
}

ocr_status cli_parse(int argc, char **argv, cli_options *o) {
    memset(o, 0, sizeof *o);
    o->kernel = "6";
    o->size = (uint64_t)1 << 25;
    o->repeats = 10;
    o->seed = 1;
    o->type = OCR_INT;
    o->op = OCR_SUM;
    o->device.platform = -1;
    o->device.device = -1;
    o->device.type = CL_DEVICE_TYPE_ALL;
    o->timeout = 20;

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
    return refuse_inapplicable(o);
}
