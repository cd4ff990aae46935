/*
 * stage_buffer — device arrays whose layout is a tuning parameter. The host
 * keeps every array in one fixed (canonical) order, the order its CPU
 * reference works in; the device holds it in whatever layout the
 * configuration being measured reads or writes. An input is uploaded in the
 * configuration's layout; an output is read back and put into canonical
 * order, so that it is compared with the reference element by element and a
 * mismatch's index means the same whatever the layout.
 *
 * Layouts are words over `letters`, sizes in the order of `letters`
 * (plugins/layout/layout.h). Functions return 0, or a skytune_result code
 * with a message in err.
 */
#ifndef SKYTUNE_PLUGINS_STAGE_BUFFER_H
#define SKYTUNE_PLUGINS_STAGE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include <skytune/plugin.h>

#include "layout.h"
#include "plugin_support.h"

/* The layout tuning parameter `name` of `config`, checked to be a
 * permutation of `letters` and copied into layout[LAYOUT_MAX_DIMS + 1].
 * SKYTUNE_ERR_LAUNCH with layout_check's message (naming the parameter and
 * what is valid) when it is not. */
int stage_read_layout(const skytune_values *config, const char *name, const char *letters,
                      char *layout, skytune_error *err);

/* An input array on the device and the layout it holds. */
typedef struct stage_layout_input {
    support_buffer buffer;             /* its mem NULL until the first stage_layout_input_set */
    char layout[LAYOUT_MAX_DIMS + 1];
} stage_layout_input;

/* Make `in` hold `canonical` (stored in `canonical_layout`) in `layout`,
 * for the kernels of `program`: nothing to do when it holds that layout
 * already, else a new read-only buffer in the program's context, filled
 * from a permuted copy, replaces the old one. Only the reference `in` held
 * is released: a kernel that was given the old buffer and retained it keeps
 * it until it is released. Configurations of one layout therefore share one
 * upload, and a campaign pays the host-side conversion only when the layout
 * changes. */
int stage_layout_input_set(stage_layout_input *in, cl_program program, const void *canonical,
                           const char *canonical_layout, const char *layout,
                           const char *letters, const int64_t *sizes, size_t element_size,
                           skytune_error *err);

void stage_layout_input_release(stage_layout_input *in);

/* The buffer `in` holds now, retained into `held` for a launch whose kernel
 * reads it: a later configuration of another layout replaces the buffer in
 * `in` while this launch may still run. The launch releases it with
 * support_buffers_release. */
int stage_layout_input_hold(const stage_layout_input *in, support_buffer *held,
                            skytune_error *err);

/* Read the device array `buffer`, stored in `layout`, into `canonical` in
 * `canonical_layout` (blocking). The buffer holds exactly the array. */
int stage_read_canonical(cl_command_queue queue, const support_buffer *buffer, const char *layout,
                         void *canonical, const char *canonical_layout, const char *letters,
                         const int64_t *sizes, size_t element_size, skytune_error *err);

#endif
