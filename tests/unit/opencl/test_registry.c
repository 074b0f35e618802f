/*
 * test_registry.c - choosing a kernel by ability (ocr_kernel_for,
 * host/lib/opencl/ocr_kernels.c): the lookup returns the registry's row that
 * has the abilities asked, the first in order; exactly one row is the
 * reducer's kernel (OCR_KERNEL_REDUCER), and it can do what the reducer,
 * --tune and --stream need of it. No device needed.
 */
#include "ocr.h"
#include "check.h"

#include <string.h>

int main(void) {
    const ocr_kernel_spec *reducer = NULL, *s;
    unsigned rows = 0, with = 0;
    for (size_t i = 0; (s = ocr_kernel_at(i)) != NULL; ++i, ++rows) {
        if (s->caps & OCR_KERNEL_REDUCER) {
            ++with;
            if (!reducer) reducer = s;
        }
        /* every row's own abilities find a row at or before it */
        const ocr_kernel_spec *f = ocr_kernel_for(s->caps);
        EXPECT(f != NULL && f <= s && (f->caps & s->caps) == s->caps, "%s: caps %#x", s->name,
               s->caps);
    }
    EXPECT(rows > 1, "%u rows", rows);
    EXPECT(with == 1, "%u rows have OCR_KERNEL_REDUCER, not one", with);
    CHECK(ocr_kernel_for(OCR_KERNEL_REDUCER) == reducer);
    CHECK(reducer && ocr_kernel_find(reducer->name) == reducer);
    /* what its users need: --tune tunes it (and the cache the reducer reads
     * keys it), --stream streams through it, the reducer takes every
     * geometry, argmin/argmax, accurate sums and the small types */
    unsigned needs = OCR_KERNEL_TUNABLE | OCR_KERNEL_STREAMABLE | OCR_KERNEL_FREE_GEOMETRY |
                     OCR_KERNEL_ARG | OCR_KERNEL_ACCURATE | OCR_KERNEL_SMALL;
    EXPECT(reducer && (reducer->caps & needs) == needs, "caps %#x", reducer ? reducer->caps : 0);
    CHECK(ocr_kernel_for(OCR_KERNEL_TUNABLE) == reducer);
    CHECK(ocr_kernel_for(OCR_KERNEL_STREAMABLE) == reducer);
    /* the first row in order for a common ability; none for an ability no row has */
    CHECK(ocr_kernel_for(0) == ocr_kernel_at(0));
    CHECK(ocr_kernel_for(OCR_KERNEL_ARG) == ocr_kernel_at(0));
    CHECK(ocr_kernel_for(1u << 30) == NULL);
    /* set only on requests, never in a row */
    CHECK(ocr_kernel_for(OCR_KERNEL_TUNED) == NULL);
    CHECK(ocr_kernel_for(OCR_KERNEL_CONFINED) == NULL);
    return check_summary("test_registry");
}
