#define _POSIX_C_SOURCE 200809L
/* main.c - oclReduction: a thin command-line shell over the ocr library. */
#include "modes.h"
#include "cli_report.h"

#include <errno.h>
#include <string.h>

/* Parse, answer the questions that run nothing, then the row of the mode
 * table the options choose runs (its refusals were the parser's). */
static ocr_status run_main(int argc, char **argv) {
    cli_options o;
#ifdef OCR_HAVE_MPI
    int muted = cli_mpi_mute_parse(argc, argv);
    ocr_status st = cli_parse(argc, argv, &o);
    cli_mpi_unmute(muted);
#else
    ocr_status st = cli_parse(argc, argv, &o);
#endif
    if (st != OCR_OK) return st;
    if (o.help) {
        cli_help(stdout);
        return OCR_OK;
    }
    if (o.version) {
        printf("oclReduction %s\n", ocr_version());
        return OCR_OK;
    }
    if (o.list_kernels) {
        cli_report_kernels();
        return OCR_OK;
    }
    if (o.run_timeout && (st = cli_watchdog_start(o.run_timeout)) != OCR_OK) return st;
    if (o.list) return ocr_device_list(stdout);
    return cli_mode_of(&o)->run(&o, &argc, &argv);
}

/* The library prints nothing of its own: its messages reach stderr through
 * cli_print_message. The report is the product: if it cannot be written (a
 * full disk, a closed pipe), say so and fail, whatever the run's verdict was.
 * The exit code comes from the status through cli_exit_code. */
int main(int argc, char **argv) {
    ocr_set_message_callback(cli_print_message, NULL);
    ocr_status st = run_main(argc, argv);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "oclReduction: cannot write the report to standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return cli_exit_code(OCR_RUNTIME);
    }
    return cli_exit_code(st);
}
