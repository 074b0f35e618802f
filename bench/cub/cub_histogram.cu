// cub_histogram.cu - the comparator for bench/drivers/histogram_vs_cub.sh:
// CUB's DeviceHistogram::HistogramEven over N samples, timed the way
// oclReduction times itself (CUDA events around the call, warm-up, median
// and minimum of R runs), on the data oclReduction --histogram draws:
// uniform over the range widened by an eighth, or one value (one-bin).
//
//   cub_histogram TYPE DATA BINS LO HI REPS N...
//       TYPE uchar or float, DATA uniform or one-bin; one CSV row per N:
//       cub,TYPE,DATA,BINS,N,median_ms,min_ms,GB/s (input / median),counted
//   The counts are checked on the host against a loop over the same samples
//   (exit 1 when they differ): a comparator that counts wrong is no peer.
//   uchar bins are exact; float samples on a bin's edge may fall either side
//   by CUB's own rounding of the scale, so for float the total must agree and
//   each bin within 2 + n / 10^6.
#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include "cub_common.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static uint64_t next(uint64_t *s) { // xorshift64*, as host/cli/histogram.c
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

template <typename T>
static void draw(std::vector<T> &h, bool one_bin, double lo, double hi, double tlo, double thi) {
    uint64_t s = 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull; // seed 1
    double w = (hi - lo) / 16, one = lo + (hi - lo) * 0.37;
    for (size_t i = 0; i < h.size(); ++i) {
        double v =
            one_bin ? one : lo - w + (hi - lo + 2 * w) * ((double)(next(&s) >> 11) * 0x1p-53);
        if (tlo == 0 && thi == 255) v = std::floor(v);
        h[i] = (T)std::fmin(thi, std::fmax(tlo, v));
    }
}

// CUB's rule for HistogramEven: bin (x - lo) * bins / (hi - lo) for lo <= x < hi.
template <typename T>
static std::vector<int> reference(const std::vector<T> &h, int bins, double lo, double hi) {
    std::vector<int> c(bins, 0);
    for (T x : h) {
        double v = (double)x;
        if (!(v >= lo && v < hi)) continue;
        long b = (long)((v - lo) * bins / (hi - lo));
        c[b < bins ? b : bins - 1]++;
    }
    return c;
}

template <typename T, typename L>
static int run(const char *tname, bool one_bin, int bins, double lo, double hi, int reps, size_t n,
               double tlo, double thi) {
    std::vector<T> h(n);
    draw(h, one_bin, lo, hi, tlo, thi);
    T *in = nullptr;
    int *counts = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&counts, bins * sizeof(int)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    L l = (L)lo, u = (L)hi;
    CK(cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, in, counts, bins + 1, l, u, (int)n));
    CK(cudaMalloc(&tmp, tmp_bytes));
    float med, mn;
    timed(
        3, reps,
        [&] {
            CK(cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, in, counts, bins + 1, l, u,
                                                   (int)n));
        },
        &med, &mn);
    std::vector<int> got(bins);
    CK(cudaMemcpy(got.data(), counts, bins * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> want = reference(h, bins, lo, hi);
    long counted = 0;
    int wrong = 0;
    long total = 0, slack = tlo == 0 && thi == 255 ? 0 : 2 + (long)(n / 1000000);
    for (int b = 0; b < bins; ++b)
        counted += want[b], total += got[b], wrong += std::labs((long)got[b] - want[b]) > slack;
    wrong += total != counted;
    std::printf("cub,%s,%s,%d,%zu,%.6f,%.6f,%.2f,%ld\n", tname, one_bin ? "one-bin" : "uniform",
                bins, n, med, mn, n * sizeof(T) / (med * 1e6), counted);
    if (wrong) std::fprintf(stderr, "cub_histogram: %d bins differ from the host loop\n", wrong);
    CK(cudaFree(tmp));
    CK(cudaFree(counts));
    CK(cudaFree(in));
    return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc < 8) {
        std::fprintf(stderr,
                     "usage: cub_histogram uchar|float uniform|one-bin BINS LO HI REPS N...\n");
        return 2;
    }
    bool uc = !std::strcmp(argv[1], "uchar"), one_bin = !std::strcmp(argv[2], "one-bin");
    int bins = std::atoi(argv[3]), reps = std::atoi(argv[6]), rc = 0;
    double lo = std::atof(argv[4]), hi = std::atof(argv[5]);
    if ((!uc && std::strcmp(argv[1], "float")) || bins < 1 || reps < 1 || !(lo < hi)) {
        std::fprintf(stderr, "cub_histogram: bad arguments\n");
        return 2;
    }
    for (int i = 7; i < argc; ++i) {
        size_t n = std::strtoull(argv[i], nullptr, 10);
        rc |= uc ? run<unsigned char, int>("uchar", one_bin, bins, lo, hi, reps, n, 0, 255)
                 : run<float, float>("float", one_bin, bins, lo, hi, reps, n, -3e38, 3e38);
    }
    return rc;
}
