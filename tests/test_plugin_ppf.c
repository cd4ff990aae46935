/* The polyphase filter bank plugin on the default OpenCL device (PoCL here),
 * with clFFT for the FFT: configurations at the edges of the space (the
 * smallest work-groups, one work-group for everything, both polarizations per
 * work-item or one, the register limit) verify against the CPU reference for
 * the `small` preset, with one tap, with 16-bit samples and with a transform
 * large enough for the reference's radix-2 path; each measurement reports a
 * "fir" and an "fft" part whose medians add up to the total; the FIR output
 * written in several layouts verifies with the FFT (layouts ending in C, the
 * only ones in that space) and alone (any layout, a channel count no FFT
 * takes); verification catches one corrupted input sample, a kernel that
 * writes nothing and an output index with two strides swapped; the stage
 * module's macros are the ones the engine builds with, and its kernel
 * source built with them as #define lines (as a pipeline builds it)
 * verifies; clFFT survives one of two open problems being torn down and
 * starts again after the last; the work counts, the problem checks and the
 * size of the space are what the plugin documents. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_expect.h"
#include "plugin_harness.h"
#include "stage_expect.h"
#include "ppf_stage.h"

#define RUNS 5

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "ppf", preset, settings, n_settings, RUNS, &err), 0, "%s",
                 err.message);
}

static void close_harness(void) { harness_close(&h); }

static const measurement_part *find_part(const measurement *m, const char *label)
{
    for (size_t k = 0; k < m->n_parts; k++)
        if (strcmp(m->parts[k].label, label) == 0) return &m->parts[k];
    return NULL;
}

/* Measure through the engine; the run must verify, and its time must split
 * into the FIR and the FFT: each run's total is its two kernels' times. The
 * sum of the two medians is not the median of the totals, but with an odd
 * number of runs each part is at least its median in more than half of
 * them, so one run has both parts at least theirs and another both at most:
 * the sum lies between the fastest and the slowest run's total, however
 * noisy the machine (a part counted twice, or missing from the total, would
 * put it outside). */
_Static_assert(RUNS % 2 == 1, "the bound on the parts' medians needs an odd number of runs");
static void expect_ok(const char *config)
{
    measurement m;
    if (plugin_expect_measured_ok(&h, config, RUNS, &m)) {
    cr_expect_eq(m.n_parts, 2, "%s: %zu parts", config, m.n_parts);
    const measurement_part *fir = find_part(&m, "fir");
    const measurement_part *fft = find_part(&m, "fft");
    cr_assert_not_null(fir, "%s: no 'fir' part", config);
    cr_assert_not_null(fft, "%s: no 'fft' part", config);
    cr_expect(fir->median_ns > 0 && fft->median_ns > 0, "%s: fir %g ns, fft %g ns", config,
              fir->median_ns, fft->median_ns);
    const double sum = fir->median_ns + fft->median_ns;
    cr_expect(sum >= m.min_ns * (1 - 1e-9) && sum <= m.max_ns * (1 + 1e-9),
              "%s: fir %g + fft %g = %g ns, outside the runs' totals, %g to %g ns", config,
              fir->median_ns, fft->median_ns, sum, m.min_ns, m.max_ns);
    }
    measurement_clear(&m);
}

static int is_valid(const char *config) { return plugin_is_valid(&h, config); }

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ small preset */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(ppf_small, .init = open_small, .fini = close_harness, .timeout = 600);

Test(ppf_small, edge_configurations_verify)
{
    /* small: 2 stations x 32 channels = 64 station-channels, 8 taps, 64
     * output steps, 8-bit samples. */
    /* The smallest work-group, one output per work-item. */
    expect_ok("wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC");
    /* One work-group covers every station-channel and polarization. */
    expect_ok("wg_size=128,channels_per_item=1,samples_per_item=32,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=64,channels_per_item=1,samples_per_item=16,both_pols=1,out_layout=TPSC");
    /* At the register limit, both ways. */
    expect_ok("wg_size=8,channels_per_item=8,samples_per_item=4,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=8,channels_per_item=8,samples_per_item=2,both_pols=1,out_layout=TPSC");
    /* Tiles that straddle the two stations. */
    expect_ok("wg_size=16,channels_per_item=4,samples_per_item=8,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=32,channels_per_item=2,samples_per_item=1,both_pols=1,out_layout=TPSC");
}

