/*
 * test_empty.c - n = 0 means the same in every call form (issue 48): the
 * identity of the operator (ocr_identity), as CUB and Boost.Compute return
 * the initial value for an empty range. For int, uint, long, float and
 * double (and char data, combined in int) and each of their operators:
 * ocr_reducer_reduce, _wait (behind a user event), _async and _into (with and
 * without a wait list, the done event completing, the result buffer first
 * filled with other bytes), _strided (stride 3), rows of 0 columns, columns
 * of 0 rows and segments of an empty range. argmin/argmax of an empty range
 * are OCR_USAGE with a message; a custom reducer gives its neutral value.
 *
 *   test_empty
 */
#define _POSIX_C_SOURCE 200809L
#include "ocr.h"
#include "check.h"

#include <string.h>

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;

#define JUNK 0x5a /* the result buffer's bytes before a call */
#define K    3    /* values of a rows/columns/segments call */

static cl_mem buffer(size_t bytes) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_OK(err);
    return m;
}

static void junk(cl_mem m, size_t bytes) {
    unsigned char j = JUNK;
    CL_OK(clEnqueueFillBuffer(q, m, &j, 1, 0, bytes, 0, NULL, NULL));
    CL_OK(clFinish(q));
}

/* The k values of es bytes in m from element `at` are each id's bytes. */
static int all_identity(cl_mem m, size_t at, size_t k, size_t es, const ocr_value *id) {
    unsigned char got[K * 8 + 8];
    CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, at * es, k * es, got, 0, NULL, NULL));
    for (size_t i = 0; i < k; ++i)
        if (memcmp(got + i * es, id, es)) return 0;
    return 1;
}

/* done completed, and released. */
static int completed(cl_event done) {
    cl_int s = 1;
    if (!done) return 0;
    CL_OK(clWaitForEvents(1, &done));
    CL_OK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    clReleaseEvent(done);
    return s == CL_COMPLETE;
}

/* The async forms behind a user event: nothing written before it is set,
 * then the identity, done complete. */
static void gated(ocr_reducer *r, cl_mem in, cl_mem out, size_t es, const ocr_value *id,
                  const char *what) {
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err), done = NULL;
    CL_OK(err);
    junk(out, 16 * es);
    ocr_status st = ocr_reducer_reduce_into(r, q, in, 0, 0, out, 2, 1, &gate, &done);
    EXPECT(st == OCR_OK, "%s: into behind a gate: %s", what, ocr_reducer_last_error(r));
    cl_int s = CL_QUEUED;
    if (done) CL_OK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
    EXPECT(s != CL_COMPLETE, "%s: done completed before the gate opened", what);
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    EXPECT(completed(done), "%s: into's done behind a gate", what);
    EXPECT(all_identity(out, 2, 1, es, id), "%s: into behind a gate wrote no identity", what);
    clReleaseEvent(gate);
}

/* Every form of a reducer of `type` data, operator op, over no elements. */
static void forms(ocr_type type, ocr_op op) {
    ocr_reducer *r = NULL;
    ocr_value v, id = ocr_identity(type, op);
    char what[64];
    snprintf(what, sizeof what, "%s %s", ocr_type_name(type), ocr_op_name(op));
    if (ocr_reducer_create(ctx, dev, type, op, NULL, &r) != OCR_OK) {
        EXPECT(0, "%s: create: %s", what, ocr_reducer_last_error(NULL));
        return;
    }
    size_t es = ocr_result_size(type, op);
    cl_mem in = buffer(64), out = buffer(16 * es), offs = buffer((K + 1) * 4);
    cl_uint zeros[K + 1] = {0};
    CL_OK(clEnqueueWriteBuffer(q, offs, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL));
    cl_event done = NULL;
    /* blocking, at offset 0 and at the end of the buffer */
    memset(&v, JUNK, sizeof v);
    EXPECT(ocr_reducer_reduce(r, q, in, 0, 0, &v) == OCR_OK, "%s: reduce: %s", what,
           ocr_reducer_last_error(r));
    EXPECT(!memcmp(&v, &id, es), "%s: reduce of nothing is not the identity", what);
    memset(&v, JUNK, sizeof v);
    EXPECT(ocr_reducer_reduce(r, q, in, 64 / ocr_type_size(type), 0, &v) == OCR_OK,
           "%s: reduce at the end: %s", what, ocr_reducer_last_error(r));
    EXPECT(!memcmp(&v, &id, es), "%s: reduce at the end is not the identity", what);
    /* async, no wait list, done */
    junk(out, 16 * es);
    EXPECT(ocr_reducer_reduce_async(r, q, in, 0, 0, out, 0, NULL, &done) == OCR_OK, "%s: async: %s",
           what, ocr_reducer_last_error(r));
    EXPECT(completed(done), "%s: async's done", what);
    EXPECT(all_identity(out, 0, 1, es, &id), "%s: async wrote no identity", what);
    gated(r, in, out, es, &id, what);
    /* strided */
    junk(out, 16 * es);
    done = NULL;
    EXPECT(ocr_reducer_reduce_strided(r, q, in, 1, 0, 3, out, 5, 0, NULL, &done) == OCR_OK,
           "%s: strided: %s", what, ocr_reducer_last_error(r));
    EXPECT(completed(done), "%s: strided's done", what);
    EXPECT(all_identity(out, 5, 1, es, &id), "%s: strided wrote no identity", what);
    if (!ocr_type_is_storage(type)) { /* segments read no small types */
        junk(out, 16 * es), done = NULL;
        EXPECT(ocr_reducer_reduce_rows(r, q, in, 0, K, 0, out, 1, 0, NULL, &done) == OCR_OK,
               "%s: rows of 0 columns: %s", what, ocr_reducer_last_error(r));
        EXPECT(completed(done), "%s: rows' done", what);
        EXPECT(all_identity(out, 1, K, es, &id), "%s: rows of 0 columns", what);
        junk(out, 16 * es), done = NULL;
        EXPECT(ocr_reducer_reduce_columns(r, q, in, 0, 0, K, out, 4, 0, NULL, &done) == OCR_OK,
               "%s: columns of 0 rows: %s", what, ocr_reducer_last_error(r));
        EXPECT(completed(done), "%s: columns' done", what);
        EXPECT(all_identity(out, 4, K, es, &id), "%s: columns of 0 rows", what);
        junk(out, 16 * es), done = NULL;
        EXPECT(ocr_reducer_reduce_segments(r, q, in, 0, 0, offs, OCR_UINT, K, out, 0, 0, NULL,
                                           &done) == OCR_OK,
               "%s: empty segments: %s", what, ocr_reducer_last_error(r));
        EXPECT(completed(done), "%s: segments' done", what);
        EXPECT(all_identity(out, 0, K, es, &id), "%s: empty segments", what);
    }
    clReleaseMemObject(offs), clReleaseMemObject(out), clReleaseMemObject(in);
    ocr_reducer_release(r);
}

