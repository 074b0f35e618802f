/*
 * test_strided.c - ocr_reducer_reduce_strided (host/lib/reducer/ocr_strided.c,
 * cl/strided.cl): strided views reduced in place, against a host loop over
 * the same elements, bit for bit.
 *
 *   test_strided views TYPE [LOCAL GROUPS]
 *        every reducer that reads TYPE (a name, or all): each operator in
 *        the type's accumulator, each widening ocr_type_widens_to allows,
 *        argmin/argmax, and the accurate sum of float and double; each at n
 *        of 1, 2, 3, 63, 64, 65, 1023, 1025, 4103 and 2^20 + 13, strides 1,
 *        2, 3, 7, 64 and 1000, offsets 0 and 13 (where the view fits in 2^23
 *        elements). LOCAL GROUPS: the reducer's local_size and groups (0 0:
 *        its default geometry).
 *   test_strided one|few TYPE[:ACC] OP|accurate [LOCAL GROUPS]
 *        one reducer (TYPE read, combined in ACC, default its accumulator;
 *        accurate: the accurate sum) on those views (one), or on a few of
 *        them (few: n 1, 65, 1025, strides 3 and 64, offset 13), small
 *        enough for oclgrind.
 *   test_strided errors CL_DIR
 *        the usage errors (OCR_USAGE, nothing enqueued), the overlap rule
 *        (a result between the elements read is fine, one on them is not:
 *        same buffer, a sub-buffer, widening), a kernel_dir without
 *        strided.cl (OCR_IO), an out-of-order queue with a pending write, and
 *        calls in a row sharing scratch.
 *   test_strided fault TYPE OP
 *        for scripts/strided_fault_test.sh, under the fault shim: the calls
 *        of one strided call lie between two marker lines in the shim's
 *        trace (OCR_FAULT_TRACE); with OCR_FAULT naming one of them, the call
 *        fails with the call's status and a message naming it, and the same
 *        call right after gives the right value.
 *
 * The data are drawn from a seed, element by element, for each case: random
 * bits for integers (sums, products of odd numbers and xor wrap, exact in
 * any order), sparse bits for and/or, small integers for float sums and +-1
 * (with 2 and 0.5 at fixed places for float data) for float products, which
 * are exact in any order, random finite values for min, max, argmin and
 * argmax. A kernel that drops or repeats an element fails the sums
 * (scripts/strided_mutants_test.sh: TEST_STRIDED_KERNEL_DIR names a kernel
 * directory to build from). stderr must stay empty (the library prints
 * nothing).
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP    ((uint64_t)1 << 23) /* the longest view's span, in elements */
#define OFFSET 13                  /* the odd offset */

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static cl_mem res; /* 3 result elements: a guard, the result, a guard */
static uint64_t rng = 88172645463325252ull;

static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static int is_real(ocr_type t) {
    return t == OCR_FLOAT || t == OCR_DOUBLE || t == OCR_HALF;
}

static int is_signed(ocr_type t) {
    return t == OCR_INT || t == OCR_LONG || t == OCR_CHAR || t == OCR_SHORT;
}

/* ---- elements: stored, read back, as the accumulator takes them ---------- */

/* half <-> double of this file's own (the library's are not used) */
static double half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024.0 + m, e - 25) : ldexp((double)m, -24);
    if (e == 31) v = m ? NAN : INFINITY;
    return (h & 0x8000) ? -v : v;
}
static uint16_t half_of(double v) { /* v: 0, or a normal half exactly */
    uint16_t s = signbit(v) ? 0x8000 : 0;
    int e;
    if (v == 0) return s;
    double m = frexp(fabs(v), &e); /* |v| = m 2^e, m in [0.5, 1) */
    return (uint16_t)(s | (e + 14) << 10 | (uint16_t)((m * 2 - 1) * 1024));
}

/* Element j of type t from random bits: integers truncated, floats with
 * their bits (an infinity or NaN exponent made finite). */
static void store_bits(ocr_type t, void *h, uint64_t j, uint64_t b) {
    size_t es = ocr_type_size(t);
    if (t == OCR_HALF && ((b >> 10) & 31) == 31) b &= ~(uint64_t)0x4000;
    if (t == OCR_FLOAT && ((b >> 23) & 255) == 255) b &= ~((uint64_t)1 << 30);
    if (t == OCR_DOUBLE && ((b >> 52) & 2047) == 2047) b &= ~((uint64_t)1 << 62);
    memcpy((char *)h + j * es, &b, es); /* little-endian: the low bytes */
}

/* Element j of type t holding v (a small integer, or +-1, 2, 0.5 for reals). */
static void store_num(ocr_type t, void *h, uint64_t j, double v) {
    float f = (float)v;
    uint64_t b = 0;
    if (t == OCR_DOUBLE)
        memcpy(&b, &v, 8);
    else if (t == OCR_FLOAT)
        memcpy(&b, &f, 4);
    else if (t == OCR_HALF)
        b = half_of(v);
    else
        b = (uint64_t)(int64_t)v;
    memcpy((char *)h + j * ocr_type_size(t), &b, ocr_type_size(t));
}

