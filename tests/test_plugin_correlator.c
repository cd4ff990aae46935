/* The correlator plugin on the default OpenCL device (PoCL here): cells of
 * every shape at the edges of the space (1 x 1, tall 1 x 4, wide 4 x 1,
 * 4 x 4, cells that do not divide the station count), local memory on and
 * off with several time blocks, blocks that do not divide the sample count,
 * input layouts (the default, its reverse, each other dimension innermost),
 * and a sample of the space all verify against the CPU reference; the tiling
 * covers every baseline; verification catches a missing remainder pass, a
 * missing sample, one corrupted input sample, a conjugate on the wrong side
 * and an input index with two strides swapped, and accepts a long
 * integration; the stage module's macros are the ones the engine builds
 * with, and its kernel source built with them as #define lines (as a
 * pipeline builds it) verifies; the work counts, the problem checks and the
 * size of the space are what the plugin documents. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "correlator_stage.h"
#include "plugin_expect.h"
#include "plugin_harness.h"
#include "stage_expect.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "correlator", preset, settings, n_settings, 2, &err), 0, "%s",
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

typedef int64_t (*whole_cells_fn)(int64_t, int64_t, int64_t);

static whole_cells_fn whole_cells_function(void)
{
    whole_cells_fn f =
        (whole_cells_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_correlator_whole_cells");
    cr_assert_not_null(f, "the plugin exports skytune_correlator_whole_cells");
    return f;
}

/* ------------------------------------------------------------ small preset */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(correlator_small, .init = open_small, .fini = close_harness, .timeout = 600);

Test(correlator_small, edge_configurations_verify)
{
    /* small: 10 stations (55 baselines), 4 channels, 64 samples. */
    /* 1 x 1: the first pass covers everything, no remainder pass. */
    expect_ok("cell_width=1,cell_height=1,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP");
    expect_ok("cell_width=1,cell_height=1,cell_order=column,wg_size=64,use_local=1,block_time=16,in_layout=CTSP");
    /* Tall (the GTX 480's shape) and wide cells, both memory paths. */
    expect_ok("cell_width=1,cell_height=4,cell_order=column,wg_size=16,use_local=0,block_time=4,in_layout=CTSP");
    expect_ok("cell_width=1,cell_height=4,cell_order=column,wg_size=8,use_local=1,block_time=64,in_layout=CTSP");
    expect_ok("cell_width=4,cell_height=1,cell_order=column,wg_size=16,use_local=0,block_time=4,in_layout=CTSP");
    expect_ok("cell_width=4,cell_height=1,cell_order=column,wg_size=4,use_local=1,block_time=4,in_layout=CTSP");
    /* 4 x 4: one whole cell, 39 of 55 baselines in the remainder pass. */
    expect_ok("cell_width=4,cell_height=4,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP");
    expect_ok("cell_width=4,cell_height=4,cell_order=column,wg_size=4,use_local=1,block_time=32,in_layout=CTSP");
    /* 3 divides neither 10 nor the triangle's rows. */
    expect_ok("cell_width=2,cell_height=3,cell_order=column,wg_size=8,use_local=1,block_time=8,in_layout=CTSP");
    expect_ok("cell_width=3,cell_height=3,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP");
}

/* Cells up to 8 on a side, as long as their area is at most the 4 x 4
 * cell's 16 baselines, each in both orders of the cell list. small has 10
 * stations: a side of 8 leaves room for a second side of 3 at most. */
Test(correlator_small, tall_and_wide_cells_verify_in_both_orders)
{
    static const char *const cells[] = {
        "cell_width=1,cell_height=6", "cell_width=1,cell_height=8", "cell_width=8,cell_height=1",
        "cell_width=2,cell_height=8", "cell_width=3,cell_height=5", "cell_width=5,cell_height=2",
    };
    for (size_t k = 0; k < COUNT_OF(cells); k++)
        for (int rows = 0; rows <= 1; rows++) {
            char text[256];
            snprintf(text, sizeof text, "%s,cell_order=%s,wg_size=4,use_local=%d,block_time=%d,"
                     "in_layout=CTSP", cells[k], rows ? "row" : "column", (int)(k % 2),
                     k % 2 ? 16 : 4);
            expect_ok(text);
        }
    /* Registers bound the area, not the side. */
    cr_assert_eq(is_valid("cell_width=3,cell_height=6,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP"), 0);
    cr_assert_eq(is_valid("cell_width=8,cell_height=3,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP"), 0);
    cr_assert_eq(is_valid("cell_width=8,cell_height=2,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP"), 1);
}

