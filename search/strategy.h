/* Search strategies: one small ask/tell interface, one file per strategy.
 *
 * A strategy proposes configurations by rank (see space.h) and learns each
 * one's objective (median time in ns, +infinity for a failure). It never
 * touches OpenCL or SQLite. It must be deterministic for a given seed and
 * sequence of tells, which is what makes a resumed campaign retrace its steps
 * through the already-measured configurations before measuring new ones.
 *
 * The campaign loop keeps the history of what has been evaluated; a strategy
 * may read it (history_lookup) to avoid proposing a configuration twice. If a
 * strategy proposes one already evaluated, the loop tells it the known result
 * without spending budget. */
#ifndef SKYTUNE_STRATEGY_H
#define SKYTUNE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pcg32.h"
#include "space.h"

/* ------------------------------------------------------------ history */

typedef struct history history;

history *history_new(void);
/* A history that reads through to `base`: lookups, counts, the insertion
 * order (the base's entries first) and the best cover both, and adds go to
 * the layer alone (a rank the base holds is not added again). For
 * simulating a strategy against assumed results; `base` must outlive the
 * layer and not change while it is in use. NULL when out of memory. */
history *history_new_layer(const history *base);
void history_free(history *h);
/* Record an evaluation; returns -1 when out of memory. Re-adding a rank
 * keeps the first objective. */
int history_add(history *h, uint64_t rank, double objective);
bool history_lookup(const history *h, uint64_t rank, double *objective);
size_t history_count(const history *h);
/* Evaluations in the order they were added. */
uint64_t history_rank_at(const history *h, size_t k);
double history_objective_at(const history *h, size_t k);
/* Best (lowest) objective so far; false when there is no finite one. */
bool history_best(const history *h, uint64_t *rank, double *objective);

/* -------------------------------------------------------- warm start */

/* What recordings of the same space on other devices (--warm-start) say of
 * its configurations before the first evaluation: for each configuration
 * one of them recorded, its normalised rank there, 0 for the fastest to 1
 * for the slowest (a failure ranks last), averaged over the recordings that
 * hold it. Ranks, not times: devices differ by factors, but what is fast on
 * one is mostly fast on another. Sorted by rank, each rank once. */
typedef struct strategy_prior {
    size_t count;
    const uint64_t *ranks;
    const double *position;   /* in (0, 1): the normalised rank */
} strategy_prior;

/* The position the prior gives a configuration; false when no recording
 * holds it. */
bool strategy_prior_lookup(const strategy_prior *p, uint64_t rank, double *position);

/* ----------------------------------------------------------- strategy */

typedef struct strategy_option {
    const char *name;
    const char *default_value;
    const char *help;
} strategy_option;

/* Options after validation, every declared option present (user value or
 * default). */
typedef struct strategy_options {
    size_t count;
    const char *names[32];
    const char *values[32];
} strategy_options;

double strategy_option_double(const strategy_options *o, const char *name);
int64_t strategy_option_int(const strategy_options *o, const char *name);
const char *strategy_option_string(const strategy_options *o, const char *name);

typedef struct strategy_setup {
    const space *space;
    const history *history;
    uint64_t seed;
    uint64_t budget;          /* evaluations the campaign may spend; 0 = no limit */
    /* A selection of the space for exhaustive alone (strategy_create refuses
     * it for any other strategy, whose search it would change): only the
     * ranks r with r % parts == part (parts 0 or 1: every rank), and, when
     * ranks is set, only those n_ranks ranks, in that order. A sharded
     * campaign splits a space into parts; a cross-measurement step measures
     * other instances' best configurations. */
    unsigned part, parts;
    const uint64_t *ranks;
    size_t n_ranks;
    /* Other devices' recordings of the space (NULL: none); strategy_create
     * refuses it for a strategy that does not read it. */
    const strategy_prior *prior;
} strategy_setup;

typedef enum strategy_answer {
    STRATEGY_PROPOSE = 0,     /* *rank holds a valid configuration */
    STRATEGY_DONE = 1         /* nothing left to propose */
} strategy_answer;

typedef struct strategy_ops {
    const char *name;
    const char *summary;               /* one line for --help */
    const strategy_option *options;    /* ends with a NULL name; may be NULL */
    /* Its proposals depend on setup->budget. When false, a run with a
     * smaller budget is exactly a prefix of one with a larger budget, and a
     * strategy benchmark reads every budget off one run. */
    bool reads_budget;
    /* It reads strategy_setup.prior (a warm start). */
    bool reads_prior;
    int (*create)(const strategy_setup *setup, const strategy_options *options, void **state,
                  skytune_error *err);
    strategy_answer (*ask)(void *state, uint64_t *rank);
    void (*tell)(void *state, uint64_t rank, double objective);
    void (*destroy)(void *state);
    /* Optional (NULL: the strategy names nothing). Up to `max` ranks of
     * valid configurations the strategy will probably propose soon, the
     * most likely first, none twice, none the history holds and not the
     * one just proposed: what a compile pool builds while the device
     * measures. Called after an ask and before its tell, it names what
     * comes after that proposal.
     *
     * It must leave every proposal as it would have been: it draws only
     * from copies of the strategy's generator and changes nothing a later
     * ask or tell reads, so that a resumed campaign still retraces its
     * steps whether or not (and however often) it was called. */
    size_t (*upcoming)(void *state, uint64_t *ranks, size_t max);
    /* Optional (NULL: one phase throughout). The phase the strategy is in,
     * as one line for the campaign's log (e.g. prune's "reduced space: 12
     * configurations ..."), written into buf, NUL-terminated; called after
     * an ask. The engine reports the line each time it changes, so a user
     * sees where a multi-phase search spent its evaluations. */
    void (*describe_phase)(void *state, char *buf, size_t len);
} strategy_ops;

/* The registry, in the order `--help` lists them. */
const strategy_ops *const *strategy_registry(size_t *count);
const strategy_ops *strategy_find(const char *name);
/* " (did you mean 'bayes'?)" for a name that is no strategy's but near
 * one's, into buf; "" otherwise (nearest.h). Returns buf. */
const char *strategy_nearest_hint(const char *name, char *buf, size_t len);
/* Whether the named strategy's proposals depend on its budget (true for a
 * name that is not a strategy). */
bool strategy_reads_budget(const char *name);
/* The strategy `run` uses when none is named. */
const char *strategy_default_name(void);

typedef struct strategy strategy;

/* Create by name. `settings` are "key=value" strings; an unknown strategy or
 * option, or a value that is not a number where one is needed, fails with a
 * message listing what is valid. */
int strategy_create(const char *name, const strategy_setup *setup, const char *const *settings,
                    size_t n_settings, strategy **out, skytune_error *err);
strategy_answer strategy_ask(strategy *s, uint64_t *rank);
void strategy_tell(strategy *s, uint64_t rank, double objective);
/* The strategy's upcoming op (see strategy_ops): how many ranks it wrote
 * to `ranks`, at most `max`; 0 for a strategy that names none. */
size_t strategy_upcoming(strategy *s, uint64_t *ranks, size_t max);
void strategy_free(strategy *s);
const char *strategy_name(const strategy *s);
/* The strategy's phase line when it differs from the one returned last
 * time (the first call returns the first phase), else NULL; NULL always for
 * a strategy of one phase. The text lives until the next call. */
const char *strategy_phase_change(strategy *s);
/* Canonical "k=v,k=v" of every option (defaults included), for the store. */
size_t strategy_settings_text(const strategy *s, char *buf, size_t len);

#endif
