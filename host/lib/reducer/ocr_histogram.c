/* ocr_histogram.c - histograms of a caller's buffer (ocr_reducer_histogram,
 * ocr_reducer_histogram_host): a call form of the reducer's pipeline
 * (ocr_call.c), one row. The kernels are cl/histogram.cl, built on the first
 * call of each combination (kind, weights, counts, variant) with the
 * reducer's sample type and options, through the program cache. Counts are
 * privatised per group in local memory and written as rows, which
 * hist_merge adds in order (no 64-bit atomics needed); bins that do not fit
 * in local memory are counted with global atomics into a 32-bit scratch
 * row, in chunks of fewer than 2^32 samples. Prints nothing. */
#include "ocr_reducer_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tunable constants: the one home of each ---------------------------- */
#define HIST_GPU_LOCAL     256           /* work-items of a GPU group */
#define HIST_GROUPS_PER_CU 4             /* groups per compute unit (a GPU's latency hiding) */
#define HIST_ROWS_MAX      (64u << 20)   /* bytes of partial rows at most */
#define HIST_CHUNK_MAX     0xffffffffull /* samples a 32-bit count may see */
#define HIST_VEC_BYTES     16            /* bytes of a vector load (HIST_VEC samples) */
#define HIST_CONFIGS       8             /* built kernel sets kept per reducer */

/* One built combination: its kernels (from one program). */
typedef struct {
    char key[96];
    ocr_kernel *k;                    /* hist_local; its program holds the other two */
    cl_kernel global, zero, merge[2]; /* hist_global, hist_zero, hist_merge32, _64 */
} hist_build;

typedef struct {
    hist_build b[HIST_CONFIGS];
    size_t nb;
    cl_mem rows, host; /* partial rows; the blocking call's counts */
    size_t rows_size, host_size;
    int int64_atomics; /* the device has cl_khr_int64_base_atomics */
} hist_state;

/* What check() worked out for enqueue(). */
typedef struct {
    const ocr_histogram_spec *in; /* the caller's */
    ocr_histogram_spec sp;        /* ... read with the size rule */
    size_t es;                    /* bytes of an output element */
    size_t rs;                    /* bytes of a row element (uint, or the weights') */
    ocr_type bt;                  /* the type bins are computed in (even) */
    int local;                    /* privatised (else global atomics) */
    int raw;                      /* one-byte samples counted by value (HIST_RAW) */
    int agg;                      /* runs aggregated */
    hist_build *b;
} hist_args;

/* ---- the spec ----------------------------------------------------------------- */

static int is_int_type(ocr_type t) {
    return !ocr_type_traits_of(t)->is_float;
}

/* The type even bins are computed in: float for the small types and float,
 * double for the 32- and 64-bit integers and double. */
static ocr_type bin_type(ocr_type in) {
    return in == OCR_INT || in == OCR_UINT || in == OCR_LONG || in == OCR_ULONG || in == OCR_DOUBLE
               ? OCR_DOUBLE
               : OCR_FLOAT;
}

static ocr_status spec_read(const ocr_histogram_spec *spec, ocr_histogram_spec *sp) {
    memset(sp, 0, sizeof *sp);
    if (!spec) {
        ocr_errorf("the histogram spec must not be NULL");
        return OCR_USAGE;
    }
    ocr_status st = ocr_sized_read(spec, spec->size ? spec->size : sizeof *spec, sizeof *spec,
                                   "ocr_histogram_spec", sp);
    sp->size = sizeof *sp;
    return st;
}

size_t ocr_histogram_element_size(const ocr_histogram_spec *spec) {
    ocr_histogram_spec sp;
    if (!spec || spec->size > sizeof sp) return 0;
    memset(&sp, 0, sizeof sp);
    memcpy(&sp, spec, spec->size ? spec->size : sizeof sp);
    if (sp.weights) return sp.weights_type == OCR_DOUBLE ? 8 : sp.weights_type == OCR_FLOAT ? 4 : 0;
    return sp.count_bits == 32 ? 4 : sp.count_bits == 0 || sp.count_bits == 64 ? 8 : 0;
}

