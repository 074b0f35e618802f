/* segments.c - --segments K: the library's segmented reduction
 * (ocr_reducer_reduce_segments) over the seeded input of -s N cut into K
 * segments of seeded random lengths, timed and checked segment by segment
 * against the CPU reference of each (bit for bit on the default exact data). */
#include "modes.h"
#include "cli_report.h"

#include <stdlib.h>
#include <string.h>

/* The seeded segment lengths: K - 1 cut points drawn uniformly in [0, N]
 * (xorshift from the seed), sorted; offsets[j] is the j-th cut. */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t *make_offsets(uint64_t n, uint64_t k, uint64_t seed) {
    uint64_t *off = malloc((size_t)(k + 1) * sizeof *off);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    if (!off) return NULL;
    off[0] = 0, off[k] = n;
    for (uint64_t j = 1; j < k; ++j) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        off[j] = s % (n + 1);
    }
    qsort(off + 1, (size_t)(k > 1 ? k - 1 : 0), sizeof *off, cmp_u64);
    return off;
}

typedef struct {
    ocr_device *dev;
    ocr_reducer *r;
    cl_mem in, offs, out;
    ocr_type off_type;
    void *data, *got;
    uint64_t *off;
    ocr_reference *ref;
} seg_run;

/* The device, the reducer and the buffers: input, offsets (uint where N fits
 * 32 bits, else ulong) and K results. */
static ocr_status setup(const cli_options *o, uint64_t k, seg_run *s) {
    ocr_status st;
    cl_int err = CL_SUCCESS;
    size_t es = ocr_type_size(o->type);
    ocr_reducer_options opt = OCR_REDUCER_OPTIONS;
    opt.kernel_dir = o->kernel_dir, opt.local_size = o->local_size;
    opt.build_options = o->build_options;
    if ((st = ocr_device_open(&o->device, &s->dev)) != OCR_OK) return st;
    cl_context ctx = ocr_device_context(s->dev);
    if ((st = ocr_reducer_create(ctx, ocr_device_id(s->dev), o->type, o->op, &opt, &s->r)) !=
        OCR_OK)
        return st;
    if (!(s->data = cli_make_input(o, 0, o->size, "the input")) ||
        !(s->off = make_offsets(o->size, k, o->seed)) || !(s->got = malloc((size_t)k * es)) ||
        !(s->ref = malloc((size_t)k * sizeof *s->ref))) {
        fprintf(stderr, "oclReduction: out of host memory for %llu segments\n",
                (unsigned long long)k);
        return OCR_NO_MEMORY;
    }
    s->off_type = o->size > UINT32_MAX ? OCR_ULONG : OCR_UINT;
    if (s->off_type == OCR_UINT) /* the same values as uints, in place */
        for (uint64_t j = 0; j <= k; ++j)
            ((cl_uint *)s->off)[j] = (cl_uint)s->off[j];
    s->in =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, o->size * es, s->data, &err);
    if (err == CL_SUCCESS)
        s->offs = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 (k + 1) * ocr_type_size(s->off_type), s->off, &err);
    if (err == CL_SUCCESS) s->out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, k * es, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: cannot allocate the device buffers: %s\n",
                ocr_cl_error_name(err));
        return OCR_NO_MEMORY;
    }
    return OCR_OK;
}

static uint64_t offset_at(const seg_run *s, uint64_t j) {
    return s->off_type == OCR_UINT ? ((cl_uint *)s->off)[j] : s->off[j];
}

/* Each segment's reference (the library's: exact on exact data). */
static void references(const cli_options *o, uint64_t k, seg_run *s, ocr_data_kind kind) {
    size_t es = ocr_type_size(o->type);
    for (uint64_t j = 0; j < k; ++j) {
        uint64_t b = offset_at(s, j), len = offset_at(s, j + 1) - b;
        if (len)
            ocr_reference_make((const char *)s->data + b * es, len, o->type, o->op, len, kind,
                               &s->ref[j]);
        else
            s->ref[j] = (ocr_reference){.expected = ocr_identity(o->type, o->op), .any_order = 1};
    }
}

/* The second data set: every segment its own one-sided data (the library's
 * ocr_data_fill over its length: losses cannot cancel in a sum, the only
 * extreme of min/max and the only clearing bits of and/or at its ends), so
 * a kernel dropping an element of a segment fails where the first set
 * could hide it (an idempotent operator over repeated values). Uploaded
 * over the input; references made again. */
