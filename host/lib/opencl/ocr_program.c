/* ocr_program.c - build a kernel: compile its expanded source
 * (ocr_source.c) with the geometry of ocr_geometry.c, report a failed build,
 * check a kernel file's signature, query what the built kernel needs, and
 * shrink the work-group until it fits. */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *ocr_build_log(cl_program prog, cl_device_id dev) {
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n)
        log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        log[n] = '\0';
    else if (log)
        log[0] = '\0';
    /* Drop trailing blank lines: the message ends the report. */
    for (size_t l = log ? strlen(log) : 0; l && (log[l - 1] == '\n' || log[l - 1] == ' ');)
        log[--l] = '\0';
    return log;
}

static void print_build_failure(cl_program prog, cl_device_id dev, const char *path,
                                const char *options) {
    char *log = ocr_build_log(prog, dev);
    ocr_errorf_begin("building %s failed", path);
    ocr_errprintf("  build options: %s\n"
                  "  build log:\n%s\n",
                  options, log && log[0] ? log : "  (the compiler left no log)");
    ocr_errorf_end();
    free(log);
}

/* CL_INVALID_BUILD_OPTIONS: the build never started, so the options are the
 * news, not a compiler log. One message. */
static void print_bad_options(cl_program prog, const ocr_device *dev, const char *path,
                              const char *options, const char *extra) {
    char *log = ocr_build_log(prog, dev->device);
    ocr_errorf_begin("%s rejected the build options for %s (CL_INVALID_BUILD_OPTIONS)",
                     dev->info.name, path);
    ocr_errprintf("  build options: %s\n", options);
    if (extra && *extra) ocr_errprintf("  of which added with --build-options: %s\n", extra);
    if (log && log[0]) ocr_errprintf("  the compiler says: %s\n", log);
    ocr_errorf_end();
    free(log);
}

/* One build attempt with the given local size. */
/* How a last group may read the other groups' values (reduce7_finish,
 * ocr_rk_first_finish): 1 with OpenCL 2.0/3.0 acquire-release atomics at
 * device scope (*std: the -cl-std option they need), 2 on NVIDIA's OpenCL
 * 1.2, whose global fences are device-wide, 0 (two launches) elsewhere or
 * when the caller's options choose the language version. */
#define OCR_ATOMIC_MEMORY_CAPABILITIES 0x1063 /* OpenCL 3.0 */
#define OCR_ATOMIC_ACQ_REL             (1u << 1)
#define OCR_ATOMIC_SCOPE_DEVICE        (1u << 5)
ocr_status ocr_finish_mode(const ocr_device *dev, const char *options, int *mode,
                           const char **std) {
    const ocr_device_info *in = &dev->info;
    ocr_status st = OCR_OK;
    int major = 0, minor = 0;
    *mode = 0;
    *std = "";
    if (options && strstr(options, "-cl-std")) return OCR_OK;
    /* oclgrind checks against OpenCL 1.2, where one group reading another's
     * partial is a race: it reports the finish as one (checked), so keep two
     * launches there. */
    if (strstr(in->platform, "Oclgrind")) return OCR_OK;
    if (sscanf(in->version, "OpenCL %d.%d", &major, &minor) != 2) return OCR_OK;
    if (major == 2) {
        *std = " -cl-std=CL2.0"; /* acq_rel and device scope are core in 2.x */
        *mode = 1;
        return OCR_OK;
    }
    if (major >= 3) {
        cl_bitfield caps = 0;
        OCR_CL(
            clGetDeviceInfo(dev->device, OCR_ATOMIC_MEMORY_CAPABILITIES, sizeof caps, &caps, NULL));
        if ((caps & OCR_ATOMIC_ACQ_REL) && (caps & OCR_ATOMIC_SCOPE_DEVICE)) {
            *std = " -cl-std=CL3.0";
            *mode = 1;
            return OCR_OK;
        }
    }
    if (strstr(in->vendor, "NVIDIA")) *mode = 2;
fail:
    return st;
}

/* reduce7's: a built-in per-grid kernel only (a user's file keeps its own). */
static ocr_status finish_mode(const ocr_device *dev, const ocr_build_request *rq, int *mode,
                              const char **std) {
    *mode = 0;
    *std = "";
    if (rq->spec.kind != OCR_PER_GRID || rq->kernel_file) return OCR_OK;
    return ocr_finish_mode(dev, rq->extra_options, mode, std);
}

