/* ocr_mem.c - where a cl_mem's bytes live: the buffer beneath a sub-buffer,
 * and whether two ranges of two cl_mem are the same memory (the overlap
 * checks of every reducer call that writes a result into a caller's
 * buffer). Prints nothing. */
#include "ocr_reducer_priv.h"

/* The buffer a cl_mem's bytes live in (itself, or the parent of a
 * sub-buffer: OpenCL 1.2 allows no deeper nesting) and its byte offset there. */
ocr_status ocr_mem_root(cl_mem m, cl_mem *root, size_t *origin) {
    ocr_status st = OCR_OK;
    cl_mem parent = NULL;
    *root = m, *origin = 0;
    OCR_CL(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
    if (parent) {
        OCR_CL(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof *origin, origin, NULL));
        *root = parent;
    }
fail:
    return st;
}

ocr_status ocr_mem_overlap(cl_mem a, uint64_t a_at, uint64_t a_len, cl_mem b, uint64_t b_at,
                           uint64_t b_len, int *overlap) {
    ocr_status st;
    cl_mem ra, rb;
    size_t oa, ob;
    *overlap = 0;
    if ((st = ocr_mem_root(a, &ra, &oa)) != OCR_OK || (st = ocr_mem_root(b, &rb, &ob)) != OCR_OK)
        return st;
    a_at += oa, b_at += ob;
    *overlap = ra == rb && a_len && b_len && a_at < b_at + b_len && b_at < a_at + a_len;
    return OCR_OK;
}
