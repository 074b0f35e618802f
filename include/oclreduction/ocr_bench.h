/*
 * ocr_bench.h - the benchmark and run API of the oclreduction library: open
 * an OpenCL device, load and build a reduction kernel from its .cl file, plan
 * the passes, run and check a reduction of host data, report, tune, split
 * over devices, stream. The oclReduction program is a thin shell over this.
 * Statuses, types, operators, values and the message channel: ocr_core.h.
 * Reports asked for with a FILE * go to that file.
 *
 * Static only: the shared library does not export these functions (its ABI
 * is ocr_core.h and ocr_reducer.h). A program links the archive
 * (oclreduction::oclreduction_bench, or oclreduction_static; pkg-config
 * oclreduction-static). While the major version is 0 this API and its
 * structs (which carry no size field) may change with every minor version;
 * the CMake package accepts the same minor version only, so a program is
 * built against the headers of the archive it links.
 */
#ifndef OCR_BENCH_H
#define OCR_BENCH_H

#include "ocr_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices ------------------------------------------------------------ */

typedef struct {
    int platform;        /* index, or -1 for the default choice */
    int device;          /* index within the platform (or among all), or -1 */
    cl_device_type type; /* CL_DEVICE_TYPE_ALL: GPU if any, else the first device */
    int type_given;      /* 1 if the user asked for a type explicitly */
} ocr_device_choice;

typedef struct ocr_device ocr_device; /* a context and profiling queue on one device */

ocr_status ocr_device_open(const ocr_device_choice *choice, ocr_device **out);
void ocr_device_close(ocr_device *dev);
/* Fills out[0..*count) with one choice per device of `type` (CL_DEVICE_TYPE_ALL:
 * every device), each naming its platform and its index within the platform. */
ocr_status ocr_device_enumerate(cl_device_type type, ocr_device_choice *out, int max, int *count);
/* The devices a choice covers: every device of choice->type on platform
 * choice->platform (every platform if < 0), at most max; with gpus_first and
 * no type given (type_given 0), the GPUs alone where there are any. *count
 * may be 0. */
ocr_status ocr_device_select(const ocr_device_choice *choice, int gpus_first,
                             ocr_device_choice *out, int max, int *count);
/* Prints every platform and device with its main limits. */
ocr_status ocr_device_list(FILE *f);

typedef struct {
    char name[256], vendor[256], version[128], driver[128];
    char platform[256], platform_version[256];
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong global_mem, local_mem, max_alloc;
    size_t max_wg, max_item0;
    int fp64;
    int host_unified;
} ocr_device_info;

const ocr_device_info *ocr_device_get_info(const ocr_device *dev);
cl_context ocr_device_context(const ocr_device *dev);
cl_command_queue ocr_device_queue(const ocr_device *dev);
cl_device_id ocr_device_id(const ocr_device *dev);

/* ---- kernels ------------------------------------------------------------ */

typedef struct {
    const char *name; /* kernel function name, e.g. "reduce6" */
    const char *file; /* file relative to the kernel directory */
    ocr_kernel_kind kind;
    size_t local_size;            /* default work-group size (0: chosen from the device) */
    size_t block;                 /* values held in local memory per group (PER_GROUP) */
    unsigned loads_per_slot;      /* elements combined into each local slot while loading */
    size_t default_m;             /* default CPU threshold M (0: from the plan's geometry) */
    const char *summary;          /* one line for --help and --list-kernels */
    struct {                      /* PER_GRID defaults by device type ({0} for the others) */
        unsigned unroll;          /* 16-byte loads issued per work-item before the first is used */
        size_t gpu_items_per_cu;  /* resident work-items per GPU compute unit */
        size_t cpu_groups_per_cu; /* groups per CPU core */
        size_t cpu_local_size;    /* work-group size with blocked access on a CPU */
    } grid;
    unsigned caps; /* OCR_KERNEL_* abilities (0 for a --kernel-file kernel) */
} ocr_kernel_spec;

/* What a built-in kernel can do besides reducing (ocr_kernel_spec.caps): the
 * program asks these, never a kernel's name. */
enum {
    OCR_KERNEL_FREE_GEOMETRY = 1, /* groups per launch and access pattern are free (PER_GRID) */
    OCR_KERNEL_TUNABLE = 2,       /* --tune sweeps its geometry; the tuning cache applies */
    OCR_KERNEL_STREAMABLE = 4,    /* the reducer's kernel: it streams inputs beyond one buffer */
    OCR_KERNEL_ARG = 8,           /* keeps indices: argmin and argmax (cl/reduce_common.h) */
    OCR_KERNEL_ACCURATE = 16,     /* builds as a compensated float sum (OCR_ACCURATE) */
    OCR_KERNEL_SMALL = 32,     /* reads storage types (char .. half) through OCR_IN_T, combining in
                                  the accumulator (ocr_type_accumulator) */
    OCR_KERNEL_TUNED = 64,     /* set on a request by ocr_tune_apply: its geometry is the tuning
                                  cache's, so a work-group size past what the compiled kernel
                                  allows is shrunk, as a default one is, not refused */
    OCR_KERNEL_CONFINED = 128, /* set on a request by the grader: a kernel_file's includes stay
                                  in its folder (no absolute name, no "..", no link out), so a
                                  graded kernel cannot read the teacher's files */
    OCR_KERNEL_REDUCER = 256,  /* THE kernel of the reducer (ocr_reducer.h), which --tune tunes
                                  and --stream runs through it: one row of the registry has it */
    OCR_KERNEL_HISTOGRAM = 512 /* set on a request for a kernel_file that counts a histogram
                                  (ocr_hist_file_run): its signature is OCR_HIST_FILE_SIGNATURE,
                                  not the reduction's */
};

