/*
 * test_options.c - the size rule of ocr_reducer_options (ocr_reducer.h):
 * fields within `size` are read and later ones take their defaults; size 0
 * (a zeroed struct) is this version's struct; a larger struct than the
 * library knows is refused if its unknown fields are set, accepted if they
 * are zero; a size too small to hold the size itself is refused.
 *
 * A build option the compiler rejects (an undeclared identity) shows whether
 * build_options was read: OCR_BUILD when it was, OCR_OK when it was not.
 */
#include "check.h"
#include "ocr_reducer.h"

#include <stddef.h>
#include <string.h>

static cl_context ctx;
static cl_device_id dev;

static ocr_status create(const ocr_reducer_options *o) {
    ocr_reducer *r = NULL;
    ocr_status st = ocr_reducer_create(ctx, dev, OCR_INT, OCR_SUM, o, &r);
    ocr_reducer_release(r);
    return st;
}

int main(void) {
    cl_platform_id plat;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return 3;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 3;
    /* a build that fails (a macro redefined, -Werror; a -D of OpenCL C's own
     * names, -D get_local_id=..., is refused before any build now) */
    const char *broken = "-D this_is_not_declared=1 -D this_is_not_declared=2 -Werror";

    ocr_reducer_options o = OCR_REDUCER_OPTIONS;
    CHECK(o.size == sizeof o);
    CHECK(create(NULL) == OCR_OK);
    CHECK(create(&o) == OCR_OK);
    o.build_options = broken; /* within size: read */
    CHECK(create(&o) == OCR_BUILD);
    o.size = 0; /* this version's struct: read as well */
    CHECK(create(&o) == OCR_BUILD);
    /* An older, shorter struct: build_options lies beyond its size, and the
     * garbage there must not be read. */
    o.size = offsetof(ocr_reducer_options, build_options);
    CHECK(create(&o) == OCR_OK);
    o.size = 1; /* cannot even hold the size */
    CHECK(create(&o) == OCR_USAGE);
    CHECK(strstr(ocr_reducer_last_error(NULL), "too small") != NULL);

    /* A newer, longer struct: its unknown field unset is fine, set is refused. */
    struct {
        ocr_reducer_options known;
        size_t later;
    } big;
    memset(&big, 0, sizeof big);
    big.known.size = sizeof big;
    CHECK(create(&big.known) == OCR_OK);
    big.later = 1;
    CHECK(create(&big.known) == OCR_USAGE);
    CHECK(strstr(ocr_reducer_last_error(NULL), "does not know") != NULL);
    clReleaseContext(ctx);
    return check_summary("test_options");
}