typedef void (*list_cells_fn)(int64_t, int64_t, int64_t, int, int32_t *);

/* Both orders list the same whole cells; down the columns consecutive
 * cells share their first s2, along the rows their first s1, which is what
 * decides which loads a warp shares. */
Test(correlator_small, cell_orders_list_the_same_cells_down_columns_or_along_rows)
{
    list_cells_fn list =
        (list_cells_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_correlator_list_cells");
    cr_assert_not_null(list, "the plugin exports skytune_correlator_list_cells");
    whole_cells_fn whole_cells = whole_cells_function();
    static const int64_t shapes[][2] = {{1, 6}, {1, 4}, {6, 1}, {2, 3}, {3, 5}};
    for (size_t k = 0; k < COUNT_OF(shapes); k++) {
        const int64_t stations = 64, w = shapes[k][0], hh = shapes[k][1];
        const int64_t n = whole_cells(stations, w, hh);
        int32_t *columns = malloc((size_t)n * 2 * sizeof *columns);
        int32_t *rows = malloc((size_t)n * 2 * sizeof *rows);
        cr_assert(columns && rows);
        list(stations, w, hh, 0, columns);
        list(stations, w, hh, 1, rows);
        int64_t same_x = 0, same_y = 0, row_same_y = 0;
        for (int64_t c = 1; c < n; c++) {
            same_x += columns[2 * c] == columns[2 * c - 2];
            same_y += columns[2 * c + 1] == columns[2 * c - 1];
            row_same_y += rows[2 * c + 1] == rows[2 * c - 1];
        }
        /* Down a column only the last cell of one and the first of the
         * next differ in s2 (and share s1 only where both columns hold a
         * single cell, at the triangle's tip); along a row the same for s1. */
        cr_expect_gt(same_x, n / 2, "%lldx%lld: column order keeps s2", (long long)w, (long long)hh);
        cr_expect_lt(same_y, n / 4, "%lldx%lld: column order steps s1", (long long)w, (long long)hh);
        cr_expect_gt(row_same_y, n / 2, "%lldx%lld: row order keeps s1", (long long)w, (long long)hh);
        /* The same set: every column-order cell is in the row-order list. */
        for (int64_t c = 0; c < n; c++) {
            int64_t found = 0;
            for (int64_t r = 0; r < n; r++)
                found += rows[2 * r] == columns[2 * c] && rows[2 * r + 1] == columns[2 * c + 1];
            cr_assert_eq(found, 1, "%lldx%lld: cell (%d, %d) listed %lld times in row order",
                         (long long)w, (long long)hh, columns[2 * c], columns[2 * c + 1],
                         (long long)found);
        }
        free(columns);
        free(rows);
    }
}

Test(correlator_small, constraints_exclude_what_would_repeat_or_idle)
{
    /* block_time is pinned without local memory. */
    cr_assert_eq(is_valid("cell_width=1,cell_height=1,cell_order=column,wg_size=4,use_local=0,block_time=8,in_layout=CTSP"), 0);
    cr_assert_eq(is_valid("cell_width=1,cell_height=1,cell_order=column,wg_size=4,use_local=1,block_time=8,in_layout=CTSP"), 1);
    /* 55 cells of 1 x 1: work-groups up to 64, the power of two above. */
    cr_assert_eq(is_valid("cell_width=1,cell_height=1,cell_order=column,wg_size=64,use_local=0,block_time=4,in_layout=CTSP"), 1);
    cr_assert_eq(is_valid("cell_width=1,cell_height=1,cell_order=column,wg_size=128,use_local=0,block_time=4,in_layout=CTSP"), 0);
    /* One 4 x 4 cell: only the smallest work-group. */
    cr_assert_eq(is_valid("cell_width=4,cell_height=4,cell_order=column,wg_size=8,use_local=0,block_time=4,in_layout=CTSP"), 0);
}

/* The tiling as documented, counted independently: every grid position
 * (x = k w, y = stations - (m + 1) h) whose cell lies wholly in the triangle
 * s1 >= s2, tested baseline by baseline. */
static int64_t whole_cells_brute_force(int64_t stations, int64_t width, int64_t height)
{
    int64_t count = 0;
    for (int64_t x = 0; x + width <= stations; x += width)
        for (int64_t y = stations - height; y >= 0; y -= height) {
            int whole = 1;
            for (int64_t s1 = y; s1 < y + height; s1++)
                for (int64_t s2 = x; s2 < x + width; s2++)
                    if (s1 < s2) whole = 0;
            count += whole;
        }
    return count;
}

Test(correlator_small, tiling_matches_hand_and_brute_force_counts)
{
    whole_cells_fn whole_cells = whole_cells_function();
    /* 7 stations, 2 x 3: columns at s2 = 0, 2, 4, rows at s1 = 4, 1. Whole:
     * (0, 4), (0, 1), (2, 4): 18 of 28 baselines, 10 left over. */
    cr_assert_eq(whole_cells(7, 2, 3), 3);
    /* 10 stations, 4 x 4: only (0, 6). */
    cr_assert_eq(whole_cells(10, 4, 4), 1);
    /* 64 stations, 1 x 1 covers all 2080 baselines; 4 x 4: 16 diagonal
     * blocks of 4 x 4 are cut, 120 whole cells. */
    cr_assert_eq(whole_cells(64, 1, 1), 2080);
    cr_assert_eq(whole_cells(64, 4, 4), 120);
    for (int64_t stations = 1; stations <= 20; stations++)
        for (int64_t w = 1; w <= CORRELATOR_MAX_CELL_SIDE; w++)
            for (int64_t hh = 1; hh <= CORRELATOR_MAX_CELL_SIDE; hh++) {
                const int64_t n = whole_cells(stations, w, hh);
                cr_assert_eq(n, whole_cells_brute_force(stations, w, hh), "%lld stations, %lldx%lld",
                             (long long)stations, (long long)w, (long long)hh);
                /* At least one whole cell exactly when the constraint holds. */
                cr_assert_eq(n > 0, w + hh <= stations + 1, "%lld stations, %lldx%lld",
                             (long long)stations, (long long)w, (long long)hh);
            }
}

/* The space's size, counted here by brute force from the rules the plugin
 * documents, with this device's limits. */
static uint64_t brute_force_count(const skytune_values *p, const skytune_device_info *dev)
{
    static const int64_t block_times[] = {4, 8, 16, 32, 64};
    const int64_t stations = skytune_int(p, "stations");
    uint64_t count = 0;
    for (int64_t w = 1; w <= 8; w++)
        for (int64_t hh = 1; hh <= 8; hh++)
            for (int64_t wg = 4; wg <= 1024; wg *= 2)
                for (int local = 0; local <= 1; local++)
                    for (size_t b = 0; b < COUNT_OF(block_times); b++) {
                        const int64_t bt = block_times[b];
                        if (wg > dev->max_work_group_size || wg > dev->max_work_item_sizes[0] ||
                            w + hh > stations + 1)
                            continue;
                        if (w * hh > 16) continue;
                        if (!local && bt != 4) continue;
                        if (local && stations * bt * 16 > dev->local_mem_size) continue;
                        if (wg > 4 && wg >= 2 * whole_cells_brute_force(stations, w, hh))
                            continue;
                        count++;
                    }
    /* Both cell orders, and every ordering of the input's four dimensions:
     * 2 x 4!. */
    return count * 2 * 24;
}

Test(correlator_small, space_size_matches_the_documented_rules)
{
    const uint64_t count = space_count(h.space);
    cr_assert_eq(count, brute_force_count(&h.problem.values, &h.device->info));
    cr_assert(count >= 200 * 48 && count <= 600 * 48, "small should be 200-600 times 48, is %llu",
              (unsigned long long)count);

    /* The thesis preset, sized without measuring it. */
    problem thesis;
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, "thesis", NULL, 0, &thesis, &err), 0, "%s",
                 err.message);
    plugin_space_request rq = {
        .plugin = h.plugin.desc, .problem = &thesis.values, .device = &h.device->info};
    space *sp = NULL;
    cr_assert_eq(plugin_space_build(&rq, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(sp), brute_force_count(&thesis.values, &h.device->info));
    space_free(sp);
    problem_free(&thesis);
}

