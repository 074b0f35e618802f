/*
 * custom - the package's ReductionKernel (PyOpenCL's interface) where the C
 * library's custom reducer (cl/custom.cl of the project) does not take the
 * spec: complex and struct accumulators, a finish expression, a result type
 * other than the accumulator's, a preamble with preprocessor lines, a walk
 * of the caller's own (the statistics' shifted sums, stats.cl).
 *
 * What it does: map_expr(i) over the indices i of the call, combined with
 * reduce_expr(a, b) from neutral. Two kernels: @NAME@_stage1 runs a fixed
 * grid of groups (the host's choice: the device's compute units x 8), each
 * work-item accumulating in registers, then one tree per group, writing one
 * partial per group (or, where the group is the only one, the finished
 * result); @NAME@_stage2 is one group combining the partials and finishing.
 *
 * How Python fills it (oclreduction/_kernels.py, fill()): each placeholder,
 * a name in capitals between two at signs, is replaced by the caller's text
 * or the package's (the one substitution the package makes in a .cl file;
 * C braces stay as they are). The switches come
 * as -D options: OCR_RK_WG (the group size, a power of two), OCR_RK_BLOCKED
 * (a CPU's contiguous chunks, else a GPU's coalesced grid stride),
 * OCR_RK_UNIT (the call's i starts at 0 with step 1). A preamble that defines
 * OCR_RK_SEQ replaces a work-item's walk with its own (OCR_RK_SEQ_BEGIN,
 * OCR_RK_SEQ_STEP adding element i, OCR_RK_SEQ_END declaring ocr_rk_v; and
 * with OCR_RK_SEQ_VEC, "if (condition) { ... }", a walk of its own taken on
 * the GPU walk where the condition holds). Every name the kernels add is
 * prefixed ocr_rk_, so that the caller's expressions keep theirs.
 *
 * Why it is fast: reduce7's shape, as the C library's custom reducer; four
 * loads of a work-item in flight on the GPU walk (with one, a float dot of
 * 2^28 elements read at half of CUB's rate on an H200).
 *
 * What it costs: two launches where there is more than one group (the C
 * library's reducer finishes in one launch where it can: the package takes
 * it wherever the spec allows, _custom._native_spec); the order of
 * combination is a tree: reduce_expr must be associative and commutative.
 * Correct on any conforming device: a barrier at every level of the tree.
 */
@HEAD@
@PREAMBLE@
/* i of the k-th element walked: with OCR_RK_UNIT (start 0, step 1, the
   common call) k itself, without a 64-bit multiply per element. */
#if OCR_RK_UNIT
#define OCR_RK_I(k) ((long)(k))
#else
#define OCR_RK_I(k) (ocr_rk_start + (long)(k) * ocr_rk_step)
#endif
typedef @ACC@ ocr_rk_acc_t;
typedef @RES@ ocr_rk_res_t;

inline ocr_rk_acc_t ocr_rk_reduce(ocr_rk_acc_t a, ocr_rk_acc_t b) { return (@REDUCE@); }
inline ocr_rk_res_t ocr_rk_finish(ocr_rk_acc_t r) { return (@FINISH@); }

/* v combined over the group (work-item 0 gets the total). A barrier at every
   level: OpenCL promises no lock-step execution within a group. */
