/* A campaign's settings text ("runs=10;only=variant=atomic;strategy:a=1,b=2",
 * made by the run: framework/engine/tuning_run.c) as rows a person reads,
 * one per setting, in a key-value table of the HTML report. */
#ifndef SKYTUNE_HTML_SETTINGS_H
#define SKYTUNE_HTML_SETTINGS_H

#include <stdio.h>

/* The rows for `settings` (NULL: one row saying it is not recorded). */
void html_settings_rows(FILE *f, const char *settings);

#endif