/* The spec's own rules (the buffers are checked in check_call). */
static ocr_status spec_check(const ocr_reducer *r, const ocr_histogram_spec *sp, uint64_t n) {
    if (sp->kind > OCR_HIST_BINCOUNT || sp->method >= OCR_HIST_NMETHODS) {
        ocr_errorf("histogram: kind %d or method %d out of range", (int)sp->kind, (int)sp->method);
        return OCR_USAGE;
    }
    if (sp->bins == 0 || sp->bins >= 0xffffffffull) {
        ocr_errorf("histogram: bins must be 1 .. 2^32 - 2 (bins %llu)",
                   (unsigned long long)sp->bins);
        return OCR_USAGE;
    }
    if (sp->kind == OCR_HIST_BINCOUNT && !is_int_type(r->in_type)) {
        ocr_errorf("histogram: bincount counts integers, not %s samples",
                   ocr_type_name(r->in_type));
        return OCR_USAGE;
    }
    if (sp->kind == OCR_HIST_EVEN) {
        double scale = bin_type(r->in_type) == OCR_FLOAT
                           ? (double)((float)sp->bins / ((float)sp->upper - (float)sp->lower))
                           : (double)sp->bins / (sp->upper - sp->lower);
        if (!isfinite(sp->lower) || !isfinite(sp->upper) || !(sp->lower < sp->upper) ||
            !isfinite(scale) || !(scale > 0) ||
            (bin_type(r->in_type) == OCR_FLOAT && !((float)sp->lower < (float)sp->upper))) {
            ocr_errorf("histogram: the range [%g, %g] must be finite with lower < upper (and "
                       "bins / (upper - lower) finite in %s)",
                       sp->lower, sp->upper, ocr_type_name(bin_type(r->in_type)));
            return OCR_USAGE;
        }
    }
    if (sp->kind == OCR_HIST_EDGES && sp->edges_type != OCR_FLOAT && sp->edges_type != OCR_DOUBLE) {
        ocr_errorf("histogram: edges must be float or double, not %s",
                   ocr_type_name(sp->edges_type));
        return OCR_USAGE;
    }
    if (sp->weights) {
        if (sp->weights_type != OCR_FLOAT && sp->weights_type != OCR_DOUBLE) {
            ocr_errorf("histogram: weights must be float or double, not %s",
                       ocr_type_name(sp->weights_type));
            return OCR_USAGE;
        }
        if (sp->count_bits) {
            ocr_errorf("histogram: with weights the sums are of the weights' type: count_bits "
                       "must be 0 (it is %u)",
                       sp->count_bits);
            return OCR_USAGE;
        }
    } else if (sp->count_bits != 0 && sp->count_bits != 32 && sp->count_bits != 64) {
        ocr_errorf("histogram: count_bits must be 0, 32 or 64 (it is %u)", sp->count_bits);
        return OCR_USAGE;
    } else if (sp->count_bits == 32 && n > HIST_CHUNK_MAX) {
        ocr_errorf("histogram: %llu samples could overflow 32-bit counts: take count_bits 64",
                   (unsigned long long)n);
        return OCR_USAGE;
    }
    return OCR_OK;
}

/* ---- the buffers ---------------------------------------------------------------- */

/* elements [at, at + count) of `es` bytes lie within m (a buffer of r's context). */
static ocr_status within(const ocr_reducer *r, cl_mem m, const char *what, uint64_t at,
                         uint64_t count, size_t es) {
    size_t size = 0;
    ocr_status st = ocr_reducer_buffer_size(r, m, what, &size);
    if (st != OCR_OK) return st;
    uint64_t have = size / es;
    if (at <= have && count <= have - at) return OCR_OK;
    ocr_errorf("histogram: %s holds %llu elements of %zu bytes, fewer than %llu + %llu", what,
               (unsigned long long)have, es, (unsigned long long)at, (unsigned long long)count);
    return OCR_USAGE;
}

