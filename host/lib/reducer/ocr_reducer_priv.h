/* ocr_reducer_priv.h - the reducer's state and the checks its calls share
 * (ocr_reducer.c: one reduction per call; ocr_segments.c: many). Internal to
 * the library. */
#ifndef OCR_REDUCER_PRIV_H
#define OCR_REDUCER_PRIV_H

#include "ocr_readback.h"

#include <stdatomic.h>

typedef struct ocr_form ocr_form;
/* How the reducer builds its own kernels: kept on disk, and quiet (an
 * application's stderr is its own). */
#define OCR_REDUCER_BUILD (OCR_BUILD_DISK_CACHE | OCR_BUILD_QUIET)

/* How many call forms besides the reducer's own one reducer may use. */
#define OCR_FORMS_MAX 8

struct ocr_reducer {
    atomic_flag busy; /* a call is in it (ocr_reducer_guard.c) */
    cl_context ctx;   /* retained */
    cl_device_id device;
    ocr_device dev;   /* its info, for the build; the context borrowed */
    ocr_type type;    /* of the values combined and of the result */
    ocr_type in_type; /* of the input elements: type, or a narrower one (widening) */
    ocr_op op;
    size_t es, in_es;  /* their sizes */
    cl_mem scratch[2]; /* the passes' outputs, ping-pong (the last pass writes the result) */
    uint64_t scratch_n[2];
    ocr_readback rb;    /* the blocking call's result element and way home */
    cl_command_queue q; /* the last queue checked (retained: its address stays its own) */
    int q_ooo;          /* ... executes out of order */
    cl_event last;      /* the previous call's last command, which the next may need to wait for */
    int last_elsewhere; /* ... enqueued on another queue than q */
    cl_event *wl;       /* a call's wait list when it joins the caller's and last */
    cl_uint wl_cap;
    char *err;     /* the last call's message, NULL after a success */
    cl_int cl_err; /* ... and the raw code of its last failed OpenCL call, else 0 */
    char *kernel_dir, *build_options; /* the options later forms' kernels are built with */
    size_t local_size;
    /* The reducer's own form (reduce7's, ocr_reducer.c, or a custom reducer's,
     * ocr_custom.c) and its state: what ocr_reducer_reduce, _async and _into run. */
    const ocr_form *form;
    void *state;
    /* Other forms (segments, strided, ...), their state made on first use. */
    struct {
        const ocr_form *form;
        void *state;
    } more[OCR_FORMS_MAX];
};

/* ---- one call (ocr_call.c): the protocol every public call runs ---- */
/* A call's arguments: the common ones, and the form's own (`how`). */
typedef struct {
    cl_command_queue q;
    cl_uint num_wait;
    const cl_event *wait;
    cl_mem buf;           /* the input (NULL where the form's arguments name it) */
    uint64_t offset, n;   /* input elements read, from offset on */
    cl_mem result;        /* the blocking call's: r->rb.result */
    size_t result_offset; /* elements of the reducer's type */
    uint64_t count;       /* values written from result_offset on */
    const void *how;      /* the form's own arguments */
    void *host;           /* the blocking call's: where the result's bytes go; else NULL */
    cl_event *done;       /* the caller's, or NULL */
} ocr_call;

/* A call form: one row. A new form is a file with its row and state. */
struct ocr_form {
    const char *name; /* for messages */
    /* The state of a form that is not the reducer's own, made on its first
     * call (NULL: only a reducer's own form; OCR_USAGE with the reason when
     * this reducer cannot take the form). */
    ocr_status (*open)(ocr_reducer *r, void **state);
    /* Everything refused before a command (the queue and wait list are
     * checked already); may build the form's kernels and fill c->how. */
    ocr_status (*check)(ocr_reducer *r, void *state, ocr_call *c);
    /* The commands, the first waiting for wl (nw events): *ev the last one's,
     * or NULL where !want and the queue is in order. */
    ocr_status (*enqueue)(ocr_reducer *r, void *state, const ocr_call *c, cl_uint nw,
                          const cl_event *wl, int want, cl_event *ev);
    void (*release)(void *state);
    /* n = 0: 1 when each of the count values is r's identity (written by the
     * pipeline, ocr_call.c), 0 when enqueue writes it itself. */
    int empty_is_identity;
    /* The reducer's own form: the geometry it was built with (ocr_reducer_geometry). */
    const ocr_geometry *(*geometry)(const void *state);
};

