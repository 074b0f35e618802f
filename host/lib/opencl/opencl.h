/* opencl.h - what the files of host/lib/opencl/ share, and the floors above
 * them use: the one OpenCL check, the device and kernel structs, builds,
 * sources, geometry, the program cache and the launch of the passes. */
#ifndef OCR_OPENCL_PRIV_H
#define OCR_OPENCL_PRIV_H

#include "core.h"

/* The one error check. OCR_CL wraps a call that returns cl_int; OCR_CHECK tests
 * an error code filled in by a create call. Both report the call, the error's
 * name and file:line, set `st` (ocr_status_from_cl) and jump to the function's
 * `fail` label, where everything is released in reverse order. */
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

struct ocr_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    ocr_device_info info;
};

/* reduce7_finish's groups for a value read right after (geom.finish_max_groups):
 * up to 255 groups one launch took less host time per blocking call than two
 * on an H100 and an H200, from 512 to 1024 more (a read behind a kernel that
 * runs longer waits several microseconds more); a value left on the device
 * takes one launch at any count (docs/perf/latency.md, "One launch for a value
 * that stays on the device"). */
#define OCR_FINISH_READ_MAX_GROUPS 255

/* How a kernel's last group may read the other groups' values in one launch
 * (1: OpenCL 2.0/3.0 acquire-release atomics, *std their -cl-std option; 2:
 * NVIDIA's device-wide global fence; 0: it may not, launch twice), for a
 * build with the caller's `options` (may be NULL). */
ocr_status ocr_finish_mode(const ocr_device *dev, const char *options, int *mode, const char **std);

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
/* the compiler's warnings off (-w): the library's own kernels, so that an
 * application's stderr gets no "N warnings generated." from the OpenCL
 * compiler (POCL's clang notes 16-wide vectors' ABI on CPUs without
 * AVX-512); a kernel under test keeps its warnings, and so does a
 * build whose options say -Werror */
#define OCR_BUILD_QUIET 32
ocr_status ocr_kernel_build_ex(ocr_device *dev, const ocr_build_request *req, int flags,
                               ocr_type input, ocr_kernel **out);

/* ---- building a kernel: ocr_source.c, ocr_geometry.c, ocr_program.c ---- */

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} ocr_strbuf;

/* ocr_source_scan.c: 1 if the compiler, given s[0, n), would resolve an
 * include itself (a directive, or __has_include), with *at its offset in s
 * and text its words as the compiler reads them (cut to cap - 1); 0 if not;
 * -1 when out of memory. */
int ocr_source_find_include(const char *s, size_t n, size_t *at, char *text, size_t cap);

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

/* A program's build log on dev, malloc'd ("" when there is none, trailing
 * blank lines dropped), or NULL. */
char *ocr_build_log(cl_program prog, cl_device_id dev);

/* ocr_find_kernel_file saying nothing at all (no message, no warning): a probe. */
char *ocr_find_kernel_file_quiet(const char *file, const char *explicit_dir);

/* Reads a whole file; NULL and a message on failure. */
char *ocr_read_file(const char *path, size_t *len);

/* ---- the tuning cache: ocr_tune_cache.c (lookup, store, apply in
 * ocr_bench.h; --tune's sweep is run/ocr_tune.c) ---- */

/* ocr_tune_lookup; with `embedded`, keyed by the hash of the sources compiled
 * into the library (what the reducer builds) instead of the files. */
int ocr_tune_lookup_ex(const ocr_device *dev, ocr_type t, const char *kernel_dir, int embedded,
                       ocr_tuning *out, char *note, size_t note_len);
/* The values --tune tries besides the registry row's defaults: the sweep's
 * candidates, and what a cache entry may hold (an unroll among them, no more
 * groups per compute unit than the largest). */
#define OCR_TUNE_N_UNROLLS 3
#define OCR_TUNE_N_GPCU    4
extern const unsigned ocr_tune_other_unrolls[OCR_TUNE_N_UNROLLS];
extern const size_t ocr_tune_gpu_other_gpcu[OCR_TUNE_N_GPCU];
extern const size_t ocr_tune_cpu_other_gpcu[OCR_TUNE_N_GPCU];

#endif