static ocr_status apart(cl_mem out, uint64_t out_at, uint64_t out_len, cl_mem in, uint64_t in_at,
                        uint64_t in_len, const char *what) {
    int overlap = 0;
    ocr_status st = ocr_mem_overlap(out, out_at, out_len, in, in_at, in_len, &overlap);
    if (st == OCR_OK && overlap) {
        ocr_errorf("histogram: the counts buffer overlaps %s (the same memory); pass another "
                   "buffer, or offsets that keep them apart",
                   what);
        st = OCR_USAGE;
    }
    return st;
}

static ocr_status check_buffers(const ocr_reducer *r, const ocr_call *c, const hist_args *a) {
    const ocr_histogram_spec *sp = &a->sp;
    ocr_status st;
    size_t ees = sp->edges_type == OCR_DOUBLE ? 8 : 4, wes = sp->weights_type == OCR_DOUBLE ? 8 : 4;
    uint64_t out_at = (uint64_t)c->result_offset * a->es, out_len = sp->bins * a->es;
    if ((st = within(r, c->buf, "the input buffer", c->offset, c->n, r->in_es)) != OCR_OK ||
        (st = within(r, c->result, "the counts buffer", c->result_offset, sp->bins, a->es)) !=
            OCR_OK ||
        (st = apart(c->result, out_at, out_len, c->buf, c->offset * r->in_es, c->n * r->in_es,
                    "the samples")) != OCR_OK)
        return st;
    if (sp->kind == OCR_HIST_EDGES &&
        ((st = within(r, sp->edges, "the edges buffer", sp->edges_offset, sp->bins + 1, ees)) !=
             OCR_OK ||
         (st = apart(c->result, out_at, out_len, sp->edges, sp->edges_offset * ees,
                     (sp->bins + 1) * ees, "the edges")) != OCR_OK))
        return st;
    if (sp->weights &&
        ((st = within(r, sp->weights, "the weights buffer", sp->weights_offset, c->n, wes)) !=
             OCR_OK ||
         (st = apart(c->result, out_at, out_len, sp->weights, sp->weights_offset * wes, c->n * wes,
                     "the weights")) != OCR_OK))
        return st;
    return OCR_OK;
}

/* ---- the kernels ------------------------------------------------------------------ */

static const char *cl_name(ocr_type t) {
    return ocr_type_name(t);
}

/* Samples a load of the privatised kernels reads (HIST_VEC): a vector of
 * HIST_VEC_BYTES for unweighted even bins and bincount of a type read as
 * itself (not half, read through vload_half), else 1. */
static int hist_vec(const ocr_reducer *r, const ocr_histogram_spec *sp) {
    if (sp->weights || sp->kind == OCR_HIST_EDGES || r->in_type == OCR_HALF) return 1;
    return HIST_VEC_BYTES / (int)ocr_type_size(r->in_type);
}

