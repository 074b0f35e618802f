/* Wrong on purpose (a test fixture): no n, so the harness cannot pass one. */
#include "reduce_common.h"

__kernel void k(__global const T *in, __global T *out) {
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = in[get_group_id(0)];
}
