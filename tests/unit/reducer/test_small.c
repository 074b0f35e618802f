/*
 * test_small.c - the small types (char, uchar, short, ushort, half) through
 * the library's reducer, on a caller's buffer, against references computed
 * here with plain C loops (int64 and a half decoder of this file's own).
 *
 *   test_small        every check below
 *
 * The literal case: 2^24 chars of 127 sum to exactly 2130706432 (and
 * 2^24 uchars of 255 to 4278190080), which any accumulator narrower than
 * long (or a lost or doubled element) gets wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

static float half_value(uint16_t h) { /* independent of the library's converter */
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(1024 + m), e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000) ? -v : v;
}

static cl_mem upload(const void *h, size_t bytes) {
    cl_int err;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)h, &err);
    CL_OK(err);
    return b;
}

static ocr_value reduce(ocr_type t, ocr_type acc, ocr_op o, cl_mem b, size_t off, uint64_t n,
                        ocr_status *st) {
    ocr_reducer *r = NULL;
    ocr_value v;
    memset(&v, 0, sizeof v);
    *st = acc == t ? ocr_reducer_create(ctx, dev, t, o, NULL, &r)
                   : ocr_reducer_create_widening(ctx, dev, t, acc, o, NULL, &r);
    if (*st != OCR_OK) return v;
    *st = ocr_reducer_reduce(r, q, b, off, n, &v);
    ocr_reducer_release(r);
    return v;
}

static void constant(ocr_type t, unsigned value, uint64_t want) {
    const uint64_t n = (uint64_t)1 << 24;
    unsigned char *h = malloc(n);
    memset(h, (int)value, n);
    cl_mem b = upload(h, n);
    ocr_status st;
    ocr_value v = reduce(t, t, OCR_SUM, b, 0, n, &st);
    EXPECT(st == OCR_OK && v.ul == want, "%s: 2^24 values of %u: status %d, got %llu, want %llu",
           ocr_type_name(t), value, (int)st, (unsigned long long)v.ul, (unsigned long long)want);
    v = reduce(t, OCR_LONG, OCR_SUM, b, 0, n, &st); /* explicitly widened to long */
    EXPECT(st == OCR_OK && v.ul == want, "%s in long: got %llu", ocr_type_name(t),
           (unsigned long long)v.ul);
    printf("ok   %s: 2^24 values of %u sum to %llu\n", ocr_type_name(t), value,
           (unsigned long long)want);
    clReleaseMemObject(b);
    free(h);
}

/* Element i of random data as the accumulator reads it. */
static int64_t int_at(const void *h, ocr_type t, uint64_t i) {
    switch (t) {
    case OCR_CHAR:
        return ((const int8_t *)h)[i];
    case OCR_UCHAR:
        return ((const uint8_t *)h)[i];
    case OCR_SHORT:
        return ((const int16_t *)h)[i];
    default:
        return ((const uint16_t *)h)[i];
    }
}

static void random_ints(ocr_type t) {
    const uint64_t sizes[] = {1, 2, 3, 4, 5, 63, 4103, 1000003};
    const size_t offs[] = {0, 1, 3, 7};
    const ocr_op ops[] = {OCR_SUM, OCR_PROD, OCR_MIN, OCR_MAX, OCR_AND, OCR_OR, OCR_XOR};
    size_t es = ocr_type_size(t), cap = 1000003 + 8;
    unsigned char *h = malloc(cap * es);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < cap * es; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h[i] = (unsigned char)(s >> 24);
    }
    cl_mem b = upload(h, cap * es);
    int bad = 0, cases = 0;
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
            for (size_t fi = 0; fi < sizeof offs / sizeof offs[0]; ++fi) {
                ocr_op o = ops[oi];
                uint64_t n = sizes[si], off = offs[fi];
                uint64_t want = o == OCR_PROD ? 1 : o == OCR_AND ? ~0ull : 0;
                int64_t lo = INT64_MAX, hi = INT64_MIN;
                for (uint64_t i = off; i < off + n; ++i) {
                    int64_t x = int_at(h, t, i);
                    uint64_t u = (uint64_t)x;
                    if (o == OCR_SUM) want += u;
                    if (o == OCR_PROD) want *= u;
                    if (o == OCR_AND) want &= u;
                    if (o == OCR_OR) want |= u;
                    if (o == OCR_XOR) want ^= u;
                    if (x < lo) lo = x;
                    if (x > hi) hi = x;
                }
                if (o == OCR_MIN) want = (uint64_t)lo;
                if (o == OCR_MAX) want = (uint64_t)hi;
                ocr_status st;
                ocr_value v = reduce(t, t, o, b, off, n, &st);
                ++cases;
                if (st != OCR_OK || v.ul != want) {
                    ++bad;
                    EXPECT(0, "%s %s n=%llu offset %llu: status %d, got %lld, want %lld",
                           ocr_type_name(t), ocr_op_name(o), (unsigned long long)n,
                           (unsigned long long)off, (int)st, (long long)v.l, (long long)want);
                }
            }
    printf("%s   %s: %d random cases (7 operators, sizes 1..1000003, offsets 0 1 3 7)\n",
           bad ? "FAIL" : "ok", ocr_type_name(t), cases);
    clReleaseMemObject(b);
    free(h);
}

