/* The transpose plugin on the default OpenCL device (PoCL here): both
 * kernels move every sample exactly for all 24 x 24 pairs of layouts of the
 * small array (whose sizes no tile divides); a handful of configurations,
 * tiles of every size among them, measure ok through the engine; the
 * reference agrees with transpositions written out by hand; verification
 * catches a kernel that swaps two indices and one that misses the last
 * partial row; the layout distance matches hand counts; the work counts,
 * the problem checks, the size limits and the size of the space are what
 * the plugin documents; `--only` with a text that is no layout is refused
 * naming the parameter and its valid values; a run's lines and `best` show
 * GB/s, the plugin counting no flops. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "plugin_expect.h"
#include "plugin_harness.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "transpose", preset, settings, n_settings, 2, &err), 0, "%s",
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

/* small: S = 6, C = 11, T = 37, P = 2. */
#define SMALL_SAMPLES (6 * 11 * 37 * 2)

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(transpose_small, .init = open_small, .fini = close_harness, .timeout = 600);

/* ------------------------------------------------- every pair of layouts */

/* The plugin's own 24 layouts (the engine's expansion of its permutation
 * parameter). */
static const param_def *layouts(void)
{
    const int k = space_param_index(h.space, "in_layout");
    cr_assert_geq(k, 0);
    const param_def *p = space_param(h.space, (size_t)k);
    cr_assert_eq(p->count, 24);
    return p;
}

/* One setup, one program for the kernel settings (the layouts reach the
 * kernels as arguments, so one build serves every pair), then prepare,
 * poison, run and verify (after read_back) for each of the 24 x 24 pairs. */
static void expect_every_pair_exact(const char *kernel_settings)
{
    const skytune_plugin *pl = h.plugin.desc;
    const param_def *all = layouts();
    skytune_setup_context ctx = harness_setup_context(&h);
    skytune_error err = {0};
    void *state = NULL;
    cl_program program = NULL;
    cr_assert_eq(pl->setup(&ctx, &state, &err), 0, "%s", err.message);
    cr_assert_eq(pl->reference(state, &err), 0, "%s", err.message);
    int pairs = 0;
    for (size_t i = 0; i < all->count; i++)
        for (size_t o = 0; o < all->count; o++) {
            char text[256];
            snprintf(text, sizeof text, "in_layout=%s,out_layout=%s,%s", all->values[i].s,
                     all->values[o].s, kernel_settings);
            skytune_named_value items[8];
            skytune_values config;
            cr_assert_eq(harness_config(&h, text, items, &config, &err), 0, "%s", err.message);
            if (!program)
                cr_assert_eq(harness_build(&h, &config, NULL, NULL, &program, &err), 0, "%s",
                             err.message);
            void *launch = NULL;
            cr_assert_eq(pl->prepare(state, program, &config, &launch, &err), 0, "%s: %s", text,
                         err.message);
            cr_assert_eq(pl->clear_outputs(state, h.queue, &err), 0, "%s", err.message);
            cr_assert_eq(harness_run_once(&h, launch, &err), 0, "%s: %s", text, err.message);
            skytune_verify_report report;
            cr_assert_eq(harness_verify_run(&h, state, launch, &config, &report, &err), 0, "%s",
                         err.message);
            cr_assert_eq(report.passed, 1, "%s: %lld mismatches, the first at %lld", text,
                         (long long)report.mismatches, (long long)report.first_mismatch);
            cr_assert_eq(report.max_abs_error, 0.0, "%s", text);
            pl->release(launch);
            pairs++;
        }
    cr_expect_eq(pairs, 576);
    clReleaseProgram(program);
    pl->teardown(state);
}

Test(transpose_small, the_direct_kernel_is_exact_for_every_pair_of_layouts)
{
    /* 2 x 2 work-groups: every odd size leaves a partial one. */
    expect_every_pair_exact("variant=direct,tile=8,wg_x=2,wg_y=2");
}

Test(transpose_small, the_tiled_kernel_is_exact_for_every_pair_of_layouts)
{
    /* 8 x 8 tiles, none of the sizes a multiple: partial tiles everywhere;
     * each work-item of 4 x 2 moves 2 x 4 samples. */
    expect_every_pair_exact("variant=tiled,tile=8,wg_x=4,wg_y=2");
}

