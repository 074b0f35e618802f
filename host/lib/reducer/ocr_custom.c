/* ocr_custom.c - a custom reducer's kernels and calls: cl/custom.cl built
 * after the spec's prelude (ocr_custom_spec.c) through the program cache
 * (whose key is the whole source, so the spec too), in a geometry like
 * reduce7's; a call sets the caller's arguments, launches ocr_rk_first (a
 * grid of groups, one partial each, into the reducer's scratch; or the
 * result itself when one group does it all) and ocr_rk_final (one group
 * over the partials; alone for n = 0: the neutral value), or where the
 * device lets the last group finish, ocr_rk_first_finish alone. The queue, wait
 * list, previous-call and blocking read-back rules are the reducer's
 * (ocr_reducer_priv.h). Prints nothing. */
#define _POSIX_C_SOURCE 200809L
#include "ocr_reducer_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements per work-item at least before a launch takes another group (a
 * GPU's work-items stride over the grid, a CPU's one-item groups each take a
 * chunk), and groups per compute unit: reduce7's registry row's numbers,
 * but 2048 work-items of a GPU's compute unit, not 1024 (its most resident
 * on NVIDIA's: a float dot of 2^28 on an H200 took 0.494 ms, not 0.505;
 * bench/results/custom/h200-2026-11-27-b/variants.txt). */
#define CUSTOM_GPU_ITEM_MIN   16
#define CUSTOM_CPU_ITEM_MIN   2048
#define CUSTOM_GPU_ITEMS_CU   2048
#define CUSTOM_CPU_GROUPS_CU  4
#define CUSTOM_GPU_LOCAL_SIZE 256

/* r's custom state, or NULL for a plain reducer. */
static struct ocr_custom *cust(const ocr_reducer *r) {
    return r->form == &ocr_custom_form ? r->state : NULL;
}

/* ---- the build ------------------------------------------------------------------- */

/* The work-group size (a power of two within the device's limits and local
 * memory), the walk (a CPU's chunks for one-item groups, its default; the
 * coalesced walk for larger groups, as on a GPU) and the groups of the
 * first pass. */
static ocr_status custom_geometry(ocr_reducer *r, const ocr_reducer_options *opt) {
    struct ocr_custom *c = cust(r);
    const ocr_device_info *in = &r->dev.info;
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    int cpu = ocr_reducer_on_cpu(r);
    size_t local =
        opt->local_size ? opt->local_size
        : cpu           ? 1
              : ocr_floor_pow2(limit < CUSTOM_GPU_LOCAL_SIZE ? limit : CUSTOM_GPU_LOCAL_SIZE);
    if (opt->local_size && (local & (local - 1) || local > limit)) {
        ocr_errorf("a custom reducer's work-group size must be a power of two up to %zu, not %zu",
                   limit, local);
        return OCR_USAGE;
    }
    while (!opt->local_size && local > 1 && local * c->acc_size > in->local_mem)
        local /= 2;
    if (local * c->acc_size > in->local_mem) {
        ocr_errorf("groups of %zu values of %zu bytes need more local memory than %s's %llu "
                   "bytes",
                   local, c->acc_size, in->name, (unsigned long long)in->local_mem);
        return OCR_RUNTIME;
    }
    c->blocked = cpu && local == 1;
    size_t per_cu = c->blocked ? CUSTOM_CPU_GROUPS_CU : CUSTOM_GPU_ITEMS_CU / local;
    c->geom.kind = OCR_PER_GRID;
    c->geom.local_size = local;
    c->geom.elems_per_group = 1;
    c->geom.tree = 1;
    c->geom.max_groups =
        opt->groups ? opt->groups : (uint64_t)in->compute_units * (per_cu ? per_cu : 1);
    return OCR_OK;
}

