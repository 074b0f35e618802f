// cub_ops.cu - CUB's comparators for issue 27 (bench/drivers/ops_vs_cub.sh):
// DeviceReduce::ArgMax/ArgMin and DeviceSegmentedReduce::Sum, timed the way
// oclReduction times itself (CUDA events around the CUB call alone, temporary
// storage allocated once outside the timing, 3 warm-up calls, median of REPS)
// and checked after the timing (exit 1 if a result is wrong).
//
//   cub_ops argmax|argmin TYPE REPS N   TYPE float or int; one CSV row:
//                                       cub,argmax,TYPE,N,median_ms,min_ms,GB/s
//   cub_ops segsum TYPE REPS N K SEED   N values cut into K segments exactly as
//                                       oclReduction --segments K -s N --seed SEED
//                                       (SEED 1 is its default); one CSV row:
//                                       cub,segsum,TYPE,N,K,median_ms,min_ms,GB/s
//   cub_ops offsets N K SEED            no GPU: the segments' shortest and longest
//                                       length (oclReduction's JSON min_length and
//                                       max_length) and an FNV-1a hash of the offsets:
//                                       offsets,N,K,SEED,min_len,max_len,hash
//   cub_ops version                     no GPU: CUB_VERSION and CUDART_VERSION
//
// GB/s counts what oclReduction counts: the input for argmax/argmin; input,
// K + 1 offsets and K results for segsum (host/cli/segments.c). Offsets are
// 32-bit unsigned where N fits 32 bits, else 64-bit, as oclReduction's.
// ArgMax/ArgMin: CUB 3.x's overload with separate value and index outputs;
// before 3.0 (or with -DCUB_OPS_KVP) the KeyValuePair<int, T> one.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include "cub_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#if CUB_VERSION < 300000 && !defined(CUB_OPS_KVP)
#define CUB_OPS_KVP 1
#endif

// Segment sums' data: small values as cub_reduce.cu's (and oclReduction's
// exact data), never all zeros; the host recomputes them to check.
template <typename T> __host__ __device__ inline T small_value(size_t i) {
    return (T)((int)((i * 2654435761u) % 2048u) - 1024);
}
// Argmax/argmin data: 2^20 distinct values (exact in float), each repeated
// every 2^20 elements, and one planted extremum, 2^21 (argmax) or -2^21
// (argmin), that no other element reaches, at a known position.
template <typename T> __host__ __device__ inline T wide_value(size_t i) {
    return (T)((int)((i * 2654435761u) % 1048576u) - 524288);
}
static const int kPlant = 1 << 21;
static size_t plant_at(size_t n) {
    return (size_t)((double)n * 0.6180339887) % n;
}

template <typename T> __global__ void fill_small(T *p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = small_value<T>(i);
}
template <typename T> __global__ void fill_wide(T *p, size_t n, size_t at, int plant) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = i == at ? (T)plant : wide_value<T>(i);
}

// ArgMax (is_max) or ArgMin over n values with one planted extremum; the
// index and value CUB returns must be the plant's.
template <typename T> static int arg(bool is_max, const char *tname, int reps, size_t n) {
    const char *op = is_max ? "argmax" : "argmin";
    size_t at = plant_at(n);
    int plant = is_max ? kPlant : -kPlant;
    T *in = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc(&in, n * sizeof(T)));
    fill_wide<<<1024, 256>>>(in, n, at, plant);
    CK(cudaGetLastError());
#ifdef CUB_OPS_KVP
    if (n > (size_t)INT32_MAX) {
        std::fprintf(stderr,
                     "cub_ops: this CUB's ArgMax/ArgMin count items in int: N <= 2^31 - 1\n");
        return 2;
    }
    cub::KeyValuePair<int, T> *out = nullptr;
    CK(cudaMalloc(&out, sizeof *out));
    auto call = [&] {
        return is_max ? cub::DeviceReduce::ArgMax(tmp, tmp_bytes, in, out, (int)n)
                      : cub::DeviceReduce::ArgMin(tmp, tmp_bytes, in, out, (int)n);
    };
#else
    T *val = nullptr;
    int64_t *idx = nullptr;
    CK(cudaMalloc(&val, sizeof *val));
    CK(cudaMalloc(&idx, sizeof *idx));
    auto call = [&] {
        return is_max ? cub::DeviceReduce::ArgMax(tmp, tmp_bytes, in, val, idx, (int64_t)n)
                      : cub::DeviceReduce::ArgMin(tmp, tmp_bytes, in, val, idx, (int64_t)n);
    };
