/* ocr_reference.c - seeded input, the naive CPU loop, the reference the check
 * trusts, and the check itself. */
#include "core.h"
#include "ocr_ops.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Counter-based generator (splitmix64 of seed and index): element i depends on
 * (seed, i) and, for some (type, operator) pairs, on n, which sets the value
 * range; integer sums are a prefix of any larger size's. A failure replays
 * from (seed, n) alone. */
static uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform double in [-1, 1) with 53 random bits. */
static double unit(uint64_t r) {
    return (double)(r >> 11) * 0x1.0p-52 - 1.0;
}

static const char *const data_names[] = {"exact", "uniform", "one-sided", "max"};

const char *ocr_data_kind_name(ocr_data_kind k) {
    return data_names[k];
}
int ocr_data_kind_from_name(const char *s, ocr_data_kind *k) {
    int i = ocr_name_index(s, data_names, 4);
    if (i >= 0) *k = (ocr_data_kind)i;
    return i < 0 ? -1 : 0;
}

/*
 * Exact data. A float sum is exact in any order when every partial sum is
 * representable. Sum elements are s * k * 2^-8 with sign s = +-1 and
 * 1 <= k <= K, and every aligned block of 32 elements holds exactly 16 of
 * each sign (a seeded choice of positions), so neither sign has more than
 * P = 16 * ceil(n / 32) elements. Any partial sum, in any order, is then a
 * multiple of 2^-8 of at most P * K units; K = 2^p / P (p = 24 for float, 53
 * for double) keeps that within the significand.
 *
 * K is never below 4, though: at n = 2^25 floats, K = 1 is the only choice
 * exact in every order, and it forces every element to +-2^-8 with every
 * block summing to 0, so a lost block (a skipped work-group) would go unseen.
 * So past n = 2^23 floats (P K > 2^24) the data is exact in every order whose
 * partial sums stay below 2^24 units: every order that adds contiguous or
 * strided ranges, as all the built-in kernels and ordinary student kernels do
 * (such partial sums are random walks of about 3 sqrt(size) units, some 10^5
 * at n = 2^30, against 2^24 = 1.7 10^7), though not, say, all positive
 * elements first.
 * Every element is nonzero, so a lost or doubled one changes the sum.
 *
 * Products: elements are +-2^e with e = +1 or -1 at no more than 2L evenly
 * spread positions (alternating, so at most L of each) and e = 0 elsewhere:
 * every partial product is +-2^j with |j| <= L, exact in any order (L = 100
 * for float, 1000 for double). Up to 2L elements every one changes the
 * magnitude; past that, each negative one still flips the sign.
 */
typedef struct {
    ocr_type t;
    ocr_op o;
    ocr_data_kind kind;
    uint64_t seed, n, rare, k_max, prod_step;
    double prod_w; /* uniform float products: the spread around 1 */
    unsigned q;    /* one-sided sums: nonzero elements per block of 32 */
    /* The type's traits, looked up once: the grader fills billions of
     * elements, and a table lookup per element was half its time. */
    size_t es;
    int is_float, is_signed;
    unsigned bits;
    uint64_t smax, max_int;
} gen;

enum { SIGN_BLOCK = 32 };

/* Float properties from the type table; integers take double's, unused.
 * Half data is summed in float: the accumulator's bits decide exactness. */
static unsigned mantissa_bits(ocr_type t) {
    t = ocr_type_accumulator(t);
    return ocr_type_traits_of(ocr_type_is_float(t) ? t : OCR_DOUBLE)->mantissa_bits;
}
static uint64_t prod_span(ocr_type t) {
    t = ocr_type_accumulator(t);
    return ocr_type_traits_of(ocr_type_is_float(t) ? t : OCR_DOUBLE)->prod_factor_span;
}

/* Small types (storage only): the largest magnitude an element may take in
 * sums, 0 for others. Half: k 2^-8 with k <= 2048 is exact in 11 bits. */
static uint64_t small_max(ocr_type t) {
    if (!ocr_type_is_storage(t)) return 0;
    return ocr_type_is_float(t) ? 2048 : ocr_type_traits_of(t)->max_int;
}

/* Sum scale: the K above (float types), or the integer range. */
static uint64_t sum_range(ocr_type t, uint64_t n) {
    uint64_t p = SIGN_BLOCK / 2 * (n / SIGN_BLOCK + (n % SIGN_BLOCK != 0));
    unsigned bits = mantissa_bits(t);
    uint64_t k = ((uint64_t)1 << bits) / p;
    k = k < 4 ? 4 : k > 4096 ? 4096 : k;
    return small_max(t) && k > small_max(t) ? small_max(t) : k;
}

