/* ocr_types.c - element types and operators: names, sizes, identities, and
 * half's conversions. The floor of the type and operator traits: ocr_arg.c
 * (argmin/argmax keys) and ocr_combine.c (combining values) build on it. */
#include "core.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* One row per element type: everything the host, the kernels' -D options and
 * the reference need to know about it. Identities are per operator, both as
 * a host value and as OpenCL C source; bitwise rows of float types are never
 * used (ocr_op_valid_for refuses them). */
/* W(u): "may be combined in type u" (widens_to). */
#define W(u) (1u << (u))
/* clang-format off: one row per type reads best as a table */
static const ocr_type_traits type_traits[OCR_NTYPES] = {
    /* name   size float signed twin  fp64 bits span digits format; identities; widens_to */
    [OCR_INT] =
        {"int",
         4,
         0,
         1,
         "uint",
         0,
         0,
         0,
         0,
         "%lld",
         {{.i = 0}, {.i = 1}, {.i = INT32_MAX}, {.i = INT32_MIN}, {.i = -1}, {.i = 0}, {.i = 0}},
         {"0", "1", "INT_MAX", "INT_MIN", "(-1)", "0", "0"},
         W(OCR_LONG) | W(OCR_ULONG) | W(OCR_DOUBLE)},
    [OCR_UINT] =
        {"uint",
         4,
         0,
         0,
         "uint",
         0,
         0,
         0,
         0,
         "%llu",
         {{.u = 0}, {.u = 1}, {.u = UINT32_MAX}, {.u = 0}, {.u = UINT32_MAX}, {.u = 0}, {.u = 0}},
         {"0", "1", "UINT_MAX", "0", "UINT_MAX", "0", "0"},
         W(OCR_LONG) | W(OCR_ULONG) | W(OCR_DOUBLE)},
    [OCR_LONG] =
        {"long",
         8,
         0,
         1,
         "ulong",
         0,
         0,
         0,
         0,
         "%lld",
         {{.l = 0}, {.l = 1}, {.l = INT64_MAX}, {.l = INT64_MIN}, {.l = -1}, {.l = 0}, {.l = 0}},
         {"0", "1", "LONG_MAX", "LONG_MIN", "(-1L)", "0", "0"},
         0},
    [OCR_ULONG] = {"ulong",
                   8,
                   0,
                   0,
                   "ulong",
                   0,
                   0,
                   0,
                   0,
                   "%llu",
                   {{.ul = 0},
                    {.ul = 1},
                    {.ul = UINT64_MAX},
                    {.ul = 0},
                    {.ul = UINT64_MAX},
                    {.ul = 0},
                    {.ul = 0}},
                   {"0", "1", "ULONG_MAX", "0", "ULONG_MAX", "0", "0"},
                   0},
    [OCR_FLOAT] = {"float",
                   4,
                   1,
                   1,
                   NULL,
                   0,
                   24,
                   200,
                   9,
                   "%.*g",
                   {{.f = 0.0f},
                    {.f = 1.0f},
                    {.f = INFINITY},
                    {.f = -INFINITY},
                    {.u = 0},
                    {.u = 0},
                    {.u = 0}},
                   {"0.0f", "1.0f", "INFINITY", "(-INFINITY)", "0", "0", "0"},
                   W(OCR_DOUBLE)},
    [OCR_DOUBLE] = {"double",
                    8,
                    1,
                    1,
                    NULL,
                    1,
                    53,
                    2000,
                    17,
                    "%.*g",
                    {{.d = 0.0},
                     {.d = 1.0},
                     {.d = INFINITY},
                     {.d = -INFINITY},
                     {.ul = 0},
                     {.ul = 0},
                     {.ul = 0}},
                    {"0.0", "1.0", "INFINITY", "(-INFINITY)", "0", "0", "0"},
                    0},
    /* Storage types: read, converted as loaded, combined in the accumulator
     * (the last columns: storage only, accumulator, largest value). Values
     * are never of these types, so identities come from the accumulator's
     * row (ocr_identity); size, signedness and widens_to are what matter. */
    [OCR_CHAR] = {"char",
                  1,
                  0,
                  1,
                  "uchar",
                  0,
                  0,
                  0,
                  0,
                  "%lld",
                  {{.l = 0}},
                  {"0"},
                  W(OCR_LONG),
                  1,
                  OCR_LONG,
                  INT8_MAX},
    [OCR_UCHAR] = {"uchar",
                   1,
                   0,
                   0,
                   "uchar",
                   0,
                   0,
                   0,
                   0,
                   "%llu",
                   {{.l = 0}},
                   {"0"},
                   W(OCR_ULONG) | W(OCR_LONG),
                   1,
                   OCR_ULONG,
                   UINT8_MAX},
    [OCR_SHORT] = {"short",
                   2,
                   0,
                   1,
                   "ushort",
                   0,
                   0,
                   0,
                   0,
                   "%lld",
                   {{.l = 0}},
                   {"0"},
                   W(OCR_LONG),
                   1,
                   OCR_LONG,
                   INT16_MAX},
    [OCR_USHORT] = {"ushort",
                    2,
                    0,
                    0,
                    "ushort",
                    0,
                    0,
                    0,
                    0,
                    "%llu",
                    {{.l = 0}},
                    {"0"},
                    W(OCR_ULONG) | W(OCR_LONG),
                    1,
                    OCR_ULONG,
                    UINT16_MAX},
    /* half: 11 significant bits; loaded with vload_half (no cl_khr_fp16) */
    [OCR_HALF] = {"half",
                  2,
                  1,
                  1,
                  NULL,
                  0,
                  11,
                  0,
                  5,
                  "%.*g",
                  {{.l = 0}},
                  {"0"},
                  W(OCR_FLOAT) | W(OCR_DOUBLE),
                  1,
                  OCR_FLOAT,
                  0},
};