static ocr_status one_sided_per_segment(const cli_options *o, uint64_t k, seg_run *s) {
    size_t es = ocr_type_size(o->type);
    for (uint64_t j = 0; j < k; ++j) {
        uint64_t b = offset_at(s, j), len = offset_at(s, j + 1) - b;
        if (len)
            ocr_data_fill((char *)s->data + b * es, len, o->type, o->op, o->seed + j,
                          OCR_DATA_ONE_SIDED);
    }
    cl_int err = clEnqueueWriteBuffer(ocr_device_queue(s->dev), s->in, CL_TRUE, 0, o->size * es,
                                      s->data, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: writing the second data set failed: %s\n",
                ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    references(o, k, s, OCR_DATA_ONE_SIDED);
    return OCR_OK;
}

/* One timed call, its K values read back and checked: *ns the call's device
 * time (cli_call_span: long segments take two launches); *wrong the segments that differ from their
 * reference (the first in *first). */
static ocr_status one_run(const cli_options *o, uint64_t k, seg_run *s, uint64_t *ns,
                          uint64_t *wrong, uint64_t *first) {
    ocr_status st;
    cl_event done = NULL, before = NULL;
    uint64_t h0 = ocr_now_ns();
    cl_command_queue q = ocr_device_queue(s->dev);
    size_t es = ocr_type_size(o->type);
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: clEnqueueMarkerWithWaitList failed: %s\n",
                ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    st = ocr_reducer_reduce_segments(s->r, q, s->in, 0, o->size, s->offs, s->off_type, k, s->out, 0,
                                     0, NULL, &done);
    if (st != OCR_OK) {
        clReleaseEvent(before);
        return st;
    }
    st = cli_call_span(before, done, h0, ns);
    clReleaseEvent(before);
    if (st == OCR_OK)
        err = clEnqueueReadBuffer(q, s->out, CL_TRUE, 0, k * es, s->got, 0, NULL, NULL);
    clReleaseEvent(done);
    if (st != OCR_OK) return st; /* it said why */
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: the segmented run failed: %s\n", ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    for (uint64_t j = 0; j < k; ++j) {
        ocr_value v;
        memset(&v, 0, sizeof v);
        memcpy(&v, (const char *)s->got + j * es, es);
        if (!ocr_check(o->type, &s->ref[j], v) && !(*wrong)++) *first = j;
    }
    return OCR_OK;
}

static void seg_release(seg_run *s) {
    if (s->out) clReleaseMemObject(s->out);
    if (s->offs) clReleaseMemObject(s->offs);
    if (s->in) clReleaseMemObject(s->in);
    ocr_reducer_release(s->r);
    ocr_device_close(s->dev);
    free(s->data), free(s->off), free(s->got), free(s->ref);
}

ocr_status cli_run_segments(const cli_options *o, int *argc, char ***argv) {
    (void)argc, (void)argv;
    uint64_t k = o->segments;
    seg_run s = {0};
    cli_segments_result r = {.k = k};
    uint64_t *ns = malloc(((size_t)o->repeats + 1) * sizeof *ns);
    ocr_status st = ns ? setup(o, k, &s) : OCR_NO_MEMORY;
    if (st == OCR_OK) references(o, k, &s, o->data);
    for (unsigned i = 0; st == OCR_OK && i <= o->repeats; ++i, ++r.runs)
        st = one_run(o, k, &s, &ns[i], &r.wrong, &r.first);
    if (st == OCR_OK && o->data != OCR_DATA_ONE_SIDED) { /* the second data set, untimed */
        uint64_t untimed = 0;
        st = one_sided_per_segment(o, k, &s);
        if (st == OCR_OK) st = one_run(o, k, &s, &untimed, &r.wrong, &r.first), ++r.runs;
    }
    if (st == OCR_OK) {
        ocr_median_min_u64(ns + 1, o->repeats, &r.median, &r.min);
        r.min_len = UINT64_MAX;
        for (uint64_t j = 0; j < k; ++j) {
            uint64_t len = offset_at(&s, j + 1) - offset_at(&s, j);
            r.min_len = len < r.min_len ? len : r.min_len;
            r.max_len = len > r.max_len ? len : r.max_len;
        }
        double bytes = (double)o->size * ocr_type_size(o->type) +
                       (double)(k + 1) * ocr_type_size(s.off_type) +
                       (double)k * ocr_type_size(o->type);
        r.gbps = r.median ? bytes / (double)r.median : 0;
        r.off_type = s.off_type;
        cli_report_segments(o, ocr_device_get_info(s.dev)->name, &r);
        if (r.wrong) st = OCR_WRONG;
    }
    seg_release(&s);
    free(ns);
    return st;
}