Test(correlator_small, random_configurations_all_verify)
{
    plugin_expect_sample_verifies(&h, 2013, 5, 6, expect_ok);
}

/* Input layouts: the default, its reverse, and layouts that put the
 * channel, the station and the time innermost, each read from global memory
 * and staged in local memory (which copies one span only for layouts ending
 * in TSP, and gathers otherwise); the polarisations are one float4 load only
 * when P is innermost. */
Test(correlator_small, input_layouts_verify)
{
    static const char *const kernels[] = {
        "cell_width=2,cell_height=3,cell_order=column,wg_size=8,use_local=1,block_time=8",
        "cell_width=1,cell_height=4,cell_order=column,wg_size=16,use_local=0,block_time=4",
    };
    static const char *const layouts[] = {"CTSP", "PSTC", "TPSC", "PCTS", "SCPT", "TCSP"};
    for (size_t k = 0; k < COUNT_OF(kernels); k++)
        for (size_t l = 0; l < COUNT_OF(layouts); l++) {
            char config[256];
            snprintf(config, sizeof config, "%s,in_layout=%s", kernels[k], layouts[l]);
            expect_ok(config);
        }
}

/* The stage module's list for a configuration holds the parameters with the
 * values the engine passes and the strides `defines` adds: the plugin's
 * build options contain every one of them. */
