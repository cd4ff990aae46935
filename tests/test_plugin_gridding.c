/* The convolution gridding plugin on the default OpenCL device (PoCL here):
 * every variant (atomic, tiled with its tile in local or private memory,
 * hybrid with a central box and with a tiled fraction, Romein strided and
 * whole) equals the serial reference on uniform, concentrated and EPIC
 * data, with footprints that cross tile borders and the grid's edge, w-planes
 * of different supports, one to four polarizations and a single visibility;
 * each run reports its clear, sort and grid parts; verification catches a
 * dropped visibility, a dropped weight and a kernel that writes nothing; the
 * work counts, the problem checks and the space (per variant, without
 * duplicates) are what the plugin documents. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_expect.h"
#include "plugin_harness.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define RUNS 2

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "gridding", preset, settings, n_settings, RUNS, &err), 0, "%s",
                 err.message);
}

static void close_harness(void) { harness_close(&h); }

/* A whole configuration from the parameters that matter to it: every
 * parameter not named in `text` takes the value the constraints pin it to. */
static void full_config(const char *text, char *out, size_t len)
{
    static const char *const pinned[] = {
        "variant=atomic", "wg_size=8",           "tile_size=8",     "groups_per_tile=1",
        "tile_registers=0", "box_radius=0",      "tiled_fraction=1", "pols_per_item=1",
        "reorder_kernels=0", "romein_loop=strided", "float_atomics=cas"};
    size_t used = (size_t)snprintf(out, len, "%s", text);
    for (size_t k = 0; k < COUNT_OF(pinned); k++) {
        const size_t name_len = (size_t)(strchr(pinned[k], '=') - pinned[k]);
        char key[40];
        snprintf(key, sizeof key, "%.*s=", (int)name_len, pinned[k]);
        const char *at = strstr(text, key);
        if (at && (at == text || at[-1] == ',')) continue;
        used += (size_t)snprintf(out + used, len - used, ",%s", pinned[k]);
    }
    cr_assert_lt(used, len);
}

static const measurement_part *part(const measurement *m, size_t k)
{
    cr_assert_lt(k, m->n_parts);
    return &m->parts[k];
}

/* Measure through the engine: it must verify, and its parts must be the
 * grid and weight clears, then (tiled and hybrid) the four steps of the
 * sort, then one or more gridding kernels. */
static void expect_ok(const char *text)
{
    char config[512];
    full_config(text, config, sizeof config);
    measurement m;
    if (plugin_expect_measured_ok(&h, config, RUNS, &m)) {
        cr_expect_geq(m.n_parts, 3, "%s: %zu parts", config, m.n_parts);
        cr_expect_str_eq(part(&m, 0)->label, "clear", "%s", config);
        cr_expect_str_eq(part(&m, 1)->label, "clear", "%s", config);
        const bool sorted = strstr(config, "variant=tiled") || strstr(config, "variant=hybrid");
        size_t k = 2;
        if (sorted)
            for (; k < 6; k++) cr_expect_str_eq(part(&m, k)->label, "sort", "%s", config);
        cr_expect_gt(m.n_parts, k, "%s: no grid part", config);
        for (; k < m.n_parts; k++) cr_expect_str_eq(part(&m, k)->label, "grid", "%s", config);
    }
    measurement_clear(&m);
}

static void expect_all_ok(const char *const *configs, size_t n)
{
    for (size_t k = 0; k < n; k++) expect_ok(configs[k]);
}

typedef void (*census_fn)(const void *, int64_t, int64_t[3]);

/* The plugin's census of the harness problem's data: footprints crossing
 * the grid's edge, crossing borders of `tile_size` tiles, distinct supports. */
static void census(int64_t tile_size, int64_t counts[3])
{
    census_fn f = (census_fn)(uintptr_t)dlsym(h.plugin.handle, "skytune_gridding_census");
    cr_assert_not_null(f, "the plugin exports skytune_gridding_census");
    const skytune_plugin *pl = h.plugin.desc;
    skytune_error err = {0};
    skytune_setup_context ctx = harness_setup_context(&h);
    void *state = NULL;
    cr_assert_eq(pl->setup(&ctx, &state, &err), 0, "%s", err.message);
    f(state, tile_size, counts);
    pl->teardown(state);
}

/* ------------------------------------------------------------ small preset */

