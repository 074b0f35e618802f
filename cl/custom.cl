/*
 * custom - any reduction a caller writes (ocr_reducer_create_custom, and the
 * Python package's ReductionKernel where the C library does not take the
 * spec): a map of the element index, i -> ocr_rk_map(i, args) (x[i] * y[i],
 * fabs(x[i]), a struct of count, mean and M2, ...), combined by
 * ocr_rk_reduce(a, b) from ocr_rk_neutral(), finished by ocr_rk_finish(r).
 *
 * The prelude contract. The host builds this file after a prelude it
 * generates from the caller's spec (the C library's:
 * host/lib/reducer/ocr_custom_spec.c; the Python package's:
 * python/oclreduction/_custom.py, _prelude), which defines:
 *   ocr_rk_acc        the accumulator type;
 *   ocr_rk_neutral(), ocr_rk_reduce(a, b), ocr_rk_map(ulong k, ...): inline
 *                     functions with the caller's text in their bodies;
 *   OCR_RK_PARAMS     the caller's kernel parameters (buffers with their
 *                     offsets, scalars), OCR_RK_ARGS the map's arguments
 *                     made of them, OCR_RK_FORWARD the parameters passed on.
 * and, optionally (each defaults to nothing changed; the C prelude defines
 * none of them, and the C library refuses '#' in a caller's text):
 *   OCR_RK_RESULT     the prelude typedefs ocr_rk_res and defines
 *                     ocr_rk_finish(ocr_rk_acc) -> ocr_rk_res (a mean from a
 *                     count and a sum); default: the accumulator, unchanged.
 *   OCR_RK_I(k)       the index i of the k-th element walked (start and step
 *                     of a Python range=); default: k.
 *   OCR_RK_SEQ        a work-item's walk of its own instead of a combine per
 *                     mapped element (cl/stats.cl's shifted sums, in the
 *                     package's cl/): OCR_RK_SEQ_BEGIN (may read element
 *                     ocr_rk_lo where ocr_rk_count > 0), OCR_RK_SEQ_STEP
 *                     (adds element i, the walk's ocr_rk_k-th), OCR_RK_SEQ_END
 *                     (declares ocr_rk_acc ocr_rk_v), with OCR_RK_BIND
 *                     (the caller's parameters under their own names) before
 *                     them; OCR_RK_SEQ_VEC, "if (condition) { ... }", a GPU
 *                     walk of its own where the condition holds.
 * The host passes OCR_RK_LOCAL_SIZE (a power of two), OCR_RK_BLOCKED and,
 * for the one-launch finish, OCR_RK_FINISH. Every name here starts with
 * ocr_rk_ or OCR_RK_, which the spec may not use: the caller's names stay
 * free.
 *
 * Why it is fast: reduce7's shape. A fixed grid of groups streams the input
 * once, each work-item combining in registers; one tree per group; the
 * groups' partials go to scratch, and one group combines them: the last
 * group to finish, in the same launch (ocr_rk_first_finish, where the host
 * passes OCR_RK_FINISH), or ocr_rk_final in a second one. On a GPU
 * (OCR_RK_BLOCKED=0) work-item t takes i = t, t + G, t + 2G, ...: neighbours
 * read neighbours (coalesced), and four map values are loaded before any is
 * combined, so four loads per work-item are in flight rather than one. On a
 * CPU (one-item groups) each work-item takes a contiguous chunk, so a core
 * walks memory in one direction and its prefetcher keeps up, with four
 * running values (four independent chains of combines in flight).
 *
 * Finishing in one launch: a second launch costs a caller who reads the
 * value about 11 µs on an H200 (a one-work-item kernel launched and read
 * through PyOpenCL: 24 µs; with a second launch between: 35 µs), more than
 * the first pass itself up to 2^20 floats. Each group publishes its value,
 * then takes a ticket from an atomic counter; the group that draws the last
 * one reads every value and writes the answer. OpenCL 1.2 does not make one
 * group's writes visible to another, so the host passes OCR_RK_FINISH=1
 * (OpenCL 2.0/3.0 acquire-release atomics at device scope) or 2 (NVIDIA's
 * OpenCL 1.2, whose global fence is device-wide, as reduce7's finish), and
 * only for up to 255 groups: for a full grid the finish cost more than the
 * launch it saved. Elsewhere it launches twice. The rule is the C library's
 * alone (ocr_reducer_custom_finish); the Python package asks it.
 *
 * What it costs: the map is evaluated once per element, scalar loads only
 * (no 16-byte vectors: the map may read any element of any buffer), and the
 * order of combination is a tree, not a loop: reduce must be associative and
 * commutative (float sums round differently from a sequential loop).
 *
 * Correct on any conforming device: a barrier at every level of the tree,
 * reached by every work-item of the group; no lock-step is assumed.
 */
