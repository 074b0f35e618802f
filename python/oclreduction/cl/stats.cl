/*
 * stats - mean, var, std and stats() in one read of the data: the preamble
 * of custom.cl's template for them (oclreduction/_stats.py).
 *
 * What it does: each element x becomes the triple (count 1, mean x, M2 0)
 * and the triples merge with Chan's parallel formula (Welford's update where
 * one side is a single element): no sum of squares, so no cancellation when
 * the mean is large against the spread. min/max and their first indices
 * ride along on request (OCR_ST_MINMAX). A side with count 0 is the neutral
 * element: returned as the other, never divided by.
 *
 * How Python fills it: #define lines before this file (never a substitution
 * inside it): R (the real type computed in), L (min/max's type), the
 * accumulator struct OCR_ST_T with ocr_st_zero() (declared from the same
 * field list as its NumPy dtype), and the switches OCR_ST_COMPLEX,
 * OCR_ST_MINMAX, OCR_ST_FLOAT (NaN-aware ordering), OCR_ST_HALF and
 * OCR_ST_BOOL (how element i is read), OCR_ST_WALK (the work-item's own
 * walk below) and OCR_ST_VEC with OCR_ST_VT, OCR_ST_W (its vector walk).
 * The kernel argument is x.
 *
 * Why the walk: a merge per element costs a division; a work-item's own
 * walk over real data without min/max keeps sums shifted by its first
 * element k (s1 of x - k, s2 of its squares: no division per element, and
 * k lies among the data, so M2 = s2 - s1^2/c cancels little), then one
 * triple merged by the tree. s0, the plain sum, gives NumPy's mean where an
 * element is inf or NaN (s1 is then not finite) and M2 is NaN. k and the
 * count c are known before the walk (the template's ocr_rk_lo and
 * ocr_rk_count): a step is a load and four flops, no select or counter
 * (with them, var of 2^28 float32 read at 0.92x our sum's rate on an H200).
 *
 * What it costs: where the device cannot finish in one launch (custom.cl's
 * rule), one launch more than a sum over several groups; float16 is
 * computed in float32.
 */

/* Element i of the view: its real and imaginary parts in R, its value for
   min/max in L. float16 read as ushort through vload_half (no cl_khr_fp16
   needed), bool as its byte. */
#if OCR_ST_HALF
#define OCR_ST_X ((R)vload_half(i, (__global const half *)x))
#define OCR_ST_XI ((R)0)
#define OCR_ST_V ((L)vload_half(i, (__global const half *)x))
#elif OCR_ST_COMPLEX
#define OCR_ST_X ((R)x[i].real)
#define OCR_ST_XI ((R)x[i].imag)
#define OCR_ST_V ((L)0)
#else
#define OCR_ST_X ((R)x[i])
#define OCR_ST_XI ((R)0)
#define OCR_ST_V ((L)x[i])
#endif

/* NaN orders first for min and max alike (NumPy's propagation); integers plain. */
#if OCR_ST_FLOAT
#define OCR_ST_LT(x, y) ((x) < (y) || (isnan(x) && !isnan(y)))
#define OCR_ST_GT(x, y) ((x) > (y) || (isnan(x) && !isnan(y)))
#define OCR_ST_EQ(x, y) ((x) == (y) || (isnan(x) && isnan(y)))
#else
#define OCR_ST_LT(x, y) ((x) < (y))
#define OCR_ST_GT(x, y) ((x) > (y))
#define OCR_ST_EQ(x, y) ((x) == (y))
#endif