/* Whether exact sum data of n elements is exact in every order (P K <= 2^p). */
static int sum_any_order(ocr_type t, uint64_t n) {
    uint64_t p = SIGN_BLOCK / 2 * (n / SIGN_BLOCK + (n % SIGN_BLOCK != 0));
    unsigned bits = mantissa_bits(t);
    return p <= ((uint64_t)1 << bits) / sum_range(t, n);
}

/* q of 32 bits set, at positions drawn from (seed, block); q = 16 gives the
 * exact data's signs. */
static uint32_t block_mask(uint64_t seed, uint64_t block, unsigned q) {
    uint32_t m = q >= SIGN_BLOCK ? 0xFFFFFFFFu : (1u << q) - 1;
    uint64_t r = 0;
    for (unsigned b = 0; b < SIGN_BLOCK && q < SIGN_BLOCK; ++b) {
        if (b % 12 == 0) r = mix(seed ^ 0x2545F4914F6CDD1Dull, block * 3 + b / 12);
        unsigned j = (unsigned)(r & 31);
        r >>= 5;
        uint32_t x = ((m >> b) ^ (m >> j)) & 1u; /* swap bits b and j */
        m ^= (x << b) | (x << j);
    }
    return m;
}

/* Stores an element: iv for integer types, dv for floats (half rounded to
 * nearest; the generators choose values it holds exactly where it matters). */
static void store(void *dst, const gen *g, uint64_t iv, double dv) {
    const float f = (float)dv; /* every copy of a constant size: a move, not a call */
    const uint8_t u8 = (uint8_t)iv;
    const uint16_t u16 = g->is_float ? ocr_float_to_half(f) : (uint16_t)iv;
    const uint32_t u32 = (uint32_t)iv;
    if (g->es == 1)
        memcpy(dst, &u8, 1);
    else if (g->es == 2)
        memcpy(dst, &u16, 2);
    else if (g->es == 4)
        memcpy(dst, g->is_float ? (const void *)&f : (const void *)&u32, 4);
    else
        memcpy(dst, g->is_float ? (const void *)&dv : (const void *)&iv, 8);
}

/* One element; `neg` is its sign from the block's mask (sums). Besides the
 * exact float data above, the choices keep every result informative:
 *  sum   nonzero integers (+-1..1024 signed, 1..2048 unsigned), so a lost
 *        element shows; uniform floats in [-1, 1);
 *  prod  odd integers (the product never collapses to 0 mod 2^k); uniform
 *        floats within sqrt(n)-scaled distance of 1 (no overflow or underflow);
 *  and   all ones but for rare single cleared bits (about 16 over the input),
 *  or    zero but for rare single set bits, so each rare element matters;
 *  xor, min, max: random over a wide range (min and max are exact anyway);
 *  argmin, argmax: 61 values (-30..30 signed, 0..60 unsigned; floats the
 *        same, or uniform in [-1, 1)), so the extreme recurs about n / 61
 *        times: a kernel that keeps a later index than the first fails, and
 *        so does one that loses the first occurrence. Zeros come as +0.0 and
 *        -0.0 alike (equal values: the first of them is the answer). */