#ifndef OCR_RK_LOCAL_SIZE
#error "the host passes OCR_RK_LOCAL_SIZE and OCR_RK_BLOCKED (ocr_custom.c)"
#endif
/* Buffer parameters are restrict in the kernels (below), which only read
 * the caller's buffers (the output is the library's scratch or a result
 * that must not overlap them): a GPU may read them through its read-only
 * cache. Not in the inlined helpers: there restrict becomes an LLVM
 * intrinsic oclgrind lacks. */
#define OCR_RK_RESTRICT


/* The optional hooks' defaults (the prelude contract above). */
#ifndef OCR_RK_RESULT
typedef ocr_rk_acc ocr_rk_res;
static ocr_rk_res ocr_rk_finish(const ocr_rk_acc ocr_rk_r) { return ocr_rk_r; }
#endif
#ifndef OCR_RK_I
#define OCR_RK_I(k) ((long)(k))
#endif
#ifndef OCR_RK_BIND
#define OCR_RK_BIND
#endif

#ifndef OCR_RK_SEQ
/* This work-item's share of [0, n), mapped and combined. */
static ocr_rk_acc ocr_rk_share(const ulong ocr_rk_n, OCR_RK_PARAMS) {
    ocr_rk_acc ocr_rk_x = ocr_rk_neutral();
#if OCR_RK_BLOCKED
    const ulong ocr_rk_items = get_global_size(0),
                ocr_rk_per = ocr_rk_n / ocr_rk_items + (ocr_rk_n % ocr_rk_items != 0);
    const ulong ocr_rk_lo = min(get_global_id(0) * ocr_rk_per, ocr_rk_n),
                ocr_rk_hi = min(ocr_rk_lo + ocr_rk_per, ocr_rk_n);
    /* four running values: four independent chains of dependent combines
     * (a core overlaps them), each a quarter as long (float sums round less) */
    ocr_rk_acc ocr_rk_x1 = ocr_rk_x, ocr_rk_x2 = ocr_rk_x, ocr_rk_x3 = ocr_rk_x;
    ulong ocr_rk_i = ocr_rk_lo;
    for (; ocr_rk_i + 3 < ocr_rk_hi; ocr_rk_i += 4) {
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_map(ocr_rk_i, OCR_RK_ARGS));
        ocr_rk_x1 = ocr_rk_reduce(ocr_rk_x1, ocr_rk_map(ocr_rk_i + 1, OCR_RK_ARGS));
        ocr_rk_x2 = ocr_rk_reduce(ocr_rk_x2, ocr_rk_map(ocr_rk_i + 2, OCR_RK_ARGS));
        ocr_rk_x3 = ocr_rk_reduce(ocr_rk_x3, ocr_rk_map(ocr_rk_i + 3, OCR_RK_ARGS));
    }
    for (; ocr_rk_i < ocr_rk_hi; ++ocr_rk_i)
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_map(ocr_rk_i, OCR_RK_ARGS));
    ocr_rk_x = ocr_rk_reduce(ocr_rk_reduce(ocr_rk_x, ocr_rk_x1), ocr_rk_reduce(ocr_rk_x2, ocr_rk_x3));
#else
    const ulong ocr_rk_g = get_global_size(0);
    ulong ocr_rk_i = get_global_id(0);
    for (; ocr_rk_i + 3 * ocr_rk_g < ocr_rk_n; ocr_rk_i += 4 * ocr_rk_g) {
        /* four loads issued before the first is used */
        const ocr_rk_acc ocr_rk_v0 = ocr_rk_map(ocr_rk_i, OCR_RK_ARGS),
                         ocr_rk_v1 = ocr_rk_map(ocr_rk_i + ocr_rk_g, OCR_RK_ARGS),
                         ocr_rk_v2 = ocr_rk_map(ocr_rk_i + 2 * ocr_rk_g, OCR_RK_ARGS),
                         ocr_rk_v3 = ocr_rk_map(ocr_rk_i + 3 * ocr_rk_g, OCR_RK_ARGS);
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_reduce(ocr_rk_reduce(ocr_rk_v0, ocr_rk_v1),
                                                         ocr_rk_reduce(ocr_rk_v2, ocr_rk_v3)));
    }
    for (; ocr_rk_i < ocr_rk_n; ocr_rk_i += ocr_rk_g)
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_map(ocr_rk_i, OCR_RK_ARGS));
#endif
    return ocr_rk_x;
}

