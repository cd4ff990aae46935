#include "plugin_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int harness_open(plugin_harness *h, const char *name, const char *preset,
                 const char *const *settings, size_t n_settings, unsigned runs,
                 skytune_error *err)
{
    memset(h, 0, sizeof *h);
    h->seed = 1;
    const char *dir = getenv("SKYTUNE_PLUGIN_DIR");
    if (!dir || !*dir)
        return skytune_error_set(err, -1, "SKYTUNE_PLUGIN_DIR is not set (the folder holding %s.so)",
                                 name);
    const char *dirs[] = {dir};
    plugin_search search = {.dirs = dirs, .n_dirs = 1};
    if (plugin_load(name, &search, &h->plugin, err) != 0) return -1;
    const skytune_plugin *pl = h->plugin.desc;

    if (problem_resolve(pl, preset, settings, n_settings, &h->problem, err) != 0) goto failed;

    size_t chosen = 0;
    if (cl_devices_list(&h->devices, &h->n_devices, err) != 0 ||
        cl_device_select(h->devices, h->n_devices, NULL, &chosen, err) != 0)
        goto failed;
    h->device = &h->devices[chosen];

    h->request = (plugin_space_request){
        .plugin = pl, .problem = &h->problem.values, .device = &h->device->info};
    if (plugin_space_build(&h->request, &h->space, err) != 0) goto failed;

    measurer_options opts = {.runs = runs, .seed = h->seed};
    if (measurer_open(pl, h->device, &h->problem.values, &opts, &h->measurer, err) != 0)
        goto failed;

    cl_int status = CL_SUCCESS;
    h->context = clCreateContext(NULL, 1, &h->device->device, NULL, NULL, &status);
    if (status == CL_SUCCESS)
        h->queue = clCreateCommandQueue(h->context, h->device->device,
                                        CL_QUEUE_PROFILING_ENABLE, &status);
    if (status != CL_SUCCESS) {
        skytune_error_set(err, -1, "cannot create a context and queue on %s: %s",
                          h->device->info.name, cl_error_name(status));
        goto failed;
    }
    return 0;

failed:
    harness_close(h);
    return -1;
}

void harness_close(plugin_harness *h)
{
    if (h->queue) clReleaseCommandQueue(h->queue);
    if (h->context) clReleaseContext(h->context);
    measurer_close(h->measurer);
    space_free(h->space);
    free(h->devices);
    problem_free(&h->problem);
    plugin_unload(&h->plugin);
    memset(h, 0, sizeof *h);
}

static int parse_indices(const plugin_harness *h, const char *text, uint16_t **idx,
                         skytune_error *err)
{
    size_t n = space_param_count(h->space);
    *idx = calloc(n ? n : 1, sizeof **idx);
    if (!*idx) return skytune_error_set(err, -1, "out of memory");
    if (space_parse_config(h->space, text, *idx, err) != 0) {
        free(*idx);
        *idx = NULL;
        return -1;
    }
    return 0;
}

int harness_is_valid(const plugin_harness *h, const char *text, skytune_error *err)
{
    uint16_t *idx;
    if (parse_indices(h, text, &idx, err) != 0) return -1;
    int valid = space_is_valid(h->space, idx) ? 1 : 0;
    free(idx);
    return valid;
}

int harness_config(const plugin_harness *h, const char *text, skytune_named_value *items,
                   skytune_values *config, skytune_error *err)
{
    uint16_t *idx;
    if (parse_indices(h, text, &idx, err) != 0) return -1;
    if (!space_is_valid(h->space, idx)) {
        free(idx);
        return skytune_error_set(err, -1, "configuration '%s' breaks a constraint of plugin %s",
                                 text, h->plugin.desc->name);
    }
    space_config_values(h->space, idx, items);
    free(idx);
    *config = (skytune_values){.count = space_param_count(h->space), .items = items};
    return 0;
}

int harness_measure(plugin_harness *h, const char *text, measurement *m, skytune_error *err)
{
    size_t n = space_param_count(h->space);
    skytune_named_value *items = calloc(n ? n : 1, sizeof *items);
    if (!items) return skytune_error_set(err, -1, "out of memory");
    skytune_values config;
    int rc = harness_config(h, text, items, &config, err);
    if (rc == 0) rc = measurer_measure(h->measurer, &config, m, err);
    free(items);
    return rc;
}

int harness_build(const plugin_harness *h, const skytune_values *config, const char *source,
                  const char *extra_options, cl_program *program, skytune_error *err)
{
    char options[8192];
    if (measurer_build_options(h->measurer, config, options, sizeof options, err) != 0)
        return -1;
    if (extra_options) {
        size_t used = strlen(options);
        if (snprintf(options + used, sizeof options - used, " %s", extra_options) >=
            (int)(sizeof options - used))
            return skytune_error_set(err, -1, "build options do not fit in %zu bytes",
                                     sizeof options);
    }
    /* The plugin's own: generated for the configuration where the plugin
     * generates its source (a pipeline's sections), else its kernel_source. */
    char *generated = NULL;
    if (!source && h->plugin.desc->generate_source) {
        if (h->plugin.desc->generate_source(config, &h->problem.values, &generated, err) != 0)
            return -1;
        source = generated;
    }
    if (!source) source = h->plugin.desc->kernel_source;
    cl_int status = CL_SUCCESS;
    *program = clCreateProgramWithSource(h->context, 1, &source, NULL, &status);
    free(generated);
    if (status != CL_SUCCESS)
        return skytune_error_set(err, -1, "clCreateProgramWithSource: %s", cl_error_name(status));
    status = clBuildProgram(*program, 1, &h->device->device, options, NULL, NULL);
    if (status != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(*program, h->device->device, CL_PROGRAM_BUILD_LOG, sizeof log,
                              log, NULL);
        log[sizeof log - 1] = '\0';
        clReleaseProgram(*program);
        *program = NULL;
        return skytune_error_set(err, -1, "%s with options '%s'\n%s", cl_error_name(status),
                                 options, log);
    }
    return 0;
}

