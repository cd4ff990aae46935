/* The dedispersion plugin on the default OpenCL device (PoCL here):
 * configurations at the edges of the space (1-wide work-groups, local
 * memory on and off, unroll 1 and 16, several outputs per work-item, tiles
 * covering the whole problem) verify against the CPU reference, for the
 * `small` preset, with zero_dm, and with LOFAR's large delays and sample
 * lists that are not powers of two; verification catches one missing
 * channel in one output, an off-by-one shift and a kernel that writes
 * nothing; the delay formula, the work counts, the problem checks and the
 * size of the space are what the plugin documents. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_expect.h"
#include "plugin_harness.h"

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "dedispersion", preset, settings, n_settings, 2, &err), 0,
                 "%s", err.message);
}

static void close_harness(void) { harness_close(&h); }

static void expect_ok(const char *config)
{
    measurement m;
    plugin_expect_measured_ok(&h, config, 2, &m);
    measurement_clear(&m);
}

static int is_valid(const char *config) { return plugin_is_valid(&h, config); }

/* ------------------------------------------------------------ small preset */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(dedispersion_small, .init = open_small, .fini = close_harness, .timeout = 600);

Test(dedispersion_small, edge_configurations_verify)
{
    /* small: 64 channels, 256 samples, 8 DMs. */
    expect_ok("wi_samples=16,wi_dms=1,el_samples=1,el_dms=1,local_mem=0,unroll=1");
    /* 1-wide along DMs, local memory on, unroll at its largest, 8 DMs per work-item. */
    expect_ok("wi_samples=16,wi_dms=1,el_samples=1,el_dms=8,local_mem=1,unroll=16");
    /* One work-group covers every sample and every DM. */
    expect_ok("wi_samples=256,wi_dms=8,el_samples=1,el_dms=1,local_mem=1,unroll=4");
    expect_ok("wi_samples=256,wi_dms=8,el_samples=1,el_dms=1,local_mem=0,unroll=4");
    /* Tile of 16 x 16 samples by 8 DMs, staged. */
    expect_ok("wi_samples=16,wi_dms=8,el_samples=16,el_dms=1,local_mem=1,unroll=1");
    /* Several outputs per work-item in both directions, both ways. */
    expect_ok("wi_samples=32,wi_dms=2,el_samples=4,el_dms=2,local_mem=0,unroll=4");
    expect_ok("wi_samples=32,wi_dms=2,el_samples=4,el_dms=2,local_mem=1,unroll=4");
    /* At the code-size limit: 16 channels x 16 outputs unrolled. */
    expect_ok("wi_samples=16,wi_dms=1,el_samples=16,el_dms=1,local_mem=0,unroll=16");
}

Test(dedispersion_small, constraints_exclude_what_cannot_run)
{
    /* 25 does not divide 256 samples. */
    cr_assert_eq(is_valid("wi_samples=25,wi_dms=1,el_samples=1,el_dms=1,local_mem=0,unroll=1"), 0);
    /* A 16-DM tile does not divide 8 DMs. */
    cr_assert_eq(is_valid("wi_samples=16,wi_dms=4,el_samples=1,el_dms=4,local_mem=0,unroll=1"), 0);
    /* Staging a one-DM tile reuses nothing. */
    cr_assert_eq(is_valid("wi_samples=16,wi_dms=1,el_samples=1,el_dms=1,local_mem=1,unroll=1"), 0);
    /* 16 x 16 x 2 = 512 unrolled additions: past the code-size limit. */
    cr_assert_eq(is_valid("wi_samples=16,wi_dms=1,el_samples=16,el_dms=2,local_mem=0,unroll=16"),
                 0);
    cr_assert_eq(is_valid("wi_samples=16,wi_dms=1,el_samples=16,el_dms=1,local_mem=0,unroll=16"),
                 1);
}

/* The space's size, counted here by brute force from the rules the plugin
 * documents, with this device's limits. */
static const int64_t wi_samples_list[] = {16, 25, 32, 50, 64, 100, 125, 128, 250, 256, 500, 512,
                                          1000, 1024};
