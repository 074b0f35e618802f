/* ocr_error.c - statuses, OpenCL error names and the library's messages. */
#include "core.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenCL's error codes and their names: a table, one row a code (the
 * KHR platform code has no macro in every header, hence its number). */
#define E(x)                                                                                       \
    { x, #x }
static const struct {
    cl_int code;
    const char *name;
} cl_errors[] = {
    E(CL_SUCCESS),
    E(CL_DEVICE_NOT_FOUND),
    E(CL_DEVICE_NOT_AVAILABLE),
    E(CL_COMPILER_NOT_AVAILABLE),
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    E(CL_OUT_OF_RESOURCES),
    E(CL_OUT_OF_HOST_MEMORY),
    E(CL_PROFILING_INFO_NOT_AVAILABLE),
    E(CL_MEM_COPY_OVERLAP),
    E(CL_IMAGE_FORMAT_MISMATCH),
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    E(CL_BUILD_PROGRAM_FAILURE),
    E(CL_MAP_FAILURE),
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    E(CL_COMPILE_PROGRAM_FAILURE),
    E(CL_LINKER_NOT_AVAILABLE),
    E(CL_LINK_PROGRAM_FAILURE),
    E(CL_DEVICE_PARTITION_FAILED),
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    E(CL_INVALID_VALUE),
    E(CL_INVALID_DEVICE_TYPE),
    E(CL_INVALID_PLATFORM),
    E(CL_INVALID_DEVICE),
    E(CL_INVALID_CONTEXT),
    E(CL_INVALID_QUEUE_PROPERTIES),
    E(CL_INVALID_COMMAND_QUEUE),
    E(CL_INVALID_HOST_PTR),
    E(CL_INVALID_MEM_OBJECT),
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    E(CL_INVALID_IMAGE_SIZE),
    E(CL_INVALID_SAMPLER),
    E(CL_INVALID_BINARY),
    E(CL_INVALID_BUILD_OPTIONS),
    E(CL_INVALID_PROGRAM),
    E(CL_INVALID_PROGRAM_EXECUTABLE),
    E(CL_INVALID_KERNEL_NAME),
    E(CL_INVALID_KERNEL_DEFINITION),
    E(CL_INVALID_KERNEL),
    E(CL_INVALID_ARG_INDEX),
    E(CL_INVALID_ARG_VALUE),
    E(CL_INVALID_ARG_SIZE),
    E(CL_INVALID_KERNEL_ARGS),
    E(CL_INVALID_WORK_DIMENSION),
    E(CL_INVALID_WORK_GROUP_SIZE),
    E(CL_INVALID_WORK_ITEM_SIZE),
    E(CL_INVALID_GLOBAL_OFFSET),
    E(CL_INVALID_EVENT_WAIT_LIST),
    E(CL_INVALID_EVENT),
    E(CL_INVALID_OPERATION),
    E(CL_INVALID_GL_OBJECT),
    E(CL_INVALID_BUFFER_SIZE),
    E(CL_INVALID_MIP_LEVEL),
    E(CL_INVALID_GLOBAL_WORK_SIZE),
    E(CL_INVALID_PROPERTY),
    E(CL_INVALID_IMAGE_DESCRIPTOR),
    E(CL_INVALID_COMPILER_OPTIONS),
    E(CL_INVALID_LINKER_OPTIONS),
    E(CL_INVALID_DEVICE_PARTITION_COUNT),
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
};
#undef E

const char *ocr_cl_error_name(cl_int err) {
    for (size_t i = 0; i < sizeof cl_errors / sizeof cl_errors[0]; ++i)
        if (cl_errors[i].code == err) return cl_errors[i].name;
    return "unknown OpenCL error";
}

/* What each status means to a caller; the CLI maps them to exit codes. */
static const char *const status_names[OCR_NSTATUS] = {
    [OCR_OK] = "ok",
    [OCR_WRONG] = "wrong result",
    [OCR_USAGE] = "invalid argument",
    [OCR_RUNTIME] = "runtime error",
    [OCR_OPENCL] = "OpenCL error",
    [OCR_NO_DEVICE] = "no OpenCL platform or device",
    [OCR_BUILD] = "kernel build failed",
    [OCR_NO_MEMORY] = "out of memory",
    [OCR_TOO_LARGE] = "too large for the device or host",
    [OCR_IO] = "file error",
};

const char *ocr_status_name(ocr_status st) {
    return (unsigned)st < OCR_NSTATUS ? status_names[st] : "unknown status";
}

ocr_status ocr_status_from_cl(cl_int err) {
    switch (err) {
    case CL_SUCCESS:
        return OCR_OK;
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return OCR_NO_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
    case CL_LINK_PROGRAM_FAILURE:
    case CL_INVALID_BUILD_OPTIONS:
    case CL_COMPILER_NOT_AVAILABLE:
        return OCR_BUILD;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case -1001: /* CL_PLATFORM_NOT_FOUND_KHR */
        return OCR_NO_DEVICE;
    default:
        return OCR_OPENCL;
    }
}

/*
 * Where messages go: to the caller's callback if one is installed, else
 * nowhere. Each message is also kept as the calling thread's last error, and
 * appended to the thread's capture while one is open (the reducer keeps a
 * call's messages with the reducer).
 */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static ocr_message_fn sink_fn;
static void *sink_user;

void ocr_set_message_callback(ocr_message_fn fn, void *user) {
    pthread_mutex_lock(&sink_lock);
    sink_fn = fn;
    sink_user = user;
    pthread_mutex_unlock(&sink_lock);
}

/* The messages of the thread's last call that reported any: each entry point
 * that can fail clears it, each message is appended. A fixed array, not
 * malloc'd: nothing to free when a thread ends. A longer text (a build log)
 * still reaches the callback whole. */
static _Thread_local char last_error[8192];
static _Thread_local size_t last_len;

const char *ocr_last_error(void) {
    return last_error;
}

/* The code of the last OpenCL call ocr_report_cl said failed: one int per
 * thread, set only on a failure, so the success path costs nothing. */
static _Thread_local cl_int last_cl;

void ocr_last_error_clear(void) {
    last_error[0] = '\0';
    last_len = 0;
    last_cl = CL_SUCCESS;
}

cl_int ocr_last_cl_error(void) {
    return last_cl;
}

static void last_error_add(const char *msg) {
    const char *more = "...";
    size_t room = sizeof last_error - last_len, need = strlen(msg) + (last_len ? 1 : 0);
    if (room <= strlen(more)) return; /* full: the first messages are kept, usually the cause */
    if (need >= room) {
        snprintf(last_error + last_len, room - strlen(more), "%s%s", last_len ? "\n" : "", msg);
        strcat(last_error, more);
    } else {
        snprintf(last_error + last_len, room, "%s%s", last_len ? "\n" : "", msg);
    }
    last_len = strlen(last_error);
}

typedef struct {
    char *s;
    size_t len, cap;
} textbuf;

static int tb_vadd(textbuf *b, const char *fmt, va_list ap) {
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) return -1;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) return -1; /* the text is lost, not the status */
        b->s = p, b->cap = cap;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

