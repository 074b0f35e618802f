/* ocr_internal.h - what the library's files share and callers need not see. */
#ifndef OCR_INTERNAL_H
#define OCR_INTERNAL_H

#include "ocr.h"

/* The one error check. OCR_CL wraps a call that returns cl_int; OCR_CHECK tests
 * an error code filled in by a create call. Both report the call, the error's
 * name and file:line, set `st` (ocr_status_from_cl) and jump to the function's
 * `fail` label, where everything is released in reverse order. */
void ocr_report_cl(const char *call, cl_int err, const char *file, int line);
/* The status an OpenCL error stands for: OCR_NO_MEMORY, OCR_BUILD,
 * OCR_NO_DEVICE, else OCR_OPENCL. */
ocr_status ocr_status_from_cl(cl_int err);

#define OCR_CHECK(err, call)                                                                       \
    do {                                                                                           \
        cl_int e_ = (err);                                                                         \
        if (e_ != CL_SUCCESS) {                                                                    \
            ocr_report_cl((call), e_, __FILE__, __LINE__);                                         \
            st = ocr_status_from_cl(e_);                                                           \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define OCR_CL(call) OCR_CHECK((call), #call)

/* One message, printf-style, for the caller's callback (ocr_set_message_callback)
 * and the thread's last error; no newline at the end. Nothing is printed. */
void ocr_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A message of several parts (search lists, build logs): ocr_errorf_begin
 * starts it like ocr_errorf, each ocr_errprintf appends text (whole lines, each
 * ending in a newline), ocr_errorf_end delivers it as one message. Every
 * library message goes through these, never to stderr directly. */
void ocr_errorf_begin(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void ocr_errprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void ocr_errorf_end(void);

/* Empties the calling thread's ocr_last_error: the first thing each public
 * entry point that can fail does, so that the text holds that call's
 * messages (every message since is appended). */
void ocr_last_error_clear(void);

/* Capture: until the matching end, this thread's messages are also collected
 * (they still reach the callback). begin returns a token for end (captures
 * nest: an inner one leaves the collecting to the outer). end returns the
 * collected messages joined by newlines, malloc'd, or NULL if there was none. */
int ocr_capture_begin(void);
char *ocr_capture_end(int token);

struct ocr_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    ocr_device_info info;
};

/* The text report's "Result: ..." line up to its closing parenthesis
 * (host/lib/report/ocr_report.c; also the split report's). */
void ocr_print_result(FILE *f, ocr_type t, ocr_op o, ocr_value got, ocr_value want,
                      const char *what, int exact, int any_order, double err_ulps, double tol_ulps,
                      double tol);

/* Runs of the pinned upload alone that a stream times (its report says so). */
#define OCR_STREAM_H2D_REPS 5
#define OCR_STREAM_ROUNDS   3 /* ready streams and copy-only passes, alternated */

/* The reports' writers (host/lib/report/ocr_report.c; strings:
 * ocr_report_quoted). A JSON number, null where not finite: */
void ocr_json_num(FILE *f, double x);
/* The opening of a report's JSON object, up to its "data" field:
 * {"<kind>": true, "kernel": ..., "type": ..., "op": ..., "n": ..., "seed": ..., "data": ... */
void ocr_json_open(FILE *f, const char *kind, const ocr_report_info *ri, ocr_type t, ocr_op o,
                   uint64_t n);
/* Nanoseconds as milliseconds; a / b, 0 when b is 0 (bytes / ns: GB/s). */
double ocr_ms(uint64_t ns);
double ocr_ratio(uint64_t a, uint64_t b);

/* Where a plan's passes read and write (ocr_passes.c): pass 0 reads `in`
 * from element in_off on, pass i writes scratch[i % 2] (the last pass
 * last_out, when it is set, from element out_off on) and pass i + 1 reads it.
 * Pass 0 waits for the wait list; with `chain`, each later pass waits for the
 * one before (not needed on one in-order queue; it needs `events` 0).
 * `events`: 0 an event for every pass, 1 for the last only (ev[0]), 2 none.
 * `first`: pass 0's kernel when it is not the plan's (a widening reducer's
 * input kernel, which reads another type; in_off counts its elements). */
typedef struct {
    cl_mem in, scratch[2], last_out;
    cl_uint num_wait;
    const cl_event *wait;
    int chain;
    uint64_t in_off, out_off; /* nonzero only for a kernel that takes offsets */
    int events;
    const ocr_kernel *first;
} ocr_pass_io;

/* One launch of pass s over src[in_off...] into dst[out_off...]; *ev its
 * event (NULL on failure; ev NULL: none). */
ocr_status ocr_pass_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_pass *s, cl_mem src,
                            uint64_t in_off, cl_mem dst, uint64_t out_off, cl_uint num_wait,
                            const cl_event *wait, cl_event *ev);
/* Every pass of p; ev[0..*nev) are the events of those enqueued (the caller
 * releases them, also after a failure). */
ocr_status ocr_passes_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_plan *p,
                              const ocr_pass_io *io, cl_event *ev, unsigned *nev);

/* reduce7_finish's groups for a value read right after (geom.finish_max_groups):
 * up to 255 groups one launch took less host time per blocking call than two
 * on an H100 and an H200, from 512 to 1024 more (a read behind a kernel that
 * runs longer waits several microseconds more); a value left on the device
 * takes one launch at any count (docs/perf/latency.md, "One launch for a value
 * that stays on the device"). */
#define OCR_FINISH_READ_MAX_GROUPS 255

struct ocr_kernel {
    cl_program program;
    cl_kernel kernel;
    cl_kernel finish_kernel;              /* reduce7_finish, or NULL (geom.finishes) */
    cl_mem finish_ticket, finish_partial; /* its last two arguments, set once */
    int offsets;                          /* reduce7 takes in_off and out_off (arguments 3 and 4) */
    int build_flags;                      /* OCR_BUILD_* */
    ocr_geometry geom;
    ocr_kernel_resources res; /* queried from the built kernel */
    uint64_t default_m;
    ocr_type type;    /* what it combines in, and writes */
    ocr_type in_type; /* what its input holds: type, or a narrower one (reduce7) */
    ocr_op op;
    char *path;
    char *options;
    /* argmin/argmax: this build reads values and writes keys; `rest`, the same
     * kernel built to read keys (keys_in), runs every later pass. Accurate
     * sums alike: `rest` reads the groups' accumulators (OCR_ACCURATE_IN). */
    struct ocr_kernel *rest;
    int keys_in;
};

/* The kernel sources of cl/, compiled into the library (generated at build
 * time by cmake/embed_kernels.cmake): name relative to cl/, text, length. */
typedef struct {
    const char *name;
    const char *text;
    size_t len;
} ocr_embedded_file;
extern const ocr_embedded_file ocr_embedded_files[];
extern const size_t ocr_embedded_count;

/* Every platform and its devices, in order: visit(ctx, p, -1, info) for
 * platform p (info's platform fields only), then visit(ctx, p, d, info) for
 * each of its devices (ocr_device_list formats them). */
typedef void (*ocr_device_visit)(void *ctx, int platform, int device, const ocr_device_info *in);
ocr_status ocr_device_walk(ocr_device_visit visit, void *ctx);
/* "GPU", "CPU", "accelerator" or "other". */
const char *ocr_device_type_name(cl_device_type t);

/* An ocr_device over a caller's context and device: the info queried, the
 * context borrowed (not retained), no queue. Released by the caller's free,
 * never by ocr_device_close. */
ocr_status ocr_device_wrap(cl_context ctx, cl_device_id dev, ocr_device *out);

/* ocr_kernel_build with flags: OCR_BUILD_EMBEDDED builds from the sources
 * compiled into the library instead of files (req->kernel_dir and kernel_file
 * are then ignored); OCR_BUILD_DISK_CACHE lets the program cache keep the
 * binary on disk and build from it (the reducer's builds). `input`: the type
 * of the elements the kernel reads, converted to req->type as they are loaded
 * (OCR_IN_T; reduce7 only); req->type for none. */
#define OCR_BUILD_EMBEDDED   1
#define OCR_BUILD_DISK_CACHE 2
#define OCR_BUILD_KEYS_IN    4 /* later passes (ocr_kernel.rest): keys, accumulators */
/* extra_options starts with the library's own -D options (the segmented
 * kernels'), the caller's after them already checked (ocr_reducer_create) */
#define OCR_BUILD_OWN_OPTIONS 8
/* a first pass alone (cl/strided.cl): no `rest` is built for argmin/argmax,
 * the reducer's own kernels run the later passes */
#define OCR_BUILD_FIRST_ONLY 16
ocr_status ocr_kernel_build_ex(ocr_device *dev, const ocr_build_request *req, int flags,
                               ocr_type input, ocr_kernel **out);

/* A result's check fields from its reference (ocr_result, ocr_split_result):
 * the expected value, the tolerance, whether the comparison is bit for bit,
 * and whether exact data are exact in any order. */
#define OCR_TAKE_REFERENCE(res, ref)                                                               \
    ((res)->expected = (ref).expected, (res)->tolerance = (ref).tolerance,                         \
     (res)->exact = (ref).tolerance == 0, (res)->any_order = (ref).any_order)

/* ---- building a kernel: ocr_source.c, ocr_geometry.c, ocr_program.c ---- */

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} ocr_strbuf;

