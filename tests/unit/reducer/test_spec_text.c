/* test_spec_text.c - a custom spec's text checked as the compiler reads it,
 * and build options that redefine OpenCL C, refused by every create call.
 *
 *   test_spec_text spellings   the splices of issue 51 (a split %: digraph, a
 *                              line comment going on, a string), each
 *                              refused with OCR_USAGE by ocr_reducer_create_custom;
 *                              legitimate specs ('\n' in a character constant,
 *                              comments) still build and sum right
 *   test_spec_text fuzz SEED   2000 texts of splice, comment, digraph and
 *                              trigraph fragments: any the spec check accepts
 *                              holds no directive and no string once spliced
 *                              and stripped of comments (an independent
 *                              reference reading below)
 *   test_spec_text options     -Dfloat=int, -D float=int, -Dbarrier(x)=...,
 *                              -Uget_global_id refused (OCR_USAGE, the name in
 *                              the message) by each create call; -DMY_THING=1
 *                              builds */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"
#include "ocr_reducer_priv.h"

#include <oclreduction/ocr_reducer.h>
#include <stdint.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

/* A float sum of x with a preamble; map and reduce of the caller's. */
static ocr_custom_spec spec_of(const ocr_custom_arg *ax, const char *pre, const char *map) {
    ocr_custom_spec sp = OCR_CUSTOM_SPEC;
    sp.args = ax, sp.num_args = 1, sp.map = map, sp.reduce = "a + b", sp.neutral = "0.0f",
    sp.preamble = pre, sp.type = OCR_FLOAT;
    return sp;
}

static ocr_status create_custom(const char *pre, const char *map, const char *options, float *sum) {
    ocr_custom_arg ax = {"x", OCR_FLOAT, 1};
    ocr_custom_spec sp = spec_of(&ax, pre, map);
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.build_options = options;
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create_custom(ctx, dev, &sp, &o, &r);
    CHECK((st == OCR_OK) == (r != NULL));
    if (r && sum) {
        enum { N = 1 << 20 };
        float *h = malloc(N * sizeof *h);
        for (size_t k = 0; h && k < N; ++k)
            h[k] = 1.0f;
        cl_int e;
        cl_mem b =
            clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *h, h, &e);
        CL_OK(e);
        ocr_custom_value v = {b, 0, {0}};
        CHECK(ocr_reducer_reduce_custom(r, q, N, &v, sum) == OCR_OK);
        clReleaseMemObject(b);
        free(h);
    }
    ocr_reducer_release(r);
    return st;
}

static void test_spellings(void) {
    static const char *const pre[] = {
        "%\\\n:define MYVAL 5\n",
        "// \\\n/*\n#define MYVAL 5\n// */\n",
        "%\\\n:define get_group_id(d) 0\n",
        "%\\ \t\n:define get_group_id(d) 0\n",
        "/* *\\\n/\n#define MYVAL 5\n/* */",
        "// ?\?/\n#define MYVAL 5\n",
        "?\?=define MYVAL 5\n",
        "float f(float v) { return v; } // \\",
        "constant char s = '\\\n'; ",
        "constant char *s = \\\n\"str\";",
        "float g(float v) { return v; } \\\n",
    };
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; ++k) {
        float sum = 0;
        ocr_status st = create_custom(pre[k], NULL, NULL, &sum);
        EXPECT(st == OCR_USAGE, "preamble %zu: %s (sum %g)", k, ocr_status_name(st), sum);
    }
    static const char *const maps[] = {"x[i] \\\n+ 0", "x[i] ?\?/\n+ 0", "x[i] + '\\\n'"};
    for (size_t k = 0; k < sizeof maps / sizeof maps[0]; ++k)
        EXPECT(create_custom(NULL, maps[k], NULL, NULL) == OCR_USAGE, "map %zu", k);
    /* what specs use still builds and sums right */
    static const char *const fine[] = {
        "constant char nl = '\\n'; constant char q = '\\''; // a comment\n"
        "/* a block\n comment */ float twice(float v) { return v * 2.0f; }",
        "float twice(float v) { return v + v; } // last line, no line end",
    };
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; ++k) {
        float sum = 0;
        ocr_status st = create_custom(fine[k], "twice(x[i])", NULL, &sum);
        EXPECT(st == OCR_OK && sum == 2097152.0f, "fine %zu: %s %s, sum %g", k, ocr_status_name(st),
               ocr_reducer_last_error(NULL), sum);
    }
}

/* ---- the reference: phases 1-3 read simply, independently of the library ---- */

/* s with the trigraphs ?\?= and ?\?/ replaced, then each backslash, blanks
 * and line end removed. */
static void ref_splice(const char *s, char *t) {
    for (; *s;) {
        char c = *s;
        size_t w = 1;
        if (s[0] == '?' && s[1] == '?' && (s[2] == '=' || s[2] == '/'))
            c = s[2] == '=' ? '#' : '\\', w = 3;
        if (c == '\\') {
            const char *e = s + w;
            while (*e == ' ' || *e == '\t')
                ++e;
            if (*e == '\n') {
                s = e + 1;
                continue;
            }
        }
        *t++ = c, s += w;
    }
    *t = '\0';
}

/* 1 if the spliced t, comments as spaces, holds a line whose first token is
 * '#' or "%:", or a string literal. */