/* With transfers on, the packed samples and the taps go up before the FIR
 * and the spectra come down after the FFT, each a labelled part of every
 * run, and the run's time is all of them; off (the harness's measurer),
 * the FIR and the FFT alone. */
Test(ppf_small, transfers_are_labelled_parts_around_the_kernels)
{
    const char *text = "wg_size=16,channels_per_item=4,samples_per_item=8,both_pols=0,"
                       "out_layout=TPSC";
    measurer_options opts = {.runs = RUNS, .seed = h.seed, .transfers = true};
    measurer *ms = NULL;
    skytune_error err = {0};
    cr_assert_eq(measurer_open(h.plugin.desc, h.device, &h.problem.values, &opts, &ms, &err), 0,
                 "%s", err.message);
    skytune_named_value items[16];
    cr_assert_leq(space_param_count(h.space), COUNT_OF(items));
    skytune_values config;
    cr_assert_eq(harness_config(&h, text, items, &config, &err), 0, "%s", err.message);
    measurement m;
    cr_assert_eq(measurer_measure(ms, &config, &m, &err), 0, "%s", err.message);
    cr_expect_eq(m.status, MEAS_OK, "%s", m.message ? m.message : "");
    static const char *const labels[] = {"upload input", "upload coefficients", "fir", "fft",
                                         "download spectra"};
    cr_assert_eq(m.n_parts, COUNT_OF(labels), "%zu parts", m.n_parts);
    double sum = 0.0;
    for (size_t k = 0; k < COUNT_OF(labels); k++) {
        cr_expect_str_eq(m.parts[k].label, labels[k]);
        cr_expect_gt(m.parts[k].median_ns, 0.0, "%s", labels[k]);
        sum += m.parts[k].median_ns;
    }
    cr_expect(fabs(sum - m.median_ns) <= 0.25 * m.median_ns, "parts %g ns, total median %g ns",
              sum, m.median_ns);
    measurement_clear(&m);
    measurer_close(ms);

    cr_assert_eq(harness_measure(&h, text, &m, &err), 0, "%s", err.message);
    cr_expect_eq(m.n_parts, 2, "without transfers: the FIR and the FFT, %zu parts", m.n_parts);
    measurement_clear(&m);
}

Test(ppf_small, constraints_exclude_what_cannot_run)
{
    /* 256 work-items > 64 station-channels x 2 polarizations. */
    cr_assert_eq(is_valid("wg_size=256,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC"), 0);
    /* With both polarizations per work-item only 64 work-items have work. */
    cr_assert_eq(is_valid("wg_size=128,channels_per_item=1,samples_per_item=1,both_pols=1,out_layout=TPSC"), 0);
    cr_assert_eq(is_valid("wg_size=128,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC"), 1);
    /* 8 x 8 x 1 = 64 > 32 register units; 8 x 4 x 2 = 64 too. */
    cr_assert_eq(is_valid("wg_size=8,channels_per_item=8,samples_per_item=8,both_pols=0,out_layout=TPSC"), 0);
    cr_assert_eq(is_valid("wg_size=8,channels_per_item=8,samples_per_item=4,both_pols=1,out_layout=TPSC"), 0);
}

/* Orderings of S, C, T and P, counted without the layout library: all 24,
 * or with the FFT the 6 that end in C. */
static uint64_t layout_count(bool fft)
{
    const char *letters = "SCTP";
    uint64_t count = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 4; d++)
                    if (a != b && a != c && a != d && b != c && b != d && c != d &&
                        (!fft || letters[d] == 'C'))
                        count++;
    return count;
}

/* The space's size, counted by brute force from the documented rules with
 * this device's limits. */
static uint64_t brute_force_count(const skytune_values *p, const skytune_device_info *dev)
{
    static const int64_t per_item_list[] = {1, 2, 4, 8};
    static const int64_t batch_list[] = {1, 2, 4, 8, 16, 32};
    const int64_t stations = skytune_int(p, "stations"), channels = skytune_int(p, "channels");
    const int64_t steps = skytune_int(p, "samples") / channels - skytune_int(p, "taps") + 1;
    uint64_t count = 0;
    for (int64_t wg = 8; wg <= 1024; wg *= 2)
        for (size_t c = 0; c < COUNT_OF(per_item_list); c++)
            for (size_t b = 0; b < COUNT_OF(batch_list); b++)
                for (int both = 0; both <= 1; both++) {
                    const int64_t per_item = per_item_list[c], batch = batch_list[b];
                    if (wg > dev->max_work_group_size || wg > dev->max_work_item_sizes[0] ||
                        (stations * channels * (2 - both)) % (wg * per_item) != 0 ||
                        steps % batch != 0 || per_item * batch * (1 + both) > 32)
                        continue;
                    count++;
                }
    return count * layout_count(skytune_int(p, "fft") != 0);
}

