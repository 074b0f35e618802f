/*
 * test_cache.c - the reducer's side of tests/scripts/cache_test.sh (the disk
 * program cache under attack).
 *   sum [TYPE [KERNEL_DIR]]  one sum reducer of TYPE (int, long, float,
 *       double; KERNEL_DIR: its sources from there) over 0 .. 9999, with the
 *       built-in geometry (the tune cache's with TEST_CACHE_TUNED set); prints the
 *       result against the host's, the program cache's counters and every
 *       message of the library's channel; exit 0 if right, 1 if not.
 *   forge FROM TO  rewrites the entry TO with FROM's binary under TO's own key
 *       and a valid checksum: what anyone who can write TO can do.
 * The cache is wherever XDG_CACHE_HOME and HOME put it: the script decides.
 */
#define _POSIX_C_SOURCE 200809L
#include "opencl.h" /* the program cache's counters */
#include "check.h"

#include <stdint.h>
#include <string.h>

static void show(void *user, const char *msg) {
    (void)user;
    printf("message: %s\n", msg);
}

static ocr_type type_named(const char *s) {
    static const struct {
        const char *name;
        ocr_type t;
    } types[] = {
        {"int", OCR_INT}, {"long", OCR_LONG}, {"float", OCR_FLOAT}, {"double", OCR_DOUBLE}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (!strcmp(s, types[i].name)) return types[i].t;
    fprintf(stderr, "test_cache: unknown type %s\n", s);
    exit(2);
}

static int sum(ocr_type t, const char *kernel_dir) {
    enum { N = 10000 };
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    cl_int err;
    static char host[N * 8];
    size_t es = ocr_type_size(t);
    for (int i = 0; i < N; ++i) {
        int32_t a = i;
        int64_t b = i;
        float c = (float)i;
        double d = i;
        memcpy(host + (size_t)i * es,
               t == OCR_INT     ? (void *)&a
               : t == OCR_LONG  ? (void *)&b
               : t == OCR_FLOAT ? (void *)&c
                                : (void *)&d,
               es);
    }
    ocr_set_message_callback(show, NULL);
    CL_OPEN_FIRST(dev, ctx, q);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * es, host, &err);
    CL_OK(err);
    ocr_reducer_options o = {.kernel_dir = kernel_dir,
                             .ignore_tuning = !getenv("TEST_CACHE_TUNED")};
    ocr_reducer *r = NULL;
    ocr_value v;
    ocr_status st = ocr_reducer_create(ctx, dev, t, OCR_SUM, &o, &r);
    if (st == OCR_OK) st = ocr_reducer_reduce(r, q, b, 0, N, &v);
    double got = t == OCR_INT ? v.i : t == OCR_LONG ? (double)v.l : t == OCR_FLOAT ? v.f : v.d;
    double want = (double)N * (N - 1) / 2;
    ocr_program_cache_stats s;
    ocr_program_cache_stats_get(&s);
    printf("%s sum: %.0f (expected %.0f), status %d\n", ocr_type_name(t), got, want, (int)st);
    printf("program cache: %lu from source, %lu from disk, %lu stored, %lu rejected\n",
           s.source_builds, s.binary_builds, s.stored, s.rejected);
    ocr_reducer_release(r);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return st == OCR_OK && got == want ? 0 : 1;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) == (size_t)size)
        *n = (size_t)size;
    else
        free(buf), buf = NULL;
    if (f) fclose(f);
    if (!buf) fprintf(stderr, "test_cache: cannot read %s\n", path);
    return buf;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *s = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

/* An entry: the key (text, NUL), the binary's size (8 bytes), the binary, FNV-1a of all before. */
static int forge(const char *from, const char *to) {
    size_t nf = 0, nt = 0;
    unsigned char *f = slurp(from, &nf), *t = slurp(to, &nt);
    if (!f || !t) return 1;
    size_t kf = strlen((char *)f) + 1, kt = strlen((char *)t) + 1;
    uint64_t blen;
    memcpy(&blen, f + kf, 8);
    uint64_t sum = fnv(fnv(fnv(0xcbf29ce484222325ull, t, kt), &blen, 8), f + kf + 8, blen);
    FILE *o = fopen(to, "wb");
    int ok = o && fwrite(t, 1, kt, o) == kt && fwrite(f + kf, 1, 8 + blen, o) == 8 + blen &&
             fwrite(&sum, 8, 1, o) == 1;
    if (o && fclose(o) != 0) ok = 0;
    free(f), free(t);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "sum"))
        return sum(type_named(argc > 2 ? argv[2] : "int"), argc > 3 ? argv[3] : NULL);
    if (argc == 4 && !strcmp(argv[1], "forge")) return forge(argv[2], argv[3]);
    fprintf(stderr, "usage: test_cache sum [TYPE [KERNEL_DIR]] | forge FROM TO\n");
    return 2;
}
