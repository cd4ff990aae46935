/* Expectations the plugin tests share, on top of the plugin harness: a
 * configuration measures as ok, a configuration text is in the space, a
 * fixed-seed sample of the space all verifies, and a kernel of the test's
 * own goes through the plugin's callbacks to its verification report. Each fails the running
 * Criterion test itself, so the tests read as the behaviour they check. */
#ifndef SKYTUNE_TESTS_PLUGIN_EXPECT_H
#define SKYTUNE_TESTS_PLUGIN_EXPECT_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
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

/* Drive the plugin's own callbacks for `config_text` with `program` as the
 * built kernel source: setup on the harness context, reference, prepare,
 * poison, one run, verify (after read_back, where the plugin has one:
 * harness_verify_run). Returns what verify reported; every other step
 * must succeed. The program stays the caller's. */
/* A verified run whose state and launch stay open for more (the caller
 * releases and tears down). */
typedef struct verified_run {
    skytune_named_value items[16];
    skytune_values config;
    void *state, *launch;
    skytune_verify_report report;
} verified_run;

static inline void verify_run_open(const plugin_harness *h, const char *config_text,
                                   cl_program program, verified_run *run)
{
    const skytune_plugin *pl = h->plugin.desc;
    skytune_error err = {0};
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, run->items, &run->config, &err), 0, "%s",
                 err.message);
    skytune_setup_context ctx = harness_setup_context(h);
    run->state = run->launch = NULL;
    cr_assert_eq(pl->setup(&ctx, &run->state, &err), 0, "%s", err.message);
    cr_assert_eq(pl->reference(run->state, &err), 0, "%s", err.message);
    cr_assert_eq(pl->prepare(run->state, program, &run->config, &run->launch, &err), 0, "%s",
                 err.message);
    cr_assert_eq(pl->clear_outputs(run->state, h->queue, &err), 0, "%s", err.message);
    cr_assert_eq(harness_run_once(h, run->launch, &err), 0, "%s", err.message);
    cr_assert_eq(harness_verify_run(h, run->state, run->launch, &run->config, &run->report, &err),
                 0, "%s", err.message);
}

static inline void verify_run_close(const plugin_harness *h, verified_run *run)
{
    h->plugin.desc->release(run->launch);
    h->plugin.desc->teardown(run->state);
}

static inline skytune_verify_report plugin_verify_with_program(const plugin_harness *h,
                                                               const char *config_text,
                                                               cl_program program)
{
    verified_run run;
    verify_run_open(h, config_text, program, &run);
    verify_run_close(h, &run);
    return run.report;
}

/* The same with `source` (the plugin's own when NULL) built by the harness
 * with `extra_options` (may be NULL) after the measurer's options. */
static inline skytune_verify_report plugin_verify_with_kernel(const plugin_harness *h,
                                                              const char *config_text,
                                                              const char *source,
                                                              const char *extra_options)
{
    skytune_error err = {0};
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    cl_program program = NULL;
    cr_assert_eq(harness_build(h, &config, source, extra_options, &program, &err), 0, "%s",
                 err.message);
    skytune_verify_report report = plugin_verify_with_program(h, config_text, program);
    clReleaseProgram(program);
    return report;
}

/* The plugin reads back with read_back and verify judges what it read:
 * the plugin's kernel for `config_text` verifies as the engine runs it
 * (harness_verify_run: verify with no queue, the device's outputs poisoned
 * by then), and once read_back has read the poison instead, verify fails. */