Test(transpose_small, a_handful_measure_ok_through_the_engine)
{
    /* Figure 6.3's target layout from the canonical one, and the identity. */
    expect_ok("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=8,wg_x=2,wg_y=32");
    expect_ok("in_layout=TCSP,out_layout=TCSP,variant=direct,tile=8,wg_x=2,wg_y=8");
    /* Distance 8: every dimension moves. */
    expect_ok("in_layout=SCTP,out_layout=PTCS,variant=direct,tile=8,wg_x=1,wg_y=64");
    expect_ok("in_layout=SCTP,out_layout=PTCS,variant=tiled,tile=8,wg_x=2,wg_y=8");
    /* Tiled, A = C and B = T: 16 x 16 tiles over 11 x 37. */
    expect_ok("in_layout=SPTC,out_layout=SPCT,variant=tiled,tile=16,wg_x=16,wg_y=4");
    /* Both layouts end with P: the tile's second side is the output's S. */
    expect_ok("in_layout=TCSP,out_layout=CTSP,variant=tiled,tile=8,wg_x=2,wg_y=8");
}

Test(transpose_small, a_sample_of_the_space_all_verifies)
{
    plugin_expect_sample_verifies(&h, 2013, 6, 8, expect_ok);
}

/* ------------------------------------------ the reference, and mistakes */

/* A transposition with the plugin's direct kernel's name, arguments and
 * NDRange. By default it is Algorithm 2, from the geometry the plugin
 * passes; the test's switches change it:
 *   HAND_TCSP, HAND_PSTC  from SCTP, with the index arithmetic of both
 *                         arrays written out by hand from the problem's
 *                         macros (Kis 2013, Algorithm 1), ignoring the
 *                         plugin's geometry
 *   SWAP_TWO_INDICES      the two innermost input dimensions trade output
 *                         strides (writes past the array are dropped)
 *   SKIP_LAST             the bounds check is one short: the input's last
 *                         innermost index is never moved */
static const char *const plain_transpose =
    "__kernel void transpose_direct(__global const float2 *in, __global float2 *out,\n"
    "                               const int4 size, const int4 os)\n"
    "{\n"
    "    const int i3 = get_global_id(0), i2 = get_global_id(1), i01 = get_global_id(2);\n"
    "#ifdef SKIP_LAST\n"
    "    if (i3 >= size.w - 1 || i2 >= size.z) return;\n"
    "#else\n"
    "    if (i3 >= size.w || i2 >= size.z) return;\n"
    "#endif\n"
    "    const int i0 = i01 / size.y, i1 = i01 % size.y;\n"
    "#if defined(HAND_TCSP) || defined(HAND_PSTC)\n"
    "    const int p = get_global_id(0), t = get_global_id(1);\n"
    "    const int s = get_global_id(2) / channels, c = get_global_id(2) % channels;\n"
    "    if (p >= polarizations || t >= samples) return;\n"
    "    const float2 v = in[((s * channels + c) * samples + t) * polarizations + p];\n"
    "#else\n"
    "    const float2 v = in[(i01 * size.z + i2) * size.w + i3];\n"
    "#endif\n"
    "#if defined(HAND_TCSP)\n"
    "    out[((t * channels + c) * stations + s) * polarizations + p] = v;\n"
    "#elif defined(HAND_PSTC)\n"
    "    out[((p * stations + s) * samples + t) * channels + c] = v;\n"
    "#elif defined(SWAP_TWO_INDICES)\n"
    "    const int at = i0 * os.x + i1 * os.y + i3 * os.z + i2 * os.w;\n"
    "    if (at < size.x * size.y * size.z * size.w) out[at] = v;\n"
    "#else\n"
    "    out[i0 * os.x + i1 * os.y + i2 * os.z + i3 * os.w] = v;\n"
    "#endif\n"
    "}\n"
    "__kernel void transpose_tiled(__global const float2 *in, __global float2 *out,\n"
    "                              const int4 size, const int4 in_stride, const int4 os,\n"
    "                              const int write_along_a) {}\n";