static void element(void *dst, uint64_t i, const gen *g, int neg) {
    /* r2 (a second draw) only for the operators that use it */
    uint64_t r = mix(g->seed, i), r2 = g->o == OCR_PROD || g->o == OCR_AND || g->o == OCR_OR ||
                                               g->o == OCR_ARGMIN || g->o == OCR_ARGMAX
                                           ? mix(g->seed ^ 0x5bd1e995u, i)
                                           : 0;
    ocr_type t = g->t;
    int is_signed = g->is_signed;
    unsigned bits = g->bits;
    uint64_t iv = 0;
    double dv = 0;
    if (g->kind == OCR_DATA_MAX) { /* the type's largest value (integers); floats: + + - - */
        iv = g->max_int ? g->max_int : UINT64_MAX >> (64 - bits + is_signed);
        dv = t == OCR_DOUBLE ? DBL_MAX : t == OCR_FLOAT ? (double)FLT_MAX : 65504.0;
        store(dst, g, iv, (i >> 1) & 1 ? -dv : dv);
        return;
    }
    const int fl = g->is_float; /* only the value the type stores (iv or dv) is made */
    switch (g->o) {
    case OCR_SUM:
        if (fl)
            dv = g->kind == OCR_DATA_UNIFORM
                     ? unit(r)
                     : (neg ? -1.0 : 1.0) * (double)(1 + r % g->k_max) / 256;
        else if (g->smax) /* the type's whole range, never 0 */
            iv = is_signed
                     ? (uint64_t)(neg ? -(int64_t)(1 + r % g->smax) : (int64_t)(1 + r % g->smax))
                     : 1 + r % g->smax;
        else
            iv = is_signed ? (uint64_t)(neg ? -(int64_t)(1 + r % 1024) : (int64_t)(1 + r % 1024))
                           : 1 + r % 2048;
        break;
    case OCR_PROD:
        if (!fl) {
            iv = 2 * (r % 8) + 1;
            if (is_signed && (r2 & 1)) iv = (uint64_t)(-(int64_t)iv);
        } else if (g->kind == OCR_DATA_UNIFORM) {
            dv = 1.0 + g->prod_w * unit(r2);
        } else {
            dv = i % g->prod_step ? 1.0 : (i / g->prod_step) % 2 ? 0.5 : 2.0;
            if (r2 & 1) dv = -dv;
        }
        break;
    case OCR_AND: /* bits is 8, 16, 32 or 64: r2 & (bits - 1) is r2 % bits */
        iv = r % g->rare == 0 ? ~(1ull << (r2 & (bits - 1))) : ~0ull;
        break;
    case OCR_OR:
        iv = r % g->rare == 0 ? (1ull << (r2 & (bits - 1))) : 0;
        break;
    case OCR_ARGMIN:
    case OCR_ARGMAX:
        iv = is_signed ? (uint64_t)((int64_t)(r % 61) - 30) : r % 61;
        if (!fl) break;
        dv = g->kind == OCR_DATA_UNIFORM ? unit(r) : (double)(int64_t)(r % 61) - 30;
        if (dv == 0 && (r2 & 1)) dv = -0.0;
        break;
    default: /* min, max, xor */
        iv = r;
        if (fl) dv = unit(r) * (t == OCR_HALF ? 1.0e4 : 1.0e6); /* half's range ends at 65504 */
        break;
    }
    store(dst, g, iv, dv);
}

/*
 * One-sided data: the second data set behind every verdict on a kernel of
 * unknown order (docs/output.md), chosen so that what a kernel loses cannot
 * cancel out:
 *  sum   every element >= 0, so every lost (doubled) element or partial
 *        lowers (raises) the sum. Values k (integers) or k * 2^-8 (floats),
 *        1 <= k <= K, are kept so small that the whole sum, hence every
 *        partial sum in any order, stays within B units (2^24 float, 2^53
 *        double, the type's maximum for integers): exact, and no integer
 *        overflow. Where B allows fewer than one unit per element (floats
 *        past 2^24 elements), only q of every 32 elements (seeded positions)
 *        are nonzero, keeping q * n / 32 <= B: those are the ones a loss shows.
 *  prod  floats: every element is +-2^e with e != 0, so each lost or doubled
 *        one changes the magnitude. e_0 = 3, e_i = +-1 after the Thue-Morse
 *        sequence ((-1)^popcount(i)) and the last one brings the total to
 *        exactly 4: the prefix sums stay in 1..3 and the whole is 2^4, so the
 *        identity, any lost prefix and any lost suffix (an off-by-one bound,
 *        a skipped last group) change the result, bit for bit. Partial
 *        products of contiguous or power-of-two-strided ranges stay within
 *        2^+-8 (Thue-Morse along such ranges is Thue-Morse again), so they
 *        are exact; in any order at all up to 120 (float) or 1016 (double)
 *        elements. Integers: odd factors 3..15, never +-1, so losing (or
 *        doubling) fewer than 9 (32-bit) or 17 (64-bit) elements always
 *        shows: their product would have to be 1 mod 2^32 (2^64).
 *  min, max, argmin, argmax   element n - 1 is the strict extreme, the others
 *        random: a lost last element (the classic off-by-one, a lost tail)
 *        shows, and so does a wrong index for it.
 *  and, or    elements 0 and n - 1 alone decide one bit each.
 *  xor   random odd values: any lost element, and any odd number of lost
 *        or doubled elements, changes the result.
 */
#define ONE_SIDED_SALT 0x6A09E667F3BCC908ull

/* The largest whole sum one-sided data may reach, in units. */
static uint64_t one_sided_budget(ocr_type t) {
    const ocr_type_traits *tr = ocr_type_traits_of(ocr_type_accumulator(t));
    if (tr->is_float) return (uint64_t)1 << tr->mantissa_bits;
    uint64_t max = tr->size == 4 ? UINT32_MAX : UINT64_MAX;
    return tr->is_signed ? max >> 1 : max;
}

/* q (nonzero elements per block of 32) and K (largest value) for n; returns
 * whether q * K per block fits B over the whole input. */