/* 1 if the built program lists `name` among its kernels (CL_PROGRAM_KERNEL_NAMES:
 * a semicolon-separated list). Under oclgrind a kernel it cannot interpret is
 * refused as CL_INVALID_KERNEL_NAME although it is there. */
static int program_lists_kernel(cl_program p, const char *name) {
    char names[4096];
    size_t len = strlen(name);
    if (clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL) != CL_SUCCESS)
        return 0;
    for (const char *s = names; *s;) {
        size_t n = strcspn(s, ";");
        if (n == len && !strncmp(s, name, len)) return 1;
        s += n + (s[n] == ';');
    }
    return 0;
}

/* The -D options of the element type and operator (cl/reduce_common.h);
 * returns their length. argmin/argmax combine keys (ulong2) of the data's
 * values: the first pass reads the values (OCR_IN_T), `rest` the keys. */
static int type_options(const ocr_build_request *rq, const ocr_kernel *k, char *opts, size_t len) {
    const ocr_type t = rq->type;
    const ocr_type_traits *tr = ocr_type_traits_of(t);
    int fp64 = tr->needs_fp64 || ocr_type_traits_of(k->in_type)->needs_fp64, n;
    if (ocr_op_is_arg(rq->op)) {
        /* The value type V: the data's, but half's values arrive as floats
         * (vload_half: a half cannot be dereferenced without cl_khr_fp16),
         * whose order is the halves'. */
        static const char *const unsigned_of[9] = {NULL, "uchar", "ushort", NULL,   "uint",
                                                   NULL, NULL,    NULL,     "ulong"};
        const int half = t == OCR_HALF;
        n = snprintf(opts, len,
                     "-D OCR_T=ulong2 -D OCR_UT=ulong -D OCR_IS_FLOAT=0 -D OCR_OP=%d "
                     "-D OCR_IDENTITY=%s -D OCR_ARG_V=%s -D OCR_ARG_VU=%s -D OCR_ARG_VFLOAT=%d "
                     "-D OCR_ARG_VSIGNED=%d",
                     (int)rq->op, ocr_identity_source(t, rq->op), half ? "float" : tr->name,
                     half ? "uint" : unsigned_of[tr->size], tr->is_float, tr->is_signed);
        if (!k->keys_in)
            n += snprintf(opts + n, len - (size_t)n, " -D OCR_IN_T=%s%s", tr->name,
                          half ? " -D OCR_IN_HALF=1" : "");
    } else {
        n = snprintf(opts, len, "-D OCR_T=%s -D OCR_IS_FLOAT=%d -D OCR_OP=%d -D OCR_IDENTITY=%s",
                     tr->name, tr->is_float, (int)rq->op, ocr_identity_source(t, rq->op));
        if (tr->unsigned_twin)
            n += snprintf(opts + n, len - (size_t)n, " -D OCR_UT=%s", tr->unsigned_twin);
        if (k->in_type != t) /* reads another type (cl/reduce_common.h) */
            n += snprintf(opts + n, len - (size_t)n, " -D OCR_IN_T=%s%s", ocr_type_name(k->in_type),
                          k->in_type == OCR_HALF ? " -D OCR_IN_HALF=1" : "");
    }
    if (fp64) n += snprintf(opts + n, len - (size_t)n, " -D OCR_FP64=1");
    return n;
}