/* Element j as a number: *x for reals, else *s (signed) or *u. */
static void load(ocr_type t, const void *h, uint64_t j, double *x, int64_t *s, uint64_t *u) {
    const char *p = (const char *)h + j * ocr_type_size(t);
    *x = 0, *s = 0, *u = 0;
    switch (t) {
    case OCR_INT:
        *s = *(const int32_t *)p;
        break;
    case OCR_UINT:
        *u = *(const uint32_t *)p;
        break;
    case OCR_LONG:
        *s = *(const int64_t *)p;
        break;
    case OCR_ULONG:
        *u = *(const uint64_t *)p;
        break;
    case OCR_FLOAT:
        *x = *(const float *)p;
        break;
    case OCR_DOUBLE:
        *x = *(const double *)p;
        break;
    case OCR_CHAR:
        *s = *(const int8_t *)p;
        break;
    case OCR_UCHAR:
        *u = *(const uint8_t *)p;
        break;
    case OCR_SHORT:
        *s = *(const int16_t *)p;
        break;
    case OCR_USHORT:
        *u = *(const uint16_t *)p;
        break;
    default:
        *x = half_value(*(const uint16_t *)p);
        break;
    }
}

/* Element j of `in` converted to `acc` as C converts (integers into ulong
 * keep their bits modulo 2^64). */
static ocr_value as_acc(ocr_type in, ocr_type acc, const void *h, uint64_t j) {
    double x;
    int64_t s;
    uint64_t u;
    ocr_value v;
    memset(&v, 0, sizeof v);
    load(in, h, j, &x, &s, &u);
    int real = is_real(in), sg = is_signed(in);
    switch (acc) {
    case OCR_INT:
        v.i = (int32_t)s;
        break;
    case OCR_UINT:
        v.u = (uint32_t)u;
        break;
    case OCR_LONG:
        v.l = sg ? s : (int64_t)u;
        break;
    case OCR_ULONG:
        v.ul = sg ? (uint64_t)s : u;
        break;
    case OCR_FLOAT:
        v.f = (float)x;
        break;
    default:
        v.d = real ? x : sg ? (double)s : (double)u;
        break;
    }
    return v;
}

/* ---- data and references ------------------------------------------------- */

/* count elements of `in` for op, combined in acc (see the file's comment). */
static void draw(ocr_type in, ocr_type acc, ocr_op op, void *h, uint64_t count) {
    const int accf = acc == OCR_FLOAT || acc == OCR_DOUBLE;
    const unsigned bits = (unsigned)ocr_type_size(in) * 8;
    for (uint64_t j = 0; j < count; ++j) {
        uint64_t b = next();
        if (accf && op == OCR_SUM) {
            store_num(in, h, j, (double)(int64_t)(b % 17) - 8);
        } else if (accf && op == OCR_PROD) { /* unsigned data: 1 (-1 would be 2^32 - 1) */
            double v = (b & 1) || !(is_real(in) || is_signed(in)) ? 1.0 : -1.0;
            if (is_real(in) && j % 97 == 0) v = 2.0;
            if (is_real(in) && j % 97 == 50) v = 0.5;
            store_num(in, h, j, v);
        } else if (op == OCR_PROD) {
            store_bits(in, h, j, b | 1);
        } else if (op == OCR_AND) {
            store_bits(in, h, j, b % 64 ? ~(uint64_t)0 : ~((uint64_t)1 << (b >> 32) % bits));
        } else if (op == OCR_OR) {
            store_bits(in, h, j, b % 64 ? 0 : (uint64_t)1 << (b >> 32) % bits);
        } else {
            store_bits(in, h, j, b);
        }
    }
}

/* The value and index of argmin/argmax over the view, as NumPy: the first
 * NaN, else the first of the extreme values (-0.0 == +0.0). */
static ocr_value host_arg(ocr_type in, ocr_op op, const void *h, uint64_t off, uint64_t n,
                          uint64_t stride) {
    uint64_t best = 0;
    double bx, x;
    int64_t bs, s;
    uint64_t bu, u;
    load(in, h, off, &bx, &bs, &bu);
    for (uint64_t i = 1; i < n; ++i) {
        load(in, h, off + i * stride, &x, &s, &u);
        int better;
        if (is_real(in))
            better = !isnan(bx) && (isnan(x) || (op == OCR_ARGMAX ? x > bx : x < bx));
        else if (is_signed(in))
            better = op == OCR_ARGMAX ? s > bs : s < bs;
        else
            better = op == OCR_ARGMAX ? u > bu : u < bu;
        if (better) best = i, bx = x, bs = s, bu = u;
    }
    ocr_type vt = ocr_type_is_storage(in) ? ocr_type_accumulator(in) : in;
    ocr_value v = as_acc(in, vt, h, off + best * stride);
    v.arg.index = best;
    return v;
}

/* The reduction of the view in a sequential loop. */
static ocr_value host_reduce(ocr_type in, ocr_type acc, ocr_op op, const void *h, uint64_t off,
                             uint64_t n, uint64_t stride) {
    if (ocr_op_is_arg(op)) return host_arg(in, op, h, off, n, stride);
    ocr_value a = ocr_identity(acc, op);
    for (uint64_t i = 0; i < n; ++i)
        a = ocr_combine(acc, op, a, as_acc(in, acc, h, off + i * stride));
    return a;
}

