/* ocr_segments.c - many reductions per call on the reducer's context, type
 * and operator: segments given by offsets and the rows of a matrix
 * (segreduce, one launch whatever their number), the columns of a matrix
 * (colreduce, one launch, or two when there are too few columns to fill the
 * device). The kernels of cl/segreduce.cl are built on the first such call,
 * with the reducer's options, through the program cache (so reducers built
 * alike share them). The queue, wait list and previous-call rules are the
 * reducer's (ocr_reducer_priv.h). Prints nothing. */
#include "ocr_reducer_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tunable constants: the one home of each -------------------------------
 * The kernels of cl/segreduce.cl get the first six as -D options (their
 * header says what each does there); the host sizes teams, grids and chunks
 * from them. Change one here and everything follows: a variant to sweep on
 * a device is one edit and a rebuild. */

/* 16-byte loads issued per work-item before any is used, on the team path
 * and on the chunk path (measured on an H100 and an H200 against 4, 6 and
 * 8: docs/perf/ops.md, "The segment kernels' loads in flight") */
#define SEG_UNROLL       8
#define SEG_CHUNK_UNROLL 6
/* segments a team reduces per round, between two meetings of its group */
#define SEG_RUN 4
/* a team's last SEG_SERIAL partials are combined in a row, above that in a
 * tree (power of two) */
#define SEG_SERIAL 32
/* segfix: a segment across up to this many chunk boundaries is combined by
 * its own work-item, a longer one by the whole group */
#define SEG_FIX_SERIAL 16
/* the chunks' k-ary search: probes per round at least (groups larger than
 * this probe one offset per work-item) */
#define SEG_PROBES 16
/* a chunk of segchunks: elements per work-item of a group (rounded up to a
 * power of two), and log2 of a chunk for one-item groups (a CPU's); the mean
 * segment must fill a chunk for the chunk path */
#define SEG_CHUNK_ITEMS    128
#define SEG_CHUNK_LOG2_ONE 16
/* the grids of segreduce and segfix: on a GPU, work-items per compute unit
 * (a few waves of 2048: small blocks even out); on a CPU, groups per unit */
#define SEG_GPU_ITEMS_PER_CU  8192
#define SEG_CPU_GROUPS_PER_CU 4

/* ---- the kernels, built on first use ------------------------------------------- */

/* The segments form's state (segments and rows): segreduce, and for long
 * segments segchunks then segfix. */
typedef struct {
    ocr_kernel *k_seg, *k_chunks, *k_fix;
} seg_state;
/* The columns form's: colreduce, and a widening reducer's second launch
 * over partials of its type. */
typedef struct {
    ocr_kernel *k_col, *k_col_acc;
} col_state;

/* One kernel of segreduce.cl reading `input`. Work-groups of 256 on a GPU;
 * on a CPU one work-item per group (a core then walks a segment in order, as
 * reduce7's blocked access does). The constants above go first, the
 * reducer's build options after them. colreduce takes the same options, so
 * the program is built once. */
static ocr_status build_one(ocr_reducer *r, const char *name, ocr_type input, ocr_kernel **k) {
    if (*k) return OCR_OK;
    char opts[1024];
    int len =
        snprintf(opts, sizeof opts,
                 "-D SEG_UNROLL=%d -D SEG_CHUNK_UNROLL=%d -D SEG_RUN=%d -D SEG_SERIAL=%d "
                 "-D SEG_FIX_SERIAL=%d -D SEG_PROBES=%d%s%s",
                 SEG_UNROLL, SEG_CHUNK_UNROLL, SEG_RUN, SEG_SERIAL, SEG_FIX_SERIAL, SEG_PROBES,
                 r->build_options ? " " : "", r->build_options ? r->build_options : "");
    if (len < 0 || (size_t)len >= sizeof opts) {
        ocr_errorf("build options too long");
        return OCR_RUNTIME;
    }
    ocr_build_request rq = {
        .spec = {name,
                 "segreduce.cl",
                 OCR_PER_GROUP,
                 ocr_reducer_on_cpu(r) ? 1 : 256,
                 0,
                 1,
                 0,
                 "many reductions in one launch",
                 {0, 0, 0, 0},
                 0},
        .kernel_dir = r->kernel_dir,
        .type = r->type,
        .op = r->op,
        .local_size = r->local_size,
        .extra_options = opts,
    };
    int flags =
        (r->kernel_dir ? 0 : OCR_BUILD_EMBEDDED) | OCR_REDUCER_BUILD | OCR_BUILD_OWN_OPTIONS;
    return ocr_kernel_build_ex(&r->dev, &rq, flags, input, k);
}