static ocr_status build(ocr_reducer *r, hist_state *s, hist_args *a) {
    const ocr_histogram_spec *sp = &a->sp;
    char key[96], opts[1024];
    ocr_status st = OCR_OK;
    ocr_type wt = sp->weights ? sp->weights_type : OCR_UINT;
    ocr_type et = sp->kind == OCR_HIST_EDGES ? sp->edges_type : OCR_FLOAT;
    int fp64 = a->bt == OCR_DOUBLE || et == OCR_DOUBLE || (sp->weights && wt == OCR_DOUBLE);
    int vec = hist_vec(r, sp);
    snprintf(key, sizeof key, "%d %d %d %d %d", (int)sp->kind, sp->weights ? (int)wt : -1, (int)et,
             vec, a->raw);
    for (size_t i = 0; i < s->nb; ++i)
        if (!strcmp(s->b[i].key, key)) {
            a->b = &s->b[i];
            return OCR_OK;
        }
    if (fp64 && !ocr_device_get_info(&r->dev)->fp64) {
        ocr_errorf("histogram: this one computes in double, which the device does not support "
                   "(no cl_khr_fp64)");
        return OCR_RUNTIME;
    }
    if (sp->weights && wt == OCR_DOUBLE && !s->int64_atomics) {
        ocr_errorf("histogram: double weights need 64-bit atomics (cl_khr_int64_base_atomics), "
                   "which the device does not have: take float weights");
        return OCR_RUNTIME;
    }
    int len = snprintf(opts, sizeof opts,
                       "-D HIST_KIND=%d -D HIST_BT=%s -D HIST_ET=%s -D HIST_W=%d "
                       "-D HIST_WT=%s -D HIST_WT_DOUBLE=%d -D HIST_HALF=%d -D HIST_SIGNED=%d "
                       "-D HIST_NEED_FP64=%d -D HIST_VEC=%d -D HIST_RAW=%d "
                       "-D HIST_VT=%s%d%s%s",
                       (int)sp->kind, cl_name(a->bt), cl_name(et), sp->weights != NULL,
                       cl_name(sp->weights ? wt : OCR_FLOAT), sp->weights && wt == OCR_DOUBLE,
                       r->in_type == OCR_HALF, ocr_type_traits_of(r->in_type)->is_signed, fp64, vec,
                       a->raw, cl_name(r->in_type), vec, r->build_options ? " " : "",
                       r->build_options ? r->build_options : "");
    if (len < 0 || (size_t)len >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    if (s->nb == HIST_CONFIGS) { /* full: start over (a rare mix of many kinds) */
        for (size_t i = 0; i < s->nb; ++i) {
            clReleaseKernel(s->b[i].global), clReleaseKernel(s->b[i].zero),
                clReleaseKernel(s->b[i].merge[0]), clReleaseKernel(s->b[i].merge[1]);
            ocr_kernel_release(s->b[i].k);
        }
        s->nb = 0;
    }
    ocr_build_request rq = {
        .spec = {"hist_local",
                 "histogram.cl",
                 OCR_PER_GROUP,
                 ocr_reducer_on_cpu(r) ? 1 : HIST_GPU_LOCAL,
                 0,
                 1,
                 0,
                 "a histogram",
                 {0, 0, 0, 0},
                 OCR_KERNEL_SMALL},
        .kernel_dir = r->kernel_dir,
        .type = ocr_type_accumulator(r->in_type), /* the input read as OCR_IN_T */
        .op = OCR_SUM,
        .local_size = r->local_size,
        .extra_options = opts,
    };
    int flags =
        (r->kernel_dir ? 0 : OCR_BUILD_EMBEDDED) | OCR_REDUCER_BUILD | OCR_BUILD_OWN_OPTIONS;
    hist_build *b = &s->b[s->nb];
    cl_int err = CL_SUCCESS;
    st = ocr_kernel_build_ex(&r->dev, &rq, flags, r->in_type, &b->k);
    if (st != OCR_OK) return st;
    b->global = clCreateKernel(b->k->program, "hist_global", &err);
    OCR_CHECK(err, "clCreateKernel(hist_global)");
    b->zero = clCreateKernel(b->k->program, "hist_zero", &err);
    OCR_CHECK(err, "clCreateKernel(hist_zero)");
    b->merge[0] = clCreateKernel(b->k->program, "hist_merge32", &err);
    OCR_CHECK(err, "clCreateKernel(hist_merge32)");
    b->merge[1] = clCreateKernel(b->k->program, "hist_merge64", &err);
    OCR_CHECK(err, "clCreateKernel(hist_merge64)");
    memcpy(b->key, key, sizeof key);
    a->b = b, s->nb++;
    return OCR_OK;
fail:
    if (b->global) clReleaseKernel(b->global);
    if (b->zero) clReleaseKernel(b->zero);
    if (b->merge[0]) clReleaseKernel(b->merge[0]);
    ocr_kernel_release(b->k);
    memset(b, 0, sizeof *b);
    return st;
}

/* ---- a call ------------------------------------------------------------------------ */

static ocr_status check_call(ocr_reducer *r, void *state, ocr_call *c) {
    hist_state *s = state;
    hist_args *a = (hist_args *)c->how;
    ocr_status st;
    if ((st = spec_read(a->in, &a->sp)) != OCR_OK || (st = spec_check(r, &a->sp, c->n)) != OCR_OK)
        return st;
    a->es = ocr_histogram_element_size(&a->sp);
    a->rs = a->sp.weights ? a->es : 4;
    a->bt = a->sp.kind == OCR_HIST_EVEN ? bin_type(r->in_type) : OCR_FLOAT; /* HIST_BT */
    c->count = a->sp.bins;
    if ((st = check_buffers(r, c, a)) != OCR_OK) return st;
    const ocr_device_info *di = ocr_device_get_info(&r->dev);
    /* local copy: the bins and a margin for the compiler's own local memory */
    a->local = a->sp.method != OCR_HIST_GLOBAL && a->sp.bins * a->rs + 1024 <= di->local_mem;
    a->agg = a->local && a->sp.method != OCR_HIST_LOCAL;
    /* one-byte samples: 256 more counters, one per value (cl/histogram.cl, step 5) */
    a->raw = a->local && ocr_type_size(r->in_type) == 1 && !a->sp.weights &&
             (a->sp.bins + 256) * a->rs + 1024 <= di->local_mem;
    return c->n ? build(r, s, a) : OCR_OK;
}

static ocr_status grow(const ocr_reducer *r, cl_mem *m, size_t *have, size_t need) {
    ocr_status st = OCR_OK;
    cl_int err;
    if (*have >= need) return OCR_OK;
    if (*m) clReleaseMemObject(*m), *m = NULL, *have = 0;
    *m = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, need, NULL, &err);
    OCR_CHECK(err, "clCreateBuffer (histogram scratch)");
    *have = need;
fail:
    return st;
}

