/* check.h - the smallest test harness: CHECK counts failures and says where. */
#ifndef OCR_TEST_CHECK_H
#define OCR_TEST_CHECK_H
#include <stdio.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            ++check_failures;                                                                      \
            fprintf(stdout, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

static int check_summary(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}
#endif
