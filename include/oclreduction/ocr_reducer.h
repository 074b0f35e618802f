/*
 * ocr_reducer.h - reduce a buffer the caller owns, on the caller's queue.
 *
 * For an OpenCL application that already has a context, a queue and a cl_mem:
 * create one reducer per (context, device, type, operator), then reduce any
 * part of any buffer of that context as often as needed. The reducer builds
 * reduce7 (the fastest kernel of the ladder) once, from the kernel sources
 * compiled into the library (no files needed), and keeps its scratch buffers
 * between calls (grown when a larger n needs more). Reducers built alike (same
 * context, device, type, operator and options) share one compiled program,
 * and the compiled binary is kept on disk for the next process
 * ($XDG_CACHE_HOME/oclreduction/programs/; OCLREDUCTION_PROGRAM_CACHE=off
 * turns that off). The geometry is the tune cache's for the device and type
 * (a widening reducer's input type) when `oclReduction --tune` stored one
 * (docs/tuning.md), else the built-in default.
 *
 * Errors: every call returns an ocr_status (OCR_USAGE for bad arguments,
 * OCR_OPENCL, OCR_BUILD, OCR_NO_MEMORY, ... for failures; see ocr_core.h) and
 * prints nothing; the message goes to the message callback if one is
 * installed, and is kept for ocr_reducer_last_error and ocr_last_error.
 *
 * Ownership: the reducer retains the context and the device and releases
 * them in ocr_reducer_release; buffers, queues and events passed in stay the
 * caller's (the last queue used is retained until another is used or the
 * reducer is released); an event returned through `done` is the caller's to
 * release.
 *
 * Threads: a reducer is not locked; use each from one thread at a time (or
 * one reducer per thread). A call made while another call is in the same
 * reducer (from another thread, or from the message callback) does nothing
 * and returns OCR_USAGE ("used from two threads at once"); it never waits.
 * Calls may use different queues of the context: each call's commands wait
 * for the previous call's (scratch is shared), and the passes of a call wait
 * for each other, so out-of-order queues work too.
 *
 * Released reducers: the library keeps the set of live reducers' addresses,
 * so a call on a released reducer, a second ocr_reducer_release, or a pointer
 * that never was a reducer is refused (OCR_USAGE; release, which returns
 * nothing, says it through ocr_last_error), without reading the memory it
 * points to. What cannot be detected: once a later ocr_reducer_create gets
 * the released reducer's address back from malloc, a stale pointer reaches
 * that new reducer; set your pointer to NULL after release.
 */
#ifndef OCR_REDUCER_H
#define OCR_REDUCER_H

#include "ocr_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Optional settings; a NULL pointer, or a zeroed struct, takes every default.
 *
 * The size rule: set size to sizeof(ocr_reducer_options) (OCR_REDUCER_OPTIONS
 * does) so that a program keeps working with later versions of the library,
 * which may add fields at the end: the library reads the fields that lie
 * within `size` and takes the default for any later one. size 0 stands for
 * this version's struct (so a zeroed struct still means every default).
 * Fields added later than the library a program runs with are refused
 * (OCR_USAGE) when set, never silently ignored. */
