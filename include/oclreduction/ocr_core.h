/*
 * ocr_core.h - what every part of the oclreduction library shares: the
 * statuses calls return, the element types and operators, one value of any
 * type, a kernel's launch shape, the version and the message channel. The
 * reducer (ocr_reducer.h) needs only this; the benchmark and run API
 * (ocr_bench.h) builds on it; ocr.h includes all three.
 *
 * OpenCL: this header includes <CL/cl.h> and uses nothing above OpenCL 1.2;
 * CL_TARGET_OPENCL_VERSION is the application's to choose (define it before
 * including, as for <CL/cl.h> itself).
 *
 * Every function that can fail returns an ocr_status and reports one message
 * naming what failed: to the callback installed with ocr_set_message_callback
 * (none by default: the library prints nothing) and as the calling thread's
 * ocr_last_error().
 */
#ifndef OCR_CORE_H
#define OCR_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CL/cl.h>

/* What the shared library exports, its ABI: the functions of ocr_core.h and
 * ocr_reducer.h, which OCR_API marks, and nothing else (it is compiled with
 * -fvisibility=hidden; ocr_bench.h is the archive's only). The archive's
 * objects are compiled without OCR_BUILDING_SHARED, every symbol hidden: a
 * shared library that links the archive exports none of them. */
#if defined(OCR_BUILDING_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define OCR_API __attribute__((visibility("default")))
#else
#define OCR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* OCR_VERSION ("MAJOR.MINOR.PATCH") and its parts, from the project's one
 * version (CMakeLists.txt); ocr_version() returns the library's own. */
#include "ocr_version.h"

/* The library's version ("MAJOR.MINOR.PATCH"), as compiled into it: compare
 * with OCR_VERSION, the headers' version. */
OCR_API const char *ocr_version(void);

/* ---- status -------------------------------------------------------------- */

/* What a call did. The values are the library's, not exit codes: the
 * oclReduction program maps them to its exit codes (host/cli/cli.c). OCR_USAGE and
 * OCR_RUNTIME are the general kinds; the later values say more where the
 * library knows more, and are runtime failures as well. Callers should test
 * st != OCR_OK rather than ranges; ocr_status_name() gives a phrase for each. */
typedef enum {
    OCR_OK = 0,    /* success (a run: PASSED) */
    OCR_WRONG,     /* wrong result: the device's answer does not match the reference */
    OCR_USAGE,     /* invalid argument */
    OCR_RUNTIME,   /* a runtime failure not covered below */
    OCR_OPENCL,    /* an OpenCL call failed (the message names it and its error) */
    OCR_NO_DEVICE, /* no OpenCL platform, or no device matching the choice */
    OCR_BUILD,     /* the kernel does not build, or does not fit the harness */
    OCR_NO_MEMORY, /* host or device memory ran out */
    OCR_TOO_LARGE, /* refused: exceeds the device's or the host's limits */
    OCR_IO,        /* a file cannot be found, read or written */
    OCR_NSTATUS
} ocr_status;

/* "ok", "wrong result", "invalid argument", ...; "unknown status" if out of range. */
OCR_API const char *ocr_status_name(ocr_status st);

/* ---- types and operators ------------------------------------------------ */

/* OCR_CHAR .. OCR_HALF (OpenCL's char, uchar, short, ushort, half) are
 * storage types: data of them is read, but reduced in the type's accumulator
 * (ocr_type_accumulator: char and short in long, uchar and ushort in ulong,
 * half in float), and every value (results, identities, ocr_combine) is of
 * the accumulator. Integer sums cannot overflow below 2^47 elements (2^63 /
 * 2^16); half values are converted exactly and summed in float (rounding as
 * float sums do). Appended after OCR_DOUBLE: the earlier values are ABI. */
typedef enum {
    OCR_INT,
    OCR_UINT,
    OCR_LONG,
    OCR_ULONG,
    OCR_FLOAT,
    OCR_DOUBLE,
    OCR_CHAR,
    OCR_UCHAR,
    OCR_SHORT,
    OCR_USHORT,
    OCR_HALF,
    OCR_NTYPES
} ocr_type;
/* OCR_ARGMIN and OCR_ARGMAX find where the extreme is: the value (as for
 * OCR_MIN and OCR_MAX) and its first index, as NumPy's argmin/argmax (a NaN is
 * the extreme, its first index wins; -0.0 and +0.0 are equal). */
typedef enum {
    OCR_SUM,
    OCR_PROD,
    OCR_MIN,
    OCR_MAX,
    OCR_AND,
    OCR_OR,
    OCR_XOR,
    OCR_ARGMIN,
    OCR_ARGMAX,
    OCR_NOPS
} ocr_op;

OCR_API const char *ocr_type_name(ocr_type t);
OCR_API const char *ocr_op_name(ocr_op o);
OCR_API int ocr_type_from_name(const char *s, ocr_type *t); /* 0 on success */
OCR_API int ocr_op_from_name(const char *s, ocr_op *o);
OCR_API size_t ocr_type_size(ocr_type t);
OCR_API int ocr_type_is_float(ocr_type t);
OCR_API int ocr_op_valid_for(ocr_op o, ocr_type t); /* bitwise operators need integers */
OCR_API int ocr_op_is_arg(ocr_op o);                /* 1 for OCR_ARGMIN and OCR_ARGMAX */
/* The type a reduction of t-data is combined in and returned as: t itself,
 * or for a storage type (OCR_CHAR .. OCR_HALF) its wider accumulator. */
