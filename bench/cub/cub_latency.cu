// cub_latency.cu - the CUDA side of bench/drivers/latency.sh: host wall time per
// call of CUB's DeviceReduce::Sum with the value brought to the host, and the
// CUDA floor, measured the way bench/latency/latency.c measures the reducer (same
// data, same rows, same statistics).
//
//   cub_latency [--sizes "10 16 20"] [--types "int float"] [-r REPS] [-w WARMUP]
//               [--round R] [--reverse] [--rotate MIB] [--batch B] [--no-header]
//
// Sides: cuda_floor (a one-thread kernel and a 4-byte cudaMemcpy),
// cuda_floor_pinned (the copy into pinned memory, the stream synchronized),
// cub (DeviceReduce::Sum, then cudaMemcpy of the value), cub_pinned,
// cub_cold (windows cycling over --rotate MiB), cub_async (the stream
// synchronized, the value left on the device) and cub_tput (--batch calls
// back to back, per call). Temporary storage is allocated once.
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "cub_latency: %s failed: %s at %s:%d\n", #call,                   \
                         cudaGetErrorString(e_), __FILE__, __LINE__);                              \
            std::exit(3);                                                                          \
        }                                                                                          \
    } while (0)

static double now_us() {
    using namespace std::chrono;
    return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// The data of bench/latency/latency.c: +-(1 + h mod K), K = 1024 (int) or 4 (float).
static uint64_t splitmix64(uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int value_at(bool is_int, uint64_t i) {
    uint64_t h = splitmix64(i);
    int v = 1 + (int)((h >> 1) % (is_int ? 1024u : 4u));
    return (h & 1) ? -v : v;
}

__global__ void one(unsigned *p, unsigned v) {
    p[0] = v;
}

struct Opt {
    std::vector<unsigned> sizes{10, 12, 14, 16, 18, 20, 21, 22, 23, 24, 26, 28};
    std::vector<std::string> types{"int", "float"};
    unsigned reps = 300, warm = 30, batch = 16, rotate_mib = 256;
    int round = 0;
    bool reverse = false, header = true;
};

template <typename T> struct Bench {
    const Opt &o;
    T *x = nullptr, *out = nullptr, *pinned = nullptr;
    unsigned *fl = nullptr, *fl_pinned = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    uint64_t n_alloc = 0, n = 0, windows = 1;
    std::vector<T> host;
    std::vector<double> want, t;
    cudaStream_t s = 0; // the default stream: cudaMemcpy follows its kernels

    explicit Bench(const Opt &opt) : o(opt) {}

    void setup() {
        unsigned maxlog = *std::max_element(o.sizes.begin(), o.sizes.end());
        n_alloc = std::max<uint64_t>(1ull << maxlog, ((uint64_t)o.rotate_mib << 20) / sizeof(T));
        host.resize(n_alloc);
        for (uint64_t i = 0; i < n_alloc; ++i)
            host[i] = (T)value_at(std::is_integral<T>::value, i);
        CK(cudaMalloc(&x, n_alloc * sizeof(T)));
        CK(cudaMemcpy(x, host.data(), n_alloc * sizeof(T), cudaMemcpyHostToDevice));
        CK(cudaMalloc(&out, std::max(o.batch, 1u) * sizeof(T)));
        CK(cudaMalloc(&fl, sizeof(unsigned)));
        CK(cudaMallocHost(&pinned, sizeof(T)));
        CK(cudaMallocHost(&fl_pinned, sizeof(unsigned)));
        CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, x, out, (int)(1u << maxlog)));
        CK(cudaMalloc(&tmp, tmp_bytes));
    }
    ~Bench() {
        cudaFree(x), cudaFree(out), cudaFree(fl), cudaFree(tmp);
        cudaFreeHost(pinned), cudaFreeHost(fl_pinned);
    }

    void set_size(unsigned log2n) {
        n = 1ull << log2n;
        windows = n_alloc / n;
        uint64_t used = std::min<uint64_t>(windows, o.warm + o.reps);
        want.assign(used, 0);
        for (uint64_t w = 0; w < used; ++w) {
            int64_t sum = 0;
            for (uint64_t i = w * n; i < (w + 1) * n; ++i)
                sum += (int64_t)host[i];
            want[w] = std::is_integral<T>::value ? (double)(int32_t)(uint32_t)sum : (double)sum;
        }
    }

    const T *window(long call, bool rotate) const {
        return x + (rotate ? (uint64_t)call % windows * n : 0);
    }
    void sum(const T *in, T *dst) {
        CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, in, dst, (int)n, s));
    }

    // One call of a side; returns the value and sets *stop when it is home.
    double call(const std::string &side, long c, double *stop) {
        T v = 0;
        unsigned u = 0;
        if (side == "cuda_floor") {
            one<<<1, 1, 0, s>>>(fl, (unsigned)c);
            CK(cudaMemcpy(&u, fl, sizeof u, cudaMemcpyDeviceToHost));
            *stop = now_us();
            return u;
        }
        if (side == "cuda_floor_pinned") {
            one<<<1, 1, 0, s>>>(fl, (unsigned)c);
            CK(cudaMemcpyAsync(fl_pinned, fl, sizeof u, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            *stop = now_us();
            return *fl_pinned;
        }
        bool rotate = side == "cub_cold";
        if (side == "cub" || rotate) {
            sum(window(c, rotate), out);
            CK(cudaMemcpy(&v, out, sizeof v, cudaMemcpyDeviceToHost));
        } else if (side == "cub_pinned") {
            sum(x, out);
            CK(cudaMemcpyAsync(pinned, out, sizeof v, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            v = *pinned;
        } else if (side == "cub_async" || side == "cub_tput") {
            unsigned b = side == "cub_tput" ? o.batch : 1;
            for (unsigned i = 0; i < b; ++i)
                sum(x, out + i);
            CK(cudaStreamSynchronize(s));
            *stop = now_us();
            CK(cudaMemcpy(&v, out + b - 1, sizeof v, cudaMemcpyDeviceToHost)); // untimed
            return (double)v;
        }
        *stop = now_us();
        return (double)v;
    }

    bool run_side(const std::string &side, const char *tname, unsigned log2n) {
        bool wrong = false, rotate = side == "cub_cold";
        unsigned b = side == "cub_tput" ? o.batch : 1; // a sample is a batch: as many sums
        t.clear();
        for (long c = 0; c < (long)((o.warm + b - 1) / b + (o.reps + b - 1) / b); ++c) {
            double stop = 0, t0 = now_us();
            double v = call(side, c, &stop);
            double w = side.compare(0, 4, "cuda") == 0 ? (double)(unsigned)c
                                                       : want[rotate ? (uint64_t)c % windows : 0];
            if (v != w && !wrong)
                std::fprintf(stderr, "cub_latency: %s %s 2^%u call %ld: %.17g, expected %.17g\n",
                             side.c_str(), tname, log2n, c, v, w);
            wrong |= v != w;
            if (c >= (long)((o.warm + b - 1) / b)) t.push_back((stop - t0) / b);
        }
        std::sort(t.begin(), t.end());
        auto pct = [&](double p) { return t[(size_t)(p * (t.size() - 1) + 0.5)]; };
        std::printf("%d,%s,%s,%u,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,0,0,0,0,%d\n", o.round, side.c_str(),
                    tname, log2n, t.size(), pct(0.5), t.front(), pct(0.1), pct(0.9), t.back(),
                    !wrong);
        std::fflush(stdout);
        return wrong;
    }

    bool run(const char *tname) {
        static const char *const sides[] = {"cuda_floor", "cuda_floor_pinned", "cub",
                                            "cub_pinned", "cub_cold",          "cub_async",
                                            "cub_tput"};
        const size_t ns = sizeof sides / sizeof *sides;
        bool wrong = false;
        setup();
        for (size_t k = 0; k < o.sizes.size(); ++k) {
            unsigned log2n = o.sizes[o.reverse ? o.sizes.size() - 1 - k : k];
            set_size(log2n);
            std::fprintf(stderr, "cub_latency: %s 2^%u\n", tname, log2n);
            for (size_t j = 0; j < ns; ++j)
                wrong |= run_side(sides[(j + (size_t)o.round) % ns], tname, log2n);
        }
        return wrong;
    }
};

static bool parse_list(const char *s, std::vector<std::string> &out) {
    out.clear();
    std::string w;
    for (const char *p = s;; ++p) {
        if (*p == ' ' || *p == ',' || !*p) {
            if (!w.empty()) out.push_back(w);
            w.clear();
            if (!*p) break;
        } else {
            w += *p;
        }
    }
    return !out.empty();
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *v) {
    char *end;
    unsigned long x = std::strtoul(s, &end, 10);
    if (!*s || *end || x < lo || x > hi) return false;
    *v = (unsigned)x;
    return true;
}

static int usage() {
    std::fprintf(stderr, "usage: cub_latency [--sizes \"10 16\"] [--types \"int float\"] [-r REPS] "
                         "[-w WARMUP] [--round R] [--reverse] [--rotate MIB] [--batch B] "
                         "[--no-header]\n");
    return 2;
}

int main(int argc, char **argv) {
    Opt o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        std::vector<std::string> words;
        unsigned u = 0;
        bool good = true;
        if (a == "--reverse") {
            o.reverse = true;
            continue;
        }
        if (a == "--no-header") {
            o.header = false;
            continue;
        }
        if (!v) return usage();
        ++i;
        if (a == "--sizes") {
            good = parse_list(v, words);
            o.sizes.clear();
            for (auto &w : words)
                good = good && parse_uint(w.c_str(), 1, 30, &u) && (o.sizes.push_back(u), true);
        } else if (a == "--types") {
            good = parse_list(v, o.types);
            for (auto &w : o.types)
                good = good && (w == "int" || w == "float");
        } else if (a == "-r") {
            good = parse_uint(v, 1, 100000, &o.reps);
        } else if (a == "-w") {
            good = parse_uint(v, 0, 100000, &o.warm);
        } else if (a == "--batch") {
            good = parse_uint(v, 1, 1024, &o.batch);
        } else if (a == "--rotate") {
            good = parse_uint(v, 1, 1u << 16, &o.rotate_mib);
        } else if (a == "--round") {
            good = parse_uint(v, 0, 1u << 20, &u);
            o.round = (int)u;
        } else {
            return usage();
        }
        if (!good)
            return std::fprintf(stderr, "cub_latency: bad value for %s\n", a.c_str()), usage();
    }
    cudaDeviceProp prop;
    int dev = 0, drv = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDriverGetVersion(&drv));
    std::fprintf(stderr, "cub_latency: device: %s, CUDA driver %d, runtime %d\n", prop.name, drv,
                 CUDART_VERSION);
    if (o.header)
        std::printf("round,side,type,log2n,reps,median_us,min_us,p10_us,p90_us,max_us,passes,"
                    "groups,local,finish,correct\n");
    bool wrong = false;
    for (auto &t : o.types) {
        if (t == "int") {
            Bench<int> b(o);
            wrong |= b.run("int");
        } else {
            Bench<float> b(o);
            wrong |= b.run("float");
        }
    }
    return wrong ? 1 : 0;
}
