/* modes.c - the mode table and the refusals it drives. */
#include "modes.h"

#include <stddef.h>
#include <string.h>

#define ON(field)  .flag = offsetof(cli_options, field)
#define ON_TEXT(f) .flag = offsetof(cli_options, f), .flag_is_text = 1
#define TEXT       (1u << OCR_FORMAT_TEXT)
#define CSV        (1u << OCR_FORMAT_CSV)
#define JSON       (1u << OCR_FORMAT_JSON)
#define ANY_FORMAT (TEXT | CSV | JSON)

/* The grader chooses sizes, types, operators and M itself. */
static const char *const grade_fixed[] = {
    "size",      "type", "op",      "threshold", "repeat",     "data", "passes",
    "resources", "peak", "explain", "accurate",  "race-check", NULL};
/* One run under oclgrind, judged: a plain run's options only. */
static const char *const race_one[] = {"tune", "split", "mpi", "stream", "segments", NULL};
static const char *const tune_chooses[] = {"local-size", "groups", "access",    "op",       "grade",
                                           "explain",    "format", "threshold", "accurate", NULL};
/* One report over several devices or ranks: no per-device extras (and the
 * accurate sum is one device's kernel, not the parts' combination). */
static const char *const one_report[] = {"grade", "tune",         "explain",  "passes", "resources",
                                         "peak",  "cpu-baseline", "accurate", NULL};
/* One streamed pass of reduce7 through pinned slots. */
static const char *const one_stream[] = {
    "grade",    "tune",   "explain",   "passes", "resources",    "peak",     "split", "mpi",
    "host-mem", "repeat", "threshold", "access", "cpu-baseline", "accurate", NULL};
/* The library's segmented reduction: its own kernels, one call per run. */
static const char *const one_segmented[] = {
    "grade", "tune",     "explain",      "passes",   "resources", "peak",   "split",
    "mpi",   "stream",   "threshold",    "groups",   "access",    "kernel", "kernel-file",
    "chunk", "host-mem", "cpu-baseline", "accurate", NULL};
/* A custom reduction (custom.c): the library's custom reducer, its own kernel. */
static const char *const one_custom[] = {
    "grade", "tune",     "explain",      "passes",    "resources", "peak",       "split",
    "mpi",   "stream",   "segments",     "threshold", "access",    "kernel",     "kernel-file",
    "chunk", "host-mem", "cpu-baseline", "accurate",  "op",        "race-check", NULL};
/* A histogram (histogram.c): the library's histogram call, its own kernels. */
static const char *const one_histogram[] = {
    "grade",    "tune",         "explain",  "passes",    "resources", "peak",   "split",
    "mpi",      "stream",       "segments", "threshold", "access",    "kernel", "chunk",
    "host-mem", "cpu-baseline", "accurate", "op",        "preset",    "map",    NULL};
/* A student's histogram kernel (--kernel-file) takes -g and --race-check;
 * the library's takes its methods. */
static const struct {
    const char *option;
    int with_file; /* 1: only with --kernel-file, 0: only without */
} histogram_file_rules[] = {{"groups", 1}, {"race-check", 1}, {"hist-method", 0}};

static ocr_status histogram_rule(const cli_options *o) {
    char msg[128];
    for (size_t i = 0; i < sizeof histogram_file_rules / sizeof histogram_file_rules[0]; ++i)
        if (cli_given(o, histogram_file_rules[i].option) &&
            (o->kernel_file != NULL) != histogram_file_rules[i].with_file) {
            snprintf(msg, sizeof msg, "--%s goes with --histogram %s --kernel-file",
                     histogram_file_rules[i].option,
                     histogram_file_rules[i].with_file ? "only with" : "but not with");
            return cli_usage_error(msg);
        }
    return OCR_OK;
}
static const char *const histogram_only[] = {"range", "hist-method", NULL};
static const char *const map_only[] = {"reduce", "neutral", NULL};
static const char *const grade_only[] = {
    "grade-seed", "grade-types", "grade-ops",    "list-cases",    "grade-memory",
    "grade-cpu",  "quick",       "grade-output", "grade-profile", NULL};