typedef struct {
    size_t size;               /* sizeof(ocr_reducer_options), or 0 */
    const char *kernel_dir;    /* read reduce7.cl and reduce_common.h from this directory
                                  instead of the embedded copies (for editing kernels) */
    size_t local_size;         /* work-group size, 0: chosen for the device; at most
                                  OCR_MAX_LOCAL_SIZE (else OCR_USAGE) and the device's
                                  limit (else OCR_TOO_LARGE) */
    size_t groups;             /* groups of the first pass, 0: chosen for the device; at
                                  most OCR_MAX_GROUPS (else OCR_USAGE) */
    const char *build_options; /* appended to the kernel's build options, or NULL; a -D or
                                  -U of a name the kernels are built with (OCR_*, T,
                                  LOCAL_SIZE, ...: ocr_build_reserved_name) or of an
                                  OpenCL C keyword, type or built-in the kernels use
                                  (float, barrier, get_global_id, ...) is OCR_USAGE */
    int ignore_tuning;         /* 1: the built-in geometry even where the tune cache has an
                                  entry (a nonzero local_size or groups ignores it too) */
    int accurate;              /* 1: a compensated float or double sum (OCR_SUM only, else
                                  OCR_USAGE), within one ulp of the correctly rounded exact
                                  sum, at nearly the plain speed on a GPU (docs/library.md);
                                  IEEE's +-inf where an infinity is in the data or the
                                  exact sum overflows (partial sums may: FLT_MAX, FLT_MAX,
                                  -FLT_MAX is FLT_MAX), NaN where a NaN is or +inf meets
                                  -inf;
                                  refuses build_options that allow reassociation
                                  (-cl-fast-relaxed-math, -cl-unsafe-math-optimizations) */
} ocr_reducer_options;

/* Every default, with the size set: ocr_reducer_options o = OCR_REDUCER_OPTIONS; */
#define OCR_REDUCER_OPTIONS                                                                        \
    { sizeof(ocr_reducer_options), NULL, 0, 0, NULL, 0, 0 }

/* Builds the kernel for (type, op) on `device`, which must belong to
 * `context`. A small type (OCR_CHAR, OCR_UCHAR, OCR_SHORT, OCR_USHORT,
 * OCR_HALF) is combined in its accumulator, as ocr_reducer_create_widening(
 * context, device, type, ocr_type_accumulator(type), op, ...): char and short
 * in long, uchar and ushort in ulong (no overflow below 2^47 elements), half
 * in float; results are of the accumulator. Small types take sum, prod, min,
 * max (and, or, xor for integers) and argmin/argmax (which compare the
 * elements themselves: the reducer's type is the small type, the value
 * reported in the accumulator's member), not opt->accurate or the segment,
 * row and column calls (OCR_USAGE).
 * OCR_USAGE for a bitwise operator on a floating-point type, or
 * for opt->accurate with another operator than OCR_SUM or an integer type;
 * another failure status when the device cannot run it (OCR_RUNTIME for double
 * without cl_khr_fp64, OCR_BUILD for a failed build, OCR_IO for a kernel_dir
 * without the kernel). On failure *out is NULL and ocr_reducer_last_error(NULL)
 * says why. */
OCR_API ocr_status ocr_reducer_create(cl_context context, cl_device_id device, ocr_type type,
                                      ocr_op op, const ocr_reducer_options *opt, ocr_reducer **out);

/* Reduces elements [offset, offset + n) of `buf` (elements of the reducer's
 * type) and returns the value in *result; blocks until it is known.
 *   n = 0 (an empty range) gives the identity of the operator, as every call
 *     form does (CUB and Boost.Compute return the initial value): sum 0,
 *     prod 1, min the type's largest value (+inf for floats), max its
 *     smallest (-inf), and all bits set, none, none (ocr_identity). argmin
 *     and argmax have no index for it: OCR_USAGE, with a message (NumPy
 *     raises too). A custom reducer's is its neutral value.
 *   offset + n must lie within buf: a reduction over more than
 *     one buffer (n beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE) is not supported and
 *     is refused with OCR_USAGE.
 *   Any offset works, at no extra cost: the kernel takes it as an argument.
 *   queue must belong to the reducer's context and device.
 * The value is combined in the kernel's order (a tree): integer results and
 * min/max are exact; float sums and products may differ from a sequential
 * loop by rounding (an accurate reducer's sums: by one ulp of the exact sum
 * at most, or IEEE's infinity or NaN). */
OCR_API ocr_status ocr_reducer_reduce(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                      size_t offset, uint64_t n, ocr_value *result);