static void open_small(void) { open_with("small", NULL, 0); }

TestSuite(gridding_small, .init = open_small, .fini = close_harness, .timeout = 600);

Test(gridding_small, every_variant_verifies)
{
    /* small: a 24 x 24 grid, 2 batches of 256 visibilities, tracks of 8, 3
     * planes of supports 1, 2 and 3, half of the tracks in a halo of radius
     * 3, the rest over the whole grid. Tiles of 8: a 3 x 3 lattice. */
    static const char *const configs[] = {
        "variant=atomic,wg_size=8",
        "variant=atomic,wg_size=64,reorder_kernels=1",
        "variant=romein,wg_size=16",
        "variant=romein,wg_size=8,romein_loop=whole,reorder_kernels=1",
        "variant=tiled,wg_size=8,tile_registers=1",
        "variant=tiled,wg_size=64,groups_per_tile=4,reorder_kernels=1",
        "variant=tiled,wg_size=16,groups_per_tile=4",
        /* the central box alone (every tile tiled), with many groups */
        "variant=hybrid,wg_size=32,box_radius=1,groups_per_tile=64,tile_registers=1",
        /* only the central tile tiled, the rest atomic */
        "variant=hybrid,wg_size=16,tiled_fraction=0.75,reorder_kernels=1",
        /* both */
        "variant=hybrid,wg_size=8,box_radius=1,groups_per_tile=4,tiled_fraction=0.75",
    };
    expect_all_ok(configs, COUNT_OF(configs));
}

Test(gridding_small, the_data_crosses_edges_and_borders_with_three_supports)
{
    int64_t counts[3];
    census(8, counts);
    cr_expect_gt(counts[0], 0, "no footprint crosses the grid's edge");
    cr_expect_gt(counts[1], 0, "no footprint crosses a tile border");
    cr_expect_eq(counts[2], 3, "%lld different supports", (long long)counts[2]);
}

/* The valid configurations of each variant for `small` (a 24 x 24 grid,
 * support_max 3: 49-point footprints, track_length 8, extent 1, one
 * polarization) by hand, on any device with at least 64 work-items per group
 * and 512 bytes of local memory:
 *   atomic  wg 8..64 (below twice the 49-point footprint) x reorder 2 = 8
 *   romein  strided: the same 8; whole: wg 8 (at most track_length) x 2 = 2
 *   tiled   tile 8 only (two tiles must fit in 24); wg 8..64 (tile..tile^2)
 *           x groups 1, 4 (at most 8) x registers 2 x reorder 2 = 32
 *   hybrid  tile 8, wg 8..64, registers 2, reorder 2 = 16 for each of: box
 *           radius 1 (3 tiles = 24 fit) with 4, 16 or 64 groups and a
 *           fraction of 0.75 or 1 (0.75 * 24 >= 16, 0.5 * 24 < 16), or no
 *           box, one group and 0.75: 7 x 16 = 112
 * all with float_atomics=cas: a device without NVIDIA's OpenCL (PoCL) is
 * offered no native float atomics. */
Test(gridding_small, space_per_variant_matches_a_hand_count)
{
    if (h.device->info.max_work_group_size < 64 || h.device->info.local_mem_size < 512)
        cr_skip_test("the hand count assumes 64 work-items and 512 bytes of local memory");
    const space *sp = h.space;
    const int variant = space_param_index(sp, "variant");
    cr_assert_geq(variant, 0);
    const size_t n = space_param_count(sp);
    skytune_named_value *items = calloc(n, sizeof *items);
    uint16_t *idx = calloc(n, sizeof *idx);
    cr_assert(items && idx);
    uint64_t atomic = 0, romein = 0, tiled = 0, hybrid = 0;
    for (uint64_t r = 0; r < space_count(sp); r++) {
        space_unrank(sp, r, idx);
        space_config_values(sp, idx, items);
        const char *name = items[variant].value.s;
        if (strcmp(name, "atomic") == 0) atomic++;
        else if (strcmp(name, "romein") == 0) romein++;
        else if (strcmp(name, "tiled") == 0) tiled++;
        else if (strcmp(name, "hybrid") == 0) hybrid++;
    }
    free(items);
    free(idx);
    cr_expect_eq(atomic, 8);
    cr_expect_eq(romein, 10);
    cr_expect_eq(tiled, 32);
    cr_expect_eq(hybrid, 112);
    cr_expect_eq(space_count(sp), 162);
}