/* One call of form f (NULL: r's own) on r (entered): state, checks, first wait, the form's
 * commands (on failure: clFinish), the last event kept for the next call and
 * the caller's done, the blocking call's bytes read back. */
ocr_status ocr_call_submit(ocr_reducer *r, const ocr_form *f, ocr_call *c);
/* A public call's whole body: r entered (fn names the call in a refusal),
 * ocr_call_submit, the messages and OpenCL code kept as r's last error. */
ocr_status ocr_call_run(ocr_reducer *r, const char *fn, const ocr_form *f, ocr_call *c);
/* The state of form f (r's own, or made on its first call). */
ocr_status ocr_form_state(ocr_reducer *r, const ocr_form *f, void **state);
/* A form's zeroed state of `size` bytes (an open's), or OCR_NO_MEMORY, said. */
ocr_status ocr_form_alloc(size_t size, void **state);
/* The input and result buffers of c: r's context's, elements [offset, offset
 * + n) within the input; *rsize the result buffer's bytes. */
ocr_status ocr_call_buffers(const ocr_reducer *r, const ocr_call *c, size_t *rsize);

/* ---- reduce7's form (ocr_reducer.c): the plain reducer's own ---- */
extern const ocr_form ocr_plain_form;
typedef struct {
    ocr_kernel *k;     /* reads in_type */
    ocr_kernel *k_acc; /* widening only: the same over values of type (the later passes) */
} ocr_plain;
/* r's reduce7 kernels, or NULL with a message (for fn) when r is a custom reducer. */
const ocr_plain *ocr_plain_of(const ocr_reducer *r, const char *fn);

/* ---- custom reducers (ocr_custom.c, ocr_custom_spec.c) ---- */
extern const ocr_form ocr_custom_form;
/* One argument as the calls need it. */
typedef struct {
    ocr_type type;
    int is_buffer;
} ocr_custom_argtype;
struct ocr_custom {
    cl_program program;
    cl_kernel first, final; /* cl/custom.cl's two passes */
    cl_kernel finish;       /* ocr_rk_first_finish (one launch), or NULL */
    cl_mem ticket;          /* its group counter, zero between launches */
    ocr_geometry geom;      /* local_size, max_groups (per_grid) */
    int blocked;            /* a CPU's walk: one-item groups, contiguous chunks */
    size_t acc_size;        /* bytes of the accumulator and result */
    int is_struct;
    ocr_custom_argtype *args;
    size_t num_args;
    ocr_custom_value one; /* a plain call's one buffer argument (ocr_reducer_reduce's) */
};
/* The spec read with the size rule and checked (names, types, the text of
 * the expressions): OCR_USAGE with a message, else OCR_OK and *out. */
ocr_status ocr_custom_spec_read(const ocr_custom_spec *spec, ocr_custom_spec *out);
/* The prelude cl/custom.cl is built after (malloc'd), or NULL (said). */
char *ocr_custom_prelude(const ocr_custom_spec *sp);

/* ---- creating one ---- */
/* The size rule (ocr_reducer.h) for a struct of `known` bytes whose caller
 * says it is n: bytes past `known` must be 0 (else OCR_USAGE, said with
 * what), the first min(n, known) copied to out (the rest left as they are). */
ocr_status ocr_sized_read(const void *in, size_t n, size_t known, const char *what, void *out);

/* Builds r (zeroed) from the caller's options (read with the size rule) and
 * `what`: the context and device not NULL, the rest the builder's. */
typedef ocr_status (*ocr_reducer_builder)(cl_context ctx, cl_device_id device,
                                          const ocr_reducer_options *opt, const void *what,
                                          ocr_reducer *r);
/* Every create: r made by build, registered as live, or the message kept
 * for ocr_reducer_last_error(NULL) and everything undone. */
ocr_status ocr_reducer_make(cl_context ctx, cl_device_id device, const ocr_reducer_options *opt,
                            ocr_reducer_builder build, const void *what, ocr_reducer **out);
