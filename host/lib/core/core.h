/* core.h - what the files of host/lib/core/ share: messages and statuses,
 * the type and operator traits, argmin/argmax keys, the storage types, the
 * reference's helpers and the per-user cache's paths. The floor holds no
 * OpenCL objects; it includes only the public headers, so a file here that
 * includes a floor above (opencl.h, run.h, report.h) does not compile. */
#ifndef OCR_CORE_PRIV_H
#define OCR_CORE_PRIV_H

#include "ocr.h"

/* A failed OpenCL call (OCR_CL, OCR_CHECK in opencl.h): the message naming the
 * call, the error and file:line. */
void ocr_report_cl(const char *call, cl_int err, const char *file, int line);
/* The status an OpenCL error stands for: OCR_NO_MEMORY, OCR_BUILD,
 * OCR_NO_DEVICE, else OCR_OPENCL. */
ocr_status ocr_status_from_cl(cl_int err);

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
/* The raw code of the calling thread's last failed OpenCL call since
 * ocr_last_error_clear (set by OCR_CL/OCR_CHECK, through ocr_report_cl), or 0. */
cl_int ocr_last_cl_error(void);

/* Capture: until the matching end, this thread's messages are also collected
 * (they still reach the callback). begin returns a token for end (captures
 * nest: an inner one leaves the collecting to the outer). end returns the
 * collected messages joined by newlines, malloc'd, or NULL if there was none. */
int ocr_capture_begin(void);
char *ocr_capture_end(int token);

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
/* OpenCL C text of the identity. */
const char *ocr_identity_source(ocr_type t, ocr_op o);
/* The index of s in names[0..n), or -1: every name-to-enum lookup. */
int ocr_name_index(const char *s, const char *const *names, int n);
/* Exact half <-> float, rounding to nearest even (ocr_types.c). */
float ocr_half_to_float(uint16_t h);
uint16_t ocr_float_to_half(float f);

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
/* Storage types on the host (ocr_combine.c): n small elements as accumulator
 * values into out, and the naive loop combining them in the accumulator (not
 * argmin/argmax: ocr_arg_reduce reads small elements itself). */
void ocr_small_widen(const void *data, uint64_t n, ocr_type t, void *out);
ocr_value ocr_small_reduce(const void *data, uint64_t n, ocr_type t, ocr_op o);

/* Depth of ocr_reduce_best's evaluation order, for the float bound. */
uint64_t ocr_best_depth(uint64_t n, unsigned threads);
/* ocr_reference_make's any_order for the whole input of n elements (a
 * streamed check makes references of chunks only). */
int ocr_reference_any_order(ocr_type t, ocr_op o, uint64_t n, ocr_data_kind kind);

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

/* The directory of the file holding the library's code (the shared library,
 * or the program an archive is linked into), or "" where unknown. */
void ocr_library_dir(char *buf, size_t len);
/* For a binary of a build tree (exe_dir: its directory), the source tree's cl/
 * as the build's marker file names it (host/lib/core/ocr_paths.c); else NULL. */
const char *ocr_source_kernel_dir(const char *exe_dir);

#endif
