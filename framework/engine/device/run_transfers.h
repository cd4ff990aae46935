/* The host-device copies of a run (`skytune run --transfers`): the copies
 * the plugin's `transfers` callback names, each timed as a labelled part of
 * every run, uploads before the plugin's kernels and downloads after.
 *
 * The copies go to and from device buffers and host arrays of the engine's
 * own, of the sizes the plugin names: a copy's time depends on its size
 * and on the host memory it reads (the plugin's own array, for an upload),
 * not on which buffer of the device it lands in, and the plugin's buffers
 * (an input already uploaded in the configuration's layout, an output
 * read back for verification) stay exactly as the plugin left them. */
#ifndef SKYTUNE_RUN_TRANSFERS_H
#define SKYTUNE_RUN_TRANSFERS_H

#include <stdbool.h>
#include <stddef.h>

#include <skytune/plugin.h>

typedef struct run_transfers {
    size_t count;
    skytune_transfer list[SKYTUNE_MAX_TRANSFERS];
    cl_mem device[SKYTUNE_MAX_TRANSFERS];
    void *download[SKYTUNE_MAX_TRANSFERS];   /* where a download lands; NULL for uploads */
} run_transfers;

/* The plugin's transfers for its set-up `state`, with a buffer of each
 * size created in `context`. Fails naming the plugin when it has no
 * `transfers` callback, the callback fails or lists more than
 * SKYTUNE_MAX_TRANSFERS, or a buffer cannot be made; nothing is then left
 * to close. */
int run_transfers_open(run_transfers *t, const skytune_plugin *plugin, void *state,
                       cl_context context, skytune_error *err);

/* Enqueues the uploads (to_device) or the downloads, without waiting,
 * appending each one's event and label at events[*count], labels[*count].
 * Returns CL_SUCCESS or the first failed call's status. */
cl_int run_transfers_enqueue(const run_transfers *t, cl_command_queue queue, bool to_device,
                             cl_event *events, const char **labels, size_t *count);

/* Safe on a zeroed or closed set. */
void run_transfers_close(run_transfers *t);

#endif