static const char *const tune_only[] = {"tune-budget", NULL};
static const char *const split_only[] = {"split-shares", NULL};
static const char *const stream_only[] = {"chunk", NULL};

/* --split's list names its devices: -p and -t would choose among all. */
static ocr_status split_list_rule(const cli_options *o) {
    if (strcmp(o->split, "all") != 0 && (cli_given(o, "platform") || cli_given(o, "device-type")))
        return cli_usage_error(
            "-p and -t choose among all devices: use them with --split all, not a list");
    return OCR_OK;
}

/* --grade grades a --kernel-file; --grade --list-cases only lists the matrix. */
static ocr_status grade_rule(const cli_options *o) {
    if (!o->kernel_file && !o->list_cases)
        return cli_usage_error(
            "--grade grades a --kernel-file (with --kernel-name, --elems-per-group)");
    return OCR_OK;
}

#define ARG_ONE_DEVICE "%s finds no argmin or argmax yet: run them on one device"

#define PASSES_TEXT                                                                                \
    "--passes, --resources and --peak print text (JSON has runs[].pass_ms); drop --format"

/* The rows in the order their refusals are checked (and the message a user
 * sees when several apply is the first's); runners are chosen in the same
 * order, the single run last. */
static const cli_mode modes[] = {
    {.name = "--grade",
     ON(grade),
     .only_with = grade_only,
     .rule = grade_rule,
     .forbids = grade_fixed,
     .forbids_why = ": the matrix is fixed",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = ANY_FORMAT,
     .run = cli_run_grade},
    {.name = "--tune",
     ON(tune),
     .only_with = tune_only,
     .needs = OCR_KERNEL_TUNABLE,
     .needs_msg = "--tune tunes reduce7 (the kernel with a free geometry)",
     .forbids = tune_chooses,
     .forbids_why = ": it is what --tune chooses",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s tunes one device, not -d all",
     .formats = ANY_FORMAT,
     .no_small = 1,
     .run = cli_run_tune},
    {.name = "-d all",
     ON(all_devices),
     .devices = CLI_REFUSES_INDEX,
     .devices_msg = "choose one of %s and -d N",
     .formats = ANY_FORMAT,
     .run = cli_run_all},
    {.name = "--split",
     ON_TEXT(split),
     .only_with = split_only,
     .excludes = "--mpi",
     .forbids = one_report,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL | CLI_REFUSES_INDEX,
     .devices_msg = "%s chooses the devices itself: drop -d",
     .rule = split_list_rule,
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .no_arg = ARG_ONE_DEVICE,
     .no_small = 1,
     .run = cli_run_split},
    {.name = "--mpi",
     ON(mpi),
     .forbids = one_report,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s chooses the devices itself: drop -d",
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .no_arg = ARG_ONE_DEVICE,
     .no_small = 1,
     .run = cli_run_mpi},
    {.name = "--stream",
     ON(stream),
     .only_with = stream_only,
     .needs = OCR_KERNEL_STREAMABLE,
     .needs_msg = "--stream streams through reduce7: use -n 7 (or no -n)",
     .forbids = one_stream,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .no_arg = ARG_ONE_DEVICE,
     .no_small = 1,
     .run = cli_run_stream},
    {.name = "--segments",
     ON(segments),
     .forbids = one_segmented,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .no_arg = "%s finds no argmin or argmax per segment yet",
     .no_small = 1,
     .run = cli_run_segments},
    {.name = "--histogram",
     ON(histogram),
     .only_with = histogram_only,
     .forbids = one_histogram,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = ANY_FORMAT,
     .rule = histogram_rule,
     .run = cli_run_histogram},
    {.name = "--preset",
     ON_TEXT(preset),
     .excludes = "--map",
     .forbids = one_custom,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .rule = cli_custom_rule,
     .run = cli_run_custom},
    {.name = "--map",
     ON_TEXT(map),
     .only_with = map_only,
     .forbids = one_custom,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = TEXT | JSON,
     .formats_msg = "%s reports text or json, not csv",
     .rule = cli_custom_rule,
     .run = cli_run_custom},
    {.name = "--race-check",
     ON(race_check),
     .forbids = race_one,
     .forbids_why = "",
     .devices = CLI_REFUSES_ALL,
     .devices_msg = "%s runs on one device, not -d all",
     .formats = TEXT,
     .formats_msg = "%s prints text only; drop --format",
     .run = cli_run_race_check},
    /* Modifiers of the single and -d all runs (run_on does them). */
    {.name = "--explain",
     ON(explain),
     .formats = TEXT,
     .formats_msg = "%s prints text only; drop --format"},
    {.name = "--passes", ON(passes), .formats = TEXT, .formats_msg = PASSES_TEXT},
    {.name = "--resources", ON(resources), .formats = TEXT, .formats_msg = PASSES_TEXT},
    {.name = "--peak", ON(peak), .formats = TEXT, .formats_msg = PASSES_TEXT},
    {.name = "single run", .flag = CLI_ALWAYS, .formats = ANY_FORMAT, .run = cli_run_single},
};
#define NMODES (sizeof modes / sizeof modes[0])

