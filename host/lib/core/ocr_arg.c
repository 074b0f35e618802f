/* ocr_arg.c - argmin and argmax on the host: the 16-byte keys the kernels
 * combine (cl/reduce_common.h has the same mapping, bit for bit), the
 * reference (the first index of the extreme, as NumPy), the CPU finish of
 * keys a run reads back, and a key turned back into a value. */
#include "core.h"

#include <math.h>
#include <string.h>

size_t ocr_acc_size(ocr_type t, ocr_op o) {
    return ocr_op_is_arg(o) ? sizeof(ocr_arg_key) : ocr_type_size(ocr_type_accumulator(t));
}

/* The width of a key's value: the type's, but half's is float's (the kernel
 * reads a half as the float it converts to, whose order is the half's). */
static unsigned key_bits(ocr_type t) {
    return t == OCR_HALF ? 32u : (unsigned)ocr_type_size(t) * 8;
}
/* The width's all-ones, and its sign bit. */
static uint64_t mask_of(ocr_type t) {
    return key_bits(t) == 64 ? UINT64_MAX : ((uint64_t)1 << key_bits(t)) - 1;
}
static uint64_t sign_of(ocr_type t) {
    return (uint64_t)1 << (key_bits(t) - 1);
}

/* A float's bits, -0.0 as +0.0; *nan set for a NaN. */
static uint64_t float_bits(float f, int *nan) {
    uint32_t u;
    *nan = isnan(f);
    if (f == 0.0f) f = 0.0f;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The element's bits (half's as the float it is), -0.0 as +0.0; *nan set for
 * a NaN. */
static uint64_t bits_of(ocr_type t, const void *elem, int *nan) {
    uint64_t b = 0;
    *nan = 0;
    if (t == OCR_FLOAT) {
        float f;
        memcpy(&f, elem, sizeof f);
        return float_bits(f, nan);
    }
    if (t == OCR_HALF) {
        uint16_t h;
        memcpy(&h, elem, sizeof h);
        return float_bits(ocr_half_to_float(h), nan);
    }
    if (t == OCR_DOUBLE) {
        double d;
        memcpy(&d, elem, sizeof d);
        *nan = isnan(d);
        if (d == 0.0) d = 0.0;
        memcpy(&b, &d, sizeof b);
        return b;
    }
    switch (ocr_type_size(t)) {
    case 1: {
        uint8_t u;
        memcpy(&u, elem, sizeof u);
        return u;
    }
    case 2: {
        uint16_t u;
        memcpy(&u, elem, sizeof u);
        return u;
    }
    case 4: {
        uint32_t u;
        memcpy(&u, elem, sizeof u);
        return u;
    }
    default:
        memcpy(&b, elem, sizeof b);
        return b;
    }
}

/* The key of the ordered bits b (nan: a NaN). */
static uint64_t key_of_bits(ocr_type t, ocr_op o, uint64_t b, int nan) {
    const uint64_t m = mask_of(t), sign = sign_of(t);
    uint64_t ord;
    if (nan) return m; /* above every number, for both operators */
    if (ocr_type_is_float(t))
        ord = b & sign ? ~b & m : b | sign;
    else
        ord = ocr_type_traits_of(t)->is_signed ? b ^ sign : b;
    return o == OCR_ARGMIN ? ~ord & m : ord;
}

uint64_t ocr_arg_key_of(ocr_type t, ocr_op o, const void *elem) {
    int nan;
    uint64_t b = bits_of(t, elem, &nan);
    return key_of_bits(t, o, b, nan);
}

/* The key of a value as the library reports it: a small type's value is its
 * accumulator's (char in .l, uchar in .ul, half in .f, ...), its low bits
 * the element's. */
