/* test_cli.c - the option parser and the size parser. */
#include "check.h"
#include "cli.h"

#include <stdio.h>

static ocr_status parse(cli_options *o, int argc, char **argv) {
    return cli_parse(argc, argv, o);
}

#define ARGS(...)                                                                                  \
    (char *[]) {                                                                                   \
        "oclReduction", __VA_ARGS__                                                                \
    }
#define NARGS(...)    (int)(sizeof((char *[]){"oclReduction", __VA_ARGS__}) / sizeof(char *))
#define PARSE(o, ...) parse(o, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))

int main(void) {
    uint64_t v;
    /* The parser explains each refusal on stderr; the golden tests check that
     * text, here only the status matters. Failures print on stdout. */
    if (!freopen("/dev/null", "w", stderr)) return 1;
    CHECK(cli_parse_size("0", 100, &v) == 0 && v == 0);
    CHECK(cli_parse_size("123", 1000, &v) == 0 && v == 123);
    CHECK(cli_parse_size("32M", UINT64_MAX, &v) == 0 && v == 33554432);
    CHECK(cli_parse_size("4k", UINT64_MAX, &v) == 0 && v == 4096);
    CHECK(cli_parse_size("1G", UINT64_MAX, &v) == 0 && v == 1073741824);
    CHECK(cli_parse_size("18446744073709551615", UINT64_MAX, &v) == 0 && v == UINT64_MAX);
    CHECK(cli_parse_size("18446744073709551616", UINT64_MAX, &v) != 0); /* overflow */
    CHECK(cli_parse_size("17179869184G", UINT64_MAX, &v) != 0);         /* 2^34 G overflows */
    CHECK(cli_parse_size("17179869183G", UINT64_MAX, &v) == 0);
    CHECK(cli_parse_size("", 100, &v) != 0);
    CHECK(cli_parse_size("-1", 100, &v) != 0);
    CHECK(cli_parse_size("+1", 100, &v) != 0);
    CHECK(cli_parse_size(" 1", 100, &v) != 0);
    CHECK(cli_parse_size("1 ", 100, &v) != 0);
    CHECK(cli_parse_size("12Q", 100, &v) != 0);
    CHECK(cli_parse_size("1MB", UINT64_MAX, &v) != 0);
    CHECK(cli_parse_size("0x10", 100, &v) != 0);
    CHECK(cli_parse_size("101", 100, &v) != 0); /* above max */

    cli_options o;
    CHECK(PARSE(&o, "-n", "3") == OCR_OK && o.size == (1u << 25) && o.repeats == 10);
    CHECK(PARSE(&o, "-s32M", "-r", "2") == OCR_OK && o.size == 33554432 && o.repeats == 2);
    CHECK(PARSE(&o, "--size=4103", "--seed", "7") == OCR_OK && o.size == 4103 && o.seed == 7);
    CHECK(PARSE(&o, "--type", "double", "--op", "max") == OCR_OK && o.type == OCR_DOUBLE &&
          o.op == OCR_MAX);
    CHECK(PARSE(&o, "-t", "cpu") == OCR_OK && o.device.type == CL_DEVICE_TYPE_CPU &&
          o.device.type_given);
    CHECK(PARSE(&o, "--help") == OCR_OK && o.help);
    CHECK(PARSE(&o, "--bogus") == OCR_USAGE);
    CHECK(PARSE(&o, "-x") == OCR_USAGE);
    CHECK(PARSE(&o, "-s") == OCR_USAGE);      /* missing value */
    CHECK(PARSE(&o, "-s", "0") == OCR_USAGE); /* below the minimum */
    CHECK(PARSE(&o, "-s", "2T") == OCR_USAGE);
    CHECK(PARSE(&o, "-r", "0") == OCR_USAGE);
    CHECK(PARSE(&o, "--help=yes") == OCR_USAGE); /* flags take no value */
    CHECK(PARSE(&o, "stray") == OCR_USAGE);
    CHECK(PARSE(&o, "--type", "int8") == OCR_USAGE); /* OpenCL names only (char) */
    CHECK(PARSE(&o, "--op", "avg") == OCR_USAGE);
    CHECK(PARSE(&o, "--type", "float", "--op", "xor") == OCR_USAGE);
    CHECK(PARSE(&o, "-t", "fpga") == OCR_USAGE);
    CHECK(PARSE(&o, "--kernel-file", "x.cl") == OCR_USAGE); /* needs name and size */
    return check_summary("test_cli");
}
