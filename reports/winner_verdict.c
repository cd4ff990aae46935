#include "winner_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_sum.h"

/* The runs of the configuration at `place` in rows [from, end) of the
 * query's rows: rows of a place are contiguous, in run order. */
static size_t runs_at(const query_table *t, size_t from, size_t end, size_t place, double *x,
                      size_t *first)
{
    size_t n = 0;
    for (size_t r = from; r < end; r++) {
        double p, v;
        if (!query_number(t, r, "place", &p) || (size_t)p != place) continue;
        if (n == 0) *first = r;
        if (query_number(t, r, "time_ns", &v)) x[n++] = v;
    }
    return n;
}

int winner_verdict_from_runs(const query_table *t, size_t from, size_t end,
                             winner_verdict *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    if (end <= from) return 0;
    size_t rows = end - from;
    double *best = malloc(rows * sizeof *best);
    double *other = malloc(rows * sizeof *other);
    if (!best || !other) {
        free(best);
        free(other);
        return err_set(err, "out of memory comparing the best configuration with the runner-ups");
    }
    size_t first = from;
    out->best_samples = runs_at(t, from, end, 1, best, &first);
    for (size_t place = 2; out->best_samples && place <= VERDICT_PLACES; place++) {
        size_t n = runs_at(t, from, end, place, other, &first);
        if (n == 0) break;
        verdict_runner_up *u = &out->runner_ups[out->n++];
        u->place = place;
        const char *config = query_cell(t, first, "configuration");
        snprintf(u->configuration, sizeof u->configuration, "%s", config ? config : "");
        query_number(t, first, "median_ns", &u->median_ns);
        u->n_samples = n;
        u->p = rank_sum_p(best, out->best_samples, other, n);
        u->indistinguishable = !(u->p < VERDICT_ALPHA);
        if (u->indistinguishable) out->indistinguishable++;
    }
    free(best);
    free(other);
    return 0;
}

int winner_verdict_of(void *db, const char *campaign, winner_verdict *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    char places[16];
    snprintf(places, sizeof places, "%d", VERDICT_PLACES);
    const char *params[QUERY_N_PARAMS] = {campaign, NULL, places};
    query_table t;
    if (query_run_named(db, "top-samples", params, QUERY_N_PARAMS, &t, err) != 0) return -1;
    int rc = winner_verdict_from_runs(&t, 0, t.n_rows, out, err);
    query_table_free(&t);
    return rc;
}

void winner_verdict_summary(const winner_verdict *v, char *buf, size_t len)
{
    if (len == 0) return;
    if (v->n == 0)
        buf[0] = '\0';
    else if (v->indistinguishable == 0)
        snprintf(buf, len, "faster than the next %zu at 95 %%", v->n);
    else
        snprintf(buf, len, "indistinguishable from %s%zu of the next %zu at 95 %%",
                 v->indistinguishable == v->n ? "all " : "", v->indistinguishable, v->n);
}
