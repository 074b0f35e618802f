/*
 * spin.cl - a kernel that never ends (--timeout's fixture, issue 24): every
 * work-item re-reads in[0] through a volatile pointer until it differs from
 * itself, which it never does while the kernel runs. The volatile loads are
 * side effects, so no compiler may drop the loop.
 */
#include "reduce_common.h"

__kernel void spin(__global const T *in, __global T *out, const ulong n) {
    volatile __global const T *v = in;
    T seen = v[0];
    while (v[0] == seen)
        seen = v[0];
    if (get_local_id(0) == 0 && n > 0)
        out[get_group_id(0)] = seen;
}