static int one_sided_sum_shape(ocr_type t, uint64_t n, unsigned *q, uint64_t *k) {
    uint64_t blocks = n / SIGN_BLOCK + (n % SIGN_BLOCK != 0), b = one_sided_budget(t);
    uint64_t per = b / (blocks ? blocks : 1); /* units per block */
    *q = per >= SIGN_BLOCK ? SIGN_BLOCK : per ? (unsigned)per : 1;
    *k = per >= SIGN_BLOCK ? per / SIGN_BLOCK : 1;
    if (*k > 1024) *k = 1024;
    if (small_max(t) && *k > small_max(t)) *k = small_max(t);
    return per > 0;
}

/* The exponent of element i of n in one-sided float products. */
static int prod_exponent(uint64_t i, uint64_t n) {
    if (n == 1) return 4;
    if (i == 0) return 3;
    if (i + 1 < n) return __builtin_popcountll(i) & 1 ? -1 : 1;
    /* Thue-Morse prefix sums: 0 over pairs, so +-1 after an odd count */
    int prefix = (n - 1) % 2 ? (__builtin_popcountll(n - 2) & 1 ? -1 : 1) : 0;
    return 4 - (2 + prefix); /* the prefix of n - 1 elements is 2 + prefix */
}

/* Element i of one-sided data; `on` is its bit in the block mask (sums). */
static void element_one_sided(void *dst, uint64_t i, const gen *g, int on) {
    uint64_t r = mix(g->seed ^ ONE_SIDED_SALT, i), r2 = mix(g->seed ^ ~ONE_SIDED_SALT, i);
    int last = i + 1 == g->n, is_max = g->o == OCR_MAX || g->o == OCR_ARGMAX;
    uint64_t s = (uint64_t)1 << (g->bits - 3), iv = 0; /* min/max value ranges */
    double dv = 0;
    unsigned bits = g->bits, b0 = (unsigned)(g->seed % bits), b1 = (b0 + 1) % bits;
    switch (g->o) {
    case OCR_SUM:
        iv = on ? 1 + r % g->k_max : 0;
        dv = (double)iv / 256;
        break;
    case OCR_PROD: /* only the value the type stores (iv or dv), as in element() */
        iv = 3 + 2 * (r % 7);
        if (g->is_signed && (r2 & 1)) iv = (uint64_t)(-(int64_t)iv);
        if (g->is_float) dv = ldexp(r2 & 1 ? -1.0 : 1.0, prod_exponent(i, g->n));
        break;
    case OCR_MIN:
    case OCR_MAX: /* others in [-s, s) (signed) or [2s, 4s); the last beyond */
    case OCR_ARGMIN:
    case OCR_ARGMAX:
        if (g->is_float) {
            dv = last ? (is_max ? 1.0 : -1.0) * (2.0e6 + fabs(unit(r)) * 1.0e6) : unit(r) * 1.0e6;
            if (g->t == OCR_HALF) dv /= 100; /* within half's range (65504) */
            break;
        }
        iv = g->is_signed ? (uint64_t)((int64_t)(r % (2 * s)) - (int64_t)s) : 2 * s + r % (2 * s);
        if (last)
            iv = is_max ? (g->is_signed ? s : 4 * s) + r % s
                        : (g->is_signed ? (uint64_t)(-2 * (int64_t)s) : 0) + r % s;
        break;
    case OCR_AND: /* bit b0 cleared by element 0 alone, b1 by element n - 1 alone */
    case OCR_OR:
        iv = r % g->rare == 0 ? 1ull << (r2 & (bits - 1)) : 0;
        iv &= ~((1ull << b0) | (1ull << b1));
        if (i == 0) iv |= 1ull << b0;
        if (last) iv |= 1ull << b1;
        if (g->o == OCR_AND) iv = ~iv;
        break;
    default: /* xor */
        iv = r | 1;
        break;
    }
    store(dst, g, iv, dv);
}

static gen gen_make(ocr_type t, ocr_op o, uint64_t seed, uint64_t n, ocr_data_kind kind) {
    uint64_t l2 = prod_span(t); /* 2L non-unit factors at most */
    const ocr_type_traits *tr = ocr_type_traits_of(t);
    gen g = {.t = t,
             .o = o,
             .kind = kind,
             .seed = seed,
             .n = n,
             .rare = n / 16 > 2 ? n / 16 : 2,
             .k_max = sum_range(t, n),
             .prod_step = n / l2 + (n % l2 != 0),
             .q = SIGN_BLOCK,
             .es = tr->size,
             .is_float = tr->is_float,
             .is_signed = !tr->is_float && tr->is_signed,
             .bits = (unsigned)tr->size * 8,
             .smax = small_max(t),
             .max_int = tr->max_int};
    if (kind == OCR_DATA_ONE_SIDED && o == OCR_SUM) one_sided_sum_shape(t, n, &g.q, &g.k_max);
    g.prod_w = 2.0 / sqrt((double)n);
    if (g.prod_w > 1.0 / 256) g.prod_w = 1.0 / 256;
    return g;
}

