/*
 * fault_shim.c - a test-only LD_PRELOAD library that stands between
 * oclReduction and the OpenCL ICD loader. Each wrapper counts its calls and
 * forwards to the real entry point (dlsym RTLD_NEXT), unless told to fail.
 *
 *   OCR_FAULT_TRACE=FILE   append the name of every call to FILE
 *   OCR_FAULT=NAME:K[:ERR] make the K-th call of NAME return ERR (a number;
 *                          default: a realistic error for that entry point)
 *                          without calling the real one; create and map calls
 *                          return NULL and set *errcode_ret
 *   OCR_FAULT_NO_FP64=1    clGetDeviceInfo(CL_DEVICE_DOUBLE_FP_CONFIG) answers
 *                          0, as on a device without double precision
 *   OCR_FAULT_KERNEL_WG=N  clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)
 *                          answers at most N, as for a kernel that needs many
 *                          registers
 *   OCR_FAULT_NO_END_TIME=1 clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)
 *                          answers CL_PROFILING_INFO_NOT_AVAILABLE, as Intel's
 *                          CPU runtime now and then does
 */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fault_name;
static long fault_k;
static cl_int fault_err;
static int fault_err_given;
static FILE *trace;

static void setup(void) {
    static int done;
    if (done) return;
    done = 1;
    const char *t = getenv("OCR_FAULT_TRACE");
    if (t && *t) trace = fopen(t, "a");
    const char *f = getenv("OCR_FAULT");
    if (f && *f) {
        static char buf[128];
        snprintf(buf, sizeof buf, "%s", f);
        char *c1 = strchr(buf, ':');
        if (c1) {
            *c1 = '\0';
            fault_k = strtol(c1 + 1, NULL, 10);
            char *c2 = strchr(c1 + 1, ':');
            if (c2) fault_err = (cl_int)strtol(c2 + 1, NULL, 10), fault_err_given = 1;
        }
        fault_name = buf;
    }
}