Test(correlator_small, the_stage_macros_are_the_build_options)
{
    const char *config_text = "cell_width=2,cell_height=2,cell_order=column,wg_size=4,use_local=1,block_time=8,"
                              "in_layout=PTCS";
    stage_macros macros;
    stage_macros_for(&h, config_text, correlator_macros_of_values, &macros);
    const size_t derived = stage_expect_macros_in_build_options(&h, config_text, &macros);
    /* PTCS over 10 stations, 4 channels, 64 samples, 2 polarisations. */
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_S"), "1");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_C"), "10");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_T"), "40");
    cr_expect_str_eq(stage_macros_find(&macros, "IN_STRIDE_P"), "2560");
    cr_expect_eq(derived, 4);
    cr_expect_eq(macros.count - derived, 8);
}

/* What a pipeline does: the kernel source as a section between #define and
 * #undef lines of the stage's macros, built with no -D at all. */
Test(correlator_small, the_kernels_built_from_their_macro_section_verify)
{
    const char *config_text = "cell_width=3,cell_height=2,cell_order=column,wg_size=4,use_local=1,block_time=16,"
                              "in_layout=CTSP";
    stage_macros macros;
    stage_macros_for(&h, config_text, correlator_macros_of_values, &macros);
    skytune_verify_report report = stage_verify_section(&h, config_text, &macros, correlator_cl_source);
    cr_expect_eq(report.passed, 1, "max abs error %g", report.max_abs_error);
}

/* ------------------------------------------- verification catches mistakes */

/* A plain correlator with the plugin's kernel names and arguments: each
 * work-item computes every baseline of its listed cell, one at a time,
 * straight from the definition. Test-only switches break it on purpose:
 *   DROP_REMAINDER     the remainder pass writes nothing
 *   DROP_LAST_SAMPLE   the last sample is left out of every sum
 *   CORRUPT_SAMPLE     station 3's X polarisation at channel 1, sample 5 is
 *                      read 1.0 too large: as if that input had been
 *                      corrupted after the reference was computed
 *   CONJUGATE_FIRST    x_s2 * conj(x_s1) instead of x_s1 * conj(x_s2) */