/* One row per operator. */
static const ocr_op_traits op_traits[OCR_NOPS] = {
    [OCR_SUM] = {"sum", 1}, [OCR_PROD] = {"prod", 1},     [OCR_MIN] = {"min", 1},
    [OCR_MAX] = {"max", 1}, [OCR_AND] = {"and", 0},       [OCR_OR] = {"or", 0},
    [OCR_XOR] = {"xor", 0}, [OCR_ARGMIN] = {"argmin", 1}, [OCR_ARGMAX] = {"argmax", 1},
};
/* clang-format on */

const ocr_type_traits *ocr_type_traits_of(ocr_type t) {
    return &type_traits[t];
}

const char *ocr_type_name(ocr_type t) {
    return (unsigned)t < OCR_NTYPES ? type_traits[t].name : "?";
}
const char *ocr_op_name(ocr_op o) {
    return (unsigned)o < OCR_NOPS ? op_traits[o].name : "?";
}
size_t ocr_type_size(ocr_type t) {
    return type_traits[t].size;
}
int ocr_type_is_float(ocr_type t) {
    return type_traits[t].is_float;
}
int ocr_type_is_storage(ocr_type t) {
    return (unsigned)t < OCR_NTYPES && type_traits[t].storage_only;
}
ocr_type ocr_type_accumulator(ocr_type t) {
    return ocr_type_is_storage(t) ? type_traits[t].accumulator : t;
}
/* A storage type is never combined in: nothing widens to it. */
int ocr_type_widens_to(ocr_type input, ocr_type t) {
    if ((unsigned)input >= OCR_NTYPES || (unsigned)t >= OCR_NTYPES || type_traits[t].storage_only)
        return 0;
    return input == t || (type_traits[input].widens_to & W(t)) != 0;
}
int ocr_op_is_arg(ocr_op o) {
    return o == OCR_ARGMIN || o == OCR_ARGMAX;
}
int ocr_op_valid_for(ocr_op o, ocr_type t) {
    return !type_traits[t].is_float || op_traits[o].for_floats;
}

int ocr_name_index(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; ++i)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

int ocr_type_from_name(const char *s, ocr_type *t) {
    for (int i = 0; i < OCR_NTYPES; ++i)
        if (strcmp(s, type_traits[i].name) == 0) {
            *t = (ocr_type)i;
            return 0;
        }
    return -1;
}

int ocr_op_from_name(const char *s, ocr_op *o) {
    for (int i = 0; i < OCR_NOPS; ++i)
        if (strcmp(s, op_traits[i].name) == 0) {
            *o = (ocr_op)i;
            return 0;
        }
    return -1;
}

