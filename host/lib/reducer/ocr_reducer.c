/* ocr_reducer.c - reduce7 on the caller's context, queue and buffer: built
 * once per reducer (and shared by reducers built alike, ocr_program_cache.c),
 * in the tune cache's geometry when there is one, passes planned by
 * ocr_plan_make down to one value on the device, scratch kept between calls.
 * A call costs its argument checks and the commands of its plan (one launch
 * and the read where the device finishes in one launch): no allocation, no
 * sub-buffer and no head copy (the kernel takes the offsets, also a widening
 * reducer's), and events only where a caller, another queue or an
 * out-of-order one needs them. The blocking call's way home is
 * ocr_readback.c's. Like the whole library it prints nothing; every message
 * of a call is also captured (ocr_capture_begin) into the reducer's
 * last-error text. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "ocr_reducer_priv.h"

#include <stdlib.h>
#include <string.h>

/* The message of the calling thread's last failed ocr_reducer_create. */
static _Thread_local char create_error[1024];
static _Thread_local cl_int create_cl_error; /* ... and its raw OpenCL code, or 0 */

const char *ocr_version(void) {
    return OCR_VERSION;
}

/* ---- create and release -------------------------------------------------------- */

/* The caller's options as this library reads them (the size rule of
 * ocr_reducer.h): the fields within opt->size, defaults for the rest; a
 * larger struct than this library knows is refused if its unknown fields are
 * set. */
static ocr_status read_options(const ocr_reducer_options *opt, ocr_reducer_options *out) {
    memset(out, 0, sizeof *out);
    if (!opt) return OCR_OK;
    size_t n = opt->size ? opt->size : sizeof *opt;
    if (n < sizeof opt->size) {
        ocr_errorf("ocr_reducer_options: size %zu is too small (0, or sizeof the struct)", n);
        return OCR_USAGE;
    }
    ocr_status st = ocr_sized_read(opt, n, sizeof *opt, "ocr_reducer_options", out);
    out->size = sizeof *out;
    return st;
}

ocr_status ocr_sized_read(const void *in, size_t n, size_t known, const char *what, void *out) {
    for (size_t i = known; i < n; ++i)
        if (((const unsigned char *)in)[i]) {
            ocr_errorf("%s: fields this library (%s) does not know are set (size %zu, it knows "
                       "%zu bytes)",
                       what, OCR_VERSION, n, known);
            return OCR_USAGE;
        }
    memcpy(out, in, n < known ? n : known);
    return OCR_OK;
}

/* The device must be one of the context's: say so, rather than leave it to a
 * CL_INVALID_DEVICE from the build. */
static ocr_status check_device(cl_context ctx, cl_device_id device) {
    ocr_status st = OCR_OK;
    cl_uint ndev = 0;
    cl_device_id *devs = NULL;
    OCR_CL(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof ndev, &ndev, NULL));
    if (!(devs = malloc((ndev ? ndev : 1) * sizeof *devs))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    OCR_CL(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, ndev * sizeof *devs, devs, NULL));
    cl_uint i = 0;
    while (i < ndev && devs[i] != device)
        ++i;
    if (i == ndev) {
        ocr_errorf("ocr_reducer_create: the device is not one of the context's %u device%s", ndev,
                   ndev == 1 ? "" : "s");
        st = OCR_USAGE;
    }
fail:
    free(devs);
    return st;
}

