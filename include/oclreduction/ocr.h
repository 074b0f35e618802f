/*
 * ocr.h - the whole oclreduction library: ocr_core.h (statuses, types,
 * operators, values, the message channel), ocr_bench.h (devices, kernels,
 * plans, runs, reports, tuning, several devices, streaming: the archive's
 * only) and ocr_reducer.h (reducing a caller's buffer in the caller's
 * context). An application that only reduces its own buffers includes
 * ocr_reducer.h alone, and may link the shared library.
 */
#ifndef OCR_H
#define OCR_H

#include "ocr_core.h"
#include "ocr_bench.h"
#include "ocr_reducer.h"

#endif