static ocr_status build_once(ocr_device *dev, ocr_kernel *k, const ocr_strbuf *source,
                             const ocr_build_request *rq, size_t local, size_t vec, int blocked,
                             int finish, const char *std) {
    ocr_status st = OCR_OK;
    cl_int err;
    const ocr_kernel_spec *sp = &rq->spec;
    char opts[1024];
    int n = type_options(rq, k, opts, sizeof opts);
    n += snprintf(opts + n, sizeof opts - (size_t)n, " -D LOCAL_SIZE=%zu", local);
    if (sp->kind == OCR_PER_GROUP)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK=%zu -D ELEMS_PER_GROUP=%zu",
                      sp->block, sp->block * sp->loads_per_slot);
    if (sp->kind == OCR_PER_GRID) {
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -D VEC=%zu -D UNROLL=%u -D OCR_BLOCKED=%d", vec,
                      rq->unroll ? rq->unroll : sp->grid.unroll, blocked);
        if (finish)
            n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_FINISH=%d%s", finish, std);
        if (rq->accurate)
            n += snprintf(opts + n, sizeof opts - (size_t)n, " -D OCR_ACCURATE=1%s",
                          k->keys_in ? " -D OCR_ACCURATE_IN=1" : "");
    }
    /* A user kernel's arguments are checked after the build (check_signature). */
    if (rq->kernel_file) n += snprintf(opts + n, sizeof opts - (size_t)n, " -cl-kernel-arg-info");
    if (rq->extra_options)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " %s", rq->extra_options);
    if (n <= 0 || (size_t)n >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    free(k->options);
    if (!(k->options = strdup(opts))) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }

    if (k->finish_kernel) clReleaseKernel(k->finish_kernel), k->finish_kernel = NULL;
    if (k->kernel) clReleaseKernel(k->kernel), k->kernel = NULL;
    ocr_program_put(k->program), k->program = NULL;
    /* Built once per context, device, source and options (ocr_program_cache.c).
     * With its length: a NUL byte in the file reaches the compiler, which says
     * so, instead of silently ending the source there. */
    const char *call;
    err = ocr_program_get(dev, source->s, source->len, opts, k->build_flags, &k->program, &call);
    if (err == CL_INVALID_BUILD_OPTIONS && k->program) {
        print_bad_options(k->program, dev, k->path, opts, rq->extra_options);
        return OCR_BUILD;
    }
    if (err != CL_SUCCESS && k->program)
        print_build_failure(k->program, dev->device, k->path, opts);
    OCR_CHECK(err, call);
    k->kernel = clCreateKernel(k->program, sp->name, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        if (program_lists_kernel(k->program, sp->name))
            ocr_errorf("%s: the OpenCL implementation could not create kernel '%s', which the "
                       "program does contain (see its own messages above)",
                       k->path, sp->name);
        else
            ocr_errorf("%s has no kernel named '%s'", k->path, sp->name);
        return OCR_BUILD;
    }
    OCR_CHECK(err, "clCreateKernel");
    if (sp->kind == OCR_PER_GRID && !rq->kernel_file) { /* an older reduce7.cl takes no offsets */
        cl_uint nargs = 0;
        OCR_CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
        k->offsets = nargs == 5;
    }
    if (finish) {
        k->finish_kernel = clCreateKernel(k->program, "reduce7_finish", &err);
        OCR_CHECK(err, "clCreateKernel");
    }
fail:
    return st;
}

/* What a --kernel-file kernel's arguments must be: one row per harness
 * (the reduction's, and a histogram's, OCR_KERNEL_HISTOGRAM), an argument
 * a column. T is the data's type. */
typedef enum { ARG_PTR_T, ARG_PTR_UINT, ARG_ULONG, ARG_UINT, ARG_FLOAT } arg_kind;
typedef struct {
    const char *role;
    arg_kind kind;
} arg_rule;
typedef struct {
    const char *signature, *starter;
    cl_uint nargs;
    arg_rule arg[6];
} signature_rule;

static const signature_rule reduction_signature = {
    "__kernel void %s(__global const T *in, __global T *out, const ulong n)",
    "docs/labs/starter.cl",
    3,
    {{"argument 0 (the input)", ARG_PTR_T},
     {"argument 1 (the output)", ARG_PTR_T},
     {"argument 2 (n)", ARG_ULONG}}};
static const signature_rule histogram_signature = {
    "__kernel void %s(__global const T *in, const ulong n, __global uint *counts, const uint "
    "bins, const float lo, const float hi)",
    "docs/labs/histogram_starter.cl",
    6,
    {{"argument 0 (the input)", ARG_PTR_T},
     {"argument 1 (n)", ARG_ULONG},
     {"argument 2 (the counts)", ARG_PTR_UINT},
     {"argument 3 (bins)", ARG_UINT},
     {"argument 4 (lo)", ARG_FLOAT},
     {"argument 5 (hi)", ARG_FLOAT}}};

