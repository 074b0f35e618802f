/* ocr_device.c - find platforms and devices, pick one, open a context and a
 * profiling queue on it, and walk what is there (the list is report/'s). */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

static const char *no_platform_hint =
    "no OpenCL platform found. Install one: on Debian/Ubuntu `apt-get install pocl-opencl-icd` "
    "runs OpenCL on the CPU; for a GPU install its vendor's OpenCL driver (NVIDIA driver, ROCm, "
    "intel-opencl-icd). `clinfo -l` shows what the ICD loader sees.";

/* Appends "FILE (LIBRARY)" for one .icd file to list; returns 1 if it named
 * a library. */
static int add_icd(char *list, size_t len, const char *icd) {
    char lib[256] = "";
    FILE *f = fopen(icd, "r");
    if (!f) return 0;
    if (!fgets(lib, sizeof lib, f)) lib[0] = '\0';
    fclose(f);
    lib[strcspn(lib, "\r\n")] = '\0';
    if (!lib[0]) return 0;
    size_t n = strlen(list);
    snprintf(list + n, len - n, "%s%s (%s)", n ? ", " : "", icd, lib);
    return 1;
}

static int ends_with(const char *s, const char *tail) {
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* The OpenCL drivers registered where the ICD loader looks: the Khronos
 * loader's OCL_ICD_FILENAMES, ocl-icd's OCL_ICD_VENDORS (a directory, an .icd
 * file or a library), else the vendors directory. Fills list with what it
 * found and returns how many. */
static int registered_icds(char *list, size_t len) {
    int n = 0;
    char path[4096];
    list[0] = '\0';
    const char *files = getenv("OCL_ICD_FILENAMES");
    if (files && *files) {
        size_t l = strlen(list);
        snprintf(list + l, len - l, "%s%s", l ? ", " : "", files);
        ++n;
    }
    const char *v = getenv("OCL_ICD_VENDORS"), *dir = NULL;
    struct stat sb;
    if (v && *v) {
        if (stat(v, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            dir = v;
        } else if (ends_with(v, ".icd")) {
            const char *vp = getenv("OPENCL_VENDOR_PATH");
            snprintf(path, sizeof path, "%s/%s", vp && *vp ? vp : "/etc/OpenCL/vendors", v);
            n += strchr(v, '/') ? add_icd(list, len, v)
                                : add_icd(list, len, path) || add_icd(list, len, v);
        } else { /* the library itself */
            size_t l = strlen(list);
            snprintf(list + l, len - l, "%s%s", l ? ", " : "", v);
            ++n;
        }
    } else {
        const char *vp = getenv("OPENCL_VENDOR_PATH");
        dir = vp && *vp ? vp : "/etc/OpenCL/vendors";
    }
    DIR *d = dir ? opendir(dir) : NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (!ends_with(e->d_name, ".icd")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        n += add_icd(list, len, path);
    }
    if (d) closedir(d);
    return n;
}

/* No platform: either nothing is installed, or what is installed could not be
 * loaded. The second happens to a process short of memory (the ICD loader
 * dlopen()s each driver, and a driver such as POCL maps an LLVM of a few
 * hundred MiB) and must not be told to install what it has. */
static void report_no_platform(void) {
    char icds[2048], limit[128] = " (ulimit -v, a cgroup's limit)";
    int n = registered_icds(icds, sizeof icds);
    if (n == 0) {
        ocr_errorf("%s", no_platform_hint);
        return;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, " (this process may use only %llu MiB: ulimit -v %llu)",
                 (unsigned long long)(rl.rlim_cur >> 20), (unsigned long long)(rl.rlim_cur >> 10));
    ocr_errorf("no OpenCL platform could be loaded, although %d %s registered: %s. Either the "
               "process is short of memory%s, or the driver is broken or does not match this "
               "system; `clinfo -l` run the same way shows what the ICD loader sees.",
               n, n == 1 ? "driver is" : "drivers are", icds, limit);
}

static ocr_status get_platforms(cl_platform_id *ids, cl_uint *count) {
    ocr_status st = OCR_OK;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, ids, count);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && *count == 0)) {
        report_no_platform();
        return OCR_NO_DEVICE;
    }
    OCR_CHECK(err, "clGetPlatformIDs");
    if (*count > MAX_PLATFORMS) *count = MAX_PLATFORMS;
