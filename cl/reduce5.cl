/*
 * reduce5 - reduce4 with 128 work-items per group.
 *
 * What changed from reduce4: only the geometry. The host builds the same code
 * with LOCAL_SIZE=128 instead of 64 (BLOCK stays 1024, so a group still covers
 * 2048 elements).
 *
 * Why it is faster: in the tutorial's profile, reduce4's occupancy was limited
 * by the work-group size: each compute unit held only a few 64-item groups. With
 * twice the work-items per group (and the same local memory per group), twice
 * as many loads are in flight to hide memory latency, and each work-item copies
 * half as many slots.
 *
 * What it still costs: the local memory per group (BLOCK values) now limits
 * how many groups a compute unit holds. reduce6 halves it.
 */
#define KERNEL_NAME reduce5
#include "reduce4.cl"