static ocr_status build_segments(ocr_reducer *r, seg_state *s) {
    ocr_status st = build_one(r, "segreduce", r->in_type, &s->k_seg);
    if (st == OCR_OK) st = build_one(r, "segchunks", r->in_type, &s->k_chunks);
    if (st == OCR_OK) st = build_one(r, "segfix", r->in_type, &s->k_fix);
    return st;
}

static ocr_status build_columns(ocr_reducer *r, col_state *s) {
    ocr_status st = build_one(r, "colreduce", r->in_type, &s->k_col);
    if (st == OCR_OK && r->in_type != r->type) /* the second launch reads partials of type */
        st = build_one(r, "colreduce", r->type, &s->k_col_acc);
    return st;
}

/* ---- a call's checks -------------------------------------------------------------- */

/* Where the call reads (n elements from offset on), and where its count
 * values go: in bounds, apart. */
static ocr_status check_call(const ocr_reducer *r, const ocr_call *c) {
    ocr_status st;
    size_t rsize = 0;
    if ((st = ocr_call_buffers(r, c, &rsize)) != OCR_OK) return st;
    uint64_t rhave = rsize / r->es;
    if (c->result_offset > rhave || c->count > rhave - c->result_offset) {
        ocr_errorf("the result buffer holds %llu %s values; %llu from element %zu do not fit",
                   (unsigned long long)rhave, ocr_type_name(r->type), (unsigned long long)c->count,
                   c->result_offset);
        return OCR_USAGE;
    }
    return ocr_reducer_check_overlap(r, c->buf, c->offset, c->n, c->result, c->result_offset,
                                     c->count);
}

/* ---- a call's commands ------------------------------------------------------------ */

/* argmin/argmax reducers write (value, index) pairs, which none of these
 * calls does yet, and segreduce.cl reads no small types (half needs
 * vload_half there): both refused before anything is built. */
static ocr_status no_arg(const ocr_reducer *r) {
    if (!ocr_plain_of(r, "segments, rows and columns")) return OCR_USAGE;
    if (ocr_type_is_storage(r->in_type)) {
        ocr_errorf("segments, rows and columns read no %s data yet: reduce each one whole",
                   ocr_type_name(r->in_type));
        return OCR_USAGE;
    }
    if (!ocr_op_is_arg(r->op)) return OCR_OK;
    ocr_errorf("segments, rows and columns find no %s yet: reduce each one whole",
               ocr_op_name(r->op));
    return OCR_USAGE;
}

/* ---- segments and rows: segreduce ------------------------------------------------- */

typedef struct {
    cl_mem o32, o64; /* the offsets (one of them), or neither: rows of len */
    uint64_t k, len; /* segments; the length of each row */
    ocr_type ot;     /* the offsets' type (OCR_UINT or OCR_ULONG) */
    int rows;        /* rows of len (n is k x len), not offsets */
} seg_how;

/* log2 of the work-items per segment (segreduce's team): the largest power
 * of two, up to the group, whose one step of loads (team x elements per
 * 16-byte load x SEG_UNROLL) still fits the mean segment (n / k); 0 (one
 * work-item) when none does. segchunks applies the same rule to each
 * chunk's own mean, in the kernel. */
static cl_uint team_log2_for(size_t local, size_t in_es, uint64_t n, uint64_t k) {
    uint64_t per = n / ((16 / in_es) * SEG_UNROLL);
    cl_uint l = 0;
    while (((size_t)2 << l) <= local && (per >> (l + 1)) >= k)
        ++l;
    return l;
}

/* Groups for `per_round` segments per group and round: enough to fill the
 * device a few times over, no more than the segments need. */