static bool device_is_nvidia(const skytune_device_info *dev)
{
    return strstr(dev->vendor, "NVIDIA") || strstr(dev->platform, "NVIDIA");
}

/* float_atomics=native is offered where the device takes NVIDIA's PTX and
 * nowhere else: on PoCL the space holds none, the C constraint says why
 * when asked, and a build that bypassed it fails with the same reason. */
Test(gridding_small, native_float_atomics_only_where_the_device_has_them)
{
    const skytune_device_info *dev = &h.device->info;
    const bool nvidia = device_is_nvidia(dev);
    skytune_error err = {0};
    char text[512];
    full_config("variant=atomic,wg_size=8,float_atomics=native", text, sizeof text);
    cr_assert_eq(harness_is_valid(&h, text, &err), nvidia ? 1 : 0, "%s", err.message);
    full_config("variant=romein,wg_size=16,float_atomics=native", text, sizeof text);
    cr_assert_eq(harness_is_valid(&h, text, &err), nvidia ? 1 : 0, "%s", err.message);
    /* One group per tile writes each point once: no atomics to choose. */
    full_config("variant=tiled,wg_size=8,float_atomics=native", text, sizeof text);
    cr_assert_eq(harness_is_valid(&h, text, &err), 0, "%s", err.message);
    if (nvidia) cr_skip_test("this device offers native float atomics");

    const size_t n = space_param_count(h.space);
    skytune_named_value *items = calloc(n, sizeof *items);
    cr_assert_not_null(items);
    skytune_values config;
    full_config("variant=atomic,wg_size=8", text, sizeof text);
    cr_assert_eq(harness_config(&h, text, items, &config, &err), 0, "%s", err.message);
    for (size_t k = 0; k < n; k++)
        if (strcmp(items[k].name, "float_atomics") == 0) items[k].value.s = "native";
    const char *why = NULL;
    cr_assert_eq(h.plugin.desc->constraint(&config, &h.problem.values, dev, &why), 0);
    cr_assert_not_null(why);
    cr_expect(strstr(why, "NVIDIA's OpenCL"), "%s", why);
    /* Measured anyway, it fails to build, naming the reason and the device. */
    measurement m;
    cr_assert_eq(measurer_measure(h.measurer, &config, &m, &err), 0, "%s", err.message);
    cr_expect_eq(m.status, MEAS_COMPILE);
    cr_expect(m.message && strstr(m.message, "float_atomics=native needs NVIDIA's OpenCL"), "%s",
              m.message ? m.message : "");
    measurement_clear(&m);
    free(items);
}

/* The parameters each variant uses; the others must be pinned, so that no
 * two configurations of the space differ only in what the variant ignores. */