/* Sets k->path and returns the expanded source in *src (the caller frees
 * src->s, also on failure). */
ocr_status ocr_source_load(const ocr_device *dev, const ocr_build_request *rq, int embedded,
                           ocr_kernel *k, ocr_strbuf *src);

/* How a kernel is launched on a device, before and while it is built. */
typedef struct {
    size_t local;   /* work-group size */
    size_t vec;     /* reduce7: elements per 16-byte load */
    int blocked;    /* reduce7: blocked (CPU) rather than strided access */
    int user_local; /* the caller fixed the work-group size: never shrink it */
    int user;       /* a kernel under test: nothing known before the build */
} ocr_launch_policy;

/* The requested or default work-group size fitted to the device, checked
 * against what the built-in kernels' shapes need; `input` is the type the
 * kernel loads (its 16-byte loads hold 16 / size of it). */
ocr_status ocr_geometry_policy(const ocr_device *dev, const ocr_build_request *rq, int user,
                               ocr_type input, ocr_launch_policy *p);
/* k's launch geometry, once the work-group size is final. */
void ocr_geometry_set(const ocr_device *dev, const ocr_build_request *rq,
                      const ocr_launch_policy *p, ocr_kernel *k);
/* The largest power of two <= x (x >= 1). */
size_t ocr_floor_pow2(size_t x);