/* The built-in kernels reduce0..reduce7 and the race lab, by name or number. */
const ocr_kernel_spec *ocr_kernel_find(const char *name_or_number);
const ocr_kernel_spec *ocr_kernel_at(size_t i); /* NULL past the end */
/* The first built-in kernel whose abilities include all of `caps`
 * (OCR_KERNEL_*), or NULL: how the library and the program choose a kernel,
 * never by its name (ocr_kernel_for(OCR_KERNEL_REDUCER): the reducer's). */
const ocr_kernel_spec *ocr_kernel_for(unsigned caps);

/* What to build: a kernel spec plus the choices that become -D options. */
typedef struct {
    ocr_kernel_spec spec;
    const char *kernel_dir;  /* --kernel-dir, or NULL */
    const char *kernel_file; /* explicit file (student kernels), or NULL */
    ocr_type type;
    ocr_op op;
    size_t local_size;         /* 0: the spec's default, shrunk to fit the device; at most
                                  OCR_MAX_LOCAL_SIZE (else OCR_USAGE) */
    size_t groups;             /* PER_GRID: groups per launch, 0: from the device; at most
                                  OCR_MAX_GROUPS (else OCR_USAGE) */
    int access;                /* PER_GRID: 0 auto (blocked on CPUs), 1 strided, 2 blocked */
    const char *extra_options; /* appended to the build options, or NULL */
    unsigned unroll;           /* PER_GRID: loads in flight per work-item, 0: the default (8) */
    int accurate;              /* 1: a compensated float or double sum, within one ulp of the
                                  correctly rounded sum (a kernel with OCR_KERNEL_ACCURATE,
                                  OCR_SUM on a float type; else OCR_USAGE) */
} ocr_build_request;

typedef struct ocr_kernel ocr_kernel;

/* OCR_OK if extra build options (NULL or "" included) can go to the compiler:
 * each -D, -U and -I has its argument, attached or as the next word, and a
 * macro name starts like an identifier and is none the kernels are built with
 * (ocr_build_reserved_name: -DOCR_IDENTITY=5 would change what is computed),
 * nor an OpenCL C keyword, type, built-in function or macro the kernels use
 * (float, float4, barrier, get_*, atomic_*, CLK_*, ...: -Dfloat=int).
 * The words are split and unquoted as a shell would ("-D" "NAME", '-DNAME=1').
 * Else one message and OCR_USAGE (some OpenCL compilers crash on a bare -D).
 * Every build checks its extra_options with it (the reducer's build_options,
 * the benchmark API's, the CLI's --build-options, the grader's); a program
 * can call it while parsing its own options. */
ocr_status ocr_build_options_check(const char *options);
/* Entry i of the names a caller's -D or -U may not name, NULL past the last:
 * a name, or "PREFIX*" for every name that starts with PREFIX. */
const char *ocr_build_reserved_name(size_t i);
/* OCR_OK unless the options let the compiler reassociate float additions
 * (-cl-fast-relaxed-math, -cl-unsafe-math-optimizations), which would undo an
 * accurate sum's compensation: then one message and OCR_USAGE. */
ocr_status ocr_build_options_check_accurate(const char *options);

ocr_status ocr_kernel_build(ocr_device *dev, const ocr_build_request *req, ocr_kernel **out);
void ocr_kernel_release(ocr_kernel *k);

const ocr_geometry *ocr_kernel_geometry(const ocr_kernel *k);

/* What the built kernel needs on its device, as the device reports it after
 * the build (clGetKernelWorkGroupInfo); the build refuses only what these and
 * the device's limits rule out. */
typedef struct {
    size_t work_group_size;    /* CL_KERNEL_WORK_GROUP_SIZE: most work-items per group */
    size_t preferred_multiple; /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (warp, SIMD) */
    uint64_t local_mem;        /* CL_KERNEL_LOCAL_MEM_SIZE: bytes per work-group */
    uint64_t private_mem;      /* CL_KERNEL_PRIVATE_MEM_SIZE: bytes per work-item (0: unknown) */
    size_t required_size;      /* CL_KERNEL_COMPILE_WORK_GROUP_SIZE[0]: 0 if none required */
} ocr_kernel_resources;

const ocr_kernel_resources *ocr_kernel_get_resources(const ocr_kernel *k);
const char *ocr_kernel_path(const ocr_kernel *k);
const char *ocr_kernel_options(const ocr_kernel *k);
uint64_t ocr_kernel_default_m(const ocr_kernel *k);