static bool matters(const char *variant, const char *param)
{
    static const char *const used[][9] = {
        {"atomic", "wg_size", "pols_per_item", "reorder_kernels", "float_atomics"},
        {"romein", "wg_size", "pols_per_item", "reorder_kernels", "romein_loop", "float_atomics"},
        {"tiled", "wg_size", "pols_per_item", "reorder_kernels", "tile_size", "groups_per_tile",
         "tile_registers", "float_atomics"},
        {"hybrid", "wg_size", "pols_per_item", "reorder_kernels", "tile_size", "groups_per_tile",
         "tile_registers", "box_radius", "float_atomics"},
    };
    if (strcmp(param, "variant") == 0) return true;
    if (strcmp(variant, "hybrid") == 0 && strcmp(param, "tiled_fraction") == 0) return true;
    for (size_t v = 0; v < COUNT_OF(used); v++)
        if (strcmp(used[v][0], variant) == 0)
            for (size_t k = 1; k < 9 && used[v][k]; k++)
                if (strcmp(used[v][k], param) == 0) return true;
    return false;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every configuration, reduced to the values that matter for its variant,
 * is different from every other. */
static void expect_no_duplicates(void)
{
    const space *sp = h.space;
    const size_t n = space_param_count(sp);
    const uint64_t count = space_count(sp);
    skytune_named_value *items = calloc(n, sizeof *items);
    uint16_t *idx = calloc(n, sizeof *idx);
    char **keys = calloc(count, sizeof *keys);
    cr_assert(items && idx && keys);
    const int variant = space_param_index(sp, "variant");
    for (uint64_t r = 0; r < count; r++) {
        space_unrank(sp, r, idx);
        space_config_values(sp, idx, items);
        char key[512];
        size_t used = 0;
        for (size_t k = 0; k < n; k++) {
            if (!matters(items[variant].value.s, items[k].name)) continue;
            const skytune_value *v = &items[k].value;
            if (v->type == SKYTUNE_STRING)
                used += (size_t)snprintf(key + used, sizeof key - used, "%s=%s,", items[k].name, v->s);
            else if (v->type == SKYTUNE_FLOAT)
                used += (size_t)snprintf(key + used, sizeof key - used, "%s=%g,", items[k].name, v->f);
            else
                used += (size_t)snprintf(key + used, sizeof key - used, "%s=%lld,", items[k].name,
                                         (long long)v->i);
        }
        keys[r] = strdup(key);
    }
    qsort(keys, count, sizeof *keys, compare_strings);
    for (uint64_t r = 1; r < count; r++)
        cr_expect_str_neq(keys[r - 1], keys[r], "two configurations run the same code: %s",
                          keys[r]);
    for (uint64_t r = 0; r < count; r++) free(keys[r]);
    free(keys);
    free(items);
    free(idx);
}

Test(gridding_small, no_two_configurations_run_the_same_code)
{
    expect_no_duplicates();
}

/* A correct gridder of our own as grid_atomic, for configurations with the
 * original cube of kernels: work-item 0 of each batch grids the whole batch
 * alone, in stream order. -D DROP=n leaves visibility n's grid contributions
 * out, -D DROP_WEIGHT=n its weight. */
static const char *const serial_gridder =
    "static inline void add_float(volatile __global float *t, float x)\n"
    "{\n"
    "    volatile __global uint *bits = (volatile __global uint *)t;\n"
    "    uint seen = *bits, expected;\n"
    "    do { expected = seen;\n"
    "         seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + x));\n"
    "    } while (seen != expected);\n"
    "}\n"
    "__kernel void grid_atomic(__global const float4 *uvwt, __global const float2 *vis,\n"
    "    __global const float2 *kernels, __global const int *plane_start,\n"
    "    __global const int *plane_support, __global float2 *grid, __global uint *weights,\n"
    "    const int4 region, const int add_weights)\n"
    "{\n"
    "    const int batch = get_global_id(1);\n"
    "    if (get_global_id(0) != 0 || get_global_id(2) != 0) return;\n"
    "    for (int i = 0; i < visibilities; i++) {\n"
    "        const int n = batch * visibilities + i;\n"
    "        const float4 p = uvwt[n];\n"
    "#ifdef DROP_WEIGHT\n"
    "        if (n != DROP_WEIGHT)\n"
    "#endif\n"
    "        weights[2 * batch] += (uint)(p.w * WEIGHT_SCALE);\n"
    "#ifdef DROP\n"
    "        if (n == DROP) continue;\n"
    "#endif\n"
    "        const float ru = round(p.x), rv = round(p.y);\n"
    "        const int gu = (int)ru + grid_size / 2, gv = (int)rv + grid_size / 2;\n"
    "        const int ou = (int)round((ru - p.x) * (float)oversample);\n"
    "        const int ov = (int)round((rv - p.y) * (float)oversample);\n"
    "        const int plane = min((int)round(sqrt(fabs(p.z))), w_planes - 1);\n"
    "        const int s = plane_support[plane];\n"
    "        for (int j = -s; j <= s; j++)\n"
    "            for (int k = -s; k <= s; k++) {\n"
    "                const int u = gu + k, v = gv + j;\n"
    "                if (u < 0 || v < 0 || u >= grid_size || v >= grid_size) continue;\n"
    "                const int iy = ov + j * oversample, ix = ou + k * oversample;\n"
    "                float2 c = kernels[(plane * CUBE_DIM + (iy < 0 ? -iy : iy)) * CUBE_DIM +\n"
    "                                   (ix < 0 ? -ix : ix)];\n"
    "                if (p.z > 0.0f) c.y = -c.y;\n"
    "                for (int pol = 0; pol < polarizations; pol++) {\n"
    "                    const float2 x = vis[n * polarizations + pol] * p.w;\n"
    "                    __global float *g = (__global float *)\n"
    "                        (grid + ((batch * polarizations + pol) * grid_size + v) * grid_size + u);\n"
    "                    add_float(g, x.x * c.x - x.y * c.y);\n"
    "                    add_float(g + 1, x.x * c.y + x.y * c.x);\n"
    "                }\n"
    "            }\n"
    "    }\n"
    "}\n";

static const char *const writes_nothing =
    "__kernel void grid_atomic(__global const float4 *uvwt, __global const float2 *vis,\n"
    "    __global const float2 *kernels, __global const int *plane_start,\n"
    "    __global const int *plane_support, __global float2 *grid, __global uint *weights,\n"
    "    const int4 region, const int add_weights)\n"
    "{\n"
    "}\n";

static skytune_verify_report verify_with(const char *source, const char *options)
{
    char config[512];
    full_config("variant=atomic,wg_size=8", config, sizeof config);
    return plugin_verify_with_kernel(&h, config, source, options);
}

/* small: 2 batches x 1 polarization x 24 x 24 points, 2 floats each. */
#define SMALL_GRID_FLOATS (2 * 24 * 24 * 2)

Test(gridding_small, verification_passes_a_serial_gridder_of_our_own)
{
    skytune_verify_report good = verify_with(serial_gridder, NULL);
    cr_assert_eq(good.passed, 1, "first mismatch %lld, max abs error %g",
                 (long long)good.first_mismatch, good.max_abs_error);
}

Test(gridding_small, verification_catches_a_dropped_visibility)
{
    /* Visibility 300 is in batch 1. */
    skytune_verify_report bad = verify_with(serial_gridder, "-D DROP=300");
    cr_assert_eq(bad.passed, 0);
    cr_expect_geq(bad.first_mismatch, SMALL_GRID_FLOATS / 2, "first mismatch %lld",
                  (long long)bad.first_mismatch);
    cr_expect_lt(bad.first_mismatch, SMALL_GRID_FLOATS);
    cr_expect_geq(bad.mismatches, 1);
}

Test(gridding_small, verification_catches_a_dropped_weight)
{
    /* Only batch 1's weight sum, which comes after the grid's floats. */
    skytune_verify_report bad = verify_with(serial_gridder, "-D DROP_WEIGHT=300");
    cr_assert_eq(bad.passed, 0);
    cr_expect_eq(bad.mismatches, 1);
    cr_expect_eq(bad.first_mismatch, SMALL_GRID_FLOATS + 1);
}

Test(gridding_small, verification_catches_a_kernel_that_writes_nothing)
{
    skytune_verify_report bad = verify_with(writes_nothing, NULL);
    cr_assert_eq(bad.passed, 0);
    cr_expect_geq(bad.mismatches, 2 + 2 * 9);
}

static void resolve(const char *const *settings, size_t n, problem *p)
{
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(h.plugin.desc, "small", settings, n, p, &err), 0, "%s",
                 err.message);
}

