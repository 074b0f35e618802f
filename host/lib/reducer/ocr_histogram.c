/* ocr_histogram.c - histograms of a caller's buffer (ocr_reducer_histogram,
 * ocr_reducer_histogram_host): a call form of the reducer's pipeline
 * (ocr_call.c). This first version declares the API only: every call is
 * refused (OCR_USAGE) until the kernels land. Prints nothing. */
#include "ocr_reducer_priv.h"

size_t ocr_histogram_element_size(const ocr_histogram_spec *spec) {
    if (!spec) return 0;
    if (spec->weights)
        return spec->weights_type == OCR_DOUBLE ? 8 : spec->weights_type == OCR_FLOAT ? 4 : 0;
    return spec->count_bits == 32 ? 4 : spec->count_bits == 0 || spec->count_bits == 64 ? 8 : 0;
}

ocr_status ocr_reducer_histogram(ocr_reducer *r, cl_command_queue queue, cl_mem buf, size_t offset,
                                 uint64_t n, const ocr_histogram_spec *spec, cl_mem counts_buf,
                                 size_t counts_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done) {
    (void)r, (void)queue, (void)buf, (void)offset, (void)n, (void)spec, (void)counts_buf;
    (void)counts_offset, (void)num_wait, (void)wait;
    if (done) *done = NULL;
    ocr_errorf("ocr_reducer_histogram: not implemented yet");
    return OCR_USAGE;
}

ocr_status ocr_reducer_histogram_host(ocr_reducer *r, cl_command_queue queue, cl_mem buf,
                                      size_t offset, uint64_t n, const ocr_histogram_spec *spec,
                                      void *counts, cl_uint num_wait, const cl_event *wait) {
    (void)r, (void)queue, (void)buf, (void)offset, (void)n, (void)spec, (void)counts;
    (void)num_wait, (void)wait;
    ocr_errorf("ocr_reducer_histogram_host: not implemented yet");
    return OCR_USAGE;
}
