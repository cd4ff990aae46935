/* The expected outputs of a T1 kernel (t1_plugin_internal.h): the
 * ReferenceArguments' data, or outputs computed on the device by the
 * configuration of the Default values or by a reference kernel of the same
 * file, run on the same inputs.
 *
 * A reference that never changes (ReferenceArguments, or the Default's
 * outputs when no parameter changes the output) is computed once per
 * problem, and the engine copies it between workers. One that changes is
 * computed as a configuration is prepared, when its OutputParameters'
 * values differ from those of the reference at hand: measuring the
 * configurations in the order of those values computes each once. A
 * reference kernel runs from the configuration's own program (the file is
 * built once per configuration anyway), so it costs a launch, not a
 * build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_options.h"
#include "t1_expressions.h"
#include "t1_plugin_internal.h"
#include "value.h"

/* Enough for the longest build log excerpt a message shows. */
#define LOG_EXCERPT 600

bool t1_reference_is_shared(const t1_kernel *spec)
{
    if (spec->method == T1_VERIFY_KERNEL) return false;
    if (spec->method != T1_VERIFY_DEFAULT) return true;
    if (t1_has_output_params(spec)) return false;
    for (size_t k = 0; k < spec->n_args; k++)
        if (spec->args[k].output && spec->args[k].size.reads_config) return false;
    return true;
}

/* The arrays a reference computed once is kept in, made before it is
 * computed or copied in: one per ReferenceArgument, or one per output. */
int t1_expected_arrays(t1_state *s, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    bool references = spec->method == T1_VERIFY_REFERENCES;
    size_t n = references ? spec->n_refs : spec->n_args;
    for (size_t c = 0; c < n; c++) {
        size_t k = references ? spec->refs[c].target : c;
        if (!references && !spec->args[k].output) continue;
        if (s->expected[c]) continue;
        size_t bytes = s->count[k] * t1_type_size(spec->args[k].type);
        if (!(s->expected[c] = malloc(bytes ? bytes : 1)))
            return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
        s->expected_count[c] = s->count[k];
    }
    return SKYTUNE_OK;
}

static int expected_from_references(t1_state *s, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    for (size_t c = 0; c < spec->n_refs; c++) {
        const t1_reference *r = &spec->refs[c];
        size_t k = r->target;
        skytune_error why = {0};
        if (t1_fill_data(&r->fill, spec->args[k].type, s->expected[c], s->count[k], s->seed,
                         1000 + c, &why) != 0)
            return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s: reference '%s': %s", spec->path,
                                     r->name, why.message);
    }
    return SKYTUNE_OK;
}

/* "a=1,b=2" of a configuration, for messages. */
static void config_words(const skytune_values *config, char *text, size_t len)
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < config->count && used < len; k++) {
        char v[128];
        value_format(&config->items[k].value, v, sizeof v);
        used += (size_t)snprintf(text + used, len - used, "%s%s=%s", k ? "," : "",
                                 config->items[k].name, v);
    }
}

/* The program of `config`, built as the engine builds a configuration's. */
static int build(t1_state *s, const skytune_values *config, const char *shown,
                 cl_program *program, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    char options[8192];
    skytune_error why = {0};
    *program = NULL;
    if (build_options_format(s->desc, s, s->problem, config, options, sizeof options, &why) != 0)
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "%s", why.message);
    bool made = false;
    const char *source = build_options_source(s->problem, config, spec->kernel_source, &made);
    if (!source) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    cl_int status;
    *program = clCreateProgramWithSource(s->context, 1, &source, NULL, &status);
    if (made) free((char *)source);
    if (status == CL_SUCCESS) status = clBuildProgram(*program, 1, &s->device, options, NULL, NULL);
    if (status == CL_SUCCESS) return SKYTUNE_OK;
    char log[LOG_EXCERPT] = "";
    size_t log_size = 0;
    char *full = NULL;
    /* A log read into too small a buffer fails whole: read all of it. */
    if (*program &&
        clGetProgramBuildInfo(*program, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) ==
            CL_SUCCESS &&
        (full = malloc(log_size + 1)) &&
        clGetProgramBuildInfo(*program, s->device, CL_PROGRAM_BUILD_LOG, log_size, full, NULL) ==
            CL_SUCCESS) {
        full[log_size] = '\0';
        snprintf(log, sizeof log, "%s", full);
    }
    free(full);
    if (*program) clReleaseProgram(*program);
    *program = NULL;
    err->cl_error = status;
    return skytune_error_set(err, SKYTUNE_ERR_SETUP,
                             "%s: the Default configuration (%s), whose outputs are the "
                             "reference, does not build: %s",
                             spec->path, shown, log);
}

/* Run `kernel_name` of `program` for `config` once, from the outputs'
 * fills, and keep its outputs as the expected ones. */