Test(gridding_small, work_counts_match_a_hand_count)
{
    /* An 8 x 8 grid, 2 planes (supports 1 and 2), 3 visibilities in tracks
     * of 1: tracks 0 and 2 use plane 0 (9-point footprints), track 1 plane
     * 1 (25 points). FLOPs: 2 x (2 + 8 x 9) + (2 + 8 x 25) = 350.
     * Bytes: visibilities 3 x (16 + 8) = 72; footprints (2 x 9 + 25) x
     * (8 + 16) = 1032; the grid zeroed, 64 x 8 = 512: 1616. */
    const char *tiny[] = {"grid_size=8",     "oversample=2",   "w_planes=2",
                          "support_min=1",   "support_max=2",  "visibilities=3",
                          "track_length=1",  "batches=1",      "polarizations=1"};
    problem p;
    resolve(tiny, COUNT_OF(tiny), &p);
    cr_expect_float_eq(h.plugin.desc->flops(&p.values, NULL), 350.0, 1e-9);
    cr_expect_float_eq(h.plugin.desc->bytes(&p.values, NULL), 1616.0, 1e-9);
    problem_free(&p);

    /* Two polarizations double the FLOPs; bytes: visibilities 3 x (16 + 16)
     * = 96, footprints 43 x (8 + 32) = 1720, grid 2 x 512 = 1024: 2840. */
    const char *two[] = {"grid_size=8",    "oversample=2",   "w_planes=2",
                         "support_min=1",  "support_max=2",  "visibilities=3",
                         "track_length=1", "batches=1",      "polarizations=2"};
    resolve(two, COUNT_OF(two), &p);
    cr_expect_float_eq(h.plugin.desc->flops(&p.values, NULL), 700.0, 1e-9);
    cr_expect_float_eq(h.plugin.desc->bytes(&p.values, NULL), 2840.0, 1e-9);
    problem_free(&p);
}

