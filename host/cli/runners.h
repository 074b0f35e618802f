/* runners.h - the runs of oclReduction's modes (runners.c). */
#ifndef OCR_RUNNERS_H
#define OCR_RUNNERS_H

#include "cli.h"

/* One row of the --device all comparison table. */
typedef struct {
    char device[256];
    ocr_status st;
    double t_gpu, t_kernels, gbs, speedup;
} summary;

ocr_status make_request(const cli_options *o, ocr_build_request *rq);
ocr_status run_on(const cli_options *o, const ocr_build_request *rq,
                  const ocr_device_choice *choice, void **data, int csv_header, summary *sum);
ocr_status run_all(const cli_options *o, const ocr_build_request *rq);
ocr_status run_split(const cli_options *o, const ocr_build_request *rq);
ocr_status tune(const cli_options *o);

#endif
