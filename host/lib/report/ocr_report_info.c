/* ocr_report_info.c - the reports of what there is rather than of a run:
 * the platforms and devices (--list), a built kernel's resources
 * (--resources), a plan (--explain) and the tuner's progress (--tune). The
 * data come from the floors below; only the text is made here. */
#include "report.h"

#include <inttypes.h>

/* One line for a platform (device < 0), three for a device. */
static void list_one(void *file, int platform, int device, const ocr_device_info *in) {
    FILE *f = file;
    if (device < 0) {
        fprintf(f, "Platform %d: %s (%s)\n", platform, in->platform, in->platform_version);
        return;
    }
    fprintf(f,
            "  Device %d: %s [%s]\n"
            "    compute units %u, global memory %llu MiB, max allocation %llu MiB, "
            "local memory %llu KiB\n"
            "    max work-group size %zu, %s, driver %s, fp64 %s\n",
            device, in->name, ocr_device_type_name(in->type), in->compute_units,
            (unsigned long long)(in->global_mem >> 20), (unsigned long long)(in->max_alloc >> 20),
            (unsigned long long)(in->local_mem >> 10), in->max_wg, in->version, in->driver,
            in->fp64 ? "yes" : "no");
}

ocr_status ocr_device_list(FILE *f) {
    ocr_last_error_clear();
    return ocr_device_walk(list_one, f);
}

void ocr_resources_print(FILE *f, const ocr_device *dev, const ocr_kernel *k,
                         const char *kernel_name, const ocr_occupancy *r) {
    const ocr_kernel_resources *q = &k->res;
    size_t local = k->geom.local_size;
    fprintf(f, "Resources of %s on %s:\n", kernel_name, dev->info.name);
    fprintf(f, "  work-group size: %zu (the compiled kernel allows %zu, preferred multiple %zu)\n",
            local, q->work_group_size, q->preferred_multiple);
    fprintf(f, "  local memory per group: %llu bytes\n", (unsigned long long)q->local_mem);
    fprintf(f, "  private memory per work-item: %llu bytes\n", (unsigned long long)q->private_mem);
    if (r->registers)
        fprintf(f,
                "  registers per work-item: %u (from the build log; warp size %u, compute "
                "capability %d.%d)\n",
                r->registers, r->warp, r->cc_major, r->cc_minor);
    if (r->known)
        fprintf(f,
                "  occupancy: %.0f%% (%u groups of %zu per compute unit, of %u work-items and "
                "%lu KiB of local memory; limited by %s)\n",
                100 * r->occupancy, r->groups_per_cu, local, r->cu_threads, r->cu_local_mem >> 10,
                r->limited_by);
    else
        fprintf(f, "  occupancy: the device does not report what an estimate needs (registers, "
                   "resident work-items per compute unit)\n");
    /* A CPU device has no occupancy to estimate: say what limits it instead. */
    if (dev->info.type & CL_DEVICE_TYPE_CPU)
        fprintf(f,
                "  on a CPU: each of the %u compute units (cores) runs one group at a time, its "
                "work-items as a loop: a launch needs at least %u groups to use them all, and a "
                "group size that is a multiple of %zu (the vector width)\n",
                dev->info.compute_units, dev->info.compute_units, q->preferred_multiple);
}

void ocr_plan_print(FILE *f, const ocr_plan *p, size_t es) {
    fprintf(f, "Plan: %" PRIu64 " elements, CPU threshold M = %" PRIu64 ", %u pass%s\n", p->n, p->m,
            p->npasses, p->npasses == 1 ? "" : "es");
    fprintf(f, "  pass %12s %10s %10s %12s %12s\n", "input", "groups", "wg size", "global",
            "output");
    for (unsigned i = 0; i < p->npasses; ++i) {
        const ocr_pass *s = &p->pass[i];
        fprintf(f,
                "  %4u %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "%s\n",
                i, s->n_in, s->groups, s->local_size, s->global_size, s->n_out,
                s->finish ? "  (the last group combines the groups' values)" : "");
    }
    fprintf(f, "  then %" PRIu64 " value%s read back and finished on the CPU\n", p->leftover,
            p->leftover == 1 ? "" : "s");
    fprintf(f, "  global memory read by the passes: %" PRIu64 " bytes\n", p->elems_read * es);
}

void ocr_tune_progress_print(void *file, const ocr_tune_step *s) {
    FILE *f = file;
    if (!s) { /* the sweep ended */
        fprintf(f, "\n");
        return;
    }
    fprintf(f, "\rtune: %u/%u  w=%zu groups=%zu unroll=%u %s: %.4f ms (best %.4f)   ", s->index,
            s->total, s->tried->local_size, s->tried->groups, s->tried->unroll,
            s->tried->access == 2 ? "blocked" : "strided", s->ms, s->best_ms);
}