static const int64_t wi_dms_list[] = {1, 2, 4, 8, 16, 32};
static const int64_t el_samples_list[] = {1, 2, 4, 5, 8, 10, 16, 20, 25};
static const int64_t el_dms_list[] = {1, 2, 4, 8};
static const int64_t unroll_list[] = {1, 4, 16};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t brute_force_count(const skytune_values *p, const skytune_device_info *dev)
{
    const int64_t channels = skytune_int(p, "channels"), samples = skytune_int(p, "samples");
    const int64_t dms = skytune_int(p, "dms");
    const double f0 = skytune_float(p, "min_freq"), fh = skytune_float(p, "max_freq");
    const double per_dm = 4150.0 * (1.0 / (f0 * f0) - 1.0 / (fh * fh)) *
                          (double)skytune_int(p, "samples_per_second");
    const double step = skytune_float(p, "dm_step");
    const int zero_dm = skytune_int(p, "zero_dm") != 0;
    uint64_t count = 0;
    for (size_t a = 0; a < COUNT_OF(wi_samples_list); a++)
        for (size_t b = 0; b < COUNT_OF(wi_dms_list); b++)
            for (size_t c = 0; c < COUNT_OF(el_samples_list); c++)
                for (size_t d = 0; d < COUNT_OF(el_dms_list); d++)
                    for (int local = 0; local <= 1; local++)
                        for (size_t e = 0; e < COUNT_OF(unroll_list); e++) {
                            const int64_t ws = wi_samples_list[a], wd = wi_dms_list[b];
                            const int64_t es = el_samples_list[c], ed = el_dms_list[d];
                            const int64_t u = unroll_list[e];
                            if (ws * wd > dev->max_work_group_size ||
                                ws > dev->max_work_item_sizes[0] ||
                                wd > dev->max_work_item_sizes[1] || samples % (ws * es) ||
                                dms % (wd * ed) || channels % u || u * es * ed > 256)
                                continue;
                            if (local) {
                                if (wd * ed == 1) continue;
                                const int64_t spread =
                                    zero_dm || step == 0.0
                                        ? 0
                                        : (int64_t)floor(per_dm * step * (double)(wd * ed - 1)) + 2;
                                if ((double)u * (double)(ws * es + spread) * 4.0 >
                                    (double)dev->local_mem_size)
                                    continue;
                            }
                            count++;
                        }
    return count;
}

Test(dedispersion_small, space_size_matches_the_documented_rules)
{
    const uint64_t count = space_count(h.space);
    cr_assert_eq(count, brute_force_count(&h.problem.values, &h.device->info));
    cr_assert(count >= 200 && count <= 1000, "small should be a few hundred, is %llu",
              (unsigned long long)count);
}

Test(dedispersion_small, random_configurations_all_verify)
{
    plugin_expect_sample_verifies(&h, 2014, 7, 8, expect_ok);
}

/* A correct one-output-per-work-item kernel, except that output (3, 17)
 * misses the last channel. */
static const char *const missing_channel =
    "__kernel void dedisperse(__global const float *input, __global const int *shifts,\n"
    "                         __global float *output)\n"
    "{\n"
    "    const int s = get_global_id(0), d = get_global_id(1);\n"
    "    const int last = (d == 3 && s == 17) ? channels - 1 : channels;\n"
    "    float sum = 0.0f;\n"
    "    for (int c = 0; c < last; c++)\n"
    "        sum += input[c * IN_STRIDE + s + shifts[d * channels + c]];\n"
    "    output[d * samples + s] = sum;\n"
    "}\n";

/* Channel 5 read one sample late everywhere. */
static const char *const shift_off_by_one =
    "__kernel void dedisperse(__global const float *input, __global const int *shifts,\n"
    "                         __global float *output)\n"
    "{\n"
    "    const int s = get_global_id(0), d = get_global_id(1);\n"
    "    float sum = 0.0f;\n"
    "    for (int c = 0; c < channels; c++)\n"
    "        sum += input[c * IN_STRIDE + s + shifts[d * channels + c] + (c == 5)];\n"
    "    output[d * samples + s] = sum;\n"
    "}\n";

static const char *const writes_nothing =
    "__kernel void dedisperse(__global const float *input, __global const int *shifts,\n"
    "                         __global float *output)\n"
    "{\n"
    "}\n";

/* Drive the plugin's callbacks with `source` as the kernel, one output per
 * work-item: setup, reference, build, prepare, poison, run, verify. */
static skytune_verify_report verify_with_kernel(const char *source)
{
    return plugin_verify_with_kernel(
        &h, "wi_samples=16,wi_dms=1,el_samples=1,el_dms=1,local_mem=0,unroll=1", source, NULL);
}

