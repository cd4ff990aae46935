/* Benchmark input: a Kernel Tuner cache file for a made-up kernel whose
 * search space holds exactly 10^4 configurations, so that replayed
 * evaluation can be timed on a space larger than the recorded datasets
 * (about 4,400 configurations). The times are invented but shaped like a GPU
 * kernel's; the figures strategies reach on it say nothing about real
 * kernels. This writes a file; it measures nothing.
 *
 *   synthetic_cache OUTPUT.json [seed] [stages]    (default seed 1, stages 1)
 *
 * With stages S > 1 a seventh parameter, `stages` (1 to S: say, how many
 * pipeline stages a work-group overlaps), multiplies the space to S × 10^4
 * configurations, for the search on spaces of 10^5: a smooth bowl whose
 * bottom, at S / 3, makes the optimum unique again.
 *
 * The same arguments give the same file, byte for byte (without stages,
 * the file of 10^4 that earlier figures were measured on).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcg32.h"

/* Six tuning parameters: 10 * 5 * 4 * 5 * 2 * 5 = 10,000 configurations. */
enum { n_params = 6 };
static const char *const names[n_params] = {"block_size_x", "block_size_y", "tile_size_x",
                                            "tile_size_y",  "unroll",       "vector"};
static const int counts[n_params] = {10, 5, 4, 5, 2, 5};
static const int values[n_params][10] = {
    {16, 32, 48, 64, 80, 96, 112, 128, 144, 160},
    {1, 2, 4, 8, 16},
    {1, 2, 3, 4},
    {1, 2, 3, 4, 5},
    {0, 1},
    {1, 2, 4, 8, 16},
};

static int is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

static double square(double x) { return x * x; }

/* Whether a configuration fails to compile: the work-group's output tile,
 * (bx * tx) x (by * ty) floats, is staged in local memory, and more than
 * 64 KiB of it does not fit. That is about 5% of the space, all at its
 * large corner, as on real devices. */
static int fails(const int *c) { return c[0] * c[1] * c[2] * c[3] * 4 > 65536; }

/* The noiseless time in ms: log time is a sum of main effects and pairwise
 * interactions of the kind GPU kernels show, so that the landscape has
 * structure for a search to learn, plus one narrow basin that local moves
 * reach only from next door. */
static double landscape_ms(const int *c)
{
    int bx = c[0], by = c[1], tx = c[2], ty = c[3], unroll = c[4], vector = c[5];
    double wg = (double)bx * by;
    double log_t = 0.0;
    /* Work-group size: too small leaves the multiprocessors idle, too large
     * limits the work-groups resident at once; 256 threads is the sweet spot. */
    log_t += 0.06 * square(log2(wg) - 8.0);
    /* Power-of-two widths give aligned, coalesced rows; others waste part of
     * every memory transaction. */
    if (!is_pow2(bx)) log_t += 0.12;
    /* More outputs per thread reuse loaded inputs, with diminishing returns... */
    log_t -= 0.22 * log2((double)tx * ty);
    /* ...but the tile and the vector lanes live in registers: past about 32
     * of them the kernel spills or runs fewer threads. */
    log_t += 0.30 * square(fmax(0.0, log2((double)tx * ty * vector) - 5.0));
    /* Wider loads help up to float4; float16 splits into several transactions. */
    log_t -= 0.10 * log2(fmin(vector, 4));
    if (vector == 16) log_t += 0.08;
    /* Unrolling helps a little, more with taller tiles (longer inner loops). */
    if (unroll) log_t -= 0.02 + 0.025 * ty;
    /* Vector loads along x need the tile's width to be a multiple of them. */
    if (vector > 1 && tx % vector != 0) log_t += 0.10;
    /* The narrow secondary basin: a 48 x 4 work-group with 3 x 3 tiles
     * happens to suit the hardware (say, a bank-conflict-free stride),
     * though its neighbours pay the non-power-of-two penalty. Its best is
     * about 7% slower than the optimum (256 threads, 20 outputs per thread,
     * float2), and it is one step wide, so it traps local search. */
    double d = abs(bx - 48) / 16.0 + abs(by - 4) / 2.0 + abs(tx - 3) + abs(ty - 3);
    log_t -= 0.36 * exp(-2.0 * d * d);
    return 2.0 * exp(log_t);
}