const cli_mode *cli_mode_find(const char *name) {
    for (size_t i = 0; i < NMODES; ++i)
        if (!strcmp(modes[i].name, name)) return &modes[i];
    return NULL;
}

/* Whether the options choose row m. */
static int chosen(const cli_mode *m, const cli_options *o) {
    if (m->flag == CLI_ALWAYS) return 1;
    const char *field = (const char *)o + m->flag;
    return m->flag_is_text ? *(const char *const *)field != NULL : *(const int *)field != 0;
}

const cli_mode *cli_mode_of(const cli_options *o) {
    for (size_t i = 0; i < NMODES; ++i)
        if (modes[i].run && chosen(&modes[i], o)) return &modes[i];
    return &modes[NMODES - 1];
}

const char *cli_mode_forbidden(const cli_mode *m, const cli_options *o) {
    for (size_t i = 0; m->forbids && m->forbids[i]; ++i)
        if (cli_given(o, m->forbids[i])) return m->forbids[i];
    return NULL;
}

/* A refusal naming the mode: fmt takes the row's name (and maybe an option). */
static ocr_status refuse(const char *fmt, const char *a, const char *b) {
    char msg[192];
    snprintf(msg, sizeof msg, fmt, a, b);
    return cli_usage_error(msg);
}

/* A kernel lacks the needed ability when it is a --kernel-file, or when -n
 * names one without it (no -n: the mode picks its own kernel). */
static int lacks(const cli_options *o, unsigned needs) {
    if (!needs) return 0;
    return o->kernel_file ||
           (cli_given(o, "kernel") && (!o->spec || (o->spec->caps & needs) != needs));
}

static ocr_status refuse_row(const cli_mode *m, const cli_options *o) {
    for (size_t i = 0; m->only_with && m->only_with[i]; ++i)
        if (cli_given(o, m->only_with[i]) && !chosen(m, o))
            return refuse("--%s applies only with %s", m->only_with[i], m->name);
    if (!chosen(m, o)) return OCR_OK;
    if (m->excludes && chosen(cli_mode_find(m->excludes), o))
        return refuse("choose one of %s and %s", m->name, m->excludes);
    if (lacks(o, m->needs)) return cli_usage_error(m->needs_msg);
    if (m->no_arg && ocr_op_is_arg(o->op)) return refuse(m->no_arg, m->name, NULL);
    if (m->no_small && ocr_type_is_storage(o->type))
        return refuse("%s reads no %s data yet (small types run as a single reduction)", m->name,
                      ocr_type_name(o->type));
    const char *f = cli_mode_forbidden(m, o);
    if (f) {
        char fmt[96];
        snprintf(fmt, sizeof fmt, "--%%s cannot go with %%s%s", m->forbids_why);
        return refuse(fmt, f, m->name);
    }
    if (((m->devices & CLI_REFUSES_ALL) && o->all_devices) ||
        ((m->devices & CLI_REFUSES_INDEX) && o->device.device >= 0))
        return refuse(m->devices_msg, m->name, NULL);
    ocr_status st = m->rule ? m->rule(o) : OCR_OK;
    if (st != OCR_OK) return st;
    if (!(m->formats & (1u << o->format))) return refuse(m->formats_msg, m->name, NULL);
    return OCR_OK;
}

