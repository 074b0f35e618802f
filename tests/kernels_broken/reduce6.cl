/* A reduce6 that does not compile, for the test of the build-failure path:
 * the program must print the build log, the options and this file, and exit 3. */
__kernel void reduce6(__global const int *in, __global int *out, const ulong n) {
    out[0] = in[0] + this_is_not_declared;
}