/* The block's mask: the signs of exact and uniform sums, the nonzero
 * elements of one-sided ones. */
/* Where one-sided sums leave elements at zero (q < 32), elements 0 and
 * n - 1 are never among them, so losing the first or the last element
 * always shows; the block keeps q nonzero ones (the budget holds). */
static uint32_t keep_ends(uint32_t m, const gen *g, uint64_t block) {
    uint64_t ends[2] = {0, g->n - 1};
    uint32_t pinned = 0;
    for (int k = 0; k < 2; ++k)
        if (ends[k] / SIGN_BLOCK == block) pinned |= 1u << (ends[k] % SIGN_BLOCK);
    for (uint32_t want = pinned & ~m; want; want &= want - 1) {
        uint32_t others = m & ~pinned;
        if (others) m &= ~(others & (0u - others)); /* give up the lowest other one */
        m |= want & (0u - want);
    }
    return m;
}

static uint32_t mask_of(const gen *g, uint64_t block) {
    if (g->o != OCR_SUM) return 0;
    if (g->kind == OCR_DATA_ONE_SIDED)
        return keep_ends(block_mask(g->seed ^ ONE_SIDED_SALT, block, g->q), g, block);
    return block_mask(g->seed, block, SIGN_BLOCK / 2);
}

void ocr_data_fill(void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t seed,
                   ocr_data_kind kind) {
    ocr_data_fill_range(data, 0, n, n, t, o, seed, kind);
}

/* The same elements as ocr_data_fill's array of n, from `offset` on: the
 * generator is counter-based, so a share needs only its block's mask. */
void ocr_data_fill_range(void *data, uint64_t offset, uint64_t count, uint64_t n, ocr_type t,
                         ocr_op o, uint64_t seed, ocr_data_kind kind) {
    size_t es = ocr_type_size(t);
    gen g = gen_make(t, o, seed, n, kind);
    uint32_t mask = count ? mask_of(&g, offset / SIGN_BLOCK) : 0;
    for (uint64_t i = offset; i < offset + count; ++i) {
        if (i % SIGN_BLOCK == 0) mask = mask_of(&g, i / SIGN_BLOCK);
        int bit = (int)((mask >> (i % SIGN_BLOCK)) & 1u);
        char *dst = (char *)data + (i - offset) * es;
        if (kind == OCR_DATA_ONE_SIDED)
            element_one_sided(dst, i, &g, bit);
        else
            element(dst, i, &g, bit);
    }
}

/* The naive loop, one tight loop per (type, operator) so that T ref measures
 * the loop and not a switch. */
#define NAIVE(TY, FIELD, EXPR)                                                                     \
    do {                                                                                           \
        const TY *x = (const TY *)data;                                                            \
        TY a = id.FIELD;                                                                           \
        for (uint64_t i = 0; i < n; ++i) {                                                         \
            TY v = x[i];                                                                           \
            a = (EXPR);                                                                            \
        }                                                                                          \
        r.FIELD = a;                                                                               \
    } while (0)

ocr_value ocr_reduce_naive(const void *data, uint64_t n, ocr_type t, ocr_op o) {
    if (ocr_op_is_arg(o)) return ocr_arg_reduce(data, n, t, o);
    if (ocr_type_is_storage(t)) return ocr_small_reduce(data, n, t, o);
    ocr_value r, id = ocr_identity(t, o);
    memset(&r, 0, sizeof r);
    OCR_DISPATCH(t, o, NAIVE)
    return r;
}

