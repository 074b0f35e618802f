/* Wrong on purpose: writes a constant, VALUE (42 unless the build options
 * say otherwise, e.g. --build-options "-D VALUE=NAN"). It fails wherever it
 * runs, so a PASSED at N <= E would prove the harness never launched it. */
#include "reduce_common.h"

#ifndef VALUE
#define VALUE 42
#endif

__kernel void write_42(__global const T *in, __global T *out, const ulong n) {
    (void)in;
    (void)n;
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = (T)(VALUE);
}
