/* The worker's side of the worker protocol: what `skytune worker ROLE` runs.
 *
 * It waits for SETUP (plugin, device, problem, runs, seed, binary cache),
 * opens a measurer (a compile worker skips the CPU reference), answers READY
 * or FAILED, then serves one MEASURE or COMPILE request at a time, reporting
 * each stage as it begins, until QUIT or the engine closes the pipe. Anything
 * a plugin or kernel does to this process — a signal, exit(), a hang — is
 * the supervisor's to notice; the worker itself never tries to survive it. */
#ifndef SKYTUNE_WORKER_MAIN_H
#define SKYTUNE_WORKER_MAIN_H

#include "worker_process.h"

/* Serve the engine on fd; returns the process's exit status. */
int worker_main(worker_role role, int fd);

#endif
