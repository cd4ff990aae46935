/* exhaustive: every valid configuration, in rank order. The reference for
 * small spaces and for building a complete dataset to replay.
 *
 * It may be given a selection (strategy_setup): a part of the space, the
 * ranks r with r % parts == part, for a campaign sharded over several
 * processes or nodes (strided rather than in blocks, so that every part
 * holds a like mix of configurations and the parts take about as long);
 * or an explicit list of ranks, measured in that order. */
#include <stdlib.h>

#include "strategy.h"

typedef struct exhaustive_state {
    const space *space;
    const history *history;
    uint64_t part, parts;      /* parts >= 1 */
    const uint64_t *ranks;     /* NULL: every rank of the part */
    uint64_t n_ranks;
    uint64_t next;             /* position: a rank, or an index into ranks */
} exhaustive_state;

static int exhaustive_create(const strategy_setup *setup, const strategy_options *options,
                             void **state, skytune_error *err)
{
    exhaustive_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    s->parts = setup->parts > 1 ? setup->parts : 1;
    s->part = setup->parts > 1 ? setup->part : 0;
    if (setup->ranks) {
        s->ranks = malloc((setup->n_ranks + 1) * sizeof *s->ranks);
        if (!s->ranks) {
            free(s);
            return err_set(err, "out of memory");
        }
        for (size_t k = 0; k < setup->n_ranks; k++) ((uint64_t *)s->ranks)[k] = setup->ranks[k];
        s->n_ranks = setup->n_ranks;
    }
    s->next = s->ranks ? 0 : s->part;
    *state = s;
    return 0;
}

/* The rank at position pos, or false past the end. */
static bool rank_at(const exhaustive_state *s, uint64_t pos, uint64_t *rank)
{
    if (s->ranks) {
        if (pos >= s->n_ranks) return false;
        *rank = s->ranks[pos];
        return true;
    }
    if (pos >= space_count(s->space)) return false;
    *rank = pos;
    return true;
}

/* The position after pos. */
static uint64_t step(const exhaustive_state *s, uint64_t pos)
{
    return pos + (s->ranks ? 1 : s->parts);
}

static strategy_answer exhaustive_ask(void *state, uint64_t *rank)
{
    exhaustive_state *s = state;
    uint64_t r;
    while (rank_at(s, s->next, &r) && history_lookup(s->history, r, NULL)) s->next = step(s, s->next);
    if (!rank_at(s, s->next, &r)) return STRATEGY_DONE;
    *rank = r;
    s->next = step(s, s->next);
    return STRATEGY_PROPOSE;
}

static void exhaustive_tell(void *state, uint64_t rank, double objective)
{
}

/* Exactly the next proposals: the ranks from the next one on that the
 * history does not hold. The one just proposed is before s->next. */
static size_t exhaustive_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const exhaustive_state *s = state;
    size_t n = 0;
    uint64_t r;
    for (uint64_t pos = s->next; n < max && rank_at(s, pos, &r); pos = step(s, pos))
        if (!history_lookup(s->history, r, NULL)) ranks[n++] = r;
    return n;
}

static void exhaustive_destroy(void *state)
{
    exhaustive_state *s = state;
    free((void *)s->ranks);
    free(s);
}

const strategy_ops strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every valid configuration in order; for small spaces",
    .options = NULL,
    .create = exhaustive_create,
    .ask = exhaustive_ask,
    .tell = exhaustive_tell,
    .destroy = exhaustive_destroy,
    .upcoming = exhaustive_upcoming,
};