Test(dedispersion_small, verification_catches_one_missing_channel)
{
    /* The plugin's kernel through the same path passes. */
    skytune_verify_report good = verify_with_kernel(NULL);
    cr_assert_eq(good.passed, 1);
    cr_assert_eq(good.mismatches, 0);

    /* Every other output of the naive kernel is right, so exactly one
     * element fails: one channel of 64 is 1/64 of a sum, far above the
     * tolerance (2 * 64 * 2^-24 relative). */
    skytune_verify_report bad = verify_with_kernel(missing_channel);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 3 * 256 + 17);
    cr_assert_eq(bad.mismatches, 1);
}

Test(dedispersion_small, verification_catches_an_off_by_one_shift)
{
    skytune_verify_report bad = verify_with_kernel(shift_off_by_one);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    cr_assert_gt(bad.mismatches, 8 * 256 * 9 / 10, "%lld", (long long)bad.mismatches);
}

Test(dedispersion_small, verification_catches_a_kernel_that_writes_nothing)
{
    skytune_verify_report bad = verify_with_kernel(writes_nothing);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    cr_assert_eq(bad.mismatches, 8 * 256);
}

/* ------------------------------------------------ formulas, counts, checks */

typedef int64_t (*delay_fn)(const skytune_values *, int64_t, int64_t);

static void resolve(const char *preset, const char *const *settings, size_t n, problem *p)
{
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, preset, settings, n, p, &err), 0, "%s",
                 err.message);
}

Test(dedispersion_small, delay_formula_matches_hand_computation)
{
    delay_fn delay = (delay_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_dedispersion_delay");
    cr_assert_not_null(delay, "the plugin exports skytune_dedispersion_delay");

    problem apertif;
    resolve("apertif", NULL, 0, &apertif);
    /* Channel 0 at 1420 MHz, DM 255 x 0.25 = 63.75:
     * 1/1420^2 - 1/1720^2 = 4.95933e-7 - 3.38021e-7 = 1.57913e-7;
     * x 4150 x 63.75 = 0.0417778 s; x 20000 samples/s = 835.56 -> 836. */
    cr_assert_eq(delay(&apertif.values, 0, 255), 836);
    /* Channel 512 starts at 1420 + 512 x 300/1024 = 1570 MHz (lower edge):
     * 1/1570^2 - 1/1720^2 = 4.05696e-7 - 3.38021e-7 = 6.7675e-8 -> 358.09 -> 358. */
    cr_assert_eq(delay(&apertif.values, 512, 255), 358);
    /* Channel 1023 at 1719.707 MHz: 0.609 samples -> 1. */
    cr_assert_eq(delay(&apertif.values, 1023, 255), 1);
    /* DM 0.25 in channel 0: 3.28 -> 3; DM 0: nothing. */
    cr_assert_eq(delay(&apertif.values, 0, 1), 3);
    cr_assert_eq(delay(&apertif.values, 0, 0), 0);
    problem_free(&apertif);

    problem lofar;
    resolve("lofar", NULL, 0, &lofar);
    /* 1/138^2 - 1/145^2 = 5.25100e-5 - 4.75624e-5 = 4.94762e-6;
     * x 4150 x 63.75 x 200000 = 261787.3 -> 261787. */
    cr_assert_eq(delay(&lofar.values, 0, 255), 261787);
    problem_free(&lofar);

    const char *zero[] = {"zero_dm=true"};
    problem flat;
    resolve("apertif", zero, 1, &flat);
    cr_assert_eq(delay(&flat.values, 0, 255), 0);
    problem_free(&flat);
}

Test(dedispersion_small, work_counts_match_a_hand_count)
{
    /* 3 DMs x 4 samples, 2 channels: 24 additions; 24 floats read and 12
     * written, 4 bytes each: 144 bytes. */
    const char *tiny[] = {"channels=2", "samples=4", "dms=3"};
    problem p;
    resolve("small", tiny, 3, &p);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 24.0, 1e-12);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 144.0, 1e-12);
    problem_free(&p);
}