/*
 * Floating-point reference and tolerance.
 *
 * Exact data (the default): every partial sum or product is representable
 * (see ocr_data_fill), so the long double reference below is exact and the
 * device must match it bit for bit: tolerance 0.
 *
 * Uniform data (--data uniform): the reference is computed in long double: sum with Neumaier
 * compensation (ocr_sum_compensated: its error, about 2^-64 of the sum plus n 2^-128 of
 * sum |x|, is far below half an ulp of a double, so rounded to the type it is the correctly
 * rounded sum but within a hair of a tie), product as a plain long double product (its roundings
 * are 2^11 times smaller than a double's, far below the tolerance).
 *
 * The bound is the rigorous one, with no assumption about how rounding errors
 * distribute. With u the unit roundoff (FLT_EPSILON/2 or DBL_EPSILON/2) and
 * g(d) = (1 + u)^d - 1 (which is ~ d u while d u is small, and never undefined):
 *
 *   sum   |device - exact| <= g(d) * sum |x_i|, where d is the plan's depth: the
 *         longest chain of additions any input goes through (tree levels per
 *         pass, each work-item's sequential run, the CPU finish);
 *   prod  |device - exact| <= g(n - 1) * |exact|: every one of the n - 1
 *         multiplications rounds, whatever the order.
 *
 * Both get a floor of 4 u |reference| for the final rounding to the type.
 *
 * We measured why no tighter "probabilistic" bound (lambda sqrt(n) u) is used:
 * a float tree product of 2^25 values near 1 came out 13% off on POCL, while a
 * sequential loop was 0.06% off. In a tree the lowest levels multiply values
 * that straddle 1.0, where the float spacing halves, so rounding errors are
 * biased and add up instead of cancelling. For float products at large n the
 * rigorous bound is loose (it exceeds 100% past n ~ 2^24); integer products
 * (exact) are what catch logic errors there.
 *
 * Accurate sums (ocr_reference_accurate, a kernel built with OCR_ACCURATE): the
 * bound is one ulp of that reference instead, whatever the depth, so a kernel
 * that loses the compensation fails.
 *
 * min and max are exact for every type, and so are argmin and argmax: the
 * value and its index. NaN or Inf in the result fails unless
 * the input holds them.
 */
static double ulp_of(ocr_type t, ocr_value e);

static double growth(double d, double u) {
    return expm1(d * log1p(u));
}

/* Neumaier's compensated sum in long double of data[first], data[first +
 * step], ... (n of them): like Kahan's, but right also when an element
 * outweighs the running sum. An infinity or a NaN makes s non-finite for
 * good, and its c a NaN: the sum is then s, IEEE's (inf + -inf a NaN). */
static long double sum_ld_of(const void *data, uint64_t n, int fl, uint64_t first, uint64_t step,
                             long double *abs_sum) {
    long double s = 0, c = 0, a = 0;
    for (uint64_t j = 0, i = first; j < n; ++j, i += step) {
        long double x =
            fl ? (long double)((const float *)data)[i] : (long double)((const double *)data)[i];
        long double t = s + x;
        c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
        s = t;
        a += fabsl(x);
    }
    if (abs_sum) *abs_sum = a;
    return isfinite(s) ? s + c : s;
}
static long double sum_ld(const void *data, uint64_t n, int fl, long double *abs_sum) {
    return sum_ld_of(data, n, fl, 0, 1, abs_sum);
}

/* v rounded once to t: past the type's largest, an infinity (IEEE's
 * overflow, written out: the conversion's is not C's to promise). */
static ocr_value round_to(long double v, ocr_type t) {
    ocr_value r;
    memset(&r, 0, sizeof r);
    long double most = t == OCR_FLOAT ? (long double)FLT_MAX : (long double)DBL_MAX;
    /* half an ulp above the largest rounds up to infinity */
    long double edge = most + (t == OCR_FLOAT ? ldexpl(1, 103) : ldexpl(1, 970));
    if (isfinite(v) && fabsl(v) >= edge) v = v > 0 ? INFINITY : -INFINITY;
    if (t == OCR_FLOAT)
        r.f = fabsl(v) > most && isfinite(v) ? (v > 0 ? FLT_MAX : -FLT_MAX) : (float)v;
    else
        r.d = fabsl(v) > most && isfinite(v) ? (v > 0 ? DBL_MAX : -DBL_MAX) : (double)v;
    return r;
}

ocr_value ocr_sum_compensated(const void *data, uint64_t n, ocr_type t) {
    return ocr_sum_accurate_parts(data, n, t, 0);
}

/* p[0..m) distilled (TwoSum sweeps that keep the exact sum, until none
 * moves: each term then below half an ulp of the next), summed from the
 * smallest: within an ulp of the exact sum, cancellation or not. */
static long double distill(long double *p, size_t m) {
    for (int sweep = 0, moved = 1; moved && sweep < 200; ++sweep) {
        moved = 0;
        for (size_t i = 1; i < m; ++i) {
            long double s = p[i], x = p[i - 1], t = s + x, z = t - s;
            long double e = (s - (t - z)) + (x - z);
            moved |= t != s || e != x;
            p[i] = t, p[i - 1] = e;
        }
    }
    long double v = 0;
    for (size_t i = 0; i + 1 < m; ++i)
        v += p[i];
    return m ? p[m - 1] + v : 0;
}