Test(gridding_small, problem_checks_name_the_parameter)
{
    static const plugin_refusal cases[] = {
        {"support_max=12", "support_max is larger than the grid"},
        {"oversample=0", "oversample must be at least 1"},
        {"visibilities=0", "visibilities must be at least 1"},
        {"concentration=1.5", "concentration must be between 0 and 1"},
        {"concentration=-0.1", "concentration must be between 0 and 1"},
        {"grid_size=4", "grid_size must be at least 8"},
        {"w_planes=0", "w_planes must be at least 1"},
        {"support_min=0", "support_min must be at least 1"},
        {"support_min=5", "support_max must be at least support_min"},
        {"polarizations=3", "polarizations must be 1, 2 or 4"},
        {"batches=0", "batches must be at least 1"},
        {"track_length=5", "track_length must be at least 1 and divide visibilities"},
        {"distribution=gaussian", "distribution must be uniform, concentrated or epic"},
        {"halo_radius=13", "halo_radius must be at most grid_size / 2"},
        {"halo_radius=0", "halo_radius must be positive"},
        {"extent=0", "extent must be above 0 and at most 1"},
        {"extent=1.5", "extent must be above 0 and at most 1"},
    };
    plugin_expect_refused(&h, "small", cases, COUNT_OF(cases));
}

Test(gridding_small, setup_refuses_what_the_kernels_cannot_index)
{
    /* 2 batches x 50,000^2 points: 5 x 10^9 complex values. */
    const char *huge[] = {"grid_size=50000"};
    problem p;
    resolve(huge, 1, &p);
    skytune_setup_context ctx = harness_setup_context(&h);
    ctx.problem = &p.values;
    skytune_error err = {0};
    void *state = NULL;
    cr_expect_eq(h.plugin.desc->setup(&ctx, &state, &err), SKYTUNE_ERR_PROBLEM);
    cr_expect_null(state);
    cr_expect(strstr(err.message, "the grid would hold 5000000000 complex values") &&
                  strstr(err.message, "reduce grid_size"),
              "%s", err.message);
    problem_free(&p);
}

/* ----------------------------------------------- uniform, two polarizations */

static void open_uniform(void)
{
    /* 5 planes of supports 1..6 (up to 13-point footprints) on a 64 x 64
     * grid, tracks starting anywhere on it: footprints cross the edge and
     * the borders of 16- and 32-point tiles. */
    static const char *const settings[] = {
        "grid_size=64",       "oversample=8",    "w_planes=5",    "support_min=1",
        "support_max=6",      "visibilities=512", "polarizations=2", "batches=1",
        "track_length=16",    "distribution=uniform", "extent=1.0"};
    open_with(NULL, settings, COUNT_OF(settings));
}

TestSuite(gridding_uniform, .init = open_uniform, .fini = close_harness, .timeout = 600);

Test(gridding_uniform, every_variant_verifies)
{
    static const char *const configs[] = {
        "variant=atomic,wg_size=32,pols_per_item=2,reorder_kernels=1",
        "variant=atomic,wg_size=256",
        "variant=romein,wg_size=64,pols_per_item=2",
        "variant=romein,wg_size=16,romein_loop=whole,reorder_kernels=1",
        "variant=tiled,tile_size=16,wg_size=16,tile_registers=1,pols_per_item=1",
        "variant=tiled,tile_size=32,wg_size=128,pols_per_item=2,reorder_kernels=1",
        "variant=tiled,tile_size=16,wg_size=256,groups_per_tile=4,pols_per_item=2",
        "variant=hybrid,tile_size=16,wg_size=64,tiled_fraction=0.5,tile_registers=1,"
        "pols_per_item=2",
        "variant=hybrid,tile_size=8,wg_size=32,box_radius=2,groups_per_tile=16,"
        "tiled_fraction=0.75,reorder_kernels=1",
    };
    expect_all_ok(configs, COUNT_OF(configs));
}

