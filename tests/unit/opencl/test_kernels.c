/*
 * test_kernels.c - runs kernels on the default OpenCL device and checks every
 * result against the CPU reference, in one process (one build per kernel, type
 * and operator, many sizes).
 *
 *   test_kernels matrix KERNEL TYPES OPS SIZES   e.g. matrix reduce3 all all 1,2,3,4103
 *     KERNEL[:access[:w[:g]]] fixes reduce7's geometry: matrix reduce7:strided:1:2 int sum 3
 *   test_kernels random SEED COUNT [KERNEL]      random (kernel, type, op, N, seed, M, L)
 *
 * TYPES and OPS are comma lists or "all". Each failure prints the oclReduction
 * command that replays it; the last line reads "N passed, N failed".
 */
#include "cli.h"
#include "in_list.h"

#include <stdlib.h>
#include <string.h>

static int passed, failed;

typedef struct {
    const char *kernel;
    ocr_type type;
    ocr_op op;
    uint64_t n, seed, m;
    size_t local, groups;
    ocr_host_mem host_mem;
    int access; /* reduce7: 0 auto, 1 strided, 2 blocked */
} job;

static const char *const access_names[] = {"auto", "strided", "blocked"};

static void replay(FILE *f, const job *j) {
    fprintf(f, "  replay: oclReduction -n %s --type %s --op %s -s %llu --seed %llu -r 1", j->kernel,
            ocr_type_name(j->type), ocr_op_name(j->op), (unsigned long long)j->n,
            (unsigned long long)j->seed);
    if (j->m) fprintf(f, " -M %llu", (unsigned long long)j->m);
    if (j->local) fprintf(f, " -w %zu", j->local);
    if (j->groups) fprintf(f, " -g %zu", j->groups);
    if (j->access) fprintf(f, " --access %s", access_names[j->access]);
    fprintf(f, "\n");
}

/* Runs one size with an already built kernel on one data kind; counts the outcome. */
static void run_kind(ocr_device *dev, ocr_kernel *k, const job *j, ocr_data_kind kind);
static void run_one(ocr_device *dev, ocr_kernel *k, const job *j) {
    run_kind(dev, k, j, OCR_DATA_EXACT);
    /* Small integer types (char .. ushort): also every element the type's
     * largest, which overflows any accumulator narrower than the table's. */
    if (ocr_type_is_storage(j->type) && !ocr_type_is_float(j->type))
        run_kind(dev, k, j, OCR_DATA_MAX);
}
static void run_kind(ocr_device *dev, ocr_kernel *k, const job *j, ocr_data_kind kind) {
    size_t es = ocr_type_size(j->type);
    void *data = malloc(j->n * es);
    ocr_result res;
    if (!data) {
        printf("FAIL %s: out of host memory\n", j->kernel);
        ++failed;
        return;
    }
    ocr_data_fill(data, j->n, j->type, j->op, j->seed, kind);
    ocr_run_options ro = {.repeats = 1, .m = j->m, .host_mem = j->host_mem, .cpu = OCR_CPU_NAIVE};
    ocr_status st = ocr_run(dev, k, data, j->n, &ro, &res);
    free(data);
    if (st == OCR_OK && res.passed) {
        ++passed;
        ocr_result_release(&res);
        return;
    }
    char got[64], want[64];
    printf("FAIL %s %s %s n=%llu (%s data): status %d, got %s, expected %s\n", j->kernel,
           ocr_type_name(j->type), ocr_op_name(j->op), (unsigned long long)j->n,
           ocr_data_kind_name(kind), (int)st, ocr_value_str(j->type, res.result, got, sizeof got),
           ocr_value_str(j->type, res.expected, want, sizeof want));
    replay(stdout, j);
    ++failed;
    ocr_result_release(&res);
}

static ocr_kernel *build(ocr_device *dev, const job *j) {
    ocr_build_request rq = {0};
    ocr_kernel *k = NULL;
    const ocr_kernel_spec *s = ocr_kernel_find(j->kernel);
    if (!s) return NULL;
    rq.spec = *s;
    rq.type = j->type;
    rq.op = j->op;
    rq.local_size = j->local;
    rq.groups = j->groups;
    rq.access = j->access;
    if (ocr_kernel_build(dev, &rq, &k) != OCR_OK) return NULL;
    return k;
}

/* KERNEL may carry an access pattern, a work-group size and a group count:
 * reduce7:strided, reduce7:blocked:2:1, reduce7:auto:1 (0 or empty: default). */
static int matrix(ocr_device *dev, char **argv) {
    const char *types = argv[1], *ops = argv[2];
    char kernel[64];
    int access = 0;
    size_t local = 0, groups = 0;
    snprintf(kernel, sizeof kernel, "%s", argv[0]);
    char *field = strchr(kernel, ':');
    if (field) {
        *field++ = '\0';
        char *w = strchr(field, ':');
        if (w) *w++ = '\0';
        access = -1;
        for (int a = 0; a < 3; ++a)
            if (!strcmp(field, access_names[a])) access = a;
        if (access < 0) {
            fprintf(stderr, "test_kernels: unknown access '%s'\n", field);
            return 2;
        }
        if (w) {
            local = (size_t)strtoul(w, &w, 10);
            if (*w == ':') groups = (size_t)strtoul(w + 1, NULL, 10);
        }
    }
    int fp64 = ocr_device_get_info(dev)->fp64;
    for (int t = 0; t < OCR_NTYPES; ++t)
        for (int o = 0; o < OCR_NOPS; ++o) {
            job j = {kernel, (ocr_type)t, (ocr_op)o, 0, 1, 0, local, groups, OCR_HOST_AUTO, access};
            if (!in_list(types, ocr_type_name(j.type)) || !in_list(ops, ocr_op_name(j.op)) ||
                !ocr_op_valid_for(j.op, j.type))
                continue;
            if (j.type == OCR_DOUBLE && !fp64) {
                printf("skip %s double: the device has no fp64\n", kernel);
                continue;
            }
            ocr_kernel *k = build(dev, &j);
            if (!k) {
                printf("FAIL %s %s %s: build failed\n", kernel, ocr_type_name(j.type),
                       ocr_op_name(j.op));
                ++failed;
                continue;
            }
            for (char *p = argv[3]; *p;) {
                j.n = strtoull(p, &p, 10);
                if (*p == ',') ++p;
                run_one(dev, k, &j);
            }
            ocr_kernel_release(k);
        }
    return 0;
}