/* ocr_reducer_reduce whose first command waits for wait[0..num_wait) (events
 * of the reducer's context, e.g. the write of the input on another queue, or
 * a user event); still blocks until the value is known. num_wait 0 and wait
 * NULL: ocr_reducer_reduce itself. */
OCR_API ocr_status ocr_reducer_reduce_wait(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                           size_t offset, uint64_t n, cl_uint num_wait,
                                           const cl_event *wait, ocr_value *result);

/* The same without blocking: the whole reduction runs on the device and
 * writes the one value to element 0 of result_buf (at least one element;
 * it must not overlap the elements reduced: OCR_USAGE when it is buf, a
 * sub-buffer of buf or buf's parent, and its element 0 lies among them).
 * The first command waits for wait[0..num_wait); *done (if done is not NULL)
 * is an event that completes when the value is written: release it. Nothing
 * is waited for on the host; OCR_OK means enqueued. */
OCR_API ocr_status ocr_reducer_reduce_async(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                            size_t offset, uint64_t n, cl_mem result_buf,
                                            cl_uint num_wait, const cl_event *wait, cl_event *done);

/* ocr_reducer_reduce_async writing its value to element result_offset of
 * result_buf (which must hold result_offset + 1 elements) and no other: several
 * reductions can gather their values in one buffer, read back at once. The
 * overlap rule is ocr_reducer_reduce_async's, for that element. */
OCR_API ocr_status ocr_reducer_reduce_into(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                           size_t offset, uint64_t n, cl_mem result_buf,
                                           size_t result_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done);

/* argmin and argmax (OCR_ARGMIN, OCR_ARGMAX) write a pair where the other
 * operators write a value: the bytes of the element ocr_reducer_reduce_async
 * and ocr_reducer_reduce_into write to result_buf (elements of that size) are
 * ocr_result_size(type, op): the type's size, or 16 (a cl_ulong2 holding the
 * value as an ordering key, then its index). ocr_result_value turns such an
 * element, read back to the host, into the value (and .arg.index), as
 * ocr_reducer_reduce returns it. */
OCR_API size_t ocr_result_size(ocr_type type, ocr_op op);
OCR_API ocr_value ocr_result_value(ocr_type type, ocr_op op, const void *element);

/* The message of the last failed call on r ("" if none has failed), valid
 * until the next call on r. With r == NULL: the calling thread's last failed
 * ocr_reducer_create. For a released reducer, or one a call is in on another
 * thread, a text that says so. */
OCR_API const char *ocr_reducer_last_error(const ocr_reducer *r);

/* The raw OpenCL error code (CL_OUT_OF_RESOURCES, CL_INVALID_MEM_OBJECT, ...)
 * of the last failed OpenCL call inside the last failed call on r, as
 * CLBlast returns it; 0 (CL_SUCCESS) when that call did not fail in OpenCL
 * (a refused argument, say) or none failed. With r == NULL: the calling
 * thread's last failed ocr_reducer_create's. 0 for a released reducer or one
 * a call is in on another thread. */
OCR_API cl_int ocr_reducer_last_cl_error(const ocr_reducer *r);

/* The kernel's geometry: work-group size and groups of the first pass
 * (NULL for a NULL or released reducer). */
OCR_API const ocr_geometry *ocr_reducer_geometry(const ocr_reducer *r);

/* Releases the kernel, the scratch buffers and the retained context and
 * device. Commands already enqueued still complete. NULL is a no-op. A
 * reducer that is not live (released already) or that a call is in (on
 * another thread) is not released: ocr_last_error says why. */
OCR_API void ocr_reducer_release(ocr_reducer *r);

