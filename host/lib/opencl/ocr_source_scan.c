/* ocr_source_scan.c - a kernel source read as the compiler reads it, to
 * find an include the compiler would resolve itself (ocr_source.c refuses
 * it: the host expands every include it allows). */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

/* The host expands every `#include "name"` it allows. One left for the
 * compiler (a macro naming the file, <...>, a directive split by a
 * backslash-newline or a comment, spelled %: or ??=) would be resolved from
 * the compiler's working directory and -I paths, past any confinement (a
 * graded kernel compiling a classmate's file). So the expanded text is read as
 * the compiler reads it, and an include left in it is refused, as is
 * __has_include. Phases 1-2 first: the trigraphs ??= and ??/ (POCL converts
 * them), and a backslash, blanks (clang allows them) and a line end splice. */

#define blank(c) ((c) == ' ' || (c) == '\t' || (c) == '\v' || (c) == '\f' || (c) == '\r')

/* s[0, n) after phases 1-2 (malloc'd), with each byte's offset in s. */
static char *splice(const char *s, size_t n, size_t **from, size_t *len) {
    char *t = malloc(n + 1);
    size_t *at = malloc((n + 1) * sizeof *at), j = 0;
    for (size_t i = 0; t && at && i < n;) {
        char c = s[i];
        size_t w = 1, k;
        if (c == '?' && n - i > 2 && s[i + 1] == '?' && (s[i + 2] == '=' || s[i + 2] == '/'))
            c = s[i + 2] == '=' ? '#' : '\\', w = 3;
        if (c == '\\') {
            for (k = i + w; k < n && blank(s[k]); ++k)
                ;
            if (k < n && s[k] == '\n') {
                i = k + 1;
                continue;
            }
        }
        t[j] = c, at[j++] = i, i += w;
    }
    if (!t || !at)
        free(t), free(at), t = NULL, at = NULL;
    else
        t[j] = '\0', at[j] = n;
    *from = at, *len = j;
    return t;
}

/* Past blanks and block comments (phase 3 makes each one space) from i. */
static size_t skip_blank(const char *t, size_t i, size_t n) {
    for (;;) {
        while (i < n && blank(t[i]))
            ++i;
        if (n - i < 2 || t[i] != '/' || t[i + 1] != '*') return i;
        for (i += 2; i < n && !(t[i] == '*' && i + 1 < n && t[i + 1] == '/'); ++i)
            ;
        i = i < n ? i + 2 : n;
    }
}

static size_t word_end(const char *t, size_t i, size_t n) {
    while (i < n && (t[i] == '_' || (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
                     (t[i] >= '0' && t[i] <= '9')))
        ++i;
    return i;
}

static int word_is(const char *t, size_t i, size_t e, const char *const *list) {
    for (; *list; ++list)
        if (e - i == strlen(*list) && memcmp(t + i, *list, e - i) == 0) return 1;
    return 0;
}

/* The offset in t of the first include directive the compiler would act on,
 * or of __has_include, else n. Comments and literals are skipped; a
 * directive starts a line (comments before it are blanks), `#` or `%:`. */
static size_t first_include(const char *t, size_t n) {
    static const char *const dirs[] = {"include", "include_next", "import", "embed", NULL};
    static const char *const asks[] = {"__has_include", "__has_include_next", "__has_embed", NULL};
    int bol = 1;
    for (size_t i = 0; i < n;) {
        size_t k = skip_blank(t, i, n), e;
        if (k != i || t[i] == '\n') {
            bol |= k == i; /* a line end */
            i = k == i ? i + 1 : k;
            continue;
        }
        char c = t[i];
        if (c == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                ++i;
        } else if (bol && (c == '#' || (c == '%' && i + 1 < n && t[i + 1] == ':'))) {
            k = skip_blank(t, i + (c == '#' ? 1 : 2), n);
            if (word_is(t, k, word_end(t, k, n), dirs)) return i;
            i = k;
        } else if (c == '"' || c == '\'') {
            for (++i; i < n && t[i] != c && t[i] != '\n'; i += t[i] == '\\' && i + 1 < n ? 2 : 1)
                ;
            i += i < n && t[i] == c;
        } else if ((e = word_end(t, i, n)) > i) {
            if (word_is(t, i, e, asks)) return i;
            i = e;
        } else {
            ++i;
        }
        bol = 0;
    }
    return n;
}

int ocr_source_find_include(const char *s, size_t n, size_t *at, char *text, size_t cap) {
    size_t *from = NULL, tn = 0, len = 0;
    char *t = splice(s, n, &from, &tn);
    if (!t) return -1;
    size_t i = first_include(t, tn);
    if (i < tn) {
        *at = from[i];
        for (; i + len < tn && t[i + len] != '\n' && len + 1 < cap; ++len)
            text[len] = (unsigned char)t[i + len] < 0x20 || t[i + len] == 0x7f ? ' ' : t[i + len];
    }
    if (cap) text[len] = '\0';
    free(t);
    free(from);
    return i < tn;
}