/* A student's histogram kernel (--histogram --kernel-file): built by
 * ocr_kernel_build from a request whose spec.caps has OCR_KERNEL_HISTOGRAM,
 * which checks this signature instead of the reduction's (T: the request's
 * type). Even bins over [lo, hi]: bin floor((x - lo) * (bins / (hi - lo)))
 * in float, x == hi in the last bin, NaN and samples outside [lo, hi] not
 * counted (docs/labs/lab9-histogram.md). */
#define OCR_HIST_FILE_SIGNATURE                                                                    \
    "__kernel void NAME(__global const T *in, const ulong n, __global uint *counts, "              \
    "const uint bins, const float lo, const float hi)"
typedef struct {
    uint64_t bins; /* 1 .. 2^32 - 2 */
    float lo, hi;
    size_t groups; /* work-groups of the launch; 0: ocr_hist_file_groups's choice */
} ocr_hist_file_options;
typedef struct {
    size_t local, groups; /* the grid it ran: groups x local work-items */
    uint64_t ns;          /* the launch's device time (its event) */
} ocr_hist_file_launch;
/* The groups a launch takes: `groups`, or 0 for 4 per compute unit. */
size_t ocr_hist_file_groups(const ocr_device *dev, size_t groups);
/* Zeroes counts[0 .. bins] (bins + 1 uints: the last a guard the kernel must
 * not touch, which the caller checks), then launches k once over the grid on
 * dev's queue and waits. counts must hold bins + 1 uints. */
ocr_status ocr_hist_file_run(ocr_device *dev, ocr_kernel *k, cl_mem in, uint64_t n, cl_mem counts,
                             const ocr_hist_file_options *opt, ocr_hist_file_launch *out);

/* Where the device reports enough (NVIDIA's cl_nv_device_attribute_query,
 * plus the registers from a build with -cl-nv-verbose), an occupancy estimate
 * for the built kernel: the groups that fit on one compute unit and what
 * limits them (host/lib/opencl/ocr_resources.c). */
typedef struct {
    unsigned registers, warp; /* 0 where unknown */
    int cc_major, cc_minor;
    int known;        /* 0: the device does not report what an estimate needs */
    double occupancy; /* resident work-items / the compute unit's maximum */
    unsigned groups_per_cu, cu_threads;
    unsigned long cu_local_mem;
    const char *limited_by; /* "work-items", "registers", "local memory" or "groups" */
} ocr_occupancy;

void ocr_kernel_occupancy(const ocr_device *dev, const ocr_kernel *k, ocr_occupancy *occ);
/* The resources report of --resources: the kernel's needs, then the estimate. */
void ocr_resources_print(FILE *f, const ocr_device *dev, const ocr_kernel *k,
                         const char *kernel_name, const ocr_occupancy *occ);
/* 1 if the device lists the OpenCL extension `name`. */
int ocr_device_has_extension(const ocr_device *dev, const char *name);

/* Searches for a kernel file: explicit dir, $OCLREDUCTION_KERNEL_DIR, the
 * source tree (build-tree binaries), the kernels installed beside the shared
 * library (found through dladdr, so a moved prefix works for any program),
 * beside the program, the configured data directory. On failure reports every
 * place searched. Returns a malloc'd path or NULL. */
char *ocr_find_kernel_file(const char *file, const char *explicit_dir);

/* ---- plan --------------------------------------------------------------- */

#define OCR_MAX_PASSES 64

typedef struct {
    uint64_t n_in, n_out, groups, local_size, global_size;
    int finish; /* this launch also combines its groups' values: n_out is 1 */
} ocr_pass;

typedef struct {
    uint64_t n, m; /* input size and CPU threshold */
    unsigned npasses;
    ocr_pass pass[OCR_MAX_PASSES];
    uint64_t leftover;   /* values read back and finished on the CPU */
    uint64_t elems_read; /* by all passes, for the bandwidth figure */
    uint64_t depth;      /* longest chain of operations any input goes through */
} ocr_plan;

/* Plans the passes: while more than m values remain, one launch; at least one
 * for a kernel whose geometry says tree == 0 (a kernel under test). n, m >= 1. */
ocr_status ocr_plan_make(const ocr_geometry *g, uint64_t n, uint64_t m, ocr_plan *out);
void ocr_plan_print(FILE *f, const ocr_plan *p, size_t elem_size);
/* The passes a reducer's call on n values enqueues, blocking (ocr_reducer_reduce)
 * or async (ocr_reducer_reduce_async, _into): they may differ, the blocking
 * call keeping two launches where a read right behind one longer kernel waits
 * longer (ocr_geometry.finish_max_groups). For benchmarks that print the plan
 * beside the time. OCR_USAGE for a NULL reducer or plan, or n == 0. */
ocr_status ocr_reducer_plan(const ocr_reducer *r, uint64_t n, int blocking, ocr_plan *plan);
/* A custom reducer's (ocr_reducer_create_custom) longest chain of reduce
 * calls from any map value to the result of a call on n values, from the
 * launches it makes (cl/custom.cl): the work-item's walk (four running
 * values, a quarter of its share each, and the steps that join them), the
 * group's tree, and where there are several groups the final pass's walk
 * over their partials and its tree. Each call rounds a float sum once: the
 * depth of ocr_sum_bound. 0 for another reducer or NULL. */
