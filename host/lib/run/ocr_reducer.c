/* ocr_reducer.c - reduce7 on the caller's context, queue and buffer: built
 * once per reducer, passes planned by ocr_plan_make down to one value on the
 * device, scratch kept between calls. Like the whole library it prints
 * nothing; every message of a call is also captured (ocr_capture_begin) into
 * the reducer's last-error text. */
#include "ocr_internal.h"

#include <stdlib.h>
#include <string.h>

struct ocr_reducer {
    cl_context ctx; /* retained */
    cl_device_id device;
    ocr_device dev;   /* its info, for the build; the context borrowed */
    ocr_type type;    /* of the values combined and of the result */
    ocr_type in_type; /* of the input elements: type, or a narrower one (widening) */
    ocr_op op;
    size_t es, in_es;  /* their sizes */
    size_t align;      /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: sub-buffer offsets */
    ocr_kernel *k;     /* reads in_type */
    ocr_kernel *k_acc; /* widening only: the same over values of type (the partials) */
    cl_mem scratch[4]; /* [0], [1]: the passes' outputs, ping-pong (the last pass writes the
                          result); [2]: partials and head of an unaligned offset; [3]:
                          widening, the head's input elements */
    uint64_t scratch_n[4];
    cl_mem result; /* one element, for the blocking call */
    cl_event last; /* the previous call's last command: the next call waits for it */
    char *err;     /* the last call's message, NULL after a success */
};

/* The message of the calling thread's last failed ocr_reducer_create. */
static _Thread_local char create_error[1024];

const char *ocr_version(void) {
    return OCR_VERSION;
}

/* Keeps the captured text as r's message if the call failed. */
static void keep_error(char **slot, char *text, ocr_status st) {
    free(*slot);
    *slot = NULL;
    if (st == OCR_OK) {
        free(text);
        return;
    }
    *slot = text ? text : malloc(sizeof "unknown error (no message)");
    if (!text && *slot)
        memcpy(*slot, "unknown error (no message)", sizeof "unknown error (no message)");
}

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
    for (size_t i = sizeof *opt; i < n; ++i)
        if (((const unsigned char *)opt)[i]) {
            ocr_errorf("ocr_reducer_options: fields this library (%s) does not know are set "
                       "(size %zu, it knows %zu bytes)",
                       OCR_VERSION, n, sizeof *opt);
            return OCR_USAGE;
        }
    memcpy(out, opt, n < sizeof *opt ? n : sizeof *opt);
    out->size = sizeof *out;
    return OCR_OK;
}

static ocr_status create(cl_context ctx, cl_device_id device, ocr_type input, ocr_type type,
                         ocr_op op, const ocr_reducer_options *caller_opt, ocr_reducer *r) {
    ocr_status st = OCR_OK;
    cl_int err;
    cl_uint ndev = 0, align_bits = 0;
    cl_device_id *devs = NULL;
    ocr_reducer_options o;
    const ocr_reducer_options *opt = &o;
    if ((st = read_options(caller_opt, &o)) != OCR_OK) return st;
    if (!ctx || !device) {
        ocr_errorf("ocr_reducer_create: the context and the device must not be NULL");
        return OCR_USAGE;
    }
    if ((unsigned)type >= OCR_NTYPES || (unsigned)input >= OCR_NTYPES || (unsigned)op >= OCR_NOPS) {
        ocr_errorf("ocr_reducer_create: unknown type (%d, %d) or operator (%d)", (int)input,
                   (int)type, (int)op);
        return OCR_USAGE;
    }
    if (!ocr_type_widens_to(input, type)) {
        ocr_errorf("ocr_reducer_create_widening: %s elements cannot be combined in %s (see "
                   "ocr_type_widens_to)",
                   ocr_type_name(input), ocr_type_name(type));
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(op, type)) {
        ocr_errorf("operator %s needs an integer type, not %s", ocr_op_name(op),
                   ocr_type_name(type));
        return OCR_USAGE;
    }
    /* The device must be one of the context's: say so, rather than leave it
     * to a CL_INVALID_DEVICE from the build. */
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
        goto fail;
    }
    if ((st = ocr_device_wrap(ctx, device, &r->dev)) != OCR_OK) goto fail;
    OCR_CL(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                           NULL));
    OCR_CL(clRetainContext(ctx));
    r->ctx = ctx;
    OCR_CL(clRetainDevice(device));
    r->device = device;
    r->type = type;
    r->in_type = input;
    r->op = op;
    r->es = ocr_type_size(type);
    r->in_es = ocr_type_size(input);
    r->align = align_bits >= 8 ? align_bits / 8 : 1;

    ocr_build_request rq = {
        .spec = *ocr_kernel_find("reduce7"),
        .kernel_dir = opt->kernel_dir,
        .type = type,
        .op = op,
        .local_size = opt->local_size,
        .groups = opt->groups,
        .extra_options = opt->build_options,
    };
    int embedded = rq.kernel_dir == NULL;
    if ((st = ocr_kernel_build_ex(&r->dev, &rq, embedded, input, &r->k)) != OCR_OK ||
        (input != type && (st = ocr_kernel_build_ex(&r->dev, &rq, embedded, type, &r->k_acc))))
        goto fail;
    r->result = clCreateBuffer(ctx, CL_MEM_READ_WRITE, r->es, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
fail:
    free(devs);
    return st;
}