/* half: values k/256 (|k| < 2048) are exact in half and every float partial
 * sum of up to 4103 of them is exact, so the sum is compared bit for bit;
 * min and max are exact anyway. */
static void halves(void) {
    const uint64_t sizes[] = {1, 2, 3, 4103};
    const size_t offs[] = {0, 1, 5};
    const ocr_op ops[] = {OCR_SUM, OCR_MIN, OCR_MAX};
    uint16_t h[4103 + 8];
    uint64_t s = 1234567;
    for (size_t i = 0; i < sizeof h / sizeof h[0]; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int k = (int)((s >> 33) % 4095) - 2047; /* k/256: exponent and mantissa by hand */
        float f = (float)k / 256;
        /* encode f (exact in half: |k| < 2^11) */
        uint16_t sign = f < 0 ? 0x8000 : 0;
        float a = fabsf(f);
        uint16_t bits = 0;
        if (a != 0) {
            int e;
            float m = frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
            int he = e - 1 + 15;
            uint16_t mant = (uint16_t)((m * 2 - 1) * 1024);
            bits = (uint16_t)((he << 10) | mant);
        }
        h[i] = sign | bits;
        EXPECT(half_value(h[i]) == f, "half encoding of %g", (double)f);
    }
    cl_mem b = upload(h, sizeof h);
    int bad = 0, cases = 0;
    for (size_t oi = 0; oi < 3; ++oi)
        for (size_t si = 0; si < 4; ++si)
            for (size_t fi = 0; fi < 3; ++fi) {
                ocr_op o = ops[oi];
                uint64_t n = sizes[si], off = offs[fi];
                float want = o == OCR_SUM ? 0 : half_value(h[off]);
                for (uint64_t i = off; i < off + n; ++i) {
                    float x = half_value(h[i]);
                    if (o == OCR_SUM) want += x;
                    if (o == OCR_MIN && x < want) want = x;
                    if (o == OCR_MAX && x > want) want = x;
                }
                ocr_status st;
                ocr_value v = reduce(OCR_HALF, OCR_HALF, o, b, off, n, &st);
                ++cases;
                if (st != OCR_OK || v.f != want) {
                    ++bad;
                    EXPECT(0, "half %s n=%llu offset %llu: status %d, got %.9g, want %.9g",
                           ocr_op_name(o), (unsigned long long)n, (unsigned long long)off, (int)st,
                           (double)v.f, (double)want);
                }
            }
    /* half in double: widened further where the device has fp64 */
    printf("%s   half: %d cases (sum min max, sizes 1 2 3 4103, offsets 0 1 5)\n",
           bad ? "FAIL" : "ok", cases);
    clReleaseMemObject(b);
}

/* argmin/argmax of small types through the reducer: the first index of the
 * extreme, the value in the accumulator's member (.l, .ul, .f). */
static void arg_values(void) {
    const int8_t c[] = {5, -7, 127, -128, 3, -128, 127, 0, 1};
    const uint16_t h[] = {0x3C00, 0x8000, 0x7E00, 0xC000, 0x7E00, 0x0000, 0xC000};
    ocr_status st;
    cl_mem bc = upload(c, sizeof c), bh = upload(h, sizeof h);
    ocr_value v = reduce(OCR_CHAR, OCR_CHAR, OCR_ARGMIN, bc, 0, 9, &st);
    EXPECT(st == OCR_OK && v.l == -128 && v.arg.index == 3, "char argmin: %lld at %llu",
           (long long)v.l, (unsigned long long)v.arg.index);
    v = reduce(OCR_CHAR, OCR_CHAR, OCR_ARGMAX, bc, 1, 8, &st);
    EXPECT(st == OCR_OK && v.l == 127 && v.arg.index == 1, "char argmax from 1: %lld at %llu",
           (long long)v.l, (unsigned long long)v.arg.index);
    v = reduce(OCR_UCHAR, OCR_UCHAR, OCR_ARGMAX, bc, 0, 9, &st); /* -7 is 249 */
    EXPECT(st == OCR_OK && v.ul == 249 && v.arg.index == 1, "uchar argmax: %llu at %llu",
           (unsigned long long)v.ul, (unsigned long long)v.arg.index);
    v = reduce(OCR_HALF, OCR_HALF, OCR_ARGMIN, bh, 0, 7, &st); /* the first NaN */
    EXPECT(st == OCR_OK && isnan(v.f) && v.arg.index == 2, "half argmin: %g at %llu", (double)v.f,
           (unsigned long long)v.arg.index);
    v = reduce(OCR_HALF, OCR_HALF, OCR_ARGMIN, bh, 3, 4, &st); /* past the NaN at 4: -2 at 3 */
    EXPECT(st == OCR_OK && isnan(v.f) && v.arg.index == 1, "half argmin from 3: %g at %llu",
           (double)v.f, (unsigned long long)v.arg.index);
    v = reduce(OCR_HALF, OCR_HALF, OCR_ARGMAX, bh, 5, 2, &st);
    EXPECT(st == OCR_OK && v.f == 0.0f && v.arg.index == 0, "half argmax of +0, -2: %g at %llu",
           (double)v.f, (unsigned long long)v.arg.index);
    v = reduce(OCR_HALF, OCR_HALF, OCR_ARGMIN, bh, 0, 2, &st); /* 1, -0 */
    EXPECT(st == OCR_OK && v.f == 0.0f && v.arg.index == 1, "half argmin of 1, -0: %g at %llu",
           (double)v.f, (unsigned long long)v.arg.index);
    clReleaseMemObject(bc), clReleaseMemObject(bh);
}