static const signature_rule *signature_of(const ocr_build_request *rq) {
    return rq->spec.caps & OCR_KERNEL_HISTOGRAM ? &histogram_signature : &reduction_signature;
}

/* One message for a kernel file whose arguments do not fit the harness. */
static ocr_status bad_signature(const ocr_kernel *k, const char *name, const char *what,
                                const ocr_build_request *rq) {
    const signature_rule *sg = signature_of(rq);
    ocr_errorf_begin("%s: kernel '%s' does not fit the harness: %s.", k->path, name, what);
    char sig[256];
    snprintf(sig, sizeof sig, sg->signature, name);
    ocr_errprintf("  Its signature must be %s\n"
                  "  (T is the element type, %s here; see %s)\n",
                  sig, ocr_type_name(rq->type), sg->starter);
    ocr_errorf_end();
    return OCR_BUILD;
}

static const char *qualifier_name(cl_kernel_arg_address_qualifier q) {
    switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        return "__global";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return "__constant";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return "__local";
    default:
        return "a value (private)";
    }
}

/* The scalar type a (pointer or vector) type name is made of, if it is a
 * built-in one: "float4*" -> "float"; NULL for typedef names we cannot see
 * through. */
static const char *scalar_of(const char *tname, char *buf, size_t len) {
    static const char *const scalars[] = {"char", "uchar", "short", "ushort", "int",   "uint",
                                          "long", "ulong", "half",  "float",  "double"};
    size_t n = strcspn(tname, "0123456789* ");
    if (n >= len) return NULL;
    memcpy(buf, tname, n);
    buf[n] = '\0';
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; ++i)
        if (!strcmp(buf, scalars[i])) return buf;
    return NULL;
}

/* What an argument of each kind must be: its description, the scalar types
 * it may name (a signed twin where the host's value fits either), its size
 * by value (0: a pointer). */
static const struct {
    const char *must;
    const char *scalar[2];
    size_t size;
} arg_kinds[] = {[ARG_PTR_T] = {"a __global pointer", {NULL, NULL}, 0},
                 [ARG_PTR_UINT] = {"a __global pointer", {"uint", "int"}, 0},
                 [ARG_ULONG] = {"a ulong value", {"ulong", "long"}, 8},
                 [ARG_UINT] = {"a uint value", {"uint", "int"}, 4},
                 [ARG_FLOAT] = {"a float value", {"float", NULL}, 4}};

/* The address space and type name of argument i, where the device keeps
 * argument information: what[0] stays '\0' if it fits (or cannot be told),
 * else it says why not; *known = 0 where the device keeps none. */
static ocr_status check_arg(ocr_kernel *k, const ocr_build_request *rq, cl_uint i,
                            const arg_rule *a, char *what, size_t len, int *known) {
    ocr_status st = OCR_OK;
    char tname[128], sbuf[32];
    cl_kernel_arg_address_qualifier q = 0;
    const int ptr = arg_kinds[a->kind].size == 0;
    cl_int e =
        clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, NULL);
    what[0] = '\0';
    if (e == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) return *known = 0, OCR_OK;
    OCR_CHECK(e, "clGetKernelArgInfo");
    int ok = !ptr ? q == CL_KERNEL_ARG_ADDRESS_PRIVATE
                  : q == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
                        (a->kind == ARG_PTR_T && i == 0 && q == CL_KERNEL_ARG_ADDRESS_CONSTANT);
    if (!ok) {
        snprintf(what, len, "%s is %s; it must be %s", a->role, qualifier_name(q),
                 arg_kinds[a->kind].must);
        return OCR_OK;
    }
    e = clGetKernelArgInfo(k->kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof tname, tname, NULL);
    if (e == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) return OCR_OK;
    OCR_CHECK(e, "clGetKernelArgInfo");
    const char *sc = scalar_of(tname, sbuf, sizeof sbuf);
    if (!sc) return OCR_OK; /* a typedef name: the size check below still runs */
    /* Pointers to T may point to vectors of T; the others name their scalar. */
    if (a->kind == ARG_PTR_T) {
        if (strcmp(sc, ocr_type_name(rq->type)) != 0)
            snprintf(what, len, "%s is %s, but the data are %s (--type)", a->role, tname,
                     ocr_type_name(rq->type));
        return OCR_OK;
    }
    const char *const *want = arg_kinds[a->kind].scalar;
    if ((strcmp(sc, want[0]) && (!want[1] || strcmp(sc, want[1]))) ||
        (!ptr && strchr(tname, '*')) || (ptr && isdigit((unsigned char)tname[strlen(sc)])))
        snprintf(what, len, "%s is %s; it must be %s%s", a->role, tname, ptr ? "__global " : "",
                 ptr ? "uint *" : want[0]);
