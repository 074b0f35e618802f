/* ocr_build_options.c - the caller's extra build options, checked before any
 * compiler sees them. POCL 3.1's option parser crashes (SIGSEGV) on a -D or
 * -I with nothing after it, so a bad string must never reach clBuildProgram:
 * the CLI checks --build-options while parsing, and every build checks again
 * (ocr_kernel_build_ex), so library callers are covered too. */
#include "ocr_internal.h"

#include <string.h>

static const char spaces[] = " \t\n\v\f\r";

/* The options that take an argument, attached (-DNAME) or as the next word. */
static const struct {
    const char *flag;
    const char *needs; /* what the argument is, for the message */
    int identifier;    /* 1: the argument must start like a C identifier */
} with_argument[] = {
    {"-D", "a macro name (-D NAME, -DNAME or -DNAME=VALUE)", 1},
    {"-U", "a macro name (-U NAME or -UNAME)", 1},
    {"-I", "a directory (-I DIR or -IDIR)", 0},
};

static int starts_identifier(const char *s) {
    return *s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
}

ocr_status ocr_build_options_check(const char *options) {
    const char *p = options ? options : "";
    while (*(p += strspn(p, spaces))) {
        size_t len = strcspn(p, spaces);
        for (size_t i = 0; i < sizeof with_argument / sizeof with_argument[0]; ++i) {
            if (strncmp(p, with_argument[i].flag, 2) != 0) continue;
            const char *arg = p + 2; /* attached, else the next word */
            size_t alen = len - 2;
            if (alen == 0) {
                arg += strspn(arg, spaces);
                alen = strcspn(arg, spaces);
            }
            int ok =
                alen > 0 && *arg != '-' && (!with_argument[i].identifier || starts_identifier(arg));
            if (!ok) {
                ocr_errorf("build options \"%s\": %s needs %s", options, with_argument[i].flag,
                           with_argument[i].needs);
                return OCR_USAGE;
            }
            if (len == 2) len = (size_t)(arg + alen - p); /* the next word is its argument */
        }
        p += len;
    }
    return OCR_OK;
}

/* An accurate sum's TwoSum recovers each addition's rounding error from
 * (s - (t - z)) + (x - z), which is 0 to a compiler allowed to reassociate. */
ocr_status ocr_build_options_check_accurate(const char *options) {
    static const char *const reassociating[] = {"-cl-fast-relaxed-math",
                                                "-cl-unsafe-math-optimizations"};
    for (size_t i = 0; i < sizeof reassociating / sizeof reassociating[0]; ++i)
        if (options && strstr(options, reassociating[i])) {
            ocr_errorf("build options \"%s\": %s lets the compiler reassociate float additions, "
                       "which undoes an accurate sum's compensation",
                       options, reassociating[i]);
            return OCR_USAGE;
        }
    return OCR_OK;
}