ocr_value ocr_sum_accurate_parts(const void *data, uint64_t n, ocr_type t, int parts) {
    const int fl = t == OCR_FLOAT;
    if (!parts) return round_to(sum_ld(data, n, fl, NULL), t);
    /* value = (q0 + q1) 2^64 + q2 + q3 for each accumulator q */
    uint64_t k = n / OCR_ACCURATE_PARTS;
    long double big = sum_ld_of(data, k, fl, 0, OCR_ACCURATE_PARTS, NULL);
    long double small = sum_ld_of(data, k, fl, 2, OCR_ACCURATE_PARTS, NULL);
    /* an infinity or a NaN: the compensations are garbage, the sums IEEE's */
    if (!isfinite(big) || !isfinite(small)) return round_to(ldexpl(big, 64) + small, t);
    long double *p = malloc(k * OCR_ACCURATE_PARTS * sizeof *p);
    if (!p) /* no worse than the caller's own failed allocations */
        return round_to(ldexpl(big + sum_ld_of(data, k, fl, 1, OCR_ACCURATE_PARTS, NULL), 64) +
                            small + sum_ld_of(data, k, fl, 3, OCR_ACCURATE_PARTS, NULL),
                        t);
    /* where 2^64 times the scaled values could overflow long double (as
     * double), all in the scaled domain: the result is then near the largest */
    int scaled = fabsl(big) > ldexpl(LDBL_MAX, -80);
    for (uint64_t i = 0; i < k * OCR_ACCURATE_PARTS; ++i) {
        long double x =
            fl ? (long double)((const float *)data)[i] : (long double)((const double *)data)[i];
        int e = i % OCR_ACCURATE_PARTS < 2 ? (scaled ? 0 : 64) : (scaled ? -64 : 0);
        p[i] = ldexpl(x, e);
    }
    long double v = distill(p, k * OCR_ACCURATE_PARTS);
    free(p);
    return round_to(scaled ? ldexpl(v, 64) : v, t);
}

void ocr_reference_make(const void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t depth,
                        ocr_data_kind kind, ocr_reference *ref) {
    if (ocr_type_is_storage(t) && ocr_op_is_arg(o)) { /* exact: the elements' own order */
        memset(ref, 0, sizeof *ref);
        ref->any_order = 1;
        ref->arg = 1;
        ref->expected = ocr_arg_reduce(data, n, t, o);
        return;
    }
    if (ocr_type_is_storage(t) && ocr_type_is_float(t)) {
        /* half: the values converted exactly to float, whose sum the device
         * computes; the float reference (exact, or compensated with its
         * bound) from them. Exact data stays exact: elements k 2^-8. */
        ocr_type acc = ocr_type_accumulator(t);
        void *w = malloc(n * ocr_type_size(acc));
        memset(ref, 0, sizeof *ref);
        if (!w) { /* no worse than any failed allocation of the caller's */
            ref->expected = ocr_small_reduce(data, n, t, o);
            return;
        }
        ocr_small_widen(data, n, t, w);
        ocr_reference_make(w, n, acc, o, depth, kind, ref);
        if (kind != OCR_DATA_UNIFORM) ref->any_order = ocr_reference_any_order(t, o, n, kind);
        free(w);
        return;
    }
    if (ocr_type_is_storage(t)) { /* integers: exact in the accumulator */
        memset(ref, 0, sizeof *ref);
        ref->any_order = 1;
        ref->expected = ocr_small_reduce(data, n, t, o);
        return;
    }
    memset(ref, 0, sizeof *ref);
    ref->any_order = 1;
    ref->arg = ocr_op_is_arg(o);
    if (!ocr_type_is_float(t) || o == OCR_MIN || o == OCR_MAX || ref->arg) {
        ref->expected = ocr_reduce_naive(data, n, t, o); /* exact */
        return;
    }
    int fl = t == OCR_FLOAT;
    long double p = 1, abs_sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
        long double x =
            fl ? (long double)((const float *)data)[i] : (long double)((const double *)data)[i];
        if (!isfinite((double)x)) ref->nonfinite_input = 1;
        if (o == OCR_PROD) p *= x;
    }
    long double val = o == OCR_SUM ? sum_ld(data, n, fl, &abs_sum) : p;
    ref->expected = round_to(val, t);
    if (kind != OCR_DATA_UNIFORM) { /* the sum or product is exact: compare bits */
        ref->any_order = ocr_reference_any_order(t, o, n, kind);
        return;
    }
    ref->tolerance = o == OCR_SUM ? ocr_sum_bound(t, depth, (double)val, (double)abs_sum)
                                  : ocr_sum_bound(t, n - 1, (double)val, fabs((double)val));
}

