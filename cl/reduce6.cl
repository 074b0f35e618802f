/*
 * reduce6 - reduce5 with half the local memory per group.
 *
 * What changed from reduce5: BLOCK drops from 1024 to 512 values (a group
 * covers 1024 elements), still with 128 work-items. Same code, other -D options.
 *
 * Why it can be faster: the tutorial's profile (GTX 260) showed reduce5
 * limited by local memory per compute unit; half the local memory per group
 * let twice as many groups be resident. On an H100 or H200 that limit never
 * bound (work-items do), so what remains is one tree level less per group:
 * 1% faster on the H100, 4% slower on the H200 (twice the groups per pass).
 *
 * What it still costs: each work-item still reads only a handful of elements
 * before the tree starts, so most of the time goes to launching groups,
 * barriers and local-memory traffic rather than to streaming data. The next
 * step (reduce7) lets each work-item accumulate many elements in registers.
 */
#define KERNEL_NAME reduce6
#include "reduce4.cl"
