/* ocr_call.c - the one call protocol of every reducer call (plain, segments,
 * rows, columns, strided, custom): the form's state, the queue and wait
 * list, the form's checks, the first command's wait list, the form's
 * commands (on failure every command of the call waited for, so that none
 * can still write scratch when the next call runs, maybe on another queue),
 * the last command kept for the next call and the caller's done, and the
 * blocking call's value brought home (ocr_readback.c). Each form is a row
 * (ocr_form, ocr_reducer_priv.h). The fast path allocates nothing and
 * creates no event the form does not. Prints nothing. */
#include "ocr_reducer_priv.h"

#include <stdlib.h>
#include <string.h>

ocr_status ocr_form_state(ocr_reducer *r, const ocr_form *f, void **state) {
    ocr_status st;
    size_t i = 0;
    if (f == r->form) {
        *state = r->state;
        return OCR_OK;
    }
    for (; i < OCR_FORMS_MAX && r->more[i].form; ++i)
        if (r->more[i].form == f) {
            *state = r->more[i].state;
            return OCR_OK;
        }
    if (!f->open) { /* a reducer's own form only: this reducer is another kind */
        ocr_errorf("%s: not for this reducer", f->name);
        return OCR_USAGE;
    }
    if (i == OCR_FORMS_MAX) {
        ocr_errorf("%s: a reducer takes %d call forms at most", f->name, OCR_FORMS_MAX);
        return OCR_RUNTIME;
    }
    if ((st = f->open(r, state)) != OCR_OK) return st;
    r->more[i].form = f, r->more[i].state = *state;
    return OCR_OK;
}

ocr_status ocr_form_alloc(size_t size, void **state) {
    if ((*state = calloc(1, size))) return OCR_OK;
    ocr_errorf("out of host memory");
    return OCR_NO_MEMORY;
}

ocr_status ocr_call_buffers(const ocr_reducer *r, const ocr_call *c, size_t *rsize) {
    ocr_status st;
    size_t size = 0;
    if ((st = ocr_reducer_buffer_size(r, c->buf, "the input buffer", &size)) != OCR_OK ||
        (st = ocr_reducer_buffer_size(r, c->result, "the result buffer", rsize)) != OCR_OK)
        return st;
    uint64_t have = size / r->in_es;
    if (c->offset <= have && c->n <= have - c->offset) return OCR_OK;
    ocr_errorf("elements [%llu, %llu + %llu) lie beyond the input buffer, which holds %llu %s "
               "values; a reduction over several buffers is not supported",
               (unsigned long long)c->offset, (unsigned long long)c->offset,
               (unsigned long long)c->n, (unsigned long long)have, ocr_type_name(r->in_type));
    return OCR_USAGE;
}

/* n = 0: each of the count values is the identity of r's type and operator,
 * written by one fill (its pattern copied at the call: nothing to keep). */
static ocr_status fill_identity(const ocr_reducer *r, const ocr_call *c, cl_uint nw,
                                const cl_event *wl, cl_event *ev) {
    ocr_status st = OCR_OK;
    ocr_value id = ocr_identity(r->type, r->op);
    if (r->es > sizeof id || (r->es & (r->es - 1))) {
        ocr_errorf("%s values have no identity a fill can write", ocr_type_name(r->type));
        return OCR_USAGE;
    }
    OCR_CL(clEnqueueFillBuffer(c->q, c->result, &id, r->es, c->result_offset * r->es,
                               c->count * r->es, nw, wl, ev));
fail:
    return st;
}

/* The commands: none to compute (count 0) is a marker, so that done still
 * completes after the wait list; n = 0 the identity where the form says so. */
static ocr_status commands(ocr_reducer *r, const ocr_form *f, void *state, const ocr_call *c,
                           int want, cl_event *ev) {
    ocr_status st = OCR_OK;
    cl_uint nw;
    const cl_event *wl;
    if ((st = ocr_reducer_first_wait(r, c->num_wait, c->wait, &nw, &wl)) != OCR_OK) return st;
    if (c->count == 0)
        OCR_CL(clEnqueueMarkerWithWaitList(c->q, nw, wl, ev));
    else if (c->n == 0 && f->empty_is_identity)
        st = fill_identity(r, c, nw, wl, want || r->q_ooo ? ev : NULL);
    else
        st = f->enqueue(r, state, c, nw, wl, want, ev);
fail:
    return st;
}