/* The error an entry point would realistically return. */
static cl_int default_error(const char *name) {
    static const struct {
        const char *name;
        cl_int err;
    } t[] = {
        {"clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE},
        {"clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE},
        {"clCreateContext", CL_DEVICE_NOT_AVAILABLE},
        {"clBuildProgram", CL_BUILD_PROGRAM_FAILURE},
        {"clCreateCommandQueue", CL_OUT_OF_HOST_MEMORY},
        {"clGetPlatformIDs", CL_OUT_OF_HOST_MEMORY},
        {"clEnqueueMapBuffer", CL_MAP_FAILURE},
        {"clGetEventProfilingInfo", CL_PROFILING_INFO_NOT_AVAILABLE},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i)
        if (!strcmp(t[i].name, name)) return t[i].err;
    return CL_OUT_OF_RESOURCES;
}

/* Counts this call; returns 1 (and the error) if it is the one to fail.
 * Atomic: --split calls OpenCL from a thread per device, and exactly one of
 * them must see the K-th call. */
static int should_fail(const char *name, long *count, cl_int *err) {
    setup();
    long mine = __atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
    if (trace) {
        fprintf(trace, "%s\n", name);
        fflush(trace);
    }
    if (fault_name && !strcmp(fault_name, name) && mine == fault_k) {
        *err = fault_err_given ? fault_err : default_error(name);
        return 1;
    }
    return 0;
}

#define REAL(name, type)                                                                           \
    static type real_;                                                                             \
    if (!real_) real_ = (type)dlsym(RTLD_NEXT, #name);

/* An entry point returning cl_int. */
#define WRAP_INT(name, params, args)                                                               \
    CL_API_ENTRY cl_int CL_API_CALL name params {                                                  \
        typedef cl_int(CL_API_CALL *fn) params;                                                    \
        static long count;                                                                         \
        cl_int err_;                                                                               \
        if (should_fail(#name, &count, &err_)) return err_;                                        \
        REAL(name, fn)                                                                             \
        return real_ args;                                                                         \
    }

/* An entry point returning an object (or pointer) with errcode_ret last. */
#define WRAP_OBJ(ret, name, params, args)                                                          \
    CL_API_ENTRY ret CL_API_CALL name params {                                                     \
        typedef ret(CL_API_CALL *fn) params;                                                       \
        static long count;                                                                         \
        cl_int err_;                                                                               \
        if (should_fail(#name, &count, &err_)) {                                                   \
            if (errcode_ret) *errcode_ret = err_;                                                  \
            return NULL;                                                                           \
        }                                                                                          \
        REAL(name, fn)                                                                             \
        return real_ args;                                                                         \
    }

WRAP_INT(clGetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np), (n, p, np))
WRAP_INT(clGetPlatformInfo, (cl_platform_id p, cl_platform_info i, size_t s, void *v, size_t *r),
         (p, i, s, v, r))
WRAP_INT(clGetDeviceIDs,
         (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd),
         (p, t, n, d, nd))
/* clGetDeviceInfo by hand: it can also pretend fp64 is missing. */
CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info i, size_t s, void *v,
                                                size_t *r) {
    typedef cl_int(CL_API_CALL * fn)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    static long count;
    cl_int err_;
    if (should_fail("clGetDeviceInfo", &count, &err_)) return err_;
    REAL(clGetDeviceInfo, fn)
    cl_int e = real_(d, i, s, v, r);
    const char *nofp64 = getenv("OCR_FAULT_NO_FP64");
    if (e == CL_SUCCESS && i == CL_DEVICE_DOUBLE_FP_CONFIG && v && nofp64 && *nofp64 == '1')
        memset(v, 0, s);
    return e;
}
WRAP_OBJ(cl_context, clCreateContext,
         (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
          void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u,
          cl_int *errcode_ret),
         (p, n, d, cb, u, errcode_ret))
WRAP_OBJ(cl_command_queue, clCreateCommandQueue,
         (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *errcode_ret),
         (c, d, p, errcode_ret))
WRAP_OBJ(cl_mem, clCreateBuffer,
         (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *errcode_ret),
         (c, f, s, h, errcode_ret))
WRAP_OBJ(cl_program, clCreateProgramWithSource,
         (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *errcode_ret),
         (c, n, s, l, errcode_ret))
WRAP_INT(clBuildProgram,
         (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
          void(CL_CALLBACK *cb)(cl_program, void *), void *u),
         (p, n, d, o, cb, u))
WRAP_INT(clGetProgramBuildInfo,
         (cl_program p, cl_device_id d, cl_program_build_info i, size_t s, void *v, size_t *r),
         (p, d, i, s, v, r))
WRAP_OBJ(cl_kernel, clCreateKernel, (cl_program p, const char *n, cl_int *errcode_ret),
         (p, n, errcode_ret))
/* clGetKernelWorkGroupInfo by hand: it can also lower a kernel's limit. */
CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                                         cl_kernel_work_group_info i, size_t s,
                                                         void *v, size_t *r) {
    typedef cl_int(CL_API_CALL * fn)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t,
                                     void *, size_t *);
    static long count;
    cl_int err_;
    if (should_fail("clGetKernelWorkGroupInfo", &count, &err_)) return err_;
    REAL(clGetKernelWorkGroupInfo, fn)
    cl_int e = real_(k, d, i, s, v, r);
    const char *wg = getenv("OCR_FAULT_KERNEL_WG");
    size_t most = wg ? (size_t)strtoull(wg, NULL, 10) : 0;
    if (e == CL_SUCCESS && i == CL_KERNEL_WORK_GROUP_SIZE && v && s == sizeof(size_t) && most &&
        *(size_t *)v > most)
        *(size_t *)v = most;
    return e;
}
WRAP_INT(clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v))
WRAP_INT(clEnqueueWriteBuffer,
         (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, const void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, b, bl, o, s, p, n, w, e))
WRAP_INT(clEnqueueReadBuffer,
         (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void *p, cl_uint n,
          const cl_event *w, cl_event *e),
         (q, b, bl, o, s, p, n, w, e))
WRAP_INT(clEnqueueNDRangeKernel,
         (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
          const size_t *l, cl_uint n, const cl_event *w, cl_event *e),
         (q, k, d, o, g, l, n, w, e))
WRAP_OBJ(void *, clEnqueueMapBuffer,
         (cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t o, size_t s, cl_uint n,
          const cl_event *w, cl_event *e, cl_int *errcode_ret),
         (q, b, bl, f, o, s, n, w, e, errcode_ret))
WRAP_INT(clEnqueueUnmapMemObject,
         (cl_command_queue q, cl_mem m, void *p, cl_uint n, const cl_event *w, cl_event *e),
         (q, m, p, n, w, e))
/* clGetEventProfilingInfo by hand: it can also withhold every END time. */
CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event ev, cl_profiling_info i, size_t s,
                                                        void *v, size_t *r) {
    typedef cl_int(CL_API_CALL * fn)(cl_event, cl_profiling_info, size_t, void *, size_t *);
    static long count;
    cl_int err_;
    if (should_fail("clGetEventProfilingInfo", &count, &err_)) return err_;
    const char *noend = getenv("OCR_FAULT_NO_END_TIME");
    if (i == CL_PROFILING_COMMAND_END && noend && *noend == '1')
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    REAL(clGetEventProfilingInfo, fn)
    return real_(ev, i, s, v, r);
}
WRAP_INT(clFinish, (cl_command_queue q), (q))
WRAP_INT(clReleaseEvent, (cl_event e), (e))
WRAP_INT(clReleaseMemObject, (cl_mem m), (m))
WRAP_INT(clReleaseKernel, (cl_kernel k), (k))
WRAP_INT(clReleaseProgram, (cl_program p), (p))
WRAP_INT(clReleaseCommandQueue, (cl_command_queue q), (q))
WRAP_INT(clReleaseContext, (cl_context c), (c))
