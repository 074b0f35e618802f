/* ocr_arg.c - argmin and argmax on the host: the 16-byte keys the kernels
 * combine (cl/reduce_common.h has the same mapping, bit for bit), the
 * reference (the first index of the extreme, as NumPy), the CPU finish of
 * keys a run reads back, and a key turned back into a value. */
#include "ocr_internal.h"

#include <math.h>
#include <string.h>

int ocr_op_is_arg(ocr_op o) {
    return o == OCR_ARGMIN || o == OCR_ARGMAX;
}

size_t ocr_acc_size(ocr_type t, ocr_op o) {
    return ocr_op_is_arg(o) ? sizeof(ocr_arg_key) : ocr_type_size(ocr_type_accumulator(t));
}

/* The width's all-ones, and its sign bit. */
static uint64_t mask_of(ocr_type t) {
    return ocr_type_size(t) == 4 ? UINT32_MAX : UINT64_MAX;
}
static uint64_t sign_of(ocr_type t) {
    return ocr_type_size(t) == 4 ? (uint64_t)1 << 31 : (uint64_t)1 << 63;
}

/* The element's bits, -0.0 as +0.0; *nan set for a NaN. */
static uint64_t bits_of(ocr_type t, const void *elem, int *nan) {
    uint64_t b = 0;
    *nan = 0;
    if (t == OCR_FLOAT) {
        float f;
        memcpy(&f, elem, sizeof f);
        *nan = isnan(f);
        if (f == 0.0f) f = 0.0f;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    if (t == OCR_DOUBLE) {
        double d;
        memcpy(&d, elem, sizeof d);
        *nan = isnan(d);
        if (d == 0.0) d = 0.0;
        memcpy(&b, &d, sizeof b);
        return b;
    }
    if (ocr_type_size(t) == 4) {
        uint32_t u;
        memcpy(&u, elem, sizeof u);
        return u;
    }
    memcpy(&b, elem, sizeof b);
    return b;
}

uint64_t ocr_arg_key_of(ocr_type t, ocr_op o, const void *elem) {
    const uint64_t m = mask_of(t), sign = sign_of(t);
    int nan;
    uint64_t b = bits_of(t, elem, &nan), ord;
    if (nan) return m; /* above every number, for both operators */
    if (ocr_type_is_float(t))
        ord = b & sign ? ~b & m : b | sign;
    else
        ord = ocr_type_traits_of(t)->is_signed ? b ^ sign : b;
    return o == OCR_ARGMIN ? ~ord & m : ord;
}

ocr_value ocr_arg_decode(ocr_type t, ocr_op o, const ocr_arg_key *k) {
    const uint64_t m = mask_of(t), sign = sign_of(t);
    uint64_t ord = o == OCR_ARGMIN ? ~k->key & m : k->key, b;
    ocr_value v;
    memset(&v, 0, sizeof v);
    if (ocr_type_is_float(t) && k->key == m) {
        if (t == OCR_FLOAT)
            v.f = NAN;
        else
            v.d = (double)NAN;
    } else {
        if (ocr_type_is_float(t))
            b = ord & sign ? ord & ~sign : ~ord & m;
        else
            b = ocr_type_traits_of(t)->is_signed ? ord ^ sign : ord;
        if (ocr_type_size(t) == 4) {
            uint32_t u = (uint32_t)b;
            memcpy(&v, &u, sizeof u);
        } else {
            memcpy(&v, &b, sizeof b);
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
    ocr_arg_key ka = {ocr_arg_key_of(t, o, &a), a.arg.index};
    ocr_arg_key kb = {ocr_arg_key_of(t, o, &b), b.arg.index};
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
        memcpy(&v, element, ocr_acc_size(t, o)); /* a small type's value: the accumulator's */
        return v;
    }
    ocr_arg_key k;
    memcpy(&k, element, sizeof k);
    return ocr_arg_decode(t, o, &k);
}