Test(gridding_uniform, the_data_crosses_edges_and_borders)
{
    int64_t counts[3];
    census(32, counts);
    cr_expect_gt(counts[0], 0);
    cr_expect_gt(counts[1], 0);
    cr_expect_eq(counts[2], 5);
}

Test(gridding_uniform, no_two_configurations_run_the_same_code)
{
    expect_no_duplicates();
}

/* ------------------------------------------ concentrated, four polarizations */

static void open_concentrated(void)
{
    static const char *const settings[] = {
        "grid_size=64",    "oversample=4",     "w_planes=3",    "support_min=2",
        "support_max=4",   "visibilities=256", "polarizations=4", "batches=2",
        "track_length=8",  "distribution=concentrated", "concentration=0.9",
        "halo_radius=4",   "extent=0.5"};
    open_with(NULL, settings, COUNT_OF(settings));
}

TestSuite(gridding_concentrated, .init = open_concentrated, .fini = close_harness,
          .timeout = 600);

Test(gridding_concentrated, every_variant_verifies)
{
    static const char *const configs[] = {
        "variant=atomic,wg_size=16,pols_per_item=4",
        "variant=romein,wg_size=32,pols_per_item=2,reorder_kernels=1",
        "variant=tiled,tile_size=8,wg_size=16,pols_per_item=4,tile_registers=1",
        "variant=tiled,tile_size=8,wg_size=64,groups_per_tile=4,pols_per_item=4",
        "variant=hybrid,tile_size=8,wg_size=32,box_radius=1,groups_per_tile=64,pols_per_item=2,"
        "reorder_kernels=1",
        "variant=hybrid,tile_size=8,wg_size=8,tiled_fraction=0.5",
    };
    expect_all_ok(configs, COUNT_OF(configs));
}

/* -------------------------------------------------------------------- epic */

static void open_epic(void)
{
    /* The epic preset's shape, fewer antennas and batches. */
    static const char *const settings[] = {"visibilities=64", "track_length=64", "batches=6"};
    open_with("epic", settings, COUNT_OF(settings));
}

TestSuite(gridding_epic, .init = open_epic, .fini = close_harness, .timeout = 600);

Test(gridding_epic, every_variant_verifies)
{
    static const char *const configs[] = {
        /* EPIC's original: 8 work-items, one polarization each */
        "variant=romein,wg_size=8",
        /* the note's: a work-item per antenna, both polarizations, the
         * footprint loop independent of the work-item */
        "variant=romein,wg_size=64,romein_loop=whole,pols_per_item=2",
        "variant=atomic,wg_size=32,pols_per_item=2",
        "variant=tiled,tile_size=8,wg_size=32,pols_per_item=2,tile_registers=1",
        "variant=hybrid,tile_size=8,wg_size=8,box_radius=1,groups_per_tile=4",
    };
    expect_all_ok(configs, COUNT_OF(configs));
}

/* ------------------------------------------------------- a single visibility */

static void open_single(void)
{
    static const char *const settings[] = {"visibilities=1", "track_length=1", "batches=1"};
    open_with("small", settings, COUNT_OF(settings));
}

TestSuite(gridding_single, .init = open_single, .fini = close_harness, .timeout = 600);

Test(gridding_single, every_variant_verifies)
{
    static const char *const configs[] = {
        "variant=atomic,wg_size=8",
        "variant=romein,wg_size=8",
        "variant=tiled,wg_size=64,tile_registers=1",
        "variant=hybrid,wg_size=16,box_radius=1,groups_per_tile=16,tiled_fraction=0.75",
    };
    expect_all_ok(configs, COUNT_OF(configs));
}

/* ------------------------------------------- read_back and reference_data */

/* The grid and the weight sums the kernels add into, read right after the
 * verification run: harness_verify_run runs again before verify compares. */
Test(gridding_small, verify_compares_what_read_back_read)
{
    char config[512];
    full_config("variant=atomic,wg_size=8", config, sizeof config);
    plugin_expect_read_back_judged(&h, config);
}

/* The expected grid, each point's tolerance and the batches' weight sums:
 * overwriting any one of them fails the comparison. */
Test(gridding_small, reference_data_names_all_the_reference_computes)
{
    char config[512];
    full_config("variant=atomic,wg_size=8", config, sizeof config);
    cr_expect_eq(plugin_expect_reference_data_covers(&h, config), 3);
}