static size_t seg_groups(const ocr_reducer *r, size_t local, uint64_t k, uint64_t per_round) {
    uint64_t need = (k + per_round - 1) / per_round;
    uint64_t per_cu = ocr_reducer_on_cpu(r) ? SEG_CPU_GROUPS_PER_CU : SEG_GPU_ITEMS_PER_CU / local;
    uint64_t fill = (uint64_t)r->dev.info.compute_units * (per_cu ? per_cu : 1);
    uint64_t g = need < fill ? need : fill;
    return (size_t)(g ? g : 1);
}

/* Elements per chunk of segchunks (log2): SEG_CHUNK_ITEMS per work-item of
 * a group; 2^SEG_CHUNK_LOG2_ONE for one-item groups (a CPU's: a core walks
 * them in order). The mean segment must fill a chunk for that path. */
static cl_uint chunk_log2_for(size_t local) {
    cl_uint l = 0;
    while (((size_t)1 << l) < local * SEG_CHUNK_ITEMS)
        ++l;
    return local > 1 ? l : SEG_CHUNK_LOG2_ONE;
}

/* The offsets (one of the two, or none: rows) and the scalars every segment
 * kernel takes after its buffers, from argument `at` on. */
static ocr_status seg_args(cl_kernel kern, cl_uint at, const seg_how *h, const ocr_call *c,
                           int with_in_off, cl_uint log2) {
    ocr_status st = OCR_OK;
    cl_ulong a[5] = {h->k, c->n, c->offset, c->result_offset, h->len};
    for (cl_uint i = 0; i < 5; ++i)
        if (with_in_off || i != 2) OCR_CL(clSetKernelArg(kern, at++, sizeof a[i], &a[i]));
    OCR_CL(clSetKernelArg(kern, at, sizeof log2, &log2));
fail:
    return st;
}

/* Buffer arguments 0 .. count - 1 of k (a NULL entry: no buffer). */
static ocr_status set_mems(cl_kernel k, const cl_mem *const *mems, cl_uint count) {
    ocr_status st = OCR_OK;
    for (cl_uint i = 0; i < count; ++i)
        OCR_CL(clSetKernelArg(k, i, sizeof(cl_mem), mems[i]));
fail:
    return st;
}

/* Long segments (n >= k chunks, so at least one chunk): segchunks over the
 * elements, then segfix over the segments. */
static ocr_status enqueue_chunks(ocr_reducer *r, const seg_state *s, const ocr_call *c,
                                 const seg_how *h, cl_uint log2, cl_uint nw, const cl_event *wl,
                                 cl_event *ev) {
    ocr_status st;
    uint64_t chunks = (c->n + ((uint64_t)1 << log2) - 1) >> log2;
    size_t local = s->k_chunks->geom.local_size, global = (size_t)chunks * local;
    size_t fix_local = s->k_fix->geom.local_size;
    /* up to a group per segment: segfix's groups stride over them */
    size_t fix_global = seg_groups(r, fix_local, h->k, 1) * fix_local;
    cl_event first = NULL;
    const cl_mem *o32 = h->o32 ? &h->o32 : NULL, *o64 = h->o64 ? &h->o64 : NULL;
    cl_kernel k = s->k_chunks->kernel, fix = s->k_fix->kernel;
    if ((st = ocr_reducer_grow(r, 0, chunks)) != OCR_OK ||
        (st = ocr_reducer_grow(r, 1, chunks)) != OCR_OK)
        return st;
    /* segchunks takes all six; segfix all but the input */
    const cl_mem *mems[6] = {&c->buf, o32, o64, &c->result, &r->scratch[0], &r->scratch[1]};
    if ((st = set_mems(k, mems, 6)) != OCR_OK || (st = seg_args(k, 6, h, c, 1, log2)) != OCR_OK)
        return st;
    OCR_CL(clEnqueueNDRangeKernel(c->q, k, 1, NULL, &global, &local, nw, wl,
                                  r->q_ooo ? &first : NULL));
    if ((st = set_mems(fix, mems + 1, 5)) != OCR_OK ||
        (st = seg_args(fix, 5, h, c, 0, log2)) != OCR_OK)
        goto fail;
    /* an out-of-order queue orders the two launches only through the event */
    OCR_CL(clEnqueueNDRangeKernel(c->q, fix, 1, NULL, &fix_global, &fix_local, first ? 1 : 0,
                                  first ? &first : NULL, ev));
fail:
    if (first) clReleaseEvent(first);
    return st;
}