/* The counting kernel's common arguments (0 .. 9 without weights, 0 .. 11 with). */
static ocr_status set_common(const ocr_reducer *r, cl_kernel k, const ocr_call *c,
                             const hist_args *a, uint64_t off, uint64_t n, cl_uint *next) {
    ocr_status st = OCR_OK;
    const ocr_histogram_spec *sp = &a->sp;
    cl_uint i = 0;
    cl_ulong in_off = off, nn = n, w_off = sp->weights_offset + (off - c->offset),
             e_off = sp->kind == OCR_HIST_EDGES ? sp->edges_offset : 0;
    cl_uint bins = (cl_uint)sp->bins;
    cl_mem edges = sp->kind == OCR_HIST_EDGES ? sp->edges : NULL;
    OCR_CL(clSetKernelArg(k, i++, sizeof(cl_mem), &c->buf));
    OCR_CL(clSetKernelArg(k, i++, sizeof in_off, &in_off));
    if (sp->weights) {
        OCR_CL(clSetKernelArg(k, i++, sizeof(cl_mem), &sp->weights));
        OCR_CL(clSetKernelArg(k, i++, sizeof w_off, &w_off));
    }
    OCR_CL(clSetKernelArg(k, i++, sizeof nn, &nn));
    if (a->bt == OCR_DOUBLE) {
        cl_double lo = sp->lower, hi = sp->upper, sc = (double)sp->bins / (sp->upper - sp->lower);
        OCR_CL(clSetKernelArg(k, i++, sizeof lo, &lo));
        OCR_CL(clSetKernelArg(k, i++, sizeof hi, &hi));
        OCR_CL(clSetKernelArg(k, i++, sizeof sc, &sc));
    } else {
        cl_float lo = (float)sp->lower, hi = (float)sp->upper, sc = (float)sp->bins / (hi - lo);
        OCR_CL(clSetKernelArg(k, i++, sizeof lo, &lo));
        OCR_CL(clSetKernelArg(k, i++, sizeof hi, &hi));
        OCR_CL(clSetKernelArg(k, i++, sizeof sc, &sc));
    }
    OCR_CL(clSetKernelArg(k, i++, sizeof bins, &bins));
    OCR_CL(clSetKernelArg(k, i++, sizeof(cl_mem), &edges));
    OCR_CL(clSetKernelArg(k, i++, sizeof e_off, &e_off));
    *next = i;
    (void)r;
fail:
    return st;
}

