/* The beamformer plugin on the default OpenCL device (PoCL here):
 * configurations at the edges of the space (one beam and the largest beam
 * block per work-item, one station and the largest station block per step,
 * 1-wide work-groups, local memory on and off) verify against the CPU
 * reference for the `small` preset, for a station count that the station
 * blocks do not divide with single polarisation, and for the thesis's 100
 * beams in blocks of 25 and 100; pairs of read and write layouts (the
 * defaults, both reversed, and layouts with each other dimension
 * innermost) verify with and without local memory; verification catches one
 * corrupted input sample, a kernel that writes nothing and an input index
 * with two strides swapped; the stage module's macros are the ones the
 * engine builds with, and its kernel source built with them as #define
 * lines (as a pipeline builds it) verifies; the work counts, the problem
 * checks and the size of the space are what the plugin documents. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beamformer_stage.h"
#include "plugin_expect.h"
#include "plugin_harness.h"
#include "stage_expect.h"

static plugin_harness h;

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "beamformer", preset, settings, n_settings, 2, &err), 0, "%s",
                 err.message);
}

static void close_harness(void) { harness_close(&h); }

static void expect_ok(const char *config)
{
    measurement m;
    plugin_expect_measured_ok(&h, config, 2, &m);
    measurement_clear(&m);
}

static int is_valid(const char *config) { return plugin_is_valid(&h, config); }

/* The space's size, counted here by brute force from the rules the plugin
 * documents, with this device's limits. */
static const int64_t beam_block_list[] = {1, 2, 4, 5, 8, 10, 20, 25, 50, 100};
static const int64_t station_block_list[] = {1, 2, 4, 8, 16};
static const int64_t wg_beams_list[] = {1, 2, 4, 8};

static uint64_t brute_force_count(const skytune_values *p, const skytune_device_info *dev)
{
    const int64_t stations = skytune_int(p, "stations"), samples = skytune_int(p, "samples");
    const int64_t pols = skytune_int(p, "polarizations"), beams = skytune_int(p, "beams");
    uint64_t count = 0;
    for (size_t a = 0; a < COUNT_OF(beam_block_list); a++)
        for (size_t b = 0; b < COUNT_OF(station_block_list); b++)
            for (int64_t wt = 1; wt <= 1024; wt *= 2)
                for (size_t c = 0; c < COUNT_OF(wg_beams_list); c++)
                    for (int local = 0; local <= 1; local++) {
                        const int64_t bb = beam_block_list[a], sb = station_block_list[b];
                        const int64_t wb = wg_beams_list[c];
                        if (wt * wb > dev->max_work_group_size ||
                            wt > dev->max_work_item_sizes[0] || wb > dev->max_work_item_sizes[1] ||
                            samples % wt || beams % (bb * wb) || sb > stations ||
                            sb * bb * pols > 256)
                            continue;
                        if (local && (wb == 1 || sb * wt * pols * 8 > dev->local_mem_size))
                            continue;
                        count++;
                    }
    /* Every ordering of the input's four dimensions with every ordering of
     * the output's: 4! x 4!. */
    return count * 24 * 24;
}

/* ------------------------------------------------------------ small preset */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(beamformer_small, .init = open_small, .fini = close_harness, .timeout = 600);

