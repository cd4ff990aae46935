/* Expectations on a stage module beside its plugin's harness: that the
 * macro list the module makes for a configuration is what the engine builds
 * the plugin's kernel with, and that the kernel source built as a section of
 * those macros, with no -D at all (as a pipeline builds it), verifies
 * through the plugin's callbacks. Each fails the running Criterion test. */
#ifndef SKYTUNE_TESTS_STAGE_EXPECT_H
#define SKYTUNE_TESTS_STAGE_EXPECT_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_expect.h"
#include "plugin_harness.h"
#include "stage_macros.h"

/* A stage module's <stage>_macros_of_values. */
typedef int (*stage_macros_fn)(const skytune_values *problem, const skytune_values *config,
                               stage_macros *m, skytune_error *err);

/* The stage's macros for the harness's problem and `config_text`. */
static inline void stage_macros_for(const plugin_harness *h, const char *config_text,
                                    stage_macros_fn macros_of, stage_macros *m)
{
    skytune_error err = {0};
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_lt(space_param_count(h->space), 16);
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    cr_assert_eq(macros_of(&h->problem.values, &config, m, &err), 0, "%s", err.message);
}

/* Every macro of `m` is in the plugin's build options for `config_text`,
 * as " -D NAME=VALUE" (the parameters from the engine, the derived ones from
 * the plugin's `defines`). Returns how many of them are derived. */
static inline size_t stage_expect_macros_in_build_options(const plugin_harness *h,
                                                          const char *config_text,
                                                          const stage_macros *m)
{
    skytune_error err = {0};
    skytune_named_value items[16];
    skytune_values config;
    cr_assert_eq(harness_config(h, config_text, items, &config, &err), 0, "%s", err.message);
    char options[8192];
    cr_assert_eq(measurer_build_options(h->measurer, &config, options, sizeof options, &err), 0,
                 "%s", err.message);
    size_t derived = 0;
    for (size_t k = 0; k < m->count; k++) {
        char option[128];
        snprintf(option, sizeof option, " -D %s=%s", m->items[k].name, m->items[k].value);
        const char *at = strstr(options, option);
        cr_expect(at && (at[strlen(option)] == ' ' || at[strlen(option)] == '\0'),
                  "'%s' is not in the build options: %s", option, options);
        derived += m->items[k].derived;
    }
    return derived;
}

/* Build `text` on the harness's device with no -D at all: every macro must
 * come from the text. */
static inline cl_program stage_build_program(cl_context context, cl_device_id device,
                                             const char *text)
{
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &text, NULL, &status);
    cr_assert_eq(status, CL_SUCCESS);
    status = clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (status != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        log[sizeof log - 1] = '\0';
        cr_assert_fail("the program does not build (%d):\n%s", status, log);
    }
    return program;
}

/* `source` as the section of `m` (stage_macros_section), built alone, run
 * and verified through the plugin's callbacks for `config_text`. */
static inline skytune_verify_report stage_verify_section(const plugin_harness *h,
                                                         const char *config_text,
                                                         const stage_macros *m,
                                                         const char *source)
{
    char *section = stage_macros_section(m, source);
    cr_assert_not_null(section);
    cl_program program = stage_build_program(h->context, h->device->device, section);
    free(section);
    skytune_verify_report report = plugin_verify_with_program(h, config_text, program);
    clReleaseProgram(program);
    return report;
}

#endif