Test(dedispersion_small, problem_checks_name_the_parameter)
{
    static const struct {
        const char *setting, *expected;
    } cases[] = {
        {"channels=0", "channels must be at least 1"},
        {"samples=0", "samples must be at least 1"},
        {"dms=0", "dms must be at least 1"},
        {"min_freq=0", "min_freq must be greater than 0"},
        {"max_freq=1400", "max_freq must be greater than min_freq"},
        {"dm_step=-1", "dm_step must be at least 0"},
        {"first_dm=-1", "first_dm must be at least 0"},
        {"samples_per_second=0", "samples_per_second must be at least 1"},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        problem p;
        skytune_error err = {0};
        cr_assert_neq(problem_resolve(h.plugin.desc, "small", &cases[k].setting, 1, &p, &err), 0,
                      "%s was accepted", cases[k].setting);
        cr_expect(strstr(err.message, cases[k].expected) != NULL, "%s: %s", cases[k].setting,
                  err.message);
    }
}

/* ------------------------------------------------------------------ zero DM */

static void open_zero_dm(void)
{
    static const char *const zero[] = {"zero_dm=true"};
    open_with("small", zero, 1);
}

TestSuite(dedispersion_zero_dm, .init = open_zero_dm, .fini = close_harness, .timeout = 600);

Test(dedispersion_zero_dm, every_dm_reads_the_same_input)
{
    expect_ok("wi_samples=16,wi_dms=1,el_samples=1,el_dms=1,local_mem=0,unroll=1");
    expect_ok("wi_samples=64,wi_dms=8,el_samples=1,el_dms=1,local_mem=1,unroll=16");
    expect_ok("wi_samples=32,wi_dms=2,el_samples=2,el_dms=4,local_mem=1,unroll=4");
    /* No spread to stage: the footprint is the tile alone. */
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ---------------------------------------- LOFAR delays, non-power-of-2 tiles */

static void open_lofar_like(void)
{
    /* LOFAR's band and rate, shortened: 32 channels, 1000 samples, 4 DMs.
     * Neighbouring DMs are 1027 samples apart in channel 0, so a staged tile
     * spans thousands of samples. */
    static const char *const lofar[] = {"samples=1000", "dms=4"};
    open_with("lofar", lofar, 2);
}

TestSuite(dedispersion_lofar, .init = open_lofar_like, .fini = close_harness, .timeout = 600);

Test(dedispersion_lofar, large_delays_and_multiples_of_five)
{
    expect_ok("wi_samples=25,wi_dms=2,el_samples=8,el_dms=2,local_mem=1,unroll=4");
    expect_ok("wi_samples=25,wi_dms=2,el_samples=8,el_dms=2,local_mem=0,unroll=4");
    expect_ok("wi_samples=125,wi_dms=4,el_samples=1,el_dms=1,local_mem=1,unroll=16");
    expect_ok("wi_samples=1000,wi_dms=1,el_samples=1,el_dms=4,local_mem=1,unroll=1");
    expect_ok("wi_samples=50,wi_dms=1,el_samples=20,el_dms=1,local_mem=0,unroll=1");
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ------------------------------------------------ problems too large to index */

/* 64 channels × 300 million samples (plus the largest delay) is about 1.9e10
 * inputs: beyond what the kernel's int indices reach. The plugin's
 * check_problem refuses it before the space is built and anything is
 * allocated, naming the array and the parameters that shrink it, and the
 * harness (like the engine) reports it as a problem error. */
Test(dedispersion_too_large, the_problem_check_names_the_array_that_cannot_be_indexed,
     .timeout = 600)
{
    static const char *const huge[] = {"samples=300000000"};
    plugin_harness big;
    skytune_error err = {0};
    cr_assert_neq(harness_open(&big, "dedispersion", "small", huge, 1, 2, &err), 0);
    cr_assert(strstr(err.message, "the input would hold 192000") &&
                  strstr(err.message, "elements; the kernel indexes at most 2147483647") &&
                  strstr(err.message, "(reduce channels, samples, dms or the DM range)"),
              "%s", err.message);
}

/* ------------------------------------------- read_back and reference_data */

Test(dedispersion_small, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(
        &h, "wi_samples=16,wi_dms=1,el_samples=1,el_dms=8,local_mem=1,unroll=16");
}

/* The dedispersed series, and nothing else. */
Test(dedispersion_small, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(
                     &h, "wi_samples=16,wi_dms=1,el_samples=1,el_dms=8,local_mem=1,unroll=16"),
                 1);
}
