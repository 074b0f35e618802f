/*
 * data_fill_module.c - the program's data for the Python tests that compare
 * its reports with NumPy and math.fsum (arg_numpy_test.py,
 * accurate_fsum_test.py): ocr_data_fill belongs to the benchmark API, which
 * the shared library does not export, so this module links the archive and
 * offers it under a name of its own ($OCR_DATA_MODULE, loaded with ctypes).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include "ocr.h"

void test_data_fill(void *data, uint64_t n, int t, int o, uint64_t seed, int kind);

void test_data_fill(void *data, uint64_t n, int t, int o, uint64_t seed, int kind) {
    ocr_data_fill(data, n, (ocr_type)t, (ocr_op)o, seed, (ocr_data_kind)kind);
}
