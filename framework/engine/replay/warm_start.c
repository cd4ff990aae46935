/* Warm start from recordings. See warm_start.h. */
#include "warm_start.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "replay_evaluator.h"
#include "replay_load.h"

/* Refuses a dataset whose recorded values of a parameter the space shares
 * are not all in the space's list of it: a recording of another space (a
 * plugin's other version, another T1 file), whose ranks would be read as
 * this space's. The evaluator (replay_evaluator_new) refuses the missing
 * and the extra parameters. */
static int check_values(const replay_dataset *d, const space *sp, skytune_error *err)
{
    for (size_t j = 0; j < d->n_params; j++) {
        const param_def *recorded = &d->params[j];
        int k = space_param_index(sp, recorded->name);
        if (k < 0) continue;
        const param_def *own = space_param(sp, (size_t)k);
        for (size_t v = 0; v < recorded->count; v++) {
            char text[REPLAY_NUMBER_TEXT], other[REPLAY_NUMBER_TEXT];
            const char *shown = replay_value_text(&recorded->values[v], text, sizeof text);
            bool found = false;
            for (size_t u = 0; u < own->count && !found; u++)
                found = strcmp(replay_value_text(&own->values[u], other, sizeof other), shown) == 0;
            if (!found)
                return err_set(err,
                               "--warm-start %s: parameter '%s' takes the value %s, which is not "
                               "one of the space's %zu values of it: the recording is of another "
                               "space",
                               d->name, recorded->name, shown, own->count);
        }
    }
    return 0;
}

/* One dataset's normalised ranks, appended to (ranks, position) at *n. */
static int add_recording(const replay_dataset *d, const space *sp, uint64_t *ranks,
                         double *position, size_t *n, skytune_error *err)
{
    replay_evaluator *re = NULL;
    if (check_values(d, sp, err) != 0) return -1;
    if (replay_evaluator_new(d, sp, &re, err) != 0) return err_prefix(err, "--warm-start");
    size_t count = replay_record_count(re);
    if (count == 0) {
        replay_evaluator_free(re);
        return err_set(err, "--warm-start %s: none of its %zu entries is a configuration of the "
                            "space", d->name, d->n_entries);
    }
    double *times = malloc(2 * count * sizeof *times);
    if (!times) {
        replay_evaluator_free(re);
        return err_set(err, "out of memory");
    }
    for (size_t k = 0; k < count; k++) ranks[*n + k] = replay_record_at(re, k, &times[k]);
    normalised_ranks(times, count, position + *n, times + count);
    *n += count;
    free(times);
    replay_evaluator_free(re);
    return 0;
}

typedef struct ranked {
    uint64_t rank;
    double position;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sorts the pairs by rank and averages each rank's positions. */
static int merge(warm_start *w, size_t n)
{
    ranked *pairs = malloc((n ? n : 1) * sizeof *pairs);
    if (!pairs) return -1;
    for (size_t k = 0; k < n; k++) pairs[k] = (ranked){w->ranks[k], w->position[k]};
    /* qsort is not stable, but equal ranks are averaged: the order among
     * them does not matter beyond the rounding of their sum. */
    qsort(pairs, n, sizeof *pairs, by_rank);
    size_t out = 0;
    for (size_t k = 0; k < n;) {
        size_t end = k;
        double sum = 0;
        for (; end < n && pairs[end].rank == pairs[k].rank; end++) sum += pairs[end].position;
        w->ranks[out] = pairs[k].rank;
        w->position[out++] = sum / (double)(end - k);
        k = end;
    }
    free(pairs);
    w->prior = (strategy_prior){.count = out, .ranks = w->ranks, .position = w->position};
    return 0;
}

int warm_start_build(const replay_dataset *const *datasets, size_t n, const space *sp,
                     warm_start *out, skytune_error *err)
{
    *out = (warm_start){0};
    size_t total = 0;
    for (size_t k = 0; k < n; k++) total += datasets[k]->n_entries;
    out->ranks = malloc((total ? total : 1) * sizeof *out->ranks);
    out->position = malloc((total ? total : 1) * sizeof *out->position);
    if (!out->ranks || !out->position) {
        warm_start_free(out);
        return err_set(err, "out of memory");
    }
    size_t filled = 0;
    for (size_t k = 0; k < n; k++)
        if (add_recording(datasets[k], sp, out->ranks, out->position, &filled, err) != 0) {
            warm_start_free(out);
            return -1;
        }
    out->recordings = n;
    if (merge(out, filled) != 0) {
        warm_start_free(out);
        return err_set(err, "out of memory");
    }
    return 0;
}

int warm_start_load(const char *const *paths, size_t n, const space *sp, uint64_t max_json_bytes,
                    warm_start *out, skytune_error *err)
{
    *out = (warm_start){0};
    replay_dataset **datasets = calloc(n ? n : 1, sizeof *datasets);
    if (!datasets) return err_set(err, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (replay_load(paths[k], max_json_bytes, &datasets[k], err) != 0)
            rc = err_prefix(err, "--warm-start");
    if (rc == 0)
        rc = warm_start_build((const replay_dataset *const *)datasets, n, sp, out, err);
    for (size_t k = 0; k < n; k++) replay_free(datasets[k]);
    free(datasets);
    return rc;
}

void warm_start_free(warm_start *w)
{
    free(w->ranks);
    free(w->position);
    *w = (warm_start){0};
}

uint64_t warm_start_hash(const warm_start *w)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < w->prior.count; k++) {
        uint64_t bits;
        memcpy(&bits, &w->position[k], sizeof bits);
        h = (h ^ w->ranks[k]) * 1099511628211ull;
        h = (h ^ bits) * 1099511628211ull;
    }
    return h;
}