#else
/* This work-item's share of [0, n) through the prelude's walk (OCR_RK_SEQ):
 * its first element ocr_rk_lo and count ocr_rk_count known before the
 * walk; the GPU's four elements a step, each in its own block, in the
 * walk's order. inline, not static: static, oclgrind 21.10 could not run
 * it once inlined (llvm.experimental.noalias.scope.decl undefined). */
inline ocr_rk_acc ocr_rk_share(const ulong ocr_rk_n, OCR_RK_PARAMS) {
    OCR_RK_BIND
#if OCR_RK_BLOCKED
    const ulong ocr_rk_per = ocr_rk_n / get_global_size(0) + (ocr_rk_n % get_global_size(0) != 0);
    const ulong ocr_rk_lo = min(get_global_id(0) * ocr_rk_per, ocr_rk_n),
                ocr_rk_end = min(ocr_rk_lo + ocr_rk_per, ocr_rk_n);
    const ulong ocr_rk_count = ocr_rk_end - ocr_rk_lo;
    OCR_RK_SEQ_BEGIN
    for (ulong ocr_rk_k = ocr_rk_lo; ocr_rk_k < ocr_rk_end; ++ocr_rk_k) {
        const long i = OCR_RK_I(ocr_rk_k);
        OCR_RK_SEQ_STEP
    }
#else
    const ulong ocr_rk_g = get_global_size(0), ocr_rk_lo = get_global_id(0);
    const ulong ocr_rk_count = ocr_rk_lo < ocr_rk_n ? (ocr_rk_n - 1 - ocr_rk_lo) / ocr_rk_g + 1 : 0;
    OCR_RK_SEQ_BEGIN
#ifdef OCR_RK_SEQ_VEC
    OCR_RK_SEQ_VEC else {
#endif
        ulong ocr_rk_k0 = ocr_rk_lo;
        for (; ocr_rk_k0 + 3 * ocr_rk_g < ocr_rk_n; ocr_rk_k0 += 4 * ocr_rk_g)
            for (uint ocr_rk_q = 0; ocr_rk_q < 4; ++ocr_rk_q) {
                const ulong ocr_rk_k = ocr_rk_k0 + ocr_rk_q * ocr_rk_g;
                const long i = OCR_RK_I(ocr_rk_k);
                OCR_RK_SEQ_STEP
            }
        for (ulong ocr_rk_k = ocr_rk_k0; ocr_rk_k < ocr_rk_n; ocr_rk_k += ocr_rk_g) {
            const long i = OCR_RK_I(ocr_rk_k);
            OCR_RK_SEQ_STEP
        }
#ifdef OCR_RK_SEQ_VEC
    }
#endif
#endif
    OCR_RK_SEQ_END
    return ocr_rk_v;
}
#endif

