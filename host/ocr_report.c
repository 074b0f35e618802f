/* ocr_report.c - the human-readable report, in the tutorial's shape. */
#include "ocr_internal.h"

#include <inttypes.h>

static double ms(uint64_t ns) { return (double)ns / 1e6; }

void ocr_report_text(FILE *f, const ocr_device *dev, const ocr_kernel *k, const char *kernel_name,
                     ocr_type t, ocr_op o, uint64_t seed, const ocr_result *r) {
    const ocr_device_info *in = &dev->info;
    const ocr_plan *p = &r->plan;
    size_t es = ocr_type_size(t);
    char got[64], want[64];
    fprintf(f, "Using kernel '%s' (%s)\n", kernel_name, k->path);
    fprintf(f, "Number of elements: %" PRIu64 " (%s %s, seed %" PRIu64 ")\n", p->n, ocr_type_name(t),
            ocr_op_name(o), seed);
    fprintf(f, "Platform: %s (%s)\n", in->platform, in->platform_version);
    fprintf(f, "Will use this device: %s (driver %s, %s)\n", in->name, in->driver, in->version);
    fprintf(f, "Passes: %u, work-group size %zu, %" PRIu64 " value%s finished on the CPU (M = %" PRIu64
               ")\n",
            p->npasses, k->geom.local_size, p->leftover, p->leftover == 1 ? "" : "s", p->m);
    fprintf(f, "Result: %s (reference %s", ocr_value_str(t, r->result, got, sizeof got),
            ocr_value_str(t, r->expected, want, sizeof want));
    if (r->tolerance > 0)
        fprintf(f, ", tolerance %.3g", r->tolerance);
    fprintf(f, ")\n\n%s\n\n", r->passed ? "Test PASSED!" : "Test FAILED!");

    const ocr_times *md = &r->median, *mn = &r->min;
    uint64_t elems = p->elems_read;
    if (md->kernels_ns > 0) {
        /* elements per ns = 1e9 elements per s; bytes per ns = GB/s */
        fprintf(f, "GPU Memory IO: %.4g memops/s\n", (double)elems / (double)md->kernels_ns * 1e9);
        fprintf(f, "GPU Memory bandwidth: %.3f GB/s\n",
                (double)(elems * es) / (double)md->kernels_ns);
    } else {
        fprintf(f, "GPU Memory IO: n/a (no kernel ran: n <= M)\n");
    }
    fprintf(f, "T kernels: %.5g ms (median of %u; min %.5g)\n", ms(md->kernels_ns), r->repeats,
            ms(mn->kernels_ns));
    fprintf(f, "T gpu: %.5g ms (H2D %.4g + kernels %.4g + D2H %.4g + CPU %.4g; min %.5g)\n",
            ms(md->gpu_ns), ms(md->h2d_ns), ms(md->kernels_ns), ms(md->d2h_ns), ms(md->cpu_ns),
            ms(mn->gpu_ns));
    fprintf(f, "T ref: %.5g ms (naive CPU loop; min %.5g)\n", ms(r->ref_ns_median), ms(r->ref_ns_min));
    fprintf(f, "Speedup: %.4g", md->gpu_ns ? (double)r->ref_ns_median / (double)md->gpu_ns : 0.0);
    if (md->kernels_ns)
        fprintf(f, " (kernels only: %.4g)", (double)r->ref_ns_median / (double)md->kernels_ns);
    fprintf(f, "\n");
}