Test(beamformer_small, edge_configurations_verify)
{
    /* small: 8 stations, 4 channels, 64 samples, 2 polarisations, 10 beams. */
    /* Everything at its smallest: one beam, one station, one work-item. */
    expect_ok("beam_block=1,station_block=1,wg_time=1,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
    /* The largest blocks: every beam in one work-item, every station per step,
     * every sample in one work-group. */
    expect_ok("beam_block=10,station_block=8,wg_time=64,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
    /* Local memory with 1-wide time and the largest station block. */
    expect_ok("beam_block=5,station_block=8,wg_time=1,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP");
    /* Local memory, one beam per work-item, the whole time range staged. */
    expect_ok("beam_block=1,station_block=1,wg_time=64,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP");
    /* The same middle configuration both ways. */
    expect_ok("beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=0,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=2,station_block=2,wg_time=8,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
}

Test(beamformer_small, constraints_exclude_what_cannot_run)
{
    /* 4 beams per work-item do not divide 10 beams. */
    cr_assert_eq(is_valid("beam_block=4,station_block=1,wg_time=1,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP"), 0);
    /* Nor do 2 rows of 10 beams. */
    cr_assert_eq(is_valid("beam_block=10,station_block=1,wg_time=1,wg_beams=2,use_local=0,in_layout=CSTP,out_layout=CBTP"), 0);
    /* 128 work-items along time do not divide 64 samples. */
    cr_assert_eq(is_valid("beam_block=1,station_block=1,wg_time=128,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP"), 0);
    /* A block of 16 stations is larger than the 8 there are. */
    cr_assert_eq(is_valid("beam_block=1,station_block=16,wg_time=1,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP"), 0);
    /* Staging for a single row of beams reuses nothing. */
    cr_assert_eq(is_valid("beam_block=1,station_block=1,wg_time=1,wg_beams=1,use_local=1,in_layout=CSTP,out_layout=CBTP"), 0);
    cr_assert_eq(is_valid("beam_block=5,station_block=8,wg_time=64,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP"), 1);
}

Test(beamformer_small, space_size_matches_the_documented_rules)
{
    const uint64_t count = space_count(h.space);
    cr_assert_eq(count, brute_force_count(&h.problem.values, &h.device->info), "%llu",
                 (unsigned long long)count);
    /* A couple of hundred kernel configurations for each of 576 pairs of
     * layouts. */
    cr_assert(count >= 100 * 576 && count <= 300 * 576,
              "small should be a couple of hundred times 576, is %llu", (unsigned long long)count);
}

Test(beamformer_small, random_configurations_all_verify)
{
    plugin_expect_sample_verifies(&h, 2012, 7, 6, expect_ok);
}

/* ------------------------------------------ verification, driven directly */

typedef cl_mem (*input_buffer_fn)(const void *state);

typedef struct direct_run {
    void *state, *launch;
    cl_program program;
    skytune_named_value items[16];
    skytune_values config;
} direct_run;

/* setup, reference, build (the plugin's kernel when source is NULL), prepare.
 * The run is allocated, since the configuration's values point into it. */
static direct_run *direct_open(const char *config_text, const char *source)
{
    const skytune_plugin *pl = h.plugin.desc;
    skytune_error err = {0};
    direct_run *run = calloc(1, sizeof *run);
    cr_assert_not_null(run);
    cr_assert_lt(space_param_count(h.space), 16);
    cr_assert_eq(harness_config(&h, config_text, run->items, &run->config, &err), 0, "%s",
                 err.message);
    skytune_setup_context ctx = harness_setup_context(&h);
    cr_assert_eq(pl->setup(&ctx, &run->state, &err), 0, "%s", err.message);
    cr_assert_eq(pl->reference(run->state, &err), 0, "%s", err.message);
    cr_assert_eq(harness_build(&h, &run->config, source, NULL, &run->program, &err), 0, "%s",
                 err.message);
    cr_assert_eq(pl->prepare(run->state, run->program, &run->config, &run->launch, &err), 0,
                 "%s", err.message);
    return run;
}

/* Poison the output, run once, verify (after read_back). */
static skytune_verify_report direct_verify(const direct_run *run)
{
    const skytune_plugin *pl = h.plugin.desc;
    skytune_error err = {0};
    skytune_verify_report report;
    memset(&report, 0, sizeof report);
    cr_assert_eq(pl->clear_outputs(run->state, h.queue, &err), 0, "%s", err.message);
    cr_assert_eq(harness_run_once(&h, run->launch, &err), 0, "%s", err.message);
    cr_assert_eq(harness_verify_run(&h, run->state, run->launch, &run->config, &report, &err),
                 0, "%s", err.message);
    return report;
}

static void direct_close(direct_run *run)
{
    h.plugin.desc->release(run->launch);
    clReleaseProgram(run->program);
    h.plugin.desc->teardown(run->state);
    free(run);
}

Test(beamformer_small, verification_catches_a_corrupted_sample)
{
    input_buffer_fn input_buffer =
        (input_buffer_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_beamformer_input_buffer");
    cr_assert_not_null(input_buffer, "the plugin exports skytune_beamformer_input_buffer");

    direct_run *run = direct_open(
        "beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1,in_layout=CSTP,"
        "out_layout=CBTP",
        NULL);
    skytune_verify_report good = direct_verify(run);
    cr_assert_eq(good.passed, 1, "max abs error %g", good.max_abs_error);
    cr_assert_eq(good.first_mismatch, -1);

    /* After the reference: add 4 to the real part of the sample of channel
     * 2, station 3, time 17, polarisation 1 (layout
     * [channel][station][time][polarisation], 8 stations, 64 samples, 2
     * polarisations). */
    const size_t sample = ((2 * 8 + 3) * 64 + 17) * 2 + 1;
    float value[2];
    cl_mem input = input_buffer(run->state);
    cr_assert_not_null(input);
    cr_assert_eq(clEnqueueReadBuffer(h.queue, input, CL_TRUE, sample * sizeof value,
                                     sizeof value, value, 0, NULL, NULL), CL_SUCCESS);
    value[0] += 4.0f;
    cr_assert_eq(clEnqueueWriteBuffer(h.queue, input, CL_TRUE, sample * sizeof value,
                                      sizeof value, value, 0, NULL, NULL), CL_SUCCESS);

    /* Every beam's output at (channel 2, time 17, polarisation 1) moves by
     * w * 4 with |w| = 1: at least one of its two parts by 4 / sqrt(2) or
     * more, far beyond the tolerance (2 * 8 * 10 * 2^-24); nothing else
     * changes. The first is beam 0's (layout [channel][beam][time][pol], 10
     * beams); the report counts floats, real and imaginary parts apart. */
    skytune_verify_report bad = direct_verify(run);
    cr_assert_eq(bad.passed, 0);
    cr_assert_geq(bad.first_mismatch, 0);
    const int64_t first_output = ((2 * 10 + 0) * 64 + 17) * 2 + 1;
    cr_assert_eq(bad.first_mismatch / 2, first_output, "first mismatch at float %lld",
                 (long long)bad.first_mismatch);
    cr_assert(bad.mismatches >= 10 && bad.mismatches <= 20, "%lld mismatches",
              (long long)bad.mismatches);
    cr_assert_gt(bad.max_abs_error, 2.0);
    direct_close(run);
}

static const char *const writes_nothing =
    "__kernel void beamform(__global const float2 *input, __global const float2 *weights,\n"
    "                       __global float2 *output)\n"
    "{\n"
    "}\n";

Test(beamformer_small, verification_catches_a_kernel_that_writes_nothing)
{
    direct_run *run = direct_open(
        "beam_block=1,station_block=1,wg_time=16,wg_beams=1,use_local=0,in_layout=CSTP,"
        "out_layout=CBTP",
        writes_nothing);
    skytune_verify_report bad = direct_verify(run);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    /* 4 channels x 10 beams x 64 samples x 2 polarisations, 2 floats each. */
    cr_assert_eq(bad.mismatches, 4 * 10 * 64 * 2 * 2);
    direct_close(run);
}

/* ------------------------------------------------------------- layouts */

/* Pairs of read and write layouts: the defaults, both reversed, and layouts
 * that put the station, the channel, the time and the beam innermost, each
 * once with the samples staged in local memory (whose copy then gathers
 * instead of copying one span) and once read from global memory. */
Test(beamformer_small, pairs_of_layouts_verify)
{
    static const char *const kernels[] = {
        "beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1",
        "beam_block=2,station_block=8,wg_time=8,wg_beams=1,use_local=0",
    };
    static const char *const layouts[][2] = {
        {"CSTP", "CBTP"}, {"PTSC", "PTBC"}, {"TPCS", "BPTC"}, {"PSTC", "CPTB"}, {"CTPS", "TCBP"},
    };
    for (size_t k = 0; k < COUNT_OF(kernels); k++)
        for (size_t l = 0; l < COUNT_OF(layouts); l++) {
            char config[256];
            snprintf(config, sizeof config, "%s,in_layout=%s,out_layout=%s", kernels[k],
                     layouts[l][0], layouts[l][1]);
            expect_ok(config);
        }
}

/* The stage module's list for a configuration holds the parameters with the
 * values the engine passes and the strides `defines` adds: the plugin's
 * build options contain every one of them. */
Test(beamformer_small, the_stage_macros_are_the_build_options)
{
    const char *config_text =
        "beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1,in_layout=TPCS,"
        "out_layout=BPTC";
    stage_macros macros;
    stage_macros_for(&h, config_text, beamformer_macros_of_values, &macros);
    const size_t derived = stage_expect_macros_in_build_options(&h, config_text, &macros);
    /* TPCS over 8 stations, 4 channels, 64 samples, 2 polarizations; BPTC
     * over 10 beams, 4 channels, 64 samples, 2 polarizations. */
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_S"), "1");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_C"), "8");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_P"), "32");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_T"), "64");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_C"), "1");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_T"), "4");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_P"), "256");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_B"), "512");
    cr_expect_eq(derived, 8);
    cr_expect_eq(macros.count - derived, 10);
}