uint64_t ocr_reducer_custom_depth(const ocr_reducer *r, uint64_t n);
/* How many kernels a custom reducer's call on n values launches: 1 where one
 * group does it all, or the last of up to 255 groups finishes (cl/custom.cl's
 * ocr_rk_first_finish, where the device lets it), else 2. 0 for another
 * reducer or NULL. */
uint64_t ocr_reducer_custom_launches(const ocr_reducer *r, uint64_t n);
/* Enqueues every pass of plan p (made for k's geometry) of the built kernel k
 * on the in-order queue q: pass 0 reads the p->n values at the start of `in`,
 * pass i writes scratch[i % 2] (each holds at least the first two passes'
 * outputs, p->pass[0 and 1].n_out values). The p->leftover values for the CPU
 * to finish are then at the start of scratch[(p->npasses - 1) % 2], or of
 * `in` when there is no pass. Nothing is waited for: read them with a
 * blocking read on q. The launches ocr_run and the reducer make, for a
 * benchmark over buffers the caller owns (bench/peers/peers.c). */
ocr_status ocr_plan_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_plan *p, cl_mem in,
                            const cl_mem scratch[2]);

/* ---- data, reference, check --------------------------------------------- */

/* Which seeded input to make. EXACT (the default) chooses values whose
 * reduction is exact in any order of operations wherever that can be arranged
 * (dyadic floats with bounded partial sums, powers of two for products), so
 * the check compares bit for bit and a lost or doubled element fails for every
 * type. UNIFORM draws floats uniformly (sums) or near 1 (products), whose
 * rounding depends on the order: checked against a proven bound, with the
 * observed error reported in ulps. Integers are the same in both. ONE_SIDED is
 * the second data set behind every verdict on a kernel under test, chosen so
 * that losses cannot cancel (sums of elements >= 0; float products of +-2^e,
 * e != 0, whose exponent prefix sums never return to 0; the extreme of min and
 * max at element n - 1; host/lib/core/ocr_reference.c has the rules); it is
 * exact too. */
/* MAX: every element the integer type's largest value (127 for char, 255
 * for uchar, ...): the worst case of an accumulator, whose sum of n elements
 * is n times it (integer types; the program refuses it for floats, which get
 * 1.0 here). */
typedef enum { OCR_DATA_EXACT, OCR_DATA_UNIFORM, OCR_DATA_ONE_SIDED, OCR_DATA_MAX } ocr_data_kind;

const char *ocr_data_kind_name(ocr_data_kind k);
int ocr_data_kind_from_name(const char *s, ocr_data_kind *k); /* 0 on success */

/* Seeded, reproducible input for (type, op, n): element i depends on
 * (seed, i, n) only (n sets the value range that keeps sums exact). */
void ocr_data_fill(void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t seed, ocr_data_kind kind);

/* The optimized CPU reduction: `threads` threads (0: one per online CPU), each
 * with several independent accumulators so the compiler vectorizes the loop. */
ocr_value ocr_reduce_best(const void *data, uint64_t n, ocr_type t, ocr_op o, unsigned threads,
                          unsigned *threads_used);

/* The naive loop (the tutorial's CPU reference), in the element type. */
ocr_value ocr_reduce_naive(const void *data, uint64_t n, ocr_type t, ocr_op o);

typedef struct {
    ocr_value expected;  /* exact for integers; compensated sum/product for floats */
    double tolerance;    /* allowed |got - expected|; 0 for exact comparisons */
    int nonfinite_input; /* the input holds NaN or Inf: any non-finite result passes a
                            non-finite expected value (0 for accurate sums, whose
                            infinities and NaNs are IEEE's: ocr_reference_accurate) */
    int any_order;       /* exact data: exact in every order (else: in every order whose
                            partial sums stay below 2^24 units, see ocr_reference.c) */
    int arg;             /* argmin/argmax: the index (expected.arg.index) is checked too */
} ocr_reference;

/* The reference the check uses: exact for integers, for min and max, and for
 * exact data; for uniform float data, compensated summation in long double and
 * an error bound from the plan's depth. */
void ocr_reference_make(const void *data, uint64_t n, ocr_type t, ocr_op o, uint64_t depth,
                        ocr_data_kind kind, ocr_reference *ref);
/* For an accurate sum (ocr_build_request.accurate): a float or double sum's
 * tolerance, where it has one (uniform data), becomes one ulp of the
 * reference, whatever the depth. Exact data stay bit for bit. An infinity or
 * NaN must be IEEE's: +-inf where an infinity is in the input or the exact
 * sum overflows, NaN where a NaN is or +inf meets -inf. */
void ocr_reference_accurate(ocr_type t, ocr_op o, ocr_reference *ref);
/* The sum of n float or double values, compensated in long double and
 * rounded once to t (past the type's largest: an infinity; with an infinity
 * or NaN among them: IEEE's sum). */