/* The context and device checked and retained in r, its info queried;
 * OCR_TOO_LARGE for a local_size (0: the default) over the device's limit. */
ocr_status ocr_reducer_take_device(cl_context ctx, cl_device_id device, size_t local_size,
                                   ocr_reducer *r);

/* ---- the guard (ocr_reducer_guard.c): live reducers, one call at a time ---- */
/* r joins the live set (a created reducer, its flag clear). */
ocr_status ocr_reducer_register(ocr_reducer *r);
/* r leaves the live set, to be freed: OCR_USAGE (said) if it is not live or a
 * call is in it. */
ocr_status ocr_reducer_unregister(ocr_reducer *r);
/* Every public call's entry: r is live and no call is in it, and now this
 * one is (leave when done); else OCR_USAGE, said with fn's name. */
ocr_status ocr_reducer_enter(const ocr_reducer *r, const char *fn);
void ocr_reducer_leave(const ocr_reducer *r);
/* ocr_reducer_enter saying nothing: NULL when entered, else why not. */
const char *ocr_reducer_enter_quiet(const ocr_reducer *r);

/* A public call's first and last lines: the guard, the last error cleared,
 * the call's messages captured; CALL_END keeps them as r's last error. */
#define OCR_CALL_BEGIN(r)                                                                          \
    ocr_last_error_clear();                                                                        \
    do {                                                                                           \
        ocr_status e_ = ocr_reducer_enter((r), __func__);                                          \
        if (e_ != OCR_OK) return e_;                                                               \
    } while (0);                                                                                   \
    int tok_ = ocr_capture_begin()
#define OCR_CALL_END(r, st)                                                                        \
    (ocr_reducer_keep_error(&(r)->err, ocr_capture_end(tok_), (st)),                               \
     (r)->cl_err = (st) == OCR_OK ? CL_SUCCESS : ocr_last_cl_error(), ocr_reducer_leave(r))

/* Keeps the captured text as *slot if the call failed (else frees it). */
void ocr_reducer_keep_error(char **slot, char *text, ocr_status st);
/* The size in bytes of m, which must be a buffer of r's context. */
ocr_status ocr_reducer_buffer_size(const ocr_reducer *r, cl_mem m, const char *what, size_t *size);
/* OCR_USAGE (with the message) unless a result buffer of rsize bytes holds
 * element result_offset of r's type. */
ocr_status ocr_reducer_result_fits(const ocr_reducer *r, size_t rsize, size_t result_offset);
/* Whether r's device is a CPU (and not also a GPU): the kernels' other walk. */
int ocr_reducer_on_cpu(const ocr_reducer *r);
/* The buffer a cl_mem's bytes live in (itself, or the parent of a
 * sub-buffer) and its byte offset there. */
ocr_status ocr_mem_root(cl_mem m, cl_mem *root, size_t *origin);
/* *overlap: whether bytes [a_at, a_at + a_len) of a and [b_at, b_at + b_len)
 * of b are the same memory (one buffer, or sub-buffers of one). */
ocr_status ocr_mem_overlap(cl_mem a, uint64_t a_at, uint64_t a_len, cl_mem b, uint64_t b_at,
                           uint64_t b_len, int *overlap);
/* OCR_USAGE when elements [result_offset, + count) of result_buf meet input
 * elements [offset, offset + n) of buf (same buffer, sub-buffer or parent). */
ocr_status ocr_reducer_check_overlap(const ocr_reducer *r, cl_mem buf, size_t offset, uint64_t n,
                                     cl_mem result_buf, size_t result_offset, uint64_t count);
/* A call's queue (not NULL; its context and device checked when it changed,
 * then remembered) and its wait list (the length agrees with the list). */
ocr_status ocr_reducer_use_queue(ocr_reducer *r, cl_command_queue q, cl_uint num_wait,
                                 const cl_event *wait);
/* Scratch buffer i holds at least `need` elements of r's type. */
ocr_status ocr_reducer_grow(ocr_reducer *r, int i, uint64_t need);
/* The first command's wait list: the caller's, plus the previous call's last
 * command where queue order does not already put it first. */
ocr_status ocr_reducer_first_wait(ocr_reducer *r, cl_uint num_wait, const cl_event *wait,
                                  cl_uint *nw, const cl_event **wl);

#endif