/* got == want: the same bits (floats: or both NaN; argmin/argmax: the same
 * index and an equal value, a NaN for a NaN). */
static int same(ocr_type in, ocr_type acc, ocr_op op, ocr_value got, ocr_value want) {
    ocr_type t = ocr_op_is_arg(op) && ocr_type_is_storage(in) ? ocr_type_accumulator(in) : acc;
    if (ocr_op_is_arg(op) && got.arg.index != want.arg.index) return 0;
    if (t == OCR_FLOAT && (isnan(got.f) || isnan(want.f))) return isnan(got.f) && isnan(want.f);
    if (t == OCR_DOUBLE && (isnan(got.d) || isnan(want.d))) return isnan(got.d) && isnan(want.d);
    if (ocr_op_is_arg(op) && t == OCR_FLOAT) return got.f == want.f;
    if (ocr_op_is_arg(op) && t == OCR_DOUBLE) return got.d == want.d;
    return !memcmp(&got, &want, ocr_type_size(t));
}

/* ---- the device ---------------------------------------------------------------- */

static cl_mem upload(const void *h, size_t bytes) {
    cl_int err;
    cl_mem b =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)h, &err);
    CL_OK(err);
    return b;
}

/* The strided call into element 1 of res (guards on both sides, checked);
 * *got its value as ocr_reducer_reduce gives it. */
static ocr_status device_reduce(ocr_reducer *r, ocr_type in, ocr_type acc, ocr_op op, cl_mem b,
                                uint64_t off, uint64_t n, uint64_t stride, ocr_value *got) {
    size_t rs = ocr_result_size(ocr_op_is_arg(op) ? in : acc, op);
    unsigned char guard[48], back[48];
    cl_event done = NULL;
    memset(guard, 0xA5, sizeof guard);
    CL_OK(clEnqueueWriteBuffer(q, res, CL_TRUE, 0, 3 * rs, guard, 0, NULL, NULL));
    ocr_status st = ocr_reducer_reduce_strided(r, q, b, off, n, stride, res, 1, 0, NULL, &done);
    if (st != OCR_OK) return st;
    CL_OK(clEnqueueReadBuffer(q, res, CL_TRUE, 0, 3 * rs, back, 1, &done, NULL));
    clReleaseEvent(done);
    EXPECT(!memcmp(back, guard, rs) && !memcmp(back + 2 * rs, guard, rs),
           "n %llu stride %llu: a guard element beside the result was written",
           (unsigned long long)n, (unsigned long long)stride);
    *got = ocr_result_value(ocr_op_is_arg(op) ? in : acc, op, back + rs);
    return OCR_OK;
}

/* ---- views ----------------------------------------------------------------------- */

static size_t g_local, g_groups;
static int g_few;

static const uint64_t sizes[] = {1, 2, 3, 63, 64, 65, 1023, 1025, 4103, (1u << 20) + 13};
static const uint64_t strides[] = {1, 2, 3, 7, 64, 1000};
#define NSIZES   (sizeof sizes / sizeof *sizes)
#define NSTRIDES (sizeof strides / sizeof *strides)

/* Whether the view (n, stride s, offset off) is one to run: within CAP, and
 * of the mode's (few, for oclgrind: n 1, 65 and 1025, strides 3 and 64, the
 * odd offset). On a grid the test sets (-g), 4103 elements already give each
 * work-item several and the reducer several passes: the 2^20 views, minutes
 * on a 2-core CPU there, are left to the default grid. */
static int chosen(uint64_t n, uint64_t s, uint64_t off) {
    if ((n - 1) * s >= CAP || (g_groups && n > 65536)) return 0;
    return !g_few || ((n == 1 || n == 65 || n == 1025) && (s == 3 || s == 64) && off == OFFSET);
}

static ocr_reducer *make(ocr_type in, ocr_type acc, ocr_op op, int accurate, ocr_status *st) {
    ocr_reducer *r = NULL;
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.local_size = g_local, o.groups = g_groups, o.accurate = accurate;
    o.kernel_dir = getenv("TEST_STRIDED_KERNEL_DIR"); /* a mutant's (strided_mutants_test.sh) */
    *st = ocr_reducer_create_widening(ctx, dev, in, acc, op, &o, &r);
    return r;
}

static const char *label(ocr_type in, ocr_type acc, ocr_op op, int accurate) {
    static char s[96];
    snprintf(s, sizeof s, "%s%s%s %s%s", ocr_type_name(in), acc != in ? " in " : "",
             acc != in ? ocr_type_name(acc) : "", ocr_op_name(op), accurate ? " (accurate)" : "");
    return s;
}