Test(ppf_small, space_size_matches_the_documented_rules)
{
    const uint64_t count = space_count(h.space);
    cr_assert_eq(count, brute_force_count(&h.problem.values, &h.device->info));
    /* 108 configurations of the kernel, each with 6 layouts. */
    cr_assert_eq(count, 648, "small should hold 648 configurations, has %llu",
                 (unsigned long long)count);
}

Test(ppf_small, with_the_fft_only_layouts_ending_in_c_are_in_the_space)
{
    const char *kernel = "wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0";
    static const struct {
        const char *layout;
        int valid;
    } cases[] = {
        {"TPSC", 1}, {"STPC", 1}, {"PTSC", 1}, {"SPTC", 1},
        {"SCTP", 0}, {"CSPT", 0}, {"TPCS", 0}, {"PCST", 0},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        char config[256];
        snprintf(config, sizeof config, "%s,out_layout=%s", kernel, cases[k].layout);
        cr_expect_eq(is_valid(config), cases[k].valid, "%s", config);
    }
}

/* With the FFT only layouts ending in C are valid: the default, and three
 * that move the station, the step and the polarization to the outside and
 * write the station-channels apart (STPC, SPTC: station outside the step). */
Test(ppf_small, the_fir_output_in_other_layouts_verifies_through_the_fft)
{
    expect_ok("wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1,out_layout=STPC");
    expect_ok("wg_size=8,channels_per_item=1,samples_per_item=8,both_pols=0,out_layout=PTSC");
    expect_ok("wg_size=32,channels_per_item=4,samples_per_item=2,both_pols=0,out_layout=SPTC");
    expect_ok("wg_size=64,channels_per_item=1,samples_per_item=16,both_pols=1,out_layout=TSPC");
}

/* A correct one-output-per-work-item FIR for the configuration below, for
 * 8-bit samples; with -D CORRUPT=i it adds 1000 to the real part of input
 * sample i (a complex 8-bit sample, counted in char2 units). */
static const char *const naive_fir =
    "__kernel void ppf_fir(__global const char2 *input, __global const float *coefficients,\n"
    "                      __global float2 *fir)\n"
    "{\n"
    "    const int item = get_global_id(0), step = get_global_id(1);\n"
    "    const int sc = item / 2, pol = item % 2;\n"
    "    float2 sum = 0.0f;\n"
    "    for (int t = 0; t < taps; t++) {\n"
    "        const int index = ((step + taps - 1 - t) * stations * channels + sc) * 2 + pol;\n"
    "        float2 x = convert_float2(input[index]);\n"
    "#ifdef CORRUPT\n"
    "        if (index == CORRUPT) x.x += 1000.0f;\n"
    "#endif\n"
    "        sum += coefficients[t * channels + sc % channels] * x;\n"
    "    }\n"
    "    fir[(step * 2 + pol) * stations * channels + sc] = sum;\n"
    "}\n";

static const char *const writes_nothing =
    "__kernel void ppf_fir(__global const char2 *input, __global const float *coefficients,\n"
    "                      __global float2 *fir)\n"
    "{\n"
    "}\n";

/* Drive the plugin's callbacks with `source` as the FIR kernel (clFFT still
 * does the FFT): setup, reference, build, prepare, poison, run, verify. */
static skytune_verify_report verify_with_kernel(const char *source, const char *extra_options)
{
    return plugin_verify_with_kernel(
        &h, "wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC", source, extra_options);
}

Test(ppf_small, verification_passes_a_correct_naive_kernel)
{
    skytune_verify_report good = verify_with_kernel(naive_fir, NULL);
    cr_assert_eq(good.passed, 1, "max abs error %g, first mismatch %lld", good.max_abs_error,
                 (long long)good.first_mismatch);
    cr_assert_eq(good.mismatches, 0);
    /* The plugin's own kernel through the same path. */
    skytune_verify_report own = verify_with_kernel(NULL, NULL);
    cr_assert_eq(own.passed, 1, "max abs error %g", own.max_abs_error);
}

