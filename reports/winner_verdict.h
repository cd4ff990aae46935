/* Whether a campaign's best can be told apart from the runner-ups: the
 * rank-sum test (framework/core/rank_sum.h) of the best's timed runs
 * against each of the next ones', at 95 %. A runner-up whose p-value is
 * 0.05 or more is indistinguishable from the best: their runs do not show
 * which is faster, so the ranking between them is chance. `skytune best`
 * and the report's best configuration both show this verdict. */
#ifndef SKYTUNE_WINNER_VERDICT_H
#define SKYTUNE_WINNER_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "query.h"

/* The runner-ups tested, at most. */
#define VERDICT_RUNNER_UPS 5
/* Below this p-value a runner-up is told apart from the best. */
#define VERDICT_ALPHA 0.05
/* The places the verdict reads from the top-samples query (its ?3): the
 * best and its runner-ups. */
#define VERDICT_PLACES (VERDICT_RUNNER_UPS + 1)

typedef struct verdict_runner_up {
    size_t place;                /* 2: the second best */
    char configuration[1024];
    double median_ns;
    size_t n_samples;
    double p;                    /* two-sided rank-sum p-value against the best */
    bool indistinguishable;      /* p >= VERDICT_ALPHA */
} verdict_runner_up;

typedef struct winner_verdict {
    size_t best_samples;         /* the best's timed runs */
    size_t n;                    /* runner-ups tested */
    size_t indistinguishable;    /* of them */
    verdict_runner_up runner_ups[VERDICT_RUNNER_UPS];
} winner_verdict;

/* The verdict of campaign `campaign` (its id as text) in the database db (a
 * sqlite3 *), through the top-samples query. n 0 when the campaign has no
 * runner-up with timed runs. */
int winner_verdict_of(void *db, const char *campaign, winner_verdict *out, skytune_error *err);

/* The verdict from rows [first, end) of a top-samples result that hold one
 * campaign's runs (the report loads the query once for every campaign). */
int winner_verdict_from_runs(const query_table *t, size_t first, size_t end,
                             winner_verdict *out, skytune_error *err);

/* The verdict in words, "faster than the next 5 at 95 %" or
 * "indistinguishable from 3 of the next 5 at 95 %" ("from all 2 of the next
 * 2"); "" when n is 0. */
void winner_verdict_summary(const winner_verdict *v, char *buf, size_t len);

#endif