/* What a pipeline does: the kernel source as a section between #define and
 * #undef lines of the stage's macros, built with no -D at all. */
Test(beamformer_small, the_kernel_built_from_its_macro_section_verifies)
{
    const char *config_text =
        "beam_block=5,station_block=2,wg_time=8,wg_beams=2,use_local=1,in_layout=SCTP,"
        "out_layout=CTBP";
    stage_macros macros;
    stage_macros_for(&h, config_text, beamformer_macros_of_values, &macros);
    skytune_verify_report report = stage_verify_section(&h, config_text, &macros, beamformer_cl_source);
    cr_expect_eq(report.passed, 1, "max abs error %g", report.max_abs_error);
}

/* ------------------------------------------------ formulas, counts, checks */

Test(beamformer_small, work_counts_match_a_hand_count)
{
    /* 3 stations, 2 channels, 4 samples, 2 polarisations, 5 beams:
     * 5 x 2 x 4 x 2 = 80 output values, each 3 complex multiply-adds of 8
     * flops: 1920 flops. Bytes: 2 x 3 x 4 x 2 = 48 input samples,
     * 2 x 5 x 3 = 30 weights and 80 outputs, 8 bytes each: 1264. */
    const char *tiny[] = {"stations=3", "channels=2", "samples=4", "polarizations=2", "beams=5"};
    problem p;
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, "small", tiny, COUNT_OF(tiny), &p, &err), 0,
                 "%s", err.message);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 1920.0, 1e-9);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 1264.0, 1e-9);
    problem_free(&p);

    /* The thesis's setup: 8 x 100 x 256 x 512 x 2 x 64 = 13421772800 flops. */
    problem thesis;
    cr_assert_eq(problem_resolve(h.plugin.desc, "thesis", NULL, 0, &thesis, &err), 0, "%s",
                 err.message);
    cr_assert_float_eq(h.plugin.desc->flops(&thesis.values, NULL), 13421772800.0, 1e-3);
    problem_free(&thesis);
}