static ocr_status enqueue_segments(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                                   const cl_event *wl, int want, cl_event *ev) {
    ocr_status st = OCR_OK;
    const seg_state *s = state;
    const seg_how *h = c->how;
    cl_kernel kern = s->k_seg->kernel;
    size_t local = s->k_seg->geom.local_size;
    cl_uint log2 = chunk_log2_for(local);
    (void)want;                               /* the done event is always made */
    if (c->n / h->k >= ((uint64_t)1 << log2)) /* the mean segment fills a chunk */
        return enqueue_chunks(r, s, c, h, log2, nw, wl, ev);
    cl_uint team_log2 = team_log2_for(local, r->in_es, c->n, h->k);
    size_t global = seg_groups(r, local, h->k, (local >> team_log2) * SEG_RUN) * local;
    const cl_mem *mems[4] = {&c->buf, h->o32 ? &h->o32 : NULL, h->o64 ? &h->o64 : NULL, &c->result};
    if ((st = set_mems(kern, mems, 4)) == OCR_OK) st = seg_args(kern, 4, h, c, 1, team_log2);
    if (st == OCR_OK)
        OCR_CL(clEnqueueNDRangeKernel(c->q, kern, 1, NULL, &global, &local, nw, wl, ev));
fail:
    return st;
}

/* The kernel reads the offsets while it writes the results: the same memory
 * would race (1 of 4096 sums wrong in 1 of 3 runs). */
static ocr_status offsets_apart(cl_mem offsets, ocr_type ot, uint64_t k, cl_mem result,
                                size_t result_offset, size_t es) {
    int overlap = 0;
    ocr_status st = ocr_mem_overlap(offsets, 0, (k + 1) * ocr_type_size(ot), result,
                                    (uint64_t)result_offset * es, k * es, &overlap);
    if (st == OCR_OK && overlap) {
        ocr_errorf("the offsets buffer and the result buffer overlap (the same memory, or "
                   "sub-buffers of one): pass another result buffer");
        return OCR_USAGE;
    }
    return st;
}

ocr_status ocr_segment_offsets_check(const void *offsets, ocr_type offsets_type,
                                     uint64_t num_segments, uint64_t n) {
    const int wide = offsets_type == OCR_ULONG;
    if (!wide && offsets_type != OCR_UINT) {
        ocr_errorf("offsets_type must be OCR_UINT or OCR_ULONG, not %d", (int)offsets_type);
        return OCR_USAGE;
    }
    if (!offsets) {
        ocr_errorf("no offsets to check");
        return OCR_USAGE;
    }
    uint64_t prev = 0;
    for (uint64_t j = 0; j <= num_segments; ++j) {
        uint64_t o = wide ? ((const uint64_t *)offsets)[j] : ((const uint32_t *)offsets)[j];
        if (o < prev || o > n) {
            ocr_errorf("segment offsets must not decrease and must lie within the %llu elements: "
                       "offsets[%llu] = %llu %s",
                       (unsigned long long)n, (unsigned long long)j, (unsigned long long)o,
                       o > n ? "is past the end" : "is below the one before");
            return OCR_USAGE;
        }
        prev = o;
    }
    return OCR_OK;
}

/* rows x cols elements from buf[offset] on, each row's product of cols
 * elements checked against overflow. */
static ocr_status matrix_size(uint64_t rows, uint64_t cols, uint64_t *n) {
    if (cols && rows > UINT64_MAX / cols) {
        ocr_errorf("rows x cols (%llu x %llu) overflows", (unsigned long long)rows,
                   (unsigned long long)cols);
        return OCR_USAGE;
    }
    *n = rows * cols;
    return OCR_OK;
}

static ocr_status seg_open(ocr_reducer *r, void **state) {
    ocr_status st = no_arg(r);
    return st == OCR_OK ? ocr_form_alloc(sizeof(seg_state), state) : st;
}

static void seg_release(void *state) {
    seg_state *s = state;
    ocr_kernel_release(s->k_fix);
    ocr_kernel_release(s->k_chunks);
    ocr_kernel_release(s->k_seg);
    free(s);
}