/* Every view of the file's comment, for one reducer. */
static void views(ocr_type in, ocr_type acc, ocr_op op, int accurate) {
    ocr_status st;
    ocr_reducer *r = make(in, acc, op, accurate, &st);
    EXPECT(st == OCR_OK, "%s: create: %s", label(in, acc, op, accurate),
           ocr_reducer_last_error(NULL));
    if (!r) return;
    size_t es = ocr_type_size(in);
    uint64_t count = 1;
    for (size_t si = 0; si < NSIZES; ++si)
        for (size_t ti = 0; ti < NSTRIDES; ++ti)
            for (uint64_t off = 0; off <= OFFSET; off += OFFSET)
                if (chosen(sizes[si], strides[ti], off) &&
                    off + (sizes[si] - 1) * strides[ti] >= count)
                    count = off + (sizes[si] - 1) * strides[ti] + 1;
    void *h = malloc(count * es);
    draw(in, acc, op, h, count);
    cl_mem b = upload(h, count * es);
    unsigned cases = 0, bad = 0;
    for (size_t si = 0; si < NSIZES; ++si)
        for (size_t ti = 0; ti < NSTRIDES; ++ti)
            for (uint64_t off = 0; off <= OFFSET; off += OFFSET) {
                uint64_t n = sizes[si], s = strides[ti];
                if (!chosen(n, s, off)) continue;
                ocr_value got, want = host_reduce(in, acc, op, h, off, n, s);
                ++cases;
                st = device_reduce(r, in, acc, op, b, off, n, s, &got);
                EXPECT(st == OCR_OK, "%s n %llu stride %llu offset %llu: %s",
                       label(in, acc, op, accurate), (unsigned long long)n, (unsigned long long)s,
                       (unsigned long long)off, ocr_reducer_last_error(r));
                if (st != OCR_OK) continue;
                char gs[64], ws[64];
                int ok = same(in, acc, op, got, want);
                bad += !ok;
                EXPECT(ok,
                       "%s n %llu stride %llu offset %llu: got %s (index %llu), want %s "
                       "(index %llu)",
                       label(in, acc, op, accurate), (unsigned long long)n, (unsigned long long)s,
                       (unsigned long long)off, ocr_value_str(acc, got, gs, sizeof gs),
                       (unsigned long long)got.arg.index, ocr_value_str(acc, want, ws, sizeof ws),
                       (unsigned long long)want.arg.index);
            }
    printf("%s %s: %u views\n", bad ? "FAIL" : "ok  ", label(in, acc, op, accurate), cases);
    clReleaseMemObject(b);
    free(h);
    ocr_reducer_release(r);
}

/* Every reducer that reads `in`. */
static void type_views(ocr_type in) {
    ocr_type acc = ocr_type_accumulator(in);
    for (int o = 0; o < OCR_NOPS; ++o) {
        ocr_op op = (ocr_op)o;
        if (!ocr_op_valid_for(op, acc)) continue;
        views(in, ocr_op_is_arg(op) ? in : acc, op, 0);
    }
    for (int t = 0; t < OCR_NTYPES; ++t) /* the explicit widenings */
        if ((ocr_type)t != in && (ocr_type)t != acc && ocr_type_widens_to(in, (ocr_type)t))
            for (int o = 0; o < OCR_ARGMIN; ++o)
                if (ocr_op_valid_for((ocr_op)o, (ocr_type)t)) views(in, (ocr_type)t, (ocr_op)o, 0);
    if (in == OCR_FLOAT || in == OCR_DOUBLE) views(in, in, OCR_SUM, 1);
    if (in == OCR_FLOAT) views(in, OCR_DOUBLE, OCR_SUM, 1);
}

/* ---- errors, overlap, queues ---------------------------------------------------- */

static void expect_usage(ocr_status st, ocr_reducer *r, cl_event done, const char *what,
                         const char *label) {
    const char *msg = ocr_reducer_last_error(r);
    EXPECT(st == OCR_USAGE, "%s: status %d (%s), expected OCR_USAGE", label, (int)st,
           ocr_status_name(st));
    EXPECT(strstr(msg, what), "%s: message \"%s\" lacks \"%s\"", label, msg, what);
    EXPECT(done == NULL, "%s: an event came back from a refused call", label);
    printf("ok   %s: \"%.90s%s\"\n", label, msg, strlen(msg) > 90 ? "..." : "");
}

/* The strided sum of n ints 0, 1, 2, ... from offset, stride apart, into
 * element ro of result buffer rb (int or long), read back. */
static int64_t sum_of(ocr_reducer *r, cl_mem b, uint64_t off, uint64_t n, uint64_t s, cl_mem rb,
                      size_t ro, size_t res_es, ocr_status *st) {
    cl_event done = NULL;
    int64_t v = 0;
    *st = ocr_reducer_reduce_strided(r, q, b, off, n, s, rb, ro, 0, NULL, &done);
    if (*st != OCR_OK) return 0;
    CL_OK(clEnqueueReadBuffer(q, rb, CL_TRUE, ro * res_es, res_es, &v, 1, &done, NULL));
    clReleaseEvent(done);
    return res_es == 4 ? (int64_t)(int32_t)v : v;
}

static int64_t want_sum(uint64_t off, uint64_t n, uint64_t s) { /* of off + i s, i < n */
    return (int64_t)(n * off + s * n * (n - 1) / 2);
}