/* argmin/argmax: no index for an empty range (OCR_USAGE, said), blocking,
 * async and strided alike; a reducer that then works as before. */
static void arg_refused(ocr_op op) {
    ocr_reducer *r = NULL;
    ocr_value v;
    cl_event done = NULL;
    CHECK(ocr_reducer_create(ctx, dev, OCR_FLOAT, op, NULL, &r) == OCR_OK);
    if (!r) return;
    cl_mem in = buffer(64), out = buffer(64);
    ocr_status st = ocr_reducer_reduce(r, q, in, 0, 0, &v);
    EXPECT(st == OCR_USAGE && strstr(ocr_reducer_last_error(r), "empty"),
           "%s of nothing: %d, \"%s\"", ocr_op_name(op), (int)st, ocr_reducer_last_error(r));
    st = ocr_reducer_reduce_async(r, q, in, 0, 0, out, 0, NULL, &done);
    EXPECT(st == OCR_USAGE && !done, "%s async of nothing: %d", ocr_op_name(op), (int)st);
    st = ocr_reducer_reduce_strided(r, q, in, 0, 0, 2, out, 0, 0, NULL, &done);
    EXPECT(st == OCR_USAGE && !done, "%s strided of nothing: %d", ocr_op_name(op), (int)st);
    float x[16];
    for (int i = 0; i < 16; ++i)
        x[i] = (float)((i * 7) % 16);
    CL_OK(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
    st = ocr_reducer_reduce(r, q, in, 0, 16, &v);
    EXPECT(st == OCR_OK && v.arg.index == (op == OCR_ARGMIN ? 0u : 9u),
           "%s after the refusal: %d, index %llu", ocr_op_name(op), (int)st,
           (unsigned long long)v.arg.index);
    clReleaseMemObject(out), clReleaseMemObject(in);
    ocr_reducer_release(r);
}

/* A custom reducer over nothing: its neutral value, blocking and async. */
static void custom_neutral(void) {
    ocr_custom_arg a = {"x", OCR_INT, 1};
    ocr_custom_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.type = OCR_INT, sp.reduce = "max(a, b)", sp.neutral = "-7", sp.args = &a, sp.num_args = 1;
    ocr_reducer *r = NULL;
    if (ocr_reducer_create_custom(ctx, dev, &sp, NULL, &r) != OCR_OK) {
        EXPECT(0, "custom create: %s", ocr_reducer_last_error(NULL));
        return;
    }
    cl_mem in = buffer(64), out = buffer(64);
    ocr_custom_value arg = {in, 0, {0}};
    cl_int got = 0;
    ocr_value v;
    EXPECT(ocr_reducer_reduce_custom(r, q, 0, &arg, &got) == OCR_OK && got == -7,
           "custom of nothing: %d (%s)", got, ocr_reducer_last_error(r));
    EXPECT(ocr_reducer_reduce(r, q, in, 0, 0, &v) == OCR_OK && v.i == -7,
           "custom reduce of nothing: %d (%s)", v.i, ocr_reducer_last_error(r));
    ocr_value id;
    id.i = -7;
    junk(out, 64);
    gated(r, in, out, 4, &id, "custom");
    clReleaseMemObject(out), clReleaseMemObject(in);
    ocr_reducer_release(r);
}

int main(void) {
    static const ocr_type types[] = {OCR_INT, OCR_UINT, OCR_LONG, OCR_FLOAT, OCR_DOUBLE, OCR_CHAR};
    CL_OPEN_FIRST(dev, ctx, q);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
        for (int o = 0; o < OCR_NOPS; ++o)
            if (ocr_op_valid_for((ocr_op)o, types[t]) && !ocr_op_is_arg((ocr_op)o))
                forms(types[t], (ocr_op)o);
    arg_refused(OCR_ARGMIN);
    arg_refused(OCR_ARGMAX);
    custom_neutral();
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return check_summary("test_empty");
}
