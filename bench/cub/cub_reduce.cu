// cub_reduce.cu - the comparator for bench/drivers/gpu.sh: CUB's
// DeviceReduce::Sum and CUDA's host-to-device copy rates, timed the way
// oclReduction times itself (events, warm-up, median of R runs).
//
//   cub_reduce sum TYPE REPS N...   TYPE int or float; one CSV row per N:
//                                   cub,TYPE,N,median_ms,min_ms,GB/s (median)
//   cub_reduce h2d REPS BYTES       pinned and pageable cudaMemcpy rates
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include "cub_common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Small values, as oclReduction's int data; never zeros (they can time faster).
template <typename T> __global__ void fill(T *p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = (T)((int)((i * 2654435761u) % 2048u) - 1024);
}

template <typename T> static void sum(const char *tname, int reps, size_t n) {
    T *in = nullptr, *out = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, sizeof(T)));
    fill<<<1024, 256>>>(in, n);
    CK(cudaGetLastError());
    CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, in, out, (int)n));
    CK(cudaMalloc(&tmp, tmp_bytes));
    float med, mn;
    timed(3, reps, [&] { CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, in, out, (int)n)); }, &med, &mn);
    std::printf("cub,%s,%zu,%.6f,%.6f,%.2f\n", tname, n, med, mn, n * sizeof(T) / (med * 1e6));
    CK(cudaFree(tmp));
    CK(cudaFree(out));
    CK(cudaFree(in));
}

static void h2d(int reps, size_t bytes) {
    void *dev = nullptr, *pinned = nullptr;
    void *pageable = std::malloc(bytes);
    CK(cudaMalloc(&dev, bytes));
    CK(cudaMallocHost(&pinned, bytes));
    std::memset(pinned, 1, bytes);
    std::memset(pageable, 1, bytes);
    const char *names[2] = {"pinned", "pageable"};
    void *src[2] = {pinned, pageable};
    for (int k = 0; k < 2; ++k) {
        float med, mn;
        timed(2, reps, [&] { CK(cudaMemcpy(dev, src[k], bytes, cudaMemcpyHostToDevice)); }, &med, &mn);
        std::printf("h2d,%s,%zu,%.6f,%.6f,%.2f\n", names[k], bytes, med, mn, bytes / (med * 1e6));
    }
    CK(cudaFreeHost(pinned));
    CK(cudaFree(dev));
    std::free(pageable);
}

int main(int argc, char **argv) {
    if (argc >= 5 && !std::strcmp(argv[1], "sum")) {
        int reps = std::atoi(argv[3]);
        for (int i = 4; i < argc; ++i) {
            size_t n = std::strtoull(argv[i], nullptr, 10);
            if (!std::strcmp(argv[2], "float"))
                sum<float>("float", reps, n);
            else
                sum<int>("int", reps, n);
        }
        return 0;
    }
    if (argc == 4 && !std::strcmp(argv[1], "h2d")) {
        h2d(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10));
        return 0;
    }
    std::fprintf(stderr, "usage: cub_reduce sum int|float REPS N... | cub_reduce h2d REPS BYTES\n");
    return 2;
}