/* splitmix64: the draws depend on the seed alone. */
static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* only: draw this kernel alone (NULL: any). */
static int random_checks(ocr_device *dev, uint64_t seed, unsigned count, const char *only) {
    /* The ladder from the registry (lab kernels, under lab/, are wrong on
     * purpose); kernels with free geometry (reduce7) are drawn twice as often. */
    const ocr_kernel_spec *ladder[64], *sp;
    unsigned nl = 0;
    for (size_t k = 0; (sp = ocr_kernel_at(k)) != NULL && nl < 62; ++k)
        if (strncmp(sp->file, "lab/", 4) != 0) {
            ladder[nl++] = sp;
            if (sp->kind == OCR_PER_GRID) ladder[nl++] = sp;
        }
    int fp64 = ocr_device_get_info(dev)->fp64;
    uint64_t s = seed;
    for (unsigned i = 0; i < count; ++i) {
        job j = {0};
        const ocr_kernel_spec *spec = only ? ocr_kernel_find(only) : ladder[next(&s) % nl];
        if (!spec) {
            fprintf(stderr, "test_kernels: unknown kernel '%s'\n", only);
            return 2;
        }
        j.kernel = spec->name;
        do {
            j.type = (ocr_type)(next(&s) % OCR_NTYPES);
            j.op = (ocr_op)(next(&s) % OCR_NOPS);
        } while (!ocr_op_valid_for(j.op, j.type) || (j.type == OCR_DOUBLE && !fp64));
        j.n = 1 + next(&s) % ((uint64_t)1 << (1 + next(&s) % 22)); /* log-spread up to 2^22 */
        j.seed = next(&s) % 1000000;
        switch (next(&s) % 3) { /* M: the default, 1 (all on the device), or anything */
        case 0:
            j.m = 0;
            break;
        case 1:
            j.m = 1;
            break;
        default:
            j.m = 1 + next(&s) % 5000;
            break;
        }
        if (next(&s) % 2) { /* a work-group size the kernel allows */
            if (spec->kind == OCR_PER_ITEM)
                j.local = 1 + next(&s) % 256;
            else if (spec->kind == OCR_PER_GROUP)
                j.local = (size_t)1 << (next(&s) % 8); /* 1..128 divides every block */
            else
                j.local = (size_t)1 << (next(&s) % 9); /* 1..256 */
        }
        if (spec->kind == OCR_PER_GRID) {
            if (next(&s) % 2) j.groups = 1 + next(&s) % 64;
            j.access = (int)(next(&s) % 3);
            /* Half the time a grid of 1 to 4 work-items, smaller than one
             * vector, every pass on the device: where the n % VEC tail and
             * the strides are easiest to get wrong. */
            if (next(&s) % 2) {
                j.local = 1 + next(&s) % 2;
                j.groups = 1 + next(&s) % 2;
                j.access = 1 + (int)(next(&s) % 2);
                j.m = 1;
            }
        }
        j.host_mem = (ocr_host_mem)(next(&s) % 4); /* every upload path */
        ocr_kernel *k = build(dev, &j);
        if (!k) {
            printf("FAIL %s: build failed\n", j.kernel);
            replay(stdout, &j);
            ++failed;
            continue;
        }
        run_one(dev, k, &j);
        ocr_kernel_release(k);
    }
    return 0;
}

/* The library's messages, for the log of a failing case. */
static void print_message(void *user, const char *message) {
    (void)user;
    fprintf(stderr, "oclReduction: %s\n", message);
}

int main(int argc, char **argv) {
    ocr_set_message_callback(print_message, NULL);
    ocr_device_choice choice = {-1, -1, CL_DEVICE_TYPE_ALL, 0};
    ocr_device *dev = NULL;
    if (argc == 6 && !strcmp(argv[1], "matrix")) {
        if (ocr_device_open(&choice, &dev) != OCR_OK) return 3;
        if (matrix(dev, argv + 2) != 0) {
            ocr_device_close(dev);
            return 2;
        }
    } else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "random")) {
        if (ocr_device_open(&choice, &dev) != OCR_OK) return 3;
        if (random_checks(dev, strtoull(argv[2], NULL, 10), (unsigned)strtoul(argv[3], NULL, 10),
                          argc == 5 ? argv[4] : NULL) != 0) {
            ocr_device_close(dev);
            return 2;
        }
    } else {
        fprintf(stderr,
                "usage: test_kernels matrix KERNEL TYPES OPS SIZES | random SEED COUNT [KERNEL]\n");
        return 2;
    }
    ocr_device_close(dev);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}