inline OCR_ST_T ocr_st_merge(OCR_ST_T a, OCR_ST_T b) {
    if (b.n == 0)
        return a;
    if (a.n == 0)
        return b;
    OCR_ST_T r = a;
    r.n = a.n + b.n;
    /* One count converted per element (b.n is 1 there): a GPU converts a
       64-bit integer in several instructions. */
    const R na = (R)a.n, wb = (R)b.n / (na + (R)b.n), d = b.m - a.m;
#if OCR_ST_COMPLEX
    const R di = b.mi - a.mi;
    r.mi = a.mi + di * wb;
    r.m2 = a.m2 + b.m2 + (d * d + di * di) * (na * wb);
#else
    r.m2 = a.m2 + b.m2 + d * d * (na * wb);
#endif
    r.m = a.m + d * wb;
#if !OCR_ST_COMPLEX
    if (isinf(a.m) || isinf(b.m)) { /* NumPy's sum-then-divide: inf, or inf - inf = NaN */
        r.m = a.m + b.m;
        r.m2 = NAN;
    }
#endif
#if OCR_ST_MINMAX /* NumPy's: NaN wins, then the first index of the extreme value */
    if (OCR_ST_LT(b.lo, a.lo) || (OCR_ST_EQ(b.lo, a.lo) && b.ilo < a.ilo)) {
        r.lo = b.lo;
        r.ilo = b.ilo;
    }
    if (OCR_ST_GT(b.hi, a.hi) || (OCR_ST_EQ(b.hi, a.hi) && b.ihi < a.ihi)) {
        r.hi = b.hi;
        r.ihi = b.ihi;
    }
#endif
    return r;
}

/* Element k of the view, x + i xi (v: its value for min/max). M2 is x - x:
   0, or NaN for inf and NaN (NumPy's var of [inf] is NaN: inf - inf). */
inline OCR_ST_T ocr_st_one(R x, R xi, L v, ulong k) {
    OCR_ST_T r = ocr_st_zero();
    r.n = 1;
    r.m = x;
    r.m2 = x - x;
#if OCR_ST_COMPLEX
    r.mi = xi;
    r.m2 += xi - xi;
#endif
#if OCR_ST_MINMAX
    r.lo = r.hi = v;
    r.ilo = r.ihi = k;
#endif
    return r;
}

/* NumPy's var: M2 / max(n - ddof, 0) (0/0: NaN, M2/0: inf). */
inline R ocr_st_var(OCR_ST_T r, R ddof) { return r.m2 / fmax((R)r.n - ddof, (R)0); }

#if OCR_ST_WALK
/* The work-item's own walk (custom.cl's OCR_RK_SEQ hooks): the shift k is
   its first element; each step adds element i to the shifted sums; the end
   makes the one triple the tree merges. */
#define OCR_RK_SEQ 1
#define OCR_RK_SEQ_BEGIN                                                   \
    ulong ocr_st_c = ocr_rk_count;                                         \
    R ocr_st_k = 0, ocr_st_s0 = 0, ocr_st_s1 = 0, ocr_st_s2 = 0;           \
    if (ocr_st_c) {                                                        \
        const ulong ocr_rk_k = ocr_rk_lo;                               \
        const long i = OCR_RK_I(ocr_rk_k);                                 \
        ocr_st_k = OCR_ST_X;                                               \
    }
#define OCR_RK_SEQ_STEP                                                    \
    { const R ocr_st_x = OCR_ST_X;                                         \
      const R ocr_st_d = ocr_st_x - ocr_st_k;                              \
      ocr_st_s0 += ocr_st_x;                                               \
      ocr_st_s1 += ocr_st_d;                                               \
      ocr_st_s2 += ocr_st_d * ocr_st_d; }
#define OCR_RK_SEQ_END                                                     \
    ocr_rk_acc ocr_rk_v = ocr_st_zero();                                 \
    if (ocr_st_c) {                                                        \
        const R c = (R)ocr_st_c;                                           \
        ocr_rk_v.n = ocr_st_c;                                             \
        ocr_rk_v.m = isfinite(ocr_st_s1) ? ocr_st_k + ocr_st_s1 / c : ocr_st_s0 / c; \
        const R m2 = ocr_st_s2 - ocr_st_s1 * (ocr_st_s1 / c); /* >= 0 but for rounding */ \
        ocr_rk_v.m2 = isfinite(ocr_st_s1) ? (m2 < 0 ? (R)0 : m2) : (R)NAN;  \
    }
#endif

