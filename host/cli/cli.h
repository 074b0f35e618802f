/* cli.h - oclReduction's command line: one options table drives both parsing
 * and --help. */
#ifndef OCR_CLI_H
#define OCR_CLI_H

#include "ocr.h"

#define CLI_DEFAULT_KERNEL "reduce6" /* without -n (and outside --stream) */

typedef struct {
    const char *kernel; /* -n as given (number or name), NULL: not given */
    /* The built-in kernel the run uses, resolved once by cli_read_options:
     * -n's, else the mode's own (--stream streams through reduce7), else
     * reduce6. NULL: a --kernel-file run, or -n names no kernel (the run
     * says so). */
    const ocr_kernel_spec *spec;
    uint64_t size, m, seed;
    unsigned repeats;
    ocr_type type;
    ocr_op op;
    size_t local_size, groups;
    ocr_device_choice device;
    const char *kernel_dir, *kernel_file, *kernel_name;
    uint64_t elems_per_group;
    ocr_host_mem host_mem;
    ocr_cpu_baseline cpu;
    ocr_format format;
    ocr_data_kind data;
    const char *build_options;
    int access;
    int all_devices; /* --device all */
    int list, list_kernels, explain, passes, resources, peak, grade, tune, help, version;
    int accurate;         /* --accurate: reduce7's compensated float sum */
    unsigned tune_budget; /* --tune: seconds */
    unsigned timeout;     /* --grade: seconds a case may run */
    /* --grade: the seed of the unpublished sizes (grade_seed_given: chosen,
     * else drawn fresh); the types and operators graded (bit i: ocr_type or
     * ocr_op i; 0: every one the kernel contract covers); --list-cases. */
    uint64_t grade_seed;
    int grade_seed_given, list_cases;
    int race_check; /* --race-check: the run under oclgrind, judged (race_check.c) */
    unsigned grade_types, grade_ops;
    unsigned grade_memory; /* --grade-memory: MiB of address space per grading child, 0: none */
    /* --timeout outside --grade: seconds the whole run may take, 0: none */
    unsigned run_timeout;
    uint64_t given;    /* bit i: options[i] appeared on the command line */
    const char *split; /* --split: "all" or "P.D,P.D,..." (checked), or NULL */
    ocr_shares shares; /* --split-shares */
    int mpi;           /* --mpi */
    int stream;        /* --stream */
    uint64_t chunk;    /* --chunk: elements per chunk, 0: the default */
    unsigned segments; /* --segments: K, 0: not this mode */
    /* --histogram BINS (0: not this mode), --range LO,HI (range_given),
     * --hist-method, --data one-bin (one_bin: every sample in one bin) */
    uint64_t histogram;
    double range_lo, range_hi;
    int range_given, hist_method, one_bin;
    /* --preset, or --map with --reduce and --neutral (custom.c): NULL when not given */
    const char *preset, *map, *reduce, *neutral;
} cli_options;

/* --timeout outside --grade (host/cli/watchdog.c): when `seconds` have passed
 * and the run has not ended, one message and exit 3, whatever the run was
 * waiting for. OCR_RUNTIME if the timer cannot start. */
ocr_status cli_watchdog_start(unsigned seconds);

/* Fills o from argv and refuses what cannot take effect (modes.c: the
 * options, then the mode table's refusals). Returns OCR_OK, or OCR_USAGE
 * after printing why. */
ocr_status cli_parse(int argc, char **argv, cli_options *o);
/* The options alone (and the kernel's own rules: type and operator,
 * --kernel-file's companions), as cli_parse begins. */
ocr_status cli_read_options(int argc, char **argv, cli_options *o);
void cli_help(FILE *f);

/* 1 if the option with this long name ("size", "kernel") was given. */
int cli_given(const cli_options *o, const char *long_name);
/* Prints msg as a usage error ("oclReduction: msg", then where help is) and
 * returns OCR_USAGE. */
ocr_status cli_usage_error(const char *msg);

/* OCR_OK if the --kernel-file can be opened; else one message and
 * OCR_RUNTIME, before any OpenCL start-up (whatever platform could load). */
ocr_status cli_check_kernel_file(const char *path);

/* The program's exit code for a status: 0 PASSED, 1 wrong result, 2 usage,
 * 3 any other failure. The exit codes are the program's interface; the
 * library's statuses are finer and may grow. */
int cli_exit_code(ocr_status st);

/* Prints a library message as the program's own: "oclReduction: <message>"
 * on stderr. main() installs it with ocr_set_message_callback. */
void cli_print_message(void *user, const char *message);

/* Parses a non-negative integer with an optional K, M or G suffix (powers of
 * 1024). Rejects signs, junk, empty strings and values above max. 0 on success. */
int cli_parse_size(const char *s, uint64_t max, uint64_t *out);

/* One "P.D" of --split (each 0..999), then ',' or the end: the text after
 * it, or NULL. */
const char *cli_split_pair(const char *p, int *platform, int *device);

/* ---- what the options ask of the library (request.c) ---------------- */

/* A --kernel-file kernel's spec: one output per group of `elems` elements,
 * `local` work-items a group. */
ocr_kernel_spec cli_file_kernel(const char *name, const char *file, size_t local, uint64_t elems,
                                const char *summary);
/* The run options the command line describes: M, the CPU baseline given. */
ocr_run_options cli_run_options(const cli_options *o, uint64_t m, ocr_cpu_baseline cpu);
/* The build request the options describe; OCR_USAGE for an unknown kernel,
 * OCR_RUNTIME for a --kernel-file that cannot be opened. */
ocr_status cli_make_request(const cli_options *o, ocr_build_request *rq);
/* Elements [offset, offset + count) of the seeded input of o->size in a new
 * buffer (the caller frees it); NULL after a message ("cannot allocate ...
 * for <what>") when host memory runs out. */
void *cli_make_input(const cli_options *o, uint64_t offset, uint64_t count, const char *what);

/* A library call's device time, *ns: from the end of `before`, a marker
 * enqueued just before the call, to the end of `done`, its last command
 * (its launches and the gaps between them: CUB's time is taken alike,
 * between CUDA events); the last command's own time where the marker has no
 * time stamp, the host clock from h0 where neither has (ocr_event_span).
 * Waits for done; releases neither. */
ocr_status cli_call_span(cl_event before, cl_event done, uint64_t h0, uint64_t *ns);

/* --mpi's runner (cli_run_mpi, modes.h) is in host/cli/mpi.c, built with
 * -DOCR_MPI=ON. */
/* --mpi, first of all (host/cli/mpi_agree.c): OCR_OK if every rank was given
 * the same options that shape the data or the run; else OCR_USAGE on every
 * rank, and rank 0 names the option. */
ocr_status cli_mpi_agree(const cli_options *o, int rank);
/* Around cli_parse under a launcher: ranks other than 0 print no usage error
 * (rank 0 prints it once). mute returns what unmute takes (-1: nothing done). */
int cli_mpi_mute_parse(int argc, char **argv);
void cli_mpi_unmute(int saved);

#endif