fail:
    return st;
}

/*
 * A --kernel-file kernel gets the arguments of its harness (signature_of).
 * Checked after the build, so a wrong signature is named as such instead of
 * ending in a raw clSetKernelArg error: the argument count always; the
 * address spaces and types where the device keeps argument information (it
 * may not: CL_KERNEL_ARG_INFO_NOT_AVAILABLE); the size of each value by
 * setting it.
 */
static ocr_status check_signature(ocr_kernel *k, const ocr_build_request *rq) {
    ocr_status st = OCR_OK;
    const signature_rule *sg = signature_of(rq);
    const char *name = rq->spec.name;
    char what[256];
    cl_uint nargs = 0;
    int known = 1;
    OCR_CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
    if (nargs != sg->nargs) {
        snprintf(what, sizeof what, "it takes %u argument%s, not %u", nargs, nargs == 1 ? "" : "s",
                 sg->nargs);
        return bad_signature(k, name, what, rq);
    }
    for (cl_uint i = 0; i < sg->nargs && known; ++i) {
        if ((st = check_arg(k, rq, i, &sg->arg[i], what, sizeof what, &known)) != OCR_OK) return st;
        if (what[0]) return bad_signature(k, name, what, rq);
    }
    /* Without argument information: each value's size at least (a uint n
     * would read half of the value the host passes). */
    for (cl_uint i = 0; i < sg->nargs; ++i) {
        size_t size = arg_kinds[sg->arg[i].kind].size;
        cl_ulong zero = 0;
        if (!size) continue;
        cl_int e = clSetKernelArg(k->kernel, i, size, &zero);
        if (e == CL_INVALID_ARG_SIZE || e == CL_INVALID_ARG_VALUE || e == CL_INVALID_MEM_OBJECT ||
            e == CL_INVALID_SAMPLER) {
            snprintf(what, sizeof what, "%s is not a %zu-bit value (%s)", sg->arg[i].role, size * 8,
                     ocr_cl_error_name(e));
            return bad_signature(k, name, what, rq);
        }
        OCR_CHECK(e, "clSetKernelArg");
    }
fail:
    return st;
}

/* What the built kernel needs, as the device reports it. */
static ocr_status query_resources(const ocr_device *dev, ocr_kernel *k) {
    ocr_status st = OCR_OK;
    ocr_kernel_resources *r = &k->res;
    size_t wg = 0, mult = 0, req[3] = {0, 0, 0};
    cl_ulong lmem = 0, pmem = 0;
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                    &wg, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device,
                                    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult,
                                    &mult, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem,
                                    &lmem, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem,
                                    &pmem, NULL));
    OCR_CL(clGetKernelWorkGroupInfo(k->kernel, dev->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                    sizeof req, req, NULL));
    r->work_group_size = wg;
    r->preferred_multiple = mult;
    r->local_mem = lmem;
    r->private_mem = pmem;
    r->required_size = req[0];
fail:
    return st;
}

/* reduce7_finish's own buffers: the ticket counter (zero; each launch's last
 * group leaves it zero again) and one value per group. Kept out of the
 * caller's scratch, so every pass enqueues the same first arguments. */
