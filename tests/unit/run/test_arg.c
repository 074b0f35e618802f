/*
 * test_arg.c - reduce7's argmin and argmax against an exact host reference,
 * on data made to catch the mistakes a first pass that keeps values (not
 * keys) in its lanes can make (cl/reduce7.cl): ties within and across lanes
 * and groups, the extreme alone in the head or the tail, all values equal,
 * all the worst value, all NaN, NaN first or last, +-0.0, random bits.
 *
 *   test_arg KERNEL_DIR GEOM TYPES [SEEDS]
 *     GEOM: strided or blocked, optionally :W:G (work-group size, groups;
 *           0 or nothing: the device's default)
 *     TYPES: a comma list of int uint long ulong float double char uchar short
 *           ushort half, or all
 *     SEEDS: seeds per random data set (default 2)
 *
 * Every case runs argmin and argmax at three offsets into the buffer (0, 1
 * and VEC - 1: a head before the first vector load), between guards that
 * would win if read, and is checked two ways:
 *  - all passes on the device (later passes read keys; the one-launch finish
 *    where the device has it): the index and value of the reference, NumPy's
 *    rule written out (the first index of the extreme, a NaN beats every
 *    number and the first NaN wins, -0.0 == +0.0), which must also agree
 *    with the library's key-based reference;
 *  - the first pass alone, in the plan's grid and in the largest (groups
 *    that see no element): each group's key is the identity or the key of
 *    the element at its index, no index twice, and they combine to the answer.
 * Each failure prints its case; the last line reads "test_arg: N checks, N
 * failed" (exit 1 on any failure, 2 on a usage or set-up error). To replay:
 * TEST_ARG_N=n runs size n alone, TEST_ARG_TRACE=1 prints each case first.
 */
#include "opencl.h"
#include "check.h"
#include "in_list.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static ocr_device *dev;
static cl_context ctx;
static cl_command_queue q;
static int reported; /* failures printed (the rest are counted only) */

enum {
    RANDOM_BITS, /* any bit pattern: NaN, infinities, subnormals for floats */
    TIES,        /* values in [-2, 2]: the extreme many times over */
    EQUAL,       /* every value the same */
    ALL_WORST,   /* every value the one lanes start from */
    ALL_NAN,
    NAN_FIRST, /* numbers, NaN at 0 and n / 2 */
    NAN_LAST,  /* numbers, NaN at n - 1 */
    ZEROS,     /* -0.0 and +0.0, and a worse number */
    ONE_AT,    /* the worst value but at `at` */
    TWO_AT,    /* small numbers, the extreme at `at` and at n - 1 */
    ASCENDING,
    DESCENDING,
    NPATTERNS
};
static const char *const pattern_names[] = {"random_bits", "ties",      "equal",     "all_worst",
                                            "all_nan",     "nan_first", "nan_last",  "zeros",
                                            "one_at",      "two_at",    "ascending", "descending"};

typedef struct {
    ocr_type t;
    ocr_op o;
    int pattern;
    uint64_t n, off, at, seed;
} arg_case;

/* splitmix64 */
static uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* ---- values ------------------------------------------------------------ */

static size_t es_of(ocr_type t) {
    return ocr_type_size(t);
}
static int is_fl(ocr_type t) { /* float, double, half */
    return ocr_type_is_float(t);
}
static int is_signed_int(ocr_type t) {
    return t == OCR_INT || t == OCR_LONG || t == OCR_CHAR || t == OCR_SHORT;
}

/* x[i] = raw bits (the low bytes of r: little-endian). */
static void put_bits(ocr_type t, void *x, uint64_t i, uint64_t r) {
    memcpy((char *)x + i * es_of(t), &r, es_of(t));
}

/* x[i] = the number v (unsigned types: v + 8, so [-2, 2] stays ordered). */
static void put_num(ocr_type t, void *x, uint64_t i, int64_t v) {
    float f = (float)v;
    double d = (double)v;
    if (t == OCR_HALF) /* rounded to a half: large v may tie, as any data may */
        put_bits(t, x, i, ocr_float_to_half(f));
    else if (t == OCR_FLOAT || t == OCR_DOUBLE)
        memcpy((char *)x + i * es_of(t), t == OCR_FLOAT ? (void *)&f : (void *)&d, es_of(t));
    else
        put_bits(t, x, i, (uint64_t)(is_signed_int(t) ? v : v + 8));
}