const char *ocr_value_str(ocr_type t, ocr_value v, char *buf, size_t len) {
    t = ocr_type_accumulator(t); /* values of small types are the accumulator's */
    const ocr_type_traits *tr = &type_traits[t];
    if (tr->is_float)
        snprintf(buf, len, tr->format, tr->digits, tr->size == 4 ? (double)v.f : v.d);
    else if (tr->is_signed)
        snprintf(buf, len, tr->format, tr->size == 4 ? (long long)v.i : (long long)v.l);
    else
        snprintf(buf, len, tr->format, tr->size == 4 ? (unsigned long long)v.u : v.ul);
    return buf;
}

ocr_value ocr_value_from_bytes(ocr_type t, const void *bytes) {
    ocr_value v;
    int8_t c;
    int16_t sh;
    uint8_t uc;
    uint16_t us;
    memset(&v, 0, sizeof v);
    if (!bytes || (unsigned)t >= OCR_NTYPES) return v;
    switch (t) {
    /* a small type's value is its accumulator's (ocr_value_str reads that
     * member): the whole 64 bits, so .i and .u hold it too */
    case OCR_CHAR:
        memcpy(&c, bytes, 1), v.l = c;
        break;
    case OCR_UCHAR:
        memcpy(&uc, bytes, 1), v.ul = uc;
        break;
    case OCR_SHORT:
        memcpy(&sh, bytes, 2), v.l = sh;
        break;
    case OCR_USHORT:
        memcpy(&us, bytes, 2), v.ul = us;
        break;
    default:
        memcpy(&v, bytes, ocr_type_size(t)); /* half: its 16 bits, as read */
    }
    return v;
}

ocr_value ocr_identity(ocr_type t, ocr_op o) {
    ocr_value v;
    memset(&v, 0, sizeof v);
    if (ocr_op_is_arg(o) && (unsigned)t < OCR_NTYPES) { /* the worst value, at no index */
        const ocr_type_traits *tr = &type_traits[t];
        if (ocr_type_is_storage(t) && !tr->is_float) { /* in the accumulator's member */
            if (tr->is_signed)
                v.l = o == OCR_ARGMIN ? (int64_t)tr->max_int : -(int64_t)tr->max_int - 1;
            else
                v.ul = o == OCR_ARGMIN ? tr->max_int : 0;
        } else {
            v = ocr_identity(ocr_type_accumulator(t), o == OCR_ARGMIN ? OCR_MIN : OCR_MAX);
        }
        v.arg.index = UINT64_MAX;
        return v;
    }
    t = ocr_type_accumulator(t);
    if ((unsigned)o < OCR_NOPS) memcpy(&v, &type_traits[t].identity[o], type_traits[t].size);
    return v;
}

/* The identity as OpenCL C source, for -D OCR_IDENTITY=... */
const char *ocr_identity_source(ocr_type t, ocr_op o) {
    t = ocr_type_accumulator(t);
    if (ocr_op_is_arg(o)) return "(ulong2)(0,ULONG_MAX)"; /* loses to every key */
    return (unsigned)o < OCR_NOPS ? type_traits[t].identity_source[o] : "0";
}

/* half <-> float, exact and portable (no _Float16). */
float ocr_half_to_float(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, -24); /* subnormal: m 2^-24, exact */
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return sign ? -v : v;
}

/* Rounds to nearest, ties to even; overflow to infinity, NaN stays NaN. */
uint16_t ocr_float_to_half(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    float a = fabsf(f);
    if (isnan(f)) return (uint16_t)(sign | 0x7E00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7C00u); /* rounds past 65504 */
    int e;
    frexpf(a, &e); /* a = f' 2^e, f' in [0.5, 1) */
    /* the spacing of halves at a: 2^(e - 11), at least 2^-24 (subnormals) */
    int q = e - 11 < -24 ? -24 : e - 11;
    float m = ldexpf(a, -q);  /* exact: a scaled by a power of two */
    float r = rintf(m);       /* ties to even in the default rounding mode */
    uint32_t k = (uint32_t)r; /* the value is k 2^q */
    if (k == 0) return sign;
    /* normalise: k in [1024, 2048) for normal numbers */
    if (k >= 2048) k >>= 1, ++q;
    int he = q + 25;                           /* biased exponent of k 2^q with k in [1024, 2048) */
    if (k < 1024) return (uint16_t)(sign | k); /* subnormal (q == -24) */
    if (he >= 31) return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (uint16_t)(he << 10) | (uint16_t)(k - 1024));
}