Test(ppf_small, verification_catches_one_corrupted_sample)
{
    /* Block 20, station 0, channel 16, polarization 1. Output steps 13..20
     * read block 20 (8 taps); the first is step 13, whose transform of
     * station 0, polarization 1 is number (13 * 2 + 1) * 2 + 0 = 54. Its bin 0
     * (real part first) moves by 1000 times a coefficient of channel 16 (the
     * smallest, tap 0's, is about -0.011), some 400 times the tolerance of
     * about 0.027. */
    const int index = (20 * 64 + 16) * 2 + 1;
    char option[64];
    snprintf(option, sizeof option, "-D CORRUPT=%d", index);
    skytune_verify_report bad = verify_with_kernel(naive_fir, option);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 54 * 32 * 2, "first mismatch %lld",
                 (long long)bad.first_mismatch);
    /* Bin 0 of each of the 8 transforms at least; nothing outside them. */
    cr_assert_geq(bad.mismatches, 8);
    cr_assert_leq(bad.mismatches, 8 * 32 * 2);
}

Test(ppf_small, verification_catches_a_kernel_that_writes_nothing)
{
    /* The FIR output is poisoned too, so the FFT sees NaN everywhere. */
    skytune_verify_report bad = verify_with_kernel(writes_nothing, NULL);
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    cr_assert_eq(bad.mismatches, 64 * 2 * 2 * 32 * 2);
}

/* The plugin's kernel with the station's and the polarization's output
 * strides swapped in the general index (both dimensions have 2 elements in
 * `small`, so every write stays in the buffer, at another place). STPC
 * keeps station and channel apart, so the general index is the one used. */
Test(ppf_small, verification_catches_an_output_index_with_two_strides_swapped)
{
    const char *config =
        "wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=0,out_layout=STPC";
    char *intact = plugin_source_with("ppf", NULL, NULL, 0);
    skytune_verify_report good = plugin_verify_with_kernel(&h, config, intact, NULL);
    cr_assert_eq(good.passed, 1, "the source as it is: max abs error %g", good.max_abs_error);
    free(intact);

    char *swapped = plugin_source_with(
        "ppf", (const char *[]){"(sc) / channels * OUT_STRIDE_S", "(pol) * OUT_STRIDE_P)\n#endif"},
        (const char *[]){"(sc) / channels * OUT_STRIDE_P", "(pol) * OUT_STRIDE_S)\n#endif"}, 2);
    skytune_verify_report bad = plugin_verify_with_kernel(&h, config, swapped, NULL);
    free(swapped);
    cr_assert_eq(bad.passed, 0);
    /* Station 0's polarization 0 stays in place; station 1's polarization 0
     * gets station 0's polarization 1, and that is canonical transform 1
     * ([step][pol][station]: step 0, pol 0, station 1) of 32 complex bins. */
    cr_assert_eq(bad.first_mismatch / (32 * 2), 1, "first mismatch %lld",
                 (long long)bad.first_mismatch);
}

/* The stage module's list for a configuration holds the parameters with the
 * values the engine passes and the strides `defines` adds: the plugin's
 * build options contain every one of them. */
Test(ppf_small, the_stage_macros_are_the_build_options)
{
    const char *config_text =
        "wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1,out_layout=STPC";
    stage_macros macros;
    stage_macros_for(&h, config_text, ppf_macros_of_values, &macros);
    const size_t derived = stage_expect_macros_in_build_options(&h, config_text, &macros);
    /* STPC over 2 stations, 32 channels, 64 steps, 2 polarizations. */
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_C"), "1");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_P"), "32");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_T"), "64");
    cr_expect_str_eq(stage_macros_find(&macros, "OUT_STRIDE_S"), "4096");
    cr_expect_eq(derived, 4);
    /* Every numeric parameter of the plugin is listed too. */
    cr_expect_eq(macros.count - derived, 10);
}

/* What a pipeline does: the kernel source as a section between #define and
 * #undef lines of the stage's macros, built with no -D at all. */
Test(ppf_small, the_kernel_built_from_its_macro_section_verifies)
{
    const char *config_text =
        "wg_size=32,channels_per_item=1,samples_per_item=8,both_pols=1,out_layout=PTSC";
    stage_macros macros;
    stage_macros_for(&h, config_text, ppf_macros_of_values, &macros);
    skytune_verify_report report = stage_verify_section(&h, config_text, &macros, ppf_cl_source);
    cr_expect_eq(report.passed, 1, "max abs error %g", report.max_abs_error);
}

