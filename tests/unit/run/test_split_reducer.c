/*
 * test_split_reducer.c - several devices with the library's reducer: what an
 * application that owns its contexts does instead of --split. One context,
 * queue, buffer and reducer per device, each on its own thread (a reducer is
 * not locked: one per thread), each reducing a contiguous part of one seeded
 * input; the host combines the parts with ocr_combine. For every type and
 * operator and several sizes (N below the device count too), the value must
 * equal the CPU loop's over the whole input, bit for bit (exact data).
 *
 *   test_split_reducer   (run with POCL_DEVICES="pthread pthread": two devices)
 *
 * Exit 0 all agree, 1 one differs, 3 OpenCL failed, 77 fewer than 2 devices.
 */
#include "ocr.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEV 4

typedef struct {
    cl_device_id id;
    cl_context ctx;
    cl_command_queue q;
    /* per case */
    ocr_type t;
    ocr_op o;
    const char *part; /* host elements of this part */
    uint64_t count;
    ocr_value value;
    ocr_status st;
    char msg[256];
} device;

/* One part on one device: upload, a reducer, one blocking reduction. */
static void *reduce_part(void *arg) {
    device *d = arg;
    cl_int err;
    ocr_reducer *r = NULL;
    d->value = ocr_identity(d->t, d->o);
    d->st = OCR_OK;
    if (d->count == 0) return NULL; /* no part: the identity */
    size_t bytes = d->count * ocr_type_size(d->t);
    cl_mem buf = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                (void *)d->part, &err);
    if (err != CL_SUCCESS) {
        d->st = OCR_RUNTIME;
        snprintf(d->msg, sizeof d->msg, "clCreateBuffer failed (%d)", (int)err);
        return NULL;
    }
    d->st = ocr_reducer_create(d->ctx, d->id, d->t, d->o, NULL, &r);
    if (d->st == OCR_OK) d->st = ocr_reducer_reduce(r, d->q, buf, 0, d->count, &d->value);
    if (d->st != OCR_OK) snprintf(d->msg, sizeof d->msg, "%s", ocr_reducer_last_error(r));
    ocr_reducer_release(r);
    clReleaseMemObject(buf);
    return NULL;
}

int main(void) {
    cl_platform_id plats[16];
    cl_uint np = 0, nd = 0;
    cl_device_id ids[MAXDEV];
    cl_int err;
    /* The first platform with two devices or more (POCL's, wherever it is listed). */
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
    for (cl_uint p = 0; p < np && p < 16 && nd < 2; ++p)
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAXDEV, ids, &nd) != CL_SUCCESS) nd = 0;
    if (nd < 2) {
        printf("SKIPPED: no platform with 2 devices or more (POCL: POCL_DEVICES=\"pthread "
               "pthread\")\n");
        return 77;
    }
    if (nd > MAXDEV) nd = MAXDEV;
    device dev[MAXDEV];
    memset(dev, 0, sizeof dev);
    for (cl_uint i = 0; i < nd; ++i) { /* opened on this thread, as ocr_split_run does */
        dev[i].id = ids[i];
        dev[i].ctx = clCreateContext(NULL, 1, &ids[i], NULL, NULL, &err);
        if (err == CL_SUCCESS) dev[i].q = clCreateCommandQueue(dev[i].ctx, ids[i], 0, &err);
        if (err != CL_SUCCESS) {
            printf("FAIL: device %u: context or queue (%d)\n", i, (int)err);
            return 3;
        }
    }
    const uint64_t sizes[] = {1, 3, 4103, 1000003};
    int fails = 0, cases = 0;
    for (int t = 0; t < OCR_NTYPES; ++t)
        for (int o = 0; o < OCR_NOPS; ++o) {
            if (!ocr_op_valid_for((ocr_op)o, (ocr_type)t)) continue;
            /* small types: no argmin/argmax; their values are the accumulator's */
            if (ocr_type_is_storage((ocr_type)t) && ocr_op_is_arg((ocr_op)o)) continue;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                uint64_t n = sizes[s], counts[MAXDEV], off = 0;
                size_t es = ocr_type_size((ocr_type)t);
                char *data = malloc(n * es);
                if (!data) return 3;
                ocr_data_fill(data, n, (ocr_type)t, (ocr_op)o, 5, OCR_DATA_EXACT);
                ocr_split_shares(n, nd, NULL, counts);
                pthread_t th[MAXDEV];
                for (cl_uint i = 0; i < nd; ++i) {
                    dev[i].t = (ocr_type)t, dev[i].o = (ocr_op)o;
                    dev[i].part = data + off * es, dev[i].count = counts[i];
                    off += counts[i];
                    if (pthread_create(&th[i], NULL, reduce_part, &dev[i]) != 0) return 3;
                }
                ocr_value v = ocr_identity((ocr_type)t, (ocr_op)o);
                for (cl_uint i = 0; i < nd; ++i) {
                    pthread_join(th[i], NULL);
                    if (dev[i].st != OCR_OK) {
                        printf("FAIL: %s %s n=%llu device %u: %s\n", ocr_type_name((ocr_type)t),
                               ocr_op_name((ocr_op)o), (unsigned long long)n, i, dev[i].msg);
                        return 3;
                    }
                    v = ocr_combine((ocr_type)t, (ocr_op)o, v, dev[i].value);
                }
                ocr_value want = ocr_reduce_naive(data, n, (ocr_type)t, (ocr_op)o);
                char g[64], w[64];
                ++cases;
                if (memcmp(&v, &want, ocr_type_size(ocr_type_accumulator((ocr_type)t))) != 0) {
                    printf("FAIL: %s %s n=%llu over %u devices: %s, the CPU loop %s\n",
                           ocr_type_name((ocr_type)t), ocr_op_name((ocr_op)o),
                           (unsigned long long)n, nd, ocr_value_str((ocr_type)t, v, g, sizeof g),
                           ocr_value_str((ocr_type)t, want, w, sizeof w));
                    ++fails;
                }
                free(data);
            }
        }
    for (cl_uint i = 0; i < nd; ++i) {
        clReleaseCommandQueue(dev[i].q);
        clReleaseContext(dev[i].ctx);
    }
    printf("%d cases over %u devices, %d wrong\n", cases, nd, fails);
    return fails ? 1 : 0;
}