/* ocr_tune_lookup; with `embedded`, keyed by the hash of the sources compiled
 * into the library (what the reducer builds) instead of the files. */
int ocr_tune_lookup_ex(const ocr_device *dev, ocr_type t, const char *kernel_dir, int embedded,
                       ocr_tuning *out, char *note, size_t note_len);

/* The program cache (host/lib/opencl/ocr_program_cache.c): the built program
 * for dev's context and device, this source and these options, shared with
 * every other kernel built alike (thread-safe), and CL_SUCCESS. On failure the
 * error, *call naming the failed call, and *out the program that failed to
 * build (for its log), or NULL. Each program got is given back with
 * ocr_program_put, which releases it with its last user. The disk part is off
 * with OCLREDUCTION_PROGRAM_CACHE=off, and under oclgrind. */
cl_int ocr_program_get(const ocr_device *dev, const char *src, size_t len, const char *options,
                       int flags, cl_program *out, const char **call);
void ocr_program_put(cl_program p);
/* What the cache has done in this process (for tests and benchmarks). */
typedef struct {
    unsigned entries;            /* programs held now */
    unsigned long source_builds; /* compiler runs from source */
    unsigned long binary_builds; /* builds from a binary kept on disk */
    unsigned long shared;        /* programs handed out again without a build */
    unsigned long stored;        /* binaries written to disk */
    unsigned long rejected;      /* files on disk ignored: another key's, damaged, or no build */
} ocr_program_cache_stats;
void ocr_program_cache_stats_get(ocr_program_cache_stats *s);

/* A file of the per-user cache: $XDG_CACHE_HOME/oclreduction/NAME, else
 * $HOME/.cache/oclreduction/NAME (ocr_paths.c); 0, or -1 (buf "") when it
 * does not fit or neither is an absolute path: then there is no disk cache. */
int ocr_cache_path(const char *name, char *buf, size_t len);
struct stat;
/* The cache's directory `sub` ("" the top, or "programs") opened for openat,
 * without following a link; created 0700 where missing when `create`.
 * -1 when there is none, or (with *why) when it or the top is not a
 * directory, another user's, or writable by group or others. */
int ocr_cache_dir(const char *sub, int create, char *why, size_t len);
/* openat(dfd, name, flags) never following a link nor waiting on a FIFO (new
 * files 0600), then checked: a regular file of this user that no one else can
 * write; *st its status. -1 when absent (why "") or refused (why says). */
int ocr_cache_open(int dfd, const char *name, int flags, struct stat *st, char *why, size_t len);
/* A new file in dfd for writing, 0600, under a fresh random name
 * (.STEM.<random>.tmp, in name) made with O_EXCL|O_NOFOLLOW; the fd or -1. */
int ocr_cache_tmp(int dfd, const char *stem, char *name, size_t len);