/* Options that need an ability of the built-in kernel (the registry's caps). */
static const struct {
    const char *option;
    unsigned needs;
} option_needs[] = {{.option = "groups", .needs = OCR_KERNEL_FREE_GEOMETRY},
                    {.option = "access", .needs = OCR_KERNEL_FREE_GEOMETRY},
                    {.option = "accurate", .needs = OCR_KERNEL_ACCURATE}};

static ocr_status refuse_without_ability(const cli_options *o) {
    char msg[160];
    const ocr_kernel_spec *s = o->spec;
    if (!o->kernel_file && !s) return OCR_OK; /* an unknown kernel: the run says so */
    if (ocr_type_is_storage(o->type)) {       /* small types: what cannot be done with them */
        const char *ty = ocr_type_name(o->type);
        if (!s || !(s->caps & OCR_KERNEL_SMALL))
            snprintf(msg, sizeof msg,
                     "--type %s needs a kernel that converts it as it loads (reduce0..reduce7), "
                     "not %s",
                     ty, s ? s->name : "a --kernel-file kernel");
        else if (!ocr_op_valid_for(o->op, o->type))
            snprintf(msg, sizeof msg, "--op %s is not supported on %s data (%s)",
                     ocr_op_name(o->op), ty,
                     ocr_type_is_float(o->type)
                         ? "half: sum prod min max argmin argmax"
                         : "small integers: sum prod min max and or xor argmin argmax");
        else if (cli_given(o, "accurate"))
            snprintf(msg, sizeof msg, "--accurate is a float or double sum, not of %s data", ty);
        else
            msg[0] = '\0';
        if (msg[0]) return cli_usage_error(msg);
    }
    if (ocr_op_is_arg(o->op) && (!s || !(s->caps & OCR_KERNEL_ARG))) {
        snprintf(msg, sizeof msg,
                 "--op %s needs a kernel that keeps indices (reduce0..reduce7), not %s",
                 ocr_op_name(o->op), s ? s->name : "a --kernel-file kernel");
        return cli_usage_error(msg);
    }
    /* A custom run builds no kernel of the ladder: its own row says what it takes. */
    const int custom = cli_given(o, "preset") || cli_given(o, "map") ||
                       (o->histogram && o->kernel_file); /* -g: the histogram kernel's grid */
    for (size_t i = 0; !custom && i < sizeof option_needs / sizeof option_needs[0]; ++i)
        if (cli_given(o, option_needs[i].option) &&
            (!s || (s->caps & option_needs[i].needs) != option_needs[i].needs)) {
            snprintf(msg, sizeof msg, "--%s applies only to reduce7, not %s",
                     option_needs[i].option, s ? s->name : "a --kernel-file kernel");
            return cli_usage_error(msg);
        }
    return OCR_OK;
}

/* Every row's refusals, in table order: OCR_OK, or OCR_USAGE after printing
 * the first one. */
static ocr_status refuse_rows(const cli_options *o) {
    for (size_t i = 0; i < NMODES; ++i) {
        ocr_status st = refuse_row(&modes[i], o);
        if (st != OCR_OK) return st;
    }
    return OCR_OK;
}

/* Options that cannot take effect are refused rather than ignored: a student
 * who passes -g to reduce3 must not believe the groups changed. The kernel's
 * own rules come with the options (cli.c), then every row's, then the
 * options that need an ability of the kernel. */
ocr_status cli_parse(int argc, char **argv, cli_options *o) {
    ocr_status st = cli_read_options(argc, argv, o);
    if (st == OCR_OK) st = refuse_rows(o);
    if (st == OCR_OK) st = refuse_without_ability(o);
    return st;
}
