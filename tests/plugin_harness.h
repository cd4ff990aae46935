/* A helper for plugin tests: load a built plugin the way the engine does,
 * resolve a problem, pick the default OpenCL device, build the plugin's
 * search space and open a measurer, then measure configurations written as
 * text ("wi_samples=32,wi_dms=4,...").
 *
 * For tests that must get between the engine and the plugin (a corrupted
 * kernel, say), the harness also has its own context and queue on the same
 * device, and builds programs with exactly the options the measurer would use.
 *
 * Plugins are found in $SKYTUNE_PLUGIN_DIR (the build tree's plugins/ folder
 * when run by meson). Functions return 0, or -1 with a message in err. */
#ifndef SKYTUNE_TESTS_PLUGIN_HARNESS_H
#define SKYTUNE_TESTS_PLUGIN_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "cl_device.h"
#include "measurement.h"
#include "measurer.h"
#include "plugin_loader.h"
#include "plugin_problem.h"
#include "plugin_space.h"
#include "space.h"

/* The space keeps a pointer to `request`, so a harness must not move once
 * opened: keep it in static storage or on the stack of the test. */
typedef struct plugin_harness {
    loaded_plugin plugin;
    problem problem;
    cl_device_entry *devices;
    size_t n_devices;
    const cl_device_entry *device;
    plugin_space_request request;
    space *space;
    measurer *measurer;
    cl_context context;          /* for driving callbacks directly */
    cl_command_queue queue;      /* in-order, with profiling */
    uint64_t seed;
} plugin_harness;

/* Everything above, for plugin `name` with `preset` (may be NULL) and
 * "name=value" settings on top. `runs` timed runs per measurement. On
 * failure, whatever was opened is closed again. */
int harness_open(plugin_harness *h, const char *name, const char *preset,
                 const char *const *settings, size_t n_settings, unsigned runs,
                 skytune_error *err);
void harness_close(plugin_harness *h);

/* A configuration's values from its text. Fails when a name or value is not
 * in the plugin's lists, or when the configuration breaks a constraint (a
 * test that means to measure a valid configuration should say so loudly).
 * `items` must hold space_param_count(h->space) entries; string values
 * point into the space. */
int harness_config(const plugin_harness *h, const char *text, skytune_named_value *items,
                   skytune_values *config, skytune_error *err);

/* Whether the configuration written as text is in the space; -1 when it
 * does not parse. */
int harness_is_valid(const plugin_harness *h, const char *text, skytune_error *err);

/* Measure one configuration through the engine's measurer: build, verify
 * against the reference, time. The caller clears *m. */
int harness_measure(plugin_harness *h, const char *text, measurement *m, skytune_error *err);

/* Build `source` (the plugin's own kernel when NULL, generated for `config`
 * where the plugin has generate_source) on the harness context
 * with the measurer's build options for `config` (the -D defines of every
 * parameter and the plugin's `defines`), plus `extra_options` (may be NULL)
 * appended after them. */
int harness_build(const plugin_harness *h, const skytune_values *config, const char *source,
                  const char *extra_options, cl_program *program, skytune_error *err);

/* The setup context for calling the plugin's setup on the harness's own
 * context and queue with the harness's problem. */
skytune_setup_context harness_setup_context(const plugin_harness *h);

/* One run of `launch` on the harness queue, waiting for it to finish. */
int harness_run_once(const plugin_harness *h, void *launch, skytune_error *err);

/* The outputs of the run just made with `launch` compared as the engine
 * compares them. A plugin without read_back: verify on the queue. With
 * read_back: read_back, then another run and the outputs poisoned on the
 * device, then verify with no queue at all, so that a verify still reading
 * the device, or a read_back reading nothing, fails. */
int harness_verify_run(const plugin_harness *h, void *state, void *launch,
                       const skytune_values *config, skytune_verify_report *report,
                       skytune_error *err);

/* reference_data against reference: one state set up and its reference
 * computed, a second set up alike whose reference_data regions receive a
 * copy of the first's (the engine's shared reference) without reference
 * being called, then `program` prepared, run and verified for `config` in
 * the second. With `corrupt` >= 0, that region is overwritten with 0xff
 * bytes after the copy. *n_regions: how many regions the plugin named.
 * -1 when a step fails, or the two states name regions of other sizes. */
int harness_verify_copied_reference(const plugin_harness *h, const skytune_values *config,
                                    cl_program program, long corrupt, size_t *n_regions,
                                    skytune_verify_report *report, skytune_error *err);

#endif