static int run_into_expected(t1_state *s, cl_program program, const char *kernel_name,
                             const skytune_values *config, bool reference_kernel,
                             const char *what, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    t1_launch *launch = NULL;
    skytune_events events = {0};
    skytune_error why = {0};
    t1_kernel_slots(spec, s->problem, config, s->slots);
    int rc = t1_size_outputs(s, &why);
    if (rc == SKYTUNE_OK)
        rc = t1_make_launch(s, program, kernel_name, config, reference_kernel, &launch, &why);
    if (rc == SKYTUNE_OK && (rc = t1_clear_outputs(s, s->queue, &why)) == SKYTUNE_OK)
        rc = t1_enqueue(launch, s->queue, &events, &why);
    cl_int status = clFinish(s->queue);
    for (size_t k = 0; k < events.count; k++) {
        cl_int done_status = CL_COMPLETE;
        clGetEventInfo(events.events[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof done_status,
                       &done_status, NULL);
        if (done_status < 0) status = done_status;
        clReleaseEvent(events.events[k]);
    }
    t1_release(launch);
    if (rc == SKYTUNE_OK && status != CL_SUCCESS) {
        why.cl_error = status;
        rc = skytune_error_set(&why, SKYTUNE_ERR_LAUNCH, "the kernel failed");
    }
    if (rc != SKYTUNE_OK) {
        err->cl_error = why.cl_error;
        return skytune_error_set(err, rc, "%s: %s, whose outputs are the reference, does not "
                                 "run: %s", spec->path, what, why.message);
    }
    for (size_t k = 0; k < spec->n_args && rc == SKYTUNE_OK; k++) {
        if (!spec->args[k].output) continue;
        size_t bytes = s->count[k] * t1_type_size(spec->args[k].type);
        if (s->expected_count[k] != s->count[k] || !s->expected[k]) {
            void *grown = realloc(s->expected[k], bytes ? bytes : 1);
            if (!grown) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
            s->expected[k] = grown;
            s->expected_count[k] = s->count[k];
        }
        rc = t1_read_output(s, s->queue, k, s->expected[k], err);
    }
    return rc;
}

/* The Default configuration, with the OutputParameters' values of
 * `config` (NULL: none), built and run: its outputs are the reference. */
static int expected_from_default(t1_state *s, const skytune_values *config, skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    skytune_named_value *items = calloc(spec->n_params + 1, sizeof *items);
    if (!items) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    for (size_t k = 0; k < spec->n_params; k++) {
        items[k].name = spec->params[k].name;
        const skytune_value *own =
            config && spec->output_param[k] ? skytune_values_find(config, items[k].name) : NULL;
        items[k].value = own ? *own : spec->params[k].values[spec->default_index[k]];
    }
    skytune_values reference = {.count = spec->n_params, .items = items};
    char shown[512], what[600];
    config_words(&reference, shown, sizeof shown);
    snprintf(what, sizeof what, "the Default configuration (%s)", shown);
    cl_program program = NULL;
    int rc = build(s, &reference, shown, &program, err);
    if (rc == SKYTUNE_OK)
        rc = run_into_expected(s, program, spec->kernel_name, &reference, false, what, err);
    if (program) clReleaseProgram(program);
    free(items);
    return rc;
}

int t1_reference_at_setup(t1_state *s, skytune_error *err)
{
    if (!t1_reference_is_shared(s->spec) || s->spec->method == T1_VERIFY_NONE) return SKYTUNE_OK;
    int rc = t1_expected_arrays(s, err);
    if (rc != SKYTUNE_OK) return rc;
    rc = s->spec->method == T1_VERIFY_REFERENCES ? expected_from_references(s, err)
                                                 : expected_from_default(s, NULL, err);
    s->reference_ready = rc == SKYTUNE_OK;
    return rc;
}

/* The OutputParameters' values of config, as text ("" without any):
 * what the reference at hand was made for. */
static char *output_values(const t1_kernel *spec, const skytune_values *config)
{
    char text[1024];
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < spec->n_params && used < sizeof text; k++) {
        if (!spec->output_param[k]) continue;
        const skytune_value *v = skytune_values_find(config, spec->params[k].name);
        char shown[256] = "";
        if (v) value_format(v, shown, sizeof shown);
        used += (size_t)snprintf(text + used, sizeof text - used, "%s=%s\n",
                                 spec->params[k].name, shown);
    }
    return strdup(text);
}

int t1_reference_for_config(t1_state *s, cl_program program, const skytune_values *config,
                            skytune_error *err)
{
    const t1_kernel *spec = s->spec;
    char *wanted = output_values(spec, config);
    if (!wanted) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory");
    if (s->reference_ready && s->reference_for && strcmp(s->reference_for, wanted) == 0) {
        free(wanted);
        return SKYTUNE_OK;
    }
    s->reference_ready = false;
    int rc;
    if (spec->method == T1_VERIFY_KERNEL) {
        char shown[512], what[700];
        config_words(config, shown, sizeof shown);
        snprintf(what, sizeof what, "the reference kernel %s (built with %s)",
                 spec->reference_kernel, shown);
        rc = run_into_expected(s, program, spec->reference_kernel, config, true, what, err);
    } else {
        rc = expected_from_default(s, config, err);
    }
    free(s->reference_for);
    s->reference_for = NULL;
    if (rc != SKYTUNE_OK) {
        free(wanted);
        return rc;
    }
    s->reference_for = wanted;
    s->reference_ready = true;
    return SKYTUNE_OK;
}