fail:
    return st;
}

/* Devices of `type` on platform p; a platform without any is not an error. */
static ocr_status get_devices(cl_platform_id p, cl_device_type type, cl_device_id *ids,
                              cl_uint *count) {
    ocr_status st = OCR_OK;
    cl_int err = clGetDeviceIDs(p, type, MAX_DEVICES, ids, count);
    if (err == CL_DEVICE_NOT_FOUND) {
        *count = 0;
        return OCR_OK;
    }
    OCR_CHECK(err, "clGetDeviceIDs");
    if (*count > MAX_DEVICES) *count = MAX_DEVICES;
fail:
    return st;
}

static ocr_status query_info(cl_platform_id p, cl_device_id d, ocr_device_info *in) {
    ocr_status st = OCR_OK;
    cl_bool unified = CL_FALSE;
    cl_device_fp_config fp64 = 0;
    size_t items[3] = {0, 0, 0};
    memset(in, 0, sizeof *in);
    OCR_CL(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof in->platform, in->platform, NULL));
    OCR_CL(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof in->platform_version,
                             in->platform_version, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof in->name, in->name, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof in->vendor, in->vendor, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof in->version, in->version, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof in->driver, in->driver, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof in->type, &in->type, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof in->compute_units,
                           &in->compute_units, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof in->global_mem, &in->global_mem,
                           NULL));
    OCR_CL(
        clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof in->local_mem, &in->local_mem, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof in->max_alloc, &in->max_alloc,
                           NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof in->max_wg, &in->max_wg, NULL));
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL));
    in->max_item0 = items[0];
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL));
    in->fp64 = fp64 != 0;
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL));
    in->host_unified = unified == CL_TRUE;
fail:
    return st;
}

const char *ocr_device_type_name(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

ocr_status ocr_device_walk(ocr_device_visit visit, void *ctx) {
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    ocr_status st = get_platforms(plats, &np);
    if (st != OCR_OK) return st;
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        ocr_device_info in;
        memset(&in, 0, sizeof in);
        OCR_CL(
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof in.platform, in.platform, NULL));
        OCR_CL(clGetPlatformInfo(plats[p], CL_PLATFORM_VERSION, sizeof in.platform_version,
                                 in.platform_version, NULL));
        visit(ctx, (int)p, -1, &in);
        if ((st = get_devices(plats[p], CL_DEVICE_TYPE_ALL, devs, &nd)) != OCR_OK) return st;
        for (cl_uint d = 0; d < nd; ++d) {
            if ((st = query_info(plats[p], devs[d], &in)) != OCR_OK) return st;
            visit(ctx, (int)p, (int)d, &in);
        }
    }
fail:
    return st;
}

ocr_status ocr_device_enumerate(cl_device_type type, ocr_device_choice *out, int max, int *count) {
    ocr_last_error_clear();
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    ocr_status st = get_platforms(plats, &np);
    *count = 0;
    for (cl_uint p = 0; st == OCR_OK && p < np; ++p) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if ((st = get_devices(plats[p], type, devs, &nd)) != OCR_OK) break;
        for (cl_uint d = 0; d < nd && *count < max; ++d)
            out[(*count)++] = (ocr_device_choice){(int)p, (int)d, type, 1};
    }
    return st;
}

ocr_status ocr_device_select(const ocr_device_choice *c, int gpus_first, ocr_device_choice *out,
                             int max, int *count) {
    ocr_device_choice all[OCR_SPLIT_MAX];
    *count = 0;
    for (int round = gpus_first && !c->type_given ? 0 : 1; round < 2 && *count == 0; ++round) {
        int na = 0;
        ocr_status st = ocr_device_enumerate(round == 0 ? CL_DEVICE_TYPE_GPU : c->type, all,
                                             OCR_SPLIT_MAX, &na);
        if (st != OCR_OK) return st;
        for (int i = 0; i < na && *count < max; ++i)
            if (c->platform < 0 || all[i].platform == c->platform) out[(*count)++] = all[i];
    }
    return OCR_OK;
}