/* Everything known about an element type, in one row (ocr_types.c). */
typedef struct {
    const char *name;          /* --type name and OpenCL C type (OCR_T) */
    size_t size;               /* bytes per element */
    int is_float, is_signed;   /* OCR_IS_FLOAT; signedness of integers */
    const char *unsigned_twin; /* OCR_UT: where integer sums and products wrap (NULL: float) */
    int needs_fp64;            /* needs cl_khr_fp64 (OCR_FP64) */
    unsigned mantissa_bits;    /* significand bits, 0 for integers (exact data) */
    unsigned prod_factor_span; /* 2L: exact product data keeps |p| in range this long */
    int digits;                /* printf precision that round-trips a float */
    const char *format;        /* printf format of a value as (unsigned) long long or double */
    ocr_value identity[OCR_NOPS];
    const char *identity_source[OCR_NOPS]; /* for -D OCR_IDENTITY= */
    unsigned widens_to;   /* bit u: may be combined in type u (ocr_type_widens_to) */
    int storage_only;     /* 1: data is read but never combined in this type (small types) */
    ocr_type accumulator; /* storage_only: the type it is combined in by default */
    uint64_t max_int;     /* storage_only integers: the largest value (data ranges) */
} ocr_type_traits;

/* One row per operator. */
typedef struct {
    const char *name;
    int for_floats; /* 0: bitwise, integers only */
} ocr_op_traits;

const ocr_type_traits *ocr_type_traits_of(ocr_type t);

/* argmin/argmax (host/lib/core/ocr_arg.c): what the kernels combine and write
 * for them, one cl_ulong2: the value as an ordered key, and its index. */
typedef struct {
    uint64_t key, index;
} ocr_arg_key;
/* The size of one value the passes write: the key for argmin/argmax. */
size_t ocr_acc_size(ocr_type t, ocr_op o);
uint64_t ocr_arg_key_of(ocr_type t, ocr_op o, const void *elem);
ocr_value ocr_arg_decode(ocr_type t, ocr_op o, const ocr_arg_key *k);
/* The first index of the extreme of data[0..n) (n = 0: index UINT64_MAX). */
ocr_value ocr_arg_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o);
/* The same over n keys a pass wrote. */
ocr_value ocr_arg_finish(const void *keys, uint64_t n, ocr_type t, ocr_op o);
/* An accurate sum's CPU finish: n float or double values, or (parts) the
 * groups' accumulators a pass wrote, OCR_ACCURATE_PARTS values each
 * (cl/reduce7.cl), rounded once to t. */
ocr_value ocr_sum_accurate_parts(const void *data, uint64_t n, ocr_type t, int parts);
ocr_value ocr_arg_combine(ocr_type t, ocr_op o, ocr_value a, ocr_value b);
/* OpenCL C text of the identity. */
const char *ocr_identity_source(ocr_type t, ocr_op o);

/* Depth of ocr_reduce_best's evaluation order, for the float bound. */
uint64_t ocr_best_depth(uint64_t n, unsigned threads);

/* The index of s in names[0..n), or -1: every name-to-enum lookup. */
int ocr_name_index(const char *s, const char *const *names, int n);
/* ocr_reference_make's any_order for the whole input of n elements (a
 * streamed check makes references of chunks only). */
/* Exact half <-> float, rounding to nearest even (ocr_types.c). */
float ocr_half_to_float(uint16_t h);
uint16_t ocr_float_to_half(float f);
/* Storage types on the host (ocr_combine.c): n small elements as accumulator
 * values into out, and the naive loop combining them in the accumulator (not
 * argmin/argmax: ocr_arg_reduce reads small elements itself). */
void ocr_small_widen(const void *data, uint64_t n, ocr_type t, void *out);
ocr_value ocr_small_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o);
int ocr_reference_any_order(ocr_type t, ocr_op o, uint64_t n, ocr_data_kind kind);

/* ocr_find_kernel_file saying nothing at all (no message, no warning): a probe. */
char *ocr_find_kernel_file_quiet(const char *file, const char *explicit_dir);

/* The directory of the file holding the library's code (the shared library,
 * or the program an archive is linked into), or "" where unknown. */
void ocr_library_dir(char *buf, size_t len);
/* For a binary of a build tree (exe_dir: its directory), the source tree's cl/
 * as the build's marker file names it (host/lib/core/ocr_paths.c); else NULL. */
const char *ocr_source_kernel_dir(const char *exe_dir);

/* Reads a whole file; NULL and a message on failure. */
char *ocr_read_file(const char *path, size_t *len);

#endif