static uint64_t key_of_value(ocr_type t, ocr_op o, const ocr_value *v) {
    int nan;
    if (t == OCR_HALF) {
        uint64_t b = float_bits(v->f, &nan);
        return key_of_bits(t, o, b, nan);
    }
    if (ocr_type_is_storage(t)) /* integers: the low bits, two's complement */
        return key_of_bits(t, o, (uint64_t)v->l & mask_of(t), 0);
    return ocr_arg_key_of(t, o, v);
}

ocr_value ocr_arg_decode(ocr_type t, ocr_op o, const ocr_arg_key *k) {
    const uint64_t m = mask_of(t), sign = sign_of(t);
    uint64_t ord = o == OCR_ARGMIN ? ~k->key & m : k->key, b;
    ocr_value v;
    memset(&v, 0, sizeof v);
    if (ocr_type_is_float(t) && k->key == m) {
        if (t == OCR_DOUBLE)
            v.d = (double)NAN;
        else
            v.f = NAN; /* float, and half reported as float */
    } else {
        if (ocr_type_is_float(t))
            b = ord & sign ? ord & ~sign : ~ord & m;
        else
            b = ocr_type_traits_of(t)->is_signed ? ord ^ sign : ord;
        switch (t) {
        case OCR_CHAR: /* small types: the accumulator's value */
            v.l = (int8_t)(uint8_t)b;
            break;
        case OCR_SHORT:
            v.l = (int16_t)(uint16_t)b;
            break;
        case OCR_UCHAR:
        case OCR_USHORT:
            v.ul = b;
            break;
        default:
            if (key_bits(t) == 32) { /* int, uint, float, and half as float */
                uint32_t u = (uint32_t)b;
                memcpy(&v, &u, sizeof u);
            } else {
                memcpy(&v, &b, sizeof b);
            }
            break;
        }
    }
    v.arg.index = k->index;
    return v;
}

/* Whether key b beats a: the larger key, then the smaller index. */
static int beats(const ocr_arg_key *b, const ocr_arg_key *a) {
    return b->key > a->key || (b->key == a->key && b->index < a->index);
}

ocr_value ocr_arg_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o) {
    const size_t es = ocr_type_size(t);
    ocr_arg_key best = {0, UINT64_MAX};
    for (uint64_t i = 0; i < n; ++i) {
        ocr_arg_key c = {ocr_arg_key_of(t, o, (const char *)data + i * es), i};
        if (beats(&c, &best)) best = c;
    }
    return ocr_arg_decode(t, o, &best);
}

ocr_value ocr_arg_finish(const void *keys, uint64_t n, ocr_type t, ocr_op o) {
    ocr_arg_key best = {0, UINT64_MAX};
    for (uint64_t i = 0; i < n; ++i) {
        ocr_arg_key c;
        memcpy(&c, (const char *)keys + i * sizeof c, sizeof c);
        if (beats(&c, &best)) best = c;
    }
    return ocr_arg_decode(t, o, &best);
}

ocr_value ocr_arg_combine(ocr_type t, ocr_op o, ocr_value a, ocr_value b) {
    ocr_arg_key ka = {key_of_value(t, o, &a), a.arg.index};
    ocr_arg_key kb = {key_of_value(t, o, &b), b.arg.index};
    return beats(&kb, &ka) ? b : a;
}

size_t ocr_result_size(ocr_type t, ocr_op o) {
    if ((unsigned)t >= OCR_NTYPES || (unsigned)o >= OCR_NOPS) return 0;
    return ocr_acc_size(t, o);
}

ocr_value ocr_result_value(ocr_type t, ocr_op o, const void *element) {
    ocr_value v;
    memset(&v, 0, sizeof v);
    if (!element || (unsigned)t >= OCR_NTYPES || (unsigned)o >= OCR_NOPS) return v;
    if (!ocr_op_is_arg(o)) {
        return ocr_value_from_bytes(ocr_type_accumulator(t),
                                    element); /* a small type's: the accumulator's */
    }
    ocr_arg_key k;
    memcpy(&k, element, sizeof k);
    return ocr_arg_decode(t, o, &k);
}