static void argument_errors(ocr_reducer *r, cl_mem b) {
    cl_event done = NULL;
    ocr_status st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 0, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "stride", "stride 0");
    /* n 0: the identity, as every form (it was refused), also at the end */
    int64_t v = sum_of(r, b, 0, 0, 3, res, 0, 4, &st);
    EXPECT(st == OCR_OK && v == 0, "n 0: %d, %lld", (int)st, (long long)v);
    v = sum_of(r, b, 100, 0, 3, res, 0, 4, &st);
    EXPECT(st == OCR_OK && v == 0, "n 0 at the end: %d, %lld", (int)st, (long long)v);
    /* 100 ints: from 1, 3 apart, 33 reach element 97, 34 element 100 */
    v = sum_of(r, b, 1, 33, 3, res, 0, 4, &st);
    EXPECT(st == OCR_OK && v == want_sum(1, 33, 3), "33 elements 3 apart from 1: %d, %lld", (int)st,
           (long long)v);
    st = ocr_reducer_reduce_strided(r, q, b, 1, 34, 3, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "beyond the input buffer", "one element past the end");
    v = sum_of(r, b, 99, 1, 5, res, 0, 4, &st);
    EXPECT(st == OCR_OK && v == 99, "the last element alone: %d, %lld", (int)st, (long long)v);
    st = ocr_reducer_reduce_strided(r, q, b, 100, 1, 5, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "beyond the input buffer", "offset at the end");
    st = ocr_reducer_reduce_strided(r, q, b, 0, (uint64_t)1 << 62, 8, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "beyond the input buffer", "(n - 1) stride overflows");
    st = ocr_reducer_reduce_strided(r, q, b, 5, UINT64_MAX, 2, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "beyond the input buffer", "n of 2^64 - 1");
    st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 3, res, 12, 0, NULL, &done);
    expect_usage(st, r, done, "result buffer holds", "result_offset past the result buffer");
    /* offsets whose byte count, (offset + 1) * element size, wraps for some
     * element size: the count said is never a wrapped one (it was "needs
     * 0"), but larger than the offset, or "more than" (issue 51) */
    const size_t wraps[] = {SIZE_MAX / 8, SIZE_MAX / 4, SIZE_MAX / 2, SIZE_MAX};
    for (size_t k = 0; k < sizeof wraps / sizeof wraps[0]; ++k) {
        st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 3, res, wraps[k], 0, NULL, &done);
        const char *msg = ocr_reducer_last_error(r), *at = strstr(msg, "needs ");
        unsigned long long said = 0;
        int ok = at && (strncmp(at, "needs more than ", 16) == 0 ||
                        (sscanf(at, "needs %llu", &said) == 1 && said > wraps[k]));
        EXPECT(st == OCR_USAGE && strstr(msg, "result buffer holds") && ok,
               "result_offset %zu: %d, %s", wraps[k], (int)st, msg);
    }
    st = ocr_reducer_reduce_strided(r, q, NULL, 0, 10, 3, res, 0, 0, NULL, &done);
    expect_usage(st, r, done, "must not be NULL", "no input buffer");
    st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 3, res, 0, 1, NULL, &done);
    expect_usage(st, r, done, "wait list", "a wait list without events");
}

/* The result element in the input's buffer: between the elements read it is
 * fine (and right), on one of them OCR_USAGE; through a sub-buffer too. */
static void overlap(ocr_reducer *r, cl_mem b) {
    cl_event done = NULL;
    ocr_status st;
    /* elements 0, 4, ..., 36 read; 2 is not, 8 is */
    int64_t v = sum_of(r, b, 0, 10, 4, b, 2, 4, &st);
    EXPECT(st == OCR_OK && v == want_sum(0, 10, 4), "result between the elements: %d, %lld",
           (int)st, (long long)v);
    int two = 2;
    CL_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 2 * sizeof two, sizeof two, &two, 0, NULL, NULL));
    st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 4, b, 8, 0, NULL, &done);
    expect_usage(st, r, done, "overlaps the elements reduced", "result on an element read");
    cl_uint align_bits = 0;
    CL_OK(
        clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
    size_t at = align_bits / 8, e = at / sizeof(int); /* the sub-buffer's element in b */
    cl_buffer_region reg = {at, 64};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    CL_OK(err);
    /* 10 elements 2 apart from e: e is read; from e + 1: e is not */
    st = ocr_reducer_reduce_strided(r, q, b, e, 10, 2, sub, 0, 0, NULL, &done);
    expect_usage(st, r, done, "overlaps the elements reduced", "result in a sub-buffer, on one");
    int64_t want = 0;
    int *h = malloc((e + 30) * sizeof *h);
    CL_OK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, (e + 30) * sizeof *h, h, 0, NULL, NULL));
    for (uint64_t i = 0; i < 10; ++i)
        want += h[e + 1 + 2 * i];
    v = sum_of(r, b, e + 1, 10, 2, sub, 0, 4, &st);
    EXPECT(st == OCR_OK && v == want, "result in a sub-buffer, between: %d, %lld (want %lld)",
           (int)st, (long long)v, (long long)want);
    free(h);
    clReleaseMemObject(sub);
}

/* A long result (8 bytes) over int input elements (4): long element 1 is
 * ints 2 and 3, element 2 ints 4 and 5. */
static void overlap_widening(cl_mem b) {
    ocr_status st;
    cl_event done = NULL;
    ocr_reducer *r = NULL;
    CL_OK(ocr_reducer_create_widening(ctx, dev, OCR_INT, OCR_LONG, OCR_SUM, NULL, &r));
    int64_t v = sum_of(r, b, 1, 10, 4, b, 1, 8, &st); /* ints 1, 5, 9, ... */
    EXPECT(st == OCR_OK && v == want_sum(1, 10, 4), "long result between int elements: %d, %lld",
           (int)st, (long long)v);
    st = ocr_reducer_reduce_strided(r, q, b, 1, 10, 4, b, 2, 0, NULL, &done);
    expect_usage(st, r, done, "overlaps the elements reduced", "long result on an int read");
    ocr_reducer_release(r);
}