/* Picks (platform, device) from the choice: explicit indices win; otherwise the
 * first GPU anywhere, else the first device of the asked type. */
static ocr_status choose(const ocr_device_choice *c, cl_platform_id *pp, cl_device_id *dd) {
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    ocr_status st = get_platforms(plats, &np);
    if (st != OCR_OK) return st;
    if (c->platform >= 0 && (cl_uint)c->platform >= np) {
        ocr_errorf("platform %d does not exist: there %s %u (see --list)", c->platform,
                   np == 1 ? "is" : "are", np);
        return OCR_NO_DEVICE;
    }
    /* Two rounds without an explicit type or device: GPUs first, then anything. */
    int rounds = (!c->type_given && c->device < 0) ? 2 : 1;
    for (int round = 0; round < rounds; ++round) {
        cl_device_type want = (rounds == 2 && round == 0) ? CL_DEVICE_TYPE_GPU : c->type;
        int seen = 0;
        for (cl_uint p = 0; p < np; ++p) {
            if (c->platform >= 0 && (cl_uint)c->platform != p) continue;
            cl_device_id devs[MAX_DEVICES];
            cl_uint nd = 0;
            if ((st = get_devices(plats[p], want, devs, &nd)) != OCR_OK) return st;
            for (cl_uint d = 0; d < nd; ++d, ++seen) {
                if (c->device < 0 || c->device == seen) {
                    *pp = plats[p];
                    *dd = devs[d];
                    return OCR_OK;
                }
            }
        }
        if (round == rounds - 1) {
            if (c->device >= 0 && seen > 0)
                ocr_errorf("device %d does not exist: %d matching device%s (see --list)", c->device,
                           seen, seen == 1 ? "" : "s");
            else
                ocr_errorf("no OpenCL device of type %s found%s (see --list)",
                           c->type == CL_DEVICE_TYPE_ALL ? "any" : ocr_device_type_name(c->type),
                           c->platform >= 0 ? " on that platform" : "");
        }
    }
    return OCR_NO_DEVICE;
}

ocr_status ocr_device_open(const ocr_device_choice *choice, ocr_device **out) {
    ocr_last_error_clear();
    ocr_status st = OCR_OK;
    cl_int err = CL_SUCCESS;
    ocr_device *dev = calloc(1, sizeof *dev);
    *out = NULL;
    if (!dev) {
        ocr_errorf("out of host memory");
        return OCR_NO_MEMORY;
    }
    if ((st = choose(choice, &dev->platform, &dev->device)) != OCR_OK) goto fail;
    if ((st = query_info(dev->platform, dev->device, &dev->info)) != OCR_OK) goto fail;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
    dev->context = clCreateContext(props, 1, &dev->device, NULL, NULL, &err);
    OCR_CHECK(err, "clCreateContext");
    dev->queue = clCreateCommandQueue(dev->context, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    OCR_CHECK(err, "clCreateCommandQueue");
    *out = dev;
    return OCR_OK;
fail:
    ocr_device_close(dev);
    return st;
}

ocr_status ocr_device_wrap(cl_context ctx, cl_device_id d, ocr_device *dev) {
    ocr_status st = OCR_OK;
    memset(dev, 0, sizeof *dev);
    OCR_CL(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof dev->platform, &dev->platform, NULL));
    if ((st = query_info(dev->platform, d, &dev->info)) != OCR_OK) goto fail;
    dev->device = d;
    dev->context = ctx;
fail:
    return st;
}

void ocr_device_close(ocr_device *dev) {
    if (!dev) return;
    if (dev->queue) clReleaseCommandQueue(dev->queue);
    if (dev->context) clReleaseContext(dev->context);
    free(dev);
}

const ocr_device_info *ocr_device_get_info(const ocr_device *dev) {
    return &dev->info;
}
cl_context ocr_device_context(const ocr_device *dev) {
    return dev->context;
}
cl_command_queue ocr_device_queue(const ocr_device *dev) {
    return dev->queue;
}
cl_device_id ocr_device_id(const ocr_device *dev) {
    return dev->device;
}