skytune_setup_context harness_setup_context(const plugin_harness *h)
{
    return (skytune_setup_context){
        .context = h->context,
        .device = h->device->device,
        .queue = h->queue,
        .problem = &h->problem.values,
        .device_info = &h->device->info,
        .seed = h->seed,
        .plugin = h->plugin.desc,
    };
}

int harness_run_once(const plugin_harness *h, void *launch, skytune_error *err)
{
    skytune_events events = {0};
    if (h->plugin.desc->enqueue(launch, h->queue, &events, err) != 0) return -1;
    cl_int status = clFinish(h->queue);
    for (size_t k = 0; k < events.count; k++) clReleaseEvent(events.events[k]);
    if (status != CL_SUCCESS)
        return skytune_error_set(err, -1, "clFinish: %s", cl_error_name(status));
    return 0;
}

int harness_verify_run(const plugin_harness *h, void *state, void *launch,
                       const skytune_values *config, skytune_verify_report *report,
                       skytune_error *err)
{
    const skytune_plugin *pl = h->plugin.desc;
    memset(report, 0, sizeof *report);
    if (!pl->read_back) {
        if (pl->verify(state, config, h->queue, report, err) != 0) return -1;
        return 0;
    }
    if (pl->read_back(state, config, h->queue, err) != 0) return -1;
    /* What the device does before the engine compares: a timed run over
     * the outputs (adding to them, where a kernel accumulates), and here the
     * poison on top, so that only the host copy still holds the
     * verification run's outputs. */
    if (harness_run_once(h, launch, err) != 0) return -1;
    if (pl->clear_outputs(state, h->queue, err) != 0) return -1;
    if (clFinish(h->queue) != CL_SUCCESS)
        return skytune_error_set(err, -1, "clFinish after the poison failed");
    /* No queue: a verify that still reads the device fails loudly. */
    if (pl->verify(state, config, NULL, report, err) != 0) return -1;
    return 0;
}

int harness_verify_copied_reference(const plugin_harness *h, const skytune_values *config,
                                    cl_program program, long corrupt, size_t *n_regions,
                                    skytune_verify_report *report, skytune_error *err)
{
    const skytune_plugin *pl = h->plugin.desc;
    memset(report, 0, sizeof *report);
    *n_regions = 0;
    if (!pl->reference_data)
        return skytune_error_set(err, -1, "plugin %s has no reference_data", pl->name);
    skytune_setup_context ctx = harness_setup_context(h);
    void *computed = NULL, *copied = NULL, *launch = NULL;
    skytune_region from[SKYTUNE_MAX_REFERENCE_REGIONS], to[SKYTUNE_MAX_REFERENCE_REGIONS];
    size_t n_from = 0, n_to = 0;
    int rc = -1;
    /* reference_data is called after setup and before reference, as the
     * engine does: the regions are where reference will write. */
    if (pl->setup(&ctx, &computed, err) != 0) goto done;
    if (pl->reference_data(computed, from, SKYTUNE_MAX_REFERENCE_REGIONS, &n_from, err) != 0)
        goto done;
    if (pl->reference(computed, err) != 0) goto done;
    if (pl->setup(&ctx, &copied, err) != 0) goto done;
    if (pl->reference_data(copied, to, SKYTUNE_MAX_REFERENCE_REGIONS, &n_to, err) != 0)
        goto done;
    if (n_from != n_to || n_from == 0 || n_from > SKYTUNE_MAX_REFERENCE_REGIONS) {
        skytune_error_set(err, -1, "reference_data named %zu and then %zu regions", n_from,
                          n_to);
        goto done;
    }
    for (size_t k = 0; k < n_from; k++) {
        if (from[k].bytes != to[k].bytes || !from[k].data || !to[k].data ||
            from[k].data == to[k].data) {
            skytune_error_set(err, -1, "region %zu differs between two states set up alike "
                              "(%zu and %zu bytes)", k, from[k].bytes, to[k].bytes);
            goto done;
        }
        memcpy(to[k].data, from[k].data, from[k].bytes);
    }
    /* Every byte 0xff: NaN in every float or double of the region, so that
     * whatever verify takes from it (a value to compare with, a bound of a
     * tolerance) fails the comparison. */
    if (corrupt >= 0 && (size_t)corrupt < n_from) memset(to[corrupt].data, 0xff, to[corrupt].bytes);
    *n_regions = n_from;
    if (pl->prepare(copied, program, config, &launch, err) != 0) goto done;
    if (pl->clear_outputs(copied, h->queue, err) != 0) goto done;
    if (harness_run_once(h, launch, err) != 0) goto done;
    rc = harness_verify_run(h, copied, launch, config, report, err);
done:
    if (launch) pl->release(launch);
    if (copied) pl->teardown(copied);
    if (computed) pl->teardown(computed);
    return rc;
}