ocr_status ocr_reducer_create_widening(cl_context ctx, cl_device_id device, ocr_type input,
                                       ocr_type type, ocr_op op, const ocr_reducer_options *opt,
                                       ocr_reducer **out) {
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
        st = create(ctx, device, input, type, op, opt, r);
    }
    char *text = ocr_capture_end(tok);
    create_error[0] = '\0';
    if (st != OCR_OK) {
        snprintf(create_error, sizeof create_error, "%s",
                 text ? text : "unknown error (no message)");
        ocr_reducer_release(r);
        r = NULL;
    }
    free(text);
    if (out) *out = r;
    return st;
}

ocr_status ocr_reducer_create(cl_context ctx, cl_device_id device, ocr_type type, ocr_op op,
                              const ocr_reducer_options *opt, ocr_reducer **out) {
    return ocr_reducer_create_widening(ctx, device, type, type, op, opt, out);
}

void ocr_reducer_release(ocr_reducer *r) {
    if (!r) return;
    if (r->last) clReleaseEvent(r->last);
    if (r->result) clReleaseMemObject(r->result);
    for (int i = 3; i >= 0; --i)
        if (r->scratch[i]) clReleaseMemObject(r->scratch[i]);
    ocr_kernel_release(r->k_acc);
    ocr_kernel_release(r->k);
    if (r->device) clReleaseDevice(r->device);
    if (r->ctx) clReleaseContext(r->ctx);
    free(r->err);
    free(r);
}

const char *ocr_reducer_last_error(const ocr_reducer *r) {
    if (!r) return create_error;
    return r->err ? r->err : "";
}

const ocr_geometry *ocr_reducer_geometry(const ocr_reducer *r) {
    return r && r->k ? &r->k->geom : NULL;
}

/* The size in bytes of a buffer of the reducer's context. */
static ocr_status buffer_size(const ocr_reducer *r, cl_mem m, const char *what, size_t *size) {
    ocr_status st = OCR_OK;
    cl_context c = NULL;
    if (!m) {
        ocr_errorf("%s must not be NULL", what);
        return OCR_USAGE;
    }
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof *size, size, NULL));
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL));
    if (c != r->ctx) {
        ocr_errorf("%s belongs to another context than the reducer's", what);
        st = OCR_USAGE;
    }
fail:
    return st;
}

/* The buffer a cl_mem's bytes live in (itself, or the parent of a
 * sub-buffer: OpenCL 1.2 allows no deeper nesting) and its byte offset there. */