/* ---- many reductions in one call: segments, rows, columns -------------- */
/*
 * These three calls reduce many ranges at once and write one value per range
 * to result_buf[result_offset ..]: K values need result_offset + K elements
 * there, which must not overlap the elements read (OCR_USAGE, the rule of
 * ocr_reducer_reduce_async). They are non-blocking like reduce_async: the
 * first command waits for wait[0..num_wait) (and the previous call where
 * needed), *done (if not NULL) completes when every value is written, and
 * OCR_OK means enqueued. Their kernels (cl/segreduce.cl) are built on the
 * first such call, with the reducer's options: that call may also fail with
 * OCR_BUILD or OCR_IO (a kernel_dir without segreduce.cl). A widening
 * reducer reads its input type and writes its combined type, as reduce does.
 * Float values are combined in a tree order, as reduce's; an empty range
 * gives the operator's identity. Nothing to compute (K = 0) is no error:
 * nothing is written, and *done still completes after the wait list.
 */

/* Segments in CSR style: segment j is elements [offset + offsets[j], offset +
 * offsets[j + 1]) of buf, for j < num_segments, read from offsets_buf (at
 * least num_segments + 1 values of offsets_type: OCR_UINT or OCR_ULONG, from
 * its element 0; may be NULL when num_segments is 0). Every segment must lie
 * within the n elements from offset (n bounds what is read and is checked
 * against buf's size). The offsets' values are the caller's data on the
 * device and this asynchronous call does not check them (that would need a
 * read and a wait): an offset beyond n is read as n, and a segment whose end
 * is before its start is empty, so wrong offsets give wrong values, without
 * an error, but never a read outside [offset, offset + n). Check them with
 * ocr_segment_offsets_check where they are on the host. What is checked:
 * offsets_type, the offsets buffer's size, and that the offsets and the
 * results are not the same memory (one buffer, or overlapping sub-buffers of
 * one: the kernel would race with itself): OCR_USAGE. One launch whatever num_segments (a grid of
 * groups strides over the segments; each segment is reduced by a team of
 * work-items sized from the mean length n / num_segments). */
OCR_API ocr_status ocr_reducer_reduce_segments(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                               size_t offset, uint64_t n, cl_mem offsets_buf,
                                               ocr_type offsets_type, uint64_t num_segments,
                                               cl_mem result_buf, size_t result_offset,
                                               cl_uint num_wait, const cl_event *wait,
                                               cl_event *done);

/* OCR_OK if num_segments + 1 offsets (OCR_UINT: uint32_t, OCR_ULONG:
 * uint64_t values) describe segments of n elements: none below the one
 * before it, none past n (the first is then >= 0 too). Else one message
 * naming the first bad offset, and OCR_USAGE. */
OCR_API ocr_status ocr_segment_offsets_check(const void *offsets, ocr_type offsets_type,
                                             uint64_t num_segments, uint64_t n);

/* A contiguous row-major matrix of rows x cols elements from buf[offset] on,
 * reduced along each row (NumPy's axis=1 or -1): `rows` values. One launch
 * (segments of cols elements, no offsets buffer). */
OCR_API ocr_status ocr_reducer_reduce_rows(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                           size_t offset, uint64_t rows, uint64_t cols,
                                           cl_mem result_buf, size_t result_offset,
                                           cl_uint num_wait, const cl_event *wait, cl_event *done);

/* The same matrix reduced along each column (NumPy's axis=0): `cols` values.
 * Each work-item owns a column, and neighbouring work-items read neighbouring
 * columns (coalesced); one launch when the columns fill the device, else two
 * (slices of rows into the reducer's scratch, then the slices). */
OCR_API ocr_status ocr_reducer_reduce_columns(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                              size_t offset, uint64_t rows, uint64_t cols,
                                              cl_mem result_buf, size_t result_offset,
                                              cl_uint num_wait, const cl_event *wait,
                                              cl_event *done);

/* ---- strided views: every stride-th element, in place ------------------ */