static ocr_status check_offsets(const ocr_reducer *r, const ocr_call *c, const seg_how *h);

/* Segments (their offsets checked) or rows (n their product); the kernels
 * built on the first call with something to compute. */
static ocr_status seg_check(ocr_reducer *r, void *state, ocr_call *c) {
    ocr_status st;
    const seg_how *h = c->how;
    if ((st = h->rows ? matrix_size(h->k, h->len, &c->n) : check_offsets(r, c, h)) != OCR_OK ||
        (st = check_call(r, c)) != OCR_OK)
        return st;
    return h->k && c->n ? build_segments(r, state) : OCR_OK;
}

static const ocr_form segments_form = {"segments and rows", seg_open, seg_check, enqueue_segments,
                                       seg_release,         1,        NULL};

/* The offsets: their type, a buffer that holds them, apart from the results. */
static ocr_status check_offsets(const ocr_reducer *r, const ocr_call *c, const seg_how *h) {
    ocr_status st;
    size_t osize = 0;
    cl_mem offsets = h->o32 ? h->o32 : h->o64;
    if (h->ot != OCR_UINT && h->ot != OCR_ULONG) {
        ocr_errorf("offsets_type must be OCR_UINT or OCR_ULONG, not %d", (int)h->ot);
        return OCR_USAGE;
    }
    if (h->k == UINT64_MAX) {
        ocr_errorf("too many segments");
        return OCR_USAGE;
    }
    if (!h->k) return OCR_OK;
    if ((st = ocr_reducer_buffer_size(r, offsets, "the offsets buffer", &osize)) != OCR_OK)
        return st;
    if (osize / ocr_type_size(h->ot) < h->k + 1) {
        ocr_errorf("the offsets buffer holds %llu %s values; %llu segments need %llu",
                   (unsigned long long)(osize / ocr_type_size(h->ot)), ocr_type_name(h->ot),
                   (unsigned long long)h->k, (unsigned long long)h->k + 1);
        return OCR_USAGE;
    }
    return offsets_apart(offsets, h->ot, h->k, c->result, c->result_offset, r->es);
}

ocr_status ocr_reducer_reduce_segments(ocr_reducer *r, cl_command_queue q, cl_mem buf,
                                       size_t offset, uint64_t n, cl_mem offsets_buf,
                                       ocr_type offsets_type, uint64_t num_segments,
                                       cl_mem result_buf, size_t result_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *done) {
    seg_how h = {NULL, NULL, num_segments, 0, offsets_type, 0};
    *(offsets_type == OCR_UINT ? &h.o32 : &h.o64) = offsets_buf;
    ocr_call c = {q,          num_wait,      wait,         buf, offset, n,
                  result_buf, result_offset, num_segments, &h,  NULL,   done};
    return ocr_call_run(r, __func__, &segments_form, &c);
}

ocr_status ocr_reducer_reduce_rows(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                   uint64_t rows, uint64_t cols, cl_mem result_buf,
                                   size_t result_offset, cl_uint num_wait, const cl_event *wait,
                                   cl_event *done) {
    seg_how h = {NULL, NULL, rows, cols, OCR_UINT, 1};
    ocr_call c = {q,          num_wait,      wait, buf, offset, 0,
                  result_buf, result_offset, rows, &h,  NULL,   done};
    return ocr_call_run(r, __func__, &segments_form, &c);
}

/* ---- columns: colreduce ------------------------------------------------------------- */

typedef struct {
    uint64_t rows, cols;
} col_how;

/* One launch of colreduce: rows x cols from in[in_off] on, cut into slices of
 * rps rows, each slice's values to a row of out from element out_off on. */