ocr_value ocr_sum_compensated(const void *data, uint64_t n, ocr_type t);
/* The proven bound on |computed - exact| of a float or double (t) sum whose
 * values' magnitudes add up to abs_sum, each value rounded at most `depth`
 * times on its way to the result: ((1 + u)^depth - 1) abs_sum, and at least
 * 4 u |exact| (u: half t's epsilon). ocr_reference_make's tolerance; a check
 * of any sum whose order of operations is known (the custom reducer's:
 * ocr_reducer_custom_depth). */
double ocr_sum_bound(ocr_type t, uint64_t depth, double exact, double abs_sum);
/* 1 if got matches the reference. */
int ocr_check(ocr_type t, const ocr_reference *ref, ocr_value got);
/* |got - expected| in units in the last place of expected (floats; 0 for
 * integers), for reports of the observed rounding error. */
double ocr_error_ulps(ocr_type t, ocr_value expected, ocr_value got);
double ocr_ulps_of(ocr_type t, ocr_value expected, double abs_error);

/* ---- run ---------------------------------------------------------------- */

/* The parts of one reduction. gpu = h2d + kernels + d2h + cpu exactly (end
 * to end, upload included); resident = kernels + d2h + cpu (the tutorial's
 * "T gpu": the input already on the device); wall is the host clock from the
 * first enqueue to the CPU finish, so it also holds launch gaps and host
 * overheads the events do not see. */
typedef struct {
    uint64_t h2d_ns, kernels_ns, d2h_ns, cpu_ns, gpu_ns, wall_ns, resident_ns;
} ocr_times;

/* One timed reduction (or the warm-up) and the value it produced. */
typedef struct {
    ocr_times t;
    ocr_value result;
    int passed;                       /* the check, on this run's value */
    uint64_t pass_ns[OCR_MAX_PASSES]; /* each launch's event */
    uint64_t gap_ns[OCR_MAX_PASSES];  /* device idle before it (after the previous command) */
} ocr_run_sample;

/* How input data reaches the device (what T gpu's H2D part measures). */
typedef enum {
    OCR_HOST_AUTO,     /* zero-copy on host-unified devices, else pinned */
    OCR_HOST_PAGEABLE, /* clEnqueueWriteBuffer from ordinary (malloc) memory */
    OCR_HOST_PINNED,   /* ... from page-locked memory (CL_MEM_ALLOC_HOST_PTR, mapped) */
    OCR_HOST_ZERO_COPY /* kernels read a host-allocated buffer; H2D is its map + unmap */
} ocr_host_mem;

const char *ocr_host_mem_name(ocr_host_mem h);
int ocr_host_mem_from_name(const char *s, ocr_host_mem *h);

/* Whether ocr_run also checks the second data set (ocr_run_options.second). */
typedef enum { OCR_SECOND_AUTO, OCR_SECOND_ON, OCR_SECOND_OFF } ocr_second_data;

/* NONE skips timing the CPU (benchmarks of the device alone); the check runs. */
typedef enum { OCR_CPU_NAIVE, OCR_CPU_BEST, OCR_CPU_NONE } ocr_cpu_baseline;

typedef struct {
    unsigned repeats; /* timed runs after one warm-up, >= 1 */
    uint64_t m;       /* CPU threshold, 0: the kernel's default */
    ocr_host_mem host_mem;
    ocr_cpu_baseline cpu; /* BEST also times the optimized CPU reduction */
    ocr_data_kind data;   /* how the data was made: decides the check */
    /* Called on the calling thread before each run (the warm-up too) and once
     * after the last: repeats + 2 calls. NULL: none. --split and --mpi make
     * every device start run r together with it (a barrier). */
    void (*sync)(void *ctx);
    void *sync_ctx;
    /* The verdict's second data set (docs/output.md, "What is checked"): AUTO
     * (0) checks every kernel of unknown order (a kernel under test: geometry
     * tree == 0) also on independent one-sided data made with `seed` (exact
     * data if `data` is one-sided itself): a warm-up and one run, both checked.
     * ON does that for any kernel, OFF for none. */
    ocr_second_data second;
    uint64_t seed;
} ocr_run_options;