static ocr_status mem_root(cl_mem m, cl_mem *root, size_t *origin) {
    ocr_status st = OCR_OK;
    cl_mem parent = NULL;
    *root = m, *origin = 0;
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
    if (parent) {
        OCR_CL(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof *origin, origin, NULL));
        *root = parent;
    }
fail:
    return st;
}

/* The value is written to element 0 of result_buf while elements [offset,
 * offset + n) of buf are read: refused when those bytes overlap (the same
 * buffer, a sub-buffer of it, or its parent). */
static ocr_status check_overlap(const ocr_reducer *r, cl_mem buf, size_t offset, uint64_t n,
                                cl_mem result_buf) {
    ocr_status st;
    cl_mem in_root, out_root;
    size_t in_at, out_at;
    if ((st = mem_root(buf, &in_root, &in_at)) != OCR_OK ||
        (st = mem_root(result_buf, &out_root, &out_at)) != OCR_OK)
        return st;
    uint64_t lo = in_at + (uint64_t)offset * r->in_es, hi = lo + n * r->in_es; /* in bytes */
    if (in_root == out_root && out_at < hi && lo < out_at + r->es) {
        ocr_errorf("the result buffer overlaps the elements reduced: element 0 of result_buf "
                   "lies at byte %zu of the same buffer as input bytes [%llu, %llu); pass "
                   "another buffer, or an offset that leaves it out",
                   out_at, (unsigned long long)lo, (unsigned long long)hi);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* Everything that can be refused before a command is enqueued. */
static ocr_status check_args(const ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                             uint64_t n, cl_mem result_buf, cl_uint num_wait,
                             const cl_event *wait) {
    ocr_status st = OCR_OK;
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    size_t size = 0, rsize = 0;
    if (n == 0) {
        ocr_errorf("nothing to reduce: n must be at least 1");
        return OCR_USAGE;
    }
    if (!q) {
        ocr_errorf("the queue must not be NULL");
        return OCR_USAGE;
    }
    if ((num_wait == 0) != (wait == NULL)) {
        ocr_errorf("the wait list and its length disagree (%u events, list %s)", num_wait,
                   wait ? "given" : "NULL");
        return OCR_USAGE;
    }
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL));
    if (qc != r->ctx || qd != r->device) {
        ocr_errorf("the queue belongs to another %s than the reducer's",
                   qc != r->ctx ? "context" : "device");
        return OCR_USAGE;
    }
    if ((st = buffer_size(r, buf, "the input buffer", &size)) != OCR_OK ||
        (st = buffer_size(r, result_buf, "the result buffer", &rsize)) != OCR_OK)
        return st;
    uint64_t have = size / r->in_es;
    if (offset > have || n > have - offset) {
        ocr_errorf("elements [%llu, %llu + %llu) lie beyond the buffer, which holds %llu %s "
                   "values; a reduction over several buffers is not supported",
                   (unsigned long long)offset, (unsigned long long)offset, (unsigned long long)n,
                   (unsigned long long)have, ocr_type_name(r->in_type));
        return OCR_USAGE;
    }
    if (rsize < r->es) {
        ocr_errorf("the result buffer holds %zu bytes; one %s needs %zu", rsize,
                   ocr_type_name(r->type), r->es);
        return OCR_USAGE;
    }
    st = check_overlap(r, buf, offset, n, result_buf);
fail:
    return st;
}

