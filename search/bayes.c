/* bayes: Bayesian optimisation with a Gaussian process.
 *
 * After `initial_samples` random configurations, every proposal comes from a
 * Gaussian-process model of the times measured so far, or, with probability
 * `hc_share`, is an untried neighbour of the best configuration found.
 *
 * Targets. Kernel times have a heavy tail: the median configuration of a
 * real space can be tens of times slower than the optimum, and failures are
 * infinitely slow. A model fitted to raw or even logarithmic times spends
 * its effort explaining the slow tail. Before each proposal the times are
 * replaced by their ranks (ties share the mean rank, failures rank last),
 * mapped to standard normal quantiles: a copula transform. Only the order of
 * the times matters, so the model is insensitive to the tail and to the
 * time scale, and a failure is simply the worst result.
 *
 * Kernel. Configurations are compared as vectors of value indices. For one
 * parameter, the similarity of two values is 1 when they are equal and
 * `adjacent` × `decay`^(steps - 1) otherwise, so neighbouring values (the
 * lists are ordered) are alike and distant ones less so. The defaults (0.5,
 * 0.8) make values several steps apart still informative: a smooth prior
 * that keeps exploring away from the first good region found, which on the
 * recorded GPU spaces mattered more than anything else tried. The kernel mixes
 *   0.4 × the mean similarity over the parameters (main effects),
 *   0.3 × the mean product over pairs of parameters (interactions, such as a
 *         work-group size that is only fast with a given tiling), and
 *   0.3 × the product over all parameters (exact matches),
 * Parameters with one value are left out. Whenever adjacent <= decay, as at
 * the defaults, the similarity is (adjacent / decay) × decay^steps plus a
 * multiple of the identity, each part is a valid kernel and so is the sum
 * (other settings can make it indefinite; the Cholesky update tolerates
 * that). `noise` is the observation noise variance on the normal scale.
 *
 * Powers of two. On GPUs a work-group or tile size that is a power of two
 * often runs far faster than its neighbours in the list (16, 32, 48, 64,
 * ...): memory accesses align, warps fill. Ordered similarity alone sees
 * such a value as a needle among slow neighbours. With `pow2`, an integer
 * parameter whose values mix powers of two and others gets a second column,
 * "is a power of two", which enters the kernel like one more parameter of
 * two values; its relevance, like every column's, is then fitted.
 *
 * Relevances. Parameters matter unequally, and a kernel that weighs them
 * alike generalises poorly from few results. With `relevance`, each
 * column's similarity becomes 1 - r (1 - similarity), r from {0.1, 0.3,
 * 0.6, 1}, r = 1 being the kernel above and small r a column that hardly
 * matters (each is still a valid kernel: a constant plus a scaled one).
 * At 20 results, then 40, 80, ..., one sweep of coordinate ascent picks
 * each column's r by the marginal likelihood of the normal-scored times,
 * the others held, and the model is rebuilt under the new kernel.
 *
 * Proposals. Expected improvement over the best transformed target, on a
 * set of candidates (bayes_pool.h): every valid configuration when there
 * are at most `candidates` of them (by default 8,192), otherwise a fixed
 * random pool of that many drawn at creation and beside it 256 local slots,
 * refilled whenever the best changes with its untried neighbours, each
 * brought into the model at O(observations^2): in a space of 10^5 the
 * optimum is seldom in the pool, and its neighbours are what the search
 * needs scored. There, too, each model proposal is preceded by a local
 * search on EI from the best candidates ("Acquisition search" below),
 * which brings what it steps to into 512 more slots. EI alone is slow to polish the best region (it keeps spending
 * evaluations where the model is unsure), which is what the `hc_share` of
 * steps to untried neighbours of the best, adjacent moves first, make up
 * for. Nothing in the history is ever proposed; with no candidate left the
 * strategy falls back to random unvisited configurations.
 *
 * Balance. A switch such as "use shared memory" splits the space into two
 * halves whose best configurations differ in most other parameters. From
 * the first results EI judges one half the better and then seldom returns
 * to the other, where one good result would need several others around it
 * before the model believed in it; on the recorded GPU spaces that half
 * often held the optimum. So every `balance`-th model proposal, from 20
 * results on, looks for a value that covers at least 40 % of the
 * candidates (in practice a side of a two-way switch) but has a smaller
 * share of the results, and if there is one proposes the candidate of
 * highest EI among those with that value: each side keeps its share of
 * the evaluations, and EI still chooses within it.
 *
 * Cost. The model grows incrementally: each observation adds a row to a
 * Cholesky factor and a row of L^-1 k(X, candidates), and one pass over
 * those rows updates every candidate's posterior variance and mean; the
 * proposal then bounds EI from a table and computes it exactly only for
 * the few candidates the bound cannot dismiss. k(x, candidates) takes one
 * lookup per group of parameters in tables made for x. The pass is
 * O(observations × candidates), a rebuild after a relevance fit
 * O(observations^2 × candidates) but done a block of candidates at a time,
 * in cache: at 4,096 candidates, about 200 µs per evaluation
 * averaged over budgets of 20 to 200. That is nothing next to a real
 * evaluation (compiling and timing a kernel takes seconds), but twenty
 * times the 10 µs of a replayed one: the strategy is meant for real
 * tuning. Memory is bounded by `max_points` observations; later ones are
 * not added to the model (the history still keeps them from being
 * proposed again).
 *
 * Warm start. With a prior (strategy_setup.prior: other devices'
 * recordings of the space, as normalised ranks), the first `warm_samples`
 * proposals are the recordings' fastest configurations, and the model's
 * mean is alpha + beta × the normal score of a configuration's rank there,
 * refitted by least squares at each update (beta at most `prior_weight`),
 * the Gaussian process modelling what is left. So the recordings point
 * where to look first, and the results say how far this device follows
 * them: on the recorded GPU spaces one device in six has its optimum in a
 * family the others rank poorly, and a weight above 0.25 kept it there.
 * Out of memory, the strategy proposes random unvisited configurations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bayes_pool.h"
#include "neighbourhood.h"
#include "rank_map.h"
#include "ranks.h"
#include "strategy.h"

/* Weights of the kernel's parts; they sum to 1, the prior variance. */
#define WEIGHT_MAIN 0.4
#define WEIGHT_PAIRS 0.3
#define WEIGHT_EXACT 0.3
#define PRIOR_VARIANCE (WEIGHT_MAIN + WEIGHT_PAIRS + WEIGHT_EXACT)

#define INV_SQRT_2PI 0.3989422804014327

/* The grid of ei_bound's table: -12 to +12 in steps of 1/32. */
#define EI_TABLE_LOW (-12.0)
#define EI_TABLE_STEP (1.0 / 32)
#define EI_TABLE_SIZE 769

/* Results at which relevances are first fitted; then at twice as many, and
 * so on. */
#define FIRST_RELEVANCE_FIT 20

/* Draws per candidate before a random pool settles for fewer. */
#define POOL_TRIES_PER_CANDIDATE 16

/* Balance: values covering at least BALANCE_SHARE of the candidates are
 * kept at that share of the results, from BALANCE_FROM results on. */
#define BALANCE_SHARE 0.4
#define BALANCE_FROM 20

/* Warm start: beta's shrinkage, per observation, towards ignoring the
 * prior while the observations' prior scores hardly vary. */
#define PRIOR_SHRINK 0.05

typedef struct bayes_state {
    const space *space;
    const history *history;
    pcg32 rng;
    size_t n_params;
    size_t width;              /* of a configuration's row: n_params + derived features */
    size_t n_derived;
    size_t *derived_param;     /* the parameter each derived feature is of */
    bool **derived_flag;       /* per derived feature: is value i a power of two */

    size_t initial_samples;
    double hc_share;
    double noise;
    size_t max_points;

    /* The kernel. */
    size_t n_active;
    size_t *active;            /* parameters with more than one value */
    size_t widest;             /* the most values of any parameter */
    double *base;              /* similarity by distance between value indices, relevance 1 */
    double *relevance;         /* per active column */
    double *similarity;        /* per active column: by distance, at its relevance */
    bool fit_relevance;
    size_t next_fit;           /* observations at which relevances are fitted next */

    /* The kernel against candidates, by groups of parameters: a group's
     * columns' sum, sum of squares and product of similarities to one
     * configuration x, tabulated over the group's value combinations (its
     * keys), so that k(x, candidate) takes one lookup per group. */
    size_t n_groups;
    size_t *group_of;          /* per parameter: its group (active parameters only) */
    size_t *stride;            /* per parameter: its place value in its group's key */
    size_t *group_keys;        /* per group: its value combinations */
    size_t *group_table;       /* per group: where its entries start in the tables */
    double *table_sum, *table_sum_sq, *table_product;
    bool *key_matches;         /* the most keys of any group, scratch for one proposal */

    /* The candidates EI chooses from: the pool (the whole space, or a
     * random sample of it), then, when the pool is a sample, the local
     * slots, which hold the untried neighbours of the best so far. */
    size_t n_cand;
    size_t cand_cap;
    size_t n_pool;
    size_t n_local;            /* local slots (0 when the pool is the whole space) */
    uint64_t local_of;         /* the configuration the local slots are the neighbours of */
    bool have_local;
    pcg32 local_rng;           /* orders the neighbours; the proposals' generator is left alone */
    size_t n_climb;            /* the acquisition search's slots, after the local slots */
    size_t next_climb;         /* the slot the next configuration it steps to takes */
    pcg32 climb_rng;           /* orders the neighbours it looks at */
    rank_map cand_map;         /* rank -> candidate, every live one, when the pool is a sample */
    uint16_t *climb_rows;      /* CLIMB_BATCH × width: configurations new to the candidates */
    double *climb_cross;       /* obs_cap × CLIMB_BATCH: their columns of L^-1 k(X, .) */
    size_t climb_cap;          /* the observations climb_cross has room for */
    rank_list climb_list;      /* scratch: the neighbours of where the search stands */
    uint32_t *cand_key;        /* group-major: group g's keys of the candidates at g × cand_cap */
    uint16_t *row;             /* n_params, scratch for one drawn configuration */
    uint64_t *cand_rank;
    bool *cand_known;          /* found in the history (it only grows) */
    double *variance;          /* posterior variance */
    double *mean;              /* posterior mean of the normal-scored times */
    double *cand_prior;        /* per candidate: the warm start's normal score (NULL: none) */
    double *sd, *bound;        /* scratch for one proposal: posterior sd, bound on EI */
    double ei_table[EI_TABLE_SIZE]; /* EI at sd 1 over a grid of improvements */

    /* The observations in the model. */
    size_t n_obs, obs_cap;
    uint16_t *obs_idx;         /* obs_cap × width */
    uint64_t *obs_rank;
    double *objective;
    double best_target;        /* the lowest normal-scored time */
    double *chol;              /* lower Cholesky factor, packed: row i at i(i+1)/2 */
    float **cross;             /* per observation: row of L^-1 k(X, candidates) */
    double *scratch;           /* 3 × obs_cap, for one update */
    const double *weights;     /* L^-1 (targets less the prior), in scratch, of the last update */

    /* Warm start (NULL prior: none). The model's targets are the
     * normal-scored times less alpha + beta × the prior's normal score,
     * refitted at each update; the first proposals are the recordings'
     * fastest configurations. */
    const strategy_prior *prior;
    double *obs_prior;         /* per observation */
    double prior_alpha, prior_beta;
    double prior_weight;       /* beta's ceiling */
    uint64_t *warm_ranks;      /* the recordings' fastest first */
    size_t n_warm, next_warm;

    size_t samples_proposed;
    size_t balance;            /* every this many model proposals; 0 = never */
    size_t model_proposals;
    size_t *value_first;       /* per parameter: where its values start in value_candidates */
    size_t *value_candidates;  /* per parameter and value: candidates with that value */
    best_result best;          /* history included */
    rank_list neighbours;      /* of neighbours_of, in the order they are tried */
    uint64_t neighbours_of;
    bool have_neighbours;
    size_t next_neighbour;
    bool degraded;             /* out of memory: proposes random configurations */
    bool awaiting_tell;        /* the last ask proposed pending_rank, not told yet */
    uint64_t pending_rank;
} bayes_state;

