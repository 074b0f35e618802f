// cub_common.cuh - what the CUB comparators (cub_reduce.cu, cub_ops.cu)
// share: the error check, and timing with CUDA events the way oclReduction
// times itself (warm-up, then the median and minimum of R runs).
#ifndef CUB_COMMON_CUH
#define CUB_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s failed: %s at %s:%d\n", #call, cudaGetErrorString(e_),         \
                         __FILE__, __LINE__);                                                      \
            std::exit(3);                                                                          \
        }                                                                                          \
    } while (0)

// Times op() with CUDA events: `warm` untimed runs, then `reps` timed ones;
// returns the median and the minimum in milliseconds.
template <typename Op> static void timed(int warm, int reps, Op op, float *med, float *mn) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = -warm; r < reps; ++r) {
        CK(cudaEventRecord(a));
        op();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0) t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    *med = t[(t.size() - 1) / 2];
    *mn = t[0];
}

#endif