static ocr_status setup_finish(ocr_device *dev, ocr_kernel *k, size_t local) {
    ocr_status st = OCR_OK;
    cl_int err;
    size_t wg = 0;
    OCR_CL(clGetKernelWorkGroupInfo(k->finish_kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof wg, &wg, NULL));
    if (wg < local) { /* the finish needs more registers than reduce7: launch twice */
        clReleaseKernel(k->finish_kernel), k->finish_kernel = NULL;
        return OCR_OK;
    }
    cl_uint zero = 0;
    k->finish_ticket = clCreateBuffer(dev->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                      sizeof zero, &zero, &err);
    OCR_CHECK(err, "clCreateBuffer");
    k->finish_partial =
        clCreateBuffer(dev->context, CL_MEM_READ_WRITE,
                       (size_t)k->geom.max_groups * (k->geom.accurate ? OCR_ACCURATE_PARTS : 1) *
                           ocr_acc_size(k->type, k->op),
                       NULL, &err);
    OCR_CHECK(err, "clCreateBuffer");
    cl_uint at = k->offsets ? 5 : 3; /* after in, out, n and the offsets */
    OCR_CL(clSetKernelArg(k->finish_kernel, at, sizeof(cl_mem), &k->finish_ticket));
    OCR_CL(clSetKernelArg(k->finish_kernel, at + 1, sizeof(cl_mem), &k->finish_partial));
    k->geom.finishes = 1;
    /* for a value read right after; the reducer's async calls lift it */
    k->geom.finish_max_groups = OCR_FINISH_READ_MAX_GROUPS;
fail:
    return st;
}

ocr_status ocr_kernel_build(ocr_device *dev, const ocr_build_request *rq, ocr_kernel **out) {
    ocr_last_error_clear();
    return ocr_kernel_build_ex(dev, rq, 0, rq->type, out);
}

/* --- the build: compile, query, and shrink the work-group if needed ------- */

/* Builds until the compiled kernel accepts p->local work-items, checking
 * what it reports against the device. */
static ocr_status build_fitted(ocr_device *dev, ocr_kernel *k, const ocr_strbuf *src,
                               const ocr_build_request *rq, int finish, const char *std,
                               ocr_launch_policy *p) {
    ocr_status st;
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    for (;;) {
        st = build_once(dev, k, src, rq, p->local, p->vec, p->blocked, finish, std);
        if (st != OCR_OK) return st;
        if (p->user && (st = check_signature(k, rq)) != OCR_OK) return st;
        if ((st = query_resources(dev, k)) != OCR_OK) return st;
        const ocr_kernel_resources *r = &k->res;
        if (r->local_mem > in->local_mem) {
            ocr_errorf("%s uses %llu bytes of local memory per work-group "
                       "(CL_KERNEL_LOCAL_MEM_SIZE); %s has %llu (CL_DEVICE_LOCAL_MEM_SIZE)",
                       sp->name, (unsigned long long)r->local_mem, in->name,
                       (unsigned long long)in->local_mem);
            return OCR_RUNTIME;
        }
        if (r->required_size && r->required_size != p->local) {
            ocr_errorf("%s requires work-groups of %zu (reqd_work_group_size), but runs with %zu: "
                       "use LOCAL_SIZE in the attribute%s",
                       sp->name, r->required_size, p->local,
                       p->user_local ? "" : ", or --local-size");
            return OCR_RUNTIME;
        }
        if (p->local <= r->work_group_size) return OCR_OK;
        /* The compiled kernel allows fewer work-items than we asked for (too
         * many registers, say): shrink, unless the user fixed the size. */
        if (p->user_local || r->work_group_size == 0) {
            ocr_errorf("%s cannot run %s with work-groups of %zu: the compiled kernel allows %zu "
                       "(CL_KERNEL_WORK_GROUP_SIZE)%s",
                       in->name, sp->name, p->local, r->work_group_size,
                       p->user_local ? "; try a smaller --local-size" : "");
            return OCR_RUNTIME;
        }
        p->local = ocr_floor_pow2(r->work_group_size);
    }
}

/* argmin/argmax: the kernel again, reading keys, in the first build's
 * geometry: k->rest, which runs every pass after the first. An accurate sum's
 * reads the groups' accumulators (OCR_ACCURATE_IN) the same way. */
static ocr_status build_rest(ocr_device *dev, const ocr_build_request *rq, int flags,
                             ocr_kernel *k) {
    ocr_build_request again = *rq;
    again.local_size = k->geom.local_size;
    again.groups = k->geom.max_groups;
    return ocr_kernel_build_ex(dev, &again, flags | OCR_BUILD_KEYS_IN, rq->type, &k->rest);
}

