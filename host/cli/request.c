/* request.c - what the options ask of the library: the build request, the
 * run options, the seeded input. The runners, the grader and --mpi share
 * them. */
#include "cli.h"

#include <stdlib.h>

ocr_kernel_spec cli_file_kernel(const char *name, const char *file, size_t local, uint64_t elems,
                                const char *summary) {
    return (ocr_kernel_spec){.name = name,
                             .file = file,
                             .kind = OCR_PER_GROUP,
                             .local_size = local,
                             .block = (size_t)elems,
                             .loads_per_slot = 1,
                             .default_m = (size_t)elems,
                             .summary = summary};
}

ocr_run_options cli_run_options(const cli_options *o, uint64_t m, ocr_cpu_baseline cpu) {
    return (ocr_run_options){.repeats = o->repeats,
                             .m = m,
                             .host_mem = o->host_mem,
                             .cpu = cpu,
                             .data = o->data,
                             .second = OCR_SECOND_AUTO,
                             .seed = o->seed};
}

/* The build request the options describe; OCR_USAGE for an unknown kernel,
 * OCR_RUNTIME for a --kernel-file that cannot be opened. */
ocr_status cli_make_request(const cli_options *o, ocr_build_request *rq) {
    *rq = (ocr_build_request){0};
    if (o->kernel_file) {
        rq->spec =
            cli_file_kernel(o->kernel_name, o->kernel_file, o->local_size ? o->local_size : 64,
                            o->elems_per_group, "user kernel");
        rq->kernel_file = o->kernel_file;
        if (cli_check_kernel_file(o->kernel_file) != OCR_OK) return OCR_RUNTIME;
    } else {
        const ocr_kernel_spec *s = o->spec;
        if (!s) {
            fprintf(stderr,
                    "oclReduction: unknown kernel '%s' (see --list-kernels)\n"
                    "Try 'oclReduction --help'.\n",
                    o->kernel);
            return OCR_USAGE;
        }
        rq->spec = *s;
    }
    rq->kernel_dir = o->kernel_dir;
    rq->type = o->type;
    rq->op = o->op;
    rq->local_size = o->local_size;
    rq->groups = o->groups;
    rq->access = o->access;
    rq->extra_options = o->build_options;
    rq->accurate = o->accurate;
    return OCR_OK;
}

void *cli_make_input(const cli_options *o, uint64_t offset, uint64_t count, const char *what) {
    size_t es = ocr_type_size(o->type);
    void *data = malloc((size_t)(count * es));
    if (!data) {
        fprintf(stderr, "oclReduction: cannot allocate %llu MiB of host memory for %s\n",
                (unsigned long long)((count * es) >> 20), what);
        return NULL;
    }
    if (offset == 0 && count == o->size)
        ocr_data_fill(data, count, o->type, o->op, o->seed, o->data);
    else
        ocr_data_fill_range(data, offset, count, o->size, o->type, o->op, o->seed, o->data);
    return data;
}

ocr_status cli_call_span(cl_event before, cl_event done, uint64_t h0, uint64_t *ns) {
    uint64_t t0 = 0, t1 = 0, tb0, tb = 0, span;
    cl_int err = clWaitForEvents(1, &done);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "oclReduction: the reduction failed: %s\n", ocr_cl_error_name(err));
        return OCR_OPENCL;
    }
    if (ocr_event_span(before, h0, &tb0, &tb, &span) != OCR_OK) tb = 0;
    ocr_status st = ocr_event_span(done, h0, &t0, &t1, ns);
    if (st == OCR_OK && t1 && tb && tb <= t0) *ns = t1 - tb;
    return st;
}
