/*
 * test_verdict.c - the check must be able to fail. Each fixture in
 * tests/fixtures/kernels_verdict/ makes one classic mistake (loses element n - 1,
 * counts element 0 twice, skips the last element of every group); each must
 * FAIL for int, uint, long, float and double at every size below, with the
 * default (exact) data, both as a --kernel-file kernel and in reduce6's
 * built-in geometry (--kernel-dir). The same body without the mistake is the
 * control and must PASS everywhere, or failing everything would pass.
 *
 *   test_verdict DIR            DIR = tests/fixtures/kernels_verdict
 *
 * Built-in geometry runs with M = 1 so the kernel launches; at N = 1 a
 * built-in kernel never launches (N <= M), which the report says instead.
 * The last line reads "N passed, N failed".
 */
#include "ocr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static const uint64_t sizes[] = {1, 3, 4096, 4103, 1000001, (uint64_t)1 << 25};
static const ocr_type types[] = {OCR_INT, OCR_UINT, OCR_LONG, OCR_FLOAT, OCR_DOUBLE};
static const char *const fixtures[] = {"correct", "drop_last", "dup_first", "skip_group_tail"};

static ocr_kernel *build(ocr_device *dev, const char *dir, const char *fixture, ocr_type t,
                         int as_file, char *path, size_t len) {
    ocr_build_request rq = {0};
    ocr_kernel *k = NULL;
    snprintf(path, len, "%s/%s", dir, fixture);
    rq.spec = *ocr_kernel_find("reduce6");
    if (as_file) { /* what oclReduction --kernel-file F --kernel-name reduce6 -E 1024 builds */
        strncat(path, "/reduce6.cl", len - strlen(path) - 1);
        ocr_kernel_spec s = {"reduce6", path, OCR_PER_GROUP, 64, 1024, 1, 1024, "fixture", {0}, 0};
        rq.spec = s;
        rq.kernel_file = path;
    } else {
        rq.kernel_dir = path;
    }
    rq.type = t;
    rq.op = OCR_SUM;
    return ocr_kernel_build(dev, &rq, &k) == OCR_OK ? k : NULL;
}

/* The library's messages, for the log of a failing case. */
static void print_message(void *user, const char *message) {
    (void)user;
    fprintf(stderr, "oclReduction: %s\n", message);
}

int main(int argc, char **argv) {
    ocr_set_message_callback(print_message, NULL);
    ocr_device_choice choice = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    ocr_device *dev = NULL;
    if (argc != 2) {
        fprintf(stderr, "usage: test_verdict DIR\n");
        return 2;
    }
    if (ocr_device_open(&choice, &dev) != OCR_OK) return 3;
    int fp64 = ocr_device_get_info(dev)->fp64;
    uint64_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    void *data = malloc(nmax * 8);
    if (!data) return 3;
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; ++f)
        for (int as_file = 1; as_file >= 0; --as_file)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
                ocr_type t = types[ti];
                char path[512];
                if (t == OCR_DOUBLE && !fp64) continue;
                ocr_kernel *k = build(dev, argv[1], fixtures[f], t, as_file, path, sizeof path);
                if (!k) {
                    printf("FAIL %s: build failed\n", path);
                    ++failed;
                    continue;
                }
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                    uint64_t n = sizes[si];
                    ocr_data_fill(data, n, t, OCR_SUM, 1, OCR_DATA_EXACT);
                    ocr_run_options ro = {.repeats = 1,
                                          .m = as_file ? 0 : 1,
                                          .cpu = OCR_CPU_NONE,
                                          .data = OCR_DATA_EXACT};
                    ocr_result r;
                    ocr_status st = ocr_run(dev, k, data, n, t, OCR_SUM, &ro, &r);
                    int launched = r.plan.npasses > 0, want_pass = f == 0 || !launched;
                    int ok = (st == OCR_OK || st == OCR_WRONG) && r.passed == want_pass &&
                             (launched || (!as_file && n == 1));
                    char got[64], want[64];
                    if (!ok)
                        printf(
                            "FAIL %s %s n=%llu: %s, got %s, expected %s (status %d, %u passes)\n",
                            path, ocr_type_name(t), (unsigned long long)n,
                            want_pass ? "should pass" : "should FAIL",
                            ocr_value_str(t, r.result, got, sizeof got),
                            ocr_value_str(t, r.expected, want, sizeof want), (int)st,
                            r.plan.npasses);
                    ok ? ++passed : ++failed;
                    ocr_result_release(&r);
                }
                ocr_kernel_release(k);
            }
    free(data);
    ocr_device_close(dev);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