static skytune_verify_report verify_with(const char *out_layout, const char *options)
{
    char config[128];
    snprintf(config, sizeof config,
             "in_layout=SCTP,out_layout=%s,variant=direct,tile=8,wg_x=2,wg_y=2", out_layout);
    return plugin_verify_with_kernel(&h, config, plain_transpose, options);
}

Test(transpose_small, the_reference_agrees_with_transpositions_written_by_hand)
{
    skytune_verify_report r = verify_with("TCSP", "-D HAND_TCSP");
    cr_expect_eq(r.passed, 1, "%lld mismatches", (long long)r.mismatches);
    r = verify_with("PSTC", "-D HAND_PSTC");
    cr_expect_eq(r.passed, 1, "%lld mismatches", (long long)r.mismatches);
    /* The plain Algorithm 2 with the plugin's geometry passes too... */
    r = verify_with("PSTC", NULL);
    cr_expect_eq(r.passed, 1, "%lld mismatches", (long long)r.mismatches);
    /* ...and a correct transposition into another layout does not. */
    r = verify_with("PSTC", "-D HAND_TCSP");
    cr_expect_eq(r.passed, 0);
}

Test(transpose_small, verification_catches_a_kernel_that_swaps_two_indices)
{
    /* SCTP into TCSP: T and P trade output strides (132 and 1). Every
     * sample with p = 1 or t > 0 lands elsewhere or nowhere. */
    skytune_verify_report r = verify_with("TCSP", "-D SWAP_TWO_INDICES");
    cr_expect_eq(r.passed, 0);
    cr_expect_gt(r.mismatches, 2 * SMALL_SAMPLES * 9 / 10, "%lld", (long long)r.mismatches);
}

Test(transpose_small, verification_catches_a_missed_last_index)
{
    /* SCTP into TCSP with P = 2 innermost in both: polarization 1 of every
     * sample keeps the poison, both floats, from float 2 on. */
    skytune_verify_report r = verify_with("TCSP", "-D SKIP_LAST");
    cr_expect_eq(r.passed, 0);
    cr_expect_eq(r.mismatches, SMALL_SAMPLES);
    cr_expect_eq(r.first_mismatch, 2);
}

/* ---------------------------------------------------------- the distance */

typedef double (*distance_fn)(const char *, const char *);

Test(transpose_small, the_layout_distance_matches_hand_counts)
{
    distance_fn distance =
        (distance_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_transpose_layout_distance");
    cr_assert_not_null(distance, "the plugin exports skytune_transpose_layout_distance");
    /* Kis 2013, section 6.3: CTS against STC is 4, with P staying put;
     * section 6.4: the FIR's PTSC is 6 from the correlator's TCSP. */
    cr_expect_eq(distance("CTSP", "STCP"), 4.0);
    cr_expect_eq(distance("PTSC", "TCSP"), 6.0);
    cr_expect_eq(distance("TCSP", "TCSP"), 0.0);
    /* Only layouts of SCTP have a distance here, even if both agree. */
    cr_expect_eq(distance("SCTX", "SCTP") + distance("SCT", "SCT"), -2.0);
}

/* ------------------------------------------------ formulas, counts, checks */

static void resolve(const char *preset, const char *const *settings, size_t n, problem *p)
{
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, preset, settings, n, p, &err), 0, "%s",
                 err.message);
}

Test(transpose_small, work_counts_are_bytes_read_and_written)
{
    /* Every sample read and written once, 8 bytes each way; no flops. */
    cr_expect_null(h.plugin.desc->flops);
    cr_expect_float_eq(h.plugin.desc->bytes(&h.problem.values, NULL), 16.0 * SMALL_SAMPLES, 1e-9);
    problem thesis;
    resolve("thesis", NULL, 0, &thesis);
    cr_expect_float_eq(h.plugin.desc->bytes(&thesis.values, NULL), 16.0 * 64 * 300 * 768 * 2, 1.0);
    problem_free(&thesis);
}

