/* in_list.h - whether a name is in a comma-separated list ("all": every name),
 * for the tests that take lists of types and operators on the command line. */
#ifndef OCR_TEST_IN_LIST_H
#define OCR_TEST_IN_LIST_H
#include <string.h>

static inline int in_list(const char *list, const char *name) {
    if (!strcmp(list, "all")) return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

#endif
