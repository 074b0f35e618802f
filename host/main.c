/* main.c - oclReduction: a thin command-line shell over the ocr library. */
#include "cli.h"

#include <stdlib.h>

static void list_kernels(void) {
    const ocr_kernel_spec *s;
    for (size_t i = 0; (s = ocr_kernel_at(i)) != NULL; ++i)
        printf("%-10s %-18s %s\n", s->name, s->file, s->summary);
}

int main(int argc, char **argv) {
    cli_options o;
    ocr_device *dev = NULL;
    ocr_kernel *k = NULL;
    void *data = NULL;
    ocr_result res;
    ocr_status st = cli_parse(argc, argv, &o);
    if (st != OCR_OK) return st;
    if (o.help) {
        cli_help(stdout);
        return OCR_OK;
    }
    if (o.version) {
        printf("oclReduction %s\n", OCR_VERSION);
        return OCR_OK;
    }
    if (o.list_kernels) {
        list_kernels();
        return OCR_OK;
    }
    if (o.list) return ocr_device_list(stdout);

    ocr_build_request rq = {0};
    if (o.kernel_file) { /* a student kernel: one output per group of E elements */
        ocr_kernel_spec s = {o.kernel_name,
                             o.kernel_file,
                             OCR_PER_GROUP,
                             o.local_size ? o.local_size : 64,
                             (size_t)o.elems_per_group,
                             1,
                             o.elems_per_group,
                             "user kernel"};
        rq.spec = s;
        rq.kernel_file = o.kernel_file;
    } else {
        const ocr_kernel_spec *s = ocr_kernel_find(o.kernel);
        if (!s) {
            fprintf(stderr,
                    "oclReduction: unknown kernel '%s' (see --list-kernels)\n"
                    "Try 'oclReduction --help'.\n",
                    o.kernel);
            return OCR_USAGE;
        }
        rq.spec = *s;
    }
    rq.kernel_dir = o.kernel_dir;
    rq.type = o.type;
    rq.op = o.op;
    rq.local_size = o.local_size;
    rq.groups = o.groups;
    rq.access = o.access;

    if ((st = ocr_device_open(&o.device, &dev)) != OCR_OK) goto done;
    if ((st = ocr_kernel_build(dev, &rq, &k)) != OCR_OK) goto done;

    uint64_t m = o.m ? o.m : ocr_kernel_default_m(k);
    size_t es = ocr_type_size(o.type);
    if (o.explain) {
        ocr_plan plan;
        if ((st = ocr_plan_make(ocr_kernel_geometry(k), o.size, m, &plan)) != OCR_OK) goto done;
        printf("Kernel %s (%s) on %s\nBuild options: %s\n", rq.spec.name, ocr_kernel_path(k),
               ocr_device_get_info(dev)->name, ocr_kernel_options(k));
        ocr_plan_print(stdout, &plan, es);
        goto done;
    }

    data = malloc((size_t)(o.size * es));
    if (!data) {
        fprintf(stderr, "oclReduction: cannot allocate %llu MiB of host memory for the input\n",
                (unsigned long long)((o.size * es) >> 20));
        st = OCR_RUNTIME;
        goto done;
    }
    ocr_data_fill(data, o.size, o.type, o.op, o.seed);
    ocr_run_options ro = {o.repeats, m, o.host_mem, o.cpu};
    st = ocr_run(dev, k, data, o.size, o.type, o.op, &ro, &res);
    if (st == OCR_OK || st == OCR_WRONG) {
        ocr_report_info ri = {rq.spec.name, o.type, o.op, o.seed, 1};
        ocr_report(stdout, o.format, dev, k, &ri, &res);
    }
done:
    free(data);
    ocr_kernel_release(k);
    ocr_device_close(dev);
    return st;
}