/* The group's values combined as a tree; every work-item gets the result. */
static ocr_rk_acc ocr_rk_tree(__local ocr_rk_acc *ocr_rk_l, const ocr_rk_acc ocr_rk_x) {
    const uint ocr_rk_lid = get_local_id(0);
    ocr_rk_l[ocr_rk_lid] = ocr_rk_x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint ocr_rk_s = OCR_RK_LOCAL_SIZE / 2; ocr_rk_s > 0; ocr_rk_s >>= 1) {
        if (ocr_rk_lid < ocr_rk_s)
            ocr_rk_l[ocr_rk_lid] = ocr_rk_reduce(ocr_rk_l[ocr_rk_lid], ocr_rk_l[ocr_rk_lid + ocr_rk_s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return ocr_rk_l[0];
}

#undef OCR_RK_RESTRICT
#define OCR_RK_RESTRICT restrict

/* The first pass: group g's value of [0, n) into out[out_off + g]. */
__kernel __attribute__((reqd_work_group_size(OCR_RK_LOCAL_SIZE, 1, 1))) void
ocr_rk_first(const ulong ocr_rk_n, __global ocr_rk_acc *ocr_rk_out,
             const ulong ocr_rk_out_off, OCR_RK_PARAMS) {
    __local ocr_rk_acc ocr_rk_l[OCR_RK_LOCAL_SIZE];
    const ocr_rk_acc ocr_rk_x = ocr_rk_tree(ocr_rk_l, ocr_rk_share(ocr_rk_n, OCR_RK_FORWARD));
    if (get_local_id(0) != 0)
        return;
    if (get_num_groups(0) == 1) /* the only group: the finished result */
        ((__global ocr_rk_res *)ocr_rk_out)[ocr_rk_out_off] = ocr_rk_finish(ocr_rk_x);
    else
        ocr_rk_out[ocr_rk_out_off + get_group_id(0)] = ocr_rk_x;
}

#if defined(OCR_RK_FINISH) && OCR_RK_FINISH
/* The first pass and the last group's finish: the value of [0, n) into
 * out[out_off]. The host zeroes `ticket` once (the last group leaves it zero
 * again) and launches calls of one reducer one after another, never
 * overlapping; `partial` holds one value per group. */
__kernel __attribute__((reqd_work_group_size(OCR_RK_LOCAL_SIZE, 1, 1))) void
ocr_rk_first_finish(const ulong ocr_rk_n, __global ocr_rk_res *ocr_rk_out,
                    const ulong ocr_rk_out_off,
#if OCR_RK_FINISH == 1
                    volatile __global atomic_uint *ocr_rk_ticket,
#else
                    volatile __global uint *ocr_rk_ticket,
#endif
                    volatile __global ocr_rk_acc *ocr_rk_partial, OCR_RK_PARAMS) {
    __local ocr_rk_acc ocr_rk_l[OCR_RK_LOCAL_SIZE];
    __local uint ocr_rk_last;
    const uint ocr_rk_lid = get_local_id(0), ocr_rk_groups = get_num_groups(0);
    ocr_rk_acc ocr_rk_x = ocr_rk_tree(ocr_rk_l, ocr_rk_share(ocr_rk_n, OCR_RK_FORWARD));
    if (ocr_rk_lid == 0) {
        ocr_rk_partial[get_group_id(0)] = ocr_rk_x;
#if OCR_RK_FINISH == 1
        /* release: our value before the ticket; acquire: every value before ours */
        ocr_rk_last = atomic_fetch_add_explicit(ocr_rk_ticket, 1u, memory_order_acq_rel,
                                                memory_scope_device) == ocr_rk_groups - 1;
#else
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        ocr_rk_last = atomic_inc(ocr_rk_ticket) == ocr_rk_groups - 1;
#endif
    }
    /* work-item 0's view to its group; every item has read ocr_rk_l[0] */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!ocr_rk_last)
        return;
    ocr_rk_x = ocr_rk_neutral();
    for (uint ocr_rk_j = ocr_rk_lid; ocr_rk_j < ocr_rk_groups; ocr_rk_j += OCR_RK_LOCAL_SIZE)
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_partial[ocr_rk_j]);
    ocr_rk_x = ocr_rk_tree(ocr_rk_l, ocr_rk_x);
    if (ocr_rk_lid == 0) {
        ocr_rk_out[ocr_rk_out_off] = ocr_rk_finish(ocr_rk_x);
#if OCR_RK_FINISH == 1
        atomic_store_explicit(ocr_rk_ticket, 0u, memory_order_relaxed, memory_scope_device);
#else
        atomic_xchg(ocr_rk_ticket, 0u);
#endif
    }
}
#endif

/* The second pass, one group: m partials into out[out_off] (m = 0: the
 * neutral element, the value of an empty input). */
__kernel __attribute__((reqd_work_group_size(OCR_RK_LOCAL_SIZE, 1, 1))) void
ocr_rk_final(__global const ocr_rk_acc *ocr_rk_in, const ulong ocr_rk_m,
             __global ocr_rk_res *ocr_rk_out, const ulong ocr_rk_out_off) {
    __local ocr_rk_acc ocr_rk_l[OCR_RK_LOCAL_SIZE];
    ocr_rk_acc ocr_rk_x = ocr_rk_neutral();
    for (ulong ocr_rk_j = get_local_id(0); ocr_rk_j < ocr_rk_m; ocr_rk_j += OCR_RK_LOCAL_SIZE)
        ocr_rk_x = ocr_rk_reduce(ocr_rk_x, ocr_rk_in[ocr_rk_j]);
    ocr_rk_x = ocr_rk_tree(ocr_rk_l, ocr_rk_x);
    if (get_local_id(0) == 0)
        ocr_rk_out[ocr_rk_out_off] = ocr_rk_finish(ocr_rk_x);
}
