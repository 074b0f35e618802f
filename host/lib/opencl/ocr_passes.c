/* ocr_passes.c - the one place a plan's launches are enqueued. Both the
 * primitive (ocr_reducer.c, on the caller's queue and buffers) and the
 * benchmark routine (ocr_run.c, which times each launch's event) call it, and
 * so does ocr_plan_enqueue (a caller's buffers, for benchmarks of the
 * launches alone), so the launches users get are the ones the tests and
 * benchmarks measure. */
#include "opencl.h"

ocr_status ocr_pass_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_pass *s, cl_mem src,
                            uint64_t in_off, cl_mem dst, uint64_t out_off, cl_uint num_wait,
                            const cl_event *wait, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_ulong n_in = s->n_in; /* the partial count of this pass, not the original n */
    cl_ulong off[2] = {in_off, out_off};
    size_t global = (size_t)s->global_size, local = (size_t)s->local_size;
    cl_kernel kern = s->finish ? k->finish_kernel : k->kernel; /* reduce7_finish */
    if (ev) *ev = NULL;
    if (!k->offsets && (in_off || out_off)) {
        ocr_errorf("%s takes no offsets (an older copy of the kernel?)", k->path);
        return OCR_USAGE;
    }
    OCR_CL(clSetKernelArg(kern, 0, sizeof src, &src));
    OCR_CL(clSetKernelArg(kern, 1, sizeof dst, &dst));
    OCR_CL(clSetKernelArg(kern, 2, sizeof n_in, &n_in));
    if (k->offsets) {
        OCR_CL(clSetKernelArg(kern, 3, sizeof off[0], &off[0]));
        OCR_CL(clSetKernelArg(kern, 4, sizeof off[1], &off[1]));
    }
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
        int last = i + 1 == p->npasses;
        cl_mem out = last && io->last_out ? io->last_out : io->scratch[i % 2];
        uint64_t out_off = last && io->last_out ? io->out_off : 0;
        cl_uint nw = i == 0 ? io->num_wait : io->chain ? 1 : 0;
        const cl_event *wl = i == 0      ? (io->num_wait ? io->wait : NULL)
                             : io->chain ? &ev[*nev - 1]
                                         : NULL;
        /* Events: every pass's in ev[i], or the last's alone in ev[0]. */
        cl_event *e = io->events == 0 ? &ev[i] : io->events == 1 && last ? &ev[0] : NULL;
        const ocr_kernel *kk = i == 0 && io->first ? io->first : i > 0 && k->rest ? k->rest : k;
        st = ocr_pass_enqueue(q, kk, &p->pass[i], in, i == 0 ? io->in_off : 0, out, out_off, nw, wl,
                              e);
        if (st != OCR_OK) break;
        if (e) ++*nev;
        in = out; /* this output is the next input */
    }
    return st;
}

ocr_status ocr_plan_enqueue(cl_command_queue q, const ocr_kernel *k, const ocr_plan *p, cl_mem in,
                            const cl_mem scratch[2]) {
    cl_event ev[1];
    unsigned nev = 0;
    ocr_last_error_clear();
    /* No events: nothing here waits for one. */
    ocr_pass_io io = {.in = in, .scratch = {scratch[0], scratch[1]}, .events = 2};
    return ocr_passes_enqueue(q, k, p, &io, ev, &nev);
}