typedef struct {
    ocr_plan plan;
    ocr_value result; /* the device's answer: the first run that failed, else the last */
    ocr_value expected;
    double tolerance;
    int exact;        /* compared bit for bit (tolerance 0) */
    int any_order;    /* see ocr_reference */
    double err_ulps;  /* |result - expected| in ulps of expected (floats) */
    double tol_ulps;  /* the tolerance in the same ulps */
    int passed;       /* every run (warm-up included) passed and all agreed, the second
                         data set too, and nothing was written past the output */
    unsigned bad_run; /* 0: none; else 1 + the index in runs[] of the first run that failed
                         or differed from runs[0] (runs[0] is the warm-up) */
    unsigned repeats;
    ocr_run_sample *runs;  /* repeats + 1 entries, [0] the warm-up; ocr_result_release frees */
    ocr_times median, min; /* of each field over the timed runs: median.gpu_ns is the
                              median of the totals, not the sum of the parts' medians */
    uint64_t ref_ns_median, ref_ns_min;   /* the naive CPU loop */
    uint64_t best_ns_median, best_ns_min; /* the optimized CPU reduction (if asked) */
    ocr_value best_result;
    int best_passed;
    unsigned cpu_threads;
    ocr_host_mem host_mem; /* the path that ran (never AUTO) */
    struct {               /* the second data set (see ocr_run_options) */
        unsigned runs;     /* runs checked on it; 0: not checked */
        ocr_data_kind data;
        int passed;
        ocr_value result, expected; /* the first run that failed, else the last */
    } second;
    /* Kernels under test write only out[0..values): every run checks a guard
     * past the output buffers (the launch's global size plus 4 KiB, poisoned,
     * so such a write lands in the buffer and is found the same way every
     * time) and past the input. oob_pass: 0, or 1 + the first pass writing the
     * buffer that was written past; oob_index: the first element written past
     * oob_values, the values its passes write. */
    unsigned oob_pass;
    uint64_t oob_index, oob_values;
} ocr_result;

/* Refuses, with a message and OCR_TOO_LARGE, a size whose buffers exceed the
 * device's CL_DEVICE_MAX_MEM_ALLOC_SIZE or global memory, or whose host copies
 * exceed the memory available to this process; OCR_USAGE if it cannot be
 * planned. Cheap: call it before allocating the input. */
ocr_status ocr_check_size(const ocr_device *dev, const ocr_kernel *k, uint64_t n,
                          const ocr_run_options *opt);

/* Uploads data (n elements of the type the kernel was built to read),
 * runs the plan repeats+1 times (the first is a warm-up), checks every
 * run's answer with the kernel's operator and times everything. On OCR_OK
 * or OCR_WRONG the result owns memory: release it with ocr_result_release
 * (safe on any result ocr_run has filled, and twice). */
ocr_status ocr_run(ocr_device *dev, ocr_kernel *k, const void *data, uint64_t n,
                   const ocr_run_options *opt, ocr_result *res);
void ocr_result_release(ocr_result *res);

/* ---- report ------------------------------------------------------------- */

typedef enum { OCR_FORMAT_TEXT, OCR_FORMAT_CSV, OCR_FORMAT_JSON } ocr_format;

/* What a report needs besides the result. */
typedef struct {
    const char *kernel_name;
    ocr_type type;
    ocr_op op;
    uint64_t seed;
    ocr_data_kind data;
    const char *build_options; /* what the user added to the build, or NULL */
    int csv_header;            /* CSV: print the header line first */
    int json_runs;             /* JSON: include the runs[] array (every run's parts and value) */
    int passes;                /* text: add the per-launch table */
    const char *tuning;        /* reduce7: where its geometry came from, or NULL */
} ocr_report_info;

/* text: the tutorial's shape (kernel, size, device, PASSED or FAILED, memory IO,
 * bandwidth, T kernels, T gpu, T ref, speedups); csv: one row; json: one object.
 * docs/output.md documents every field. */
void ocr_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_kernel *k,
                const ocr_report_info *info, const ocr_result *r);
/* The CSV header line alone (for several rows under one header). */
void ocr_report_csv_header(FILE *f);
/* s as one quoted JSON string (OCR_FORMAT_JSON: quotes, backslashes and
 * control characters escaped) or CSV field (otherwise: quotes doubled), for
 * reports a caller composes around the library's (every report's strings go
 * through it). */
void ocr_report_quoted(FILE *f, ocr_format fmt, const char *s);

/* ---- tuning ------------------------------------------------------------- */

/* reduce7's geometry for one device and type, as --tune found best. */
typedef struct {
    size_t local_size, groups; /* work-items per group, groups per launch */
    unsigned unroll;           /* loads in flight per work-item */
    int access;                /* 1 strided, 2 blocked */
    double kernel_ms;          /* its median kernel time when tuned */
    char source[1024];         /* the cache file it came from (lookups) */
    unsigned tried, total;     /* configurations timed, and in the space (ocr_tune_run) */
} ocr_tuning;

/* One configuration the sweep has timed: the index-th (from 1) of total, its
 * geometry, its median kernel time (0: it did not run) and the best so far. */
typedef struct {
    unsigned index, total;
    const ocr_tuning *tried;
    double ms, best_ms;
} ocr_tune_step;
/* Called after each configuration, and once with NULL when the sweep ends. */
typedef void (*ocr_tune_progress_fn)(void *ctx, const ocr_tune_step *step);

/* Sweeps reduce7's geometry for (device, type) on n elements of int/float
 * sum data within about budget_s seconds (the defaults first), and returns
 * the fastest by median kernel time of 5 runs. progress(ctx, ...) hears of
 * each configuration (NULL: nothing). docs/tuning.md says what is swept and
 * why. */
ocr_status ocr_tune_run(ocr_device *dev, ocr_type t, uint64_t n, double budget_s,
                        const char *kernel_dir, ocr_tuning *best, ocr_tune_progress_fn progress,
                        void *ctx);
/* A progress for ocr_tune_run that prints to the FILE * ctx: one line
 * rewritten in place, ended by a newline. */
