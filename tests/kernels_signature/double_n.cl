/* Wrong on purpose (a test fixture): n is a double. */
#include "reduce_common.h"

__kernel void k(__global const T *in, __global T *out, const double n) {
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = ocr_load(in, get_group_id(0), (ulong)n);
}
