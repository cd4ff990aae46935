#include "winner_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "rank_sum.h"

/* The runs of the configuration at `place` in the query's rows: rows of a
 * place are contiguous, in run order. */
static size_t runs_at(const query_table *t, size_t place, double *x, size_t *first)
{
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        double p, v;
        if (!query_number(t, r, "place", &p) || (size_t)p != place) continue;
        if (n == 0) *first = r;
        if (query_number(t, r, "time_ns", &v)) x[n++] = v;
    }
    return n;
}

int winner_verdict_of(void *db, const char *campaign, winner_verdict *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    char limit[16];
    snprintf(limit, sizeof limit, "%d", VERDICT_RUNNER_UPS + 1);
    const char *params[QUERY_N_PARAMS] = {campaign, NULL, limit};
    query_table t;
    if (query_run_named(db, "top-samples", params, QUERY_N_PARAMS, &t, err) != 0) return -1;
    double *best = malloc((t.n_rows + 1) * sizeof *best);
    double *other = malloc((t.n_rows + 1) * sizeof *other);
    if (!best || !other) {
        free(best);
        free(other);
        query_table_free(&t);
        return err_set(err, "out of memory");
    }
    size_t first = 0;
    out->best_samples = runs_at(&t, 1, best, &first);
    for (size_t place = 2; out->best_samples && place <= VERDICT_RUNNER_UPS + 1; place++) {
        size_t n = runs_at(&t, place, other, &first);
        if (n == 0) break;
        verdict_runner_up *u = &out->runner_ups[out->n++];
        u->place = place;
        const char *config = query_cell(&t, first, "configuration");
        snprintf(u->configuration, sizeof u->configuration, "%s", config ? config : "");
        query_number(&t, first, "median_ns", &u->median_ns);
        u->n_samples = n;
        u->p = rank_sum_p(best, out->best_samples, other, n);
        u->indistinguishable = !(u->p < VERDICT_ALPHA);
        if (u->indistinguishable) out->indistinguishable++;
    }
    free(best);
    free(other);
    query_table_free(&t);
    return 0;
}