/* Scratch buffer i holds at least `need` elements (a larger n may need more). */
static ocr_status grow(ocr_reducer *r, int i, uint64_t need) {
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

/* The commands of one call, each waiting for the one before; the first for
 * the call's wait list. */
typedef struct {
    cl_event prev; /* the last command enqueued, or NULL */
    cl_uint nw;
    const cl_event *wl;
} chain;

static cl_uint chain_n(const chain *c) {
    return c->prev ? 1 : c->nw;
}
static const cl_event *chain_wait(const chain *c) {
    return c->prev ? &c->prev : c->nw ? c->wl : NULL;
}
static void chain_push(chain *c, cl_event ev) {
    if (c->prev) clReleaseEvent(c->prev);
    c->prev = ev;
}

/* count elements of es bytes from src[from] to dst[to]. */
static ocr_status copy(size_t es, cl_command_queue q, chain *c, cl_mem src, uint64_t from,
                       cl_mem dst, uint64_t to, uint64_t count) {
    ocr_status st = OCR_OK;
    cl_event ev = NULL;
    OCR_CL(clEnqueueCopyBuffer(q, src, dst, (size_t)(from * es), (size_t)(to * es),
                               (size_t)(count * es), chain_n(c), chain_wait(c), &ev));
    chain_push(c, ev);
fail:
    return st;
}

/* One launch of the kernel over the input, src, into dst (ocr_passes.c). */
static ocr_status launch(ocr_reducer *r, cl_command_queue q, chain *c, const ocr_pass *s,
                         cl_mem src, cl_mem dst) {
    cl_event ev = NULL;
    ocr_status st = ocr_pass_enqueue(q, r->k, s, src, dst, chain_n(c), chain_wait(c), &ev);
    if (ev) chain_push(c, ev);
    return st;
}

/* The kernel that reduces values of the reducer's type: the partials, and
 * the input unless it is of another type. */
static const ocr_kernel *values_kernel(const ocr_reducer *r) {
    return r->k_acc ? r->k_acc : r->k;
}

/* The plan for n values, down to one, with its scratch buffers. */
static ocr_status plan_for(ocr_reducer *r, uint64_t n, ocr_plan *p) {
    ocr_status st;
    if (ocr_plan_make(&values_kernel(r)->geom, n, 1, p) != OCR_OK) {
        ocr_errorf("cannot plan a reduction of %llu elements", (unsigned long long)n);
        return OCR_USAGE;
    }
    /* Pass i writes scratch[i % 2], except the last, which writes the result. */
    for (unsigned i = 0; i + 1 < p->npasses; ++i)
        if ((st = grow(r, (int)(i % 2), p->pass[i].n_out)) != OCR_OK) return st;
    return OCR_OK;
}

/* Every pass of p over `in` (p->n values from its start) into result[0]. */
static ocr_status run_plan(ocr_reducer *r, cl_command_queue q, chain *c, const ocr_plan *p,
                           cl_mem in, cl_mem result) {
    cl_event ev[OCR_MAX_PASSES];
    unsigned nev = 0;
    if (p->npasses == 0) return copy(r->es, q, c, in, 0, result, 0, 1); /* one value: itself */
    /* Each pass waits for the one before: the caller's queue may be out of order. */
    ocr_pass_io io = {in, {r->scratch[0], r->scratch[1]}, result, chain_n(c), chain_wait(c), 1};
    ocr_status st = ocr_passes_enqueue(q, values_kernel(r), p, &io, ev, &nev);
    for (unsigned i = 0; i < nev; ++i)
        chain_push(c, ev[i]); /* keeps the last, releases the others */
    return st;
}

/* elements [offset, offset + n) of buf as a buffer of their own (offset aligned). */
static ocr_status sub_buffer(const ocr_reducer *r, cl_mem buf, uint64_t offset, uint64_t n,
                             cl_mem *out) {
    ocr_status st = OCR_OK;
    cl_int err;
    if (offset == 0) {
        OCR_CL(clRetainMemObject(buf));
        *out = buf;
        return OCR_OK;
    }
    /* A sub-buffer of a sub-buffer is not allowed: cut it from the parent. */
    cl_mem root;
    size_t origin;
    if ((st = mem_root(buf, &root, &origin)) != OCR_OK) return st;
    cl_buffer_region reg = {origin + (size_t)(offset * r->in_es), (size_t)(n * r->in_es)};
    *out = clCreateSubBuffer(root, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    OCR_CHECK(err, "clCreateSubBuffer");
fail:
    return st;
}

/* The first pass of the input kernel over n >= 1 input elements: one launch
 * even for a single element, which must be converted. */
static ocr_status first_pass(const ocr_reducer *r, uint64_t n, ocr_pass *s) {
    ocr_geometry g = r->k->geom;
    ocr_plan p;
    g.tree = 0; /* at least one launch */
    if (ocr_plan_make(&g, n, 1, &p) != OCR_OK) {
        ocr_errorf("cannot plan a reduction of %llu elements", (unsigned long long)n);
        return OCR_USAGE;
    }
    *s = p.pass[0];
    return OCR_OK;
}

/*
 * Widening (the input of in_type, combined in type): the input kernel's first
 * pass converts, so every later pass reads values of type. The aligned part
 * (offset + head on) is read in place, its first pass writing its values to
 * scratch[2]; an unaligned head is copied to scratch[3], given a pass of its
 * own (into scratch[0]), and its values are appended to scratch[2]. Then the
 * values kernel reduces scratch[2]. A part alone whose first pass leaves one
 * value writes it to the result directly.
 */
static ocr_status reduce_widening(ocr_reducer *r, cl_command_queue q, chain *c, cl_mem buf,
                                  uint64_t offset, uint64_t n, cl_mem result_buf) {
    ocr_status st;
    ocr_pass body = {0}, hp = {0};
    ocr_plan plan;
    cl_mem in = NULL;
    uint64_t align = r->align > r->in_es ? r->align / r->in_es : 1;
    uint64_t head = (align - offset % align) % align;
    if (head > n) head = n;
    uint64_t rest = n - head, vals;
    if ((rest && (st = first_pass(r, rest, &body)) != OCR_OK) ||
        (head && (st = first_pass(r, head, &hp)) != OCR_OK))
        return st;
    vals = body.n_out + hp.n_out;
    /* One part leaving one value: that is the result. (Read scratch after
     * grow, which may replace it.) */
    int direct = (!rest || !head) && vals == 1;
    if (!direct && (st = grow(r, 2, vals)) != OCR_OK) return st;
    cl_mem to = direct ? result_buf : r->scratch[2];
    if (rest) {
        if ((st = sub_buffer(r, buf, offset + head, rest, &in)) != OCR_OK ||
            (st = launch(r, q, c, &body, in, to)) != OCR_OK)
            goto done;
    }
    if (head) { /* its values go to scratch[0] (after the body's) or straight to `to` */
        if ((st = grow(r, 3, head)) != OCR_OK || (rest && (st = grow(r, 0, hp.n_out)) != OCR_OK) ||
            (st = copy(r->in_es, q, c, buf, offset, r->scratch[3], 0, head)) != OCR_OK ||
            (st = launch(r, q, c, &hp, r->scratch[3], rest ? r->scratch[0] : to)) != OCR_OK ||
            (rest &&
             (st = copy(r->es, q, c, r->scratch[0], 0, r->scratch[2], body.n_out, hp.n_out))))
            goto done;
    }
    if (!direct && (st = plan_for(r, vals, &plan)) == OCR_OK)
        st = run_plan(r, q, c, &plan, r->scratch[2], result_buf);
done:
    if (in) clReleaseMemObject(in); /* enqueued commands keep it alive */
    return st;
}

/*
 * The kernel reads its input through a sub-buffer, whose start must be
 * aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN (the 16-byte loads need it too).
 * From an unaligned offset, the head up to the next aligned element is copied
 * into scratch[2] after the first pass's partials over the aligned rest, and
 * the passes go on from there: one copy of fewer than align / es elements,
 * and the first pass reads the caller's buffer in place.
 */
static ocr_status reduce_async(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                               uint64_t n, cl_mem result_buf, cl_uint num_wait,
                               const cl_event *wait, cl_event *done) {
    ocr_status st = OCR_OK;
    cl_mem in = NULL;
    cl_event *wl = NULL;
    ocr_plan plan, first;
    if ((st = check_args(r, q, buf, offset, n, result_buf, num_wait, wait)) != OCR_OK) return st;

    /* The first command waits for the caller's events and for the previous
     * call (which used the same scratch, maybe on another queue). */
    chain c = {NULL, num_wait + (r->last != NULL), NULL};
    if (c.nw && !(wl = malloc(c.nw * sizeof *wl))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    if (num_wait) memcpy(wl, wait, num_wait * sizeof *wl);
    if (r->last) wl[num_wait] = r->last;
    c.wl = wl;

    /* OpenCL makes the alignment at least the largest built-in type (128
     * bytes): a whole number of elements. */
    if (r->k_acc) {
        st = reduce_widening(r, q, &c, buf, offset, n, result_buf);
        goto fail;
    }
    uint64_t align = r->align > r->es ? r->align / r->es : 1;
    uint64_t head = (align - offset % align) % align;
    if (head == 0) { /* aligned: the passes read buf in place */
        if ((st = plan_for(r, n, &plan)) != OCR_OK) goto fail;
        if (plan.npasses == 0) {
            st = copy(r->es, q, &c, buf, offset, result_buf, 0, 1);
            goto fail;
        }
        if ((st = sub_buffer(r, buf, offset, n, &in)) != OCR_OK) goto fail;
        st = run_plan(r, q, &c, &plan, in, result_buf);
        goto fail;
    }
    if (head > n) head = n;
    uint64_t rest = n - head, partials = rest;
    if (rest >= 2) {
        if ((st = plan_for(r, rest, &first)) != OCR_OK) goto fail;
        partials = first.pass[0].n_out;
    }
    if ((st = grow(r, 2, partials + head)) != OCR_OK) goto fail;
    if (rest >= 2) {
        if ((st = sub_buffer(r, buf, offset + head, rest, &in)) != OCR_OK ||
            (st = launch(r, q, &c, &first.pass[0], in, r->scratch[2])) != OCR_OK)
            goto fail;
    } else if (rest == 1 && (st = copy(r->es, q, &c, buf, offset + head, r->scratch[2], 0, 1))) {
        goto fail;
    }
    if ((st = copy(r->es, q, &c, buf, offset, r->scratch[2], partials, head)) != OCR_OK ||
        (st = plan_for(r, partials + head, &plan)) != OCR_OK)
        goto fail;
    st = run_plan(r, q, &c, &plan, r->scratch[2], result_buf);
fail:
    /* Whatever was enqueued last is what the next call must wait for. */
    if (c.prev) {
        if (st == OCR_OK && done) {
            clRetainEvent(c.prev);
            *done = c.prev;
        }
        if (r->last) clReleaseEvent(r->last);
        r->last = c.prev;
    }
    if (in) clReleaseMemObject(in); /* enqueued commands keep it alive */
    free(wl);
    return st;
}

ocr_status ocr_reducer_reduce_async(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                    uint64_t n, cl_mem result_buf, cl_uint num_wait,
                                    const cl_event *wait, cl_event *done) {
    ocr_last_error_clear();
    if (!r) {
        ocr_errorf("the reducer must not be NULL");
        return OCR_USAGE;
    }
    int tok = ocr_capture_begin();
    if (done) *done = NULL;
    ocr_status st = reduce_async(r, q, buf, offset, n, result_buf, num_wait, wait, done);
    keep_error(&r->err, ocr_capture_end(tok), st);
    return st;
}

ocr_status ocr_reducer_reduce(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                              uint64_t n, ocr_value *result) {
    ocr_last_error_clear();
    if (!r) {
        ocr_errorf("the reducer must not be NULL");
        return OCR_USAGE;
    }
    int tok = ocr_capture_begin();
    ocr_status st = OCR_OK;
    cl_event ev = NULL;
    if (!result) {
        ocr_errorf("result must not be NULL");
        st = OCR_USAGE;
        goto fail;
    }
    memset(result, 0, sizeof *result);
    if ((st = reduce_async(r, q, buf, offset, n, r->result, 0, NULL, &ev)) != OCR_OK) goto fail;
    OCR_CL(clEnqueueReadBuffer(q, r->result, CL_TRUE, 0, r->es, result, 1, &ev, NULL));
fail:
    if (ev) clReleaseEvent(ev);
    keep_error(&r->err, ocr_capture_end(tok), st);
    return st;
}