/* Type and operator known, the input widening to the type, the operator valid. */
static ocr_status check_kind(ocr_type input, ocr_type type, ocr_op op) {
    if ((unsigned)type >= OCR_NTYPES || (unsigned)input >= OCR_NTYPES || (unsigned)op >= OCR_NOPS) {
        ocr_errorf("ocr_reducer_create: unknown type (%d, %d) or operator (%d)", (int)input,
                   (int)type, (int)op);
        return OCR_USAGE;
    }
    /* argmin/argmax of a storage type: its own keys, nothing widened */
    if (!ocr_type_widens_to(input, type) &&
        !(ocr_op_is_arg(op) && input == type && ocr_type_is_storage(type))) {
        ocr_errorf("ocr_reducer_create_widening: %s elements cannot be combined in %s (see "
                   "ocr_type_widens_to)",
                   ocr_type_name(input), ocr_type_name(type));
        return OCR_USAGE;
    }
    if (ocr_op_is_arg(op) && input != type) {
        ocr_errorf("%s reads its elements as they are: no widening", ocr_op_name(op));
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(op, type)) {
        ocr_errorf("operator %s needs an integer type, not %s", ocr_op_name(op),
                   ocr_type_name(type));
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* reduce7's request: the caller's geometry, else the tune cache's entry for
 * this device, driver, input type and kernel source (ocr_tune.c; a widening
 * reducer's input kernel is the one that streams the data), else the
 * built-in defaults. */
static ocr_build_request request(ocr_reducer *r, const ocr_reducer_options *opt) {
    ocr_build_request rq = {
        .spec = *ocr_kernel_for(OCR_KERNEL_REDUCER),
        .kernel_dir = opt->kernel_dir,
        .type = r->type,
        .op = r->op,
        .local_size = opt->local_size,
        .groups = opt->groups,
        .extra_options = opt->build_options,
        .accurate = opt->accurate,
    };
    ocr_tuning tu;
    char note[8]; /* why an entry was ignored: the CLI's to print, not the library's */
    if (!rq.local_size && !rq.groups && !opt->ignore_tuning &&
        ocr_tune_lookup_ex(&r->dev, r->in_type, rq.kernel_dir, rq.kernel_dir == NULL, &tu, note,
                           sizeof note)) {
        rq.local_size = tu.local_size, rq.groups = tu.groups;
        rq.unroll = tu.unroll, rq.access = tu.access;
        rq.spec.caps |= OCR_KERNEL_TUNED;
    }
    return rq;
}

/* Both scratch buffers sized once for the most values a pass of a plain call
 * writes: a full grid's groups (OCR_ACCURATE_PARTS each for accurate sums), whatever n.
 * No call then allocates, and no buffer a pending call uses is let go (a
 * reallocation confuses oclgrind 21.10's uninitialized-value checker, which
 * then reports values that the pass before wrote; docs/testing.md).
 * Segments and columns, whose scratch grows with their shape, still grow it. */
static ocr_status presize(ocr_reducer *r, const ocr_plain *pl) {
    ocr_status st = OCR_OK;
    const ocr_geometry *g[2] = {&pl->k->geom, pl->k_acc ? &pl->k_acc->geom : &pl->k->geom};
    uint64_t need = 0;
    for (int i = 0; i < 2; ++i) {
        if (g[i]->kind != OCR_PER_GRID) return OCR_OK; /* outputs grow with n */
        uint64_t most = g[i]->max_groups * (g[i]->accurate ? OCR_ACCURATE_PARTS : 1);
        if (most > need) need = most;
    }
    for (int i = 0; i < 2 && st == OCR_OK; ++i)
        st = ocr_reducer_grow(r, i, need);
    return st;
}

/* What reduce7's reducer is made of. */
typedef struct {
    ocr_type input, type;
    ocr_op op;
} kind;

ocr_status ocr_reducer_take_device(cl_context ctx, cl_device_id device, size_t local_size,
                                   ocr_reducer *r) {
    ocr_status st;
    if ((st = check_device(ctx, device)) != OCR_OK ||
        (st = ocr_device_wrap(ctx, device, &r->dev)) != OCR_OK)
        return st;
    const ocr_device_info *in = &r->dev.info;
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    /* a limit of the device, not a wrong argument (past OCR_MAX_LOCAL_SIZE: the build's USAGE) */
    if (local_size > limit && local_size <= OCR_MAX_LOCAL_SIZE) {
        ocr_errorf("local_size %zu: %s runs work-groups of %zu at most "
                   "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES)",
                   local_size, in->name, limit);
        return OCR_TOO_LARGE;
    }
    OCR_CL(clRetainContext(ctx));
    r->ctx = ctx;
    OCR_CL(clRetainDevice(device));
    r->device = device;
fail:
    return st;
}

/* reduce7's reducer (ocr_reducer_builder), its options read. */
static ocr_status create(cl_context ctx, cl_device_id device, const ocr_reducer_options *o,
                         const void *what, ocr_reducer *r) {
    ocr_status st = OCR_OK;
    const kind *kd = what;
    ocr_reducer_options opt = *o;
    ocr_type input = kd->input, type = kd->type;
    ocr_op op = kd->op;
    if (opt.accurate && ocr_type_is_storage(input)) {
        ocr_errorf("an accurate sum is a float or double sum, not of %s data",
                   ocr_type_name(input));
        return OCR_USAGE;
    }
    if ((st = check_kind(input, type, op)) != OCR_OK ||
        (st = ocr_reducer_take_device(ctx, device, opt.local_size, r)) != OCR_OK)
        return st;
    r->type = type;
    r->in_type = input;
    r->op = op;
    r->es = ocr_acc_size(type, op); /* argmin/argmax: scratch and result hold keys */
    r->in_es = ocr_type_size(input);

    ocr_plain *pl = calloc(1, sizeof *pl);
    if (!pl) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    r->form = &ocr_plain_form, r->state = pl;
    ocr_build_request rq = request(r, &opt);
    int flags = (rq.kernel_dir ? 0 : OCR_BUILD_EMBEDDED) | OCR_REDUCER_BUILD;
    if ((st = ocr_kernel_build_ex(&r->dev, &rq, flags, input, &pl->k)) != OCR_OK ||
        (input != type && (st = ocr_kernel_build_ex(&r->dev, &rq, flags, type, &pl->k_acc))))
        return st;
    r->local_size = opt.local_size;
    if ((opt.kernel_dir && !(r->kernel_dir = strdup(opt.kernel_dir))) ||
        (opt.build_options && !(r->build_options = strdup(opt.build_options)))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    if ((st = presize(r, pl)) != OCR_OK) return st;
    return ocr_readback_open(ctx, device, r->es, &r->rb);
}

static void destroy(ocr_reducer *r);

/* The options read, the context and device not NULL, then the builder. */
static ocr_status build_with(cl_context ctx, cl_device_id device,
                             const ocr_reducer_options *caller_opt, ocr_reducer_builder build,
                             const void *what, ocr_reducer *r) {
    ocr_status st;
    ocr_reducer_options opt;
    if ((st = read_options(caller_opt, &opt)) != OCR_OK) return st;
    if (!ctx || !device) {
        ocr_errorf("ocr_reducer_create: the context and the device must not be NULL");
        return OCR_USAGE;
    }
    return build(ctx, device, &opt, what, r);
}

ocr_status ocr_reducer_make(cl_context ctx, cl_device_id device, const ocr_reducer_options *opt,
                            ocr_reducer_builder build, const void *what, ocr_reducer **out) {
    ocr_last_error_clear();
    int tok = ocr_capture_begin();
    ocr_status st = OCR_OK;
    ocr_reducer *r = NULL;
    if (!out) {
        ocr_errorf("ocr_reducer_create: out must not be NULL");
        st = OCR_USAGE;
    } else if (!(r = calloc(1, sizeof *r))) {
        ocr_errorf("out of host memory");
        st = OCR_NO_MEMORY;
    } else {
        *out = NULL;
        st = build_with(ctx, device, opt, build, what, r);
    }
    if (st == OCR_OK) st = ocr_reducer_register(r);
    char *text = ocr_capture_end(tok);
    create_error[0] = '\0';
    create_cl_error = st == OCR_OK ? CL_SUCCESS : ocr_last_cl_error();
    if (st != OCR_OK) {
        snprintf(create_error, sizeof create_error, "%s",
                 text ? text : "unknown error (no message)");
        destroy(r);
        r = NULL;
    }
    free(text);
    if (out) *out = r;
    return st;
}

ocr_status ocr_reducer_create_widening(cl_context ctx, cl_device_id device, ocr_type input,
                                       ocr_type type, ocr_op op, const ocr_reducer_options *opt,
                                       ocr_reducer **out) {
    kind kd = {input, type, op};
    return ocr_reducer_make(ctx, device, opt, create, &kd, out);
}

ocr_status ocr_reducer_create(cl_context ctx, cl_device_id device, ocr_type type, ocr_op op,
                              const ocr_reducer_options *opt, ocr_reducer **out) {
    /* a storage type (char .. half) is combined in its accumulator; argmin and
     * argmax compare its values themselves (keys, no accumulator) */
    ocr_type acc = ocr_op_is_arg(op) ? type : ocr_type_accumulator(type);
    return ocr_reducer_create_widening(ctx, device, type, acc, op, opt, out);
}

/* Frees what r holds, and r (a reducer no call can reach). */
static void destroy(ocr_reducer *r) {
    if (!r) return;
    if (r->last) clReleaseEvent(r->last);
    if (r->q) clReleaseCommandQueue(r->q);
    ocr_readback_close(&r->rb);
    for (int i = 1; i >= 0; --i)
        if (r->scratch[i]) clReleaseMemObject(r->scratch[i]);
    for (size_t i = OCR_FORMS_MAX; i-- > 0;)
        if (r->more[i].form) r->more[i].form->release(r->more[i].state);
    free(r->kernel_dir);
    free(r->build_options);
    if (r->form) r->form->release(r->state);
    if (r->device) clReleaseDevice(r->device);
    if (r->ctx) clReleaseContext(r->ctx);
    free(r->wl);
    free(r->err);
    free(r);
}

void ocr_reducer_release(ocr_reducer *r) {
    if (!r) return;
    ocr_last_error_clear();
    if (ocr_reducer_unregister(r) == OCR_OK) destroy(r); /* else refused, said */
}

const char *ocr_reducer_last_error(const ocr_reducer *r) {
    if (!r) return create_error;
    const char *why = ocr_reducer_enter_quiet(r); /* a getter says nothing */
    if (why) return why;
    const char *text = r->err ? r->err : "";
    ocr_reducer_leave(r);
    return text;
}

cl_int ocr_reducer_last_cl_error(const ocr_reducer *r) {
    if (!r) return create_cl_error;
    if (ocr_reducer_enter_quiet(r)) return CL_SUCCESS; /* released, or in a call elsewhere */
    cl_int code = r->cl_err;
    ocr_reducer_leave(r);
    return code;
}

/* ---- a call's checks ---------------------------------------------------------- */

/* The size in bytes of a buffer of the reducer's context. Asked at every call:
 * a buffer's address may come back as another's once the caller releases it. */
ocr_status ocr_reducer_result_fits(const ocr_reducer *r, size_t rsize, size_t result_offset) {
    if (result_offset < rsize / r->es) return OCR_OK;
    if (result_offset < SIZE_MAX / r->es) /* (result_offset + 1) * es fits: say it */
        ocr_errorf("the result buffer holds %zu bytes; one %s at element %zu needs %zu", rsize,
                   ocr_type_name(r->type), result_offset, (result_offset + 1) * r->es);
    else /* the count would wrap (it said "needs 0") */
        ocr_errorf("the result buffer holds %zu bytes; one %s at element %zu needs more than "
                   "%zu (no buffer is that large)",
                   rsize, ocr_type_name(r->type), result_offset, SIZE_MAX);
    return OCR_USAGE;
}

int ocr_reducer_on_cpu(const ocr_reducer *r) {
    cl_device_type t = r->dev.info.type;
    return (t & CL_DEVICE_TYPE_CPU) && !(t & CL_DEVICE_TYPE_GPU);
}

/* The value is written to element result_offset of result_buf while elements
 * [offset, offset + n) of buf are read: refused when those bytes overlap (the
 * same buffer, a sub-buffer of it, or its parent). */
ocr_status ocr_reducer_check_overlap(const ocr_reducer *r, cl_mem buf, size_t offset, uint64_t n,
                                     cl_mem result_buf, size_t result_offset, uint64_t count) {
    ocr_status st;
    cl_mem in_root, out_root;
    size_t in_at, out_at;
    if ((st = ocr_mem_root(buf, &in_root, &in_at)) != OCR_OK ||
        (st = ocr_mem_root(result_buf, &out_root, &out_at)) != OCR_OK)
        return st;
    uint64_t lo = in_at + (uint64_t)offset * r->in_es, hi = lo + n * r->in_es; /* in bytes */
    uint64_t at = out_at + (uint64_t)result_offset * r->es;
    if (in_root == out_root && n && count && at < hi && lo < at + count * r->es) {
        ocr_errorf("the result buffer overlaps the elements reduced: element %zu of result_buf "
                   "lies at byte %llu of the same buffer as input bytes [%llu, %llu); pass "
                   "another buffer, or offsets that leave it out",
                   result_offset, (unsigned long long)at, (unsigned long long)lo,
                   (unsigned long long)hi);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* The buffers' sizes and where the call reads and writes. */
static ocr_status check_buffers(const ocr_reducer *r, const ocr_plain *pl, const ocr_call *c) {
    ocr_status st;
    size_t rsize = 0;
    if ((st = ocr_call_buffers(r, c, &rsize)) != OCR_OK ||
        (st = ocr_reducer_result_fits(r, rsize, c->result_offset)) != OCR_OK)
        return st;
    if ((c->offset || c->result_offset) && !pl->k->offsets) {
        ocr_errorf("the reduce7.cl of kernel_dir takes no offsets (an older copy?): "
                   "offset and result_offset must be 0");
        return OCR_USAGE;
    }
    return ocr_reducer_check_overlap(r, c->buf, c->offset, c->n, c->result, c->result_offset, 1);
}

/* Everything that can be refused before a command is enqueued (an empty
 * range's identity: ocr_call.c's). */
static ocr_status plain_check(ocr_reducer *r, void *state, ocr_call *c) {
    return check_buffers(r, state, c);
}

/* ---- a call's commands ---------------------------------------------------------- */

const ocr_plain *ocr_plain_of(const ocr_reducer *r, const char *fn) {
    if (r->form == &ocr_plain_form) return r->state;
    ocr_errorf("%s: not for a custom reducer (ocr_reducer_reduce_custom and _into are)", fn);
    return NULL;
}

/* Scratch buffer i holds at least `need` elements (a larger n may need more). */
ocr_status ocr_reducer_grow(ocr_reducer *r, int i, uint64_t need) {
    ocr_status st = OCR_OK;
    cl_int err;
    if (need <= r->scratch_n[i]) return OCR_OK;
    /* Commands still using the old buffer keep it alive until they finish. */
    if (r->scratch[i]) clReleaseMemObject(r->scratch[i]);
    r->scratch[i] = NULL, r->scratch_n[i] = 0;
    r->scratch[i] = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, need * r->es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    r->scratch_n[i] = need;
fail:
    return st;
}

/* The plan of r->k for n values, down to one. A widening reducer's is one
 * launch of the input kernel, which converts (so at least one, even for a
 * single value), then the values kernel's passes over what it leaves. A value
 * that stays on the device (!read_after) finishes in one launch at any group
 * count: nothing waits behind the kernel but the caller's next command. */
static int plan_make(const ocr_reducer *r, const ocr_plain *pl, uint64_t n, int read_after,
                     ocr_plan *p) {
    ocr_plan rest;
    ocr_geometry g = pl->k->geom, ga = pl->k_acc ? pl->k_acc->geom : g;
    if (!read_after) g.finish_max_groups = ga.finish_max_groups = 0;
    if (!pl->k_acc && !ocr_op_is_arg(r->op)) return ocr_plan_make(&g, n, 1, p) == OCR_OK;
    g.tree = 0; /* at least one launch; argmin/argmax: a single value too needs its key */
    if (!pl->k_acc) return ocr_plan_make(&g, n, 1, p) == OCR_OK;
    if (ocr_plan_make(&g, n, 1, p) != OCR_OK ||
        ocr_plan_make(&ga, p->pass[0].n_out, 1, &rest) != OCR_OK || rest.npasses >= OCR_MAX_PASSES)
        return 0;
    memcpy(&p->pass[1], rest.pass, rest.npasses * sizeof rest.pass[0]);
    p->npasses = 1 + rest.npasses;
    p->leftover = rest.leftover;
    return 1;
}

/* plan_make, a failure said. */
static ocr_status plan_said(const ocr_reducer *r, const ocr_plain *pl, uint64_t n, int read_after,
                            ocr_plan *p) {
    if (plan_make(r, pl, n, read_after, p)) return OCR_OK;
    ocr_errorf("cannot plan a reduction of %llu elements", (unsigned long long)n);
    return OCR_USAGE;
}

ocr_status ocr_reducer_plan(const ocr_reducer *r, uint64_t n, int blocking, ocr_plan *plan) {
    ocr_last_error_clear();
    if (!plan || n == 0) {
        ocr_errorf("ocr_reducer_plan needs a reducer, a plan and n >= 1");
        return OCR_USAGE;
    }
    ocr_status st = ocr_reducer_enter(r, __func__);
    if (st != OCR_OK) return st;
    const ocr_plain *pl = ocr_plain_of(r, __func__);
    st = pl ? plan_said(r, pl, n, blocking, plan) : OCR_USAGE;
    ocr_reducer_leave(r);
    return st;
}

/* The plan for n values, down to one, with its scratch buffers. */
static ocr_status plan_for(ocr_reducer *r, const ocr_plain *pl, uint64_t n, int read_after,
                           ocr_plan *p) {
    ocr_status st;
    if ((st = plan_said(r, pl, n, read_after, p)) != OCR_OK) return st;
    /* Pass i writes scratch[i % 2], except the last, which writes the result. */
    for (unsigned i = 0; i + 1 < p->npasses; ++i)
        if ((st = ocr_reducer_grow(r, (int)(i % 2), p->pass[i].n_out)) != OCR_OK) return st;
    return OCR_OK;
}

/* The passes over c's input into its result element, the first waiting for
 * wl; *ev the last command's event when `want` (or when an out-of-order queue
 * chains them), else NULL. A widening reducer's first pass is its input
 * kernel's, at the input offset; the others read its values from scratch. */
static ocr_status plain_enqueue(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                                const cl_event *wl, int want, cl_event *ev) {
    ocr_status st = OCR_OK;
    const ocr_plain *pl = state;
    ocr_plan p;
    cl_event evs[OCR_MAX_PASSES];
    unsigned nev = 0;
    *ev = NULL;
    want |= r->q_ooo;
    if (c->n == 1 && !pl->k_acc && !ocr_op_is_arg(r->op)) { /* one value: itself */
        OCR_CL(clEnqueueCopyBuffer(c->q, c->buf, c->result, c->offset * r->es,
                                   c->result_offset * r->es, r->es, nw, wl, want ? ev : NULL));
        return OCR_OK;
    }
    if ((st = plan_for(r, pl, c->n, c->host != NULL, &p)) != OCR_OK) return st;
    /* On an out-of-order queue each pass waits for the one before. */
    ocr_pass_io io = {.in = c->buf,
                      .scratch = {r->scratch[0], r->scratch[1]},
                      .last_out = c->result,
                      .num_wait = nw,
                      .wait = wl,
                      .chain = r->q_ooo,
                      .in_off = c->offset,
                      .out_off = c->result_offset,
                      .events = r->q_ooo ? 0
                                : want   ? 1
                                         : 2,
                      .first = pl->k};
    st = ocr_passes_enqueue(c->q, pl->k_acc ? pl->k_acc : pl->k, &p, &io, evs, &nev);
    if (st == OCR_OK && nev) *ev = evs[--nev]; /* the last; the others released */
    while (nev)
        clReleaseEvent(evs[--nev]);
fail:
    return st;
}

static void plain_release(void *state) {
    ocr_plain *pl = state;
    if (!pl) return;
    ocr_kernel_release(pl->k_acc);
    ocr_kernel_release(pl->k);
    free(pl);
}

static const ocr_geometry *plain_geometry(const void *state) {
    return &((const ocr_plain *)state)->k->geom;
}

const ocr_form ocr_plain_form = {"ocr_reducer_reduce", NULL, plain_check,   plain_enqueue,
                                 plain_release,        1,    plain_geometry};

/* ---- the public calls: the reducer's own form, plain or custom ---------------------- */

ocr_status ocr_reducer_reduce_into(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                   uint64_t n, cl_mem result_buf, size_t result_offset,
                                   cl_uint num_wait, const cl_event *wait, cl_event *done) {
    ocr_call c = {q,          num_wait,      wait, buf,  offset, n,
                  result_buf, result_offset, 1,    NULL, NULL,   done};
    return ocr_call_run(r, __func__, NULL, &c); /* NULL: r's own form, read once entered */
}

ocr_status ocr_reducer_reduce_async(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                    uint64_t n, cl_mem result_buf, cl_uint num_wait,
                                    const cl_event *wait, cl_event *done) {
    return ocr_reducer_reduce_into(r, q, buf, offset, n, result_buf, 0, num_wait, wait, done);
}

/* The blocking calls: the value read back, decoded (a key back to a value). */
static ocr_status reduce_blocking(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                  uint64_t n, cl_uint num_wait, const cl_event *wait,
                                  ocr_value *result) {
    ocr_status st;
    ocr_value raw; /* the result element's bytes: a value, or argmin/argmax's key */
    if (!result) {
        ocr_errorf("result must not be NULL");
        return OCR_USAGE;
    }
    memset(result, 0, sizeof *result);
    memset(&raw, 0, sizeof raw);
    ocr_call c = {q, num_wait, wait, buf, offset, n, NULL, 0, 1, NULL, &raw, NULL};
    if ((st = ocr_call_submit(r, r->form, &c)) != OCR_OK) return st;
    *result = ocr_op_is_arg(r->op) ? ocr_result_value(r->type, r->op, &raw)
                                   : ocr_value_from_bytes(r->type, &raw);
    return OCR_OK;
}

ocr_status ocr_reducer_reduce_wait(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                   uint64_t n, cl_uint num_wait, const cl_event *wait,
                                   ocr_value *result) {
    OCR_CALL_BEGIN(r);
    ocr_status st = reduce_blocking(r, q, buf, offset, n, num_wait, wait, result);
    OCR_CALL_END(r, st);
    return st;
}

ocr_status ocr_reducer_reduce(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                              uint64_t n, ocr_value *result) {
    OCR_CALL_BEGIN(r);
    ocr_status st = reduce_blocking(r, q, buf, offset, n, 0, NULL, result);
    OCR_CALL_END(r, st);
    return st;
}