/* hist_merge: the rows added into the output, after the event `after`. */
static ocr_status merge(const ocr_call *c, const hist_args *a, cl_mem rows, cl_uint groups,
                        int accumulate, cl_event after, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_kernel k = a->b->merge[a->sp.weights || a->es == 8]; /* with weights: HIST_RT */
    cl_uint bins = (cl_uint)a->sp.bins;
    cl_ulong out_off = c->result_offset;
    cl_int acc = accumulate;
    size_t local = 64, global = ((size_t)bins + local - 1) / local * local;
    OCR_CL(clSetKernelArg(k, 0, sizeof rows, &rows));
    OCR_CL(clSetKernelArg(k, 1, sizeof groups, &groups));
    OCR_CL(clSetKernelArg(k, 2, sizeof bins, &bins));
    OCR_CL(clSetKernelArg(k, 3, sizeof(cl_mem), &c->result));
    OCR_CL(clSetKernelArg(k, 4, sizeof out_off, &out_off));
    OCR_CL(clSetKernelArg(k, 5, sizeof acc, &acc));
    OCR_CL(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, NULL, 1, &after, ev));
fail:
    return st;
}

/* Groups of the privatised launch: a few per compute unit, no more than the
 * samples need, enough that none counts 2^32 samples, rows within bounds. */
static uint64_t local_groups(const ocr_reducer *r, const hist_args *a, size_t local, uint64_t n) {
    const ocr_device_info *di = ocr_device_get_info(&r->dev);
    uint64_t g = (uint64_t)di->compute_units * (ocr_reducer_on_cpu(r) ? 1 : HIST_GROUPS_PER_CU);
    /* a group of the vector kernel counts up to 3 vectors past its share */
    const uint64_t chunk = HIST_CHUNK_MAX - 3 * HIST_VEC_BYTES;
    uint64_t need = (n + local - 1) / local, least = (n + chunk - 1) / chunk;
    uint64_t most = HIST_ROWS_MAX / (a->sp.bins * a->rs);
    if (g > need) g = need;
    if (g > most) g = most;
    if (g < least) g = least;
    return g ? g : 1;
}

static ocr_status enqueue_local(ocr_reducer *r, hist_state *s, const ocr_call *c,
                                const hist_args *a, cl_uint nw, const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_kernel k = a->b->k->kernel;
    size_t local = a->b->k->geom.local_size;
    uint64_t groups = local_groups(r, a, local, c->n);
    cl_ulong per = (c->n + groups - 1) / groups;
    size_t global = (size_t)groups * local;
    cl_uint i = 0;
    cl_event first = NULL;
    if ((st = grow(r, &s->rows, &s->rows_size, groups * a->sp.bins * a->rs)) != OCR_OK ||
        (st = set_common(r, k, c, a, c->offset, c->n, &i)) != OCR_OK)
        return st;
    cl_int agg = a->agg;
    OCR_CL(clSetKernelArg(k, i++, sizeof per, &per));
    OCR_CL(clSetKernelArg(k, i++, sizeof agg, &agg));
    OCR_CL(clSetKernelArg(k, i++, sizeof(cl_mem), &s->rows));
    OCR_CL(clSetKernelArg(k, i++, (a->sp.bins + (a->raw ? 256 : 0)) * a->rs, NULL));
    OCR_CL(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, nw, wl, &first));
    st = merge(c, a, s->rows, (cl_uint)groups, a->sp.accumulate, first, ev);
fail:
    if (first) clReleaseEvent(first);
    return st;
}