/* ocr_reducer_reduce_into over the n elements buf[offset + i * stride],
 * i < n (NumPy's a[::k], a[s:e:k]; a reversed view is the same elements from
 * its lowest one, with a positive stride): read in place, one scalar load
 * each, no copy. stride >= 1, and offset + (n - 1) * stride must lie within
 * buf (overflow checked), else OCR_USAGE; n = 0 writes the identity (the
 * rule of ocr_reducer_reduce). The value goes to
 * element result_offset of result_buf, which must not be one of the elements
 * read (the rule of ocr_reducer_reduce_async; an element between two of them
 * may be). Every type, operator and option of the reducer: widening and the
 * small types (converted as loaded), accurate sums, and argmin/argmax, whose
 * index is i, the position in the view. Non-blocking, with the reducer's
 * queue and wait-list rules. stride 1 is ocr_reducer_reduce_into itself
 * (reduce7's vector loads). The kernel (cl/strided.cl, which includes
 * reduce7.cl) is built on the first strided call, with the reducer's options:
 * that call may also fail with OCR_BUILD or OCR_IO (a kernel_dir without
 * strided.cl). One launch reads the view (a grid of groups striding over it,
 * each group's partial into the reducer's scratch); the reducer's own passes
 * finish the partials (none when one group does it all). */
OCR_API ocr_status ocr_reducer_reduce_strided(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                              size_t offset, uint64_t n, uint64_t stride,
                                              cl_mem result_buf, size_t result_offset,
                                              cl_uint num_wait, const cl_event *wait,
                                              cl_event *done);

/* ---- histograms: counts (or sums of weights) per bin ------------------- */
/*
 * A histogram of n samples buf[offset .. offset + n) of the reducer's input
 * type (any reducer but a custom one: create one for the sample type, the
 * operator is not used; a widening reducer's samples are of its input type),
 * into `bins` elements of counts_buf from element counts_offset on. Every
 * input type: char, uchar, short, ushort, int, uint, long, ulong, half,
 * float, double.
 *
 * Which bin a sample falls in (ocr_histogram_kind):
 *   OCR_HIST_EVEN      bins equal bins over [lower, upper]: bin
 *                      floor((x - lower) * scale), scale = bins / (upper -
 *                      lower), both computed in the bin type (float for
 *                      char, uchar, short, ushort, half and float samples;
 *                      double for int, uint, long, ulong and double, which
 *                      needs cl_khr_fp64, else OCR_RUNTIME) with no fused
 *                      multiply-add, the sample converted to it, a result
 *                      past the last bin taken as the last; x == upper is in
 *                      the last bin (NumPy's closed last bin). lower < upper,
 *                      both finite and so is scale, else OCR_USAGE.
 *   OCR_HIST_EDGES     bins + 1 ascending edges, elements edges_offset ..
 *                      of edges_buf, of edges_type (OCR_FLOAT or OCR_DOUBLE;
 *                      the comparisons are made in it): bin i holds
 *                      edge[i] <= x < edge[i + 1], the last bin also x ==
 *                      edge[bins] (NumPy's histogram with bins=edges, so
 *                      with NumPy's own float64 edges the counts are
 *                      NumPy's; a binary search per sample). Edges on the
 *                      device are not checked (unsorted edges: wrong counts,
 *                      never a read out of bounds).
 *   OCR_HIST_BINCOUNT  integer samples only (else OCR_USAGE): a value v in
 *                      bin v where 0 <= v < bins (NumPy's bincount with
 *                      minlength: the caller picks bins = max(minlength,
 *                      max + 1)); other values are not counted.
 * Samples outside the range and NaN are not counted (NumPy's rule for an
 * explicit range, CUB's too); -inf and +inf are outside any finite range.
 *
 * What is written: without weights, counts of count_bits (64, the default
 * where 0, as uint64_t; or 32, as uint32_t: refused, OCR_USAGE, where n >=
 * 2^32, as such a count could wrap). With weights (a buffer of n elements
 * of weights_type, OCR_FLOAT or OCR_DOUBLE, from weights_offset on), the
 * sum of the weights of the samples in each bin, of weights_type
 * (count_bits must then be 0); each group's sums are added in a
 * run-dependent order, so float sums may differ from a loop by rounding.
 * Counts are exact. accumulate 1 adds to the counts_buf's values (several
 * calls make one histogram; with 32-bit counts the caller keeps the total
 * below 2^32), 0 overwrites them. n = 0 writes zeros (or, accumulating,
 * leaves them).
 *
 * method: OCR_HIST_AUTO (0) is the fastest for the device and bins; the
 * others force one variant of cl/histogram.cl (for the lab and
 * benchmarks): global atomics, local privatisation, local privatisation
 * with runs of equal bins aggregated per work-item. Bins whose counts do
 * not fit in the device's local memory always use global atomics.
 *
 * Misuse, OCR_USAGE with a message: bins == 0; counts_buf holding fewer
 * than counts_offset + bins elements; counts_buf overlapping the samples,
 * the edges or the weights (one buffer, or sub-buffers of one); a buffer of
 * another context; samples, edges or weights beyond their buffers; a kind,
 * method, count_bits or type out of range; the spec's size rule
 * (ocr_reducer_options's) broken.
 */
