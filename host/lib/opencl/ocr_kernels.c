/* ocr_kernels.c - the registry of built-in kernels: file, shape, default
 * geometry and CPU threshold of each step of the ladder, reduce7's
 * device-dependent defaults, and what each can do (the last column, caps). */
#include "ocr.h"

#include <stdlib.h>
#include <string.h>

static const ocr_kernel_spec specs[] = {
    {"reduce0",
     "reduce0.cl",
     OCR_PER_ITEM,
     0,
     0,
     1,
     64,
     "interleaved pairs in global memory, one launch per level",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce1",
     "reduce1.cl",
     OCR_PER_ITEM,
     0,
     0,
     1,
     64,
     "sequential addressing (i with i + n/2), one launch per level",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce2",
     "reduce2.cl",
     OCR_PER_GROUP,
     64,
     1024,
     1,
     1024,
     "a 1024-value block per work-group in local memory, 64 work-items",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce3",
     "reduce3.cl",
     OCR_PER_GROUP,
     64,
     1024,
     2,
     2048,
     "two loads per slot, no test while all are busy, short tail",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce4",
     "reduce4.cl",
     OCR_PER_GROUP,
     64,
     1024,
     2,
     2048,
     "reduce3 with every tree level written out",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce5",
     "reduce5.cl",
     OCR_PER_GROUP,
     128,
     1024,
     2,
     2048,
     "reduce4 with 128 work-items per group",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    {"reduce6",
     "reduce6.cl",
     OCR_PER_GROUP,
     128,
     512,
     2,
     1024,
     "reduce5 with 512-value blocks (1024 elements per group)",
     {0},
     OCR_KERNEL_ARG | OCR_KERNEL_SMALL},
    /* About 1024 resident work-items per GPU compute unit measured best on an
     * H100, and on a CPU one work-item per group (POCL then runs no work-item
     * loop) and a few groups per core (docs/perf/vs-cub.md, docs/perf/cpu.md). */
    {"reduce7",
     "reduce7.cl",
     OCR_PER_GRID,
     128,
     0,
     1,
     0,
     "grid-stride accumulation in registers with 16-byte loads, one tree per group",
     {8, 1024, 4, 1},
     OCR_KERNEL_FREE_GEOMETRY | OCR_KERNEL_TUNABLE | OCR_KERNEL_STREAMABLE | OCR_KERNEL_ARG |
         OCR_KERNEL_ACCURATE | OCR_KERNEL_SMALL | OCR_KERNEL_REDUCER},
    {"race_tail",
     "lab/race_tail.cl",
     OCR_PER_GROUP,
     64,
     1024,
     2,
     2048,
     "LAB: reduce3 with the tutorial's barrier-free tail (wrong on purpose)",
     {0},
     0},
    {"reduce3_no_prefetch_barrier",
     "lab/reduce3_no_prefetch_barrier.cl",
     OCR_PER_GROUP,
     64,
     1024,
     2,
     2048,
     "LAB: reduce3 without the prefetch barrier (right at -w 64, races at -w 1024)",
     {0},
     0},
};

#define NSPECS (sizeof specs / sizeof specs[0])

const ocr_kernel_spec *ocr_kernel_at(size_t i) {
    return i < NSPECS ? &specs[i] : NULL;
}

/* By ability: the reducer, --tune and --stream ask for OCR_KERNEL_REDUCER,
 * so moving the reducer to another kernel is a change of this table's caps
 * column alone (test_registry checks that one row has it). */
const ocr_kernel_spec *ocr_kernel_for(unsigned caps) {
    for (size_t i = 0; i < NSPECS; ++i)
        if ((specs[i].caps & caps) == caps) return &specs[i];
    return NULL;
}

/* "6", "reduce6" and "race_tail" all work. */
const ocr_kernel_spec *ocr_kernel_find(const char *s) {
    char name[32];
    if (s[0] >= '0' && s[0] <= '9' && strlen(s) < 8) {
        snprintf(name, sizeof name, "reduce%s", s);
        s = name;
    }
    for (size_t i = 0; i < NSPECS; ++i)
        if (strcmp(specs[i].name, s) == 0) return &specs[i];
    return NULL;
}
