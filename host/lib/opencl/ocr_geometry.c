/* ocr_geometry.c - the launch geometry for a device: the work-group size
 * (requested, the registry's, or fitted to the device), reduce7's access
 * pattern and groups per launch, checked against what the built-in kernels'
 * shapes need. */
#include "opencl.h"

static int is_pow2(size_t x) {
    return x && !(x & (x - 1));
}
size_t ocr_floor_pow2(size_t x) {
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

/* --- device policy: work-group size and access from the device ----------- */

/* The requested or default local size, fitted to the device, and checked
 * against what the built-in kernels' shapes need. */
ocr_status ocr_geometry_policy(const ocr_device *dev, const ocr_build_request *rq, int user,
                               ocr_type input, ocr_launch_policy *p) {
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    p->user = user;
    /* A tuned size (OCR_KERNEL_TUNED) is kept, but shrunk like a default one. */
    p->user_local = rq->local_size != 0 && !(sp->caps & OCR_KERNEL_TUNED);
    p->local = rq->local_size ? rq->local_size : sp->local_size ? sp->local_size : 256;
    size_t limit = in->max_wg < in->max_item0 ? in->max_wg : in->max_item0;
    p->vec = 16 / ocr_type_size(input); /* the loads are of input elements */
    if (p->vec > 4) p->vec = 4;         /* small types: 4 per load (reduce7's FOLD takes 2 or 4) */
    /* reduce7: blocked access on CPU devices, coalesced strides elsewhere (a
     * device that says it is both, like oclgrind, counts as a GPU); on a CPU,
     * the registry row's work-group size. */
    cl_device_type ty = in->type;
    p->blocked =
        rq->access ? rq->access == 2 : (ty & CL_DEVICE_TYPE_CPU) && !(ty & CL_DEVICE_TYPE_GPU);
    if (sp->kind == OCR_PER_GRID && p->blocked && !rq->local_size)
        p->local = sp->grid.cpu_local_size;
    if (p->local > limit) {
        if (p->user_local) {
            ocr_errorf("%s cannot run work-groups of %zu: its limit is %zu "
                       "(CL_DEVICE_MAX_WORK_GROUP_SIZE / MAX_WORK_ITEM_SIZES)",
                       in->name, p->local, limit);
            return OCR_RUNTIME;
        }
        p->local = ocr_floor_pow2(limit);
    }
    /* The built-in kernels' shapes are known (their trees halve the group, their
     * blocks split evenly, their local arrays are BLOCK or LOCAL_SIZE values);
     * a user kernel's are not, so it is held only to what the built kernel
     * reports (build_fitted). */
    if (!user && sp->kind != OCR_PER_ITEM && !is_pow2(p->local)) {
        ocr_errorf("%s needs a power-of-two work-group size, not %zu", sp->name, p->local);
        return OCR_USAGE;
    }
    if (!user && sp->kind == OCR_PER_GROUP && sp->block &&
        (p->local > sp->block || sp->block % p->local)) {
        ocr_errorf("%s covers %zu values per group: the work-group size (%zu) must divide it",
                   sp->name, sp->block, p->local);
        return OCR_USAGE;
    }
    size_t lmem =
        (sp->kind == OCR_PER_GROUP ? sp->block : p->local) * ocr_acc_size(rq->type, rq->op);
    if (!user && lmem > in->local_mem) {
        ocr_errorf("%s needs %zu bytes of local memory per group for %s; %s has %llu", sp->name,
                   lmem, ocr_type_name(rq->type), in->name, (unsigned long long)in->local_mem);
        return OCR_RUNTIME;
    }
    return OCR_OK;
}

/* The launch geometry from the policy and the device, once the work-group
 * size is final. */
void ocr_geometry_set(const ocr_device *dev, const ocr_build_request *rq,
                      const ocr_launch_policy *p, ocr_kernel *k) {
    const ocr_kernel_spec *sp = &rq->spec;
    const ocr_device_info *in = &dev->info;
    k->geom.kind = sp->kind;
    k->geom.local_size = p->local;
    k->geom.tree = !p->user;
    k->geom.accurate = rq->accurate;
    if (sp->kind == OCR_PER_ITEM) {
        k->geom.elems_per_group = 2;
    } else if (sp->kind == OCR_PER_GROUP) {
        k->geom.elems_per_group = sp->block * sp->loads_per_slot;
    } else {
        /* per work-item and iteration */
        k->geom.elems_per_group = p->vec * (rq->unroll ? rq->unroll : sp->grid.unroll);
        /* Groups per compute unit from the registry row (ocr_kernels.c). */
        size_t per_cu = in->type & CL_DEVICE_TYPE_GPU ? sp->grid.gpu_items_per_cu / p->local
                                                      : sp->grid.cpu_groups_per_cu;
        k->geom.max_groups =
            rq->groups ? rq->groups : (uint64_t)in->compute_units * (per_cu ? per_cu : 1);
    }
}
