/* ocr_strided.c - a strided view reduced in place: n elements buf[offset +
 * i * stride], i < n (ocr_reducer_reduce_strided). The first pass is
 * cl/strided.cl (reduce7's accumulator, tree and group output with a scalar
 * load per element, so every type, operator and mode of the reducer works),
 * built on the first such call with the reducer's type, operator, geometry
 * and options, through the program cache; it writes one partial per group
 * into the reducer's scratch, and the reducer's own kernels finish them as
 * they finish reduce7's partials (a plan by ocr_plan_make, enqueued by
 * ocr_passes_enqueue). One group writes the result itself. The queue, wait
 * list and previous-call rules are the reducer's (ocr_reducer_priv.h).
 * Prints nothing. */
#include "ocr_reducer_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tunable constants: the one home of each -------------------------------
 * cl/strided.cl gets OCR_STRIDED_UNROLL as a -D option; the host sizes the
 * grid from the others. */

/* loads a GPU work-item issues before it uses any (a gather waits on latency) */
#define STRIDED_UNROLL 4
/* elements per work-item at least before a launch takes another group: a
 * GPU's work-items stride over the grid, a CPU's one-item groups each take
 * a contiguous block (so a short view is one group, no second launch) */
#define STRIDED_GPU_ITEM_MIN 16
#define STRIDED_CPU_ITEM_MIN 2048

/* ---- the kernel, built on first use ---------------------------------------------- */

/* reduce_strided of cl/strided.cl, reading the reducer's input type and
 * combining in its type, in groups of reduce7's size (the reducer's
 * geometry, tuned or chosen), with reduce7's vector width (its code is
 * compiled too) and, for accurate sums, the compensated accumulator. A first
 * pass alone: the reducer's kernels read what it writes. */
