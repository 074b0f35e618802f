/* ocr_error.c - OpenCL error names and the library's error messages. */
#include "ocr_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *ocr_cl_error_name(cl_int err) {
    switch (err) {
#define E(x)                                                                                       \
    case x:                                                                                        \
        return #x;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE) E(
            CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
            E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH) E(
                CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
                E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) E(
                    CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
                    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(
                        CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM)
                        E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES) E(
                            CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT)
                            E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE) E(
                                CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
                                E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(
                                    CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
                                    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(
                                        CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
                                        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(
                                            CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
                                            E(CL_INVALID_GLOBAL_OFFSET) E(
                                                CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT)
                                                E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(
                                                    CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL)
                                                    E(CL_INVALID_GLOBAL_WORK_SIZE)
                                                        E(CL_INVALID_PROPERTY) E(
                                                            CL_INVALID_IMAGE_DESCRIPTOR)
                                                            E(CL_INVALID_COMPILER_OPTIONS) E(
                                                                CL_INVALID_LINKER_OPTIONS)
                                                                E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
                                                                    case -1001
            : return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "unknown OpenCL error";
    }
}

/*
 * Where messages go. Normally stderr; while a thread captures (the reducer,
 * host/ocr_reducer.c, which must print nothing), that thread's messages are
 * appended to its capture buffer instead, without the program's prefix.
 * Thread-local, so one thread's capture does not swallow another's messages.
 */
typedef struct {
    char *s;
    size_t len, cap;
    int active;
} capture_buf;

static _Thread_local capture_buf capture;

static void capture_vadd(const char *fmt, va_list ap) {
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) return;
    if (capture.len + (size_t)n + 1 > capture.cap) {
        size_t cap = (capture.len + (size_t)n + 1) * 2;
        char *p = realloc(capture.s, cap);
        if (!p) return; /* the message is lost, not the status */
        capture.s = p, capture.cap = cap;
    }
    vsnprintf(capture.s + capture.len, (size_t)n + 1, fmt, ap);
    capture.len += (size_t)n;
}

static void capture_add(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    capture_vadd(fmt, ap);
    va_end(ap);
}

int ocr_capture_begin(void) {
    int was = capture.active;
    if (!was) {
        capture.len = 0;
        if (capture.s) capture.s[0] = '\0';
    }
    capture.active = 1;
    return was;
}

char *ocr_capture_end(int was_active) {
    char *text = NULL;
    if (was_active) return NULL; /* an outer capture keeps collecting */
    capture.active = 0;
    if (capture.s && capture.len) {
        while (capture.len && capture.s[capture.len - 1] == '\n')
            capture.s[--capture.len] = '\0';
        text = capture.s;
    } else {
        free(capture.s);
    }
    capture.s = NULL, capture.len = capture.cap = 0;
    return text;
}

void ocr_errprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (capture.active)
        capture_vadd(fmt, ap);
    else
        vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void ocr_errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (capture.active) {
        capture_vadd(fmt, ap);
        capture_add("\n");
    } else {
        fputs("oclReduction: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

void ocr_report_cl(const char *call, cl_int err, const char *file, int line) {
    /* `call` may be the whole call text: name the function only. */
    size_t len = strcspn(call, "(");
    const char *base = strrchr(file, '/');
    ocr_errorf("%.*s failed: %s (%d) at %s:%d", (int)len, call, ocr_cl_error_name(err), (int)err,
               base ? base + 1 : file, line);
}
