/*
 * test_verdict.c - the check must be able to fail. Each fixture in
 * tests/fixtures/kernels_verdict/ makes one classic mistake (loses element n - 1,
 * counts element 0 twice, skips the last element of every group, reads
 * nothing and answers the identity); each must FAIL for int, uint, long,
 * ulong, float and double sums, and float and double products, at every size
 * below, both as a --kernel-file kernel and in reduce6's built-in geometry
 * (--kernel-dir). Every verdict rests on two data sets: the exact data of
 * seed 1 and the one-sided set (ocr_run checks both for a --kernel-file
 * kernel; here also for the built-in geometry). The same body without the
 * mistake is the control and must PASS everywhere, or failing everything
 * would pass.
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
static const char *const fixtures[] = {"correct", "drop_last", "dup_first", "skip_group_tail",
                                       "identity"};
/* Sums of every type; products of the float types, where exact data alone
 * could not show a lost element. */
static const struct {
    ocr_type t;
    ocr_op o;
} cases[] = {{OCR_INT, OCR_SUM},    {OCR_UINT, OCR_SUM},   {OCR_LONG, OCR_SUM},
             {OCR_ULONG, OCR_SUM},  {OCR_FLOAT, OCR_SUM},  {OCR_DOUBLE, OCR_SUM},
             {OCR_FLOAT, OCR_PROD}, {OCR_DOUBLE, OCR_PROD}};

static ocr_kernel *build(ocr_device *dev, const char *dir, const char *fixture, ocr_type t,
                         ocr_op o, int as_file, char *path, size_t len) {
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
    rq.op = o;
    return ocr_kernel_build(dev, &rq, &k) == OCR_OK ? k : NULL;
}

/* One size: must FAIL unless the fixture is the control (or nothing
 * launched, which only a built-in geometry allows, at N = 1). */
static void run_case(ocr_device *dev, ocr_kernel *k, const char *path, ocr_type t, ocr_op o,
                     uint64_t n, int control, int as_file, void *data) {
    ocr_data_fill(data, n, t, o, 1, OCR_DATA_EXACT);
    ocr_run_options ro = {.repeats = 1,
                          .m = as_file ? 0 : 1,
                          .cpu = OCR_CPU_NONE,
                          .data = OCR_DATA_EXACT,
                          .second = OCR_SECOND_ON,
                          .seed = 1};
    ocr_result r;
    ocr_status st = ocr_run(dev, k, data, n, &ro, &r);
    int launched = r.plan.npasses > 0, want_pass = control || !launched;
    int ok = (st == OCR_OK || st == OCR_WRONG) && r.passed == want_pass &&
             (launched || (!as_file && n == 1)) && r.second.runs == 2;
    char got[64], want[64], got2[64], want2[64];
    if (!ok)
        printf("FAIL %s %s %s n=%llu: %s, got %s, expected %s; one-sided: got %s, expected %s "
               "(status %d, %u passes)\n",
               path, ocr_type_name(t), ocr_op_name(o), (unsigned long long)n,
               want_pass ? "should pass" : "should FAIL",
               ocr_value_str(t, r.result, got, sizeof got),
               ocr_value_str(t, r.expected, want, sizeof want),
               ocr_value_str(t, r.second.result, got2, sizeof got2),
               ocr_value_str(t, r.second.expected, want2, sizeof want2), (int)st, r.plan.npasses);
    ok ? ++passed : ++failed;
    ocr_result_release(&r);
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
            for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
                ocr_type t = cases[ci].t;
                ocr_op o = cases[ci].o;
                char path[512];
                if (t == OCR_DOUBLE && !fp64) continue;
                ocr_kernel *k = build(dev, argv[1], fixtures[f], t, o, as_file, path, sizeof path);
                if (!k) {
                    printf("FAIL %s: build failed\n", path);
                    ++failed;
                    continue;
                }
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    run_case(dev, k, path, t, o, sizes[si], f == 0, as_file, data);
                ocr_kernel_release(k);
            }
    free(data);
    ocr_device_close(dev);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
