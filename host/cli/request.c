/* request.c - what the options ask of the library: the build request, the
 * run options, the seeded input. The runners, the grader and --mpi share
 * them. */
#include "cli.h"

#include <stdlib.h>

unsigned cli_ladder_loads(const char *name) {
    const ocr_kernel_spec *s = name ? ocr_kernel_find(name) : NULL;
    return s && s->kind == OCR_PER_GROUP && s->loads_per_slot > 1 ? s->loads_per_slot : 1;
}

/* A copy of a ladder kernel (reduce3 to reduce6 read 2 x BLOCK elements per
 * group) runs in its own geometry: BLOCK = E / 2, so that the group reads
 * its E elements and no group reads another's or the padding. */
ocr_kernel_spec cli_file_kernel(const char *name, const char *file, size_t local, uint64_t elems,
                                const char *summary) {
    unsigned loads = cli_ladder_loads(name);
    return (ocr_kernel_spec){.name = name,
                             .file = file,
                             .kind = OCR_PER_GROUP,
                             .local_size = local,
                             .block = (size_t)(elems / loads),
                             .loads_per_slot = loads,
                             .default_m = (size_t)elems,
                             .summary = summary};
}

void cli_ladder_note(const cli_options *o) {
    unsigned loads = cli_ladder_loads(o->kernel_name);
    if (loads > 1)
        fprintf(stderr,
                "oclReduction: --kernel-name %s: the ladder's %s reads %u x BLOCK elements per "
                "group (ocr_kernels.c): built with -D BLOCK=%llu for --elems-per-group %llu\n",
                o->kernel_name, o->kernel_name, loads,
                (unsigned long long)(o->elems_per_group / loads),
                (unsigned long long)o->elems_per_group);
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
        cli_ladder_note(o);
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