static const char *const plain_correlator =
    "#ifdef DROP_LAST_SAMPLE\n"
    "#define SUMMED (samples - 1)\n"
    "#else\n"
    "#define SUMMED samples\n"
    "#endif\n"
    "static float4 load(__global const float4 *input, int channel, int t, int station)\n"
    "{\n"
    "    float4 v = input[(channel * samples + t) * stations + station];\n"
    "#ifdef CORRUPT_SAMPLE\n"
    "    if (channel == 1 && t == 5 && station == 3) v.x += 1.0f;\n"
    "#endif\n"
    "    return v;\n"
    "}\n"
    "static void correlate_one(__global const float4 *input, int channel, int s1, int s2,\n"
    "                          __global float4 *visibilities)\n"
    "{\n"
    "    float4 sum_x = (float4)(0.0f), sum_y = (float4)(0.0f);\n"
    "    for (int t = 0; t < SUMMED; t++) {\n"
    "#ifdef CONJUGATE_FIRST\n"
    "        const float4 a = load(input, channel, t, s2), b = load(input, channel, t, s1);\n"
    "#else\n"
    "        const float4 a = load(input, channel, t, s1), b = load(input, channel, t, s2);\n"
    "#endif\n"
    "        sum_x += (float4)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y,\n"
    "                          a.x * b.z + a.y * b.w, a.y * b.z - a.x * b.w);\n"
    "        sum_y += (float4)(a.z * b.x + a.w * b.y, a.w * b.x - a.z * b.y,\n"
    "                          a.z * b.z + a.w * b.w, a.w * b.z - a.z * b.w);\n"
    "    }\n"
    "    const int baseline = channel * (stations * (stations + 1) / 2) + s1 * (s1 + 1) / 2 + s2;\n"
    "    visibilities[2 * baseline] = sum_x;\n"
    "    visibilities[2 * baseline + 1] = sum_y;\n"
    "}\n"
    "__kernel void correlate_cells(__global const float4 *input, __global const int2 *cells,\n"
    "                              const int cell_count, __global float4 *visibilities)\n"
    "{\n"
    "    const int cell = get_global_id(0), channel = get_global_id(1);\n"
    "    if (cell >= cell_count) return;\n"
    "    for (int j = 0; j < cell_height; j++)\n"
    "        for (int i = 0; i < cell_width; i++)\n"
    "            correlate_one(input, channel, cells[cell].y + j, cells[cell].x + i, visibilities);\n"
    "}\n"
    "__kernel void correlate_remainder(__global const float4 *input, __global const int2 *cells,\n"
    "                                  const int cell_count, __global float4 *visibilities)\n"
    "{\n"
    "#ifndef DROP_REMAINDER\n"
    "    const int cell = get_global_id(0), channel = get_global_id(1);\n"
    "    if (cell >= cell_count) return;\n"
    "    correlate_one(input, channel, cells[cell].y, cells[cell].x, visibilities);\n"
    "#endif\n"
    "}\n";

/* Drive the plugin's callbacks with `source` (the plugin's kernel when NULL)
 * built with `options` on top of the measurer's: setup, reference, build,
 * prepare, poison, run, verify. 2 x 2 cells on 10 stations leave 15 of 55
 * baselines to the remainder pass. */
static skytune_verify_report verify_with_kernel(const char *source, const char *options)
{
    return plugin_verify_with_kernel(
        &h, "cell_width=2,cell_height=2,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP", source, options);
}

#define SMALL_BASELINES 55
#define SMALL_CHANNELS 4
#define FLOATS_PER_BASELINE 8

Test(correlator_small, the_plain_and_the_tuned_kernel_pass)
{
    skytune_verify_report tuned = verify_with_kernel(NULL, NULL);
    cr_assert_eq(tuned.passed, 1);
    cr_assert_eq(tuned.mismatches, 0);
    cr_assert_eq(tuned.first_mismatch, -1);
    skytune_verify_report plain = verify_with_kernel(plain_correlator, NULL);
    cr_assert_eq(plain.passed, 1, "max abs error %g", plain.max_abs_error);
}

