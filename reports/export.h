/* Exports of a result database for other programs:
 *   csv     every evaluation, one row each, one column per tuning parameter
 *           (and per problem parameter when the rows span problems), from
 *           reports/sql/measurements.sql (export_csv.c)
 *   wisdom  the best configuration per (plugin, device, problem) as JSON
 *           (export_wisdom.c), from reports/sql/wisdom.sql
 *   header  the same as a C header an application includes, with a lookup
 *           function (export_header.c)
 *   t4      a campaign's evaluations in the T4 results format, schema
 *           1.0.0 (export_t4.c), from reports/sql/t4.sql
 *   kernel_tuner  the same evaluations as a Kernel Tuner cache file, which
 *           Kernel Tuner's simulation mode and skytune's --replay read
 *           (export_kernel_tuner.c)
 * Each writes to a stream; callers that write files use atomic_file. */
#ifndef SKYTUNE_EXPORT_H
#define SKYTUNE_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* campaign, plugin: only this campaign's or plugin's evaluations, or NULL
 * for all. *rows: how many were written. */
int export_csv(void *db, const char *campaign, const char *plugin, FILE *f, size_t *rows,
               skytune_error *err);

/* plugin: only this plugin's entries, or NULL for all. Fails when there is
 * no entry (no configuration passed), naming the plugin. */
int export_wisdom_json(void *db, const char *plugin, FILE *f, size_t *entries, skytune_error *err);

/* source: how the header names the database it came from. */
int export_wisdom_header(void *db, const char *plugin, const char *source, FILE *f,
                         size_t *entries, skytune_error *err);

/* campaign: a campaign id. Fails when there is no such campaign. */
int export_t4(void *db, const char *campaign, FILE *f, size_t *results, skytune_error *err);

/* campaign: a campaign id. Fails when there is no such campaign. *entries:
 * the configurations written. */
int export_kernel_tuner(void *db, const char *campaign, FILE *f, size_t *entries,
                        skytune_error *err);

#endif