Test(ppf_small, clfft_outlives_one_of_two_problems_and_restarts)
{
    /* The measurer's problem holds clFFT; a second one comes and goes; the
     * first must still transform. */
    const skytune_plugin *pl = h.plugin.desc;
    skytune_error err = {0};
    skytune_setup_context ctx = harness_setup_context(&h);
    void *state = NULL;
    cr_assert_eq(pl->setup(&ctx, &state, &err), 0, "%s", err.message);
    pl->teardown(state);
    expect_ok("wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1,out_layout=TPSC");

    /* The last problem out tears clFFT down; the next one sets it up again. */
    harness_close(&h);
    open_small();
    expect_ok("wg_size=16,channels_per_item=2,samples_per_item=4,both_pols=1,out_layout=TPSC");
}

/* ------------------------------------------------ counts and checks */

static void resolve(const char *const *settings, size_t n, problem *p)
{
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, "small", settings, n, p, &err), 0, "%s",
                 err.message);
}

Test(ppf_small, work_counts_match_a_hand_count)
{
    /* 1 station, 4 channels, 2 taps, 12 samples of 8 bits: 3 blocks, 2
     * output steps, 2 polarizations: 4 transforms of 4 points.
     * FIR: 16 outputs x (2 + 4 x 1) = 96 FLOPs; FFT: 4 x 5 x 4 x 2 = 160.
     * Bytes: input 2 x 12 samples x 2 bytes = 48; coefficients 8 x 4 = 32;
     * FIR output 16 x 8 = 128; FFT 16 x 16 = 256; 464 in all. */
    const char *tiny[] = {"stations=1", "channels=4", "taps=2", "samples=12"};
    problem p;
    resolve(tiny, COUNT_OF(tiny), &p);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 256.0, 1e-9);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 464.0, 1e-9);
    problem_free(&p);

    /* 16-bit samples double the input bytes only. */
    const char *wide[] = {"stations=1", "channels=4", "taps=2", "samples=12", "sample_bits=16"};
    resolve(wide, COUNT_OF(wide), &p);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 256.0, 1e-9);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 512.0, 1e-9);
    problem_free(&p);

    /* The FIR alone: its 96 FLOPs; input, coefficients and FIR output,
     * 48 + 32 + 128 bytes. */
    const char *alone[] = {"stations=1", "channels=4", "taps=2", "samples=12", "fft=false"};
    resolve(alone, COUNT_OF(alone), &p);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 96.0, 1e-9);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 208.0, 1e-9);
    problem_free(&p);
}

Test(ppf_small, problem_checks_name_the_parameter)
{
    static const struct {
        const char *setting, *expected;
    } cases[] = {
        {"channels=48", "with fft, channels must be a power of two"},
        {"channels=8192", "channels must be a power of two from 2 to 4096"},
        {"channels=1", "channels must be a power of two"},
        {"channels=0", "channels must be at least 1"},
        {"taps=100", "taps must be at most samples / channels"},
        {"taps=0", "taps must be at least 1"},
        {"stations=0", "stations must be at least 1"},
        {"samples=2000", "samples must be a positive multiple of channels"},
        {"sample_bits=12", "sample_bits must be 8 or 16"},
    };
    for (size_t k = 0; k < COUNT_OF(cases); k++) {
        problem p;
        skytune_error err = {0};
        cr_assert_neq(problem_resolve(h.plugin.desc, "small", &cases[k].setting, 1, &p, &err), 0,
                      "%s was accepted", cases[k].setting);
        cr_expect(strstr(err.message, cases[k].expected) != NULL, "%s: %s", cases[k].setting,
                  err.message);
    }
    /* The FIR alone takes a channel count no FFT does. */
    const char *alone[] = {"fft=false", "channels=48", "samples=3408"};
    problem p;
    resolve(alone, COUNT_OF(alone), &p);
    problem_free(&p);
}

/* ------------------------------------------------------------------ one tap */

static void open_one_tap(void)
{
    /* 64 blocks of 32 channels: with one tap, 64 output steps, each the FFT
     * of one windowed block. */
    static const char *const one_tap[] = {"taps=1", "samples=2048"};
    open_with("small", one_tap, COUNT_OF(one_tap));
}

TestSuite(ppf_one_tap, .init = open_one_tap, .fini = close_harness, .timeout = 600);