#endif
    CK(call());
    CK(cudaMalloc(&tmp, tmp_bytes));
    float med, mn;
    auto checked = [&] { CK(call()); };
    timed(3, reps, checked, &med, &mn);
    T got_val;
    int64_t got_idx;
#ifdef CUB_OPS_KVP
    cub::KeyValuePair<int, T> kv;
    CK(cudaMemcpy(&kv, out, sizeof kv, cudaMemcpyDeviceToHost));
    got_val = kv.value, got_idx = kv.key;
    CK(cudaFree(out));
#else
    CK(cudaMemcpy(&got_val, val, sizeof got_val, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&got_idx, idx, sizeof got_idx, cudaMemcpyDeviceToHost));
    CK(cudaFree(val));
    CK(cudaFree(idx));
#endif
    CK(cudaFree(tmp));
    CK(cudaFree(in));
    if (got_idx != (int64_t)at || got_val != (T)plant) {
        std::fprintf(stderr,
                     "cub_ops: %s %s N=%zu WRONG: index %lld value %g, expected %zu and %d\n", op,
                     tname, n, (long long)got_idx, (double)got_val, at, plant);
        return 1;
    }
    std::printf("cub,%s,%s,%zu,%.6f,%.6f,%.2f\n", op, tname, n, med, mn,
                n * sizeof(T) / (med * 1e6));
    return 0;
}

// host/cli/segments.c's make_offsets, bit for bit: K - 1 cut points drawn
// uniformly in [0, N] by xorshift from the seed, sorted; off[0] = 0, off[K] = N.
static std::vector<uint64_t> make_offsets(uint64_t n, uint64_t k, uint64_t seed) {
    std::vector<uint64_t> off(k + 1);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    off[0] = 0, off[k] = n;
    for (uint64_t j = 1; j < k; ++j) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        off[j] = s % (n + 1);
    }
    std::sort(off.begin() + 1, off.begin() + k);
    return off;
}

static void lengths(const std::vector<uint64_t> &off, uint64_t *mn, uint64_t *mx,
                    uint64_t *at_max) {
    *mn = UINT64_MAX, *mx = 0, *at_max = 0;
    for (size_t j = 0; j + 1 < off.size(); ++j) {
        uint64_t len = off[j + 1] - off[j];
        *mn = std::min(*mn, len);
        if (len > *mx) *mx = len, *at_max = j;
    }
}