static const strategy_option bayes_options[] = {
    {"initial_samples", "10", "random configurations sampled before the model is used"},
    {"hc_share", "0.3", "share of proposals that are untried neighbours of the best so far"},
    {"adjacent", "0.5", "kernel: similarity of a parameter's adjacent values"},
    {"decay", "0.8", "kernel: factor on the similarity per further step between values"},
    {"relevance", "1",
     "fit each parameter's relevance by marginal likelihood at 20, 40, 80, ... results (1) "
     "or weigh all parameters alike (0)"},
    {"pow2", "1",
     "give an integer parameter whose values mix powers of two and others a second column: "
     "whether its value is a power of two (1), or not (0)"},
    {"balance", "2",
     "every this many model proposals, keep each value that covers 40 % or more of the "
     "candidates at its share of the results (0: never)"},
    {"noise", "0.01", "noise variance of the normal-scored times"},
    {"candidates", "0",
     "configurations expected improvement scores: all of them in a space no larger, otherwise "
     "a random pool of this many and the neighbours of the best so far; 0: chosen by the "
     "space's size (bayes_pool.h)"},
    {"prior_weight", "0.25",
     "with a warm start: the most the recordings' ranks weigh in the model's mean, 0 to 1 "
     "(0: they only choose the first samples)"},
    {"warm_samples", "5",
     "with a warm start: the recordings' fastest configurations measured first, counted among "
     "the initial samples"},
    {"max_points", "400", "observations the model holds; later ones only count as evaluated"},
    {NULL, NULL, NULL},
};

static double inverse_normal(double p);

/* malloc for n items, failing on overflow; never malloc(0), whose NULL would
 * read as out of memory. */
static void *array_alloc(size_t n, size_t size)
{
    if (n && size > SIZE_MAX / n) return NULL;
    return malloc(n ? n * size : 1);
}

/* ------------------------------------------------------------ kernel */

