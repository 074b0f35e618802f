/* Wrong on purpose (a test fixture): the output is a __local pointer. */
#include "reduce_common.h"

__kernel void k(__global const T *in, __local T *out, const ulong n) {
    out[get_local_id(0)] = ocr_load(in, get_global_id(0), n);
}