/* b: n ints 0, 1, 2, ... */
static cl_mem iota(uint64_t n) {
    int *h = malloc(n * sizeof *h);
    for (uint64_t i = 0; i < n; ++i)
        h[i] = (int)i;
    cl_mem b = upload(h, n * sizeof *h);
    free(h);
    return b;
}

/* kernel_dir with reduce7.cl and reduce_common.h but no strided.cl. */
static void no_kernel_file(const char *cl_dir) {
    char dir[] = "/tmp/test_strided_XXXXXX", cmd[1024];
    if (!mkdtemp(dir)) return;
    snprintf(cmd, sizeof cmd, "cp '%s/reduce7.cl' '%s/reduce_common.h' '%s'", cl_dir, cl_dir, dir);
    EXPECT(system(cmd) == 0, "%s", cmd);
    ocr_reducer *r = NULL;
    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    o.kernel_dir = dir;
    CL_OK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, &o, &r));
    cl_mem b = iota(100);
    cl_event done = NULL;
    ocr_status st = ocr_reducer_reduce_strided(r, q, b, 0, 10, 3, res, 0, 0, NULL, &done);
    const char *msg = ocr_reducer_last_error(r);
    EXPECT(st == OCR_IO && strstr(msg, "strided.cl"), "kernel_dir without strided.cl: %d, %s",
           (int)st, msg);
    printf("ok   kernel_dir without strided.cl: %s\n", ocr_status_name(st));
    ocr_status st2;
    int64_t v = sum_of(r, b, 0, 10, 1, res, 0, 4, &st2); /* stride 1: reduce7 alone */
    EXPECT(st2 == OCR_OK && v == want_sum(0, 10, 1), "stride 1 from kernel_dir: %lld",
           (long long)v);
    clReleaseMemObject(b);
    ocr_reducer_release(r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0, "%s", cmd);
}

/* An out-of-order queue: the view's write still pending (the call waits for
 * its event), several passes chained by events; then calls in a row on the
 * in-order queue sharing scratch, with a contiguous one between. */
static void queues(void) {
    cl_int err;
    uint64_t n = 3000000, s = 3, m = (n - 1) * s + 1;
    int *h = malloc(m * sizeof *h);
    for (uint64_t i = 0; i < m; ++i)
        h[i] = (int)i;
    cl_command_queue qo =
        clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err != CL_SUCCESS) { /* the device may have none */
        printf("ok   (no out-of-order queue: %d)\n", (int)err);
        qo = NULL;
    }
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, m * sizeof *h, NULL, &err);
    CL_OK(err);
    ocr_reducer *r = NULL;
    CL_OK(ocr_reducer_create_widening(ctx, dev, OCR_INT, OCR_LONG, OCR_SUM, NULL, &r));
    cl_mem rb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(int64_t), NULL, &err);
    CL_OK(err);
    cl_command_queue use = qo ? qo : q;
    cl_event ev[5] = {NULL, NULL, NULL, NULL, NULL}; /* the write, then each call's */
    CL_OK(clEnqueueWriteBuffer(use, b, CL_FALSE, 0, m * sizeof *h, h, 0, NULL, &ev[0]));
    ocr_status st = ocr_reducer_reduce_strided(r, use, b, 0, n, s, rb, 0, 1, &ev[0], &ev[1]);
    EXPECT(st == OCR_OK, "out-of-order queue: %s", ocr_reducer_last_error(r));
    int64_t v[4] = {0, 0, 0, 0};
    if (st == OCR_OK)
        CL_OK(clEnqueueReadBuffer(use, rb, CL_TRUE, 0, sizeof v[0], v, 1, &ev[1], NULL));
    EXPECT(v[0] == want_sum(0, n, s), "out-of-order queue: %lld, want %lld", (long long)v[0],
           (long long)want_sum(0, n, s));
    /* in a row on q: three views, a contiguous range between */
    st = ocr_reducer_reduce_strided(r, q, b, 7, 100001, 29, rb, 1, 0, NULL, &ev[2]);
    ocr_status st2 = ocr_reducer_reduce_into(r, q, b, 5, 2000000, rb, 2, 0, NULL, &ev[3]);
    ocr_status st3 = ocr_reducer_reduce_strided(r, q, b, 2, 40000, 200, rb, 3, 0, NULL, &ev[4]);
    EXPECT(st == OCR_OK && st2 == OCR_OK && st3 == OCR_OK, "calls in a row: %d %d %d", (int)st,
           (int)st2, (int)st3);
    CL_OK(clEnqueueReadBuffer(q, rb, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL));
    EXPECT(v[1] == want_sum(7, 100001, 29) && v[2] == want_sum(5, 2000000, 1) &&
               v[3] == want_sum(2, 40000, 200),
           "calls in a row: %lld %lld %lld", (long long)v[1], (long long)v[2], (long long)v[3]);
    printf("ok   an out-of-order queue with a pending write; calls in a row\n");
    for (int i = 0; i < 5; ++i)
        if (ev[i]) clReleaseEvent(ev[i]);
    ocr_reducer_release(r);
    clReleaseMemObject(rb);
    clReleaseMemObject(b);
    if (qo) clReleaseCommandQueue(qo);
    free(h);
}