/* What cannot be built at all, before anything is. */
static ocr_status refuse(const ocr_device *dev, const ocr_build_request *rq, ocr_type input,
                         int user, int flags) {
    if ((ocr_type_traits_of(rq->type)->needs_fp64 || ocr_type_traits_of(input)->needs_fp64) &&
        !dev->info.fp64) {
        ocr_errorf("%s does not support double precision (no cl_khr_fp64): use another --type or "
                   "device",
                   dev->info.name);
        return OCR_RUNTIME;
    }
    if (ocr_op_is_arg(rq->op) && (user || !(rq->spec.caps & OCR_KERNEL_ARG) || input != rq->type)) {
        ocr_errorf("%s cannot find %s: it needs a built-in kernel that keeps indices (%s)",
                   user ? rq->kernel_file : rq->spec.name, ocr_op_name(rq->op),
                   input != rq->type ? "and no widening" : "--list-kernels");
        return OCR_USAGE;
    }
    return flags & OCR_BUILD_OWN_OPTIONS ? OCR_OK : ocr_build_options_check(rq->extra_options);
}

/* An accurate sum: a kernel that has the mode, a float sum, and build
 * options that keep float additions in order. */
static ocr_status check_accurate(const ocr_build_request *rq) {
    if (!rq->accurate) return OCR_OK;
    if (rq->kernel_file || !(rq->spec.caps & OCR_KERNEL_ACCURATE)) {
        ocr_errorf("an accurate sum needs reduce7 (a kernel with OCR_KERNEL_ACCURATE), not %s",
                   rq->kernel_file ? rq->kernel_file : rq->spec.name);
        return OCR_USAGE;
    }
    if (rq->op != OCR_SUM || !ocr_type_is_float(rq->type)) {
        ocr_errorf("an accurate sum is a float or double sum, not %s %s", ocr_type_name(rq->type),
                   ocr_op_name(rq->op));
        return OCR_USAGE;
    }
    return ocr_build_options_check_accurate(rq->extra_options);
}

/* A request for a storage type (char .. half): what it cannot do, refused
 * before any build. argmin/argmax take them (their keys are made from the
 * values as loaded); the rest of the build is theirs (ocr_kernel_build_ex). */
