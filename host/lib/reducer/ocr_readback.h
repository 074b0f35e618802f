/* ocr_readback.h - how the reducer's blocking call (ocr_reducer_reduce)
 * brings its one value to the host (ocr_readback.c). Internal to the library. */
#ifndef OCR_READBACK_H
#define OCR_READBACK_H

#include "reducer.h"

typedef struct ocr_readback_row ocr_readback_row;

typedef struct {
    const ocr_readback_row *row; /* the way: the device type's (lab: $OCLREDUCTION_READBACK's) */
    size_t es;                   /* the value's size */
    cl_mem result;               /* one element: the blocking call writes its value there */
    cl_mem stage;                /* "pinned", "spin": host memory the value is read into */
    void *host;                  /* "pinned", "spin", "direct": the element mapped once */
    cl_command_queue own;        /* ... on a queue of the reducer's own, for the unmap */
} ocr_readback;

/* The row for the device (spin on a GPU, read elsewhere; in the lab build,
 * $OCLREDUCTION_READBACK's where set: ocr_readback.c), its result element
 * and mapped memory. */
ocr_status ocr_readback_open(cl_context ctx, cl_device_id dev, size_t es, ocr_readback *rb);
void ocr_readback_close(ocr_readback *rb);
/* The i-th row's name, NULL past the last (the tests iterate the lab's table). */
const char *ocr_readback_row_name(size_t i);
/* Whether the fetch needs the last kernel's event (else, on an in-order
 * queue, the call enqueues none). */
int ocr_readback_wants_event(const ocr_readback *rb);
/* The value of the command whose event is ev (NULL: the last one enqueued on
 * the in-order queue q) into value; *keep: a command still running that the
 * next call must wait for, or NULL. */
ocr_status ocr_readback_fetch(ocr_readback *rb, cl_command_queue q, cl_event ev, void *value,
                              cl_event *keep);

#endif
