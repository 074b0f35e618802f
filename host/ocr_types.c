/* ocr_types.c - element types and operators: names, sizes, identities, and the
 * host-side combine that mirrors reduce_common.h bit for bit. */
#include "ocr_internal.h"
#include "ocr_ops.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const type_names[OCR_NTYPES] = {"int",   "uint",  "long",
                                                   "ulong", "float", "double"};
static const char *const op_names[OCR_NOPS] = {"sum", "prod", "min", "max", "and", "or", "xor"};
static const size_t type_sizes[OCR_NTYPES] = {4, 4, 8, 8, 4, 8};

const char *ocr_type_name(ocr_type t) {
    return (unsigned)t < OCR_NTYPES ? type_names[t] : "?";
}
const char *ocr_op_name(ocr_op o) {
    return (unsigned)o < OCR_NOPS ? op_names[o] : "?";
}
size_t ocr_type_size(ocr_type t) {
    return type_sizes[t];
}
int ocr_type_is_float(ocr_type t) {
    return t == OCR_FLOAT || t == OCR_DOUBLE;
}
int ocr_op_valid_for(ocr_op o, ocr_type t) {
    return !(ocr_type_is_float(t) && (o == OCR_AND || o == OCR_OR || o == OCR_XOR));
}

int ocr_name_index(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; ++i)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

int ocr_type_from_name(const char *s, ocr_type *t) {
    int i = ocr_name_index(s, type_names, OCR_NTYPES);
    if (i >= 0) *t = (ocr_type)i;
    return i < 0 ? -1 : 0;
}

int ocr_op_from_name(const char *s, ocr_op *o) {
    int i = ocr_name_index(s, op_names, OCR_NOPS);
    if (i >= 0) *o = (ocr_op)i;
    return i < 0 ? -1 : 0;
}

const char *ocr_value_str(ocr_type t, ocr_value v, char *buf, size_t len) {
    switch (t) {
    case OCR_INT:
        snprintf(buf, len, "%d", (int)v.i);
        break;
    case OCR_UINT:
        snprintf(buf, len, "%u", (unsigned)v.u);
        break;
    case OCR_LONG:
        snprintf(buf, len, "%lld", (long long)v.l);
        break;
    case OCR_ULONG:
        snprintf(buf, len, "%llu", (unsigned long long)v.ul);
        break;
    case OCR_FLOAT:
        snprintf(buf, len, "%.9g", (double)v.f);
        break;
    default:
        snprintf(buf, len, "%.17g", v.d);
        break;
    }
    return buf;
}

ocr_value ocr_identity(ocr_type t, ocr_op o) {
    ocr_value v;
    memset(&v, 0, sizeof v);
    switch (o) {
    case OCR_SUM:
    case OCR_OR:
    case OCR_XOR:
        if (t == OCR_FLOAT) v.f = 0.0f;
        if (t == OCR_DOUBLE) v.d = 0.0;
        break;
    case OCR_PROD:
        switch (t) {
        case OCR_INT:
        case OCR_UINT:
            v.u = 1;
            break;
        case OCR_LONG:
        case OCR_ULONG:
            v.ul = 1;
            break;
        case OCR_FLOAT:
            v.f = 1.0f;
            break;
        default:
            v.d = 1.0;
            break;
        }
        break;
    case OCR_AND:
        if (t == OCR_INT || t == OCR_UINT)
            v.u = UINT32_MAX;
        else
            v.ul = UINT64_MAX;
        break;
    case OCR_MIN:
    case OCR_MAX: {
        int mn = o == OCR_MIN; /* min's identity is the type's largest value */
        switch (t) {
        case OCR_INT:
            v.i = mn ? INT32_MAX : INT32_MIN;
            break;
        case OCR_UINT:
            v.u = mn ? UINT32_MAX : 0;
            break;
        case OCR_LONG:
            v.l = mn ? INT64_MAX : INT64_MIN;
            break;
        case OCR_ULONG:
            v.ul = mn ? UINT64_MAX : 0;
            break;
        case OCR_FLOAT:
            v.f = mn ? INFINITY : -INFINITY;
            break;
        default:
            v.d = mn ? INFINITY : -INFINITY;
            break;
        }
        break;
    }
    default:
        break;
    }
    return v;
}

/* The identity as OpenCL C source, for -D OCR_IDENTITY=... */
const char *ocr_identity_source(ocr_type t, ocr_op o) {
    int fl = ocr_type_is_float(t);
    switch (o) {
    case OCR_SUM:
        return t == OCR_FLOAT ? "0.0f" : t == OCR_DOUBLE ? "0.0" : "0";
    case OCR_PROD:
        return t == OCR_FLOAT ? "1.0f" : t == OCR_DOUBLE ? "1.0" : "1";
    case OCR_OR:
    case OCR_XOR:
        return "0";
    case OCR_AND:
        return t == OCR_INT    ? "(-1)"
               : t == OCR_UINT ? "UINT_MAX"
               : t == OCR_LONG ? "(-1L)"
                               : "ULONG_MAX";
    case OCR_MIN:
        if (fl) return "INFINITY";
        return t == OCR_INT    ? "INT_MAX"
               : t == OCR_UINT ? "UINT_MAX"
               : t == OCR_LONG ? "LONG_MAX"
                               : "ULONG_MAX";
    case OCR_MAX:
        if (fl) return "(-INFINITY)";
        return t == OCR_INT ? "INT_MIN" : t == OCR_UINT ? "0" : t == OCR_LONG ? "LONG_MIN" : "0";
    default:
        return "0";
    }
}

const char *ocr_unsigned_twin(ocr_type t) {
    switch (t) {
    case OCR_INT:
    case OCR_UINT:
        return "uint";
    case OCR_LONG:
    case OCR_ULONG:
        return "ulong";
    default:
        return NULL;
    }
}

/* Integer sum and product wrap in the unsigned type, as in the kernels. */
#define ONE(TY, FIELD, EXPR)                                                                       \
    do {                                                                                           \
        TY a = x.FIELD, v = y.FIELD;                                                               \
        r.FIELD = (EXPR);                                                                          \
    } while (0)

ocr_value ocr_combine(ocr_type t, ocr_op o, ocr_value x, ocr_value y) {
    ocr_value r;
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(t, o, ONE, OCR_FMIN, OCR_FMAX)
    return r;
}
