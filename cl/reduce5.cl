/*
 * reduce5 - reduce4 with 128 work-items per group.
 *
 * What changed from reduce4: only the geometry. The host builds the same code
 * with LOCAL_SIZE=128 instead of 64 (BLOCK stays 1024, so a group still covers
 * 2048 elements).
 *
 * Why it is faster: in the tutorial's profile (a GTX 260), reduce4's occupancy
 * was limited by the work-group size: each compute unit held only a few
 * 64-item groups. With twice the work-items per group, twice as many loads are
 * in flight per group and each work-item copies half as many slots. On an
 * H100 or H200 occupancy was already full (32 groups of 64 fit), so the gain
 * there is the shorter copy loop: about 5% (bench/results/ladder).
 *
 * What it still costs: on the GTX 260 the local memory per group (BLOCK
 * values) then limited how many groups a compute unit held, which reduce6
 * halves. On an H100 or H200 (228 KiB of shared memory per multiprocessor)
 * it does not: work-items are the limit (docs/labs/lab6-block-size.md).
 */
#define KERNEL_NAME reduce5
#include "reduce4.cl"