typedef enum { OCR_HIST_EVEN = 0, OCR_HIST_EDGES, OCR_HIST_BINCOUNT } ocr_histogram_kind;

typedef enum {
    OCR_HIST_AUTO = 0,
    OCR_HIST_GLOBAL,    /* one global atomic per sample */
    OCR_HIST_LOCAL,     /* a local copy of the counts per group, merged once */
    OCR_HIST_AGGREGATE, /* ... and a run of equal bins counted as one atomic */
    OCR_HIST_NMETHODS
} ocr_histogram_method;

/* The size rule of ocr_reducer_options (OCR_HISTOGRAM_SPEC sets it); a
 * zeroed spec with size, bins, lower and upper set is an even histogram of
 * 64-bit counts. */
typedef struct {
    size_t size;             /* sizeof(ocr_histogram_spec), or 0 */
    ocr_histogram_kind kind; /* OCR_HIST_EVEN, _EDGES, _BINCOUNT */
    uint64_t bins;           /* at least 1 */
    double lower;            /* OCR_HIST_EVEN: the range, [lower, upper] */
    double upper;
    cl_mem edges;          /* OCR_HIST_EDGES: bins + 1 ascending edges ... */
    size_t edges_offset;   /* ... from this element on ... */
    ocr_type edges_type;   /* ... of OCR_FLOAT or OCR_DOUBLE */
    cl_mem weights;        /* NULL: counts; else n weights ... */
    size_t weights_offset; /* ... from this element on ... */
    ocr_type weights_type; /* ... of OCR_FLOAT or OCR_DOUBLE, summed in that type */
    unsigned count_bits;   /* 0 or 64: uint64_t counts; 32: uint32_t */
    int accumulate;        /* 1: add to counts_buf's values; 0: overwrite them */
    ocr_histogram_method method;
} ocr_histogram_spec;

#define OCR_HISTOGRAM_SPEC                                                                         \
    {                                                                                              \
        sizeof(ocr_histogram_spec), OCR_HIST_EVEN, 0, 0.0, 0.0, NULL, 0, OCR_FLOAT, NULL, 0,       \
            OCR_FLOAT, 0, 0, OCR_HIST_AUTO                                                         \
    }

/* The bytes of one element counts_buf receives for spec (8 or 4 for counts,
 * the weights type's size with weights); 0 for a spec out of range. */
OCR_API size_t ocr_histogram_element_size(const ocr_histogram_spec *spec);

/* The histogram, non-blocking: the first command waits for
 * wait[0..num_wait) (and the reducer's previous call where needed); *done
 * (if not NULL) completes when every bin is written: release it; OCR_OK
 * means enqueued. The kernels (cl/histogram.cl) are built on the first
 * histogram call of a (kind, weights, count) combination, with the
 * reducer's options, through the program cache: that call may also fail
 * with OCR_BUILD or OCR_IO (a kernel_dir without histogram.cl). */
