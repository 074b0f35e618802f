/* watchdog.c - --timeout outside --grade: a time limit for the whole run.
 * OpenCL has no call that stops a running kernel, and a kernel that never
 * ends leaves its host thread waiting forever. So a thread of the program's
 * own waits for the deadline and, if the run is still going, says so and
 * ends the process (exit 3) without releasing anything: the operating
 * system and the driver reclaim the context, its buffers and the kernel
 * with the process (docs/output.md). The library never exits; this is
 * program code. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct timespec deadline;
static unsigned limit_s;

static void *watch(void *arg) {
    char msg[320];
    (void)arg;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
        ;
    /* What the report printed so far still comes out, unless the main
     * thread is in the middle of a write. */
    if (ftrylockfile(stdout) == 0) {
        fflush(stdout);
        funlockfile(stdout);
    }
    int n = snprintf(msg, sizeof msg,
                     "oclReduction: the run did not finish within its time limit (--timeout %u "
                     "s): abandoned; the process exits and the OpenCL runtime ends the kernel "
                     "with it\n",
                     limit_s);
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)w;
    }
    _exit(cli_exit_code(OCR_RUNTIME));
    return NULL;
}

ocr_status cli_watchdog_start(unsigned seconds) {
    pthread_t t;
    pthread_attr_t a;
    limit_s = seconds;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)seconds;
    int rc = pthread_attr_init(&a);
    if (!rc) {
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&t, &a, watch, NULL);
        pthread_attr_destroy(&a);
    }
    if (rc) {
        fprintf(stderr, "oclReduction: --timeout: cannot start its timer thread: %s\n",
                strerror(rc));
        return OCR_RUNTIME;
    }
    return OCR_OK;
}
