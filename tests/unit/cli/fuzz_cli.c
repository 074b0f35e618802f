/*
 * fuzz_cli.c - libFuzzer harness for the command line: the input is split at
 * NUL bytes into argv (program name first) and handed to cli_parse; every
 * argument is also given to cli_parse_size. Nothing may crash, hang, read out
 * of bounds or overflow (ASan and UBSan run with it).
 *
 * Built with -DOCR_FUZZ_REPLAY it becomes a plain program that runs the files
 * named on its command line through the same function: the regression test
 * for tests/fixtures/fuzz_corpus, where every input that ever crashed is kept.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf = malloc(size + 1);
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    /* Arguments end at NUL bytes; the last one at the end of the input. */
    for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    cli_options o;
    cli_parse(argc, argv, &o);
    for (int i = 0; i < argc; ++i) {
        uint64_t v;
        cli_parse_size(argv[i], UINT64_MAX, &v);
    }
    free(buf);
    return 0;
}

#ifdef OCR_FUZZ_REPLAY
int main(int argc, char **argv) {
    /* The parser explains refusals on stderr; only crashes matter here. */
    if (!freopen("/dev/null", "w", stderr)) return 1;
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            printf("cannot open %s\n", argv[i]);
            return 1;
        }
        static uint8_t data[1 << 16];
        size_t n = fread(data, 1, sizeof data, f);
        fclose(f);
        LLVMFuzzerTestOneInput(data, n);
    }
    printf("replayed %d input(s)\n", argc - 1);
    return 0;
}
#endif
