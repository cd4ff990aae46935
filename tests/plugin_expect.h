/* Expectations the plugin tests share, on top of the plugin harness: a
 * configuration measures as ok, a configuration text is in the space, a
 * fixed-seed sample of the space all verifies, and a kernel of the test's
 * own goes through the plugin's callbacks to its verification report. Each fails the running
 * Criterion test itself, so the tests read as the behaviour they check. */
#ifndef SKYTUNE_TESTS_PLUGIN_EXPECT_H
#define SKYTUNE_TESTS_PLUGIN_EXPECT_H

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "plugin_harness.h"

/* Measure `config` and expect it to pass with `runs` timed runs and a
 * positive time, GFLOP/s and GB/s (GFLOP/s 0 where the plugin counts no
 * flops). *m is left for further checks; the caller clears it. Returns
 * whether the status is ok. */
static inline bool plugin_expect_measured_ok(plugin_harness *h, const char *config, size_t runs,
                                             measurement *m)
{
    skytune_error err = {0};
    measurement_init(m);
    cr_assert_eq(harness_measure(h, config, m, &err), 0, "%s: %s", config, err.message);
    cr_expect_eq(m->status, MEAS_OK, "%s: status %s: %s (max abs error %g)", config,
                 measurement_status_name(m->status), m->message ? m->message : "",
                 m->max_abs_error);
    if (m->status != MEAS_OK) return false;
    cr_expect_eq(m->n_samples, runs, "%s", config);
    cr_expect(m->median_ns > 0 && m->gbs > 0, "%s", config);
    if (h->plugin.desc->flops)
        cr_expect_gt(m->gflops, 0, "%s", config);
    else
        cr_expect_eq(m->gflops, 0, "%s", config);
    return true;
}

/* Whether the configuration written as text is in the harness's space. */
static inline int plugin_is_valid(const plugin_harness *h, const char *config)
{
    skytune_error err = {0};
    int valid = harness_is_valid(h, config, &err);
    cr_assert_geq(valid, 0, "%s: %s", config, err.message);
    return valid;
}

/* A kernel build or verification failure of any valid configuration is a
 * bug in the plugin: `count` configurations drawn with a fixed seed are
 * each given to `expect_ok`. */
static inline void plugin_expect_sample_verifies(const plugin_harness *h, uint64_t seed,
                                                 uint64_t stream, int count,
                                                 void (*expect_ok)(const char *config))
{
    pcg32 rng;
    pcg32_seed(&rng, seed, stream);
    uint16_t *idx = calloc(space_param_count(h->space) + 1, sizeof *idx);
    cr_assert_not_null(idx);
    for (int k = 0; k < count; k++) {
        char text[256];
        space_unrank(h->space, space_sample(h->space, &rng), idx);
        space_config_text(h->space, idx, text, sizeof text);
        expect_ok(text);
    }
    free(idx);
}

/* Drive the plugin's own callbacks for `config_text` with `source` as the
 * kernel (the plugin's own when NULL), built with `extra_options` (may be
 * NULL) after the measurer's: setup on the harness context, reference,
 * build, prepare, poison, one run, verify. Returns what verify reported;
 * every other step must succeed. */
static inline skytune_verify_report plugin_verify_with_kernel(const plugin_harness *h,
                                                              const char *config_text,
                                                              const char *source,
                                                              const char *extra_options)
{
    const skytune_plugin *pl = h->plugin.desc;
    skytune_error err = {0};
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    skytune_setup_context ctx = harness_setup_context(h);
    void *state = NULL, *launch = NULL;
    cl_program program = NULL;
    cr_assert_eq(pl->setup(&ctx, &state, &err), 0, "%s", err.message);
    cr_assert_eq(pl->reference(state, &err), 0, "%s", err.message);
    cr_assert_eq(harness_build(h, &config, source, extra_options, &program, &err), 0, "%s",
                 err.message);
    cr_assert_eq(pl->prepare(state, program, &config, &launch, &err), 0, "%s", err.message);
    cr_assert_eq(pl->clear_outputs(state, h->queue, &err), 0, "%s", err.message);
    cr_assert_eq(harness_run_once(h, launch, &err), 0, "%s", err.message);
    skytune_verify_report report;
    memset(&report, 0, sizeof report);
    cr_assert_eq(pl->verify(state, &config, h->queue, &report, &err), 0, "%s", err.message);
    pl->release(launch);
    clReleaseProgram(program);
    pl->teardown(state);
    return report;
}

/* Each case's setting, on top of `preset`, must be refused by the plugin's
 * problem checks with a message that contains `expected`. */
typedef struct plugin_refusal {
    const char *setting, *expected;
} plugin_refusal;

static inline void plugin_expect_refused(const plugin_harness *h, const char *preset,
                                         const plugin_refusal *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        problem p;
        skytune_error err = {0};
        cr_assert_neq(problem_resolve(h->plugin.desc, preset, &cases[k].setting, 1, &p, &err), 0,
                      "%s was accepted", cases[k].setting);
        cr_expect(strstr(err.message, cases[k].expected) != NULL, "%s: %s", cases[k].setting,
                  err.message);
    }
}

#endif
