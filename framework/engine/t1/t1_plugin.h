/* The T1 plugin: a kernel plugin made at run time from a T1 file's
 * KernelSpecification (t1_kernel.h), not from a shared object. It implements
 * the same ABI (skytune/plugin.h) as every plugin, so everything a plugin
 * run has — the space with its constraints, every strategy, the store,
 * resume, the supervised measuring worker and the compile workers — works
 * on it unchanged: a worker is handed the same name and builds the same
 * plugin from the same file.
 *
 * A T1 file is named "t1:PATH" (any file name) or by a path ending in
 * ".json". The plugin's problem parameters are the file's ProblemSize
 * entries (problem_size_0, ...), its tuning parameters and constraints the
 * file's ConfigurationSpace plus the device's work-group limits. Outputs
 * are verified as the file's Verification says (t1_verification.c):
 * against the ReferenceArguments, the outputs of its Default
 * configuration or of a reference kernel, by reductions, or not at all. The file's hash (with
 * its kernel source and data files) is part of the plugin build's identity:
 * editing any of them starts new measurements. */
#ifndef SKYTUNE_T1_PLUGIN_H
#define SKYTUNE_T1_PLUGIN_H

#include <stdbool.h>

#include <stdint.h>

#include <skytune/plugin.h>

#include "error.h"

#define T1_PLUGIN_PREFIX "t1:"

/* Whether `name_or_path` names a T1 file rather than a plugin module. */
bool t1_plugin_names_file(const char *name_or_path);

struct t1_plugin;

/* Read the file ("t1:PATH" or PATH) and make its plugin (t1_plugin_free
 * frees it). */
int t1_plugin_open(const char *name_or_path, struct t1_plugin **out, skytune_error *err);

/* The description it implements, owned by the plugin. */
const skytune_plugin *t1_plugin_description(const struct t1_plugin *p);

/* What its outputs are verified against, in words. */
const char *t1_plugin_checked_against(const struct t1_plugin *p);

/* What a wrong_result's outputs differ from, in words ("the outputs of
 * the Default configuration (...)"). */
const char *t1_plugin_compared_with(const struct t1_plugin *p);

/* The build's identity: the file, its kernel and its data files. */
uint64_t t1_plugin_build_hash(const struct t1_plugin *p);

void t1_plugin_free(struct t1_plugin *plugin);

#endif
