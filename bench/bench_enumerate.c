/* Benchmark: building and enumerating a realistic GEMM-like search space.
 *
 * The space has more than 10^8 Cartesian combinations and more than 10^6
 * valid configurations. space_build parses the constraints, groups the
 * parameters and runs the pruning search; space_enumerate then visits every
 * valid configuration in rank order. Each is timed over several repetitions
 * and the median is reported. This measures; it asserts nothing.
 *
 *   bench_enumerate [repetitions]     (default 7)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "params.h"
#include "space.h"


static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, size_t n)
{
    qsort(values, n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The visitor does a little work with every configuration so that the loop
 * cannot be optimised away. */
typedef struct tally {
    uint64_t visited;
    uint64_t checksum;
    size_t width;
} tally;

static int visit(void *ctx, const uint16_t *idx)
{
    tally *t = ctx;
    t->visited++;
    for (size_t k = 0; k < t->width; k++) t->checksum = t->checksum * 31u + idx[k];
    return 0;
}

int main(int argc, char **argv)
{
    int repetitions = argc > 1 ? atoi(argv[1]) : 7;
    if (repetitions < 1) repetitions = 1;

    /* A tiled matrix-multiply kernel: work-group shape, per-thread tile,
     * the k-loop's tile and unrolling, vector width, local-memory staging,
     * and two choices no constraint links to the others (prefetching and
     * the loop nest order), which become groups of their own. */
    static const skytune_tuning_param specs[] = {
        {"wg_x", SKYTUNE_POW2, NULL, 1, 1024, 0, NULL},
        {"wg_y", SKYTUNE_POW2, NULL, 1, 1024, 0, NULL},
        {"tile_x", SKYTUNE_RANGE, NULL, 1, 16, 1, NULL},
        {"tile_y", SKYTUNE_RANGE, NULL, 1, 16, 1, NULL},
        {"k_tile", SKYTUNE_POW2, NULL, 1, 64, 0, NULL},
        {"unroll", SKYTUNE_LIST, "1,2,4,8,16", 0, 0, 0, NULL},
        {"vector", SKYTUNE_LIST, "1,2,4,8,16", 0, 0, 0, NULL},
        {"use_local", SKYTUNE_BOOLEAN, NULL, 0, 0, 0, NULL},
        {"prefetch", SKYTUNE_BOOLEAN, NULL, 0, 0, 0, NULL},
        {"loop_order", SKYTUNE_PERMUTATION, "ijk", 0, 0, 0, NULL},
    };
    enum { n_params = sizeof specs / sizeof specs[0] };
    static const char *const constraints[] = {
        "32 <= wg_x * wg_y <= device.max_work_group_size",
        "tile_x * tile_y <= 16",
        "m % (wg_x * tile_x) == 0",
        "n % (wg_y * tile_y) == 0",
        "tile_x % vector == 0",
        "k % k_tile == 0 and unroll <= k_tile",
        "not use_local or (wg_x * tile_x + wg_y * tile_y) * k_tile * 4 <= device.local_mem_size",
    };
    enum { n_constraints = sizeof constraints / sizeof constraints[0] };
    space_constant constants[5];
    memset(constants, 0, sizeof constants);
    const char *names[] = {"m", "n", "k", "device.max_work_group_size", "device.local_mem_size"};
    const int64_t values[] = {61440, 61440, 4096, 1024, 49152};
    for (size_t c = 0; c < 5; c++) {
        constants[c].name = names[c];
        constants[c].value.type = SKYTUNE_INT;
        constants[c].value.i = values[c];
    }

    param_def params[n_params];
    skytune_error err;
    for (size_t k = 0; k < n_params; k++) {
        if (param_expand(&specs[k], &params[k], &err) != 0) {
            fprintf(stderr, "bench_enumerate: %s\n", err.message);
            return 1;
        }
    }
    space_spec spec = {params, n_params, constraints, n_constraints, constants, 5, NULL, NULL};

    double *build_times = malloc((size_t)repetitions * sizeof *build_times);
    double *enumerate_times = malloc((size_t)repetitions * sizeof *enumerate_times);
    if (!build_times || !enumerate_times) {
        fprintf(stderr, "bench_enumerate: out of memory\n");
        return 1;
    }
    uint64_t cartesian = 0, count = 0, visited = 0, checksum = 0;
    for (int r = 0; r < repetitions; r++) {
        space *s = NULL;
        double t0 = clock_monotonic_s();
        if (space_build(&spec, &s, &err) != 0) {
            fprintf(stderr, "bench_enumerate: %s\n", err.message);
            return 1;
        }
        double t1 = clock_monotonic_s();
        tally t = {0, 0, n_params};
        space_enumerate(s, visit, &t);
        double t2 = clock_monotonic_s();
        build_times[r] = t1 - t0;
        enumerate_times[r] = t2 - t1;
        cartesian = space_cartesian_count(s);
        count = space_count(s);
        visited = t.visited;
        checksum = t.checksum;
        space_free(s);
    }
    double build = median(build_times, (size_t)repetitions);
    double enumerate = median(enumerate_times, (size_t)repetitions);

    printf("bench_enumerate: GEMM-like space, %d parameters, %d constraints\n", (int)n_params,
           (int)n_constraints);
    printf("  cartesian combinations   %llu\n", (unsigned long long)cartesian);
    printf("  valid configurations     %llu (visited %llu, checksum %016llx)\n",
           (unsigned long long)count, (unsigned long long)visited, (unsigned long long)checksum);
    printf("  repetitions              %d\n", repetitions);
    printf("  space_build median       %.4f s\n", build);
    printf("  space_enumerate median   %.4f s (%.3g configurations/s)\n", enumerate,
           enumerate > 0 ? (double)count / enumerate : 0.0);
    printf("  build + enumerate        %.4f s (%.3g configurations/s)\n", build + enumerate,
           build + enumerate > 0 ? (double)count / (build + enumerate) : 0.0);

    free(build_times);
    free(enumerate_times);
    for (size_t k = 0; k < n_params; k++) param_free(&params[k]);
    return 0;
}