static ocr_status build_strided(ocr_reducer *r, const ocr_plain *pl, ocr_kernel **k) {
    if (*k) return OCR_OK;
    char opts[1024];
    size_t vec = 16 / r->in_es > 4 ? 4 : 16 / r->in_es;
    int len = snprintf(opts, sizeof opts,
                       "-D OCR_STRIDED_UNROLL=%d -D OCR_STRIDED_BLOCKED=%d -D VEC=%zu%s%s%s",
                       STRIDED_UNROLL, ocr_reducer_on_cpu(r), vec,
                       pl->k->geom.accurate ? " -D OCR_ACCURATE=1" : "",
                       r->build_options ? " " : "", r->build_options ? r->build_options : "");
    if (len < 0 || (size_t)len >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    ocr_build_request rq = {
        .spec = {"reduce_strided",
                 "strided.cl",
                 OCR_PER_GROUP,
                 pl->k->geom.local_size,
                 0,
                 1,
                 0,
                 "a strided view in place",
                 {0, 0, 0, 0},
                 OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
        .kernel_dir = r->kernel_dir,
        .type = r->type,
        .op = r->op,
        .extra_options = opts,
    };
    int flags = (r->kernel_dir ? 0 : OCR_BUILD_EMBEDDED) | OCR_REDUCER_BUILD |
                OCR_BUILD_OWN_OPTIONS | OCR_BUILD_FIRST_ONLY;
    return ocr_kernel_build_ex(&r->dev, &rq, flags, r->in_type, k);
}

/* ---- a call's checks -------------------------------------------------------------- */

/* The form's state: the reducer's reduce7 kernels (which finish the
 * partials) and reduce_strided, built on the first call. */
typedef struct {
    const ocr_plain *pl;
    ocr_kernel *k;
} str_state;

/* Whether bytes [a, a + len) meet one of the n elements of el bytes at
 * lo + i * s (i < n): the first element that ends after a starts before
 * a + len. */
static int meets(uint64_t lo, uint64_t s, uint64_t el, uint64_t n, uint64_t a, uint64_t len) {
    uint64_t i = a < lo + el ? 0 : (a - lo - el) / s + 1;
    return i < n && lo + i * s < a + len;
}

/* The result element must not be one of the bytes read (the same buffer, a
 * sub-buffer of it or its parent); between two of them it may be. */
static ocr_status check_apart(const ocr_reducer *r, const ocr_call *c, uint64_t stride) {
    ocr_status st;
    cl_mem in_root, out_root;
    size_t in_at, out_at;
    if ((st = ocr_mem_root(c->buf, &in_root, &in_at)) != OCR_OK ||
        (st = ocr_mem_root(c->result, &out_root, &out_at)) != OCR_OK)
        return st;
    uint64_t lo = in_at + c->offset * r->in_es, at = out_at + (uint64_t)c->result_offset * r->es;
    if (in_root == out_root && meets(lo, stride * r->in_es, r->in_es, c->n, at, r->es)) {
        ocr_errorf("the result buffer overlaps the elements reduced: element %zu of result_buf "
                   "lies at byte %llu of the same buffer as an input element (%llu elements "
                   "of %zu bytes, %llu apart, from byte %llu); pass another buffer, or offsets "
                   "that leave it out",
                   c->result_offset, (unsigned long long)at, (unsigned long long)c->n, r->in_es,
                   (unsigned long long)(stride * r->in_es), (unsigned long long)lo);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* stride at least 1, offset + (n - 1) stride within buf (overflow checked;
 * n = 0: offset within it), the result element within result_buf and apart
 * from the input; the kernel built on the first call with values to read. */
static ocr_status check_call(ocr_reducer *r, void *state, ocr_call *c) {
    ocr_status st;
    str_state *s = state;
    size_t size = 0, rsize = 0;
    uint64_t stride = *(const uint64_t *)c->how;
    if (stride == 0) {
        ocr_errorf("stride must be at least 1 (n %llu, stride %llu)", (unsigned long long)c->n,
                   (unsigned long long)stride);
        return OCR_USAGE;
    }
    if ((st = ocr_reducer_buffer_size(r, c->buf, "the input buffer", &size)) != OCR_OK ||
        (st = ocr_reducer_buffer_size(r, c->result, "the result buffer", &rsize)) != OCR_OK)
        return st;
    uint64_t have = size / r->in_es, reach = c->n ? c->n - 1 : 0;
    if (reach > UINT64_MAX / stride || c->offset > have || (c->n && c->offset == have) ||
        (c->n && reach * stride > have - 1 - c->offset)) {
        ocr_errorf("elements %llu + i * %llu, i < %llu, lie beyond the input buffer, which "
                   "holds %llu %s values; a reduction over several buffers is not supported",
                   (unsigned long long)c->offset, (unsigned long long)stride,
                   (unsigned long long)c->n, (unsigned long long)have, ocr_type_name(r->in_type));
        return OCR_USAGE;
    }
    if ((st = ocr_reducer_result_fits(r, rsize, c->result_offset)) != OCR_OK ||
        (st = check_apart(r, c, stride)) != OCR_OK)
        return st;
    return c->n ? build_strided(r, s->pl, &s->k) : OCR_OK;
}

/* ---- a call's commands ------------------------------------------------------------ */

/* Groups of `local` work-items for n elements: each work-item at least its
 * minimum, at most the reducer's full grid (whose partials scratch holds). */
static uint64_t strided_groups(const ocr_reducer *r, const ocr_plain *pl, size_t local,
                               uint64_t n) {
    uint64_t per =
        (uint64_t)local * (ocr_reducer_on_cpu(r) ? STRIDED_CPU_ITEM_MIN : STRIDED_GPU_ITEM_MIN);
    uint64_t g = n / per + (n % per != 0), most = pl->k->geom.max_groups;
    return g < most ? g : most ? most : 1;
}

/* The kernel that finishes the partials: the one that reads the reducer's
 * type (a widening reducer's second), or its `rest` where the partials are
 * keys (argmin/argmax) or accumulators (accurate sums). */
static const ocr_kernel *finisher(const ocr_plain *pl) {
    const ocr_kernel *k = pl->k_acc ? pl->k_acc : pl->k;
    return k->rest ? k->rest : k;
}

/* The passes over m partials into the result, their scratch grown first
 * (nothing is enqueued yet: a grown buffer is a new one). Pass i reads what
 * the one before wrote: scratch[0] first, then scratch[1], [0], ... */
static ocr_status plan_rest(ocr_reducer *r, const ocr_plain *pl, uint64_t m, ocr_plan *p) {
    ocr_status st;
    ocr_geometry g = finisher(pl)->geom;
    g.finish_max_groups = 0; /* a value left on the device: one launch at any count */
    if (ocr_plan_make(&g, m, 1, p) != OCR_OK || p->npasses == 0) {
        ocr_errorf("cannot plan the reduction of %llu partial values", (unsigned long long)m);
        return OCR_USAGE;
    }
    if ((st = ocr_reducer_grow(r, 0, m)) != OCR_OK) return st;
    for (unsigned i = 0; i + 1 < p->npasses; ++i)
        if ((st = ocr_reducer_grow(r, (int)((i + 1) % 2), p->pass[i].n_out)) != OCR_OK) return st;
    return OCR_OK;
}

/* One launch of reduce_strided: `groups` groups into out[out_off ..]. */
static ocr_status launch(const str_state *s, const ocr_call *c, uint64_t groups, cl_mem out,
                         uint64_t out_off, cl_uint nw, const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_kernel k = s->k->kernel;
    size_t local = s->k->geom.local_size, global = (size_t)groups * local;
    cl_ulong a[4] = {c->n, c->offset, *(const uint64_t *)c->how, out_off};
    OCR_CL(clSetKernelArg(k, 0, sizeof(cl_mem), &c->buf));
    OCR_CL(clSetKernelArg(k, 1, sizeof(cl_mem), &out));
    for (cl_uint i = 0; i < 4; ++i)
        OCR_CL(clSetKernelArg(k, 2 + i, sizeof a[i], &a[i]));
    OCR_CL(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, nw, wl, ev));
fail:
    return st;
}

/* The first pass, then the passes over its partials; *ev the last command's. */
static ocr_status enqueue(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                          const cl_event *wl, int want, cl_event *ev) {
    ocr_status st;
    const str_state *s = state;
    ocr_plan p;
    cl_event first = NULL, evs[OCR_MAX_PASSES];
    unsigned nev = 0;
    uint64_t groups = strided_groups(r, s->pl, s->k->geom.local_size, c->n);
    (void)want;      /* the done event is always made */
    if (groups == 1) /* one group writes the value */
        return launch(s, c, 1, c->result, c->result_offset, nw, wl, ev);
    uint64_t m = s->pl->k->geom.accurate ? OCR_ACCURATE_PARTS * groups : groups;
    if ((st = plan_rest(r, s->pl, m, &p)) != OCR_OK ||
        (st = launch(s, c, groups, r->scratch[0], 0, nw, wl, r->q_ooo ? &first : NULL)) != OCR_OK)
        return st;
    /* On an out-of-order queue each pass waits for the one before. */
    ocr_pass_io io = {.in = r->scratch[0],
                      .scratch = {r->scratch[1], r->scratch[0]},
                      .last_out = c->result,
                      .num_wait = first ? 1 : 0,
                      .wait = first ? &first : NULL,
                      .chain = r->q_ooo,
                      .out_off = c->result_offset,
                      .events = r->q_ooo ? 0 : 1};
    st = ocr_passes_enqueue(c->q, finisher(s->pl), &p, &io, evs, &nev);
    if (st == OCR_OK && nev) *ev = evs[--nev]; /* the last; the others released */
    while (nev)
        clReleaseEvent(evs[--nev]);
    if (first) clReleaseEvent(first);
    return st;
}

/* ---- the form ---------------------------------------------------------------------- */

static ocr_status str_open(ocr_reducer *r, void **state) {
    const ocr_plain *pl = ocr_plain_of(r, "ocr_reducer_reduce_strided");
    ocr_status st = pl ? ocr_form_alloc(sizeof(str_state), state) : OCR_USAGE;
    if (st == OCR_OK) ((str_state *)*state)->pl = pl;
    return st;
}

static void str_release(void *state) {
    str_state *s = state;
    ocr_kernel_release(s->k);
    free(s);
}

static const ocr_form strided_form = {
    "ocr_reducer_reduce_strided", str_open, check_call, enqueue, str_release, 1, NULL};

ocr_status ocr_reducer_reduce_strided(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                      uint64_t n, uint64_t stride, cl_mem result_buf,
                                      size_t result_offset, cl_uint num_wait, const cl_event *wait,
                                      cl_event *done) {
    if (stride == 1) /* contiguous: reduce7's vector loads */
        return ocr_reducer_reduce_into(r, q, buf, offset, n, result_buf, result_offset, num_wait,
                                       wait, done);
    ocr_call c = {q,          num_wait,      wait, buf,     offset, n,
                  result_buf, result_offset, 1,    &stride, NULL,   done};
    return ocr_call_run(r, __func__, &strided_form, &c);
}
