/* cli_report.h - the reports oclReduction writes itself, in every format it
 * writes them (text, CSV, JSON), and the printing helpers they share: the
 * runners compute, these print on stdout. The single run's, --split's and
 * --stream's reports are the library's (host/lib/report/, called by the
 * runners); the grader's are grade/grade_report.c's, written from its case
 * records. docs/output.md describes every field. */
#ifndef OCR_CLI_REPORT_H
#define OCR_CLI_REPORT_H

#include "cli.h"

/* --list-kernels: one line per registry row, in its order (lab kernels
 * included): name, file under cl/ (lab kernels under lab/), summary; the
 * first two never hold a space, so `awk '{print $1}'` reads the names. */
void cli_report_kernels(void);

/* --explain: the kernel, where its source came from, the build options and
 * the pass plan; nothing run. */
void cli_report_explain(const char *kernel, const ocr_device *dev, const ocr_kernel *k,
                        const ocr_plan *plan, size_t elem_size);

/* --peak: the copy rate of the device over `bytes` (median of `repeats`),
 * and the run's read bandwidth against it (both GB/s). */
void cli_report_peak(double copy_gbs, double read_gbs, uint64_t bytes, unsigned repeats);

/* --tune: the winner, where it is stored, and what the sweep cost. */
void cli_report_tuned(const cli_options *o, const ocr_device *dev, const ocr_tuning *best,
                      double seconds, const char *cache_path);

/* -d all: one device's row of the comparison. */
typedef struct {
    char device[256]; /* "(not opened)" until the device opens */
    ocr_status st;
    double t_gpu, t_kernels, gbs, speedup;
} cli_device_row;

/* -d all, text: the comparison table after the devices' reports. */
void cli_report_comparison(const char *kernel, uint64_t n, const ocr_device_choice *choices,
                           const cli_device_row *rows, int count);
/* -d all, JSON: the array's element for a device that did not report. */
void cli_report_device_failed(const ocr_device_choice *c, const cli_device_row *row);

/* --segments: one library call over K seeded segments, timed and checked. */
typedef struct {
    uint64_t k;
    ocr_type off_type;    /* of the offsets: uint where N fits 32 bits, else ulong */
    uint64_t median, min; /* ns of the timed runs */
    uint64_t wrong, first, runs, min_len, max_len;
    double gbps;
} cli_segments_result;
void cli_report_segments(const cli_options *o, const char *device, const cli_segments_result *r);

/* --histogram: one library call over -s N seeded samples, timed and checked. */
typedef struct {
    double lo, hi;                        /* the range */
    uint64_t median, min;                 /* ns of the timed runs */
    uint64_t wrong, first, runs, counted; /* bins wrong (first), runs checked, samples in range */
    double gbps;                          /* input bytes / median */
    /* --kernel-file: the student's kernel, the grid it ran on, a write past
     * the last bin (the guard element) */
    const char *kernel;
    size_t local, groups;
    uint64_t past_end;
} cli_histogram_result;
void cli_report_histogram(const cli_options *o, const char *device, const cli_histogram_result *r);

/* --preset and --map (custom.c): the reduction's name and text, its value
 * and reference as printed, the bound the check allowed and the depth it
 * came from, and the kernel times of the timed calls. */
typedef struct {
    const char *name; /* the preset's, or "custom" */
    const char *map, *reduce, *neutral;
    char result[128], expected[128];
    double tolerance;     /* 0: compared exactly */
    uint64_t depth;       /* longest chain of reduce calls (ocr_reducer_custom_depth) */
    uint64_t bytes;       /* read per call: each buffer the map names */
    uint64_t median, min; /* ns, first kernel's start to last kernel's end */
    int passed;
    int bad_run;         /* the first wrong run (result is its value), or -1;
                            repetitions + 1: the second data set's */
    ocr_data_kind data2; /* the second data set's kind */
} cli_custom_result;
void cli_report_custom(const cli_options *o, const char *device, ocr_type t,
                       const cli_custom_result *r);

/* --mpi: what each rank tells rank 0 (gathered as bytes: one build, one
 * host type), the ranks' slowest times aggregated, and rank 0's view. */
enum { CLI_MPI_NAME_LEN = 128 };
typedef struct {
    int status, passed;
    uint64_t offset, count, depth, elems_read;
    uint64_t kernels_ns, gpu_ns, resident_ns, h2d_ns; /* medians of its runs */
    ocr_value expected;
    double tolerance;
    char host[CLI_MPI_NAME_LEN], device[CLI_MPI_NAME_LEN];
} cli_rank_info;

typedef struct {
    uint64_t kernels, resident, total, wall;
} cli_mpi_times;

typedef struct {
    ocr_value result, expected;
    double tolerance;
    int exact, any_order, whole, passed, hosts;
    uint64_t reduce_ns, elems_read;
    cli_mpi_times med, min;
} cli_mpi_view;

/* In o->format (text or JSON). Compiled in every build, so that a build
 * without MPI still checks it. */
void cli_report_mpi(const cli_options *o, const char *kernel, int ranks, const cli_rank_info *ri,
                    const cli_mpi_view *g);

#endif
