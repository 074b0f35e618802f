/* ocr_event.c - a command's start and end times, the one home of every
 * profiling query in the project (the runs, the stream, the copy rate, the
 * CLI's segmented run).
 *
 * A runtime may not give an event's times even on a profiling queue: Intel's
 * CPU runtime now and then answers CL_PROFILING_INFO_NOT_AVAILABLE for the END
 * of a command whose START it gave. That is no reason to fail a run: wait for
 * the command, ask again, and else let the host clock stand in, with a note. */
#include "opencl.h"

#include <stdatomic.h>

static cl_int times(cl_event ev, cl_ulong *t0, cl_ulong *t1) {
    cl_int e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof *t0, t0, NULL);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *t1, t1, NULL);
    return e;
}

ocr_status ocr_event_span(cl_event ev, uint64_t host_t0, uint64_t *start, uint64_t *end,
                          uint64_t *ns) {
    static atomic_flag noted = ATOMIC_FLAG_INIT;
    ocr_status st = OCR_OK;
    cl_ulong t0 = 0, t1 = 0;
    cl_int e = times(ev, &t0, &t1);
    if (e == CL_PROFILING_INFO_NOT_AVAILABLE) { /* not yet, or never */
        OCR_CL(clWaitForEvents(1, &ev));
        e = times(ev, &t0, &t1);
    }
    if (e == CL_PROFILING_INFO_NOT_AVAILABLE) {
        uint64_t now = ocr_now_ns();
        *start = *end = 0;
        *ns = now > host_t0 ? now - host_t0 : 0;
        if (!atomic_flag_test_and_set(&noted))
            ocr_errorf("note: the OpenCL runtime gave no profiling times for a command "
                       "(CL_PROFILING_INFO_NOT_AVAILABLE); the host clock stands in for it "
                       "(an upper bound: it includes queueing)");
        return OCR_OK;
    }
    OCR_CHECK(e, "clGetEventProfilingInfo");
    *start = t0, *end = t1;
    *ns = t1 >= t0 ? (uint64_t)(t1 - t0) : 0;
fail:
    return st;
}