OCR_API ocr_type ocr_type_accumulator(ocr_type t);
OCR_API int ocr_type_is_storage(ocr_type t); /* 1 for OCR_CHAR .. OCR_HALF */

/* argmin/argmax's part of a value (below). */
typedef struct {
    uint64_t value_bits; /* the value's bytes (the members of ocr_value) */
    uint64_t index;
} ocr_arg_part;

/* One value of any supported type. The result of argmin/argmax is the extreme
 * value, read as for any operator (.f, .i, ...), and .arg.index, the first
 * index where it is (counted from the start of the range reduced). There the
 * value of a zero is +0.0 and of a NaN the quiet NaN of the type: NumPy's
 * argmax says where, and a[index] is the element itself. */
typedef union {
    int32_t i;
    uint32_t u;
    int64_t l;
    uint64_t ul;
    float f;
    double d;
    ocr_arg_part arg;
} ocr_value;

/* Formats v as text ("%d", "%.9g", ...) into buf. */
OCR_API const char *ocr_value_str(ocr_type t, ocr_value v, char *buf, size_t len);
/* The value whose bytes (ocr_type_size(t) of them, in the device's order)
 * are at `bytes`: a char or short sign-extended into .l (so .i holds it
 * too), a uchar or ushort into .ul (and .u), the others as their member; as
 * ocr_value_str prints it. The one decoder of a result's bytes (the custom
 * reducer's, the CLI's, ocr_result_value's). */
OCR_API ocr_value ocr_value_from_bytes(ocr_type t, const void *bytes);

/* Combines a and b exactly as the kernels do. */
OCR_API ocr_value ocr_combine(ocr_type t, ocr_op o, ocr_value a, ocr_value b);
OCR_API ocr_value ocr_identity(ocr_type t, ocr_op o);

/* ---- kernels' shapes ------------------------------------------------------ */

/* The largest work-group size and groups per launch a caller may ask for
 * (oclReduction's -w and -g, ocr_reducer_options): far beyond any device's,
 * and small enough that sizes made from them cannot overflow. */
#define OCR_MAX_LOCAL_SIZE ((size_t)1 << 16)
#define OCR_MAX_GROUPS     ((size_t)1 << 24)

/* How a kernel maps input elements to output values. */
typedef enum {
    OCR_PER_ITEM,  /* each work-item combines 2 elements into one output (reduce0/1) */
    OCR_PER_GROUP, /* each work-group combines elems_per_group elements into one output */
    OCR_PER_GRID   /* a fixed number of groups stride over the input (reduce7) */
} ocr_kernel_kind;

/* The geometry the kernel was built with: what the plan needs. */
typedef struct {
    ocr_kernel_kind kind;
    size_t local_size;
    uint64_t elems_per_group;   /* PER_GROUP: elements per group; PER_GRID: per work-item per
                                   iteration (vector width x unroll) */
    uint64_t max_groups;        /* PER_GRID: groups per launch */
    int tree;                   /* 1: a group combines its elements as a tree (built-in
                                   kernels); 0: unknown order (student kernels) */
    int finishes;               /* PER_GRID: 1 if the kernel can also finish in the same
                                   launch (reduce7_finish: the last group combines the
                                   groups' values), used when M = 1; see cl/reduce7.cl */
    int accurate;               /* PER_GRID compensated float sum (OCR_ACCURATE): a launch of
                                   more than one group writes OCR_ACCURATE_PARTS values per
                                   group (its accumulator, cl/reduce7.cl); a single group
                                   writes the value */
    uint64_t finish_max_groups; /* finishes: one launch up to this many groups, and when the
                                   grid is full; in between, two (the value read right after
                                   a longer last kernel waits longer: docs/perf/latency.md);
                                   0: one launch at any count */
} ocr_geometry;
/* The values an accurate sum's group writes for the next pass: two pairs
 * (sum, compensation), the first of the elements near the type's largest,
 * scaled by 2^-64 (cl/reduce7.cl). */
#define OCR_ACCURATE_PARTS 4

/* A reducer (ocr_reducer.h), declared here once: ocr_bench.h names it too, and
 * C before C11 refuses a typedef repeated. */
typedef struct ocr_reducer ocr_reducer;

/* ---- errors ------------------------------------------------------------- */

/* The library prints nothing. A caller who wants its messages installs a
 * callback: fn(user, message) is called once per message, on the thread that
 * made the failing call, with the whole text (one line, or several for a kernel
 * search list or build log; no trailing newline), valid during the call only.
 * Process-wide: install it before other calls (calls made while it changes
 * may use the old or the new one; neither is lost). fn may be called from
 * several threads at once if the library is. NULL removes it. */
typedef void (*ocr_message_fn)(void *user, const char *message);
OCR_API void ocr_set_message_callback(ocr_message_fn fn, void *user);

/* After a call returned a status other than OCR_OK: why it failed, the
 * messages of that call joined by newlines (the entry points that can fail
 * start it afresh; "" if the call reported nothing). Thread-local, valid until
 * the thread's next library call; kept to 8 KiB (the callback gets every
 * message whole). */
OCR_API const char *ocr_last_error(void);

OCR_API const char *ocr_cl_error_name(cl_int err);

#ifdef __cplusplus
}
#endif
#endif
