/* ocr_combine.c - values combined on the host as the kernels combine them
 * (cl/reduce_common.h, bit for bit): one pair (ocr_combine), and the loops
 * that read the storage types (char, uchar, short, ushort, half) and combine
 * them in the accumulator (ocr_type_accumulator): the naive loop and the
 * widened copy the reference is computed from. argmin/argmax compare the
 * elements themselves (ocr_arg.c). */
#include "core.h"
#include "ocr_ops.h"

#include <math.h>
#include <string.h>

/* Element i of small data as a value of the accumulator. */
static ocr_value widen_one(const void *data, uint64_t i, ocr_type t) {
    ocr_value v;
    memset(&v, 0, sizeof v);
    switch (t) {
    case OCR_CHAR:
        v.l = ((const int8_t *)data)[i];
        break;
    case OCR_UCHAR:
        v.ul = ((const uint8_t *)data)[i];
        break;
    case OCR_SHORT:
        v.l = ((const int16_t *)data)[i];
        break;
    case OCR_USHORT:
        v.ul = ((const uint16_t *)data)[i];
        break;
    default:
        v.f = ocr_half_to_float(((const uint16_t *)data)[i]);
        break;
    }
    return v;
}

void ocr_small_widen(const void *data, uint64_t n, ocr_type t, void *out) {
    size_t as = ocr_type_size(ocr_type_accumulator(t));
    for (uint64_t i = 0; i < n; ++i) {
        ocr_value v = widen_one(data, i, t);
        memcpy((char *)out + i * as, &v, as);
    }
}

/* The naive loop over small data, combined in the accumulator. */
#define SMALL_LOOP(TY, FIELD, EXPR)                                                                \
    do {                                                                                           \
        TY a = id.FIELD;                                                                           \
        for (uint64_t i = 0; i < n; ++i) {                                                         \
            TY v = (TY)widen_one(data, i, t).FIELD;                                                \
            a = (EXPR);                                                                            \
        }                                                                                          \
        r.FIELD = a;                                                                               \
    } while (0)

ocr_value ocr_small_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o) {
    ocr_type acc = ocr_type_accumulator(t);
    ocr_value r, id = ocr_identity(acc, o);
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(acc, o, SMALL_LOOP)
    return r;
}

/* Integer sum and product wrap in the unsigned type, as in the kernels. */
#define ONE(TY, FIELD, EXPR)                                                                       \
    do {                                                                                           \
        TY a = x.FIELD, v = y.FIELD;                                                               \
        r.FIELD = (EXPR);                                                                          \
    } while (0)

ocr_value ocr_combine(ocr_type t, ocr_op o, ocr_value x, ocr_value y) {
    ocr_value r;
    if (ocr_op_is_arg(o)) return ocr_arg_combine(t, o, x, y);
    t = ocr_type_accumulator(t);
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(t, o, ONE)
    return r;
}
