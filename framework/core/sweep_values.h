/* The values of one swept parameter, built up from what a campaign file
 * lists: plain values, progressions written with "..." between their first
 * terms and their last, and ranges.
 *
 *   [2, 4, 8, ..., 4096]   geometric: the last three terms before "..." have
 *                          equal ratios (and not equal differences)
 *   [1, 2, ..., 10]        otherwise arithmetic, stepping by the difference
 *                          of the last two terms (like [1, 2 .. 10]), unless
 *                          only the ratio of the two reaches the last value
 *                          ([1, 1.5, ..., 2.25]); when both reach it
 *                          ([1, 2, ..., 8]: 1..8 or 1, 2, 4, 8) the sweep
 *                          is refused, naming both readings
 *   from 2 to 4096 times 2 a range: step adds, times multiplies; it stops
 *                          at the last term not past `to`
 *
 * The last value of a "..." progression must be one of its terms, so a typo
 * cannot silently shorten a sweep. Whole numbers stay whole; a progression
 * with a real term is real. A value given twice is refused: it would run
 * the same instance twice. */
#ifndef SKYTUNE_SWEEP_VALUES_H
#define SKYTUNE_SWEEP_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The most values one parameter may sweep. */
#define SWEEP_MAX_VALUES 1000000

/* A text from a file and the line (from 1) it was written on. */
typedef struct located_text {
    char *text;
    int line;
} located_text;

typedef struct sweep_builder {
    located_text *values;
    size_t count, cap;
    /* The values' texts by hash (open addressing, index + 1, 0 empty), so
     * that refusing a value swept twice costs one look-up, not a scan:
     * sweeps may hold SWEEP_MAX_VALUES. */
    size_t *seen;
    size_t seen_cap;           /* a power of two, at least twice count */
    size_t segment;        /* first value the next "..." may extend */
    bool pending;          /* a "..." waits for its last value */
    int pending_line;
} sweep_builder;

void sweep_builder_init(sweep_builder *b);
int sweep_builder_add(sweep_builder *b, const char *text, int line, skytune_error *err);
int sweep_builder_ellipsis(sweep_builder *b, int line, skytune_error *err);
int sweep_builder_range(sweep_builder *b, const char *from, const char *to, const char *by,
                        bool multiply, int line, skytune_error *err);
/* Refuses a "..." left without its last value. */
int sweep_builder_finish(sweep_builder *b, skytune_error *err);
/* Hands the values over (the builder is left empty); NULL when none. */
located_text *sweep_builder_take(sweep_builder *b, size_t *count);
void sweep_builder_free(sweep_builder *b);

#endif
