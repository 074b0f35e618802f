/* run.h - what the benchmark engines of host/lib/run/ (ocr_bench.h) share,
 * and report/ reads of them. They stand on the reducer's floor
 * (host/lib/reducer/, reducer.h), whose own state they never read. */
#ifndef OCR_RUN_PRIV_H
#define OCR_RUN_PRIV_H

#include "reducer.h"

/* Runs of the pinned upload alone that a stream times (its report says so). */
#define OCR_STREAM_H2D_REPS 5
#define OCR_STREAM_ROUNDS   3 /* ready streams and copy-only passes, alternated */

/* A result's check fields from its reference (ocr_result, ocr_split_result):
 * the expected value, the tolerance, whether the comparison is bit for bit,
 * and whether exact data are exact in any order. */
#define OCR_TAKE_REFERENCE(res, ref)                                                               \
    ((res)->expected = (ref).expected, (res)->tolerance = (ref).tolerance,                         \
     (res)->exact = (ref).tolerance == 0, (res)->any_order = (ref).any_order)

#endif
