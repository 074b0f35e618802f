/* ocr_passes.c - the one place a plan's launches are enqueued. Both the
 * primitive (ocr_reducer.c, on the caller's queue and buffers) and the
 * benchmark routine (ocr_run.c, which times each launch's event) call it, and
 * so does ocr_plan_enqueue (a caller's buffers, for benchmarks of the
 * launches alone), so the launches users get are the ones the tests and
 * benchmarks measure. */
#include "ocr_internal.h"

ocr_status ocr_pass_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_pass *s, cl_mem src,
                            cl_mem dst, cl_uint num_wait, const cl_event *wait, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_ulong n_in = s->n_in; /* the partial count of this pass, not the original n */
    size_t global = (size_t)s->global_size, local = (size_t)s->local_size;
    cl_kernel kern = s->finish ? k->finish_kernel : k->kernel; /* reduce7_finish */
    *ev = NULL;
    OCR_CL(clSetKernelArg(kern, 0, sizeof src, &src));
    OCR_CL(clSetKernelArg(kern, 1, sizeof dst, &dst));
    OCR_CL(clSetKernelArg(kern, 2, sizeof n_in, &n_in));
    OCR_CL(clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, num_wait, wait, ev));
fail:
    return st;
}

ocr_status ocr_passes_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_plan *p,
                              const ocr_pass_io *io, cl_event *ev, unsigned *nev) {
    ocr_status st = OCR_OK;
    cl_mem in = io->in;
    *nev = 0;
    for (unsigned i = 0; i < p->npasses; ++i) {
        cl_mem out = i + 1 == p->npasses && io->last_out ? io->last_out : io->scratch[i % 2];
        cl_uint nw = i == 0 ? io->num_wait : io->chain ? 1 : 0;
        const cl_event *wl = i == 0      ? (io->num_wait ? io->wait : NULL)
                             : io->chain ? &ev[i - 1]
                                         : NULL;
        if ((st = ocr_pass_enqueue(q, k, &p->pass[i], in, out, nw, wl, &ev[i])) != OCR_OK) break;
        ++*nev;
        in = out; /* this output is the next input */
    }
    return st;
}

ocr_status ocr_plan_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_plan *p, cl_mem in,
                            const cl_mem scratch[2]) {
    cl_event ev[OCR_MAX_PASSES];
    unsigned nev = 0;
    ocr_last_error_clear();
    ocr_pass_io io = {in, {scratch[0], scratch[1]}, NULL, 0, NULL, 0};
    ocr_status st = ocr_passes_enqueue(q, k, p, &io, ev, &nev);
    while (nev > 0)
        clReleaseEvent(ev[--nev]);
    return st;
}