Test(correlator_small, verification_catches_a_missing_remainder_pass)
{
    /* The remainder's 15 baselines keep the NaN poison in every channel;
     * the first is baseline (0, 0), left out by the 2 x 2 grid. */
    skytune_verify_report bad = verify_with_kernel(plain_correlator, "-D DROP_REMAINDER");
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    cr_assert_eq(bad.mismatches, SMALL_CHANNELS * 15 * FLOATS_PER_BASELINE);
}

Test(correlator_small, verification_catches_a_missing_sample)
{
    skytune_verify_report bad = verify_with_kernel(plain_correlator, "-D DROP_LAST_SAMPLE");
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    /* Every sum loses a term of order 1; only the autocorrelations' XX and
     * YY imaginary parts (0 either way) can survive. */
    cr_assert_gt(bad.mismatches, SMALL_CHANNELS * SMALL_BASELINES * FLOATS_PER_BASELINE * 3 / 4,
                 "%lld", (long long)bad.mismatches);
}

Test(correlator_small, verification_catches_one_corrupted_input_sample)
{
    skytune_verify_report bad = verify_with_kernel(plain_correlator, "-D CORRUPT_SAMPLE");
    cr_assert_eq(bad.passed, 0);
    cr_assert_geq(bad.first_mismatch, 0);
    /* Only channel 1's baselines of station 3 change: (3, 0) is the first
     * of them, baseline 6; the ten baselines of station 3 hold 80 floats. */
    const int64_t channel = bad.first_mismatch / (SMALL_BASELINES * FLOATS_PER_BASELINE);
    const int64_t baseline = bad.first_mismatch / FLOATS_PER_BASELINE % SMALL_BASELINES;
    cr_assert_eq(channel, 1, "first mismatch %lld", (long long)bad.first_mismatch);
    cr_assert_eq(baseline, 6, "first mismatch %lld", (long long)bad.first_mismatch);
    cr_assert(bad.mismatches >= 1 && bad.mismatches <= 10 * FLOATS_PER_BASELINE, "%lld",
              (long long)bad.mismatches);
}

Test(correlator_small, verification_catches_a_conjugate_on_the_wrong_side)
{
    /* x_s2 conj(x_s1) is the conjugate of x_s1 conj(x_s2) for XX and YY:
     * the autocorrelation (0, 0) is unchanged, and the first difference is
     * the imaginary part of XX of baseline 1, (1, 0). */
    skytune_verify_report bad = verify_with_kernel(plain_correlator, "-D CONJUGATE_FIRST");
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 1 * FLOATS_PER_BASELINE + 1);
}

/* ------------------------------------------------ formulas, counts, checks */

static void resolve(const char *preset, const char *const *settings, size_t n, problem *p)
{
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, preset, settings, n, p, &err), 0, "%s",
                 err.message);
}

Test(correlator_small, work_counts_match_a_hand_count)
{
    /* 3 stations: 6 baselines; 2 channels; 5 samples. 4 complex
     * multiply-adds of 8 flops: 8 * 4 * 6 * 2 * 5 = 1920. Input 2 x 5 x 3
     * stations x 16 bytes = 480, output 2 x 6 baselines x 32 bytes = 384. */
    const char *tiny[] = {"stations=3", "channels=2", "samples=5"};
    problem p;
    resolve("small", tiny, 3, &p);
    cr_assert_float_eq(h.plugin.desc->flops(&p.values, NULL), 1920.0, 1e-9);
    cr_assert_float_eq(h.plugin.desc->bytes(&p.values, NULL), 864.0, 1e-9);
    problem_free(&p);

    /* The thesis's 64 stations: 2080 baselines, as its section 5.3.2 says. */
    problem thesis;
    resolve("thesis", NULL, 0, &thesis);
    cr_assert_float_eq(h.plugin.desc->flops(&thesis.values, NULL), 32.0 * 2080 * 256 * 768, 1.0);
    problem_free(&thesis);
}

