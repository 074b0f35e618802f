/* ocr_resources.c - a kernel's resources: what a built kernel needs (queried
 * after the build, ocr_program.c) and the occupancy estimate that follows from it, computed the way
 * the tutorial's profiler analysis does: how many groups of this kernel fit on one compute unit by
 * work-items, by registers, by local memory and by the group limit; the smallest count wins and
 * names the limiting factor. */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

/* cl_nv_device_attribute_query (cl_ext.h may lack them). */
#define NV_CC_MAJOR            0x4000
#define NV_CC_MINOR            0x4001
#define NV_REGISTERS_PER_BLOCK 0x4002
#define NV_WARP_SIZE           0x4003

/* What OpenCL does not report per compute unit, by NVIDIA compute capability
 * (CUDA programming guide, "features and technical specifications"). */
static const struct {
    int major, minor;
    unsigned threads, groups;
    unsigned long regs, local_mem;
} nv_sm[] = {
    {6, 0, 2048, 32, 65536, 64 << 10},  {6, 1, 2048, 32, 65536, 96 << 10},
    {7, 0, 2048, 32, 65536, 96 << 10},  {7, 5, 1024, 16, 65536, 64 << 10},
    {8, 0, 2048, 32, 65536, 164 << 10}, {8, 6, 1536, 16, 65536, 100 << 10},
    {8, 7, 2048, 32, 65536, 164 << 10}, {8, 9, 1536, 24, 65536, 100 << 10},
    {9, 0, 2048, 32, 65536, 228 << 10}, {10, 0, 2048, 32, 65536, 228 << 10},
};

int ocr_device_has_extension(const ocr_device *dev, const char *name) {
    size_t n = 0, len = strlen(name);
    int found = 0;
    if (clGetDeviceInfo(dev->device, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS || !n)
        return 0;
    char *ext = malloc(n + 1);
    if (ext && clGetDeviceInfo(dev->device, CL_DEVICE_EXTENSIONS, n, ext, NULL) == CL_SUCCESS) {
        ext[n] = '\0';
        for (const char *p = ext; !found && (p = strstr(p, name)) != NULL; p += len)
            found = (p == ext || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    }
    free(ext);
    return found;
}

/* "Used N registers" from the build log of a -cl-nv-verbose build, or 0. */
static unsigned registers_from_log(const ocr_kernel *k, cl_device_id d) {
    size_t n = 0;
    unsigned regs = 0;
    if (clGetProgramBuildInfo(k->program, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || !n)
        return 0;
    char *log = malloc(n + 1);
    if (log &&
        clGetProgramBuildInfo(k->program, d, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        const char *p = strstr(log, "Used ");
        if (p) regs = (unsigned)strtoul(p + 5, NULL, 10);
    }
    free(log);
    return regs;
}

void ocr_kernel_occupancy(const ocr_device *dev, const ocr_kernel *k, ocr_occupancy *r) {
    cl_device_id d = dev->device;
    memset(r, 0, sizeof *r);
    if (!ocr_device_has_extension(dev, "cl_nv_device_attribute_query")) return;
    cl_uint major = 0, minor = 0, warp = 0;
    if (clGetDeviceInfo(d, NV_CC_MAJOR, sizeof major, &major, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(d, NV_CC_MINOR, sizeof minor, &minor, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(d, NV_WARP_SIZE, sizeof warp, &warp, NULL) != CL_SUCCESS || !warp)
        return;
    r->cc_major = (int)major, r->cc_minor = (int)minor, r->warp = warp;
    r->registers = registers_from_log(k, d);
    size_t local = k->geom.local_size;
    cl_ulong lmem = k->res.local_mem;
    for (size_t i = 0; i < sizeof nv_sm / sizeof nv_sm[0]; ++i) {
        if (nv_sm[i].major != (int)major || nv_sm[i].minor != (int)minor) continue;
        if (!r->registers) break; /* the build log did not say */
        /* Work-items are scheduled in whole warps; registers are allocated
         * per warp in blocks of 256. */
        unsigned long warps = (local + warp - 1) / warp;
        unsigned long regs_warp = (r->registers * warp + 255) / 256 * 256;
        unsigned long by[4] = {
            nv_sm[i].threads / (warps * warp), nv_sm[i].regs / (regs_warp * warps),
            lmem ? nv_sm[i].local_mem / (unsigned long)lmem : ~0ul, nv_sm[i].groups};
        static const char *const why[4] = {"work-items", "registers", "local memory", "groups"};
        unsigned best = 0;
        for (unsigned j = 1; j < 4; ++j)
            if (by[j] < by[best]) best = j;
        r->groups_per_cu = (unsigned)by[best];
        r->limited_by = why[best];
        r->occupancy = (double)(by[best] * warps * warp) / nv_sm[i].threads;
        r->cu_threads = nv_sm[i].threads;
        r->cu_local_mem = nv_sm[i].local_mem;
        r->known = 1;
    }
}