/* Bins beyond local memory (or OCR_HIST_GLOBAL): chunks of fewer than 2^32
 * samples, each a zeroed 32-bit row, global atomics into it, and a merge
 * into the output (the first chunk's as the caller asked, later ones
 * adding); every command waits for the one before (out-of-order queues). */
static ocr_status enqueue_global(ocr_reducer *r, hist_state *s, const ocr_call *c,
                                 const hist_args *a, cl_uint nw, const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_kernel k = a->b->global;
    const ocr_device_info *di = ocr_device_get_info(&r->dev);
    size_t local = ocr_reducer_on_cpu(r) ? 1 : HIST_GPU_LOCAL;
    if (r->local_size) local = r->local_size;
    if (local > di->max_wg) local = di->max_wg;
    cl_uint bins = (cl_uint)a->sp.bins, i = 0;
    size_t bytes = a->sp.bins * a->rs;
    cl_event prev = NULL, filled = NULL, counted = NULL;
    if ((st = grow(r, &s->rows, &s->rows_size, bytes)) != OCR_OK) return st;
    for (uint64_t done = 0; done < c->n;) {
        uint64_t m = c->n - done < HIST_CHUNK_MAX ? c->n - done : HIST_CHUNK_MAX;
        uint64_t groups = (uint64_t)di->compute_units * HIST_GROUPS_PER_CU;
        if (groups > (m + local - 1) / local) groups = (m + local - 1) / local;
        size_t global = (size_t)groups * local;
        size_t zl = 64, zg = ((size_t)bins + zl - 1) / zl * zl;
        OCR_CL(clSetKernelArg(a->b->zero, 0, sizeof(cl_mem), &s->rows));
        OCR_CL(clSetKernelArg(a->b->zero, 1, sizeof bins, &bins));
        OCR_CL(clEnqueueNDRangeKernel(c->q, a->b->zero, 1, NULL, &zg, &zl, prev ? 1 : nw,
                                      prev ? &prev : wl, &filled));
        if ((st = set_common(r, k, c, a, c->offset + done, m, &i)) != OCR_OK) goto fail;
        OCR_CL(clSetKernelArg(k, i, sizeof(cl_mem), &s->rows));
        OCR_CL(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, 1, &filled, &counted));
        if (prev) clReleaseEvent(prev), prev = NULL;
        done += m;
        st = merge(c, a, s->rows, 1, a->sp.accumulate || done > m, counted, &prev);
        clReleaseEvent(filled), clReleaseEvent(counted), filled = counted = NULL;
        if (st != OCR_OK) goto fail;
    }
    *ev = prev, prev = NULL;
fail:
    if (filled) clReleaseEvent(filled);
    if (counted) clReleaseEvent(counted);
    if (prev) clReleaseEvent(prev);
    return st;
}

static ocr_status enqueue(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                          const cl_event *wl, int want, cl_event *ev) {
    ocr_status st = OCR_OK;
    const hist_args *a = c->how;
    (void)want; /* the done event is always made */
    if (c->n == 0) {
        cl_ulong zero = 0;
        if (a->sp.accumulate)
            OCR_CL(clEnqueueMarkerWithWaitList(c->q, nw, wl, ev));
        else
            OCR_CL(clEnqueueFillBuffer(c->q, c->result, &zero, a->es, c->result_offset * a->es,
                                       a->sp.bins * a->es, nw, wl, ev));
        return OCR_OK;
    }
    return a->local ? enqueue_local(r, state, c, a, nw, wl, ev)
                    : enqueue_global(r, state, c, a, nw, wl, ev);
fail:
    return st;
}

/* ---- the form ---------------------------------------------------------------------- */

static ocr_status hist_open(ocr_reducer *r, void **state) {
    ocr_status st = OCR_OK;
    char ext[8192] = "";
    if (!ocr_plain_of(r, "ocr_reducer_histogram")) return OCR_USAGE;
    if ((st = ocr_form_alloc(sizeof(hist_state), state)) != OCR_OK) return st;
    OCR_CL(clGetDeviceInfo(r->device, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL));
    ((hist_state *)*state)->int64_atomics = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
    return OCR_OK;
fail:
    free(*state), *state = NULL;
    return st;
}

