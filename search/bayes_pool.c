/* bayes's candidate pool by the space's size. See bayes_pool.h. */
#include "bayes_pool.h"

bayes_pool bayes_pool_size(uint64_t valid, size_t requested)
{
    size_t limit = requested ? requested : BAYES_WHOLE_SPACE_LIMIT;
    if (valid <= limit) return (bayes_pool){.whole_space = true, .pool = (size_t)valid};
    /* A sample as large as the whole space may be: the cost per step is
     * the same, and a larger sample holds the optimum more often. */
    return (bayes_pool){.whole_space = false, .pool = limit, .local = BAYES_LOCAL_SLOTS,
                        .climb = BAYES_CLIMB_SLOTS};
}