void ocr_tune_progress_print(void *ctx, const ocr_tune_step *step);
/* The per-user cache: $XDG_CACHE_HOME/oclreduction/tune.tsv (else
 * $HOME/.cache/...; "" when neither is an absolute path: no cache), one entry
 * per device, driver, type and kernel source hash. A file or directory that
 * is a link, another user's or writable by others is neither read nor
 * written (docs/tuning.md): the lookup notes it once on the message channel,
 * the store returns OCR_IO. */
void ocr_tune_cache_path(char *buf, size_t len);
ocr_status ocr_tune_store(const ocr_device *dev, ocr_type t, const char *kernel_dir,
                          const ocr_tuning *tu);
/* 1 and *out if the cache holds an entry for this device, driver, type and
 * today's reduce7.cl; else 0, with a note when an entry was there but ignored
 * (corrupt, tuned for another version of the kernel, or past the device's
 * limits: its work-group size, 32 groups per compute unit). */
int ocr_tune_lookup(const ocr_device *dev, ocr_type t, const char *kernel_dir, ocr_tuning *out,
                    char *note, size_t note_len);
/* A tunable built-in kernel with no geometry of the caller's (no local size,
 * groups or access): the cache's geometry for this device, type and kernel
 * source put into *rq, else the built-in defaults. `tuning` says which, for
 * the report ("" for any other request); an entry that was there but ignored
 * is a note ("note: ...") on the message channel. */
void ocr_tune_apply(const ocr_device *dev, ocr_build_request *rq, char *tuning, size_t len);

/* ---- peak --------------------------------------------------------------- */

/* The device's copy rate in GB/s (bytes read + written per ns): cl/copy.cl
 * copying `bytes` with 16-byte loads on a reduce7-like grid, median of `reps`
 * runs after a warm-up. The yardstick of --peak. */
ocr_status ocr_copy_rate(ocr_device *dev, const char *kernel_dir, uint64_t bytes, unsigned reps,
                         double *gbs);

/* ---- timing ------------------------------------------------------------- */

uint64_t ocr_now_ns(void); /* monotonic clock */
/* The command behind ev (enqueued on a profiling queue): its device-clock
 * start and end and *ns = end - start. Where the runtime gives no times
 * (CL_PROFILING_INFO_NOT_AVAILABLE, as Intel's CPU runtime now and then does
 * for a command that ran), it waits for the command and asks again; if still
 * none, *start = *end = 0 and *ns is the host clock from host_t0 (the caller's
 * ocr_now_ns() from before the command was enqueued) to now: an upper bound,
 * and a note says so (once per process). Other failures: OCR_OPENCL. */
ocr_status ocr_event_span(cl_event ev, uint64_t host_t0, uint64_t *start, uint64_t *end,
                          uint64_t *ns);
uint64_t ocr_median_u64(uint64_t *v, size_t n); /* sorts v in place */
uint64_t ocr_min_u64(const uint64_t *v, size_t n);
/* Both of v[0..n), n >= 1 (sorts v in place): every run statistic. */
void ocr_median_min_u64(uint64_t *v, size_t n, uint64_t *median, uint64_t *min);

/* ---- several devices: one input split over them (host/lib/run/ocr_split.c) ----- */

/* ocr_data_fill's elements [offset, offset + count) of the input of n
 * elements, into data[0..count): each MPI rank makes only its share, and the
 * shares together are exactly ocr_data_fill's array. */
void ocr_data_fill_range(void *data, uint64_t offset, uint64_t count, uint64_t n, ocr_type t,
                         ocr_op o, uint64_t seed, ocr_data_kind kind);

/* How the input is divided: equal shares, or shares proportional to each
 * device's end-to-end rate (upload + kernels) in a short probe run. */
typedef enum { OCR_SHARES_EQUAL, OCR_SHARES_RATE } ocr_shares;
const char *ocr_shares_name(ocr_shares s);
int ocr_shares_from_name(const char *s, ocr_shares *out); /* 0 on success */

/* Element counts of n split into `parts` contiguous shares: equal (the first
 * n % parts one larger) or, with weights, proportional to them. The counts
 * always add up to n, in time proportional to parts. With weights: NaN, zero
 * and negative weights get no share; if any weight is +infinity, those parts
 * share n equally and the others get none; if no weight is positive, the
 * shares are equal. parts == 0 fills nothing. */
void ocr_split_shares(uint64_t n, unsigned parts, const double *weights, uint64_t *count);

#define OCR_SPLIT_MAX 64 /* devices */

/* One device's part of a split reduction. */
typedef struct {
    ocr_device_choice choice;
    uint64_t offset, count; /* its slice of the input */
    double probe_gbs;       /* RATE: the probe's end-to-end GB/s (0: not probed) */
    ocr_device *dev;
    ocr_kernel *kernel;
    char tuning[1200]; /* reduce7: where its geometry came from, or "" */
    ocr_result res;    /* its runs and check, on its slice (count > 0) */
    ocr_status st;
} ocr_split_part;