/* The prelude, then cl/custom.cl (embedded, or kernel_dir's), as one source. */
static ocr_status custom_source(ocr_reducer *r, const ocr_custom_spec *sp,
                                const ocr_reducer_options *opt, ocr_strbuf *src) {
    ocr_status st;
    ocr_kernel k;
    ocr_strbuf file = {NULL, 0, 0};
    ocr_build_request rq = {.spec = {.name = "ocr_rk_first", .file = "custom.cl"},
                            .kernel_dir = opt->kernel_dir};
    memset(&k, 0, sizeof k);
    char *prelude = ocr_custom_prelude(sp);
    if (!prelude) return OCR_NO_MEMORY;
    st = ocr_source_load(&r->dev, &rq, opt->kernel_dir == NULL, &k, &file);
    free(k.path);
    if (st == OCR_OK) {
        size_t pl = strlen(prelude);
        if (!(src->s = malloc(pl + file.len + 1))) {
            ocr_errorf("out of host memory");
            st = OCR_NO_MEMORY;
        } else {
            memcpy(src->s, prelude, pl);
            memcpy(src->s + pl, file.s, file.len);
            src->len = pl + file.len;
            src->s[src->len] = '\0';
        }
    }
    free(file.s);
    free(prelude);
    return st;
}

/* A failed build: the log and the caller's text, in one message. */
static void say_build_failure(const ocr_reducer *r, cl_program p, const ocr_custom_spec *sp,
                              const char *opts) {
    char *log = p ? ocr_build_log(p, r->device) : NULL;
    ocr_errorf_begin("building the custom reduction failed (map, reduce, neutral, preamble or "
                     "struct_decl: the log names which)");
    ocr_errprintf("  map: %s\n  reduce: %s\n  neutral: %s\n",
                  sp->map ? sp->map : "(first buffer)[i]", sp->reduce, sp->neutral);
    if (sp->struct_decl) ocr_errprintf("  struct_decl: %s\n", sp->struct_decl);
    if (sp->preamble) ocr_errprintf("  preamble: %s\n", sp->preamble);
    ocr_errprintf("  build options: %s\n  build log:\n%s\n", opts,
                  log && log[0] ? log : "  (the compiler left no log)");
    ocr_errorf_end();
    free(log);
}

/* A kernel of the program that runs groups of the reducer's size. */
static ocr_status custom_kernel(ocr_reducer *r, const char *name, cl_kernel *out) {
    ocr_status st = OCR_OK;
    cl_int err;
    size_t most = 0;
    *out = clCreateKernel(cust(r)->program, name, &err);
    OCR_CHECK(err, "clCreateKernel");
    OCR_CL(clGetKernelWorkGroupInfo(*out, r->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                    NULL));
    if (most < cust(r)->geom.local_size) {
        ocr_errorf("the custom kernel runs groups of %zu at most on %s, not %zu: set local_size",
                   most, r->dev.info.name, cust(r)->geom.local_size);
        st = OCR_RUNTIME;
    }
fail:
    return st;
}