/* The type's largest (top) or smallest value: infinities for floats. */
static void put_end(ocr_type t, void *x, uint64_t i, int top) {
    const uint64_t sign = 1ull << (es_of(t) * 8 - 1);
    const uint64_t inf = t == OCR_HALF    ? 0x7C00u
                         : t == OCR_FLOAT ? 0x7F800000u
                                          : 0x7FF0000000000000ull;
    if (is_fl(t))
        put_bits(t, x, i, top ? inf : inf | sign);
    else if (is_signed_int(t))
        put_bits(t, x, i, top ? sign - 1 : sign);
    else
        put_bits(t, x, i, top ? sign | (sign - 1) : 0);
}

static void put_nan(ocr_type t, void *x, uint64_t i) {
    put_bits(t, x, i,
             t == OCR_HALF    ? 0x7E00u
             : t == OCR_FLOAT ? 0x7FC00000u
                              : 0x7FF8000000000000ull);
}

static void put_negzero(ocr_type t, void *x, uint64_t i) {
    put_bits(t, x, i, 1ull << (es_of(t) * 8 - 1)); /* the sign bit alone */
}

/* The worst value (argmax: the smallest) and the best that is a number. */
static void put_worst(const arg_case *c, void *x, uint64_t i) {
    put_end(c->t, x, i, c->o == OCR_ARGMIN);
}
static void put_best(const arg_case *c, void *x, uint64_t i) {
    put_end(c->t, x, i, c->o == OCR_ARGMAX);
}

/* The data sets made of numbers: element i, r drawn for it. */
static int64_t number(const arg_case *c, uint64_t i, uint64_t r) {
    switch (c->pattern) {
    case TIES:
        return (int64_t)(r % 5) - 2;
    case EQUAL:
        return 7;
    case ASCENDING:
        return (int64_t)i;
    case DESCENDING:
        return (int64_t)(c->n - i);
    case ZEROS: /* a number worse than zero */
        return c->o == OCR_ARGMAX ? -1 : 1;
    default: /* NAN_FIRST, NAN_LAST, TWO_AT */
        return (int64_t)(r % 101) - 50;
    }
}

/* x[0..n) for the case. */
static void fill(const arg_case *c, void *x) {
    const uint64_t n = c->n, s = mix(c->seed * 1000003u + (uint64_t)c->pattern);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t r = mix(s ^ i);
        if (c->pattern == RANDOM_BITS)
            put_bits(c->t, x, i, r);
        else if (c->pattern == ALL_WORST || c->pattern == ONE_AT)
            put_worst(c, x, i);
        else if (c->pattern == ALL_NAN)
            put_nan(c->t, x, i);
        else if (c->pattern == ZEROS && r % 3 == 1)
            put_negzero(c->t, x, i);
        else if (c->pattern == ZEROS && r % 3 == 2)
            put_num(c->t, x, i, 0);
        else
            put_num(c->t, x, i, number(c, i, r));
    }
    if (c->pattern == NAN_FIRST) put_nan(c->t, x, 0), put_nan(c->t, x, n / 2);
    if (c->pattern == NAN_LAST) put_nan(c->t, x, n - 1);
    if (c->pattern == ONE_AT) put_num(c->t, x, c->at, c->o == OCR_ARGMAX ? 1 : -1);
    if (c->pattern == TWO_AT) put_best(c, x, c->at), put_best(c, x, n - 1);
}

/* ---- the reference: NumPy's rule, value against value ------------------ */

/* Whether a beats b: a NaN beats every number, never another NaN. */
static int beats(const arg_case *c, const char *a, const char *b) {
    int gt, lt;
    if (is_fl(c->t)) {
        float fa, fb;
        double da, db;
        uint16_t ha, hb;
        if (c->t == OCR_HALF) /* its own decoding, not the kernel's vload_half */
            memcpy(&ha, a, 2), memcpy(&hb, b, 2), da = ocr_half_to_float(ha),
                                                  db = ocr_half_to_float(hb);
        else if (c->t == OCR_FLOAT)
            memcpy(&fa, a, 4), memcpy(&fb, b, 4), da = fa, db = fb;
        else
            memcpy(&da, a, 8), memcpy(&db, b, 8);
        if (isnan(db)) return 0;
        if (isnan(da)) return 1;
        gt = da > db, lt = da < db;
    } else if (is_signed_int(c->t)) {
        int64_t ia = 0, ib = 0;
        int32_t i32;
        int16_t i16;
        int8_t i8;
        if (c->t == OCR_CHAR)
            memcpy(&i8, a, 1), ia = i8, memcpy(&i8, b, 1), ib = i8;
        else if (c->t == OCR_SHORT)
            memcpy(&i16, a, 2), ia = i16, memcpy(&i16, b, 2), ib = i16;
        else if (c->t == OCR_INT)
            memcpy(&i32, a, 4), ia = i32, memcpy(&i32, b, 4), ib = i32;
        else
            memcpy(&ia, a, 8), memcpy(&ib, b, 8);
        gt = ia > ib, lt = ia < ib;
    } else {
        uint64_t ua = 0, ub = 0;
        memcpy(&ua, a, es_of(c->t)), memcpy(&ub, b, es_of(c->t)); /* little-endian */
        gt = ua > ub, lt = ua < ub;
    }
    return c->o == OCR_ARGMAX ? gt : lt;
}