#if OCR_ST_VEC
/* The GPU walk over float or double data whose first element is aligned to
   its vector (OCR_ST_VT of OCR_ST_W lanes: float2, double4), in the common
   call (i = k): four vector loads a step, the sums kept per lane;
   work-item 0 takes the last n % W elements. The first pass of var of 2^28
   elements on an H200: float 0.2535 ms with scalar loads, 0.2452 with
   float2, 0.2571 with float4; double 0.5119 scalar, 0.5050 with double2,
   0.4786 with double4 (bench/drivers/var_walks.py --walks;
   bench/results/custom/h200-2026-11-29). The shift k is the walk's begin's:
   an element of the data all the same. */
#if OCR_RK_UNIT
#define OCR_ST_ALIGNED (((ulong)x & (sizeof(OCR_ST_VT) - 1)) == 0)
#else
#define OCR_ST_ALIGNED 0
#endif
#if OCR_ST_W == 2
#define OCR_ST_LANES(a) (a.s0 + a.s1)
#else
#define OCR_ST_LANES(a) ((a.s0 + a.s1) + (a.s2 + a.s3))
#endif
#define OCR_ST_VSTEP(e)                                                     \
    { const OCR_ST_VT ocr_st_e = (e), ocr_st_d = ocr_st_e - ocr_st_k;       \
      ocr_st_a0 += ocr_st_e; ocr_st_a1 += ocr_st_d; ocr_st_a2 += ocr_st_d * ocr_st_d; }
#define OCR_RK_SEQ_VEC                                                      \
    if (OCR_ST_ALIGNED) {                                                   \
        const ulong ocr_st_nv = ocr_rk_n / OCR_ST_W;                        \
        ulong ocr_st_v = get_global_id(0);                                  \
        ocr_st_c = OCR_ST_W * (ocr_st_v < ocr_st_nv ? (ocr_st_nv - 1 - ocr_st_v) / ocr_rk_g + 1 : 0) + \
                   (ocr_st_v == 0 ? ocr_rk_n % OCR_ST_W : 0);               \
        __global const OCR_ST_VT *const ocr_st_xv = (__global const OCR_ST_VT *)x; \
        OCR_ST_VT ocr_st_a0 = (OCR_ST_VT)(0), ocr_st_a1 = ocr_st_a0, ocr_st_a2 = ocr_st_a0; \
        for (; ocr_st_v + 3 * ocr_rk_g < ocr_st_nv; ocr_st_v += 4 * ocr_rk_g) { \
            const OCR_ST_VT ocr_st_e0 = ocr_st_xv[ocr_st_v],                \
                ocr_st_e1 = ocr_st_xv[ocr_st_v + ocr_rk_g],                 \
                ocr_st_e2 = ocr_st_xv[ocr_st_v + 2 * ocr_rk_g],             \
                ocr_st_e3 = ocr_st_xv[ocr_st_v + 3 * ocr_rk_g];             \
            OCR_ST_VSTEP(ocr_st_e0) OCR_ST_VSTEP(ocr_st_e1)                 \
            OCR_ST_VSTEP(ocr_st_e2) OCR_ST_VSTEP(ocr_st_e3)                 \
        }                                                                   \
        for (; ocr_st_v < ocr_st_nv; ocr_st_v += ocr_rk_g)                  \
            OCR_ST_VSTEP(ocr_st_xv[ocr_st_v])                               \
        ocr_st_s0 = OCR_ST_LANES(ocr_st_a0);                                \
        ocr_st_s1 = OCR_ST_LANES(ocr_st_a1);                                \
        ocr_st_s2 = OCR_ST_LANES(ocr_st_a2);                                \
        if (get_global_id(0) == 0)                                          \
            for (ulong ocr_rk_k = ocr_st_nv * OCR_ST_W; ocr_rk_k < ocr_rk_n; ++ocr_rk_k) { \
                const long i = OCR_RK_I(ocr_rk_k);                          \
                OCR_RK_SEQ_STEP                                             \
            }                                                               \
    }
#endif
