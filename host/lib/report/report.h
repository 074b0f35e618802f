/* report.h - the writers the reports of host/lib/report/ share. */
#ifndef OCR_REPORT_PRIV_H
#define OCR_REPORT_PRIV_H

#include "run.h"

/* The text report's "Result: ..." line up to its closing parenthesis
 * (host/lib/report/ocr_report.c; also the split report's). */
void ocr_print_result(FILE *f, ocr_type t, ocr_op o, ocr_value got, ocr_value want,
                      const char *what, int exact, int any_order, double err_ulps, double tol_ulps,
                      double tol);

/* The reports' writers (host/lib/report/ocr_report.c; strings:
 * ocr_report_quoted). A JSON number, null where not finite: */
void ocr_json_num(FILE *f, double x);
/* The opening of a report's JSON object, up to its "data" field:
 * {"<kind>": true, "kernel": ..., "type": ..., "op": ..., "n": ..., "seed": ..., "data": ... */
void ocr_json_open(FILE *f, const char *kind, const ocr_report_info *ri, ocr_type t, ocr_op o,
                   uint64_t n);
/* Nanoseconds as milliseconds; a / b, 0 when b is 0 (bytes / ns: GB/s). */
double ocr_ms(uint64_t ns);
double ocr_ratio(uint64_t a, uint64_t b);

#endif
