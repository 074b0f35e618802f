// peers_boost.cpp - Boost.Compute's reduce and accumulate on the caller's
// queue and buffer, for bench/peers/peers.c. Built as a module (libocr_peers_boost.so)
// that ocr_peers loads at run time, so a machine without Boost, or with an
// older C++ runtime, loses this peer only, with a message.
//
// Boost.Compute is header-only: the module needs Boost's headers where it is
// built (see bench/CMakeLists.txt) and nothing but libOpenCL where it runs.
#include <CL/cl.h>

#include <boost/compute/algorithm/accumulate.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/version.hpp>

#include <cstdio>
#include <cstring>
#include <exception>

namespace bc = boost::compute;

template <class T>
static void run(cl_command_queue q, cl_mem x, size_t n, int accumulate, void *out) {
    bc::command_queue queue(q, true); // retain: the caller keeps its own reference
    bc::buffer buf(x, true);
    auto first = bc::make_buffer_iterator<T>(buf, 0);
    T result = T(0);
    if (accumulate)
        result = bc::accumulate(first, first + n, T(0), queue);
    else
        bc::reduce(first, first + n, &result, queue); // reads the value back itself
    std::memcpy(out, &result, sizeof result);
}

extern "C" const char *ocr_peers_boost_version(void) {
    return BOOST_LIB_VERSION;
}

// type: "int" or "float"; algo: "reduce" or "accumulate". Returns 0 and the
// sum in *out, or -1 with a message in err (an OpenCL error or an exception).
extern "C" int ocr_peers_boost_sum(cl_command_queue q, cl_mem x, size_t n, const char *type,
                                   const char *algo, void *out, char *err, size_t errlen) {
    try {
        int acc = std::strcmp(algo, "accumulate") == 0;
        if (std::strcmp(type, "int") == 0)
            run<cl_int>(q, x, n, acc, out);
        else if (std::strcmp(type, "float") == 0)
            run<cl_float>(q, x, n, acc, out);
        else {
            std::snprintf(err, errlen, "type %s not supported", type);
            return -1;
        }
        return 0;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "%s", e.what());
    } catch (...) {
        std::snprintf(err, errlen, "unknown exception");
    }
    return -1;
}
