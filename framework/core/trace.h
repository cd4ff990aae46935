/* A campaign's pipeline as Chrome trace events (`skytune run --trace FILE`),
 * which Perfetto and chrome://tracing open: one track per process (the
 * engine, each measuring worker, each compile worker), each stage of each
 * configuration a span on it.
 *
 * Every process of the campaign appends to the same file: each event is one
 * line, written with a single write() on a descriptor opened with O_APPEND,
 * so that lines from different processes never interleave. The file is the
 * JSON Array Format: "[" then one event per line, each followed by a comma;
 * the engine ends it with a last event and "]". A campaign that is killed
 * leaves the "]" out, which the format allows. Times are CLOCK_MONOTONIC
 * (core/clock.h), the same clock in every process of the host.
 *
 * Tracing never fails a campaign: a write that fails stops that process's
 * tracing, and trace_failed says why. */
#ifndef SKYTUNE_TRACE_H
#define SKYTUNE_TRACE_H

#include <stdbool.h>

#include "error.h"

typedef struct trace trace;

/* Create (truncate) FILE and start the array: the engine, once per run.
 * `process` names this process's track ("engine"). */
int trace_create(const char *path, const char *process, trace **out, skytune_error *err);

/* Append to a file the engine created: a worker. `process` names its track,
 * e.g. "measuring worker". */
int trace_append(const char *path, const char *process, trace **out, skytune_error *err);

/* A complete span [start_s, end_s] (clock_monotonic_s) named `name` in
 * `category` ("configuration", "stage", "engine", "setup"). `config` is
 * NULL or the configuration's text, kept as the span's argument. A NULL
 * trace does nothing, so that callers need no test. */
void trace_span(trace *t, const char *name, const char *category, double start_s, double end_s,
                const char *config);

/* A point in time, e.g. "stop requested". */
void trace_instant(trace *t, const char *name, double at_s);

/* Whether a write failed (tracing then stopped), with the reason. */
bool trace_failed(const trace *t, const char **reason);

/* Close; the engine's `finish` ends the array. NULL is allowed. */
void trace_close(trace *t, bool finish);

#endif