/* Every value v_i of the sum is multiplied by at most `depth` factors
 * (1 + d), |d| <= u, one per rounding on its way to the result, so the
 * computed sum is off by at most ((1 + u)^depth - 1) sum |v_i| (a product's
 * n - 1 roundings each scale the whole: abs_sum = |product|). The floor:
 * the reference itself is rounded once to t, and its neighbours differ. */
double ocr_sum_bound(ocr_type t, uint64_t depth, double exact, double abs_sum) {
    double u = (ocr_type_accumulator(t) == OCR_FLOAT ? FLT_EPSILON : DBL_EPSILON) / 2;
    double floor_tol = 4 * u * fabs(exact), tol = growth((double)depth, u) * abs_sum;
    return tol > floor_tol ? tol : floor_tol;
}

void ocr_reference_accurate(ocr_type t, ocr_op o, ocr_reference *ref) {
    if (!ocr_type_is_float(t) || o != OCR_SUM) return;
    ref->nonfinite_input = 0; /* IEEE's infinity or NaN, not any */
    if (ref->tolerance == 0) return;
    double u = ulp_of(t, ref->expected);
    ref->tolerance = u > 0 && isfinite(u) ? u : ref->tolerance;
}

int ocr_reference_any_order(ocr_type t, ocr_op o, uint64_t n, ocr_data_kind kind) {
    if (!ocr_type_is_float(t) || kind == OCR_DATA_UNIFORM) return 1;
    if (kind == OCR_DATA_EXACT && o == OCR_SUM && ocr_type_is_storage(t))
        return sum_any_order(t, n); /* its own K (small_max) */
    t = ocr_type_accumulator(t);
    if (kind == OCR_DATA_ONE_SIDED) { /* see element_one_sided */
        unsigned q;
        uint64_t k;
        return o == OCR_SUM    ? one_sided_sum_shape(t, n, &q, &k)
               : o == OCR_PROD ? n <= (t == OCR_FLOAT ? 120u : 1016u)
                               : 1;
    }
    return o != OCR_SUM || sum_any_order(t, n);
}

int ocr_check(ocr_type t, const ocr_reference *ref, ocr_value got) {
    t = ocr_type_accumulator(t); /* small types' values are the accumulator's */
    if (ref->arg && got.arg.index != ref->expected.arg.index) return 0;
    if (!ocr_type_is_float(t) || ref->tolerance == 0) {
        if (t == OCR_FLOAT)
            return got.f == ref->expected.f || (isnan(got.f) && isnan(ref->expected.f));
        if (t == OCR_DOUBLE)
            return got.d == ref->expected.d || (isnan(got.d) && isnan(ref->expected.d));
        return ocr_type_size(t) == 4 ? got.u == ref->expected.u : got.ul == ref->expected.ul;
    }
    double g = t == OCR_FLOAT ? (double)got.f : got.d;
    double e = t == OCR_FLOAT ? (double)ref->expected.f : ref->expected.d;
    /* an infinity or NaN of the reference's own passes; else any non-finite
     * value passes a non-finite reference where nonfinite_input says the
     * order decides which (plain sums; accurate ones give IEEE's) */
    if (!isfinite(g) || !isfinite(e))
        return g == e || (isnan(g) && isnan(e)) ||
               (ref->nonfinite_input && !isfinite(g) && !isfinite(e));
    return fabs(g - e) <= ref->tolerance;
}

/* One unit in the last place of |e| in type t (the spacing above it). */
static double ulp_of(ocr_type t, ocr_value e) {
    if (t == OCR_FLOAT) {
        float a = fabsf(e.f);
        return (double)(nextafterf(a, INFINITY) - a);
    }
    double a = fabs(e.d);
    return nextafter(a, INFINITY) - a;
}

double ocr_ulps_of(ocr_type t, ocr_value expected, double abs_error) {
    t = ocr_type_accumulator(t);
    if (!ocr_type_is_float(t)) return 0;
    double u = ulp_of(t, expected);
    return u > 0 && isfinite(u) ? abs_error / u : 0;
}

double ocr_error_ulps(ocr_type t, ocr_value expected, ocr_value got) {
    t = ocr_type_accumulator(t);
    if (!ocr_type_is_float(t)) return 0;
    double g = t == OCR_FLOAT ? (double)got.f : got.d;
    double e = t == OCR_FLOAT ? (double)expected.f : expected.d;
    return ocr_ulps_of(t, expected, fabs(g - e));
}
