/* The cross-measurement step (Sclocco et al.'s fixed-vs-tuned analysis):
 * the best configurations of every instance measured in every other
 * instance on the same device, so that the fixed-vs-tuned query has figures
 * for the same candidates everywhere. Each instance's candidates are one
 * exhaustive run over that list (a campaign of its own, its settings naming
 * the list); configurations measured already are reused from the database,
 * and a candidate outside an instance's space is left out there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_cross.h"
#include "store_campaigns.h"
#include "strategy.h"

/* The campaigns of one instance's search on one device: the file's
 * strategy and seed, not a cross run. */
typedef struct find_ctx {
    const char *strategy;
    uint64_t seed;
    const char *device;
    int64_t *ids;
    size_t n, cap;
    bool oom;
} find_ctx;

static int collect_campaign(void *ctx, const store_campaign_row *row)
{
    find_ctx *fc = ctx;
    if (strcmp(row->strategy, fc->strategy) != 0 || row->seed != fc->seed ||
        strstr(row->settings, ";configs=") || strcmp(row->device, fc->device) != 0)
        return 0;
    if (fc->n == fc->cap) {
        size_t cap = fc->cap ? fc->cap * 2 : 8;
        int64_t *grown = realloc(fc->ids, cap * sizeof *grown);
        if (!grown) {
            fc->oom = true;
            return 1;
        }
        fc->ids = grown;
        fc->cap = cap;
    }
    fc->ids[fc->n++] = row->id;
    return 0;
}

/* The k fastest distinct configurations over several campaigns (the parts
 * of a sharded instance). */
typedef struct candidate {
    char *text;
    double median_ns;
} candidate;

typedef struct top_ctx {
    candidate *list;
    size_t n, cap;
    bool oom;
} top_ctx;

static int add_candidate(void *ctx, const char *text, double median_ns)
{
    top_ctx *tc = ctx;
    for (size_t k = 0; k < tc->n; k++)
        if (strcmp(tc->list[k].text, text) == 0) {
            if (median_ns < tc->list[k].median_ns) tc->list[k].median_ns = median_ns;
            return 0;
        }
    if (tc->n == tc->cap) {
        size_t cap = tc->cap ? tc->cap * 2 : 16;
        candidate *grown = realloc(tc->list, cap * sizeof *grown);
        if (!grown) {
            tc->oom = true;
            return 1;
        }
        tc->list = grown;
        tc->cap = cap;
    }
    tc->list[tc->n].text = strdup(text);
    if (!tc->list[tc->n].text) {
        tc->oom = true;
        return 1;
    }
    tc->list[tc->n++].median_ns = median_ns;
    return 0;
}

static int by_median(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return x->median_ns < y->median_ns ? -1 : x->median_ns > y->median_ns ? 1
                                                                           : strcmp(x->text, y->text);
}

static void free_candidates(top_ctx *tc)
{
    for (size_t k = 0; k < tc->n; k++) free(tc->list[k].text);
    free(tc->list);
    memset(tc, 0, sizeof *tc);
}

/* Instance i's campaigns on `device` and their k best configurations,
 * appended to *all (texts owned by *all). */
static int instance_best(store *st, const campaign_file *f, const char *plugin,
                         const char *problem_text, const char *device, top_ctx *all,
                         skytune_error *err)
{
    find_ctx fc = {
        .strategy = f->strategy.text ? f->strategy.text : strategy_default_name(),
        .seed = f->seed,
        .device = device,
    };
    int rc = store_campaigns_find(st, plugin, problem_text, collect_campaign, &fc, err);
    if (fc.oom) rc = err_set(err, "out of memory");
    top_ctx mine = {0};
    for (size_t k = 0; rc == 0 && k < fc.n; k++) {
        rc = store_campaign_top(st, fc.ids[k], f->cross_top, add_candidate, &mine, err);
        if (mine.oom) rc = err_set(err, "out of memory");
    }
    free(fc.ids);
    if (rc == 0 && mine.n) {
        qsort(mine.list, mine.n, sizeof *mine.list, by_median);
        for (size_t k = 0; k < mine.n && k < f->cross_top && rc == 0; k++) {
            add_candidate(all, mine.list[k].text, mine.list[k].median_ns);
            if (all->oom) rc = err_set(err, "out of memory");
        }
    }
    free_candidates(&mine);
    return rc;
}

int campaign_cross_run(const campaign_file *f, const campaign_plan *p, const tuning_request *base,
                       const sweep_events *events, sweep_result *out, skytune_error *err)
{
    /* Every unit's problem text and device, as a run would resolve them;
     * parts of one instance-device pair are one cross run. */
    size_t n = p->n_units;
    tuning_outcome *seen = calloc(n + 1, sizeof *seen);
    bool *first = calloc(n + 1, sizeof *first);
    int rc = seen && first ? 0 : err_set(err, "out of memory");
    for (size_t u = 0; u < n && rc == 0; u++) {
        first[u] = p->units[u].part == 0;
        if (!first[u]) continue;
        tuning_request check;
        campaign_unit_request(f, p, u, base, &check);
        check.check_only = true;
        check.space_part = 0;
        check.space_parts = 0;
        rc = tuning_run(&check, NULL, NULL, &seen[u], err);
    }
    store *st = NULL;
    if (rc == 0)
        rc = store_open(base->db_path, false, tuning_request_busy_timeout_s(base), &st, err);
    for (size_t u = 0; u < n && rc == 0; u++) {
        if (!first[u]) continue;
        if (base->stop_requested && *base->stop_requested) {
            out->interrupted = true;
            break;
        }
        top_ctx candidates = {0};
        for (size_t v = 0; v < n && rc == 0; v++)
            if (first[v] && p->units[v].instance != p->units[u].instance &&
                strcmp(seen[v].device, seen[u].device) == 0)
                rc = instance_best(st, f, seen[v].plugin, seen[v].problem_text, seen[u].device,
                                   &candidates, err);
        if (rc == 0 && candidates.n > 0) {
            const char **texts = calloc(candidates.n + 1, sizeof *texts);
            if (!texts) {
                rc = err_set(err, "out of memory");
            } else {
                for (size_t k = 0; k < candidates.n; k++) texts[k] = candidates.list[k].text;
                tuning_request rq;
                campaign_unit_request(f, p, u, base, &rq);
                rq.strategy = "exhaustive";
                rq.strategy_opts = NULL;
                rq.n_strategy_opts = 0;
                rq.space_part = 0;
                rq.space_parts = 0;
                rq.configs = texts;
                rq.n_configs = candidates.n;
                rq.limits = (tuning_loop_limits){0};
                rq.label = p->instances[p->units[u].instance].label;
                /* Another instance's best may lie outside this one's space
                 * (a value its problem does not allow): measured are only
                 * those inside, and an instance none of them fits is left
                 * out of the step. */
                tuning_request check = rq;
                check.check_only = true;
                tuning_outcome *fits = malloc(sizeof *fits);
                if (!fits) {
                    rc = err_set(err, "out of memory");
                } else if (tuning_run(&check, NULL, NULL, fits, err) != 0) {
                    rc = -1;
                } else if (fits->space_count > 0 &&
                           campaign_unit_run(&rq, p, u, true, events, out)) {
                    out->interrupted = true;
                }
                free(fits);
                free(texts);
            }
        }
        free_candidates(&candidates);
    }
    store_close(st);
    free(seen);
    free(first);
    /* A stop signal while a space was being built for the step stops it
     * there, as it stops a unit of the sweep: nothing failed. */
    if (rc != 0 && base->stop_requested && *base->stop_requested) {
        out->interrupted = true;
        rc = 0;
    }
    return rc;
}