static int ref_directive_or_string(const char *t) {
    int bol = 1;
    while (*t) {
        if (t[0] == '/' && t[1] == '*') {
            const char *e = strstr(t + 2, "*/");
            if (!e) return 0; /* unterminated: the compiler refuses it */
            t = e + 2;
        } else if (t[0] == '/' && t[1] == '/') {
            while (*t && *t != '\n')
                ++t;
        } else if (*t == '\n') {
            bol = 1, ++t;
        } else if (*t == ' ' || *t == '\t') {
            ++t;
        } else if (bol && (*t == '#' || (t[0] == '%' && t[1] == ':'))) {
            return 1;
        } else if (*t == '"') {
            return 1;
        } else if (*t == '\'') {
            for (++t; *t && *t != '\'' && *t != '\n'; t += t[0] == '\\' && t[1] ? 2 : 1)
                ;
            t += *t == '\'', bol = 0;
        } else {
            bol = 0, ++t;
        }
    }
    return 0;
}

static void test_fuzz(uint64_t seed) {
    static const char *const frag[] = {"\\\n",  "\\ \n", "%",  ":",   "#",   "?\?=",       "?\?/",
                                       "/*",    "*/",    "//", "\"",  "'",   "define X 1", "\n",
                                       "'\\n'", "x",     " ",  "'a'", "f(1)"};
    enum { NF = sizeof frag / sizeof frag[0] };
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    int accepted = 0, directive = 0;
    for (int n = 0; n < 2000; ++n) {
        char text[512] = "", spliced[512];
        int parts = 1 + (int)(n % 12);
        for (int k = 0; k < parts; ++k) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            strcat(text, frag[s % NF]);
        }
        ref_splice(text, spliced);
        int bad = ref_directive_or_string(spliced);
        directive += bad;
        for (int expr = 0; expr < 2; ++expr) {
            ocr_custom_arg ax = {"x", OCR_FLOAT, 1};
            ocr_custom_spec sp = spec_of(&ax, expr ? NULL : text, expr ? text : "x[i]"), out;
            int ok = ocr_custom_spec_read(&sp, &out) == OCR_OK;
            accepted += ok;
            EXPECT(!(ok && bad), "%s accepted, yet it is a directive or a string: \"%s\"",
                   expr ? "map" : "preamble", text);
        }
    }
    printf("fuzz: %d of 4000 texts accepted, %d of 2000 a directive or a string\n", accepted,
           directive);
    EXPECT(accepted > 100 && directive > 100, "the fuzz tries both kinds");
}

/* ---- build options ------------------------------------------------------------ */

static void test_options(void) {
    static const struct {
        const char *opt, *name;
    } bad[] = {{"-Dfloat=int", "float"},
               {"-D float=int", "float"},
               {"-Dbarrier(x)=mem_fence(x)", "barrier"},
               {"-Uget_global_id", "get_global_id"},
               {"-U get_local_size", "get_local_size"},
               {"-D'float4=int4'", "float4"},
               {"-cl-std=CL1.2 --define-macro=uint=int", "uint"},
               {"-Datomic_inc(p)=0", "atomic_inc"},
               {"-DCLK_LOCAL_MEM_FENCE=0", "CLK_"},
               {"-UINFINITY", "INFINITY"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        ocr_reducer_options o = OCR_REDUCER_OPTIONS;
        o.build_options = bad[k].opt;
        ocr_reducer *r = NULL;
        for (int call = 0; call < 3; ++call) {
            ocr_status st = call == 0   ? ocr_reducer_create(ctx, dev, OCR_FLOAT, OCR_SUM, &o, &r)
                            : call == 1 ? ocr_reducer_create_widening(ctx, dev, OCR_INT, OCR_LONG,
                                                                      OCR_SUM, &o, &r)
                                        : create_custom(NULL, NULL, bad[k].opt, NULL);
            const char *msg = ocr_reducer_last_error(NULL);
            EXPECT(st == OCR_USAGE && !r && strstr(msg, bad[k].name) && strstr(msg, "OpenCL C"),
                   "create call %d, \"%s\": %s: %s", call, bad[k].opt, ocr_status_name(st), msg);
        }
    }
    float sum = 0;
    EXPECT(create_custom(NULL, NULL, "-DMY_THING=1 -D floaty=2", &sum) == OCR_OK &&
               sum == 1048576.0f,
           "-DMY_THING=1: %s, sum %g", ocr_reducer_last_error(NULL), sum);
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.build_options = "-DMY_THING=1";
    ocr_reducer *r = NULL;
    EXPECT(ocr_reducer_create(ctx, dev, OCR_FLOAT, OCR_SUM, &o, &r) == OCR_OK && r,
           "ocr_reducer_create -DMY_THING=1: %s", ocr_reducer_last_error(NULL));
    ocr_reducer_release(r);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_spec_text spellings | fuzz SEED | options\n");
        return 2;
    }
    if (!strcmp(argv[1], "fuzz")) {
        test_fuzz(argc > 2 ? strtoull(argv[2], NULL, 10) : 1);
        return check_summary("test_spec_text fuzz");
    }
    CL_OPEN_FIRST(dev, ctx, q);
    if (!strcmp(argv[1], "spellings"))
        test_spellings();
    else if (!strcmp(argv[1], "options"))
        test_options();
    else
        return fprintf(stderr, "unknown part %s\n", argv[1]), 2;
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary(argv[1]);
}