Test(correlator_small, problem_checks_name_the_parameter)
{
    static const struct {
        const char *setting, *expected;
    } cases[] = {
        {"stations=0", "stations must be at least 1"},
        {"channels=0", "channels must be at least 1"},
        {"samples=0", "samples must be at least 1"},
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

/* -------------------------- 7 stations, 3 channels, 50 samples: no divisors */

static void open_odd(void)
{
    static const char *const odd[] = {"stations=7", "channels=3", "samples=50"};
    open_with("small", odd, COUNT_OF(odd));
}

TestSuite(correlator_odd, .init = open_odd, .fini = close_harness, .timeout = 600);

Test(correlator_odd, cells_and_blocks_that_divide_nothing)
{
    /* 2 x 3 cells: 3 whole cells and 10 remaining baselines of 28. */
    expect_ok("cell_width=2,cell_height=3,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP");
    /* 50 samples in blocks of 16 (3 whole and 2 left) and of 64 (one
     * partial block). */
    expect_ok("cell_width=2,cell_height=3,cell_order=column,wg_size=4,use_local=1,block_time=16,in_layout=CTSP");
    expect_ok("cell_width=3,cell_height=2,cell_order=column,wg_size=4,use_local=1,block_time=64,in_layout=CTSP");
    /* 4 x 4 is the largest cell that fits 7 stations: one whole cell. */
    expect_ok("cell_width=4,cell_height=4,cell_order=column,wg_size=4,use_local=1,block_time=32,in_layout=CTSP");
    cr_assert_eq(is_valid("cell_width=4,cell_height=4,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP"), 1);
    cr_assert_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ---------------------------------- a long integration: the tolerance holds */

static void open_long(void)
{
    static const char *const long_sum[] = {"stations=5", "channels=1", "samples=4096"};
    open_with("small", long_sum, COUNT_OF(long_sum));
}

TestSuite(correlator_long, .init = open_long, .fini = close_harness, .timeout = 600);

Test(correlator_long, float_sums_of_4096_samples_verify)
{
    /* The tolerance is derived for sums of any length; here both memory
     * paths sum 4096 samples in float and must still pass. */
    expect_ok("cell_width=1,cell_height=2,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP");
    expect_ok("cell_width=2,cell_height=2,cell_order=column,wg_size=4,use_local=1,block_time=64,in_layout=CTSP");
}

/* ------------------------------------- as many stations as channels */

static void open_square(void)
{
    static const char *const square[] = {"stations=4", "channels=4", "samples=32"};
    open_with("small", square, COUNT_OF(square));
}

TestSuite(correlator_square, .init = open_square, .fini = close_harness, .timeout = 600);

/* The plugin's kernel reading the input as float4 with the station's and
 * the channel's strides swapped: with 4 stations and 4 channels every read stays
 * in the buffer, at another station's and channel's sample. */
Test(correlator_square, verification_catches_an_input_index_with_two_strides_swapped)
{
    const char *config =
        "cell_width=2,cell_height=2,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=TCSP";
    char *intact = plugin_source_with("correlator", NULL, NULL, 0);
    skytune_verify_report good = plugin_verify_with_kernel(&h, config, intact, NULL);
    cr_assert_eq(good.passed, 1, "the source as it is: max abs error %g", good.max_abs_error);
    free(intact);
    char *swapped = plugin_source_with(
        "correlator",
        (const char *[]){"CORRELATOR_STRIDE_S (IN_STRIDE_S / 2)",
                         "CORRELATOR_STRIDE_C (IN_STRIDE_C / 2)"},
        (const char *[]){"CORRELATOR_STRIDE_S (IN_STRIDE_C / 2)",
                         "CORRELATOR_STRIDE_C (IN_STRIDE_S / 2)"},
        2);
    skytune_verify_report bad = plugin_verify_with_kernel(&h, config, swapped, NULL);
    free(swapped);
    cr_assert_eq(bad.passed, 0);
    cr_assert_gt(bad.mismatches, 0);
}

/* ------------------------------------------- read_back and reference_data */

#define READ_BACK_CONFIG \
    "cell_width=2,cell_height=2,cell_order=column,wg_size=4,use_local=0,block_time=4,in_layout=CTSP"

Test(correlator_small, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(&h, READ_BACK_CONFIG);
}

Test(correlator_small, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(&h, READ_BACK_CONFIG), 1);
}
