/* grade.h - oclReduction --grade: a student kernel against a fixed matrix of
 * cases, each isolated in a child process with a time limit, plus a race
 * check under oclgrind and a speed ratio (docs/labs/grading.md). */
#ifndef OCR_GRADE_H
#define OCR_GRADE_H

#include "cli.h"

/* Grades o->kernel_file and prints the report in o->format. OCR_OK: every
 * check passed; OCR_WRONG: the kernel is wrong in any way (WRONG,
 * BUILD_ERROR, CRASH, TIMEOUT, RACE); OCR_RUNTIME: the environment is broken
 * (no device, an unreadable kernel file). */
ocr_status cli_grade(const cli_options *o);

#endif