Test(ppf_one_tap, one_tap_verifies)
{
    expect_ok("wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=32,channels_per_item=2,samples_per_item=8,both_pols=1,out_layout=TPSC");
    expect_ok("wg_size=16,channels_per_item=4,samples_per_item=8,both_pols=0,out_layout=TPSC");
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* --------------------------------------------------------- 16-bit samples */

static void open_wide(void)
{
    static const char *const wide[] = {"sample_bits=16"};
    open_with("small", wide, COUNT_OF(wide));
}

TestSuite(ppf_wide, .init = open_wide, .fini = close_harness, .timeout = 600);

Test(ppf_wide, sixteen_bit_samples_verify)
{
    expect_ok("wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=1,out_layout=TPSC");
    expect_ok("wg_size=64,channels_per_item=2,samples_per_item=8,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=8,channels_per_item=4,samples_per_item=4,both_pols=1,out_layout=TPSC");
}

/* ------------------------------------------ 128 channels: the radix-2 path */

static void open_radix2(void)
{
    /* Above 32 points the reference transforms with its radix-2 FFT rather
     * than the direct DFT; clFFT agreeing with it checks that path. One
     * station, 4 taps, 16 output steps, 16-bit samples. */
    static const char *const larger[] = {"stations=1", "channels=128", "taps=4", "samples=2432",
                                         "sample_bits=16"};
    open_with("small", larger, COUNT_OF(larger));
}

TestSuite(ppf_radix2, .init = open_radix2, .fini = close_harness, .timeout = 600);

Test(ppf_radix2, larger_transforms_verify)
{
    expect_ok("wg_size=256,channels_per_item=1,samples_per_item=2,both_pols=0,out_layout=TPSC");
    expect_ok("wg_size=32,channels_per_item=4,samples_per_item=4,both_pols=1,out_layout=TPSC");
}

/* ------------------------------------------- the FIR alone, every layout */

static void open_fir_alone(void)
{
    /* The thesis tuned the FIR's write layouts with 300 channels (figure
     * 6.5): no FFT takes that, the FIR alone does. 2 stations, 300 channels,
     * 4 taps, 24 output steps, 16-bit samples. */
    static const char *const alone[] = {"fft=false", "channels=300", "taps=4", "samples=8100",
                                        "sample_bits=16"};
    open_with("small", alone, COUNT_OF(alone));
}

TestSuite(ppf_fir_alone, .init = open_fir_alone, .fini = close_harness, .timeout = 600);

static void expect_fir_ok(const char *config)
{
    measurement m;
    if (plugin_expect_measured_ok(&h, config, RUNS, &m)) {
        cr_expect_eq(m.n_parts, 1, "%s: %zu parts", config, m.n_parts);
        cr_expect_not_null(find_part(&m, "fir"), "%s: no 'fir' part", config);
    }
    measurement_clear(&m);
}

/* The default, its reverse, and layouts with the polarization, the step and
 * the station innermost. */
Test(ppf_fir_alone, every_kind_of_layout_verifies)
{
    /* 600 station-channels: tiles of up to 16 (one polarization each) or 8
     * (both) work-items; 24 steps. */
    expect_fir_ok("wg_size=16,channels_per_item=1,samples_per_item=4,both_pols=0,out_layout=TPSC");
    expect_fir_ok("wg_size=8,channels_per_item=1,samples_per_item=8,both_pols=0,out_layout=CSPT");
    expect_fir_ok("wg_size=8,channels_per_item=1,samples_per_item=2,both_pols=1,out_layout=SCTP");
    expect_fir_ok("wg_size=8,channels_per_item=1,samples_per_item=4,both_pols=1,out_layout=PCST");
    expect_fir_ok("wg_size=16,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPCS");
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ------------------------------------------- read_back and reference_data */

Test(ppf_small, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(
        &h, "wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0,out_layout=TPSC");
}

/* The spectra and their tolerance, which the reference derives from the
 * largest spectrum: a copy without it would compare with no slack. */
Test(ppf_small, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(
                     &h, "wg_size=8,channels_per_item=1,samples_per_item=1,both_pols=0,"
                         "out_layout=TPSC"),
                 2);
}

/* Without the FFT: the FIR output and its own tolerance. */
Test(ppf_fir_alone, reference_data_names_all_the_reference_computes)
{
    const char *config =
        "wg_size=16,channels_per_item=1,samples_per_item=4,both_pols=0,out_layout=TPSC";
    plugin_expect_read_back_judged(&h, config);
    cr_expect_eq(plugin_expect_reference_data_covers(&h, config), 2);
}