ocr_status ocr_call_submit(ocr_reducer *r, const ocr_form *f, ocr_call *c) {
    ocr_status st;
    void *state = NULL;
    cl_event ev = NULL, keep = NULL;
    if (!f) f = r->form; /* the reducer's own */
    if (c->done) *c->done = NULL;
    if (c->host) c->result = r->rb.result, c->result_offset = 0, c->count = 1;
    if ((st = ocr_form_state(r, f, &state)) != OCR_OK ||
        (st = ocr_reducer_use_queue(r, c->q, c->num_wait, c->wait)) != OCR_OK ||
        (st = f->check(r, state, c)) != OCR_OK)
        return st;
    if (c->n == 0 && c->count && f->empty_is_identity && ocr_op_is_arg(r->op)) {
        /* no index to give (NumPy raises too) */
        ocr_errorf("%s of an empty range (n = 0) has no index", ocr_op_name(r->op));
        return OCR_USAGE;
    }
    /* On an in-order queue the blocking read follows the commands unasked. */
    int want = c->host ? ocr_readback_wants_event(&r->rb) : 1;
    if ((st = commands(r, f, state, c, want, &ev)) != OCR_OK) {
        if (ev) clReleaseEvent(ev);
        clFinish(c->q);
        return st;
    }
    if (r->last) clReleaseEvent(r->last);
    r->last = ev, r->last_elsewhere = 0; /* the next call may have to wait for it */
    if (c->done) clRetainEvent(ev), *c->done = ev;
    if (!c->host) return OCR_OK;
    if ((st = ocr_readback_fetch(&r->rb, c->q, ev, c->host, &keep)) != OCR_OK) clFinish(c->q);
    if (ev) clReleaseEvent(ev);
    r->last = keep;
    return st;
}

ocr_status ocr_call_run(ocr_reducer *r, const char *fn, const ocr_form *f, ocr_call *c) {
    ocr_last_error_clear();
    ocr_status st = ocr_reducer_enter(r, fn);
    if (st != OCR_OK) return st;
    int tok = ocr_capture_begin();
    st = ocr_call_submit(r, f, c);
    ocr_reducer_keep_error(&r->err, ocr_capture_end(tok), st);
    r->cl_err = st == OCR_OK ? CL_SUCCESS : ocr_last_cl_error();
    ocr_reducer_leave(r);
    return st;
}
/* Keeps the captured text as r's message if the call failed. */
void ocr_reducer_keep_error(char **slot, char *text, ocr_status st) {
    free(*slot);
    *slot = NULL;
    if (st == OCR_OK) {
        free(text);
        return;
    }
    *slot = text ? text : malloc(sizeof "unknown error (no message)");
    if (!text && *slot)
        memcpy(*slot, "unknown error (no message)", sizeof "unknown error (no message)");
}

ocr_status ocr_reducer_buffer_size(const ocr_reducer *r, cl_mem m, const char *what, size_t *size) {
    ocr_status st = OCR_OK;
    cl_context c = NULL;
    if (!m) {
        ocr_errorf("%s must not be NULL", what);
        return OCR_USAGE;
    }
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof *size, size, NULL));
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL));
    if (c != r->ctx) {
        ocr_errorf("%s belongs to another context than the reducer's", what);
        st = OCR_USAGE;
    }
fail:
    return st;
}

/* The queue: checked when it changes, then remembered (retained, so that the
 * check cannot go stale). Commands of the previous call on another queue are
 * waited for by the next call's first command. */
ocr_status ocr_reducer_use_queue(ocr_reducer *r, cl_command_queue q, cl_uint num_wait,
                                 const cl_event *wait) {
    ocr_status st = OCR_OK;
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    cl_command_queue_properties props = 0;
    if (!q) {
        ocr_errorf("the queue must not be NULL");
        return OCR_USAGE;
    }
    if ((num_wait == 0) != (wait == NULL)) {
        ocr_errorf("the wait list and its length disagree (%u events, list %s)", num_wait,
                   wait ? "given" : "NULL");
        return OCR_USAGE;
    }
    if (q == r->q) return OCR_OK;
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL));
    if (qc != r->ctx || qd != r->device) {
        ocr_errorf("the queue belongs to another %s than the reducer's",
                   qc != r->ctx ? "context" : "device");
        return OCR_USAGE;
    }
    OCR_CL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    OCR_CL(clRetainCommandQueue(q));
    if (r->q) clReleaseCommandQueue(r->q);
    r->q = q;
    r->q_ooo = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    r->last_elsewhere = r->last != NULL;
fail:
    return st;
}

/* The first command's wait list: the caller's, and the previous call's last
 * command where queue order does not already put it first (it ran on another
 * queue, or this one runs out of order). No allocation, but when a caller's
 * list is longer than every one before. */
ocr_status ocr_reducer_first_wait(ocr_reducer *r, cl_uint num_wait, const cl_event *wait,
                                  cl_uint *nw, const cl_event **wl) {
    *nw = num_wait, *wl = wait;
    if (!r->last || (!r->last_elsewhere && !r->q_ooo)) return OCR_OK;
    if (num_wait == 0) {
        *nw = 1, *wl = &r->last;
        return OCR_OK;
    }
    if (num_wait + 1 > r->wl_cap) {
        cl_event *p = realloc(r->wl, (num_wait + 1) * sizeof *p);
        if (!p) {
            ocr_errorf("out of host memory");
            return OCR_NO_MEMORY;
        }
        r->wl = p, r->wl_cap = num_wait + 1;
    }
    memcpy(r->wl, wait, num_wait * sizeof *wait);
    r->wl[num_wait] = r->last;
    *nw = num_wait + 1, *wl = r->wl;
    return OCR_OK;
}