static uint64_t reference(const arg_case *c, const char *x) {
    const size_t es = es_of(c->t);
    uint64_t best = 0;
    for (uint64_t i = 1; i < c->n; ++i)
        if (beats(c, x + i * es, x + best * es)) best = i;
    return best;
}

/* ---- the device -------------------------------------------------------- */

static void describe(const arg_case *c, const char *geom) {
    printf("  case: %s %s %s n=%llu off=%llu seed=%llu", ocr_type_name(c->t), ocr_op_name(c->o),
           pattern_names[c->pattern], (unsigned long long)c->n, (unsigned long long)c->off,
           (unsigned long long)c->seed);
    if (c->pattern == ONE_AT || c->pattern == TWO_AT) printf(" at=%llu", (unsigned long long)c->at);
    printf(" (%s)\n", geom);
}

#define CASE_EXPECT(cond, c, geom, ...)                                                            \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            ++check_failures;                                                                      \
            if (++reported <= 30) {                                                                \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                putchar('\n');                                                                     \
                describe(c, geom);                                                                 \
            }                                                                                      \
        }                                                                                          \
    } while (0)

typedef struct {
    ocr_kernel *k;
    cl_mem in, scratch[2], out;
    size_t in_cap;        /* elements `in` holds */
    uint64_t max_groups;  /* the first pass's largest grid */
    ocr_arg_key *partial; /* host copy of a first pass's keys */
    const char *geom;
} rig;

static cl_mem buffer(size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_OK(err);
    return m;
}

/* Uploads x[0..n) at element off, guards around it that would win if read
 * (NaN, or the best end of the type). */
static void upload(rig *r, const arg_case *c, const char *x) {
    const size_t es = es_of(c->t), total = c->off + c->n + 8;
    static char *host;
    static size_t host_cap;
    if (total * es > host_cap) {
        free(host);
        host_cap = total * es;
        host = malloc(host_cap);
        if (!host) exit(2);
    }
    for (size_t i = 0; i < total; ++i)
        if (is_fl(c->t))
            put_nan(c->t, host, i);
        else
            put_best(c, host, i);
    memcpy(host + c->off * es, x, c->n * es);
    if (total > r->in_cap) {
        if (r->in) clReleaseMemObject(r->in);
        r->in = buffer(total * es);
        r->in_cap = total;
    }
    CL_OK(clEnqueueWriteBuffer(q, r->in, CL_TRUE, 0, total * es, host, 0, NULL, NULL));
}

/* The first pass alone over `groups` groups: every key checked. */
static void first_pass(rig *r, const arg_case *c, const char *x, uint64_t groups, uint64_t want) {
    const size_t es = es_of(c->t);
    const uint64_t L = r->k->geom.local_size;
    ocr_pass s = {c->n, groups, groups, L, groups * L, 0};
    ocr_status st = ocr_pass_enqueue(q, r->k, &s, r->in, c->off, r->scratch[0], 0, 0, NULL, NULL);
    CASE_EXPECT(st == OCR_OK, c, r->geom, "first pass over %llu groups: status %d",
                (unsigned long long)groups, (int)st);
    if (st != OCR_OK) return;
    CL_OK(clEnqueueReadBuffer(q, r->scratch[0], CL_TRUE, 0, groups * sizeof *r->partial, r->partial,
                              0, NULL, NULL));
    for (uint64_t g = 0; g < groups; ++g) {
        const ocr_arg_key *p = &r->partial[g];
        int identity = p->key == 0 && p->index == UINT64_MAX;
        int real = p->index < c->n && p->key == ocr_arg_key_of(c->t, c->o, x + p->index * es);
        int twice = 0;
        for (uint64_t h = 0; h < g && real; ++h)
            twice |= r->partial[h].index == p->index;
        CASE_EXPECT(
            identity || (real && !twice), c, r->geom,
            "group %llu of %llu: key %#llx index %llu is %s", (unsigned long long)g,
            (unsigned long long)groups, (unsigned long long)p->key, (unsigned long long)p->index,
            real ? "another group's element too" : "neither the identity nor an element's key");
    }
    ocr_value v = ocr_arg_finish(r->partial, groups, c->t, c->o);
    CASE_EXPECT(v.arg.index == want, c, r->geom,
                "first pass over %llu groups: index %llu, want %llu", (unsigned long long)groups,
                (unsigned long long)v.arg.index, (unsigned long long)want);
}