static ocr_status col_launch(cl_command_queue q, const ocr_kernel *k, cl_mem in, uint64_t in_off,
                             cl_mem out, uint64_t out_off, uint64_t rows, uint64_t cols,
                             uint64_t rps, cl_uint nw, const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    size_t local[2] = {k->res.work_group_size < 64 ? k->res.work_group_size : 64, 1};
    uint64_t slices = rows ? (rows + rps - 1) / rps : 1;
    size_t global[2] = {(size_t)((cols + local[0] - 1) / local[0] * local[0]), (size_t)slices};
    cl_ulong a[5] = {rows, cols, in_off, out_off, rps};
    OCR_CL(clSetKernelArg(k->kernel, 0, sizeof(cl_mem), &in));
    OCR_CL(clSetKernelArg(k->kernel, 1, sizeof(cl_mem), &out));
    for (cl_uint i = 0; i < 5; ++i)
        OCR_CL(clSetKernelArg(k->kernel, 2 + i, sizeof a[i], &a[i]));
    OCR_CL(clEnqueueNDRangeKernel(q, k->kernel, 2, NULL, global, local, nw, wl, ev));
fail:
    return st;
}

/* Rows per slice: all of them when the columns alone fill the device, else
 * enough slices to fill it, each of at least 32 rows. */
static uint64_t rows_per_slice(const ocr_reducer *r, uint64_t rows, uint64_t cols) {
    uint64_t fill = (uint64_t)r->dev.info.compute_units * (ocr_reducer_on_cpu(r) ? 4 * 64 : 2048);
    if (rows < 64 || cols >= fill / 2) return rows ? rows : 1;
    uint64_t slices = (fill + cols - 1) / cols, most = rows / 32;
    if (slices > most) slices = most;
    return (rows + slices - 1) / slices;
}

static ocr_status enqueue_columns(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                                  const cl_event *wl, int want, cl_event *ev) {
    ocr_status st;
    const col_state *s = state;
    const col_how *h = c->how;
    (void)want; /* the done event is always made */
    uint64_t rps = rows_per_slice(r, h->rows, h->cols);
    if (rps >= h->rows) /* one slice: straight into the result */
        return col_launch(c->q, s->k_col, c->buf, c->offset, c->result, c->result_offset, h->rows,
                          h->cols, rps, nw, wl, ev);
    uint64_t slices = (h->rows + rps - 1) / rps;
    cl_event first = NULL;
    if ((st = ocr_reducer_grow(r, 0, slices * h->cols)) != OCR_OK ||
        (st = col_launch(c->q, s->k_col, c->buf, c->offset, r->scratch[0], 0, h->rows, h->cols, rps,
                         nw, wl, r->q_ooo ? &first : NULL)) != OCR_OK)
        return st;
    /* The partial rows, reduced as a matrix of their own (of the reducer's type). */
    st = col_launch(c->q, s->k_col_acc ? s->k_col_acc : s->k_col, r->scratch[0], 0, c->result,
                    c->result_offset, slices, h->cols, slices, first ? 1 : 0, first ? &first : NULL,
                    ev);
    if (first) clReleaseEvent(first);
    return st;
}

static ocr_status col_open(ocr_reducer *r, void **state) {
    ocr_status st = no_arg(r);
    return st == OCR_OK ? ocr_form_alloc(sizeof(col_state), state) : st;
}

/* rows x cols checked, the kernels built on the first call with values to read. */
static ocr_status col_check(ocr_reducer *r, void *state, ocr_call *c) {
    ocr_status st;
    const col_how *h = c->how;
    if ((st = matrix_size(h->rows, h->cols, &c->n)) != OCR_OK || (st = check_call(r, c)) != OCR_OK)
        return st;
    return h->cols && c->n ? build_columns(r, state) : OCR_OK;
}

static void col_release(void *state) {
    col_state *s = state;
    ocr_kernel_release(s->k_col_acc);
    ocr_kernel_release(s->k_col);
    free(s);
}

static const ocr_form columns_form = {"columns",   col_open, col_check, enqueue_columns,
                                      col_release, 1,        NULL};

ocr_status ocr_reducer_reduce_columns(ocr_reducer *r, cl_command_queue q, cl_mem buf, size_t offset,
                                      uint64_t rows, uint64_t cols, cl_mem result_buf,
                                      size_t result_offset, cl_uint num_wait, const cl_event *wait,
                                      cl_event *done) {
    col_how h = {rows, cols};
    ocr_call c = {q,          num_wait,      wait, buf, offset, 0,
                  result_buf, result_offset, cols, &h,  NULL,   done};
    return ocr_call_run(r, __func__, &columns_form, &c);
}