inline ocr_rk_acc_t ocr_rk_tree(__local ocr_rk_acc_t *t, ocr_rk_acc_t v) {
    const uint l = get_local_id(0);
    t[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = OCR_RK_WG / 2; s > 0; s >>= 1) {
        if (l < s)
            t[l] = ocr_rk_reduce(t[l], t[l + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return t[0];
}

/* One partial per group at out + off (bytes); last: the group is the only
   one, and writes the finished result instead. */
__kernel __attribute__((reqd_work_group_size(OCR_RK_WG, 1, 1)))
void @NAME@_stage1(__global char *ocr_rk_out, const ulong ocr_rk_off@DECLS@,
                   const long ocr_rk_start, const long ocr_rk_step, const ulong ocr_rk_n,
                   const int ocr_rk_last) {
    __local ocr_rk_acc_t ocr_rk_t[OCR_RK_WG];
@BINDS@
    /* This work-item's walk: its first k and how many it takes (a seq's
       begin may read element ocr_rk_first where ocr_rk_count > 0). */
#if OCR_RK_BLOCKED
    /* A CPU runs a group's work-items one after another on one core: each
       walks its own contiguous chunk (a grid stride would touch one element
       per cache line and jump; 4-5x slower on POCL). */
    const ulong ocr_rk_per = (ocr_rk_n + get_global_size(0) - 1) / get_global_size(0);
    const ulong ocr_rk_first = min(ocr_rk_n, get_global_id(0) * ocr_rk_per);
    const ulong ocr_rk_end = min(ocr_rk_n, ocr_rk_first + ocr_rk_per);
    const ulong ocr_rk_count = ocr_rk_end - ocr_rk_first;
#else
    const ulong ocr_rk_g = get_global_size(0), ocr_rk_first = get_global_id(0);
    const ulong ocr_rk_count =
        ocr_rk_first < ocr_rk_n ? (ocr_rk_n - 1 - ocr_rk_first) / ocr_rk_g + 1 : 0;
#endif
#ifdef OCR_RK_SEQ
    OCR_RK_SEQ_BEGIN
#else
    ocr_rk_acc_t ocr_rk_v = @NEUTRAL@;
#endif
#if OCR_RK_BLOCKED
    for (ulong ocr_rk_k = ocr_rk_first; ocr_rk_k < ocr_rk_end; ++ocr_rk_k) {
        const long i = OCR_RK_I(ocr_rk_k);
#ifdef OCR_RK_SEQ
        OCR_RK_SEQ_STEP
#else
        ocr_rk_v = ocr_rk_reduce(ocr_rk_v, (@MAP@));
#endif
    }
#else
#ifdef OCR_RK_SEQ_VEC
    OCR_RK_SEQ_VEC else {
#endif
    /* A GPU: neighbouring work-items read neighbouring elements (coalesced),
       four elements a step, each loaded before any is combined: four loads
       of a work-item in flight, not one (with one, a float dot read 2^28
       elements at half of CUB's rate on an H200). Each element in its own
       block (its own i and ocr_rk_k), the maps first, then one combine (or
       the seq's step, four times in the walk's order). */
    ulong ocr_rk_k0 = ocr_rk_first;
    for (; ocr_rk_k0 + 3 * ocr_rk_g < ocr_rk_n; ocr_rk_k0 += 4 * ocr_rk_g) {
#ifdef OCR_RK_SEQ
        { const ulong ocr_rk_k = ocr_rk_k0 + 0 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          OCR_RK_SEQ_STEP }
        { const ulong ocr_rk_k = ocr_rk_k0 + 1 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          OCR_RK_SEQ_STEP }
        { const ulong ocr_rk_k = ocr_rk_k0 + 2 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          OCR_RK_SEQ_STEP }
        { const ulong ocr_rk_k = ocr_rk_k0 + 3 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          OCR_RK_SEQ_STEP }
#else
        ocr_rk_acc_t ocr_rk_m0, ocr_rk_m1, ocr_rk_m2, ocr_rk_m3;
        { const ulong ocr_rk_k = ocr_rk_k0 + 0 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          ocr_rk_m0 = (@MAP@); }
        { const ulong ocr_rk_k = ocr_rk_k0 + 1 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          ocr_rk_m1 = (@MAP@); }
        { const ulong ocr_rk_k = ocr_rk_k0 + 2 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          ocr_rk_m2 = (@MAP@); }
        { const ulong ocr_rk_k = ocr_rk_k0 + 3 * ocr_rk_g;
          const long i = OCR_RK_I(ocr_rk_k);
          ocr_rk_m3 = (@MAP@); }
        ocr_rk_v = ocr_rk_reduce(ocr_rk_v, ocr_rk_reduce(ocr_rk_reduce(ocr_rk_m0, ocr_rk_m1),
                                                         ocr_rk_reduce(ocr_rk_m2, ocr_rk_m3)));
#endif
    }
    for (ulong ocr_rk_k = ocr_rk_k0; ocr_rk_k < ocr_rk_n; ocr_rk_k += ocr_rk_g) {
        const long i = OCR_RK_I(ocr_rk_k);
#ifdef OCR_RK_SEQ
        OCR_RK_SEQ_STEP
#else
        ocr_rk_v = ocr_rk_reduce(ocr_rk_v, (@MAP@));
#endif
    }
#ifdef OCR_RK_SEQ_VEC
    }
#endif
#endif
#ifdef OCR_RK_SEQ
    OCR_RK_SEQ_END
#endif
    ocr_rk_v = ocr_rk_tree(ocr_rk_t, ocr_rk_v);
    if (get_local_id(0) == 0) {
        if (ocr_rk_last)
            *(__global ocr_rk_res_t *)(ocr_rk_out + ocr_rk_off) = ocr_rk_finish(ocr_rk_v);
        else
            ((__global ocr_rk_acc_t *)ocr_rk_out)[get_group_id(0)] = ocr_rk_v;
    }
}

__kernel __attribute__((reqd_work_group_size(OCR_RK_WG, 1, 1)))
void @NAME@_stage2(__global char *ocr_rk_out, const ulong ocr_rk_off,
                   __global const ocr_rk_acc_t *ocr_rk_part, const ulong ocr_rk_n) {
    __local ocr_rk_acc_t ocr_rk_t[OCR_RK_WG];
    ocr_rk_acc_t ocr_rk_v = @NEUTRAL@;
    ulong k = get_local_id(0);
    /* A few partials a work-item: their loads' latency is what costs, so
       four are loaded before any is combined (one at a time, var's second
       pass took 6 us on an H200). */
    for (; k + 3 * OCR_RK_WG < ocr_rk_n; k += 4 * OCR_RK_WG) {
        const ocr_rk_acc_t p0 = ocr_rk_part[k], p1 = ocr_rk_part[k + OCR_RK_WG],
                           p2 = ocr_rk_part[k + 2 * OCR_RK_WG], p3 = ocr_rk_part[k + 3 * OCR_RK_WG];
        ocr_rk_v = ocr_rk_reduce(ocr_rk_v, ocr_rk_reduce(ocr_rk_reduce(p0, p1), ocr_rk_reduce(p2, p3)));
    }
    for (; k < ocr_rk_n; k += OCR_RK_WG)
        ocr_rk_v = ocr_rk_reduce(ocr_rk_v, ocr_rk_part[k]);
    ocr_rk_v = ocr_rk_tree(ocr_rk_t, ocr_rk_v);
    if (get_local_id(0) == 0)
        *(__global ocr_rk_res_t *)(ocr_rk_out + ocr_rk_off) = ocr_rk_finish(ocr_rk_v);
}
