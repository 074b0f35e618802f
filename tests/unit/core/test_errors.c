/*
 * test_errors.c - the library's error channel (issue 14).
 *
 *   test_errors BROKEN_KERNEL_DIR   (tests/fixtures/kernels_broken: a reduce6.cl that
 *                                    does not compile)
 *
 * Without a message callback a failing call prints nothing: stdout and stderr
 * are redirected to files for those calls and must stay empty (but for the
 * OpenCL compiler's own "N errors generated." summary, which POCL's clang
 * writes there itself). Each failure returns its status, and ocr_last_error()
 * and ocr_status_name() say what went wrong. With a callback, the callback
 * receives the same messages, a build log as one message. The last error is
 * per thread. The CLI's one table maps every status to its exit codes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "ocr.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out; /* the test's own report: the real stdout, kept aside */
static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(out, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                           \
            fprintf(out, __VA_ARGS__);                                                             \
            fputc('\n', out);                                                                      \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* A failure: the status, ocr_last_error() naming `what`. */
static void expect_failure(ocr_status got, ocr_status want, const char *what, const char *label) {
    const char *msg = ocr_last_error();
    EXPECT(got == want, "%s: status %d (%s), expected %d (%s)", label, (int)got,
           ocr_status_name(got), (int)want, ocr_status_name(want));
    EXPECT(strstr(msg, what) != NULL, "%s: ocr_last_error() \"%s\" lacks \"%s\"", label, msg, what);
    fprintf(out, "ok   %s: %s, \"%.90s%s\"\n", label, ocr_status_name(got), msg,
            strlen(msg) > 90 ? "..." : "");
}

/* ---- what the callback received ---- */
#define MAX_MESSAGES 8
static char *received[MAX_MESSAGES];
static int nreceived;
static int user_token;

static void on_message(void *user, const char *message) {
    EXPECT(user == &user_token, "the callback gets the user pointer it was installed with");
    if (nreceived < MAX_MESSAGES) received[nreceived] = strdup(message);
    ++nreceived;
}

static void forget_messages(void) {
    for (int i = 0; i < nreceived && i < MAX_MESSAGES; ++i)
        free(received[i]);
    nreceived = 0;
}

/* ---- the failing calls ---- */
static cl_context ctx;
static cl_device_id dev;

static ocr_status bad_reducer(void) {
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_FLOAT, OCR_XOR, NULL, &r);
    EXPECT(r == NULL, "a failed create leaves *out NULL");
    return st;
}

static ocr_status no_such_platform(void) {
    ocr_device_choice c = {99, -1, CL_DEVICE_TYPE_ALL, 0};
    ocr_device *d = NULL;
    ocr_status st = ocr_device_open(&c, &d);
    EXPECT(d == NULL, "a failed open leaves *out NULL");
    return st;
}

static ocr_status broken_build(ocr_device *d, const char *dir) {
    ocr_kernel *k = NULL;
    ocr_build_request rq = {.spec = *ocr_kernel_find("reduce6"), .kernel_dir = dir};
    ocr_status st = ocr_kernel_build(d, &rq, &k);
    EXPECT(k == NULL, "a failed build leaves *out NULL");
    return st;
}

static ocr_status missing_kernel(void) {
    char *p = ocr_find_kernel_file("no_such_kernel.cl", "/nonexistent");
    EXPECT(p == NULL, "a missing kernel is not found");
    free(p);
    return p ? OCR_OK : OCR_IO;
}

/* 1 if fd's file holds nothing but the OpenCL compiler's own summaries. */
static int clean(int fd, const char *name) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    int ok = 1, driver = 0;
    buf[n > 0 ? n : 0] = '\0';
    for (char *line = buf, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len > 11 && line[0] >= '0' && line[0] <= '9' && !strcmp(line + len - 11, " generated."))
            ++driver;
        else if (len)
            fprintf(out, "FAIL: printed to %s: %s\n", name, line), ok = 0;
        if (!nl) break;
    }
    if (ok)
        fprintf(out,
                "ok   nothing was printed to %s (%d compiler summary line%s from the driver)\n",
                name, driver, driver == 1 ? "" : "s");
    return ok;
}