/* NaN, infinities and signed zeros in float views: min and max propagate the
 * NaN, argmin/argmax find the first NaN of the view, a tie of -0.0 and +0.0
 * goes to the first; elements outside the view change nothing. */
static void specials(void) {
    const uint64_t n = 5000, s = 3, m = (n - 1) * s + 1;
    float *h = calloc(m, sizeof *h);
    for (uint64_t j = 0; j < m; ++j)
        h[j] = (float)(j % 101) - 50.0f;
    h[1] = NAN, h[2] = -INFINITY, h[4] = INFINITY; /* outside the view (1 and 2) */
    h[3 * 777] = NAN, h[3 * 4000] = NAN, h[3 * 10] = 1e30f, h[3 * 20] = -1e30f;
    cl_mem b = upload(h, m * sizeof *h);
    for (int o = OCR_MIN; o <= OCR_ARGMAX; ++o) {
        if (o == OCR_AND) o = OCR_ARGMIN;
        ocr_status st;
        ocr_reducer *r = make(OCR_FLOAT, OCR_FLOAT, (ocr_op)o, 0, &st);
        ocr_value got, want = host_reduce(OCR_FLOAT, OCR_FLOAT, (ocr_op)o, h, 0, n, s);
        st = device_reduce(r, OCR_FLOAT, OCR_FLOAT, (ocr_op)o, b, 0, n, s, &got);
        EXPECT(st == OCR_OK && same(OCR_FLOAT, OCR_FLOAT, (ocr_op)o, got, want) && isnan(want.f) &&
                   (o < OCR_ARGMIN || want.arg.index == 777),
               "NaN view, %s: got %g at %llu", ocr_op_name((ocr_op)o), got.f,
               (unsigned long long)got.arg.index);
        /* without the NaNs: the infinities outside stay outside; zeros tie */
        float z[2] = {-0.0f, 0.0f}, keep[2] = {h[3 * 777], h[3 * 4000]};
        CL_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 3 * 777 * 4, 4, &z[0], 0, NULL, NULL));
        CL_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 3 * 4000 * 4, 4, &z[1], 0, NULL, NULL));
        h[3 * 777] = z[0], h[3 * 4000] = z[1];
        want = host_reduce(OCR_FLOAT, OCR_FLOAT, (ocr_op)o, h, 0, n, s);
        st = device_reduce(r, OCR_FLOAT, OCR_FLOAT, (ocr_op)o, b, 0, n, s, &got);
        EXPECT(st == OCR_OK && same(OCR_FLOAT, OCR_FLOAT, (ocr_op)o, got, want) && !isinf(got.f),
               "no NaN, %s: got %g at %llu, want %g at %llu", ocr_op_name((ocr_op)o), got.f,
               (unsigned long long)got.arg.index, want.f, (unsigned long long)want.arg.index);
        h[3 * 777] = keep[0], h[3 * 4000] = keep[1];
        CL_OK(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, m * sizeof *h, h, 0, NULL, NULL));
        ocr_reducer_release(r);
    }
    printf("ok   NaN, infinities outside the view, signed zeros\n");
    clReleaseMemObject(b);
    free(h);
}

static void errors(const char *cl_dir) {
    ocr_reducer *r = NULL;
    CL_OK(ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, NULL, &r));
    cl_mem b = iota(100), big = iota(4096);
    argument_errors(r, b);
    overlap(r, big);
    overlap_widening(big);
    ocr_reducer_release(r);
    clReleaseMemObject(b);
    clReleaseMemObject(big);
    no_kernel_file(cl_dir);
    queues();
    specials();
}

/* ---- under the fault shim ----------------------------------------------------- */

/* A line in the shim's trace (opened for appending, as the shim's). */
static void mark(const char *what) {
    const char *path = getenv("OCR_FAULT_TRACE");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f) fprintf(f, "# %s\n", what), fclose(f);
}

/* One strided call (a view of several groups) between the markers; under
 * OCR_FAULT=NAME:K it must fail as NAME's failure does, and the same call
 * right after must give the right value. */