static int offsets(uint64_t n, uint64_t k, uint64_t seed) {
    std::vector<uint64_t> off = make_offsets(n, k, seed);
    uint64_t mn, mx, at, h = 0xcbf29ce484222325ull;
    lengths(off, &mn, &mx, &at);
    for (uint64_t v : off)
        for (int b = 0; b < 8; ++b)
            h = (h ^ ((v >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    std::printf("offsets,%llu,%llu,%llu,%llu,%llu,%016llx\n", (unsigned long long)n,
                (unsigned long long)k, (unsigned long long)seed, (unsigned long long)mn,
                (unsigned long long)mx, (unsigned long long)h);
    return 0;
}

// Segment j's sum on the host: ints wrap as the device's do; floats in double,
// with the sum of magnitudes for the tolerance.
template <typename T> static bool seg_ok(const std::vector<uint64_t> &off, uint64_t j, T got) {
    if (std::is_integral<T>::value) {
        uint32_t s = 0;
        for (uint64_t i = off[j]; i < off[j + 1]; ++i)
            s += (uint32_t)small_value<int>(i);
        return (int32_t)s == (int32_t)got;
    }
    double s = 0, mag = 0;
    for (uint64_t i = off[j]; i < off[j + 1]; ++i) {
        double v = small_value<T>(i);
        s += v, mag += std::fabs(v);
    }
    return std::fabs((double)got - s) <= 1e-3 * mag;
}

template <typename T, typename O>
static int segsum_with(const char *tname, int reps, size_t n, uint64_t k, uint64_t seed) {
    std::vector<uint64_t> off = make_offsets(n, k, seed);
    std::vector<O> host_off(off.begin(), off.end());
    T *in = nullptr, *out = nullptr;
    O *d_off = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, k * sizeof(T)));
    CK(cudaMalloc(&d_off, (k + 1) * sizeof(O)));
    CK(cudaMemcpy(d_off, host_off.data(), (k + 1) * sizeof(O), cudaMemcpyHostToDevice));
    fill_small<<<1024, 256>>>(in, n);
    CK(cudaGetLastError());
    auto call = [&] {
        return cub::DeviceSegmentedReduce::Sum(tmp, tmp_bytes, in, out, (int)k, d_off, d_off + 1);
    };
    CK(call());
    CK(cudaMalloc(&tmp, tmp_bytes));
    float med, mn;
    auto checked = [&] { CK(call()); };
    timed(3, reps, checked, &med, &mn);
    std::vector<T> got(k);
    CK(cudaMemcpy(got.data(), out, k * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaFree(tmp));
    CK(cudaFree(d_off));
    CK(cudaFree(out));
    CK(cudaFree(in));
    // Checked: 64 segments spread over [0, K), the longest and the last.
    uint64_t lmin, lmax, at_max;
    lengths(off, &lmin, &lmax, &at_max);
    std::vector<uint64_t> check = {at_max, k - 1};
    for (uint64_t i = 0; i < 64; ++i)
        check.push_back(k > 1 ? i * (k - 1) / 63 : 0);
    for (uint64_t j : check)
        if (!seg_ok<T>(off, j, got[j])) {
            std::fprintf(stderr, "cub_ops: segsum %s N=%zu K=%llu WRONG at segment %llu: %g\n",
                         tname, n, (unsigned long long)k, (unsigned long long)j, (double)got[j]);
            return 1;
        }
    double bytes = (double)n * sizeof(T) + (double)(k + 1) * sizeof(O) + (double)k * sizeof(T);
    std::printf("cub,segsum,%s,%zu,%llu,%.6f,%.6f,%.2f\n", tname, n, (unsigned long long)k, med, mn,
                bytes / (med * 1e6));
    return 0;
}

template <typename T>
static int segsum(const char *tname, int reps, size_t n, uint64_t k, uint64_t seed) {
    if (n <= UINT32_MAX) return segsum_with<T, uint32_t>(tname, reps, n, k, seed);
    return segsum_with<T, uint64_t>(tname, reps, n, k, seed);
}

static bool is_type(const char *t) {
    return !std::strcmp(t, "float") || !std::strcmp(t, "int");
}

int main(int argc, char **argv) {
    const char *m = argc > 1 ? argv[1] : "";
    if (argc == 5 && (!std::strcmp(m, "argmax") || !std::strcmp(m, "argmin")) && is_type(argv[2])) {
        bool is_max = !std::strcmp(m, "argmax");
        int reps = std::atoi(argv[3]);
        size_t n = std::strtoull(argv[4], nullptr, 10);
        if (reps >= 1 && n >= 1)
            return !std::strcmp(argv[2], "float") ? arg<float>(is_max, "float", reps, n)
                                                  : arg<int>(is_max, "int", reps, n);
    }
    if (argc == 7 && !std::strcmp(m, "segsum") && is_type(argv[2])) {
        int reps = std::atoi(argv[3]);
        size_t n = std::strtoull(argv[4], nullptr, 10);
        uint64_t k = std::strtoull(argv[5], nullptr, 10),
                 seed = std::strtoull(argv[6], nullptr, 10);
        if (reps >= 1 && n >= 1 && k >= 1 && k <= INT32_MAX)
            return !std::strcmp(argv[2], "float") ? segsum<float>("float", reps, n, k, seed)
                                                  : segsum<int>("int", reps, n, k, seed);
    }
    if (argc == 5 && !std::strcmp(m, "offsets")) {
        uint64_t k = std::strtoull(argv[3], nullptr, 10);
        if (k >= 1)
            return offsets(std::strtoull(argv[2], nullptr, 10), k,
                           std::strtoull(argv[4], nullptr, 10));
    }
    if (argc == 2 && !std::strcmp(m, "version")) {
        std::printf("CUB_VERSION %d, CUDART_VERSION %d, ArgMax/ArgMin with %s\n", CUB_VERSION,
                    CUDART_VERSION,
#ifdef CUB_OPS_KVP
                    "KeyValuePair<int, T> output"
#else
                    "separate value and index outputs"
#endif
        );
        return 0;
    }
    std::fprintf(stderr, "usage: cub_ops argmax|argmin float|int REPS N\n"
                         "       cub_ops segsum float|int REPS N K SEED\n"
                         "       cub_ops offsets N K SEED | cub_ops version\n");
    return 2;
}