static void *other_thread(void *arg) {
    (void)arg;
    no_such_platform();
    return strdup(ocr_last_error());
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_errors BROKEN_KERNEL_DIR\n");
        return 2;
    }
    const char *broken = argv[1];
    int saved_out = dup(1), saved_err = dup(2);
    out = fdopen(dup(1), "w");
    if (saved_out < 0 || saved_err < 0 || !out) return 1;
    setvbuf(out, NULL, _IONBF, 0);

    cl_platform_id platform;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return 3;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 3;
    ocr_device *d = NULL;
    ocr_device_choice any = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    if (ocr_device_open(&any, &d) != OCR_OK) return 3;

    /* 1. No callback: every failure silent, reported through status and message. */
    char opath[] = "/tmp/test_errors_stdout_XXXXXX", epath[] = "/tmp/test_errors_stderr_XXXXXX";
    int ofd = mkstemp(opath), efd = mkstemp(epath);
    if (ofd < 0 || efd < 0 || dup2(ofd, 1) < 0 || dup2(efd, 2) < 0) return 1;
    EXPECT(!strcmp(ocr_last_error(), ""), "no message before any failure: \"%s\"",
           ocr_last_error());
    expect_failure(bad_reducer(), OCR_USAGE, "needs an integer type", "reducer float xor");
    EXPECT(!strcmp(ocr_reducer_last_error(NULL), ocr_last_error()),
           "ocr_reducer_last_error(NULL) \"%s\" is ocr_last_error()", ocr_reducer_last_error(NULL));
    expect_failure(no_such_platform(), OCR_NO_DEVICE, "platform 99 does not exist",
                   "device on platform 99");
    expect_failure(broken_build(d, broken), OCR_BUILD, "this_is_not_declared", "broken kernel");
    /* The build's two messages, joined: the log, then the failed call. */
    EXPECT(strstr(ocr_last_error(), "failed\n  build options: ") &&
               strstr(ocr_last_error(), "\nclBuildProgram failed: CL_BUILD_PROGRAM_FAILURE"),
           "the build's messages: \"%s\"", ocr_last_error());
    expect_failure(missing_kernel(), OCR_IO, "no_such_kernel.cl not found. Searched:\n",
                   "missing kernel file");
    ocr_device_close(d); /* a success after a failure: nothing printed either */
    d = NULL;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    if (!clean(ofd, "stdout")) ++failures;
    if (!clean(efd, "stderr")) ++failures;
    close(ofd), close(efd);
    unlink(opath), unlink(epath);

    /* 2. With a callback: it receives each message, whole, as the last error has it. */
    ocr_set_message_callback(on_message, &user_token);
    bad_reducer();
    EXPECT(nreceived == 1 && !strcmp(received[0], ocr_last_error()),
           "one message for the bad reducer (%d): \"%s\"", nreceived, nreceived ? received[0] : "");
    forget_messages();
    if (ocr_device_open(&any, &d) != OCR_OK) return 3;
    broken_build(d, broken);
    EXPECT(nreceived == 2, "a failed build is two messages, the log and the failed call: %d",
           nreceived);
    if (nreceived == 2) {
        EXPECT(!strncmp(received[0], "building ", 9) && strstr(received[0], "\n  build log:\n") &&
                   strstr(received[0], "this_is_not_declared") &&
                   received[0][strlen(received[0]) - 1] != '\n',
               "the build log is one message, no trailing newline: \"%s\"", received[0]);
        EXPECT(!strncmp(received[1], "clBuildProgram failed: ", 23), "then: \"%s\"", received[1]);
        size_t l0 = strlen(received[0]);
        EXPECT(!strncmp(ocr_last_error(), received[0], l0) && ocr_last_error()[l0] == '\n' &&
                   !strcmp(ocr_last_error() + l0 + 1, received[1]),
               "ocr_last_error() is both, joined: \"%s\"", ocr_last_error());
        fprintf(out,
                "ok   the callback got the build log as one message of %zu bytes, then \"%s\"\n",
                l0, received[1]);
    }
    forget_messages();
    ocr_device_close(d);
    ocr_set_message_callback(NULL, NULL);
    no_such_platform();
    EXPECT(nreceived == 0, "a removed callback is not called: %d", nreceived);

    /* 3. The last error is the calling thread's. */
    bad_reducer();
    pthread_t th;
    void *theirs = NULL;
    if (pthread_create(&th, NULL, other_thread, NULL) == 0) pthread_join(th, &theirs);
    EXPECT(theirs && strstr(theirs, "platform 99"), "the other thread's: \"%s\"",
           theirs ? (char *)theirs : "(none)");
    EXPECT(strstr(ocr_last_error(), "needs an integer type"), "this thread's kept: \"%s\"",
           ocr_last_error());
    free(theirs);
    fprintf(out, "ok   the last error is per thread\n");

    /* 4. Names for every status, and the CLI's exit codes for each. */
    static const int code[OCR_NSTATUS] = {
        [OCR_OK] = 0,        [OCR_WRONG] = 1,     [OCR_USAGE] = 2, [OCR_RUNTIME] = 3,
        [OCR_OPENCL] = 3,    [OCR_NO_DEVICE] = 3, [OCR_BUILD] = 3, [OCR_NO_MEMORY] = 3,
        [OCR_TOO_LARGE] = 3, [OCR_IO] = 3,
    };
    for (int s = 0; s < OCR_NSTATUS; ++s) {
        EXPECT(strcmp(ocr_status_name((ocr_status)s), "unknown status"), "status %d has a name", s);
        for (int t = 0; t < s; ++t)
            EXPECT(strcmp(ocr_status_name((ocr_status)s), ocr_status_name((ocr_status)t)),
                   "statuses %d and %d share a name", s, t);
        EXPECT(cli_exit_code((ocr_status)s) == code[s], "%s exits %d, expected %d",
               ocr_status_name((ocr_status)s), cli_exit_code((ocr_status)s), code[s]);
    }
    EXPECT(!strcmp(ocr_status_name(OCR_NSTATUS), "unknown status"), "past the end");
    EXPECT(!strcmp(ocr_version(), OCR_VERSION), "ocr_version() %s, header %s", ocr_version(),
           OCR_VERSION);
    fprintf(out, "ok   %d statuses named, mapped to exit codes 0-3; version %s\n", OCR_NSTATUS,
            ocr_version());

    clReleaseContext(ctx);
    fprintf(out, failures ? "FAILED (%d)\n" : "PASSED\n", failures);
    fclose(out);
    return failures ? 1 : 0;
}
