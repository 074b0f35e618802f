/*
 * nrm2 - the merge of norm()'s L2 norm (oclreduction/_linalg.py), a
 * preamble of custom.cl's template.
 *
 * What it does: each element is the pair (|x|, 1), a pair (s, q) meaning
 * s * sqrt(q); two pairs merge to the larger scale s with the other's sum
 * of squares rescaled to it (LAPACK's dnrm2 idea), and the template's
 * finish is r.x * sqrt(r.y). NaN propagates; a zero or infinite scale is
 * kept as it is.
 *
 * Why: sqrt(sum x^2) of float32 overflows above |x| ~ 1.8e19 and underflows
 * below ~1e-23; NumPy's norm does not. Scaled sums stay in range.
 *
 * What it costs: two divisions and a max per merge (a plain sum of squares
 * has none): norm reads at less than sum's rate where merges dominate.
 *
 * Defined before it: R (float or double) and R2 (its pair type).
 */
inline R2 ocr_nrm2_merge(R2 a, R2 b) {
    if (isnan(a.x) || isnan(b.x))
        return (R2)(NAN, 1);
    const R s = fmax(a.x, b.x);
    if (s == 0 || isinf(s))
        return (R2)(s, 1);
    const R p = a.x / s, q = b.x / s;
    return (R2)(s, a.y * p * p + b.y * q * q);
}