/* Every pass on the device down to one key. */
static void all_passes(rig *r, const arg_case *c, const char *x, uint64_t want) {
    ocr_geometry g = r->k->geom;
    ocr_plan p;
    g.tree = 0; /* one launch at least, as the reducer plans: even n = 1 needs its key */
    ocr_pass_io io = {.in = r->in,
                      .scratch = {r->scratch[0], r->scratch[1]},
                      .last_out = r->out,
                      .in_off = c->off,
                      .events = 2};
    cl_event ev[1];
    unsigned nev = 0;
    ocr_arg_key got = {0, 0};
    ocr_status st = ocr_plan_make(&g, c->n, 1, &p);
    if (st == OCR_OK) st = ocr_passes_enqueue(q, r->k, &p, &io, ev, &nev);
    CASE_EXPECT(st == OCR_OK && p.leftover == 1, c, r->geom, "all passes: status %d", (int)st);
    if (st != OCR_OK) return;
    CL_OK(clEnqueueReadBuffer(q, r->out, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
    uint64_t key = ocr_arg_key_of(c->t, c->o, x + want * es_of(c->t));
    CASE_EXPECT(got.index == want && got.key == key, c, r->geom,
                "%u passes: index %llu key %#llx, want index %llu key %#llx", p.npasses,
                (unsigned long long)got.index, (unsigned long long)got.key,
                (unsigned long long)want, (unsigned long long)key);
    if (p.pass[0].groups < r->max_groups) first_pass(r, c, x, p.pass[0].groups, want);
    first_pass(r, c, x, r->max_groups, want);
}

static void run_case(rig *r, const arg_case *c, char *x) {
    if (getenv("TEST_ARG_TRACE")) describe(c, r->geom), fflush(stdout); /* before a crash */
    fill(c, x);
    uint64_t want = reference(c, x);
    ocr_value lib = ocr_arg_reduce(x, c->n, c->t, c->o);
    CASE_EXPECT(lib.arg.index == want, c, r->geom, "the references disagree: %llu, %llu",
                (unsigned long long)lib.arg.index, (unsigned long long)want);
    upload(r, c, x);
    all_passes(r, c, x, want);
}

/* ---- the matrix -------------------------------------------------------- */

static const uint64_t sizes[] = {1,  2,  3,  4,  5,   7,    8,    9,    16,
                                 17, 33, 63, 65, 257, 1025, 4099, 65537};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Where ONE_AT and TWO_AT put the extreme: both ends, n / 2. */
static int positions(uint64_t n, uint64_t *at) {
    const uint64_t cand[] = {0, 1, 2, 3, 4, n / 2, n - 4, n - 3, n - 2, n - 1};
    int k = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; ++i) {
        int seen = cand[i] >= n;
        for (int j = 0; j < k; ++j)
            seen |= at[j] == cand[i];
        if (!seen) at[k++] = cand[i];
    }
    return k;
}

/* Every data set at one size and offset. */
static void run_size(rig *r, arg_case c, unsigned seeds, char *x) {
    const int is_float = is_fl(c.t);
    for (c.pattern = 0; c.pattern < NPATTERNS; ++c.pattern) {
        if (!is_float && c.pattern >= ALL_NAN && c.pattern <= ZEROS) continue;
        int random = c.pattern == RANDOM_BITS || c.pattern == TIES || c.pattern == ZEROS ||
                     c.pattern == TWO_AT;
        uint64_t at[10] = {0};
        int na = c.pattern == ONE_AT || c.pattern == TWO_AT ? positions(c.n, at) : 1;
        for (c.seed = 1; c.seed <= (random ? seeds : 1); ++c.seed)
            for (int a = 0; a < na; ++a) {
                c.at = at[a];
                run_case(r, &c, x);
            }
    }
}

/* Every size (or $TEST_ARG_N alone) at offsets 0, 1 and VEC - 1. */
static void run_type_op(rig *r, arg_case c, unsigned seeds, char *x) {
    /* small types load 4 per vector (VEC = 4, cl/reduce7.cl) */
    const uint64_t vec = 16 / es_of(c.t) > 4 ? 4 : 16 / es_of(c.t), offs[] = {0, 1, vec - 1};
    const char *only = getenv("TEST_ARG_N");
    for (size_t s = 0; s < NSIZES; ++s)
        for (size_t o = 0; o < (vec == 2 ? 2 : 3); ++o) {
            if (only && sizes[s] != strtoull(only, NULL, 10)) continue;
            c.n = sizes[s], c.off = offs[o];
            run_size(r, c, seeds, x);
        }
}

/* Builds reduce7 for (t, o) and runs every case; 0, or 2 if it cannot. */
static int run_kernel(const char *dir, const char *geom, int access, size_t w, size_t g, ocr_type t,
                      ocr_op o, unsigned seeds, char *x) {
    ocr_build_request rq = {0};
    rq.spec = *ocr_kernel_find("reduce7");
    rq.kernel_dir = dir;
    rq.type = t, rq.op = o;
    rq.local_size = w, rq.groups = g, rq.access = access;
    rig r = {0};
    r.geom = geom;
    if (ocr_kernel_build(dev, &rq, &r.k) != OCR_OK) {
        printf("FAIL: reduce7 %s %s (%s) does not build\n", ocr_type_name(t), ocr_op_name(o), geom);
        return 2;
    }
    r.max_groups = r.k->geom.max_groups;
    r.partial = malloc(r.max_groups * sizeof *r.partial);
    if (!r.partial) exit(2);
    r.scratch[0] = buffer(r.max_groups * sizeof(ocr_arg_key));
    r.scratch[1] = buffer(r.max_groups * sizeof(ocr_arg_key));
    r.out = buffer(sizeof(ocr_arg_key));
    arg_case c = {t, o, 0, 0, 0, 0, 0};
    run_type_op(&r, c, seeds, x);
    clReleaseMemObject(r.in), clReleaseMemObject(r.out);
    clReleaseMemObject(r.scratch[0]), clReleaseMemObject(r.scratch[1]);
    free(r.partial);
    ocr_kernel_release(r.k);
    return 0;
}

static void print_message(void *user, const char *message) {
    (void)user;
    printf("oclReduction: %s\n", message);
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: test_arg KERNEL_DIR strided|blocked[:W[:G]] TYPES [SEEDS]\n");
        return 2;
    }
    const char *dir = argv[1], *geom = argv[2], *types = argv[3];
    unsigned seeds = argc == 5 ? (unsigned)strtoul(argv[4], NULL, 10) : 2;
    int access = !strncmp(geom, "strided", 7) ? 1 : !strncmp(geom, "blocked", 7) ? 2 : 0;
    size_t w = 0, g = 0;
    const char *p = strchr(geom, ':');
    if (!access) {
        fprintf(stderr, "test_arg: unknown geometry '%s'\n", geom);
        return 2;
    }
    if (p) {
        char *e;
        w = (size_t)strtoul(p + 1, &e, 10);
        if (*e == ':') g = (size_t)strtoul(e + 1, NULL, 10);
    }
    ocr_set_message_callback(print_message, NULL);
    ocr_device_choice choice = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    if (ocr_device_open(&choice, &dev) != OCR_OK) return 2;
    ctx = ocr_device_context(dev), q = ocr_device_queue(dev);
    int fp64 = ocr_device_get_info(dev)->fp64, rc = 0;
    char *x = malloc(sizes[NSIZES - 1] * 8);
    if (!x) return 2;
    for (int t = 0; t < OCR_NTYPES && !rc; ++t) {
        if (!in_list(types, ocr_type_name((ocr_type)t))) continue;
        if (t == OCR_DOUBLE && !fp64) {
            printf("skip double: the device has no fp64\n");
            continue;
        }
        for (int o = OCR_ARGMIN; o <= OCR_ARGMAX && !rc; ++o)
            rc = run_kernel(dir, geom, access, w, g, (ocr_type)t, (ocr_op)o, seeds, x);
    }
    free(x);
    ocr_device_close(dev);
    if (rc) return rc;
    if (!check_count) {
        printf("test_arg: no type in '%s'\n", types);
        return 2;
    }
    return check_summary("test_arg");
}