Test(beamformer_small, problem_checks_name_the_parameter)
{
    static const struct {
        const char *setting, *expected;
    } cases[] = {
        {"stations=0", "stations must be at least 1"},
        {"channels=0", "channels must be at least 1"},
        {"samples=0", "samples must be at least 1"},
        {"beams=0", "beams must be at least 1"},
        {"polarizations=0", "polarizations must be 1 or 2"},
        {"polarizations=3", "polarizations must be 1 or 2"},
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

/* ------------------- stations not divisible by the block, one polarisation */

static void open_odd(void)
{
    /* 7 stations: blocks of 2 and 4 end with a partial step. 48 samples
     * (work-groups of 1 to 16 along time), 20 beams (blocks of 4 and rows
     * of 4 become valid), a single polarisation. */
    static const char *const odd[] = {"stations=7", "samples=48", "polarizations=1",
                                      "beams=20"};
    open_with("small", odd, COUNT_OF(odd));
}

TestSuite(beamformer_odd, .init = open_odd, .fini = close_harness, .timeout = 600);

Test(beamformer_odd, partial_station_steps_verify)
{
    expect_ok("beam_block=4,station_block=4,wg_time=16,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=5,station_block=4,wg_time=16,wg_beams=4,use_local=1,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=2,station_block=2,wg_time=1,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=20,station_block=2,wg_time=8,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
    cr_assert_eq(is_valid("beam_block=1,station_block=8,wg_time=1,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP"), 0);
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ------------------------------------------------- the thesis's beam count */

static void open_hundred_beams(void)
{
    /* The thesis's 100 beams over a shortened observation. */
    static const char *const hundred[] = {"stations=5", "channels=2", "samples=32", "beams=100"};
    open_with("thesis", hundred, COUNT_OF(hundred));
}

TestSuite(beamformer_hundred_beams, .init = open_hundred_beams, .fini = close_harness,
          .timeout = 600);

Test(beamformer_hundred_beams, the_thesis_beam_blocks_verify)
{
    /* The thesis's CPU choice, one block of all 100 beams, and its GPU
     * choice, blocks of 10 beams. */
    expect_ok("beam_block=100,station_block=1,wg_time=32,wg_beams=1,use_local=0,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=10,station_block=4,wg_time=32,wg_beams=2,use_local=1,in_layout=CSTP,out_layout=CBTP");
    expect_ok("beam_block=25,station_block=2,wg_time=8,wg_beams=4,use_local=1,in_layout=CSTP,out_layout=CBTP");
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ------------------------------------- as many stations as channels */

static void open_square(void)
{
    static const char *const square[] = {"stations=4", "channels=4", "samples=32", "beams=4"};
    open_with("small", square, COUNT_OF(square));
}

TestSuite(beamformer_square, .init = open_square, .fini = close_harness, .timeout = 600);

/* The plugin's kernel reading the input from global memory with the
 * station's and the channel's strides swapped: with 4 stations and 4 channels every read
 * stays in the buffer, at another station's and channel's sample. */
Test(beamformer_square, verification_catches_an_input_index_with_two_strides_swapped)
{
    const char *config =
        "beam_block=2,station_block=2,wg_time=8,wg_beams=2,use_local=0,in_layout=TSCP,"
        "out_layout=CBTP";
    char *intact = plugin_source_with("beamformer", NULL, NULL, 0);
    skytune_verify_report good = plugin_verify_with_kernel(&h, config, intact, NULL);
    cr_assert_eq(good.passed, 1, "the source as it is: max abs error %g", good.max_abs_error);
    free(intact);
    char *swapped = plugin_source_with(
        "beamformer",
        (const char *[]){"input + channel * IN_STRIDE_C", "my_samples[station * IN_STRIDE_S"},
        (const char *[]){"input + channel * IN_STRIDE_S", "my_samples[station * IN_STRIDE_C"}, 2);
    skytune_verify_report bad = plugin_verify_with_kernel(&h, config, swapped, NULL);
    free(swapped);
    cr_assert_eq(bad.passed, 0);
    cr_assert_gt(bad.mismatches, 0);
}

/* ------------------------------------------- read_back and reference_data */

#define READ_BACK_CONFIG                                                                  \
    "beam_block=5,station_block=4,wg_time=16,wg_beams=2,use_local=1,in_layout=CSTP,"     \
    "out_layout=CBTP"

Test(beamformer_small, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(&h, READ_BACK_CONFIG);
}

/* The beams; the tolerance follows from the problem alone. */
Test(beamformer_small, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(&h, READ_BACK_CONFIG), 1);
}
