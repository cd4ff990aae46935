/* What the T1 plugin's files share (t1_plugin.c, the description and its
 * callbacks; t1_reference.c, the expected outputs): the state of one
 * problem on one device, and the launches both make. */
#ifndef SKYTUNE_T1_PLUGIN_INTERNAL_H
#define SKYTUNE_T1_PLUGIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <skytune/plugin.h>

#include "expr.h"
#include "t1_kernel.h"

typedef struct t1_state {
    const t1_kernel *spec;
    const skytune_plugin *desc;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    const skytune_values *problem;
    const skytune_device_info *device_info;
    uint64_t seed;
    size_t *count;                     /* per argument: VECTOR elements of this configuration */
    size_t *capacity;                  /* per argument: elements its buffer and fill hold */
    bool ready;                        /* the fixed buffers made */
    void **initial;                    /* per output, and input a Check reduces: its fill */
    cl_mem *buffers;                   /* per VECTOR argument */
    /* The expected data: with ReferenceArguments one per reference, in
     * their order; with a computed reference one per argument (its
     * outputs'), expected_count[k] elements. */
    void **expected;
    size_t *expected_count;
    bool reference_ready;              /* a computed reference is in `expected` */
    char *reference_for;               /* ... for these values of the OutputParameters */
    void **actual;                     /* the checked outputs read back, indexed as expected */
    expr_value *slots;
} t1_state;

typedef struct t1_launch {
    cl_kernel kernel;
    cl_uint work_dim;
    size_t global[3], local[3];
    bool driver_local;                 /* local left to the driver (NULL) */
    const char *label;
} t1_launch;

/* A launch of `kernel_name` from `program` for `config`: its arguments
 * set, its geometry computed (the tuned kernel's, or with `reference` the
 * reference kernel's). Leaves the slots bound to config. */
int t1_make_launch(t1_state *s, cl_program program, const char *kernel_name,
                   const skytune_values *config, bool reference, t1_launch **out,
                   skytune_error *err);
void t1_release(void *launch);

/* Every output back to its fill. */
int t1_clear_outputs(void *state, cl_command_queue queue, skytune_error *err);
int t1_enqueue(void *launch, cl_command_queue queue, skytune_events *events, skytune_error *err);

/* Output k of the last run into `into` (count[k] elements), blocking. */
int t1_read_output(t1_state *s, cl_command_queue queue, size_t k, void *into, skytune_error *err);

/* The buffers of the outputs whose Size reads the configuration, sized
 * for the configuration in the slots (t1_plugin.c). */
int t1_size_outputs(t1_state *s, skytune_error *err);

/* The expected data (t1_reference.c). t1_reference_at_setup is the
 * plugin's `reference`: the ReferenceArguments' data, or the Default
 * configuration's outputs when those do not change with the
 * configuration; t1_reference_for_config, called as a configuration is
 * prepared, computes a reference that does (OutputParameters, or a
 * reference kernel, run from the configuration's own program). */
int t1_reference_at_setup(t1_state *s, skytune_error *err);
int t1_reference_for_config(t1_state *s, cl_program program, const skytune_values *config,
                            skytune_error *err);
/* The arrays a reference computed once per problem is kept in (made
 * before the engine copies another worker's reference into them). */
int t1_expected_arrays(t1_state *s, skytune_error *err);
/* Whether the reference is computed once per problem and may be copied
 * between workers (reference_data). */
bool t1_reference_is_shared(const t1_kernel *spec);

#endif