static ocr_status refuse_small(const ocr_build_request *rq, int user) {
    const char *ty = ocr_type_name(rq->type);
    if (user || !(rq->spec.caps & OCR_KERNEL_SMALL)) {
        ocr_errorf("%s cannot read %s data: small types need a built-in kernel that converts "
                   "them as it loads them (OCR_KERNEL_SMALL: reduce0..reduce7)",
                   user ? rq->kernel_file : rq->spec.name, ty);
        return OCR_USAGE;
    }
    if (!ocr_op_valid_for(rq->op, rq->type)) {
        ocr_errorf("%s needs integers, not %s", ocr_op_name(rq->op), ty);
        return OCR_USAGE;
    }
    if (rq->accurate) {
        ocr_errorf("an accurate sum is a float or double sum, not of %s data", ty);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* Storage types: the first pass reads them (OCR_IN_T) and combines in the
 * accumulator, `rest` (the same kernel in the same geometry, reading the
 * accumulator) runs every later pass, as for argmin/argmax's keys. */
static ocr_status build_small(ocr_device *dev, const ocr_build_request *rq, int flags,
                              ocr_kernel **out) {
    ocr_status st;
    ocr_kernel *k = NULL;
    ocr_build_request w = *rq;
    *out = NULL;
    if ((st = refuse_small(rq, !(flags & OCR_BUILD_EMBEDDED) && rq->kernel_file)) != OCR_OK)
        return st;
    w.type = ocr_type_accumulator(rq->type);
    if ((st = ocr_kernel_build_ex(dev, &w, flags, rq->type, &k)) != OCR_OK) return st;
    w.local_size = k->geom.local_size;
    w.groups = k->geom.max_groups;
    if ((st = ocr_kernel_build_ex(dev, &w, flags, w.type, &k->rest)) != OCR_OK) {
        ocr_kernel_release(k);
        return st;
    }
    *out = k;
    return OCR_OK;
}

ocr_status ocr_kernel_build_ex(ocr_device *dev, const ocr_build_request *rq, int flags,
                               ocr_type input, ocr_kernel **out) {
    ocr_status st = OCR_OK;
    *out = NULL;
    /* beyond them, buffers sized from the geometry could overflow */
    if (rq->local_size > OCR_MAX_LOCAL_SIZE || rq->groups > OCR_MAX_GROUPS) {
        ocr_errorf("work-group size %zu and %zu groups: at most %zu and %zu (OCR_MAX_LOCAL_SIZE, "
                   "OCR_MAX_GROUPS)",
                   rq->local_size, rq->groups, OCR_MAX_LOCAL_SIZE, OCR_MAX_GROUPS);
        return OCR_USAGE;
    }
    if (ocr_type_is_storage(rq->type) && !ocr_op_is_arg(rq->op))
        return build_small(dev, rq, flags, out);
    /* argmin/argmax on a storage type: keys of its values, no accumulator */
    if (ocr_type_is_storage(rq->type)) {
        ocr_status sst = refuse_small(rq, !(flags & OCR_BUILD_EMBEDDED) && rq->kernel_file);
        if (sst != OCR_OK) return sst;
    }
    ocr_strbuf src = {NULL, 0, 0};
    ocr_launch_policy pol;
    const char *std;
    int finish;
    const int embedded = flags & OCR_BUILD_EMBEDDED;
    const int user = !embedded && rq->kernel_file; /* a kernel under test: nothing known before */
    ocr_kernel *k = calloc(1, sizeof *k);
    *out = NULL;
    if (!k) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    k->build_flags = flags & ~(OCR_BUILD_KEYS_IN | OCR_BUILD_OWN_OPTIONS | OCR_BUILD_FIRST_ONLY);
    k->keys_in = (flags & OCR_BUILD_KEYS_IN) != 0;
    k->type = rq->type;
    k->in_type = input;
    k->op = rq->op;
    if ((st = refuse(dev, rq, input, user, flags)) != OCR_OK || (st = check_accurate(rq)) != OCR_OK)
        goto fail;
    if ((st = ocr_source_load(dev, rq, embedded, k, &src)) != OCR_OK) goto fail;
    if ((st = ocr_geometry_policy(dev, rq, user, input, &pol)) != OCR_OK) goto fail;
    if ((st = finish_mode(dev, rq, &finish, &std)) != OCR_OK) goto fail;
    if ((st = build_fitted(dev, k, &src, rq, finish, std, &pol)) != OCR_OK) goto fail;
    ocr_geometry_set(dev, rq, &pol, k);
    if (finish && (st = setup_finish(dev, k, pol.local)) != OCR_OK) goto fail;
    if ((ocr_op_is_arg(rq->op) || rq->accurate) && !k->keys_in && !(flags & OCR_BUILD_FIRST_ONLY) &&
        (st = build_rest(dev, rq, flags, k)) != OCR_OK)
        goto fail;
    /* accurate: the CPU finishes the first pass's accumulators */
    k->default_m = rq->spec.default_m
                       ? rq->spec.default_m
                       : k->geom.max_groups * (k->geom.accurate ? OCR_ACCURATE_PARTS : 1);
    free(src.s);
    *out = k;
    return OCR_OK;
fail:
    free(src.s);
    ocr_kernel_release(k);
    return st;
}

void ocr_kernel_release(ocr_kernel *k) {
    if (!k) return;
    ocr_kernel_release(k->rest);
    if (k->finish_partial) clReleaseMemObject(k->finish_partial);
    if (k->finish_ticket) clReleaseMemObject(k->finish_ticket);
    if (k->finish_kernel) clReleaseKernel(k->finish_kernel);
    if (k->kernel) clReleaseKernel(k->kernel);
    ocr_program_put(k->program);
    free(k->path);
    free(k->options);
    free(k);
}

const ocr_geometry *ocr_kernel_geometry(const ocr_kernel *k) {
    return &k->geom;
}
const char *ocr_kernel_path(const ocr_kernel *k) {
    return k->path;
}
const char *ocr_kernel_options(const ocr_kernel *k) {
    return k->options;
}
uint64_t ocr_kernel_default_m(const ocr_kernel *k) {
    return k->default_m;
}
const ocr_kernel_resources *ocr_kernel_get_resources(const ocr_kernel *k) {
    return &k->res;
}