typedef struct {
    unsigned nparts;
    ocr_split_part *part; /* nparts entries */
    ocr_shares shares;
    uint64_t n;
    ocr_type type;
    ocr_op op;
    unsigned repeats;
    ocr_value result, expected; /* the combination of the parts, and the whole input's reference */
    double tolerance, err_ulps, tol_ulps;
    int exact, any_order;
    int passed;       /* every part passed its share's check and every run's combination passed */
    unsigned bad_run; /* 0, or 1 + the first run whose combination failed or differed */
    uint64_t elems_read; /* by every device's passes */
    /* Per run, over the devices that ran concurrently: the slowest device's
     * kernels, resident (kernels + D2H + CPU) and total (H2D too) times plus
     * the host combine; wall: the host clock from the start of the run on
     * every device to the end on the last. Medians and minima over the runs. */
    ocr_times median, min;
    uint64_t combine_ns; /* median of the host combine of the parts' values */
} ocr_split_result;

/* Opens each choice's device on its own host thread, builds the request's
 * kernel there, divides data[0..n) into contiguous shares, runs every share
 * with ocr_run concurrently (each device's runs start together), combines
 * the parts' values in the kernels' arithmetic (ocr_combine) and checks the
 * combination against the whole input's reference. opt->sync is the
 * engine's own. Release with ocr_split_release (also after a failure). */
ocr_status ocr_split_run(const ocr_device_choice *choices, unsigned nparts,
                         const ocr_build_request *rq, const void *data, uint64_t n,
                         const ocr_run_options *opt, ocr_shares shares, ocr_split_result *res);
/* text: a table of the devices (share, times, GB/s, check) and the aggregate;
 * json: one object with the aggregate and each device's ocr_report object. */
void ocr_split_report(FILE *f, ocr_format fmt, const ocr_report_info *ri,
                      const ocr_split_result *r);
void ocr_split_release(ocr_split_result *r);

/* ---- streaming: inputs larger than one buffer (host/lib/run/ocr_stream.c) ------ */

/* How a streamed reduction runs; a zeroed struct takes every default. */
typedef struct {
    uint64_t chunk; /* elements per chunk, 0: ocr_stream_default_chunk */
    uint64_t seed;  /* of the input, as ocr_data_fill's */
    ocr_data_kind data;
    const char *kernel_dir;    /* the reducer's (NULL: the embedded kernel) */
    size_t local_size, groups; /* the reducer's geometry, 0: its defaults */
    const char *build_options; /* appended to the reducer's build, or NULL */
    int automatic;             /* for the report: chosen because n exceeds one buffer */
} ocr_stream_options;

typedef struct {
    uint64_t n, chunk, chunks;
    ocr_type type;
    ocr_op op;
    ocr_value result, expected; /* the chunks' values combined in order; the reference */
    int any_order, passed, automatic;
    uint64_t max_alloc;      /* the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    uint64_t wall_ns;        /* host clock from the first chunk's generation to the last value */
    uint64_t fill_ns;        /* of which the host spent generating the input */
    uint64_t h2d_ns;         /* one chunk's pinned upload alone, median of 5 */
    uint64_t h2d_bytes;      /* that chunk's bytes */
    double e2e_gbs, h2d_gbs; /* n bytes / wall; h2d_bytes / h2d_ns */
    uint64_t pipe_ns;        /* the same stream again with the input already in the pinned
                                slots (not generated, not checked): no producer limit */
    double pipe_gbs;         /* n bytes / pipe_ns */
    /* The yardstick for pipe_gbs: the same n bytes uploaded in the same chunks
     * through the same two slots on the same queue, copies only (no kernel);
     * pipe_ns and copy_ns are medians of 3 rounds that alternate the two. */
    uint64_t copy_ns;
    double copy_gbs; /* n bytes / copy_ns */
} ocr_stream_result;

/* A quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE in elements of t, at most 256 MiB. */
uint64_t ocr_stream_default_chunk(const ocr_device *dev, ocr_type t);
/* OCR_OK if a streamed result can be checked bit for bit: every integer and
 * min/max reduction, and float sums and products of exact data; else one
 * message and OCR_USAGE. */
ocr_status ocr_stream_supported(ocr_type t, ocr_op o, ocr_data_kind kind);
/* Reduces ocr_data_fill's n elements chunk by chunk without holding them in
 * host memory: each chunk is generated into one of two pinned host slots,
 * uploaded on one queue into one of two device buffers and reduced with the
 * library's reducer on a second queue, so the upload of chunk i + 1 overlaps
 * the reduction of chunk i. The chunks' values are combined in order (as
 * ocr_combine) and checked against the chunks' references combined alike.
 * OCR_OK (PASSED) or OCR_WRONG fill *res; docs/streaming.md has the design. */
ocr_status ocr_stream_run(ocr_device *dev, ocr_type t, ocr_op o, uint64_t n,
                          const ocr_stream_options *opt, ocr_stream_result *res);
/* text (the other formats: json, one object). */
void ocr_stream_report(FILE *f, ocr_format fmt, const ocr_device *dev, const ocr_report_info *ri,
                       const ocr_stream_result *r);

#ifdef __cplusplus
}
#endif
#endif
