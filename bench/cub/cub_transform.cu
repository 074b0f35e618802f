// cub_transform.cu - CUDA's comparators for custom reductions
// (bench/drivers/custom_vs_cub.sh): a dot product with CUB's
// DeviceReduce::TransformReduce and with cuBLAS's sdot/ddot, fused statistics
// (count, mean, M2 merged with Chan's formula) with TransformReduce, and a
// plain DeviceReduce::Sum over the same data as the yardstick. Timed the way
// oclReduction times itself (CUDA events around the call alone, temporary
// storage allocated once outside, 3 warm-up calls, median and minimum of REPS)
// and checked after the timing against a double sum on the host (exit 1 if a
// result is off by more than the stated bound).
//
//   cub_transform WHAT TYPE REPS N   WHAT dot, cublas_dot, stats or sum; TYPE
//                                    float or double; one CSV row:
//                                    WHAT,TYPE,N,median_ms,min_ms,GB/s,value
//   cub_transform version            CUB_VERSION, CUDART_VERSION
//
// GB/s counts the bytes read: two arrays for a dot, one otherwise. Data: x[i]
// and y[i] small integers over 64 (exact in float; any order of the dot's and
// the sum's additions gives the same value below 2^24 / 64^2 terms' worth of
// spread, and the bound below covers the rest).
#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#ifdef WITH_CUBLAS
#include <cublas_v2.h>
#endif

#include "cub_common.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

template <typename T> __host__ __device__ inline T xval(size_t i) {
    return (T)((int)((i * 2654435761u) % 127u) - 63) / (T)64;
}
template <typename T> __host__ __device__ inline T yval(size_t i) {
    return (T)((int)((i * 40503u + 7u) % 101u) - 50) / (T)64;
}
template <typename T> __global__ void fill(T *x, T *y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        x[i] = xval<T>(i);
        if (y) y[i] = yval<T>(i);
    }
}

template <typename T> struct DotAt {
    const T *x, *y;
    __host__ __device__ T operator()(size_t i) const { return x[i] * y[i]; }
};

// count, mean, M2: Chan's merge; an element is (1, x, 0).
// The count is 64-bit, as oclreduction.stats keeps it (a float count is
// exact only below 2^24).
template <typename T> struct Moments {
    unsigned long long n;
    T m, m2;
};
template <typename T> struct OneMoment {
    __host__ __device__ Moments<T> operator()(T x) const { return Moments<T>{1ull, x, (T)0}; }
};
template <typename T> struct MergeMoments {
    __host__ __device__ Moments<T> operator()(const Moments<T> &a, const Moments<T> &b) const {
        if (b.n == 0) return a;
        if (a.n == 0) return b;
        T na = (T)a.n, wb = (T)b.n / (na + (T)b.n), d = b.m - a.m;
        return Moments<T>{a.n + b.n, a.m + d * wb, a.m2 + b.m2 + d * d * (na * wb)};
    }
};

// Times op and prints the row up to the value (the check follows the timing).
template <typename Op> static void report(const char *what, const char *tname, size_t n,
                                          size_t bytes, int reps, Op op) {
    float med, mn;
    timed(3, reps, op, &med, &mn);
    std::printf("%s,%s,%zu,%.6f,%.6f,%.2f,", what, tname, n, med, mn, bytes / (med * 1e6));
}

// The host's reference, in double (exact for these data up to 2^40 terms),
// and the sum of |x y| that bounds a float dot's rounding.
template <typename T>
static void reference(size_t n, double *dot, double *dotabs, double *sum, double *sumsq) {
    *dot = *dotabs = *sum = *sumsq = 0;
    for (size_t i = 0; i < n; ++i) {
        double x = xval<T>(i), xy = x * (double)yval<T>(i);
        *dot += xy;
        *dotabs += std::fabs(xy);
        *sum += x;
        *sumsq += x * x;
    }
}

