/* A plugin (a Python extension, say): a shared library that links the
 * oclreduction library and offers one function of its own. */
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr_reducer.h>

int consumer_plugin_sum(const int *v, int n);

/* The sum in the library's arithmetic (ocr_combine: int sums wrap). */
int consumer_plugin_sum(const int *v, int n) {
    ocr_value a = ocr_identity(OCR_INT, OCR_SUM);
    for (int i = 0; i < n; ++i) {
        ocr_value x;
        x.i = v[i];
        a = ocr_combine(OCR_INT, OCR_SUM, a, x);
    }
    return a.i;
}
