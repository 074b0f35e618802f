/* ocr_custom_spec.c - a custom reducer's spec: read with the size rule,
 * checked (names, types, the caller's text), and turned into the prelude
 * that cl/custom.cl is built after. The caller's expressions go into the
 * bodies of inline functions, each after a #line naming it (the compiler's
 * log then says "map:1:7: error ..."), never into a macro; text with a '#'
 * (or its digraph, or a trigraph) is refused, so no preprocessor line of
 * the caller's can exist, and an expression with ';', a comment, a quote or
 * unbalanced brackets is refused, so it cannot close its function and write
 * outside it. These checks read raw characters, which is what the compiler
 * reads only where no line is spliced: so a '\' outside a character
 * constant (in a comment too) and any "??" are refused as well ("%\<line
 * end>:define get_group_id(d) 0" was a directive, and rewrote custom.cl).
 * Prints nothing. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_reducer_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */

static int is_ident(const char *s) {
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
    for (++s; *s; ++s)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* Why `name` may not be used, or NULL. */
static const char *name_problem(const char *name) {
    if (!is_ident(name)) return "is not a C identifier";
    if (!strncmp(name, "ocr_", 4) || !strncmp(name, "OCR_", 4)) return "starts with ocr_ or OCR_";
    if (!strcmp(name, "i") || !strcmp(name, "a") || !strcmp(name, "b"))
        return "is one of the expressions' own names (i, a, b)";
    const char *e;
    for (size_t k = 0; (e = ocr_build_reserved_name(k)); ++k) {
        size_t l = strlen(e);
        if (e[l - 1] == '*' ? !strncmp(name, e, l - 1) : !strcmp(name, e))
            return "is a name the library's kernels are built with (ocr_build_reserved_name)";
    }
    return NULL;
}

static ocr_status check_name(const char *what, const char *name) {
    const char *why = name_problem(name);
    if (!why) return OCR_OK;
    ocr_errorf("ocr_reducer_create_custom: %s '%s' %s", what, name ? name : "(NULL)", why);
    return OCR_USAGE;
}

static ocr_status check_type(const char *what, ocr_type t) {
    if ((unsigned)t < OCR_NTYPES && t != OCR_HALF) return OCR_OK;
    ocr_errorf("ocr_reducer_create_custom: %s: type %d is not one a spec takes (every ocr_type "
               "but OCR_HALF)",
               what, (int)t);
    return OCR_USAGE;
}

static ocr_status check_args(const ocr_custom_spec *sp) {
    ocr_status st;
    if (sp->num_args && !sp->args) {
        ocr_errorf("ocr_reducer_create_custom: num_args is %zu but args is NULL", sp->num_args);
        return OCR_USAGE;
    }
    for (size_t k = 0; k < sp->num_args; ++k) {
        const ocr_custom_arg *a = &sp->args[k];
        if ((st = check_name("argument", a->name)) != OCR_OK ||
            (st = check_type(a->name, a->type)) != OCR_OK)
            return st;
        if (sp->struct_name && !strcmp(a->name, sp->struct_name)) {
            ocr_errorf("ocr_reducer_create_custom: argument '%s' has the struct's name", a->name);
            return OCR_USAGE;
        }
        for (size_t j = 0; j < k; ++j)
            if (!strcmp(sp->args[j].name, a->name)) {
                ocr_errorf("ocr_reducer_create_custom: two arguments are named '%s'", a->name);
                return OCR_USAGE;
            }
    }
    return OCR_OK;
}

/* ---- the caller's text -------------------------------------------------------- */

/* Why text may not go into the kernel, or NULL. `expr`: one expression (one
 * line, no ';', comment or quote, brackets balanced); else declarations
 * (brackets balanced outside comments and character constants). Neither may
 * hold a '#', "%:" (its digraph) or "??" (a trigraph's start). */
static const char *text_problem(const char *s, int expr) {
    static const char splice[] = "holds a '\\' outside a character constant or a \"??\" (the "
                                 "compiler would splice lines there)";
    char stack[256];
    size_t depth = 0;
    if (strstr(s, "??")) return splice; /* ??/ is a backslash, ??= a '#', in comments too */
    for (const char *p = s; *p; ++p) {
        if (*p == '#' || (p[0] == '%' && p[1] == ':')) return "holds a '#' (no preprocessor lines)";
        if (p[0] == '/' && (p[1] == '*' || p[1] == '/')) {
            if (expr) return "holds a comment";
            const char *end = p[1] == '*' ? strstr(p + 2, "*/") : strchr(p, '\n');
            if (!end && p[1] == '*') return "holds an unterminated comment";
            if (!end) end = p + strlen(p);
            if (memchr(p, '\\', (size_t)(end - p))) return splice; /* a comment going on */
            if (!*end) break;
            p = end + (p[1] == '*');
            continue;
        }
        if (expr && strchr(";\"'\n\r", *p)) return "holds a ';', a quote or a line break";
        if (*p == '\\') return splice;
        if (*p == '\'') { /* a character constant: its brackets are no brackets */
            p += 1 + (p[1] == '\\');
            if (p[-1] == '\\' && (*p == '\n' || *p == '\r')) return splice;
            if (!*p || !p[1] || p[1] != '\'') return "holds a character constant it does not end";
            ++p;
            continue;
        }
        if (*p == '"') return "holds a string";
        const char *open = strchr("([{", *p), *close = strchr(")]}", *p);
        if (open) {
            if (depth == sizeof stack) return "nests brackets too deep";
            stack[depth++] = *open;
        } else if (close && (depth == 0 || stack[--depth] != "([{"[close - ")]}"])) {
            return "closes a bracket it did not open";
        }
    }
    return depth ? "leaves a bracket open" : NULL;
}

static ocr_status check_text(const char *what, const char *s, int expr, int required) {
    const char *why = !s                             ? (required ? "is missing (NULL)" : NULL)
                      : expr && !s[strspn(s, " \t")] ? "is empty"
                                                     : text_problem(s, expr);
    if (!why) return OCR_OK;
    ocr_errorf("ocr_reducer_create_custom: the %s %s: %s", what, why, s ? s : "");
    return OCR_USAGE;
}

static ocr_status check_result(const ocr_custom_spec *sp) {
    ocr_status st;
    if (!sp->struct_decl) return check_type("the result", sp->type);
    if ((st = check_name("struct", sp->struct_name)) != OCR_OK ||
        (st = check_text("struct_decl", sp->struct_decl, 0, 1)) != OCR_OK)
        return st;
    if (sp->struct_size == 0 || sp->struct_size > 4096) {
        ocr_errorf("ocr_reducer_create_custom: struct_size %zu (1 .. 4096 bytes)", sp->struct_size);
        return OCR_USAGE;
    }
    return OCR_OK;
}

ocr_status ocr_custom_spec_read(const ocr_custom_spec *spec, ocr_custom_spec *out) {
    ocr_status st;
    memset(out, 0, sizeof *out);
    if (!spec) {
        ocr_errorf("ocr_reducer_create_custom: spec must not be NULL");
        return OCR_USAGE;
    }
    size_t n = spec->size ? spec->size : sizeof *spec;
    if ((st = ocr_sized_read(spec, n, sizeof *spec, "ocr_custom_spec", out)) != OCR_OK) return st;
    int buffers = 0;
    for (size_t k = 0; out->args && k < out->num_args; ++k)
        buffers += out->args[k].is_buffer != 0;
    if (!out->map && !buffers) {
        ocr_errorf("ocr_reducer_create_custom: no map and no buffer argument to read");
        return OCR_USAGE;
    }
    if ((st = check_args(out)) != OCR_OK || (st = check_result(out)) != OCR_OK ||
        (st = check_text("neutral", out->neutral, 1, 1)) != OCR_OK ||
        (st = check_text("reduce", out->reduce, 1, 1)) != OCR_OK ||
        (st = check_text("map", out->map, 1, 0)) != OCR_OK ||
        (st = check_text("preamble", out->preamble, 0, 0)) != OCR_OK)
        return st;
    return OCR_OK;
}

/* ---- the prelude -------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void add(text *t, const char *fmt, ...) {
    va_list ap;
    for (int tries = 0; !t->failed && tries < 2; ++tries) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) t->failed = 1;
        if (t->failed || (t->s && (size_t)n < t->cap - t->len)) {
            t->len += t->failed ? 0 : (size_t)n;
            return;
        }
        size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *p = realloc(t->s, cap);
        if (!p)
            t->failed = 1;
        else
            t->s = p, t->cap = cap;
    }
}

static int any_double(const ocr_custom_spec *sp) {
    int d = !sp->struct_decl && sp->type == OCR_DOUBLE;
    for (size_t k = 0; k < sp->num_args; ++k)
        d |= sp->args[k].type == OCR_DOUBLE;
    return d;
}

/* The arguments: as kernel parameters (a buffer with its offset), as the
 * map's parameters, as the map's arguments (a buffer from its offset), and
 * as the kernel passes its parameters on. With none, one unused uint keeps
 * the lists well-formed. */
enum { KERNEL_PARAMS, MAP_PARAMS, MAP_ARGS, FORWARD };
static void add_params(text *t, const ocr_custom_spec *sp, int which) {
    if (!sp->num_args) {
        add(t, which == MAP_ARGS  ? "0u"
               : which == FORWARD ? "ocr_rk_none"
                                  : "const uint ocr_rk_none");
        return;
    }
    for (size_t k = 0; k < sp->num_args; ++k) {
        const ocr_custom_arg *a = &sp->args[k];
        const char *tn = ocr_type_name(a->type), *sep = k ? ", " : "";
        if (which == FORWARD)
            add(t, a->is_buffer ? "%socr_rk_p%zu, ocr_rk_o%zu" : "%socr_rk_p%zu", sep, k, k);
        else if (which == MAP_ARGS)
            add(t, a->is_buffer ? "%socr_rk_p%zu + ocr_rk_o%zu" : "%socr_rk_p%zu", sep, k, k);
        else if (a->is_buffer && which == KERNEL_PARAMS)
            add(t, "%s__global const %s *OCR_RK_RESTRICT ocr_rk_p%zu, const ulong ocr_rk_o%zu", sep,
                tn, k, k);
        else if (a->is_buffer)
            add(t, "%s__global const %s *%s", sep, tn, a->name);
        else if (which == KERNEL_PARAMS)
            add(t, "%sconst %s ocr_rk_p%zu", sep, tn, k);
        else
            add(t, "%sconst %s %s", sep, tn, a->name);
    }
}

char *ocr_custom_prelude(const ocr_custom_spec *sp) {
    text t = {NULL, 0, 0, 0};
    const char *first = NULL;
    for (size_t k = 0; k < sp->num_args && !first; ++k)
        if (sp->args[k].is_buffer) first = sp->args[k].name;
    add(&t, "/* the prelude of a custom reducer (ocr_custom_spec.c) */\n");
    if (any_double(sp)) add(&t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    if (sp->struct_decl)
        add(&t,
            "#line 1 \"struct_decl\"\n%s\n#line 1 \"(library)\"\ntypedef %s ocr_rk_acc;\n"
            "typedef char ocr_rk_struct_size_is_%zu[sizeof(ocr_rk_acc) == %zu ? 1 : -1];\n",
            sp->struct_decl, sp->struct_name, sp->struct_size, sp->struct_size);
    else
        add(&t, "typedef %s ocr_rk_acc;\n", ocr_type_name(sp->type));
    if (sp->preamble) add(&t, "#line 1 \"preamble\"\n%s\n", sp->preamble);
    /* Each caller's text starts a line of its own, right after its #line, so
     * that a diagnostic's line and column are the text's own ("reduce:1:3"
     * for "a+", not the column past the wrapper's code). */
    add(&t,
        "#line 1 \"(library)\"\nstatic ocr_rk_acc ocr_rk_neutral(void) { const ocr_rk_acc "
        "ocr_rk_v =\n"
        "#line 1 \"neutral\"\n%s; return ocr_rk_v; }\n",
        sp->neutral);
    add(&t,
        "#line 1 \"(library)\"\nstatic ocr_rk_acc ocr_rk_reduce(const ocr_rk_acc a, const "
        "ocr_rk_acc b) { return (\n#line 1 \"reduce\"\n%s); }\n",
        sp->reduce);
    add(&t, "#line 1 \"(library)\"\nstatic ocr_rk_acc ocr_rk_map(const ulong i, ");
    add_params(&t, sp, MAP_PARAMS);
    if (sp->map)
        add(&t, ") { return (\n#line 1 \"map\"\n%s); }\n", sp->map);
    else
        add(&t, ") { return %s[i]; }\n", first);
    add(&t, "#define OCR_RK_PARAMS ");
    add_params(&t, sp, KERNEL_PARAMS);
    add(&t, "\n#define OCR_RK_ARGS ");
    add_params(&t, sp, MAP_ARGS);
    add(&t, "\n#define OCR_RK_FORWARD ");
    add_params(&t, sp, FORWARD);
    add(&t, "\n#line 1 \"custom.cl\"\n");
    if (t.failed) {
        free(t.s);
        ocr_errorf("out of host memory");
        return NULL;
    }
    return t.s;
}