Test(transpose_small, problem_checks_name_the_parameter)
{
    static const plugin_refusal cases[] = {
        {"stations=0", "stations must be at least 1"},
        {"channels=0", "channels must be at least 1"},
        {"samples=0", "samples must be at least 1"},
        {"polarizations=0", "polarizations must be 1 or 2"},
        {"polarizations=3", "polarizations must be 1 or 2"},
    };
    plugin_expect_refused(&h, "small", cases, COUNT_OF(cases));
}

/* check_problem's verdict on the thesis's setup with one setting changed. */
static int check_thesis_with(const char *setting, skytune_error *err)
{
    problem p;
    resolve("thesis", &setting, 1, &p);
    const int rc = h.plugin.desc->check_problem(&p.values, &h.device->info, err);
    problem_free(&p);
    return rc;
}

static void expect_too_large(const char *setting, const char *needle)
{
    skytune_error err = {0};
    cr_expect_eq(check_thesis_with(setting, &err), SKYTUNE_ERR_PROBLEM, "%s", setting);
    cr_expect(strstr(err.message, needle) != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "reduce stations, channels, samples or polarizations") != NULL,
              "%s", err.message);
}

Test(transpose_small, sizes_the_device_cannot_hold_are_refused)
{
    /* 100,000 stations of the thesis's setup: 4.6 x 10^10 samples. */
    expect_too_large("stations=100000", "the array would hold 46080000000 complex samples");
    /* Within int, but past the device's largest buffer: the most channels
     * of 64 x 768 x 2 samples that fit, and one more. */
    const int64_t per_channel = 64 * 768 * 2;
    const int64_t fitting = h.device->info.max_mem_alloc_size / 8 / per_channel;
    if ((fitting + 1) * per_channel > INT_MAX) return; /* int runs out first */
    char setting[64];
    snprintf(setting, sizeof setting, "channels=%lld", (long long)(fitting + 1));
    expect_too_large(setting, "this device allocates at most");
    snprintf(setting, sizeof setting, "channels=%lld", (long long)fitting);
    skytune_error err = {0};
    cr_expect_eq(check_thesis_with(setting, &err), SKYTUNE_OK, "%s: %s", setting, err.message);
}

/* --------------------------------------------------------- the space */

/* The 24 orderings of SCTP, from base-4 numbers whose digits all differ. */
static int orderings(char out[24][5])
{
    int n = 0;
    for (int code = 0; code < 256; code++) {
        const int d[4] = {code >> 6, (code >> 4) & 3, (code >> 2) & 3, code & 3};
        if ((1 << d[0] | 1 << d[1] | 1 << d[2] | 1 << d[3]) != 15) continue;
        for (int k = 0; k < 4; k++) out[n][k] = "SCTP"[d[k]];
        out[n][4] = '\0';
        n++;
    }
    return n;
}

static int64_t size_of(const skytune_values *p, char letter)
{
    switch (letter) {
    case 'S': return skytune_int(p, "stations");
    case 'C': return skytune_int(p, "channels");
    case 'T': return skytune_int(p, "samples");
    default: return skytune_int(p, "polarizations");
    }
}

/* The space's size, counted here from the rules the README documents, with
 * this device's limits. */
static uint64_t brute_force_count(const skytune_values *p, const skytune_device_info *dev)
{
    static const int64_t tiles[] = {8, 16, 32, 64};
    char lay[24][5];
    cr_assert_eq(orderings(lay), 24);
    uint64_t count = 0;
    for (int i = 0; i < 24; i++)
        for (int o = 0; o < 24; o++)
            for (int tiled = 0; tiled <= 1; tiled++)
                for (size_t t = 0; t < COUNT_OF(tiles); t++)
                    for (int64_t x = 1; x <= 256; x *= 2)
                        for (int64_t y = 1; y <= 256; y *= 2) {
                            const int64_t tile = tiles[t];
                            if (x * y > dev->max_work_group_size ||
                                x > dev->max_work_item_sizes[0] ||
                                y > dev->max_work_item_sizes[1])
                                continue;
                            if (!tiled) {
                                const int64_t inner = size_of(p, lay[i][3]);
                                const int64_t next = size_of(p, lay[i][2]);
                                if (tile == 8 && (x == 1 || x < 2 * inner) &&
                                    (y == 1 || y < 2 * next))
                                    count++;
                                continue;
                            }
                            const char a = lay[i][3];
                            const char b = lay[o][3] != a ? lay[o][3] : lay[o][2];
                            const int64_t na = size_of(p, a), nb = size_of(p, b);
                            const int64_t side = na < nb ? na : nb;
                            if (x <= tile && y <= tile &&
                                tile * (tile + 1) * 8 <= dev->local_mem_size &&
                                (tile == 8 || tile < 2 * side))
                                count++;
                        }
    return count;
}

