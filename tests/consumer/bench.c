/* Reduces 4103 ints with the installed archive's benchmark and run API
 * (ocr_bench.h: reduce6 built from its installed .cl file, run and checked). */
/* An application chooses its OpenCL version; the library needs 1.2. */
#define CL_TARGET_OPENCL_VERSION 120
#include <oclreduction/ocr.h>
#include <stdlib.h>

int main(void) {
    ocr_device_choice choice = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    ocr_device *dev = NULL;
    ocr_kernel *k = NULL;
    ocr_build_request rq = {0};
    ocr_result res;
    enum { N = 4103 };
    int *data = malloc(N * sizeof *data);
    ocr_status st = ocr_device_open(&choice, &dev);
    rq.spec = *ocr_kernel_find("6");
    rq.type = OCR_INT;
    rq.op = OCR_SUM;
    if (st == OCR_OK) st = ocr_kernel_build(dev, &rq, &k);
    if (st == OCR_OK) {
        ocr_data_fill(data, N, OCR_INT, OCR_SUM, 1, OCR_DATA_EXACT);
        ocr_run_options ro = {.repeats = 1, .host_mem = OCR_HOST_AUTO, .cpu = OCR_CPU_NAIVE};
        st = ocr_run(dev, k, data, N, &ro, &res);
        printf("consumer: %s\n", st == OCR_OK && res.passed ? "PASSED" : "FAILED");
        ocr_result_release(&res);
    }
    if (st != OCR_OK) /* the library prints nothing: say why here */
        fprintf(stderr, "consumer: %s: %s\n", ocr_status_name(st), ocr_last_error());
    ocr_kernel_release(k);
    ocr_device_close(dev);
    free(data);
    return (int)st;
}
