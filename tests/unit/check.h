/* check.h - the smallest test harness: CHECK and EXPECT (with a message) count
 * failures and say where; CL_OK stops the test at a failed OpenCL call;
 * CL_OPEN_FIRST opens the usual device, context and queue. */
#ifndef OCR_TEST_CHECK_H
#define OCR_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            ++check_failures;                                                                      \
            fprintf(stdout, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            putchar('\n');                                                                         \
            ++check_failures;                                                                      \
        }                                                                                          \
    } while (0)

#define CL_OK(call)                                                                                \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS) {                                                                    \
            printf("FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)e_);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The first device of the first platform, a context and an in-order queue
 * on it (the tests' usual set-up; CL_OK stops the test if one fails). */
#define CL_OPEN_FIRST(dev, ctx, q)                                                                 \
    do {                                                                                           \
        cl_platform_id p_;                                                                         \
        cl_int o_;                                                                                 \
        CL_OK(clGetPlatformIDs(1, &p_, NULL));                                                     \
        CL_OK(clGetDeviceIDs(p_, CL_DEVICE_TYPE_ALL, 1, &(dev), NULL));                            \
        (ctx) = clCreateContext(NULL, 1, &(dev), NULL, NULL, &o_);                                 \
        CL_OK(o_);                                                                                 \
        (q) = clCreateCommandQueue((ctx), (dev), 0, &o_);                                          \
        CL_OK(o_);                                                                                 \
    } while (0)

static inline int check_summary(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}
#endif