/* The build options, with the one-launch finish (ocr_finish_mode's; 0: none). */
static ocr_status custom_options(const ocr_reducer *r, const ocr_reducer_options *opt, int finish,
                                 const char *std, char *opts, size_t size) {
    char fin[48] = "";
    if (finish) snprintf(fin, sizeof fin, " -D OCR_RK_FINISH=%d%s", finish, std);
    int len = snprintf(opts, size, "-D OCR_RK_LOCAL_SIZE=%zu -D OCR_RK_BLOCKED=%d%s%s%s",
                       cust(r)->geom.local_size, cust(r)->blocked, fin,
                       opt->build_options ? " " : "", opt->build_options ? opt->build_options : "");
    if (len < 0 || (size_t)len >= size) {
        ocr_errorf("build options too long");
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* Back to two launches: the finish's kernel and ticket released. */
static void drop_finish(struct ocr_custom *c) {
    if (c->ticket) clReleaseMemObject(c->ticket), c->ticket = NULL;
    if (c->finish) clReleaseKernel(c->finish), c->finish = NULL;
}

/* The one-launch kernel and its zeroed ticket, where the kernel runs groups
 * of the reducer's size (else two launches, as without it; as from a
 * kernel_dir whose custom.cl has no ocr_rk_first_finish). */
static ocr_status setup_finish(ocr_reducer *r) {
    struct ocr_custom *c = cust(r);
    ocr_status st = OCR_OK;
    cl_int err;
    size_t most = 0;
    cl_uint zero = 0;
    c->finish = clCreateKernel(c->program, "ocr_rk_first_finish", &err);
    if (err == CL_INVALID_KERNEL_NAME) return OCR_OK;
    OCR_CHECK(err, "clCreateKernel");
    OCR_CL(clGetKernelWorkGroupInfo(c->finish, r->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                                    &most, NULL));
    if (most < c->geom.local_size) {
        clReleaseKernel(c->finish), c->finish = NULL;
        return OCR_OK;
    }
    c->ticket = clCreateBuffer(r->dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof zero, &zero, &err);
    OCR_CHECK(err, "clCreateBuffer");
    OCR_CL(clSetKernelArg(c->finish, 3, sizeof c->ticket, &c->ticket));
fail:
    return st;
}

/* Built with the one-launch finish where the device has one; a spec whose
 * text the finish's language version refuses (-cl-std=CL2.0 or CL3.0) is
 * built as it is, and its failure reported. Where the finish cannot be set
 * up (a query or its ticket failing), two launches, as without it. */
static ocr_status custom_build(ocr_reducer *r, const ocr_custom_spec *sp,
                               const ocr_reducer_options *opt) {
    ocr_status st;
    ocr_strbuf src = {NULL, 0, 0};
    char opts[1024];
    const char *call, *std = "";
    int finish = 0;
    cl_int err = CL_SUCCESS;
    if (ocr_finish_mode(&r->dev, opt->build_options, &finish, &std) != OCR_OK)
        finish = 0, std = "", ocr_last_error_clear(); /* two launches, as before it */
    if ((st = custom_source(r, sp, opt, &src)) != OCR_OK) goto done;
    for (;; finish = 0, std = "") {
        if ((st = custom_options(r, opt, finish, std, opts, sizeof opts)) != OCR_OK) goto done;
        err = ocr_program_get(&r->dev, src.s, src.len, opts, OCR_REDUCER_BUILD, &cust(r)->program,
                              &call);
        if (err == CL_SUCCESS || err == CL_OUT_OF_HOST_MEMORY || !finish) break;
        ocr_program_put(cust(r)->program), cust(r)->program = NULL;
    }
    if (err != CL_SUCCESS) {
        say_build_failure(r, cust(r)->program, sp, opts);
        ocr_program_put(cust(r)->program);
        cust(r)->program = NULL;
        st = err == CL_OUT_OF_HOST_MEMORY ? OCR_NO_MEMORY : OCR_BUILD;
        goto done;
    }
    if ((st = custom_kernel(r, "ocr_rk_first", &cust(r)->first)) == OCR_OK &&
        (st = custom_kernel(r, "ocr_rk_final", &cust(r)->final)) == OCR_OK && finish &&
        setup_finish(r) != OCR_OK) { /* two launches, as without it */
        drop_finish(cust(r));
        ocr_last_error_clear();
    }
done:
    free(src.s);
    return st;
}

static int needs_fp64(const ocr_custom_spec *sp) {
    int d = !sp->struct_decl && sp->type == OCR_DOUBLE;
    for (size_t k = 0; k < sp->num_args; ++k)
        d |= sp->args[k].type == OCR_DOUBLE;
    return d;
}

/* The custom part of r (ocr_reducer_builder), once the device is taken. */
static ocr_status custom_create(ocr_reducer *r, const ocr_custom_spec *spec,
                                const ocr_reducer_options *opt) {
    ocr_status st;
    ocr_custom_spec sp;
    if ((st = ocr_custom_spec_read(spec, &sp)) != OCR_OK) return st;
    if (opt->accurate) {
        ocr_errorf("ocr_reducer_create_custom: accurate is for the built-in float sums");
        return OCR_USAGE;
    }
    if ((st = ocr_build_options_check(opt->build_options)) != OCR_OK) return st;
    if (needs_fp64(&sp) && !r->dev.info.fp64) {
        ocr_errorf("%s has no double precision (cl_khr_fp64)", r->dev.info.name);
        return OCR_RUNTIME;
    }
    struct ocr_custom *c = calloc(1, sizeof *c);
    if (!c || (sp.num_args && !(c->args = calloc(sp.num_args, sizeof *c->args)))) {
        free(c);
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    r->form = &ocr_custom_form, r->state = c;
    c->num_args = sp.num_args;
    for (size_t k = 0; k < sp.num_args; ++k)
        c->args[k].type = sp.args[k].type, c->args[k].is_buffer = sp.args[k].is_buffer != 0;
    c->is_struct = sp.struct_decl != NULL;
    c->acc_size = c->is_struct ? sp.struct_size : ocr_type_size(sp.type);
    r->type = c->is_struct ? OCR_UCHAR : sp.type; /* a struct: bytes */
    r->in_type = c->num_args && c->args[0].is_buffer ? c->args[0].type : r->type;
    r->es = c->acc_size, r->in_es = ocr_type_size(r->in_type);
    if ((st = custom_geometry(r, opt)) != OCR_OK || (st = custom_build(r, &sp, opt)) != OCR_OK)
        return st;
    return ocr_reducer_grow(r, 0, c->geom.max_groups);
}

static ocr_status create(cl_context ctx, cl_device_id device, const ocr_reducer_options *opt,
                         const void *spec, ocr_reducer *r) {
    ocr_status st;
    if ((st = ocr_reducer_take_device(ctx, device, opt->local_size, r)) != OCR_OK ||
        (st = custom_create(r, spec, opt)) != OCR_OK)
        return st;
    return ocr_readback_open(ctx, device, r->es, &r->rb);
}

ocr_status ocr_reducer_create_custom(cl_context ctx, cl_device_id device,
                                     const ocr_custom_spec *spec, const ocr_reducer_options *opt,
                                     ocr_reducer **out) {
    return ocr_reducer_make(ctx, device, opt, create, spec, out);
}

static void custom_free(void *state) {
    struct ocr_custom *c = state;
    if (!c) return;
    drop_finish(c);
    if (c->final) clReleaseKernel(c->final);
    if (c->first) clReleaseKernel(c->first);
    ocr_program_put(c->program);
    free(c->args);
    free(c);
}

/* ---- values: the caller's scalars in, a result out ------------------------------------ */

/* The bytes of a scalar argument of type t; their count. */
static size_t scalar_bytes(ocr_type t, ocr_value v, unsigned char *out) {
    int8_t c = (int8_t)v.i;
    uint8_t uc = (uint8_t)v.u;
    int16_t s = (int16_t)v.i;
    uint16_t us = (uint16_t)v.u;
    const void *p = t == OCR_CHAR     ? (const void *)&c
                    : t == OCR_UCHAR  ? (const void *)&uc
                    : t == OCR_SHORT  ? (const void *)&s
                    : t == OCR_USHORT ? (const void *)&us
                                      : (const void *)&v;
    size_t n = ocr_type_size(t);
    memcpy(out, p, n);
    return n;
}

/* ---- a call ---------------------------------------------------------------------- */

/* A custom call's c->how: its args, or this for args NULL (a plain call's
 * is NULL: its one buffer is c->buf). */
static const ocr_custom_value no_args;

/* A call's arguments (c->how): the spec's, as ocr_custom_value. */
static const ocr_custom_value *args_of(const ocr_call *c) {
    return c->how;
}

/* One buffer argument: within its buffer, apart from the result element. */
static ocr_status check_buffer(const ocr_reducer *r, const ocr_call *c, size_t k) {
    ocr_status st;
    size_t size = 0, es = ocr_type_size(cust(r)->args[k].type);
    int overlap = 0;
    const ocr_custom_value *v = &args_of(c)[k];
    char what[48];
    snprintf(what, sizeof what, "the buffer of argument %zu", k);
    if ((st = ocr_reducer_buffer_size(r, v->buf, what, &size)) != OCR_OK) return st;
    uint64_t have = size / es;
    if (v->offset > have || c->n > have - v->offset) {
        ocr_errorf("argument %zu: elements [%llu, %llu + %llu) lie beyond its buffer, which "
                   "holds %llu",
                   k, (unsigned long long)v->offset, (unsigned long long)v->offset,
                   (unsigned long long)c->n, (unsigned long long)have);
        return OCR_USAGE;
    }
    if ((st = ocr_mem_overlap(v->buf, v->offset * es, c->n * es, c->result,
                              (uint64_t)c->result_offset * r->es, r->es, &overlap)) != OCR_OK)
        return st;
    if (overlap) {
        ocr_errorf("the result element overlaps the elements argument %zu reads", k);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* A plain call's one buffer (ocr_reducer_reduce, _async, _into: c->buf,
 * no args) as the spec's one argument, where the spec takes just that. */
static ocr_status plain_args(struct ocr_custom *cu, ocr_call *c) {
    if (cu->num_args != 1 || !cu->args[0].is_buffer || (c->host && cu->is_struct)) {
        ocr_errorf("this custom reducer's spec takes %s: call ocr_reducer_reduce_custom%s",
                   cu->is_struct && c->host ? "a struct result" : "other arguments than one buffer",
                   c->host ? "" : "_into");
        return OCR_USAGE;
    }
    memset(&cu->one, 0, sizeof cu->one);
    cu->one.buf = c->buf, cu->one.offset = c->offset;
    c->how = &cu->one;
    return OCR_OK;
}

static ocr_status check_call(ocr_reducer *r, void *state, ocr_call *c) {
    ocr_status st;
    size_t rsize = 0;
    if (!c->how && (st = plain_args(state, c)) != OCR_OK) return st;
    if (cust(r)->num_args && c->how == &no_args) {
        ocr_errorf("args must hold the spec's %zu arguments", cust(r)->num_args);
        return OCR_USAGE;
    }
    if ((st = ocr_reducer_buffer_size(r, c->result, "the result buffer", &rsize)) != OCR_OK ||
        (st = ocr_reducer_result_fits(r, rsize, c->result_offset)) != OCR_OK)
        return st;
    for (size_t k = 0; k < cust(r)->num_args; ++k)
        if (cust(r)->args[k].is_buffer && (st = check_buffer(r, c, k)) != OCR_OK) return st;
    return OCR_OK;
}

/* A first pass's arguments: n, out, out_off, then the caller's from `at`
 * (ocr_rk_first: 3; ocr_rk_first_finish: 5, after its ticket and partials). */
static ocr_status set_first(ocr_reducer *r, const ocr_call *c, cl_kernel k, cl_uint at, cl_mem out,
                            cl_ulong out_off) {
    ocr_status st = OCR_OK;
    cl_ulong n = c->n;
    OCR_CL(clSetKernelArg(k, 0, sizeof n, &n));
    OCR_CL(clSetKernelArg(k, 1, sizeof out, &out));
    OCR_CL(clSetKernelArg(k, 2, sizeof out_off, &out_off));
    if (!cust(r)->num_args) {
        cl_uint none = 0;
        OCR_CL(clSetKernelArg(k, at, sizeof none, &none));
    }
    for (size_t j = 0; j < cust(r)->num_args; ++j) {
        const ocr_custom_value *v = &args_of(c)[j];
        if (cust(r)->args[j].is_buffer) {
            cl_ulong off = v->offset;
            OCR_CL(clSetKernelArg(k, at++, sizeof v->buf, &v->buf));
            OCR_CL(clSetKernelArg(k, at++, sizeof off, &off));
        } else {
            unsigned char b[8];
            size_t sz = scalar_bytes(cust(r)->args[j].type, v->scalar, b);
            OCR_CL(clSetKernelArg(k, at++, sz, b));
        }
    }
fail:
    return st;
}

static ocr_status launch(cl_command_queue q, cl_kernel k, size_t groups, size_t local, cl_uint nw,
                         const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    size_t global = groups * local;
    OCR_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, nw, wl, ev));
fail:
    return st;
}

/* ocr_rk_final over m partials of `in` into the result. */
static ocr_status launch_final(ocr_reducer *r, const ocr_call *c, cl_mem in, cl_ulong m, cl_uint nw,
                               const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_kernel k = cust(r)->final;
    cl_ulong off = c->result_offset;
    OCR_CL(clSetKernelArg(k, 0, sizeof in, &in));
    OCR_CL(clSetKernelArg(k, 1, sizeof m, &m));
    OCR_CL(clSetKernelArg(k, 2, sizeof c->result, &c->result));
    OCR_CL(clSetKernelArg(k, 3, sizeof off, &off));
    st = launch(c->q, k, 1, cust(r)->geom.local_size, nw, wl, ev);
fail:
    return st;
}

/* The groups of the first pass over n values (0 for none). */
static uint64_t first_groups(const struct ocr_custom *c, uint64_t n) {
    uint64_t per =
        (uint64_t)c->geom.local_size * (c->blocked ? CUSTOM_CPU_ITEM_MIN : CUSTOM_GPU_ITEM_MIN);
    uint64_t groups = n / per + (n % per != 0);
    return groups > c->geom.max_groups ? c->geom.max_groups : groups;
}

static uint64_t log2_of(uint64_t pow2) {
    uint64_t k = 0;
    while (pow2 >>= 1)
        ++k;
    return k;
}

/* ocr_rk_share's longest chain over a share of c values: a quarter of
 * them (rounded down) in one running value, up to three more in the
 * remainder (the chunk walk's go to the first running value), the first
 * call of each chain on the neutral value, and two to join the four (the
 * coalesced walk: two in each quad before it joins the running value). */
static uint64_t walk_depth(uint64_t c) {
    return c / 4 + 3 + 2;
}

uint64_t ocr_reducer_custom_depth(const ocr_reducer *r, uint64_t n) {
    if (!r || !cust(r)) return 0;
    const struct ocr_custom *c = cust(r);
    uint64_t local = c->geom.local_size, groups = first_groups(c, n), tree = log2_of(local);
    if (groups == 0) return 0;
    uint64_t items = groups * local, share = n / items + (n % items != 0);
    uint64_t depth = walk_depth(share) + tree;
    if (groups > 1) /* ocr_rk_final: each work-item walks its partials, then the tree */
        depth += groups / local + (groups % local != 0) + tree;
    return depth;
}

/* Whether groups > 1 finish in one launch: where the device has the finish,
 * up to OCR_FINISH_READ_MAX_GROUPS groups, the value read at once or not.
 * Past them the finish cost more than the launch it saves on an H200 (a
 * float dot of 2^24, its value read after each call: 4-8 µs more in each of
 * five rounds; bench/results/custom/h200-2026-11-29/launches.md). */
static int one_launch(const struct ocr_custom *c, uint64_t groups) {
    return c->finish && groups <= OCR_FINISH_READ_MAX_GROUPS;
}

ocr_status ocr_reducer_custom_finish(cl_context ctx, cl_device_id device, const char *options,
                                     int *mode, uint64_t *max_groups, char *std_option,
                                     size_t std_size) {
    ocr_status st;
    ocr_device dev;
    const char *std = "";
    if (!mode || !max_groups || !std_option || !std_size) {
        ocr_errorf("ocr_reducer_custom_finish: mode, max_groups and std_option are required");
        return OCR_USAGE;
    }
    *mode = 0, *max_groups = 0, *std_option = '\0';
    if ((st = ocr_device_wrap(ctx, device, &dev)) != OCR_OK ||
        (st = ocr_finish_mode(&dev, options, mode, &std)) != OCR_OK) {
        *mode = 0;
        return st;
    }
    std += strspn(std, " ");
    if (strlen(std) >= std_size) {
        *mode = 0;
        ocr_errorf("ocr_reducer_custom_finish: std_option needs %zu bytes", strlen(std) + 1);
        return OCR_USAGE;
    }
    strcpy(std_option, std);
    *max_groups = *mode ? OCR_FINISH_READ_MAX_GROUPS : 0;
    return OCR_OK;
}

uint64_t ocr_reducer_custom_launches(const ocr_reducer *r, uint64_t n) {
    if (!r || !cust(r)) return 0;
    uint64_t groups = first_groups(cust(r), n);
    return groups <= 1 || one_launch(cust(r), groups) ? 1 : 2;
}

/* ocr_rk_first_finish over `groups` groups, their values in scratch[0],
 * the answer into the result. */
static ocr_status launch_finish(ocr_reducer *r, const ocr_call *c, uint64_t groups, cl_uint nw,
                                const cl_event *wl, cl_event *ev) {
    ocr_status st;
    cl_kernel k = cust(r)->finish;
    if ((st = set_first(r, c, k, 5, c->result, c->result_offset)) != OCR_OK) return st;
    OCR_CL(clSetKernelArg(k, 4, sizeof r->scratch[0], &r->scratch[0]));
    st = launch(c->q, k, (size_t)groups, cust(r)->geom.local_size, nw, wl, ev);
fail:
    return st;
}

/* The launches; *ev the last one's. */
static ocr_status enqueue(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                          const cl_event *wl, int want, cl_event *ev) {
    ocr_status st;
    (void)state, (void)want; /* the done event is always made */
    size_t local = cust(r)->geom.local_size;
    uint64_t groups = first_groups(cust(r), c->n);
    cl_event first = NULL;
    if (groups == 0) /* empty: the neutral value */
        return launch_final(r, c, r->scratch[0], 0, nw, wl, ev);
    if (groups == 1) {
        if ((st = set_first(r, c, cust(r)->first, 3, c->result, c->result_offset)) != OCR_OK)
            return st;
        return launch(c->q, cust(r)->first, 1, local, nw, wl, ev);
    }
    if ((st = ocr_reducer_grow(r, 0, groups)) != OCR_OK) return st;
    if (one_launch(cust(r), groups)) return launch_finish(r, c, groups, nw, wl, ev);
    if ((st = set_first(r, c, cust(r)->first, 3, r->scratch[0], 0)) ||
        (st = launch(c->q, cust(r)->first, (size_t)groups, local, nw, wl,
                     r->q_ooo ? &first : NULL)) != OCR_OK)
        return st;
    /* On an out-of-order queue the second waits for the first. */
    st = launch_final(r, c, r->scratch[0], groups, first ? 1 : 0, first ? &first : NULL, ev);
    if (first) clReleaseEvent(first);
    return st;
}

/* A plain reducer's calls of this form: refused. */
static ocr_status not_custom(ocr_reducer *r, void **state) {
    (void)r, (void)state;
    ocr_errorf("not a custom reducer (ocr_reducer_create_custom makes one)");
    return OCR_USAGE;
}

/* n = 0 is ocr_rk_final's over no partials: the spec's neutral value. */
static const ocr_geometry *custom_geometry_of(const void *state) {
    return &((const struct ocr_custom *)state)->geom;
}

const ocr_form ocr_custom_form = {"custom",    not_custom, check_call,        enqueue,
                                  custom_free, 0,          custom_geometry_of};

/* ---- the public calls ----------------------------------------------------------- */

ocr_status ocr_reducer_reduce_custom(ocr_reducer *r, cl_command_queue q, uint64_t n,
                                     const ocr_custom_value *args, void *result) {
    OCR_CALL_BEGIN(r);
    ocr_status st = OCR_USAGE;
    ocr_call c = {q, 0, NULL, NULL, 0, n, NULL, 0, 1, args ? args : &no_args, result, NULL};
    if (!result)
        ocr_errorf("result must not be NULL");
    else
        st = ocr_call_submit(r, &ocr_custom_form, &c);
    OCR_CALL_END(r, st);
    return st;
}

ocr_status ocr_reducer_reduce_custom_into(ocr_reducer *r, cl_command_queue q, uint64_t n,
                                          const ocr_custom_value *args, cl_mem result_buf,
                                          size_t result_offset, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done) {
    ocr_call c = {q,    num_wait,   wait,          NULL, 0,
                  n,    result_buf, result_offset, 1,    args ? args : &no_args,
                  NULL, done};
    return ocr_call_run(r, __func__, &ocr_custom_form, &c);
}

size_t ocr_reducer_custom_size(const ocr_reducer *r) {
    if (ocr_reducer_enter_quiet(r)) return 0;
    size_t s = cust(r) ? cust(r)->acc_size : 0;
    ocr_reducer_leave(r);
    return s;
}