static void hist_release(void *state) {
    hist_state *s = state;
    for (size_t i = 0; i < s->nb; ++i) {
        clReleaseKernel(s->b[i].global), clReleaseKernel(s->b[i].zero),
            clReleaseKernel(s->b[i].merge[0]), clReleaseKernel(s->b[i].merge[1]);
        ocr_kernel_release(s->b[i].k);
    }
    if (s->rows) clReleaseMemObject(s->rows);
    if (s->host) clReleaseMemObject(s->host);
    free(s);
}

static const ocr_form histogram_form = {
    "ocr_reducer_histogram", hist_open, check_call, enqueue, hist_release, 0, NULL};

ocr_status ocr_reducer_histogram(ocr_reducer *r, cl_command_queue queue, cl_mem buf, size_t offset,
                                 uint64_t n, const ocr_histogram_spec *spec, cl_mem counts_buf,
                                 size_t counts_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done) {
    hist_args a;
    memset(&a, 0, sizeof a);
    a.in = spec;
    ocr_call c = {queue,      num_wait,      wait, buf, offset, n,
                  counts_buf, counts_offset, 1,    &a,  NULL,   done};
    return ocr_call_run(r, __func__, &histogram_form, &c);
}

/* The blocking call's commands: the caller's counts in first when they are
 * added to, the call into the reducer's buffer, the counts read back. */
static ocr_status host_call(ocr_reducer *r, hist_state *s, ocr_call *c, void *counts,
                            size_t bytes) {
    ocr_status st = OCR_OK;
    const hist_args *a = c->how;
    if (a->sp.accumulate)
        OCR_CL(clEnqueueWriteBuffer(c->q, s->host, CL_TRUE, 0, bytes, counts, 0, NULL, NULL));
    if ((st = ocr_call_submit(r, &histogram_form, c)) != OCR_OK) return st;
    OCR_CL(clEnqueueReadBuffer(c->q, s->host, CL_TRUE, 0, bytes, counts, 1, c->done, NULL));
fail:
    return st;
}

/* The blocking call's body (r entered): the spec's bins and element size,
 * the reducer's device buffer for them, the call through it. */
static ocr_status host_body(ocr_reducer *r, ocr_call *c, hist_args *a, void *counts) {
    ocr_status st;
    void *state = NULL;
    if ((st = spec_read(a->in, &a->sp)) != OCR_OK || (st = spec_check(r, &a->sp, c->n)) != OCR_OK)
        return st;
    if (!counts) {
        ocr_errorf("histogram: counts must not be NULL");
        return OCR_USAGE;
    }
    size_t bytes = (size_t)a->sp.bins * ocr_histogram_element_size(&a->sp);
    if ((st = ocr_form_state(r, &histogram_form, &state)) != OCR_OK ||
        (st = ocr_reducer_use_queue(r, c->q, c->num_wait, c->wait)) != OCR_OK)
        return st;
    hist_state *s = state;
    if ((st = grow(r, &s->host, &s->host_size, bytes)) != OCR_OK) return st;
    c->result = s->host;
    return host_call(r, s, c, counts, bytes);
}

ocr_status ocr_reducer_histogram_host(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                      size_t offset, uint64_t n, const ocr_histogram_spec *spec,
                                      void *counts, cl_uint num_wait, const cl_event *wait) {
    hist_args a;
    cl_event ev = NULL;
    memset(&a, 0, sizeof a);
    a.in = spec;
    ocr_call c = {queue, num_wait, wait, buf, offset, n, NULL, 0, 1, &a, NULL, &ev};
    OCR_CALL_BEGIN(r);
    ocr_status st = host_body(r, &c, &a, counts);
    if (ev) clReleaseEvent(ev);
    OCR_CALL_END(r, st);
    return st;
}