static inline void plugin_expect_read_back_judged(const plugin_harness *h,
                                                  const char *config_text)
{
    const skytune_plugin *pl = h->plugin.desc;
    skytune_error err = {0};
    cr_assert_not_null(pl->read_back, "%s has no read_back", pl->name);
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    cl_program program = NULL;
    cr_assert_eq(harness_build(h, &config, NULL, NULL, &program, &err), 0, "%s", err.message);
    verified_run run;
    verify_run_open(h, config_text, program, &run);
    cr_expect_eq(run.report.passed, 1, "%s: %lld mismatches, the first at %lld", config_text,
                 (long long)run.report.mismatches, (long long)run.report.first_mismatch);
    /* harness_verify_run left the poison on the device. */
    cr_assert_eq(pl->read_back(run.state, &run.config, h->queue, &err), 0, "%s", err.message);
    skytune_verify_report report;
    memset(&report, 0, sizeof report);
    cr_assert_eq(pl->verify(run.state, &run.config, NULL, &report, &err), 0, "%s", err.message);
    cr_expect_eq(report.passed, 0, "%s: the poison read back passed", config_text);
    verify_run_close(h, &run);
    clReleaseProgram(program);
}

/* The plugin's reference_data names exactly what its reference computes:
 * with a copy of the regions in place of the reference, the plugin's kernel
 * for `config_text` still verifies, and with any one region overwritten
 * after the copy, it does not (each region is one that verify compares
 * with, or takes a tolerance from). Returns how many regions there are. */
static inline size_t plugin_expect_reference_data_covers(const plugin_harness *h,
                                                         const char *config_text)
{
    skytune_error err = {0};
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_not_null(h->plugin.desc->reference_data, "%s has no reference_data",
                       h->plugin.desc->name);
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    cl_program program = NULL;
    cr_assert_eq(harness_build(h, &config, NULL, NULL, &program, &err), 0, "%s", err.message);
    size_t regions = 0;
    skytune_verify_report report;
    cr_assert_eq(harness_verify_copied_reference(h, &config, program, -1, &regions, &report,
                                                 &err),
                 0, "%s", err.message);
    cr_expect_eq(report.passed, 1, "%s with the copied reference: %lld mismatches, the first "
                 "at %lld (max abs error %g)", config_text, (long long)report.mismatches,
                 (long long)report.first_mismatch, report.max_abs_error);
    for (size_t k = 0; k < regions; k++) {
        size_t again = 0;
        cr_assert_eq(harness_verify_copied_reference(h, &config, program, (long)k, &again,
                                                     &report, &err),
                     0, "%s", err.message);
        cr_expect_eq(report.passed, 0, "%s passed with region %zu of %zu overwritten",
                     config_text, k, regions);
    }
    clReleaseProgram(program);
    return regions;
}

/* The plugin's kernel source as it is in the source tree
 * ($SKYTUNE_SOURCE_DIR/plugins/<plugin>/<plugin>.cl) with the first
 * occurrence of each `from[k]` replaced by `to[k]`, all at once, so that a
 * test can break one index expression on purpose. Each `from[k]` must occur.
 * The caller frees the text. */
static inline char *plugin_source_with(const char *plugin, const char *const *from,
                                       const char *const *to, size_t n)
{
    const char *root = getenv("SKYTUNE_SOURCE_DIR");
    cr_assert(root && *root, "SKYTUNE_SOURCE_DIR is not set");
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/%s/%s.cl", root, plugin, plugin);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t grow = 0;
    for (size_t k = 0; k < n; k++) grow += strlen(to[k]);
    char *text = calloc((size_t)size + grow + 1, 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    /* Find every place first, then replace from the last, so that no
     * replacement is searched or shifts another's place. */
    size_t at[8];
    cr_assert_leq(n, 8);
    for (size_t k = 0; k < n; k++) {
        const char *found = strstr(text, from[k]);
        cr_assert_not_null(found, "'%s' is not in %s", from[k], path);
        at[k] = (size_t)(found - text);
    }
    for (size_t done = 0; done < n; done++) {
        size_t k = n;
        for (size_t j = 0; j < n; j++)
            if (at[j] != SIZE_MAX && (k == n || at[j] > at[k])) k = j;
        const size_t old_len = strlen(from[k]), new_len = strlen(to[k]);
        memmove(text + at[k] + new_len, text + at[k] + old_len, strlen(text + at[k] + old_len) + 1);
        memcpy(text + at[k], to[k], new_len);
        at[k] = SIZE_MAX;
    }
    return text;
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