template <typename T> static int run(const char *what, const char *tname, int reps, size_t n) {
    T *x = nullptr, *y = nullptr, *out = nullptr;
    Moments<T> *mout = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    const int dot = !std::strcmp(what, "dot") || !std::strcmp(what, "cublas_dot");
    CK(cudaMalloc(&x, n * sizeof(T)));
    if (dot) CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&out, sizeof(T)));
    CK(cudaMalloc(&mout, sizeof(Moments<T>)));
    fill<<<1024, 256>>>(x, y, n);
    CK(cudaGetLastError());
    const size_t bytes = n * sizeof(T) * (dot ? 2 : 1);
    double got = 0, var = 0;
    if (!std::strcmp(what, "dot")) {
        DotAt<T> f{x, y};
        thrust::counting_iterator<size_t> it(0);
        CK(cub::DeviceReduce::TransformReduce(tmp, tmp_bytes, it, out, n, cuda::std::plus<T>(), f, (T)0));
        CK(cudaMalloc(&tmp, tmp_bytes));
        report(what, tname, n, bytes, reps, [&] {
            CK(cub::DeviceReduce::TransformReduce(tmp, tmp_bytes, it, out, n, cuda::std::plus<T>(), f, (T)0));
        });
    } else if (!std::strcmp(what, "stats")) {
        CK(cub::DeviceReduce::TransformReduce(tmp, tmp_bytes, x, mout, n, MergeMoments<T>(),
                                              OneMoment<T>(), Moments<T>{0ull, (T)0, (T)0}));
        CK(cudaMalloc(&tmp, tmp_bytes));
        report(what, tname, n, bytes, reps, [&] {
            CK(cub::DeviceReduce::TransformReduce(tmp, tmp_bytes, x, mout, n, MergeMoments<T>(),
                                                  OneMoment<T>(), Moments<T>{0ull, (T)0, (T)0}));
        });
    } else if (!std::strcmp(what, "sum")) {
        CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, x, out, n));
        CK(cudaMalloc(&tmp, tmp_bytes));
        report(what, tname, n, bytes, reps, [&] { CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, x, out, n)); });
#ifdef WITH_CUBLAS
    } else if (!std::strcmp(what, "cublas_dot")) {
        cublasHandle_t h;
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 3;
        cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE); // the value stays on the device
        auto call = [&] {
            cublasStatus_t s;
            if constexpr (sizeof(T) == 4)
                s = cublasSdot(h, (int)n, (const float *)x, 1, (const float *)y, 1, (float *)out);
            else
                s = cublasDdot(h, (int)n, (const double *)x, 1, (const double *)y, 1, (double *)out);
            if (s != CUBLAS_STATUS_SUCCESS) std::exit(3);
        };
        call();
        report(what, tname, n, bytes, reps, call);
        cublasDestroy(h);
#endif
    } else {
        std::fprintf(stderr, "cub_transform: unknown %s\n", what);
        return 2;
    }
    CK(cudaDeviceSynchronize());
    double rdot, rabs, rsum, rsq;
    reference<T>(n, &rdot, &rabs, &rsum, &rsq);
    double want;
    if (!std::strcmp(what, "stats")) {
        Moments<T> m;
        CK(cudaMemcpy(&m, mout, sizeof m, cudaMemcpyDeviceToHost));
        got = m.m;
        var = m.m2 / (double)n;
        want = rsum / n;
        double rvar = rsq / n - want * want;
        double tol = (sizeof(T) == 4 ? 1e-3 : 1e-9);
        int ok = std::fabs(got - want) <= tol * (std::fabs(want) + 1) &&
                 std::fabs(var - rvar) <= tol * (rvar + 1e-30);
        std::printf("%.9g,%.9g,%s\n", got, var, ok ? "ok" : "WRONG");
        return ok ? 0 : 1;
    }
    T v;
    CK(cudaMemcpy(&v, out, sizeof v, cudaMemcpyDeviceToHost));
    got = v;
    want = dot ? rdot : rsum;
    // a tree's rounding: within eps * log2(n) of the sum of the terms' sizes
    double scale = dot ? rabs : (double)n;
    double tol = (sizeof(T) == 4 ? 1.2e-7 : 2.3e-16) * std::log2((double)n + 1) * (scale + 1);
    int ok = std::fabs(got - want) <= tol;
    std::printf("%.12g,,%s\n", got, ok ? "ok" : "WRONG");
    CK(cudaFree(tmp));
    CK(cudaFree(mout));
    CK(cudaFree(out));
    if (y) CK(cudaFree(y));
    CK(cudaFree(x));
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 2 && !std::strcmp(argv[1], "version")) {
        std::printf("CUB_VERSION %d CUDART_VERSION %d\n", CUB_VERSION, CUDART_VERSION);
        return 0;
    }
    if (argc == 5) {
        int reps = std::atoi(argv[3]);
        size_t n = std::strtoull(argv[4], nullptr, 10);
        if (!std::strcmp(argv[2], "float")) return run<float>(argv[1], "float", reps, n);
        if (!std::strcmp(argv[2], "double")) return run<double>(argv[1], "double", reps, n);
    }
    std::fprintf(stderr, "usage: cub_transform dot|cublas_dot|stats|sum float|double REPS N | "
                         "cub_transform version\n");
    return 2;
}
