/* modes.h - oclReduction's run modes, one table row each: what a mode
 * forbids, which formats and devices it takes, which kernel abilities it
 * needs, and its runner. The refusals of cli_parse come from the rows; main
 * runs the row the options choose. Adding a mode is one row (modes.c) plus
 * its runner (runners.c, or a file of its own). */
#ifndef OCR_MODES_H
#define OCR_MODES_H

#include "cli.h"

/* A mode's runner: the whole run, reports included; argc and argv for a
 * runner that starts a launcher's runtime (--mpi). */
typedef ocr_status (*cli_runner)(const cli_options *o, int *argc, char ***argv);

/* Which device choices a mode refuses (cli_mode.devices). */
enum { CLI_REFUSES_ALL = 1, CLI_REFUSES_INDEX = 2 };

typedef struct cli_mode {
    const char *name; /* as the messages name it: "--grade", "-d all" */
    size_t flag;      /* offsetof(cli_options, field) of what chooses it; CLI_ALWAYS: the default */
    int flag_is_text; /* the field is a string (chosen when not NULL), else an int */
    const char *const *only_with; /* options that apply only with this mode */
    const char *excludes;         /* another row's name: "choose one of" them */
    unsigned needs;               /* OCR_KERNEL_* abilities of the built-in kernel */
    const char *needs_msg;
    const char *no_arg;         /* printf format (NAME): it finds no argmin/argmax; NULL: it does */
    int no_small;               /* 1: it reads no small types (char .. half): refused */
    const char *const *forbids; /* options it cannot apply (NULL-terminated) */
    const char *forbids_why;    /* appended to "--X cannot go with NAME" */
    unsigned devices;           /* CLI_REFUSES_* */
    const char *devices_msg;    /* printf format, NAME as its argument */
    ocr_status (*rule)(const cli_options *o); /* a rule of its own, or NULL */
    unsigned formats;                         /* 1 << each ocr_format it reports in */
    const char *formats_msg;                  /* printf format, NAME as its argument */
    cli_runner run;                           /* NULL: a modifier of the single and -d all runs */
} cli_mode;

#define CLI_ALWAYS ((size_t)-1)

/* The row named `name` ("--stream"), or NULL. */
const cli_mode *cli_mode_find(const char *name);
/* The row whose runner runs these options: the first chosen row with a
 * runner, in table order; the last row (the single run) when none is. */
const cli_mode *cli_mode_of(const cli_options *o);

/* The first option given that row m forbids, or NULL. */
const char *cli_mode_forbidden(const cli_mode *m, const cli_options *o);

/* The runners (runners.c). */
ocr_status cli_run_single(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_all(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_split(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_stream(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_tune(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_grade(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_race_check(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_mpi(const cli_options *o, int *argc, char ***argv);
ocr_status cli_run_segments(const cli_options *o, int *argc, char ***argv);  /* segments.c */
ocr_status cli_run_custom(const cli_options *o, int *argc, char ***argv);    /* custom.c */
ocr_status cli_run_histogram(const cli_options *o, int *argc, char ***argv); /* histogram.c */
/* --preset and --map's own rule (custom.c): a preset's name and type, --map's companions. */
ocr_status cli_custom_rule(const cli_options *o);

#endif