/* The stages' bowl: a tenth slower at its far ends. */
static double stages_factor(int stage, int stages)
{
    double bottom = stages / 3.0 > 1 ? stages / 3.0 : 1;
    double d = (stage - bottom) / stages;
    return exp(0.4 * d * d);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: synthetic_cache OUTPUT.json [seed] [stages]\n");
        return 2;
    }
    int stages = 1;
    if (argc > 3) {
        char *end;
        long v = strtol(argv[3], &end, 10);
        if (argv[3][0] == '\0' || *end != '\0' || v < 1 || v > 100) {
            fprintf(stderr, "synthetic_cache: stages '%s' is not a whole number from 1 to 100\n",
                    argv[3]);
            return 2;
        }
        stages = (int)v;
    }
    uint64_t seed = 1;
    if (argc > 2) {
        char *end;
        seed = strtoull(argv[2], &end, 10);
        if (argv[2][0] == '\0' || argv[2][0] == '-' || *end != '\0') {
            fprintf(stderr, "synthetic_cache: seed '%s' is not a whole number 0 or more\n",
                    argv[2]);
            return 2;
        }
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    pcg32 rng;
    pcg32_seed(&rng, seed, 54u);

    fprintf(out, "{\n\"device_name\": \"Synthetic GPU\",\n\"kernel_name\": \"synthetic_kernel\",\n");
    fprintf(out, "\"tune_params_keys\": [");
    for (int k = 0; k < n_params; k++) fprintf(out, "%s\"%s\"", k ? ", " : "", names[k]);
    if (stages > 1) fprintf(out, ", \"stages\"");
    fprintf(out, "],\n\"tune_params\": {");
    for (int k = 0; k < n_params; k++) {
        fprintf(out, "%s\"%s\": [", k ? ", " : "", names[k]);
        for (int v = 0; v < counts[k]; v++) fprintf(out, "%s%d", v ? ", " : "", values[k][v]);
        fprintf(out, "]");
    }
    if (stages > 1) {
        fprintf(out, ", \"stages\": [");
        for (int v = 1; v <= stages; v++) fprintf(out, "%s%d", v > 1 ? ", " : "", v);
        fprintf(out, "]");
    }
    fprintf(out, "},\n\"objective\": \"time\",\n\"cache\": {\n");

    /* Visit every configuration in the order Kernel Tuner lists them (the
     * last parameter fastest), one entry per line as Kernel Tuner writes. */
    int idx[n_params] = {0};
    int total = 10000 * stages;
    for (int n = 0; n < total; n++) {
        int c[n_params];
        for (int k = 0; k < n_params; k++) c[k] = values[k][idx[k]];
        int stage = n % stages + 1; /* the last parameter, the fastest */
        /* Measurement noise: at most +-2% on the time, triangular. */
        double noise = 0.02 * (pcg32_double(&rng) + pcg32_double(&rng) - 1.0);
        double compile_ms = 700.0 + 150.0 * c[4] + 25.0 * c[2] * c[3] + pcg32_bounded(&rng, 200);

        fprintf(out, "\"%d,%d,%d,%d,%d,%d", c[0], c[1], c[2], c[3], c[4], c[5]);
        if (stages > 1) fprintf(out, ",%d", stage);
        fprintf(out, "\": {");
        for (int k = 0; k < n_params; k++) fprintf(out, "\"%s\": %d, ", names[k], c[k]);
        if (stages > 1) fprintf(out, "\"stages\": %d, ", stage);
        if (fails(c)) {
            fprintf(out, "\"time\": \"CompilationFailedConfig\", \"compile_time\": %.3f, "
                         "\"benchmark_time\": 0}", compile_ms);
        } else {
            double time_ms = landscape_ms(c) * stages_factor(stage, stages) * exp(noise);
            /* Kernel Tuner's benchmark: 32 timed runs and some overhead. */
            fprintf(out, "\"time\": %.6f, \"compile_time\": %.3f, \"benchmark_time\": %.3f}",
                    time_ms, compile_ms, 32.0 * time_ms + 5.0);
        }
        fprintf(out, "%s\n", n < total - 1 ? "," : "");

        if (stage < stages) continue;
        for (int k = n_params - 1; k >= 0 && ++idx[k] == counts[k]; k--) idx[k] = 0;
    }
    fprintf(out, "}\n}\n");
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
