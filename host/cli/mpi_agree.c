/* mpi_agree.c - --mpi: before anything else the ranks check that they were
 * given the same options wherever the options shape the data or the run (a
 * launcher's MPMD syntax, `-np 1 prog -s 100 : -np 1 prog -s 200`, or a
 * script, can give them different ones). Ranks that disagreed used to print
 * a wrong result (different -s, --type, --seed, --op) or wait forever for
 * each other (different -r: their barriers no longer matched). Each rank
 * hashes each option; two MPI_Allreduce (min and max per option) tell every
 * rank which option differs, so all of them stop with exit 2 and rank 0 says
 * which. The device choice (-p, -d, -t), --format and --timeout may differ. */
#include "cli.h"

#include <mpi.h>
#include <stddef.h>
#include <string.h>

typedef enum { F_NUM, F_STR, F_KERNEL } field_kind;

/* The options that must agree: a row per cli_options field. */
static const struct {
    const char *name;
    size_t off, size;
    field_kind kind;
} shaped[] = {
#define NUM(n, f)                                                                                  \
    {                                                                                              \
        .name = n, .off = offsetof(cli_options, f), .size = sizeof(((cli_options *)0)->f),         \
        .kind = F_NUM                                                                              \
    }
#define STR(n, f)                                                                                  \
    { .name = n, .off = offsetof(cli_options, f), .kind = F_STR }
    {.name = "-n (--kernel)", .off = offsetof(cli_options, kernel), .kind = F_KERNEL},
    NUM("-s (--size)", size),
    NUM("-M (--threshold)", m),
    NUM("-r (--repeat)", repeats),
    NUM("--seed", seed),
    NUM("--type", type),
    NUM("--op", op),
    NUM("--data", data),
    NUM("-w (--local-size)", local_size),
    NUM("-g (--groups)", groups),
    NUM("--access", access),
    NUM("--host-mem", host_mem),
    STR("--kernel-dir", kernel_dir),
    STR("--kernel-file", kernel_file),
    STR("--kernel-name", kernel_name),
    NUM("--elems-per-group", elems_per_group),
    STR("--build-options", build_options),
#undef NUM
#undef STR
};
enum { NSHAPED = sizeof shaped / sizeof shaped[0] };

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    for (const unsigned char *c = p; n--; ++c)
        h = (h ^ *c) * 0x100000001b3ull;
    return h;
}

/* One option's value as a hash; strings by content, NULL apart from "". */
static uint64_t field_hash(const cli_options *o, size_t i) {
    const char *base = (const char *)o + shaped[i].off;
    uint64_t h = 0xcbf29ce484222325ull;
    if (shaped[i].kind == F_NUM) return fnv(h, base, shaped[i].size);
    const char *s = *(const char *const *)base;
    if (shaped[i].kind == F_KERNEL) /* "6" is "reduce6"; a --kernel-file run's -n, the default */
        s = o->spec ? o->spec->name : s ? s : CLI_DEFAULT_KERNEL;
    return s ? fnv(h ^ 1, s, strlen(s)) : h;
}

ocr_status cli_mpi_agree(const cli_options *o, int rank) {
    uint64_t mine[NSHAPED], lo[NSHAPED], hi[NSHAPED];
    for (size_t i = 0; i < NSHAPED; ++i)
        mine[i] = field_hash(o, i);
    MPI_Allreduce(mine, lo, NSHAPED, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, NSHAPED, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    for (size_t i = 0; i < NSHAPED; ++i)
        if (lo[i] != hi[i]) {
            if (rank == 0)
                fprintf(stderr,
                        "oclReduction: --mpi: the ranks were given different %s: every rank "
                        "must get the same options that shape the data or the run (only -p, "
                        "-d, -t, --format and --timeout may differ)\n",
                        shaped[i].name);
            return OCR_USAGE;
        }
    return OCR_OK;
}