static void fault(ocr_type in, ocr_op op) {
    const char *spec = getenv("OCR_FAULT");
    char name[64] = "";
    if (spec) snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, ":"), spec);
    const uint64_t n = 100003, s = 3, count = (n - 1) * s + 1;
    ocr_type acc = ocr_op_is_arg(op) ? in : ocr_type_accumulator(in);
    ocr_status st;
    ocr_reducer *r = make(in, acc, op, 0, &st);
    if (st != OCR_OK) {
        printf("FAIL %s: create: %s\n", label(in, acc, op, 0), ocr_reducer_last_error(NULL));
        exit(1);
    }
    void *h = malloc(count * ocr_type_size(in));
    draw(in, acc, op, h, count);
    cl_mem b = upload(h, count * ocr_type_size(in));
    ocr_value got, want = host_reduce(in, acc, op, h, 0, n, s);
    cl_event done = NULL;
    mark("strided call");
    st = ocr_reducer_reduce_strided(r, q, b, 0, n, s, res, 1, 0, NULL, &done);
    mark("strided call done");
    const char *msg = ocr_reducer_last_error(r);
    if (name[0]) {
        ocr_status expect = !strcmp(name, "clBuildProgram")   ? OCR_BUILD
                            : !strcmp(name, "clCreateBuffer") ? OCR_NO_MEMORY
                                                              : OCR_OPENCL;
        EXPECT(st == expect && strstr(msg, name) && !done, "%s failing: status %s, \"%s\"", spec,
               ocr_status_name(st), msg);
        printf("ok   injected %s: %s, \"%.80s\"\n", spec, ocr_status_name(st), msg);
    } else {
        EXPECT(st == OCR_OK, "no fault: %s", msg);
        if (done) clReleaseEvent(done);
    }
    st = device_reduce(r, in, acc, op, b, 0, n, s, &got);
    EXPECT(st == OCR_OK && same(in, acc, op, got, want), "the call after: %s",
           ocr_reducer_last_error(r));
    clReleaseMemObject(b);
    free(h);
    ocr_reducer_release(r);
}

/* 1 if nothing but the OpenCL compiler's own summaries reached stderr (POCL's
 * clang prints "N warnings generated." there by itself). */
static int stderr_clean(int fd) {
    char buf[8192];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    for (char *line = buf, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len && !(len > 11 && !strcmp(line + len - 11, " generated."))) {
            printf("FAIL stderr: %s\n", line);
            return 0;
        }
    }
    return 1;
}

/* "TYPE" or "INPUT:TYPE" (a widening), or "all" (*in = OCR_NTYPES) where allowed. */
static int named_types(const char *s, ocr_type *in, ocr_type *acc, int all) {
    char a[32];
    const char *colon = strchr(s, ':');
    if (all && !strcmp(s, "all")) return *in = OCR_NTYPES, 1;
    snprintf(a, sizeof a, "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
    if (ocr_type_from_name(a, in)) return 0;
    *acc = ocr_type_accumulator(*in);
    return !colon || !ocr_type_from_name(colon + 1, acc);
}

/* The command line: its mode's arguments into the globals and *in, *acc,
 * *op, *accurate; 0 when it is not one of the usage's. */
static int parse(int argc, char **argv, ocr_type *in, ocr_type *acc, ocr_op *op, int *accurate) {
    const char *m = argc >= 3 ? argv[1] : "";
    if (!strcmp(m, "errors")) return 1;
    if (!strcmp(m, "views")) {
        if (argc >= 5) g_local = strtoul(argv[3], NULL, 10), g_groups = strtoul(argv[4], NULL, 10);
        return named_types(argv[2], in, acc, 1);
    }
    if (argc < 4 || !named_types(argv[2], in, acc, 0)) return 0;
    *accurate = !strcmp(argv[3], "accurate");
    if (!*accurate && ocr_op_from_name(argv[3], op)) return 0;
    if (ocr_op_is_arg(*op)) *acc = *in;
    if (!strcmp(m, "fault")) return 1;
    g_few = !strcmp(m, "few");
    if (argc >= 6) g_local = strtoul(argv[4], NULL, 10), g_groups = strtoul(argv[5], NULL, 10);
    return g_few || !strcmp(m, "one");
}

int main(int argc, char **argv) {
    ocr_type t = OCR_INT, acc = OCR_INT;
    ocr_op op = OCR_SUM;
    int accurate = 0;
    if (!parse(argc, argv, &t, &acc, &op, &accurate)) {
        fprintf(stderr,
                "usage: test_strided views TYPE|all [LOCAL GROUPS] | "
                "one|few TYPE[:ACC] OP|accurate [LOCAL GROUPS] | errors CL_DIR | fault TYPE OP\n");
        return 2;
    }
    char errpath[] = "/tmp/test_strided_stderr_XXXXXX";
    int efd = mkstemp(errpath), saved = dup(2);
    if (efd < 0 || saved < 0 || dup2(efd, 2) < 0) {
        perror("test_strided: redirecting stderr");
        return 1;
    }
    CL_OPEN_FIRST(dev, ctx, q);
    cl_int err;
    res = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 48, NULL, &err);
    CL_OK(err);
    if (!strcmp(argv[1], "views")) {
        for (int i = t == OCR_NTYPES ? 0 : (int)t; i < (t == OCR_NTYPES ? OCR_NTYPES : (int)t + 1);
             ++i)
            type_views((ocr_type)i);
    } else if (!strcmp(argv[1], "one") || !strcmp(argv[1], "few")) {
        views(t, acc, op, accurate);
    } else if (!strcmp(argv[1], "errors")) {
        errors(argv[2]);
    } else {
        /* the build from source is part of the call: no binary from disk */
        setenv("OCLREDUCTION_PROGRAM_CACHE", "off", 1);
        fault(t, op);
    }
    clReleaseMemObject(res);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    fflush(stderr);
    dup2(saved, 2);
    EXPECT(stderr_clean(efd), "the library printed to stderr");
    close(efd);
    unlink(errpath);
    return check_summary("test_strided");
}