Test(transpose_small, space_size_matches_the_documented_rules)
{
    cr_expect_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
    problem thesis;
    resolve("thesis", NULL, 0, &thesis);
    plugin_space_request rq = {
        .plugin = h.plugin.desc, .problem = &thesis.values, .device = &h.device->info};
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_eq(plugin_space_build(&rq, &sp, &err), 0, "%s", err.message);
    cr_expect_eq(space_count(sp), brute_force_count(&thesis.values, &h.device->info));
    space_free(sp);
    problem_free(&thesis);
}

Test(transpose_small, constraints_pin_what_a_kernel_ignores_and_drop_idle_work_items)
{
    /* The direct kernel has no tile. */
    cr_expect_eq(is_valid("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=16,wg_x=2,wg_y=2"),
                 0);
    /* SCTP's innermost is P = 2: wg_x up to 2 (4 would idle half). */
    cr_expect_eq(is_valid("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=8,wg_x=2,wg_y=2"),
                 1);
    cr_expect_eq(is_valid("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=8,wg_x=4,wg_y=2"),
                 0);
    /* T = 37 next: wg_y up to 64. */
    cr_expect_eq(is_valid("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=8,wg_x=1,wg_y=64"),
                 1);
    cr_expect_eq(
        is_valid("in_layout=SCTP,out_layout=TCSP,variant=direct,tile=8,wg_x=1,wg_y=128"), 0);
    /* A tiled work-group walks its tile: no side beyond it. */
    cr_expect_eq(is_valid("in_layout=SPTC,out_layout=SPCT,variant=tiled,tile=8,wg_x=16,wg_y=1"),
                 0);
    /* Tiles of 16 over C = 11 and T = 37, not over P = 2. */
    cr_expect_eq(is_valid("in_layout=SPTC,out_layout=SPCT,variant=tiled,tile=16,wg_x=1,wg_y=1"),
                 1);
    cr_expect_eq(is_valid("in_layout=SCTP,out_layout=PTCS,variant=tiled,tile=16,wg_x=1,wg_y=1"),
                 0);
}

/* ------------------------------------------------------- through the CLI */

Test(transpose_small, only_with_a_text_that_is_no_layout_is_refused)
{
    char *dir = cli_make_temp_dir();
    cli_assert_run_refused(dir, NULL,
                           CLI_ARGS("--plugin", "transpose", "--plugin-dir", cli_plugin_dir(),
                                    "--preset", "small", "--strategy", "random", "--budget", "1",
                                    "--only", "in_layout=SCTX"),
                           1, CLI_ARGS("in_layout", "'SCTX' is not one of its values",
                                       "valid values are SCTP, SCPT", "PTCS"));
    cli_assert_run_refused(dir, NULL,
                           CLI_ARGS("--plugin", "transpose", "--plugin-dir", cli_plugin_dir(),
                                    "--preset", "thesis", "--set", "stations=100000"),
                           1, CLI_ARGS("46080000000 complex samples", "reduce stations"));
    cli_remove_tree(dir);
    free(dir);
}