OCR_API ocr_status ocr_reducer_histogram(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                         size_t offset, uint64_t n, const ocr_histogram_spec *spec,
                                         cl_mem counts_buf, size_t counts_offset, cl_uint num_wait,
                                         const cl_event *wait, cl_event *done);

/* The same, blocking: the bins elements (ocr_histogram_element_size bytes
 * each) are written to host memory at `counts` (with accumulate, added to
 * the values found there), through the reducer's own device buffer. */
OCR_API ocr_status ocr_reducer_histogram_host(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                              size_t offset, uint64_t n,
                                              const ocr_histogram_spec *spec, void *counts,
                                              cl_uint num_wait, const cl_event *wait);

/* ---- widening: reading one type, combining in another ------------------ */

/* 1 if a reducer can read elements of `input` and combine them in `type`:
 * when they are the same, and where `type` holds every value of `input`
 * (int and uint into long, ulong or double; float into double; char and short
 * into long, uchar and ushort into ulong or long, half into float or double).
 * Never when `type` is a small (storage) type: nothing is combined in one.
 * Integers converted to ulong keep their bits modulo 2^64, as C converts
 * them. */
OCR_API int ocr_type_widens_to(ocr_type input, ocr_type type);

/* ocr_reducer_create for a buffer of `input` elements whose reduction is
 * computed, and returned, in `type` (sums of int in long never overflow;
 * float data summed in double). Each element is converted as the kernel loads
 * it: the input is read once, in place, and no converted copy is made.
 * ocr_reducer_reduce's n and offset count input elements; its result, and the
 * element written to result_buf by ocr_reducer_reduce_async, are of `type`.
 * OCR_USAGE unless ocr_type_widens_to(input, type). Builds two kernels (the
 * first pass reads `input`, later ones read `type`). */
OCR_API ocr_status ocr_reducer_create_widening(cl_context context, cl_device_id device,
                                               ocr_type input, ocr_type type, ocr_op op,
                                               const ocr_reducer_options *opt, ocr_reducer **out);

/* ---- custom reductions: a map and a reduce of the caller's ------------- */
/*
 * A reducer made from a spec: map(i) over i < n, combined by reduce(a, b)
 * from neutral, e.g. a dot product: map "x[i] * y[i]" over two float
 * buffers x and y, reduce "a + b", neutral "0.0f" (docs/library.md has the
 * whole example). The kernel is cl/custom.cl after a prelude made from the
 * spec (the three expressions in the bodies of inline functions, the
 * arguments as kernel arguments), built like the other reducers' kernels
 * and shared through the program cache, whose key is the whole source, so
 * the spec too. Its shape is reduce7's: a grid of groups streams the input
 * once (coalesced on a GPU, four map values in flight per work-item; a
 * contiguous chunk per work-item on a CPU), one tree per group, then one
 * group combines the groups' values.
 *
 * reduce must be associative and commutative: the values are combined in a
 * tree, not in index order (float sums round differently from a loop). The
 * expressions are OpenCL C; map sees `i` (ulong) and the arguments by name
 * (a buffer as a pointer from its offset, a scalar as a const value), reduce
 * sees `a` and `b` (of the accumulator type), neutral is an initializer of
 * that type ("0", "-INFINITY", "{0, 0.0f, 0.0f}"). They are one line each,
 * no ';', '#', quotes or comments, brackets balanced; preamble and
 * struct_decl may hold declarations and functions, but no '#' (no
 * preprocessor lines: nothing the caller writes can define a macro), and no
 * text may hold a '\' outside a character constant or a "??" (the compiler
 * splices a backslash-newline, ??/ too, before it reads a line). Else
 * OCR_USAGE. Text the compiler refuses is OCR_BUILD, with the build log and
 * the caller's text in the message.
 */

