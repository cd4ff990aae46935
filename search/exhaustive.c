/* exhaustive: every valid configuration, in rank order. The reference for
 * small spaces and for building a complete dataset to replay. */
#include <stdlib.h>

#include "strategy.h"

typedef struct exhaustive_state {
    const space *space;
    const history *history;
    uint64_t next;
} exhaustive_state;

static int exhaustive_create(const strategy_setup *setup, const strategy_options *options,
                             void **state, skytune_error *err)
{
    exhaustive_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    *state = s;
    return 0;
}

static strategy_answer exhaustive_ask(void *state, uint64_t *rank)
{
    exhaustive_state *s = state;
    uint64_t count = space_count(s->space);
    while (s->next < count && history_lookup(s->history, s->next, NULL)) s->next++;
    if (s->next >= count) return STRATEGY_DONE;
    *rank = s->next++;
    return STRATEGY_PROPOSE;
}

static void exhaustive_tell(void *state, uint64_t rank, double objective)
{
}

/* Exactly the next proposals: the ranks from the next one on that the
 * history does not hold. The one just proposed is below s->next. */
static size_t exhaustive_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const exhaustive_state *s = state;
    uint64_t count = space_count(s->space);
    size_t n = 0;
    for (uint64_t r = s->next; r < count && n < max; r++)
        if (!history_lookup(s->history, r, NULL)) ranks[n++] = r;
    return n;
}

static void exhaustive_destroy(void *state)
{
    free(state);
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