Test(transpose_small, runs_show_gb_per_s_where_no_flops_are_counted)
{
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "t.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "transpose", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small", "--strategy", "random",
                                    "--budget", "3", "--runs", "2", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* One line per configuration (stdout is no terminal here), each with
     * its GB/s and no GFLOP/s. */
    cr_expect_null(strstr(r.out, "GFLOP/s"), "%s", r.out);
    int lines = 0;
    for (const char *at = r.out; (at = strstr(at, "] ok ")) != NULL; at++) {
        const char *end = strchr(at, '\n');
        const char *rate = strstr(at, " GB/s ");
        cr_expect(rate && end && rate < end, "%s", r.out);
        lines++;
    }
    cr_expect_eq(lines, 3, "%s", r.out);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("best", "--db", db));
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *throughput = cli_line_after(r.out, "throughput ");
    cr_assert_not_null(throughput, "%s", r.out);
    cr_expect(strstr(throughput, " GB/s") && !strstr(throughput, "GFLOP/s"), "%s", throughput);
    free(throughput);
    cli_result_free(&r);
    free(db);
    cli_remove_tree(dir);
    free(dir);
}

Test(transpose_small, every_measurement_records_its_layout_distance)
{
    /* SCTP to TCSP moves S two places, C one and T one: distance 4; to
     * itself, 0 (the thesis's hand counts, section 6.3). */
    char *dir = cli_make_temp_dir();
    char *db = cli_path(dir, "t.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "transpose", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small", "--only",
                                    "in_layout=SCTP", "--only", "out_layout=SCTP,TCSP", "--only",
                                    "variant=direct", "--only", "wg_x=1", "--only", "wg_y=1",
                                    "--strategy", "exhaustive", "--runs", "2", "--db", db,
                                    "--quiet"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    cr_expect_eq(cli_db_int(db, "SELECT CAST(layout_distance AS INTEGER) FROM results_transpose"
                                " WHERE out_layout = 'TCSP'"),
                 4);
    cr_expect_eq(cli_db_int(db, "SELECT CAST(layout_distance AS INTEGER) FROM results_transpose"
                                " WHERE out_layout = 'SCTP'"),
                 0);
    cr_expect_eq(cli_db_int(db, "SELECT count(*) FROM derived_values"), 2);
    free(db);
    cli_remove_tree(dir);
    free(dir);
}

/* ---------------------- larger sides: tiles of 32 and 64, partial as well */

static void open_wide(void)
{
    /* No size a multiple of 8; S, C and T all above 32. */
    static const char *const wide[] = {"stations=41", "channels=70", "samples=33",
                                       "polarizations=1"};
    open_with("small", wide, COUNT_OF(wide));
}

TestSuite(transpose_wide, .init = open_wide, .fini = close_harness, .timeout = 600);

Test(transpose_wide, large_tiles_verify)
{
    /* A = C (70), B = S (41): two tiles of 64 along C, one partial of 41
     * rows. */
    expect_ok("in_layout=PSTC,out_layout=PCTS,variant=tiled,tile=64,wg_x=64,wg_y=4");
    expect_ok("in_layout=PSTC,out_layout=PCTS,variant=tiled,tile=32,wg_x=8,wg_y=32");
    /* A = T (33), B = C: one full tile of 32 and one of a single row. */
    expect_ok("in_layout=SPCT,out_layout=STPC,variant=tiled,tile=32,wg_x=32,wg_y=8");
    /* Both end with P (size 1): the tile's second side is the output's T. */
    expect_ok("in_layout=SCTP,out_layout=CSTP,variant=tiled,tile=8,wg_x=8,wg_y=8");
    expect_ok("in_layout=SCTP,out_layout=CSTP,variant=direct,tile=8,wg_x=1,wg_y=64");
    cr_expect_eq(space_count(h.space), brute_force_count(&h.problem.values, &h.device->info));
}

/* ------------------------------------------- read_back and reference_data */

/* Read back in the output layout; verify lays the reference out in it,
 * off the device. */
Test(transpose_small, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(
        &h, "in_layout=SCTP,out_layout=TPCS,variant=direct,tile=8,wg_x=2,wg_y=2");
    plugin_expect_read_back_judged(
        &h, "in_layout=PTCS,out_layout=SCTP,variant=tiled,tile=8,wg_x=4,wg_y=2");
}

/* The reference is the input laid out per configuration in verify: there
 * is nothing computed once to share. */
Test(transpose_small, has_no_reference_data)
{
    cr_expect_null(h.plugin.desc->reference_data);
}