static void refusals(void) {
    ocr_reducer *r = NULL;
    ocr_reducer_options acc = {.accurate = 1};
    EXPECT(ocr_reducer_create_widening(ctx, dev, OCR_CHAR, OCR_LONG, OCR_ARGMIN, NULL, &r) ==
                   OCR_USAGE &&
               !r,
           "char argmin in long refused (argmin compares the chars)");
    EXPECT(ocr_reducer_create(ctx, dev, OCR_CHAR, OCR_ARGMIN, &acc, &r) == OCR_USAGE && !r,
           "accurate char argmin refused");
    EXPECT(ocr_reducer_create(ctx, dev, OCR_HALF, OCR_XOR, NULL, &r) == OCR_USAGE && !r,
           "half xor refused");
    EXPECT(ocr_reducer_create(ctx, dev, OCR_HALF, OCR_SUM, &acc, &r) == OCR_USAGE && !r,
           "accurate half sum refused");
    EXPECT(ocr_reducer_create_widening(ctx, dev, OCR_CHAR, OCR_INT, OCR_SUM, NULL, &r) ==
                   OCR_USAGE &&
               !r,
           "char in int refused (it could overflow)");
    EXPECT(ocr_reducer_create_widening(ctx, dev, OCR_CHAR, OCR_CHAR, OCR_SUM, NULL, &r) ==
                   OCR_USAGE &&
               !r,
           "char in char refused");
    EXPECT(!ocr_type_widens_to(OCR_SHORT, OCR_SHORT) && ocr_type_widens_to(OCR_SHORT, OCR_LONG) &&
               ocr_type_widens_to(OCR_UCHAR, OCR_ULONG) && ocr_type_widens_to(OCR_HALF, OCR_FLOAT),
           "widens_to's table");
    EXPECT(ocr_type_accumulator(OCR_CHAR) == OCR_LONG &&
               ocr_type_accumulator(OCR_USHORT) == OCR_ULONG &&
               ocr_type_accumulator(OCR_HALF) == OCR_FLOAT &&
               ocr_type_accumulator(OCR_INT) == OCR_INT,
           "accumulators");
    int64_t elem = -5000000000ll; /* what reduce_async writes for char data: a long */
    EXPECT(ocr_result_size(OCR_CHAR, OCR_SUM) == 8 &&
               ocr_result_value(OCR_CHAR, OCR_SUM, &elem).l == elem,
           "a char reducer's result element is a long");
    EXPECT(ocr_stream_supported(OCR_UCHAR, OCR_SUM, OCR_DATA_EXACT) == OCR_USAGE,
           "streaming uchar refused");
    /* segments of small types are not supported yet: refused, not wrong */
    unsigned char h[64] = {0};
    cl_mem b = upload(h, sizeof h), out;
    cl_int err;
    out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err);
    CHECK(ocr_reducer_create(ctx, dev, OCR_CHAR, OCR_SUM, NULL, &r) == OCR_OK);
    EXPECT(ocr_reducer_reduce_rows(r, q, b, 0, 4, 16, out, 0, 0, NULL, NULL) == OCR_USAGE,
           "rows of char refused");
    ocr_reducer_release(r);
    clReleaseMemObject(out);
    clReleaseMemObject(b);
    printf("ok   refusals\n");
}

int main(void) {
    cl_platform_id platform;
    cl_int err;
    CL_OK(clGetPlatformIDs(1, &platform, NULL));
    CL_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CL_OK(err);
    constant(OCR_CHAR, 127, 2130706432ull);
    constant(OCR_UCHAR, 255, 4278190080ull);
    random_ints(OCR_CHAR);
    random_ints(OCR_UCHAR);
    random_ints(OCR_SHORT);
    random_ints(OCR_USHORT);
    halves();
    arg_values();
    refusals();
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary("test_small");
}