static void tb_add(textbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tb_vadd(b, fmt, ap);
    va_end(ap);
}

static void tb_free(textbuf *b) {
    free(b->s);
    *b = (textbuf){NULL, 0, 0};
}

static _Thread_local textbuf capture; /* open captures' text, messages joined by newlines */
static _Thread_local int capture_active;
static _Thread_local textbuf group; /* a message of several parts being assembled */
static _Thread_local int group_open;

/* One finished message: the last error, the capture, the callback. */
static void deliver(const char *msg) {
    last_error_add(msg);
    if (capture_active) tb_add(&capture, "%s%s", capture.len ? "\n" : "", msg);
    pthread_mutex_lock(&sink_lock);
    ocr_message_fn fn = sink_fn;
    void *user = sink_user;
    pthread_mutex_unlock(&sink_lock);
    if (fn) fn(user, msg);
}

/* Formats and delivers one message, dropping one trailing newline. */
static void vdeliver(const char *fmt, va_list ap) {
    char small[1024];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, aq);
    va_end(aq);
    if (n < 0) return;
    char *msg = small;
    if ((size_t)n >= sizeof small) {
        char *big = malloc((size_t)n + 1);
        if (big) vsnprintf(msg = big, (size_t)n + 1, fmt, ap); /* else: the message truncated */
    }
    size_t len = strlen(msg);
    if (len && msg[len - 1] == '\n') msg[len - 1] = '\0';
    deliver(msg);
    if (msg != small) free(msg);
}

void ocr_errorf_end(void) {
    if (!group_open) return;
    group_open = 0;
    if (group.len && group.s[group.len - 1] == '\n') group.s[--group.len] = '\0';
    deliver(group.s ? group.s : "(a message was lost: out of host memory)");
    tb_free(&group);
}

void ocr_errorf(const char *fmt, ...) {
    va_list ap;
    ocr_errorf_end();
    va_start(ap, fmt);
    vdeliver(fmt, ap);
    va_end(ap);
}

void ocr_errorf_begin(const char *fmt, ...) {
    va_list ap;
    ocr_errorf_end();
    group_open = 1;
    va_start(ap, fmt);
    tb_vadd(&group, fmt, ap);
    va_end(ap);
    tb_add(&group, "\n");
}

void ocr_errprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (group_open)
        tb_vadd(&group, fmt, ap);
    else
        vdeliver(fmt, ap); /* no message to continue: one of its own */
    va_end(ap);
}

int ocr_capture_begin(void) {
    int was = capture_active;
    if (!was) capture.len = 0;
    if (!was && capture.s) capture.s[0] = '\0';
    capture_active = 1;
    return was;
}

char *ocr_capture_end(int was_active) {
    if (was_active) return NULL; /* an outer capture keeps collecting */
    ocr_errorf_end();
    capture_active = 0;
    char *text = capture.len ? capture.s : NULL;
    if (!text) free(capture.s);
    capture = (textbuf){NULL, 0, 0};
    return text;
}

void ocr_report_cl(const char *call, cl_int err, const char *file, int line) {
    /* `call` may be the whole call text: name the function only. */
    size_t len = strcspn(call, "(");
    const char *base = strrchr(file, '/');
    last_cl = err;
    ocr_errorf("%.*s failed: %s (%d) at %s:%d", (int)len, call, ocr_cl_error_name(err), (int)err,
               base ? base + 1 : file, line);
}
