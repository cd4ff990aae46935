/* A device's roofline peaks in the result database (devices.peak_gflops,
 * devices.peak_gbs), which the report's roofline is drawn against. */
#ifndef SKYTUNE_DEVICE_PEAKS_H
#define SKYTUNE_DEVICE_PEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Record the peaks of device `device_id` (both positive). */
int device_peaks_set(void *db, int64_t device_id, double gflops, double gbs, skytune_error *err);

/* A device of the database by selector: its id ("3"), or a case-insensitive
 * part of "platform name driver"; NULL or "" for the database's only
 * device. *found is false (and 0 returned) when none matches; more than
 * one match is an error listing them. desc gets "name (platform, driver
 * D)", quoted (quote.h) as the database holds the driver's words. */
int device_peaks_find(void *db, const char *selector, int64_t *id, bool *found, char *desc,
                      size_t desc_len, skytune_error *err);

#endif
