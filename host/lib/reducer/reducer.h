/* reducer.h - the private header of host/lib/reducer/, the floor that is the
 * shared library's implementation (ocr_reducer.h; README.md here): it sees
 * core/ and opencl/ only, and run/ (the benchmark engines, which create
 * reducers through the public API) stands on it. What the reducer's files
 * share among themselves is ocr_reducer_priv.h and ocr_readback.h: no other
 * floor includes them (white-box tests do, through ocr_private_headers). */
#ifndef OCR_REDUCER_FLOOR_H
#define OCR_REDUCER_FLOOR_H

#include "opencl.h"

#endif