/* One argument of the kernel: a buffer of `type` elements (__global const
 * type *name, indexed by the map), or a scalar (const type name). Names are
 * C identifiers, not i, a, b, nor starting with ocr_ or OCR_, nor one of the
 * names the library's kernels are built with (ocr_build_reserved_name),
 * each once; else OCR_USAGE. Every type but OCR_HALF; OCR_DOUBLE needs
 * cl_khr_fp64 (else OCR_RUNTIME). */
typedef struct {
    const char *name;
    ocr_type type;
    int is_buffer; /* 1: a buffer; 0: a scalar */
} ocr_custom_arg;

/* The spec; the size rule of ocr_reducer_options (OCR_CUSTOM_SPEC sets it). */
typedef struct {
    size_t size;             /* sizeof(ocr_custom_spec), or 0 */
    ocr_type type;           /* the accumulator and result: a type (not OCR_HALF) ... */
    const char *struct_decl; /* ... or, when not NULL, a struct declared here ("typedef
                                struct { uint n; float mean, m2; } stats;") */
    const char *struct_name; /* its name ("stats") */
    size_t struct_size;      /* its size on the device, checked by the build (OCR_BUILD) */
    const char *neutral;     /* the value of an empty input */
    const char *reduce;      /* of a and b */
    const char *map;         /* of i and the arguments; NULL: the first buffer's [i] */
    const char *preamble;    /* helper functions, or NULL */
    const ocr_custom_arg *args;
    size_t num_args;
} ocr_custom_spec;

#define OCR_CUSTOM_SPEC                                                                            \
    { sizeof(ocr_custom_spec), OCR_FLOAT, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 }

/* One call's value of each argument, in the spec's order: a buffer and the
 * element where the map's [0] lies (offset + n within the buffer, else
 * OCR_USAGE), or a scalar of the argument's type (ocr_value's member of
 * its size: .i for int, char and short, .u for the unsigned ones, .l, .ul,
 * .f, .d). */
typedef struct {
    cl_mem buf;
    size_t offset; /* elements */
    ocr_value scalar;
} ocr_custom_value;

/* Builds the spec's kernel (the spec's text is copied: the caller's may go).
 * opt as ocr_reducer_create's (kernel_dir: custom.cl read from there;
 * local_size, groups, build_options; not accurate: OCR_USAGE). A custom
 * reducer is a reducer: its calls follow the queue, event, thread and
 * release rules above. ocr_reducer_reduce, _async and _into work on one
 * whose spec has exactly one argument, a buffer (the call's buf and
 * offset), except ocr_reducer_reduce with a struct result (OCR_USAGE);
 * segments, rows, columns and strided views (stride > 1) are OCR_USAGE. */
OCR_API ocr_status ocr_reducer_create_custom(cl_context context, cl_device_id device,
                                             const ocr_custom_spec *spec,
                                             const ocr_reducer_options *opt, ocr_reducer **out);

/* Reduces map(i), i < n, with args[0 .. num_args) (n = 0: the neutral
 * value); writes the result's bytes (ocr_reducer_custom_size of them) to
 * *result. Blocks until it is known. */
OCR_API ocr_status ocr_reducer_reduce_custom(ocr_reducer *r, cl_command_queue queue, uint64_t n,
                                             const ocr_custom_value *args, void *result);

/* The same without blocking, into element result_offset of result_buf
 * (elements of ocr_reducer_custom_size bytes), which must not overlap the
 * elements read; the wait list and *done as ocr_reducer_reduce_into's. */
OCR_API ocr_status ocr_reducer_reduce_custom_into(ocr_reducer *r, cl_command_queue queue,
                                                  uint64_t n, const ocr_custom_value *args,
                                                  cl_mem result_buf, size_t result_offset,
                                                  cl_uint num_wait, const cl_event *wait,
                                                  cl_event *done);

/* The size in bytes of a custom reducer's result (0 for another reducer,
 * NULL or a released one). */
OCR_API size_t ocr_reducer_custom_size(const ocr_reducer *r);

#ifdef __cplusplus
}
#endif
#endif