static bool is_power_of_two(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* A derived column for parameter k when it is an integer parameter whose
 * values mix powers of two and others: 0 if none is needed, -1 when out of
 * memory. */
static int add_power_of_two_column(bayes_state *s, size_t k)
{
    const param_def *d = space_param(s->space, k);
    if (d->type != SKYTUNE_INT || d->count < 2) return 0;
    size_t powers = 0;
    for (size_t i = 0; i < d->count; i++) powers += is_power_of_two(d->values[i].i);
    if (powers == 0 || powers == d->count) return 0;
    bool *flag = array_alloc(d->count, sizeof *flag);
    if (!flag) return -1;
    for (size_t i = 0; i < d->count; i++) flag[i] = is_power_of_two(d->values[i].i);
    s->derived_param[s->n_derived] = k;
    s->derived_flag[s->n_derived] = flag;
    s->active[s->n_active++] = s->n_params + s->n_derived;
    s->n_derived++;
    return 0;
}

static void set_relevance(bayes_state *s, size_t j, double relevance)
{
    s->relevance[j] = relevance;
    double *table = s->similarity + j * s->widest;
    for (size_t d = 0; d < s->widest; d++)
        table[d] = relevance == 1.0 ? s->base[d] : 1.0 - relevance * (1.0 - s->base[d]);
}

/* The parameter a column is of: itself, or the one a derived column is
 * derived from. */
static size_t column_param(const bayes_state *s, size_t k)
{
    return k < s->n_params ? k : s->derived_param[k - s->n_params];
}

/* Active parameters, in order, fill a group until one more would take its
 * value combinations past GROUP_KEYS (a parameter with more values than
 * that has a group of its own). Two or three groups cover the usual space,
 * and their tables stay in L1 cache. */
#define GROUP_KEYS 256

static int kernel_groups_init(bayes_state *s)
{
    size_t P = s->n_params;
    s->group_of = array_alloc(P, sizeof *s->group_of);
    s->stride = array_alloc(P, sizeof *s->stride);
    s->group_keys = array_alloc(P, sizeof *s->group_keys);
    s->group_table = array_alloc(P, sizeof *s->group_table);
    if (!s->group_of || !s->stride || !s->group_keys || !s->group_table)
        return -1;
    for (size_t k = 0; k < P; k++) {
        size_t count = space_param(s->space, k)->count;
        if (count < 2) continue;
        size_t g = s->n_groups;
        if (g > 0 && s->group_keys[g - 1] * count <= GROUP_KEYS) {
            g--;
        } else {
            s->group_keys[g] = 1;
            s->n_groups++;
        }
        s->group_of[k] = g;
        s->stride[k] = s->group_keys[g];
        s->group_keys[g] *= count;
    }
    size_t total = 0, most = 1;
    for (size_t g = 0; g < s->n_groups; g++) {
        s->group_table[g] = total;
        total += s->group_keys[g];
        if (s->group_keys[g] > most) most = s->group_keys[g];
    }
    s->key_matches = array_alloc(most, sizeof *s->key_matches);
    if (!s->key_matches) return -1;
    s->table_sum = array_alloc(total, 3 * sizeof *s->table_sum);
    if (!s->table_sum) return -1;
    s->table_sum_sq = s->table_sum + total;
    s->table_product = s->table_sum_sq + total;
    return 0;
}

/* A candidate's key in each group, from its value indices. */
static void candidate_keys(bayes_state *s, size_t c, const uint16_t *row)
{
    for (size_t g = 0; g < s->n_groups; g++) s->cand_key[g * s->cand_cap + c] = 0;
    for (size_t k = 0; k < s->n_params; k++)
        if (space_param(s->space, k)->count > 1)
            s->cand_key[s->group_of[k] * s->cand_cap + c] += (uint32_t)(row[k] * s->stride[k]);
}

static int kernel_init(bayes_state *s, double adjacent, double decay, bool powers_of_two)
{
    size_t widest = 2; /* derived columns have two values */
    s->active = array_alloc(2 * s->n_params, sizeof *s->active);
    s->derived_param = array_alloc(s->n_params, sizeof *s->derived_param);
    s->derived_flag = calloc(s->n_params ? s->n_params : 1, sizeof *s->derived_flag);
    if (!s->active || !s->derived_param || !s->derived_flag) return -1;
    for (size_t k = 0; k < s->n_params; k++) {
        size_t count = space_param(s->space, k)->count;
        if (count < 2) continue;
        s->active[s->n_active++] = k;
        if (count > widest) widest = count;
    }
    for (size_t k = 0; powers_of_two && k < s->n_params; k++)
        if (add_power_of_two_column(s, k) != 0) return -1;
    s->width = s->n_params + s->n_derived;
    s->widest = widest;
    s->base = array_alloc(widest, sizeof *s->base);
    s->relevance = array_alloc(s->n_active, sizeof *s->relevance);
    s->similarity = array_alloc(s->n_active, widest * sizeof *s->similarity);
    if (!s->base || !s->relevance || !s->similarity) return -1;
    s->base[0] = 1.0;
    for (size_t d = 1; d < widest; d++) s->base[d] = d == 1 ? adjacent : s->base[d - 1] * decay;
    for (size_t j = 0; j < s->n_active; j++) set_relevance(s, j, 1.0);
    return kernel_groups_init(s);
}

/* A configuration's row: its value indices, then its derived columns. */
static void fill_derived(const bayes_state *s, uint16_t *row)
{
    for (size_t f = 0; f < s->n_derived; f++)
        row[s->n_params + f] = s->derived_flag[f][row[s->derived_param[f]]];
}

/* Candidates per block of the model update: a block's sums stay in L1
 * cache while the rows of L^-1 k(X, candidates) stream past. */
#define UPDATE_BLOCK 256

/* The kernel from the per-parameter similarities' sum, sum of squares and
 * product over the p active parameters. */
static double kernel_combine(size_t p, double sum, double sum_sq, double product)
{
    /* The mean over pairs k < l of v_k v_l, without the double loop; and
     * multiplications by reciprocals, which stay out of the loops this is
     * inlined into, rather than two divisions per kernel value. */
    double pairs = p > 1 ? (sum * sum - sum_sq) * (1.0 / ((double)p * (double)(p - 1))) : 1.0;
    return WEIGHT_MAIN / (double)p * sum + WEIGHT_PAIRS * pairs + WEIGHT_EXACT * product;
}

static double kernel(const bayes_state *s, const uint16_t *a, const uint16_t *b)
{
    size_t p = s->n_active;
    if (p == 0) return PRIOR_VARIANCE;
    double sum = 0, sum_sq = 0, product = 1;
    for (size_t j = 0; j < p; j++) {
        size_t k = s->active[j];
        double v = s->similarity[j * s->widest + (a[k] > b[k] ? a[k] - b[k] : b[k] - a[k])];
        sum += v;
        sum_sq += v * v;
        product *= v;
    }
    return kernel_combine(p, sum, sum_sq, product);
}

/* Tabulates, for configuration x, each group's sum, sum of squares and
 * product of its columns' similarities over every key of the group. A
 * group's table is grown parameter by parameter: the entries for value v
 * of the next parameter are those so far plus (times, for the product)
 * that parameter's own columns' terms at v. */
static void kernel_tables(bayes_state *s, const uint16_t *x)
{
    for (size_t g = 0; g < s->n_groups; g++) {
        double *t_sum = s->table_sum + s->group_table[g];
        double *t_sum_sq = s->table_sum_sq + s->group_table[g];
        double *t_product = s->table_product + s->group_table[g];
        t_sum[0] = 0;
        t_sum_sq[0] = 0;
        t_product[0] = 1;
        size_t size = 1;
        for (size_t k = 0; k < s->n_params; k++) {
            size_t count = space_param(s->space, k)->count;
            if (count < 2 || s->group_of[k] != g) continue;
            /* From the last value down, so that value 0 updates in place last. */
            for (size_t v = count; v-- > 0;) {
                double sum = 0, sum_sq = 0, product = 1;
                for (size_t j = 0; j < s->n_active; j++) {
                    size_t column = s->active[j];
                    if (column_param(s, column) != k) continue;
                    size_t value = column == k ? v : s->derived_flag[column - s->n_params][v];
                    double sim = s->similarity[j * s->widest + (x[column] > value
                                                                    ? x[column] - value
                                                                    : value - x[column])];
                    sum += sim;
                    sum_sq += sim * sim;
                    product *= sim;
                }
                for (size_t key = 0; key < size; key++) {
                    t_sum[v * size + key] = t_sum[key] + sum;
                    t_sum_sq[v * size + key] = t_sum_sq[key] + sum_sq;
                    t_product[v * size + key] = t_product[key] * product;
                }
            }
            size *= count;
        }
    }
}

/* k(x, candidate) for the candidates first .. first + count - 1 from the
 * tables kernel_tables made for x: one lookup per group, the groups taken
 * one after the other over the block (the keys are stored by group) so
 * that the candidates' chains of sums and products do not wait on one
 * another. */
static void kernel_block(const bayes_state *s, size_t first, size_t count, float *out)
{
    size_t p = s->n_active;
    if (p == 0) {
        for (size_t c = 0; c < count; c++) out[c] = (float)PRIOR_VARIANCE;
        return;
    }
    double sum[UPDATE_BLOCK] = {0}, sum_sq[UPDATE_BLOCK] = {0}, product[UPDATE_BLOCK];
    for (size_t c = 0; c < count; c++) product[c] = 1;
    for (size_t g = 0; g < s->n_groups; g++) {
        const uint32_t *key = s->cand_key + g * s->cand_cap + first;
        size_t at = s->group_table[g];
        const double *t_sum = s->table_sum + at, *t_sum_sq = s->table_sum_sq + at,
                     *t_product = s->table_product + at;
        for (size_t c = 0; c < count; c++) {
            sum[c] += t_sum[key[c]];
            sum_sq[c] += t_sum_sq[key[c]];
            product[c] *= t_product[key[c]];
        }
    }
    for (size_t c = 0; c < count; c++)
        out[c] = (float)kernel_combine(p, sum[c], sum_sq[c], product[c]);
}

/* -------------------------------------------------------- candidates */

static int candidates_alloc(bayes_state *s, size_t count)
{
    s->cand_cap = count;
    s->cand_key = array_alloc(count, (s->n_groups ? s->n_groups : 1) * sizeof *s->cand_key);
    s->row = array_alloc(s->n_params, sizeof *s->row);
    s->cand_rank = array_alloc(count, sizeof *s->cand_rank);
    s->cand_known = calloc(count ? count : 1, sizeof *s->cand_known);
    s->variance = array_alloc(count, sizeof *s->variance);
    s->mean = array_alloc(count, sizeof *s->mean);
    s->sd = array_alloc(count, sizeof *s->sd);
    s->bound = array_alloc(count, sizeof *s->bound);
    if (!s->cand_key || !s->row || !s->cand_rank || !s->cand_known || !s->variance || !s->mean ||
        !s->sd || !s->bound)
        return -1;
    if (s->prior && !(s->cand_prior = calloc(count ? count : 1, sizeof *s->cand_prior))) return -1;
    for (size_t c = 0; c < count; c++) {
        s->variance[c] = PRIOR_VARIANCE;
        s->mean[c] = 0;
    }
    return 0;
}

/* What the warm start predicts of candidate c's target (0 without one). */
static double prior_mean(const bayes_state *s, size_t c)
{
    return s->cand_prior ? s->prior_alpha + s->prior_beta * s->cand_prior[c] : 0;
}

/* The standard normal quantile of the warm start's normalised rank of a
 * configuration: as the model's targets are scored (copula_targets); 0,
 * the middle, for one no recording holds. */
static double prior_score(const bayes_state *s, uint64_t rank)
{
    double position;
    if (!s->prior || !strategy_prior_lookup(s->prior, rank, &position)) return 0;
    return inverse_normal(position);
}

/* Appends a candidate, given its value indices. */
static void add_candidate(bayes_state *s, uint64_t rank, const uint16_t *row)
{
    candidate_keys(s, s->n_cand, row);
    if (s->cand_prior) s->cand_prior[s->n_cand] = prior_score(s, rank);
    s->cand_rank[s->n_cand++] = rank;
}

static int store_candidate(void *ctx, const uint16_t *idx)
{
    bayes_state *s = ctx;
    /* Enumeration goes in rank order, and ranks are dense. */
    add_candidate(s, s->n_cand, idx);
    return 0;
}

/* Distinct random configurations; near the space's size duplicates become
 * common, and the pool settles for what the bounded draws found. */
static int draw_pool(bayes_state *s, size_t size)
{
    rank_set drawn = {0};
    uint64_t tries = (uint64_t)size * POOL_TRIES_PER_CANDIDATE;
    for (uint64_t t = 0; t < tries && s->n_cand < size; t++) {
        uint64_t rank = space_sample(s->space, &s->rng);
        int added = rank_set_insert(&drawn, rank);
        if (added < 0) {
            rank_set_free(&drawn);
            return -1;
        }
        if (!added) continue;
        space_unrank(s->space, rank, s->row);
        add_candidate(s, rank, s->row);
    }
    rank_set_free(&drawn);
    return 0;
}

/* The pool, then the local slots and the acquisition search's slots,
 * empty until filled (they hold key 0, a valid one, count as evaluated and
 * are left out of the map). Where the pool is a sample, the map finds a
 * configuration among the candidates. */
static int candidates_init(bayes_state *s, size_t requested)
{
    bayes_pool size = bayes_pool_size(space_count(s->space), requested);
    if (candidates_alloc(s, size.pool + size.local + size.climb) != 0) return -1;
    if (size.whole_space ? space_enumerate(s->space, store_candidate, s) < 0
                         : draw_pool(s, size.pool) != 0)
        return -1;
    s->n_pool = s->n_cand;
    s->n_local = size.local;
    s->n_climb = size.climb;
    for (size_t c = 0; c < s->n_local + s->n_climb; c++) {
        for (size_t g = 0; g < s->n_groups; g++) s->cand_key[g * s->cand_cap + s->n_cand] = 0;
        s->cand_known[s->n_cand] = true;
        s->cand_rank[s->n_cand++] = 0;
    }
    if (size.whole_space) return 0;
    if (rank_map_init(&s->cand_map, s->n_cand) != 0) return -1;
    for (size_t c = 0; c < s->n_pool; c++)
        if (rank_map_put(&s->cand_map, s->cand_rank[c], (uint32_t)c) != 0) return -1;
    return 0;
}

/* Whether slot c holds a configuration (the map's entry for it). */
static bool slot_live(const bayes_state *s, size_t c)
{
    uint32_t at;
    return rank_map_get(&s->cand_map, s->cand_rank[c], &at) && at == c;
}

/* The value index of parameter k (active) in candidate c. */
static size_t candidate_value(const bayes_state *s, size_t c, size_t k)
{
    return s->cand_key[s->group_of[k] * s->cand_cap + c] / s->stride[k] %
           space_param(s->space, k)->count;
}

/* How many candidates have each value of each active parameter. */
static int count_candidate_values(bayes_state *s)
{
    s->value_first = array_alloc(s->n_params, sizeof *s->value_first);
    if (!s->value_first) return -1;
    size_t total = 0;
    for (size_t k = 0; k < s->n_params; k++) {
        s->value_first[k] = total;
        total += space_param(s->space, k)->count;
    }
    s->value_candidates = calloc(total ? total : 1, sizeof *s->value_candidates);
    if (!s->value_candidates) return -1;
    for (size_t k = 0; k < s->n_params; k++) {
        if (space_param(s->space, k)->count < 2) continue;
        for (size_t c = 0; c < s->n_pool; c++)
            s->value_candidates[s->value_first[k] + candidate_value(s, c, k)]++;
    }
    return 0;
}

/* ------------------------------------------------------------- model */

static int model_grow(bayes_state *s)
{
    size_t cap = s->obs_cap ? 2 * s->obs_cap : 64;
    if (cap > s->max_points) cap = s->max_points;
    if (cap > SIZE_MAX / (cap + 1)) return -1;
    /* Each realloc that succeeds is kept, so a failure leaks nothing. */
    uint16_t *obs_idx = realloc(s->obs_idx, cap * s->width * sizeof *obs_idx + 1);
    if (obs_idx) s->obs_idx = obs_idx;
    uint64_t *obs_rank = realloc(s->obs_rank, cap * sizeof *obs_rank);
    if (obs_rank) s->obs_rank = obs_rank;
    if (!obs_rank) return -1;
    double *objective = realloc(s->objective, cap * sizeof *objective);
    if (objective) s->objective = objective;
    double *chol = realloc(s->chol, cap * (cap + 1) / 2 * sizeof *chol);
    if (chol) s->chol = chol;
    float **cross = realloc(s->cross, cap * sizeof *cross);
    if (cross) s->cross = cross;
    double *scratch = realloc(s->scratch, 3 * cap * sizeof *scratch);
    if (scratch) s->scratch = scratch;
    double *obs_prior = realloc(s->obs_prior, cap * sizeof *obs_prior);
    if (obs_prior) s->obs_prior = obs_prior;
    if (!obs_idx || !objective || !chol || !cross || !scratch || !obs_prior) return -1;
    s->obs_cap = cap;
    return 0;
}

static const double *chol_row(const bayes_state *s, size_t i)
{
    return s->chol + i * (i + 1) / 2;
}

/* The new observation's row of the Cholesky factor, its diagonal returned. */
static double extend_cholesky(bayes_state *s, const uint16_t *x)
{
    size_t n = s->n_obs, P = s->width;
    double *row = s->chol + n * (n + 1) / 2;
    for (size_t i = 0; i < n; i++) {
        const double *li = chol_row(s, i);
        double v = kernel(s, x, s->obs_idx + i * P);
        for (size_t j = 0; j < i; j++) v -= li[j] * row[j];
        row[i] = v / li[i];
    }
    double d = kernel(s, x, x) + s->noise;
    for (size_t j = 0; j < n; j++) d -= row[j] * row[j];
    /* Rounding, or a kernel made indefinite by extreme adjacent/decay
     * settings, must not stop the model: clamp to a small pivot. */
    d = d > 1e-10 ? sqrt(d) : 1e-5;
    row[n] = d;
    return d;
}

/* ----------------------------------------------------- the transform */

/* Inverse of the standard normal CDF, P. J. Acklam's rational approximation
 * (relative error below 1.2e-9), for p in (0, 1). */
static double inverse_normal(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    const double tail = 0.02425;
    if (p < tail || p > 1 - tail) {
        double q = sqrt(-2 * log(p < tail ? p : 1 - p));
        double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        return p < tail ? x : -x;
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* target[i] = the normal quantile of objective i's normalised rank
 * (ranks.h): symmetric, and never infinite. `sorted` is scratch for n
 * values. */
static void copula_targets(const double *objective, size_t n, double *target, double *sorted)
{
    normalised_ranks(objective, n, target, sorted);
    for (size_t i = 0; i < n; i++) target[i] = inverse_normal(target[i]);
}

/* ------------------------------------------------------- posterior */

/* weights = L^-1 target, by forward substitution over n rows. */
static void solve_lower(const bayes_state *s, size_t n, const double *target, double *weights)
{
    for (size_t i = 0; i < n; i++) {
        const double *li = chol_row(s, i);
        double v = target[i];
        for (size_t j = 0; j < i; j++) v -= li[j] * weights[j];
        weights[i] = v / li[i];
    }
}

/* by_row += Σ l[r] v_r, and by_weight += Σ w[r] v_r unless by_weight is
 * NULL, over one block. Four rows at a time make a quarter of the loads and
 * stores of the sums. The function is kept out of line: inlined, GCC's -O3
 * loop interchange makes the rows the inner loop, and the sums scalar, at
 * half the speed. */
__attribute__((noinline)) static void accumulate_four_rows(
    const float *restrict v0, const float *restrict v1, const float *restrict v2,
    const float *restrict v3, const float *restrict l, const float *restrict w,
    float *restrict by_row, float *restrict by_weight)
{
    if (!by_weight) {
        for (size_t c = 0; c < UPDATE_BLOCK; c++)
            by_row[c] += (l[0] * v0[c] + l[1] * v1[c]) + (l[2] * v2[c] + l[3] * v3[c]);
        return;
    }
    for (size_t c = 0; c < UPDATE_BLOCK; c++) {
        by_row[c] += (l[0] * v0[c] + l[1] * v1[c]) + (l[2] * v2[c] + l[3] * v3[c]);
        by_weight[c] += (w[0] * v0[c] + w[1] * v1[c]) + (w[2] * v2[c] + w[3] * v3[c]);
    }
}

/* Over the block of candidates at c0: by_row = Σ row[i] v_i over the first
 * `count` cross rows v_i, and by_weight = Σ weight[i] v_i unless weight is
 * NULL. */
static void combine_rows(const bayes_state *s, size_t count, size_t c0, const double *row,
                         const double *weight, float *by_row, float *by_weight)
{
    float *by_weight_or_null = weight ? by_weight : NULL;
    memset(by_row, 0, UPDATE_BLOCK * sizeof *by_row);
    if (weight) memset(by_weight, 0, UPDATE_BLOCK * sizeof *by_weight);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        float l[4], w[4] = {0};
        for (size_t r = 0; r < 4; r++) {
            l[r] = (float)row[i + r];
            if (weight) w[r] = (float)weight[i + r];
        }
        accumulate_four_rows(s->cross[i] + c0, s->cross[i + 1] + c0, s->cross[i + 2] + c0,
                             s->cross[i + 3] + c0, l, w, by_row, by_weight_or_null);
    }
    for (; i < count; i++) {
        const float *vi = s->cross[i] + c0;
        float l = (float)row[i];
        for (size_t c = 0; c < UPDATE_BLOCK; c++) by_row[c] += l * vi[c];
        if (!weight) continue;
        float w = (float)weight[i];
        for (size_t c = 0; c < UPDATE_BLOCK; c++) by_weight[c] += w * vi[c];
    }
}

/* k(x, candidates) into row, padding left alone. */
static void prior_row(bayes_state *s, const uint16_t *x, float *row)
{
    kernel_tables(s, x);
    for (size_t c0 = 0; c0 < s->n_cand; c0 += UPDATE_BLOCK)
        kernel_block(s, c0, s->n_cand - c0 < UPDATE_BLOCK ? s->n_cand - c0 : UPDATE_BLOCK,
                     row + c0);
}

/* Turns observation n's row over the block of candidates at c0 from its
 * prior k(x_n, candidates) into its cross row, given the sums of the rows
 * before it by its Cholesky row (diagonal d): what it takes off each
 * candidate's variance, and, given the weights L^-1 target of all n + 1
 * observations, the posterior mean. */
static void finish_block(bayes_state *s, size_t n, size_t c0, double d, const float *by_row,
                         const double *weights, const float *by_weight, float *row)
{
    size_t len = s->n_cand - c0 < UPDATE_BLOCK ? s->n_cand - c0 : UPDATE_BLOCK;
    double inverse_d = 1 / d;
    for (size_t c = 0; c < len; c++) {
        double v = ((double)row[c] - by_row[c]) * inverse_d;
        s->variance[c0 + c] -= v * v;
        if (weights) s->mean[c0 + c] = by_weight[c] + weights[n] * v + prior_mean(s, c0 + c);
        row[c] = (float)v;
    }
}

/* The normal-scored targets of the first n observations, the best of them
 * returned; with a warm start, less what the prior predicts of them:
 * alpha + beta × its score, fitted to them by least squares (beta held in
 * 0..1 and shrunk towards 0 while the observations' scores hardly vary), so
 * that the model learns how far this device follows the others. */
static double model_targets(bayes_state *s, size_t n, double *target, double *sorted)
{
    copula_targets(s->objective, n, target, sorted);
    double best = target[0];
    for (size_t i = 1; i < n; i++)
        if (target[i] < best) best = target[i];
    if (!s->prior) return best;
    double mean_m = 0, mean_y = 0;
    for (size_t i = 0; i < n; i++) {
        mean_m += s->obs_prior[i];
        mean_y += target[i];
    }
    mean_m /= (double)n;
    mean_y /= (double)n;
    double cov = 0, var = 0;
    for (size_t i = 0; i < n; i++) {
        cov += (s->obs_prior[i] - mean_m) * (target[i] - mean_y);
        var += (s->obs_prior[i] - mean_m) * (s->obs_prior[i] - mean_m);
    }
    double beta = cov / (var + PRIOR_SHRINK * (double)n);
    s->prior_beta = beta < 0 ? 0 : beta > s->prior_weight ? s->prior_weight : beta;
    s->prior_alpha = mean_y - s->prior_beta * mean_m;
    for (size_t i = 0; i < n; i++) target[i] -= s->prior_alpha + s->prior_beta * s->obs_prior[i];
    return best;
}

/* The model's targets, L^-1 of them (weights, in s->scratch, returned and
 * kept in s->weights) and the best normal-scored time. */
static double *model_weights(bayes_state *s, size_t n)
{
    double *target = s->scratch, *sorted = target + s->obs_cap, *weights = sorted + s->obs_cap;
    s->best_target = model_targets(s, n, target, sorted);
    solve_lower(s, n, target, weights);
    s->weights = weights;
    return weights;
}

/* Adds an observation and brings the posterior up to date in one pass over
 * the cross rows, which are what costs (observations × candidates): their
 * combination by the new Cholesky row gives the new cross row and what it
 * takes off every candidate's variance; their combination by L^-1 target
 * gives the posterior mean, k(candidates, X) K^-1 target. The targets are
 * re-ranked at each observation, so the mean has to be redone each time;
 * doing both in one pass reads the rows once. They are kept as floats: the
 * pass is limited by memory bandwidth, and single precision is far finer
 * than anything the proposals depend on. */
static int model_add(bayes_state *s, uint64_t rank, double objective)
{
    if (s->n_obs == s->max_points) return 0;
    if (s->n_obs == s->obs_cap && model_grow(s) != 0) return -1;
    /* Rows are padded to whole blocks (with zeros), so that the inner loop
     * has a fixed length the compiler vectorises. */
    size_t padded = (s->n_cand + UPDATE_BLOCK - 1) / UPDATE_BLOCK * UPDATE_BLOCK;
    float *fresh = array_alloc(padded, sizeof *fresh);
    if (!fresh) return -1;
    memset(fresh + s->n_cand, 0, (padded - s->n_cand) * sizeof *fresh);
    size_t n = s->n_obs, P = s->width;
    uint16_t *x = s->obs_idx + n * P;
    space_unrank(s->space, rank, x);
    fill_derived(s, x);
    double d = extend_cholesky(s, x);
    s->objective[n] = objective;
    s->obs_rank[n] = rank;
    s->obs_prior[n] = prior_score(s, rank);
    const double *weights = model_weights(s, n + 1);

    prior_row(s, x, fresh);
    float by_row[UPDATE_BLOCK], by_weight[UPDATE_BLOCK];
    for (size_t c0 = 0; c0 < s->n_cand; c0 += UPDATE_BLOCK) {
        combine_rows(s, n, c0, chol_row(s, n), weights, by_row, by_weight);
        finish_block(s, n, c0, d, by_row, weights, by_weight, fresh + c0);
    }
    s->cross[n] = fresh;
    s->n_obs++;
    return 0;
}

/* The model over the same observations under a changed kernel. It gives
 * the numbers that adding them again one by one would, but goes block by
 * block of candidates, every observation's row within a block before the
 * next block: a block's rows stay in cache, where adding them one by one
 * would stream all of them from memory for each observation. */
static int model_rebuild(bayes_state *s)
{
    size_t n = s->n_obs, P = s->width;
    double *d = array_alloc(n, sizeof *d);
    if (!d) return -1;
    for (s->n_obs = 0; s->n_obs < n; s->n_obs++) {
        const uint16_t *x = s->obs_idx + s->n_obs * P;
        d[s->n_obs] = extend_cholesky(s, x);
        prior_row(s, x, s->cross[s->n_obs]);
    }
    const double *weights = model_weights(s, n);
    float by_row[UPDATE_BLOCK], by_weight[UPDATE_BLOCK];
    for (size_t c0 = 0; c0 < s->n_cand; c0 += UPDATE_BLOCK) {
        size_t len = s->n_cand - c0 < UPDATE_BLOCK ? s->n_cand - c0 : UPDATE_BLOCK;
        for (size_t c = 0; c < len; c++) s->variance[c0 + c] = PRIOR_VARIANCE;
        for (size_t i = 0; i < n; i++) {
            const double *w = i + 1 == n ? weights : NULL;
            combine_rows(s, i, c0, chol_row(s, i), w, by_row, by_weight);
            finish_block(s, i, c0, d[i], by_row, w, by_weight, s->cross[i] + c0);
        }
    }
    free(d);
    return 0;
}

/* Candidate c (configuration x, of the model's width) brought into the
 * model as it stands: its column of L^-1 k(X, candidates), its variance
 * and its mean, as the updates would have made them. O(observations^2). */
static void add_to_model(bayes_state *s, size_t c, const uint16_t *x)
{
    size_t n = s->n_obs;
    double *v = s->scratch ? s->scratch + s->obs_cap : NULL; /* the sorted scratch is free now */
    double variance = PRIOR_VARIANCE, mean = prior_mean(s, c);
    for (size_t i = 0; i < n; i++) {
        const double *li = chol_row(s, i);
        double k = kernel(s, x, s->obs_idx + i * s->width);
        for (size_t j = 0; j < i; j++) k -= li[j] * v[j];
        v[i] = k / li[i];
        s->cross[i][c] = (float)v[i];
        variance -= v[i] * v[i];
        mean += s->weights[i] * v[i];
    }
    s->variance[c] = variance;
    s->mean[c] = mean;
}

/* Where the pool is a sample of the space, the local slots take the
 * untried neighbours of the best so far (its whole Hamming neighbourhood,
 * adjacent moves first, in an order drawn from a generator of their own),
 * so that EI weighs the moves around the best against the rest of the
 * pool. Refilled only when the best changes. Slots left over count as
 * evaluated. */
static int refresh_local(bayes_state *s)
{
    if (s->n_local == 0 || !s->best.have || (s->have_local && s->local_of == s->best.rank))
        return 0;
    rank_list list = {0};
    uint16_t *x = array_alloc(s->width, sizeof *x);
    if (!x || shuffled_neighbours(s->space, s->best.rank, NEIGHBOURHOOD_ADJACENT_FIRST,
                                  &s->local_rng, &list) != 0) {
        free(x);
        rank_list_free(&list);
        return -1;
    }
    size_t slot = s->n_pool, end = s->n_pool + s->n_local;
    for (size_t c = slot; c < end; c++)
        if (slot_live(s, c)) rank_map_remove(&s->cand_map, s->cand_rank[c]);
    for (size_t k = 0; k < list.count && slot < end; k++) {
        uint64_t rank = list.items[k];
        uint32_t elsewhere;
        /* One already a candidate (in the pool, or where the acquisition
         * search put it) is scored there. */
        if (history_lookup(s->history, rank, NULL) ||
            rank_map_get(&s->cand_map, rank, &elsewhere))
            continue;
        space_unrank(s->space, rank, x);
        fill_derived(s, x);
        candidate_keys(s, slot, x);
        s->cand_rank[slot] = rank;
        s->cand_known[slot] = false;
        if (s->cand_prior) s->cand_prior[slot] = prior_score(s, rank);
        add_to_model(s, slot, x);
        if (rank_map_put(&s->cand_map, rank, (uint32_t)slot) != 0) {
            free(x);
            rank_list_free(&list);
            return -1;
        }
        slot++;
    }
    for (; slot < end; slot++) s->cand_known[slot] = true;
    s->local_of = s->best.rank;
    s->have_local = true;
    free(x);
    rank_list_free(&list);
    return 0;
}

static double normal_cdf(double x)
{
    return 0.5 * erfc(-x * 0.7071067811865476);
}

static double expected_improvement(double improvement, double sd)
{
    double z = improvement / sd;
    return improvement * normal_cdf(z) + sd * INV_SQRT_2PI * exp(-0.5 * z * z);
}

/* EI = sd h(improvement / sd) with h(z) = z Φ(z) + φ(z), which increases
 * with z: h at the next point of the table's grid above z bounds it, and
 * closely (the margin covers the rounding of z onto the grid). */
static void ei_table_init(bayes_state *s)
{
    for (size_t k = 0; k < EI_TABLE_SIZE; k++)
        s->ei_table[k] = expected_improvement(EI_TABLE_LOW + (double)k * EI_TABLE_STEP, 1.0);
}

static double ei_bound(const bayes_state *s, double improvement, double sd)
{
    double z = improvement / sd;
    double at = ceil((z - EI_TABLE_LOW) / EI_TABLE_STEP);
    if (at < 0) at = 0; /* h(z) <= h(EI_TABLE_LOW) */
    if (at >= EI_TABLE_SIZE) return improvement + sd; /* h(z) < z + 1 */
    return sd * s->ei_table[(size_t)at] * (1 + 1e-9);
}

static bool candidate_known(bayes_state *s, size_t c)
{
    if (!s->cand_known[c]) s->cand_known[c] = history_lookup(s->history, s->cand_rank[c], NULL);
    return s->cand_known[c];
}

/* The unevaluated candidate of highest expected improvement, among those
 * whose parameter `only_param` has value `only_value` unless only_param is
 * SIZE_MAX; false when every such candidate has been evaluated. */
static bool propose_expected_improvement(bayes_state *s, size_t only_param, size_t only_value,
                                         uint64_t *rank)
{
    double best = s->best_target;
    /* A bound on every candidate's EI from the table; the candidate of the
     * highest bound is scored first, its EI is near the top, and below it
     * nearly every candidate is dismissed without the exp and erfc. */
    size_t chosen = s->n_cand;
    double highest = -INFINITY;
    /* Which keys of only_param's group have only_value: a lookup per
     * candidate instead of a division. */
    const uint32_t *keys = NULL;
    if (only_param != SIZE_MAX) {
        size_t g = s->group_of[only_param], count = space_param(s->space, only_param)->count;
        for (size_t key = 0; key < s->group_keys[g]; key++)
            s->key_matches[key] = key / s->stride[only_param] % count == only_value;
        keys = s->cand_key + g * s->cand_cap;
    }
    for (size_t c = 0; c < s->n_cand; c++) {
        if (candidate_known(s, c) || (keys && !s->key_matches[keys[c]])) {
            s->bound[c] = -INFINITY;
            continue;
        }
        s->sd[c] = sqrt(fmax(s->variance[c], 1e-12));
        s->bound[c] = ei_bound(s, best - s->mean[c], s->sd[c]);
        if (s->bound[c] > highest) {
            highest = s->bound[c];
            chosen = c;
        }
    }
    if (chosen == s->n_cand) return false;
    double top = expected_improvement(best - s->mean[chosen], s->sd[chosen]);
    for (size_t c = 0; c < s->n_cand; c++) {
        if (s->bound[c] < top || c == chosen) continue;
        double ei = expected_improvement(best - s->mean[c], s->sd[c]);
        /* Ties go to the first candidate. */
        if (ei > top || (ei == top && c < chosen)) {
            top = ei;
            chosen = c;
        }
    }
    *rank = s->cand_rank[chosen];
    return true;
}

/* ------------------------------------------------------- proposals */

/* An untried neighbour of the best configuration, adjacent moves first:
 * 1 with *rank set, 0 when there is none, -1 when out of memory. */
static int propose_near_best(bayes_state *s, uint64_t *rank)
{
    if (!s->best.have) return 0;
    if (!s->have_neighbours || s->neighbours_of != s->best.rank) {
        if (shuffled_neighbours(s->space, s->best.rank, NEIGHBOURHOOD_ADJACENT_FIRST, &s->rng,
                                &s->neighbours) != 0)
            return -1;
        s->neighbours_of = s->best.rank;
        s->have_neighbours = true;
        s->next_neighbour = 0;
    }
    /* The history only grows: a neighbour found in it stays skipped. */
    for (; s->next_neighbour < s->neighbours.count; s->next_neighbour++) {
        uint64_t next = s->neighbours.items[s->next_neighbour];
        if (!history_lookup(s->history, next, NULL)) {
            *rank = next;
            return 1;
        }
    }
    return 0;
}

static strategy_answer propose_random(bayes_state *s, uint64_t *rank)
{
    return random_unvisited(s->space, s->history, NULL, &s->rng, rank) ? STRATEGY_PROPOSE
                                                                       : STRATEGY_DONE;
}

/* The value, among those covering BALANCE_SHARE of the candidates or more,
 * whose share of the results falls furthest below its share of the
 * candidates, as a fraction of it (see "Balance" above); false when none
 * falls below. */
static bool under_explored_value(const bayes_state *s, size_t *param, size_t *value)
{
    if (s->n_obs < BALANCE_FROM) return false;
    double lowest = 1.0;
    bool found = false;
    for (size_t k = 0; k < s->n_params; k++) {
        size_t count = space_param(s->space, k)->count;
        if (count < 2) continue;
        for (size_t v = 0; v < count; v++) {
            double share = (double)s->value_candidates[s->value_first[k] + v] / (double)s->n_pool;
            if (share < BALANCE_SHARE) continue;
            size_t results = 0;
            for (size_t i = 0; i < s->n_obs; i++) results += s->obs_idx[i * s->width + k] == v;
            double ratio = (double)results / (double)s->n_obs / share;
            if (ratio < lowest) {
                lowest = ratio;
                *param = k;
                *value = v;
                found = true;
            }
        }
    }
    return found;
}

/* The next of the recordings' fastest configurations not evaluated yet;
 * false when none is left. */
static bool propose_warm(bayes_state *s, uint64_t *rank)
{
    while (s->next_warm < s->n_warm) {
        uint64_t next = s->warm_ranks[s->next_warm++];
        if (!history_lookup(s->history, next, NULL)) {
            *rank = next;
            return true;
        }
    }
    return false;
}

static int acquisition_search(bayes_state *s);

static strategy_answer choose_proposal(bayes_state *s, uint64_t *rank)
{
    if (s->degraded) return propose_random(s, rank);
    /* One observation has no ranks to speak of; the model needs two. */
    if (s->samples_proposed < s->initial_samples || s->n_obs < 2) {
        if (s->samples_proposed < s->initial_samples) s->samples_proposed++;
        if (propose_warm(s, rank)) return STRATEGY_PROPOSE;
        return propose_random(s, rank);
    }
    if (s->hc_share > 0 && pcg32_double(&s->rng) < s->hc_share) {
        int found = propose_near_best(s, rank);
        if (found > 0) return STRATEGY_PROPOSE;
        if (found < 0) {
            s->degraded = true;
            return propose_random(s, rank);
        }
    }
    s->model_proposals++;
    if (s->n_climb > 0 && acquisition_search(s) != 0) {
        s->degraded = true;
        return propose_random(s, rank);
    }
    size_t param, value;
    if (s->balance > 0 && s->model_proposals % s->balance == 0 &&
        under_explored_value(s, &param, &value) &&
        propose_expected_improvement(s, param, value, rank))
        return STRATEGY_PROPOSE;
    if (propose_expected_improvement(s, SIZE_MAX, 0, rank)) return STRATEGY_PROPOSE;
    return propose_random(s, rank);
}

static strategy_answer bayes_ask(void *state, uint64_t *rank)
{
    bayes_state *s = state;
    strategy_answer answer = choose_proposal(s, rank);
    /* Only bayes_upcoming reads these. */
    s->awaiting_tell = answer == STRATEGY_PROPOSE;
    if (s->awaiting_tell) s->pending_rank = *rank;
    return answer;
}

/* ------------------------------------------------------- upcoming */

typedef struct scored_candidate {
    double score;
    size_t c;
} scored_candidate;

/* Whether x ranks before y: higher score, ties to the lower candidate, as
 * propose_expected_improvement breaks them. */
static bool scored_before(scored_candidate x, scored_candidate y)
{
    return x.score > y.score || (x.score == y.score && x.c < y.c);
}

/* Puts x in its place among the `*count` of `top` (at most k, best first),
 * dropping the last when full. */
static void keep_top(scored_candidate *top, size_t *count, size_t k, scored_candidate x)
{
    size_t at = *count;
    while (at > 0 && scored_before(x, top[at - 1])) at--;
    if (at >= k) return;
    size_t moved = (*count < k ? *count : k - 1) - at;
    memmove(top + at + 1, top + at, moved * sizeof *top);
    top[at] = x;
    if (*count < k) (*count)++;
}

static double candidate_sd(const bayes_state *s, size_t c)
{
    return sqrt(fmax(s->variance[c], 1e-12));
}

/* Whether candidate c may be named: not evaluated (the lazily kept
 * cand_known, then the history, which may have grown since the last model
 * proposal) and not in `taken`. */
static bool candidate_open(const bayes_state *s, size_t c, const rank_set *taken)
{
    return !s->cand_known[c] && !history_lookup(s->history, s->cand_rank[c], NULL) &&
           !rank_set_contains(taken, s->cand_rank[c]);
}

/* Whether x would enter a top list of k that holds `count`. */
static bool enters_top(const scored_candidate *top, size_t count, size_t k, scored_candidate x)
{
    return count < k || scored_before(x, top[k - 1]);
}

/* The k candidates of highest expected improvement under the model as it
 * stands, best first, among those not evaluated and not in `taken` (and,
 * unless only_param is SIZE_MAX, with parameter only_param at only_value).
 * As in propose_expected_improvement, the table's bounds (into `bound`,
 * one per candidate) dismiss nearly every candidate without computing its
 * EI: the k highest bounds are scored exactly, and then only candidates
 * whose bound reaches the k-th score. Only candidates that would enter the
 * list are looked up in the history. */
static size_t top_candidates(const bayes_state *s, size_t only_param, size_t only_value,
                             const rank_set *taken, double *bound, scored_candidate *top,
                             size_t k)
{
    double best = s->best_target;
    size_t count = 0;
    for (size_t c = 0; c < s->n_cand; c++) {
        bound[c] = -INFINITY;
        if (s->cand_known[c] ||
            (only_param != SIZE_MAX && candidate_value(s, c, only_param) != only_value))
            continue;
        double b = ei_bound(s, best - s->mean[c], candidate_sd(s, c));
        scored_candidate x = {b, c};
        if (!enters_top(top, count, k, x)) {
            bound[c] = b;
            continue;
        }
        if (!candidate_open(s, c, taken)) continue;
        bound[c] = b;
        keep_top(top, &count, k, x);
    }
    /* The list, scored exactly, and put back in order (insertion sort: it
     * holds a few dozen). */
    for (size_t j = 0; j < count; j++) {
        scored_candidate x = top[j];
        x.score = expected_improvement(best - s->mean[x.c], candidate_sd(s, x.c));
        size_t at = j;
        for (; at > 0 && scored_before(x, top[at - 1]); at--) top[at] = top[at - 1];
        top[at] = x;
    }
    double threshold = count == k ? top[k - 1].score : -INFINITY;
    for (size_t c = 0; c < s->n_cand; c++) {
        if (bound[c] == -INFINITY || bound[c] < threshold) continue;
        bool present = false;
        for (size_t j = 0; j < count && !present; j++) present = top[j].c == c;
        if (present) continue;
        scored_candidate x = {expected_improvement(best - s->mean[c], candidate_sd(s, c)), c};
        if (enters_top(top, count, k, x) && candidate_open(s, c, taken))
            keep_top(top, &count, k, x);
    }
    return count;
}

/* ------------------------------------------------ acquisition search */

/* Where the pool is a sample, the configuration of highest expected
 * improvement is most likely outside it: in a space of 10^5 a sample of
 * 8,192 holds a given configuration one time in twelve, so the optimum's
 * neighbours are often scored while it is not. Before each model proposal
 * a local search on EI, as SMAC does, takes the CLIMB_STARTS candidates of
 * highest EI and the best configuration so far, and from each steps to
 * the neighbour (one parameter changed to any value) of highest EI, while
 * that is higher than where it stands, at most CLIMB_STEPS times.
 * What it steps past becomes a candidate in the slots after the local
 * slots, brought into the model at O(observations^2) and then kept up to
 * date with the others, so that later searches, which mostly pass the
 * same places, find them scored; the proposal is then the candidate of
 * highest EI, as always. At most CLIMB_FRESH configurations new to the
 * candidates per search bound its cost. On the made-up space of 10^5
 * (docs/benchmarks.md; 100 runs of 200 evaluations, 1,024 slots) the
 * settings below found the optimum in 94 % of the runs, as did 8 starts,
 * 8 steps and 32 new configurations at twice the added instructions;
 * climbing from the best alone found it in 79 %. */
#define CLIMB_STARTS 2
#define CLIMB_STEPS 4
#define CLIMB_FRESH 8
/* Configurations add_batch_to_model takes at once: all of a search's. */
#define CLIMB_BATCH CLIMB_FRESH

static double candidate_ei(const bayes_state *s, size_t c)
{
    return expected_improvement(s->best_target - s->mean[c], candidate_sd(s, c));
}

/* As add_to_model, for the m (at most `width`) candidates cs whose rows
 * are in climb_rows, together: the triangular solve runs over the batch
 * in its inner loop, where one candidate at a time is a chain of
 * dependent additions. `width`, a constant where this is inlined, gives
 * that loop a fixed length, which the compiler vectorises. */
static inline void add_batch_width(bayes_state *s, const size_t *cs, size_t m, size_t width)
{
    size_t n = s->n_obs, P = s->width;
    double variance[CLIMB_BATCH], mean[CLIMB_BATCH];
    for (size_t j = 0; j < width; j++) {
        variance[j] = PRIOR_VARIANCE;
        mean[j] = j < m ? prior_mean(s, cs[j]) : 0;
    }
    double *v = s->climb_cross;
    for (size_t i = 0; i < n; i++) {
        const double *li = chol_row(s, i);
        double *vi = v + i * width;
        for (size_t j = 0; j < width; j++)
            vi[j] = j < m ? kernel(s, s->climb_rows + j * P, s->obs_idx + i * P) : 0;
        for (size_t l = 0; l < i; l++) {
            const double a = li[l], *vl = v + l * width;
            for (size_t j = 0; j < width; j++) vi[j] -= a * vl[j];
        }
        const double inverse = 1 / li[i], w = s->weights[i];
        for (size_t j = 0; j < width; j++) {
            vi[j] *= inverse;
            variance[j] -= vi[j] * vi[j];
            mean[j] += w * vi[j];
        }
        for (size_t j = 0; j < m; j++) s->cross[i][cs[j]] = (float)vi[j];
    }
    for (size_t j = 0; j < m; j++) {
        s->variance[cs[j]] = variance[j];
        s->mean[cs[j]] = mean[j];
    }
}

/* The batch at the narrowest width that holds it: a climb's step often
 * brings in a handful of configurations, and a wide batch would pay the
 * whole solve for each column. */
static void add_batch_to_model(bayes_state *s, const size_t *cs, size_t m)
{
    if (m <= 4) add_batch_width(s, cs, m, 4);
    else add_batch_width(s, cs, m, CLIMB_BATCH);
}

/* The next of the acquisition search's slots, round-robin (its oldest
 * configuration given up), as the candidate for `rank`, its row the
 * batch's j-th; add_batch_to_model brings it into the model. */
static size_t climb_slot_take(bayes_state *s, uint64_t rank, size_t j)
{
    size_t c = s->n_pool + s->n_local + s->next_climb;
    s->next_climb = (s->next_climb + 1) % s->n_climb;
    if (slot_live(s, c)) rank_map_remove(&s->cand_map, s->cand_rank[c]);
    uint16_t *x = s->climb_rows + j * s->width;
    space_unrank(s->space, rank, x);
    fill_derived(s, x);
    candidate_keys(s, c, x);
    s->cand_rank[c] = rank;
    s->cand_known[c] = false;
    if (s->cand_prior) s->cand_prior[c] = prior_score(s, rank);
    /* Cannot fail: the map has room for every candidate. */
    rank_map_put(&s->cand_map, rank, (uint32_t)c);
    return c;
}

/* One climb from `at`, whose EI is at_ei (-infinity for a configuration
 * evaluated already: any neighbour is a step up). */
static int climb(bayes_state *s, uint64_t at, double at_ei, size_t *fresh_left)
{
    rank_list *list = &s->climb_list;
    for (size_t step = 0; step < CLIMB_STEPS; step++) {
        if (shuffled_neighbours(s->space, at, NEIGHBOURHOOD_HAMMING, &s->climb_rng, list) != 0)
            return -1;
        /* The neighbours new to the candidates first, in batches. */
        size_t batch[CLIMB_BATCH], m = 0;
        for (size_t k = 0; k < list->count && *fresh_left > 0; k++) {
            uint64_t r = list->items[k];
            uint32_t c;
            if (rank_map_get(&s->cand_map, r, &c) || history_lookup(s->history, r, NULL))
                continue;
            batch[m] = climb_slot_take(s, r, m);
            m++;
            (*fresh_left)--;
            if (m == CLIMB_BATCH) {
                add_batch_to_model(s, batch, m);
                m = 0;
            }
        }
        if (m > 0) add_batch_to_model(s, batch, m);
        uint64_t next = at;
        double next_ei = at_ei;
        for (size_t k = 0; k < list->count; k++) {
            uint64_t r = list->items[k];
            uint32_t c;
            if (!rank_map_get(&s->cand_map, r, &c) || candidate_known(s, c)) continue;
            double ei = candidate_ei(s, c);
            if (ei > next_ei) {
                next = r;
                next_ei = ei;
            }
        }
        if (next == at) break;
        at = next;
        at_ei = next_ei;
    }
    return 0;
}

static int acquisition_search(bayes_state *s)
{
    if (!s->climb_rows &&
        !(s->climb_rows = array_alloc(CLIMB_BATCH, s->width * sizeof *s->climb_rows)))
        return -1;
    if (s->climb_cap < s->n_obs) {
        free(s->climb_cross);
        s->climb_cap = s->obs_cap;
        if (!(s->climb_cross = array_alloc(s->climb_cap, CLIMB_BATCH * sizeof *s->climb_cross)))
            return -1;
    }
    scored_candidate top[CLIMB_STARTS];
    rank_set none = {0};
    size_t n = top_candidates(s, SIZE_MAX, 0, &none, s->bound, top, CLIMB_STARTS);
    uint64_t starts[CLIMB_STARTS];
    double start_ei[CLIMB_STARTS];
    /* The slots the climbs fill may be the starts' own: their ranks, kept. */
    for (size_t k = 0; k < n; k++) {
        starts[k] = s->cand_rank[top[k].c];
        start_ei[k] = top[k].score;
    }
    size_t fresh_left = CLIMB_FRESH;
    if (s->best.have && climb(s, s->best.rank, -INFINITY, &fresh_left) != 0) return -1;
    for (size_t k = 0; k < n; k++)
        if (climb(s, starts[k], start_ei[k], &fresh_left) != 0) return -1;
    return 0;
}

/* What bayes_upcoming builds its forecast from. */
typedef struct forecast {
    const bayes_state *s;
    pcg32 rng;                 /* a copy: the strategy's own is only read */
    rank_set named;            /* the pending proposal and every rank named */
    uint64_t *ranks;
    size_t n, max;
    size_t listed;             /* candidates each list of top candidates holds */
    bool failed;               /* out of memory: what is named so far stands */
    rank_list best_neighbours; /* when the strategy's own list is of another best */
    bool shuffled;
    size_t next_neighbour;
    double *bound;
    scored_candidate *by_ei, *balanced;
    size_t n_by_ei, n_balanced, next_by_ei, next_balanced;
    bool have_by_ei, have_balanced;
    int balance_value_found;   /* under_explored_value's answer: -1 not asked yet */
    size_t balanced_param, balanced_value;
} forecast;

/* Names a rank (once); false when it was named before. */
static bool forecast_name(forecast *f, uint64_t rank)
{
    if (f->n >= f->max) return false;
    int added = rank_set_insert(&f->named, rank);
    if (added < 0) f->failed = true;
    if (added <= 0) return false;
    f->ranks[f->n++] = rank;
    return true;
}

static bool forecast_unvisited(const forecast *f, uint64_t rank)
{
    return !history_lookup(f->s->history, rank, NULL) && !rank_set_contains(&f->named, rank);
}

/* The next untried neighbour of the best so far, in the order
 * propose_near_best tries them; false when none is left. */
static bool forecast_near_best(forecast *f, uint64_t *rank)
{
    const bayes_state *s = f->s;
    if (!s->best.have) return false;
    const rank_list *list = &s->neighbours;
    if (!s->have_neighbours || s->neighbours_of != s->best.rank) {
        if (!f->shuffled) {
            if (shuffled_neighbours(s->space, s->best.rank, NEIGHBOURHOOD_ADJACENT_FIRST, &f->rng,
                                    &f->best_neighbours) != 0) {
                f->failed = true;
                return false;
            }
            f->shuffled = true;
            f->next_neighbour = 0;
        }
        list = &f->best_neighbours;
    } else if (f->next_neighbour < s->next_neighbour) {
        f->next_neighbour = s->next_neighbour;
    }
    for (; f->next_neighbour < list->count; f->next_neighbour++)
        if (forecast_unvisited(f, list->items[f->next_neighbour])) {
            *rank = list->items[f->next_neighbour++];
            return true;
        }
    return false;
}

/* The first untried neighbour of the pending proposal, were it the new
 * best: the list the next near-best step would shuffle, from a copy of
 * the generator as it will be then. */
static bool forecast_near_pending(forecast *f, uint64_t *rank)
{
    const bayes_state *s = f->s;
    if (!s->awaiting_tell || (s->best.have && s->best.rank == s->pending_rank)) return false;
    pcg32 rng = f->rng;
    rank_list list = {0};
    bool found = false;
    if (shuffled_neighbours(s->space, s->pending_rank, NEIGHBOURHOOD_ADJACENT_FIRST, &rng, &list) !=
        0)
        f->failed = true;
    for (size_t k = 0; !found && k < list.count; k++)
        if (forecast_unvisited(f, list.items[k])) {
            *rank = list.items[k];
            found = true;
        }
    rank_list_free(&list);
    return found;
}

/* The next of the model's top candidates (restricted to a value for a
 * balance step) not named yet; false when none is left. */
static bool forecast_model(forecast *f, bool balance, uint64_t *rank)
{
    const bayes_state *s = f->s;
    if (s->n_obs == 0) return false; /* no posterior yet */
    if (!f->bound) {
        f->bound = array_alloc(s->n_cand, sizeof *f->bound);
        f->by_ei = array_alloc(f->listed, sizeof *f->by_ei);
        f->balanced = array_alloc(f->listed, sizeof *f->balanced);
        if (!f->bound || !f->by_ei || !f->balanced) {
            f->failed = true;
            return false;
        }
    }
    scored_candidate *list = f->by_ei;
    size_t *count = &f->n_by_ei, *next = &f->next_by_ei;
    if (balance) {
        if (!f->have_balanced) {
            f->n_balanced = top_candidates(s, f->balanced_param, f->balanced_value, &f->named,
                                           f->bound, f->balanced, f->listed);
            f->have_balanced = true;
        }
        list = f->balanced;
        count = &f->n_balanced;
        next = &f->next_balanced;
    } else if (!f->have_by_ei) {
        f->n_by_ei = top_candidates(s, SIZE_MAX, 0, &f->named, f->bound, f->by_ei, f->listed);
        f->have_by_ei = true;
    }
    while (*next < *count) {
        uint64_t r = s->cand_rank[list[(*next)++].c];
        if (!rank_set_contains(&f->named, r)) {
            *rank = r;
            return true;
        }
    }
    return false;
}

/* What bayes will probably propose next, each step forecast as bayes_ask
 * would take it, from copies of its generator:
 *  - while sampling (and out of memory), random configurations, exactly;
 *  - then, step by step, a draw decides between a neighbour of the best and
 *    the model, as it will in bayes_ask. For the first step the draw is
 *    exact, and for a neighbour step both the next neighbour of the best so
 *    far and the first of the pending proposal's (were it the new best) are
 *    named, so the next proposal is named whatever the pending result.
 *    Later draws assume the steps between took no draws of their own.
 *  - A model step names the next of the candidates of highest expected
 *    improvement under the model as it stands, which the results to come
 *    will shift: they are what bayes would propose if nothing changed.
 * It scores candidates as a proposal does, a fraction of a step's cost
 * (no model update), and changes nothing of the state. */
static size_t bayes_upcoming(void *state, uint64_t *ranks, size_t max)
{
    const bayes_state *s = state;
    /* Twice as many top candidates as ranks asked for: neighbour steps may
     * name some of them, and a list that ran out would read as no
     * candidate left. */
    forecast f = {.s = s, .rng = s->rng, .ranks = ranks, .max = max,
                  .listed = max < SIZE_MAX / 2 ? 2 * max : max, .balance_value_found = -1};
    if (s->awaiting_tell && rank_set_insert(&f.named, s->pending_rank) < 0) return 0;
    size_t samples = s->samples_proposed;
    size_t observations = s->n_obs + (s->awaiting_tell && s->n_obs < s->max_points);
    size_t model_proposals = s->model_proposals;
    bool first_step = true;
    size_t warm = s->next_warm;
    while (f.n < max && !f.failed) {
        uint64_t rank;
        if (s->degraded || samples < s->initial_samples || observations < 2) {
            if (samples < s->initial_samples) samples++;
            bool named = false;
            while (!s->degraded && !named && warm < s->n_warm)
                if (forecast_unvisited(&f, s->warm_ranks[warm++]))
                    named = forecast_name(&f, s->warm_ranks[warm - 1]);
            if (named) {
                observations++;
                continue;
            }
            if (!random_unvisited(s->space, s->history, &f.named, &f.rng, &rank)) break;
            forecast_name(&f, rank);
            observations++;
            continue;
        }
        size_t before = f.n;
        bool near = s->hc_share > 0 && pcg32_double(&f.rng) < s->hc_share;
        if (near) {
            uint64_t pending_next = 0;
            bool if_pending_best = first_step && forecast_near_pending(&f, &pending_next);
            bool near_best = forecast_near_best(&f, &rank);
            if (near_best) forecast_name(&f, rank);
            if (if_pending_best) forecast_name(&f, pending_next);
            near = near_best;
        }
        first_step = false;
        if (!near) {
            model_proposals++;
            bool balance = s->balance > 0 && model_proposals % s->balance == 0;
            /* The model is as it stands for every step: one answer serves all. */
            if (balance && f.balance_value_found < 0)
                f.balance_value_found =
                    under_explored_value(s, &f.balanced_param, &f.balanced_value);
            balance = balance && f.balance_value_found;
            if ((balance && forecast_model(&f, true, &rank)) || forecast_model(&f, false, &rank))
                forecast_name(&f, rank);
            else if (random_unvisited(s->space, s->history, &f.named, &f.rng, &rank))
                forecast_name(&f, rank);
        }
        if (f.n == before) break;
    }
    rank_set_free(&f.named);
    rank_list_free(&f.best_neighbours);
    free(f.bound);
    free(f.by_ei);
    free(f.balanced);
    return f.n;
}

/* ------------------------------------------------------ relevances */

/* a · b over n, in four independent sums: a single running sum waits on
 * each addition, and the fits' factorisations are mostly these. */
static double dot(const double *a, const double *b, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < n; k++) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

/* What a relevance fit works on. The kernel between two observations is
 * the same combination of the columns' similarities as kernel()'s; while
 * one column's relevance is tried, the other columns' sums and product
 * over every pair are held, so that a trial costs a lookup per pair before
 * its factorisation. Pairs are packed lower triangles, row i at i(i+1)/2. */
typedef struct relevance_fit {
    size_t n, pairs;
    uint16_t *distance;                 /* n_active × pairs: value-index distances */
    double *rest_sum, *rest_sum_sq, *rest_product; /* pairs: over the other columns */
    double *matrix;                     /* pairs: the kernel under trial */
    double *factor;                     /* n × n, scratch */
    double *y, *solved, *sorted;        /* n each */
} relevance_fit;

static void relevance_fit_free(relevance_fit *f)
{
    free(f->distance);
    free(f->rest_sum);
    free(f->matrix);
    free(f->factor);
    free(f->y);
}

static int relevance_fit_init(bayes_state *s, relevance_fit *f)
{
    size_t n = s->n_obs, P = s->width;
    *f = (relevance_fit){.n = n, .pairs = n * (n + 1) / 2};
    f->distance = array_alloc(f->pairs, s->n_active * sizeof *f->distance);
    f->rest_sum = array_alloc(f->pairs, 3 * sizeof *f->rest_sum);
    f->matrix = array_alloc(f->pairs, sizeof *f->matrix);
    f->factor = array_alloc(n * n, sizeof *f->factor);
    f->y = array_alloc(n, 3 * sizeof *f->y);
    if (!f->distance || !f->rest_sum || !f->matrix || !f->factor || !f->y) {
        relevance_fit_free(f);
        return -1;
    }
    f->rest_sum_sq = f->rest_sum + f->pairs;
    f->rest_product = f->rest_sum_sq + f->pairs;
    f->solved = f->y + n;
    f->sorted = f->solved + n;
    model_targets(s, n, f->y, f->sorted);
    for (size_t j = 0; j < s->n_active; j++) {
        size_t k = s->active[j];
        uint16_t *distance = f->distance + j * f->pairs;
        for (size_t i = 0, at = 0; i < n; i++) {
            const uint16_t *a = s->obs_idx + i * P;
            for (size_t l = 0; l <= i; l++, at++) {
                uint16_t b = s->obs_idx[l * P + k];
                distance[at] = (uint16_t)(a[k] > b ? a[k] - b : b - a[k]);
            }
        }
    }
    return 0;
}

/* Holds every column's similarity but column j's. */
static void relevance_fit_hold(const bayes_state *s, relevance_fit *f, size_t j)
{
    for (size_t at = 0; at < f->pairs; at++) {
        f->rest_sum[at] = 0;
        f->rest_sum_sq[at] = 0;
        f->rest_product[at] = 1;
    }
    for (size_t k = 0; k < s->n_active; k++) {
        if (k == j) continue;
        const uint16_t *distance = f->distance + k * f->pairs;
        const double *similarity = s->similarity + k * s->widest;
        for (size_t at = 0; at < f->pairs; at++) {
            double v = similarity[distance[at]];
            f->rest_sum[at] += v;
            f->rest_sum_sq[at] += v * v;
            f->rest_product[at] *= v;
        }
    }
}

/* The log marginal likelihood of the normal-scored times with column j at
 * its current relevance and the others as held, less its constant:
 * -y^T K^-1 y / 2 - log det L. */
static double relevance_fit_likelihood(const bayes_state *s, relevance_fit *f, size_t j)
{
    size_t n = f->n, p = s->n_active;
    const uint16_t *distance = f->distance + j * f->pairs;
    const double *similarity = s->similarity + j * s->widest;
    for (size_t at = 0; at < f->pairs; at++) {
        double v = similarity[distance[at]];
        f->matrix[at] = kernel_combine(p, f->rest_sum[at] + v, f->rest_sum_sq[at] + v * v,
                                       f->rest_product[at] * v);
    }
    double *factor = f->factor;
    for (size_t i = 0; i < n; i++) {
        double *li = factor + i * n;
        const double *ki = f->matrix + i * (i + 1) / 2;
        for (size_t l = 0; l <= i; l++) {
            const double *ll = factor + l * n;
            double v = ki[l] - dot(li, ll, l);
            if (l < i) {
                li[l] = v / ll[l];
            } else {
                v += s->noise;
                li[i] = v > 1e-10 ? sqrt(v) : 1e-5; /* as extend_cholesky */
            }
        }
    }
    double log_likelihood = 0;
    for (size_t i = 0; i < n; i++) {
        const double *li = factor + i * n;
        f->solved[i] = (f->y[i] - dot(li, f->solved, i)) / li[i];
        log_likelihood -= 0.5 * f->solved[i] * f->solved[i] + log(li[i]);
    }
    return log_likelihood;
}

/* The relevances tried for each column, 1 being the kernel as configured. */
static const double relevance_grid[] = {0.1, 0.3, 0.6, 1.0};

/* One sweep of coordinate ascent over the columns' relevances, each chosen
 * from the grid by marginal likelihood with the others held; then, if any
 * changed, the model is rebuilt under the new kernel. */
static int fit_relevances(bayes_state *s)
{
    if (s->n_active == 0) return 0;
    relevance_fit f;
    if (relevance_fit_init(s, &f) != 0) return -1;
    double best = 0;
    bool changed = false;
    for (size_t j = 0; j < s->n_active; j++) {
        relevance_fit_hold(s, &f, j);
        if (j == 0) best = relevance_fit_likelihood(s, &f, j);
        double held = s->relevance[j], chosen = held;
        for (size_t g = 0; g < sizeof relevance_grid / sizeof *relevance_grid; g++) {
            if (relevance_grid[g] == held) continue;
            set_relevance(s, j, relevance_grid[g]);
            double likelihood = relevance_fit_likelihood(s, &f, j);
            if (likelihood > best + 1e-9) {
                best = likelihood;
                chosen = relevance_grid[g];
            }
        }
        set_relevance(s, j, chosen);
        changed |= chosen != held;
    }
    relevance_fit_free(&f);
    return changed ? model_rebuild(s) : 0;
}

/* Every result counts as evidence, whoever proposed it. */
static void bayes_tell(void *state, uint64_t rank, double objective)
{
    bayes_state *s = state;
    s->awaiting_tell = false;
    objective = objective_or_failure(objective);
    best_result_note(&s->best, rank, objective);
    if (!s->degraded && model_add(s, rank, objective) != 0) s->degraded = true;
    /* Relevances are refitted as the results double: often enough to
     * follow what the results say, rarely enough that the rebuilds, each
     * O(observations^2 × candidates), cost about as much as the updates. */
    if (!s->degraded && s->fit_relevance && s->n_obs >= s->next_fit) {
        s->next_fit *= 2;
        if (fit_relevances(s) != 0) s->degraded = true;
    }
    if (!s->degraded && refresh_local(s) != 0) s->degraded = true;
}

static void bayes_destroy(void *state)
{
    bayes_state *s = state;
    if (!s) return;
    free(s->active);
    for (size_t f = 0; f < s->n_derived; f++) free(s->derived_flag[f]);
    free(s->derived_flag);
    free(s->derived_param);
    free(s->similarity);
    free(s->base);
    free(s->relevance);
    free(s->obs_rank);
    free(s->cand_key);
    free(s->value_first);
    free(s->value_candidates);
    free(s->row);
    free(s->group_of);
    free(s->stride);
    free(s->group_keys);
    free(s->group_table);
    free(s->table_sum);
    free(s->key_matches);
    free(s->cand_rank);
    free(s->cand_known);
    free(s->variance);
    free(s->mean);
    free(s->sd);
    free(s->bound);
    free(s->cand_prior);
    free(s->obs_prior);
    free(s->warm_ranks);
    for (size_t i = 0; i < s->n_obs; i++) free(s->cross[i]);
    free(s->cross);
    free(s->obs_idx);
    free(s->objective);
    free(s->chol);
    free(s->scratch);
    rank_list_free(&s->neighbours);
    rank_list_free(&s->climb_list);
    rank_map_free(&s->cand_map);
    free(s->climb_rows);
    free(s->climb_cross);
    free(s);
}

/* The warm start's `count` fastest configurations, fastest first (ties
 * to the lower rank). */
static int warm_start_init(bayes_state *s, size_t count)
{
    const strategy_prior *p = s->prior;
    if (count > p->count) count = p->count;
    s->warm_ranks = array_alloc(count, sizeof *s->warm_ranks);
    size_t *top = array_alloc(count, sizeof *top);
    if (!s->warm_ranks || !top) {
        free(top);
        return -1;
    }
    size_t n = 0;
    for (size_t k = 0; k < p->count; k++) {
        size_t at = n;
        while (at > 0 && p->position[k] < p->position[top[at - 1]]) at--;
        if (at >= count) continue;
        if (n < count) n++;
        memmove(top + at + 1, top + at, (n - 1 - at) * sizeof *top);
        top[at] = k;
    }
    for (size_t k = 0; k < n; k++) s->warm_ranks[k] = p->ranks[top[k]];
    s->n_warm = n;
    free(top);
    return 0;
}

static int check_options(const strategy_options *options, skytune_error *err)
{
    double hc_share = strategy_option_double(options, "hc_share");
    double adjacent = strategy_option_double(options, "adjacent");
    double decay = strategy_option_double(options, "decay");
    double noise = strategy_option_double(options, "noise");
    if (strategy_option_int(options, "initial_samples") < 0)
        return err_set(err, "option initial_samples must be 0 or more");
    if (!(hc_share >= 0 && hc_share <= 1)) return err_set(err, "option hc_share must be in 0..1");
    if (!(adjacent >= 0 && adjacent <= 1)) return err_set(err, "option adjacent must be in 0..1");
    if (!(decay >= 0 && decay <= 1)) return err_set(err, "option decay must be in 0..1");
    if (!(noise > 0 && isfinite(noise)))
        return err_set(err, "option noise must be above 0 (and finite)");
    if (strategy_option_int(options, "balance") < 0)
        return err_set(err, "option balance must be 0 or more");
    if (strategy_option_int(options, "candidates") < 0)
        return err_set(err, "option candidates must be 0 (automatic) or more");
    double prior_weight = strategy_option_double(options, "prior_weight");
    if (!(prior_weight >= 0 && prior_weight <= 1))
        return err_set(err, "option prior_weight must be in 0..1");
    if (strategy_option_int(options, "warm_samples") < 0)
        return err_set(err, "option warm_samples must be 0 or more");
    if (strategy_option_int(options, "max_points") < 2)
        return err_set(err, "option max_points must be 2 or more");
    for (const char *const *name = (const char *const[]){"relevance", "pow2", NULL}; *name; name++) {
        int64_t v = strategy_option_int(options, *name);
        if (v != 0 && v != 1) return err_set(err, "option %s must be 0 or 1", *name);
    }
    return 0;
}

static int bayes_create(const strategy_setup *setup, const strategy_options *options,
                        void **state, skytune_error *err)
{
    if (check_options(options, err) != 0) return -1;
    bayes_state *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->space = setup->space;
    s->history = setup->history;
    s->n_params = space_param_count(setup->space);
    s->initial_samples = (size_t)strategy_option_int(options, "initial_samples");
    s->hc_share = strategy_option_double(options, "hc_share");
    s->balance = (size_t)strategy_option_int(options, "balance");
    s->noise = strategy_option_double(options, "noise");
    s->fit_relevance = strategy_option_int(options, "relevance") != 0;
    s->next_fit = FIRST_RELEVANCE_FIT;
    s->max_points = (size_t)strategy_option_int(options, "max_points");
    pcg32_seed(&s->rng, setup->seed, 0x6261796573ULL /* "bayes" */);
    pcg32_seed(&s->local_rng, setup->seed, 0x6c6f63616cULL /* "local" */);
    pcg32_seed(&s->climb_rng, setup->seed, 0x636c696d62ULL /* "climb" */);
    ei_table_init(s);
    s->prior = setup->prior;
    s->prior_weight = strategy_option_double(options, "prior_weight");
    if (s->prior && warm_start_init(s, (size_t)strategy_option_int(options, "warm_samples")) != 0)
        s->degraded = true;

    size_t candidates = (size_t)strategy_option_int(options, "candidates");
    if (kernel_init(s, strategy_option_double(options, "adjacent"),
                    strategy_option_double(options, "decay"),
                    strategy_option_int(options, "pow2") != 0) != 0 ||
        candidates_init(s, candidates) != 0 || count_candidate_values(s) != 0)
        s->degraded = true;
    /* A resumed campaign's results are evidence, and count as samples. */
    size_t known = history_count(setup->history);
    for (size_t k = 0; k < known; k++)
        bayes_tell(s, history_rank_at(setup->history, k), history_objective_at(setup->history, k));
    s->samples_proposed = known < s->initial_samples ? known : s->initial_samples;
    *state = s;
    return 0;
}

const strategy_ops strategy_bayes = {
    .name = "bayes",
    .summary = "Bayesian optimisation: a Gaussian process over the parameter values, expected "
               "improvement, and steps around the best",
    .options = bayes_options,
    .reads_prior = true,
    .create = bayes_create,
    .ask = bayes_ask,
    .tell = bayes_tell,
    .destroy = bayes_destroy,
    .upcoming = bayes_upcoming,
};
