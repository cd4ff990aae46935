/* The vector_add plugin on the default OpenCL device (PoCL here): its
 * configurations, edge shapes included, verify against the CPU reference;
 * a kernel that is wrong in one element, or writes nothing, is caught; the
 * space, the problem checks and the work counts are what the plugin says. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_expect.h"
#include "plugin_harness.h"

static plugin_harness h;

static void open_with(const char *preset, const char *const *settings, size_t n_settings)
{
    skytune_error err = {0};
    cr_assert_eq(harness_open(&h, "vector_add", preset, settings, n_settings, 3, &err), 0, "%s",
                 err.message);
}

static void open_small(void) { open_with("small", NULL, 0); }
static void close_harness(void) { harness_close(&h); }

static void expect_ok(const char *config)
{
    measurement m;
    if (plugin_expect_measured_ok(&h, config, 3, &m)) {
        const double n = (double)skytune_int(&h.problem.values, "n");
        cr_expect_float_eq(m.gflops, n / m.median_ns, 1e-9 * n / m.median_ns, "%s", config);
        cr_expect_float_eq(m.gbs, 12.0 * n / m.median_ns, 1e-9 * n / m.median_ns, "%s", config);
    }
    measurement_clear(&m);
}

TestSuite(vector_add, .init = open_small, .fini = close_harness, .timeout = 300);

Test(vector_add, configurations_verify)
{
    expect_ok("wg_size=16,per_item=1");      /* smallest work-group */
    expect_ok("wg_size=1024,per_item=8");    /* largest tile */
    expect_ok("wg_size=64,per_item=4");
    expect_ok("wg_size=256,per_item=2");
}

Test(vector_add, space_is_every_work_group_size_the_device_allows)
{
    /* n = 65536 is larger than every tile, so only the device limit prunes. */
    uint64_t sizes = 0;
    for (int64_t wg = 16; wg <= 1024; wg *= 2)
        if (wg <= h.device->info.max_work_group_size) sizes++;
    cr_assert_eq(space_count(h.space), sizes * 4);
}

/* A kernel computing c = a + b except at element 5. */
static const char *const wrong_at_5 =
    "__kernel void vector_add(__global const float *a, __global const float *b,\n"
    "                         __global float *c)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i < n) c[i] = i == 5 ? a[i] - b[i] : a[i] + b[i];\n"
    "}\n";

/* A kernel that writes nothing: the output keeps the NaN poison. */
static const char *const writes_nothing =
    "__kernel void vector_add(__global const float *a, __global const float *b,\n"
    "                         __global float *c)\n"
    "{\n"
    "}\n";

/* Drive the plugin's own callbacks with `source` as the kernel: setup on
 * the harness context, reference, build, prepare, poison, run, verify. */
static skytune_verify_report verify_with_kernel(const char *source, const char *config_text)
{
    return plugin_verify_with_kernel(&h, config_text, source, NULL);
}

Test(vector_add, verification_catches_one_wrong_element)
{
    /* The same path with the real kernel passes, so the failure below is
     * the wrong element and nothing else. */
    skytune_verify_report good = verify_with_kernel(NULL, "wg_size=64,per_item=1");
    cr_assert_eq(good.passed, 1);
    cr_assert_eq(good.first_mismatch, -1);

    skytune_verify_report bad = verify_with_kernel(wrong_at_5, "wg_size=64,per_item=1");
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 5);
    cr_assert_eq(bad.mismatches, 1);
    cr_assert(bad.max_abs_error > 0.0);
}

Test(vector_add, verification_catches_a_kernel_that_writes_nothing)
{
    skytune_verify_report bad = verify_with_kernel(writes_nothing, "wg_size=64,per_item=1");
    cr_assert_eq(bad.passed, 0);
    cr_assert_eq(bad.first_mismatch, 0);
    cr_assert_eq(bad.mismatches, skytune_int(&h.problem.values, "n"));
}

Test(vector_add, work_counts)
{
    skytune_named_value items[] = {{"n", {.type = SKYTUNE_INT, .i = 10}}};
    skytune_values ten = {.count = 1, .items = items};
    cr_assert_float_eq(h.plugin.desc->flops(&ten, NULL), 10.0, 1e-12);
    cr_assert_float_eq(h.plugin.desc->bytes(&ten, NULL), 120.0, 1e-12); /* 3 × 4 × 10 */
}

Test(vector_add, problem_check_names_n)
{
    problem p;
    skytune_error err = {0};
    const char *zero[] = {"n=0"};
    cr_assert_neq(problem_resolve(h.plugin.desc, NULL, zero, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "n must be at least 1") != NULL, "%s", err.message);
}

/* Sizes that are not a multiple of any tile: the kernel's bounds check. */
static void open_odd(void)
{
    static const char *const odd[] = {"n=1001"};
    open_with(NULL, odd, 1);
}

TestSuite(vector_add_odd_n, .init = open_odd, .fini = close_harness, .timeout = 300);

Test(vector_add_odd_n, remainders_are_handled_in_the_kernel)
{
    expect_ok("wg_size=16,per_item=1");
    expect_ok("wg_size=128,per_item=4");
    expect_ok("wg_size=64,per_item=8");
    expect_ok("wg_size=1024,per_item=1"); /* one work-group, mostly idle */
}

static void open_single(void)
{
    static const char *const single[] = {"n=1"};
    open_with(NULL, single, 1);
}

TestSuite(vector_add_single, .init = open_single, .fini = close_harness, .timeout = 300);

Test(vector_add_single, a_single_element_keeps_per_item_1)
{
    skytune_error err = {0};
    cr_assert_eq(harness_is_valid(&h, "wg_size=16,per_item=8", &err), 0,
                 "tiles larger than the problem are pruned");
    cr_assert_eq(harness_is_valid(&h, "wg_size=16,per_item=1", &err), 1, "%s", err.message);
    expect_ok("wg_size=16,per_item=1");
    expect_ok("wg_size=1024,per_item=1");
}

/* ------------------------------------------- read_back and reference_data */

Test(vector_add, verify_compares_what_read_back_read)
{
    plugin_expect_read_back_judged(&h, "wg_size=64,per_item=4");
}

Test(vector_add, reference_data_names_all_the_reference_computes)
{
    cr_expect_eq(plugin_expect_reference_data_covers(&h, "wg_size=64,per_item=4"), 1);
}
