/* The search space: parameters split into groups that constraints link,
 * each group's valid tuples enumerated once by a pruning depth-first search,
 * and the space as the product of the groups. See space.h. */
#include "space.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "canonical.h"
#include "expr.h"
#include "nearest.h"
#include "quote.h"
#include "value.h"

/* A group whose valid tuples would pass either limit is refused rather than
 * left to exhaust memory: no tuning campaign measures that many
 * configurations, and the user can cut the space with constraints or --only. */
#define SPACE_MAX_GROUP_TUPLES ((size_t)50000000)
#define SPACE_MAX_GROUP_BYTES ((size_t)512 << 20)

/* Scratch arrays up to this many elements live on the stack, so that the
 * per-configuration queries (validity, rank, neighbours) do not allocate for
 * spaces of ordinary size. */
#define SPACE_STACK_ITEMS 64

/* Marks a parameter not yet given while parsing a configuration; never a
 * valid index because value lists hold at most PARAM_MAX_VALUES (65535). */
#define SPACE_UNSET_INDEX UINT16_MAX

typedef struct space_constraint {
    expr *expression;
    size_t *params;          /* parameter indices the expression reads, ascending */
    size_t n_params;
} space_constraint;

typedef struct space_group {
    size_t *params;          /* parameter indices, ascending (declaration order) */
    size_t n_params;
    size_t *constraints;     /* indices into space.constraints */
    size_t n_constraints;
    bool has_callback;       /* the C callback is checked at this group's leaves */
    /* Every combination of the group's values is valid: a tuple's position is
     * the mixed-radix number of its indices and no tuples are stored. */
    bool dense;
    uint64_t n_tuples;
    uint16_t *tuples;        /* n_tuples rows of n_params indices, lexicographic */
    uint64_t weight;         /* rank distance between consecutive tuples */
} space_group;

struct space {
    param_def *params;
    size_t n_params;
    char **constant_names;
    skytune_value *constant_values;
    size_t n_constants;
    space_constraint *constraints;
    size_t n_constraints;
    space_callback_fn callback;
    void *callback_ctx;
    /* Constraints from this index on were added by space_narrow (a
     * --restrict), the ones before are the definition's own. */
    size_t first_added;
    /* The first constraint that names no parameter and does not hold;
     * SIZE_MAX when none. */
    size_t failed_constant;

    /* Every constraint that names no parameter (and a callback when there
     * are no parameters) holds. When false the space is empty. */
    bool constants_hold;
    /* Defined but not enumerated (space_define): only its parameters and
     * constraints can be asked for. */
    bool definition;

    /* Slot k < n_params is parameter k; slot n_params + j is constant j. */
    size_t n_slots;
    expr_value *slot_template;   /* constants filled, parameters zero */
    expr_value **param_operands; /* per parameter, per value: the value as an operand */

    size_t *group_of;            /* per parameter: its group */
    size_t *column_of;           /* per parameter: its position within its group */
    space_group *groups;
    size_t n_groups;

    uint64_t count;
    uint64_t cartesian;

    /* Why the rest of the Cartesian product is not in the space: per
     * constraint, and for the C callback, the combinations it ruled out
     * first (see space_rejections). Filled while enumerating. */
    double *rejected;            /* n_constraints entries */
    double rejected_by_callback; /* the callback's rejections with no reason of their own */
    size_t n_reasons;            /* the callback's reasons, in the order first given */
    const char *reason[SPACE_MAX_REASONS];
    double rejected_for[SPACE_MAX_REASONS];
    space_rejection *rejections; /* the buckets above that ruled out any, most first */
    size_t n_rejections;
};

/* ------------------------------------------------------------ helpers */

/* Names a --restrict expression may use: the parameters and constants of
 * the space being narrowed. */
typedef struct narrow_resolver {
    const param_def *params;
    size_t n_params;
    const space *base;
} narrow_resolver;

static int narrow_resolve(void *ctx, const char *name, size_t len)
{
    const narrow_resolver *r = ctx;
    for (size_t k = 0; k < r->n_params; k++)
        if (strlen(r->params[k].name) == len && strncmp(r->params[k].name, name, len) == 0)
            return (int)k;
    for (size_t k = 0; k < r->base->n_constants; k++)
        if (strlen(r->base->constant_names[k]) == len &&
            strncmp(r->base->constant_names[k], name, len) == 0)
            return (int)(r->n_params + k);
    return -1;
}

static uint64_t saturating_mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static char *duplicate_string(const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy) memcpy(copy, text, len + 1);
    return copy;
}

static int resolve_name(void *ctx, const char *name, size_t len)
{
    const space *s = ctx;
    for (size_t k = 0; k < s->n_params; k++)
        if (strncmp(s->params[k].name, name, len) == 0 && s->params[k].name[len] == '\0')
            return (int)k;
    for (size_t k = 0; k < s->n_constants; k++)
        if (strncmp(s->constant_names[k], name, len) == 0 && s->constant_names[k][len] == '\0')
            return (int)(s->n_params + k);
    return -1;
}

static size_t find_root(size_t *parent, size_t k)
{
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

static void join(size_t *parent, size_t a, size_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    /* The smaller index becomes the root, so a group's root is its first
     * declared parameter. */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Comma-separated parameter names of a group, for messages. */
static void describe_group(const space *s, const space_group *g, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < g->n_params && used + 1 < len; j++) {
        int n = snprintf(buf + used, len - used, "%s%s", j ? ", " : "",
                         s->params[g->params[j]].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

/* ------------------------------------------------- group enumeration */

/* The order in which the depth-first search binds a group's parameters.
 * Greedy: next bind the parameter that completes the most constraints (so
 * they prune as high in the tree as possible); among equals, the one in the
 * most still-open constraints; then the one with fewer values (a narrow top
 * of the tree); then declaration order. `order` receives columns (positions
 * within the group). */
static int choose_order(const space *s, const space_group *g, size_t *order, skytune_error *err)
{
    size_t w = g->n_params;
    bool *bound = calloc(w, sizeof *bound);
    size_t *open_params = calloc(g->n_constraints ? g->n_constraints : 1, sizeof *open_params);
    if (!bound || !open_params) {
        free(bound);
        free(open_params);
        return err_set(err, "search space: out of memory");
    }
    for (size_t c = 0; c < g->n_constraints; c++)
        open_params[c] = s->constraints[g->constraints[c]].n_params;
    for (size_t depth = 0; depth < w; depth++) {
        size_t best = w, best_completes = 0, best_touches = 0, best_values = 0;
        for (size_t col = 0; col < w; col++) {
            if (bound[col]) continue;
            size_t param = g->params[col];
            size_t completes = 0, touches = 0;
            for (size_t c = 0; c < g->n_constraints; c++) {
                const space_constraint *con = &s->constraints[g->constraints[c]];
                for (size_t j = 0; j < con->n_params; j++) {
                    if (con->params[j] != param) continue;
                    if (open_params[c] == 1)
                        completes++;
                    else
                        touches++;
                }
            }
            size_t values = s->params[param].count;
            bool better = best == w || completes > best_completes ||
                          (completes == best_completes &&
                           (touches > best_touches ||
                            (touches == best_touches && values < best_values)));
            if (better) {
                best = col;
                best_completes = completes;
                best_touches = touches;
                best_values = values;
            }
        }
        bound[best] = true;
        order[depth] = best;
        size_t param = g->params[best];
        for (size_t c = 0; c < g->n_constraints; c++) {
            const space_constraint *con = &s->constraints[g->constraints[c]];
            for (size_t j = 0; j < con->n_params; j++)
                if (con->params[j] == param) open_params[c]--;
        }
    }
    free(bound);
    free(open_params);
    return 0;
}

/* Stable LSD radix sort of the rows by their columns, last column first, so
 * the result is lexicographic in declaration order whatever order the search
 * produced them in. */
static int sort_tuples(const space *s, space_group *g, skytune_error *err)
{
    size_t n = (size_t)g->n_tuples, w = g->n_params;
    if (n < 2) return 0;
    size_t max_values = 0;
    for (size_t j = 0; j < w; j++)
        if (s->params[g->params[j]].count > max_values) max_values = s->params[g->params[j]].count;
    uint32_t *perm = malloc(n * sizeof *perm);
    uint32_t *next = malloc(n * sizeof *next);
    size_t *start = malloc((max_values + 1) * sizeof *start);
    uint16_t *sorted = malloc(n * w * sizeof *sorted);
    if (!perm || !next || !start || !sorted) {
        free(perm);
        free(next);
        free(start);
        free(sorted);
        return err_set(err, "search space: out of memory while sorting %zu valid combinations", n);
    }
    for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    for (size_t col = w; col-- > 0;) {
        size_t values = s->params[g->params[col]].count;
        memset(start, 0, (values + 1) * sizeof *start);
        for (size_t i = 0; i < n; i++) start[g->tuples[(size_t)perm[i] * w + col] + 1]++;
        for (size_t v = 0; v < values; v++) start[v + 1] += start[v];
        for (size_t i = 0; i < n; i++) next[start[g->tuples[(size_t)perm[i] * w + col]]++] = perm[i];
        uint32_t *t = perm;
        perm = next;
        next = t;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(sorted + i * w, g->tuples + (size_t)perm[i] * w, w * sizeof *sorted);
    free(g->tuples);
    g->tuples = sorted;
    free(perm);
    free(next);
    free(start);
    return 0;
}

/* Scratch for one group's search, allocated once per group. */
typedef struct search_state {
    size_t *order;            /* depth -> column */
    size_t *fire_start;       /* depth -> first entry in fire (w + 1 entries) */
    const expr **fire;        /* constraints checked at each depth */
    size_t *fire_constraint;  /* their indices into space.constraints, for messages */
    uint16_t *current;        /* depth -> value index */
    uint64_t *visits;         /* depth -> combinations checked there, for messages */
    /* depth -> combinations of the whole space a rejection there rules out:
     * the group's values below that depth, times what the other groups
     * contribute (space_rejections). */
    double *ruled_out;
} search_state;

static void search_state_free(search_state *st)
{
    free(st->order);
    free(st->fire_start);
    free(st->fire);
    free(st->fire_constraint);
    free(st->current);
    free(st->visits);
    free(st->ruled_out);
}

/* The work of one space_build: counted over every group, checked against
 * the limit at every combination, reported every SPACE_PROGRESS_INTERVAL. */
typedef struct build_watch {
    const space_control *control;   /* may be NULL */
    uint64_t limit;
    uint64_t checked;
    uint64_t next_stop;             /* checked value of the next report or the limit */
    size_t group, n_groups;
} build_watch;

static void watch_init(build_watch *w, const space_control *control, size_t n_groups)
{
    memset(w, 0, sizeof *w);
    w->control = control;
    w->limit = control && control->work_limit ? control->work_limit : SPACE_DEFAULT_WORK_LIMIT;
    w->n_groups = n_groups;
    w->next_stop = SPACE_PROGRESS_INTERVAL < w->limit ? SPACE_PROGRESS_INTERVAL : w->limit;
}

/* Share of the group's Cartesian product that lies before the search's
 * position (depth by depth, the values already done at that depth). */
static double search_fraction(const space *s, const space_group *g, const search_state *st,
                              size_t depth)
{
    double fraction = 0.0, scale = 1.0;
    for (size_t d = 0; d <= depth; d++) {
        scale /= (double)s->params[g->params[st->order[d]]].count;
        fraction += (double)st->current[d] * scale;
    }
    return fraction;
}

/* The constraint that prunes too little: the search spends most of its
 * checks at one depth, and the constraint checked there that names the most
 * parameters is the one that could not be checked earlier. Writes what to
 * say about it. */
static void describe_weak_constraint(const space *s, const space_group *g, const search_state *st,
                                     char *buf, size_t len)
{
    size_t w = g->n_params, heavy = 0;
    for (size_t d = 1; d < w; d++)
        if (st->visits[d] > st->visits[heavy]) heavy = d;
    double combinations = 1.0;
    for (size_t d = 0; d <= heavy; d++) combinations *= (double)s->params[g->params[st->order[d]]].count;
    size_t weakest = SIZE_MAX;
    for (size_t f = st->fire_start[heavy]; f < st->fire_start[heavy + 1]; f++) {
        size_t c = st->fire_constraint[f];
        if (weakest == SIZE_MAX || s->constraints[c].n_params > s->constraints[weakest].n_params)
            weakest = c;
    }
    if (weakest == SIZE_MAX) {
        snprintf(buf, len, "the C constraint is checked only with all %zu parameters bound, among "
                 "%.3g combinations of them", w, combinations);
        return;
    }
    snprintf(buf, len, "constraint %zu ('%.300s') names %zu parameters and can be checked only "
             "once they are bound, among %.3g combinations of the parameters bound by then",
             weakest + 1, expr_text(s->constraints[weakest].expression),
             s->constraints[weakest].n_params, combinations);
}

/* Called when the count of checked combinations reaches next_stop: refuse
 * past the limit, else report and ask whether to go on. */
static int watch_stop(const space *s, const space_group *g, const search_state *st, size_t depth,
                      size_t valid, build_watch *w, skytune_error *err)
{
    if (w->checked > w->limit) {
        char names[512], weak[600];
        describe_group(s, g, names, sizeof names);
        describe_weak_constraint(s, g, st, weak, sizeof weak);
        return err_set(err, "search space: more than %llu combinations checked (the work limit) "
                       "while enumerating the tuning parameters %s: %s, so it prunes too "
                       "little. Narrow its parameters (--only NAME=V1,V2, or --restrict on "
                       "fewer of them), split it into constraints on fewer parameters, or raise "
                       "the limit (--space-work-limit)",
                       (unsigned long long)w->limit, names, weak);
    }
    uint64_t report = w->checked - w->checked % SPACE_PROGRESS_INTERVAL + SPACE_PROGRESS_INTERVAL;
    w->next_stop = w->limit == UINT64_MAX || report <= w->limit ? report : w->limit + 1;
    if (!w->control || !w->control->on_progress) return 0;
    space_progress p = {
        .checked = w->checked,
        .work_limit = w->limit,
        .valid = valid,
        .group = w->group,
        .n_groups = w->n_groups,
        .fraction = search_fraction(s, g, st, depth),
    };
    if (w->control->on_progress(w->control->ctx, &p) == 0) return 0;
    return err_set(err, "search space: stopped after %llu combinations checked",
                   (unsigned long long)w->checked);
}

/* The callback's rejection of `combinations` for a reason (NULL: none),
 * into that reason's bucket. */
static void count_callback_rejection(space *s, const char *why, double combinations)
{
    if (why) {
        for (size_t k = 0; k < s->n_reasons; k++)
            if (s->reason[k] == why || strcmp(s->reason[k], why) == 0) {
                s->rejected_for[k] += combinations;
                return;
            }
        if (s->n_reasons < SPACE_MAX_REASONS) {
            s->reason[s->n_reasons] = why;
            s->rejected_for[s->n_reasons++] = combinations;
            return;
        }
    }
    s->rejected_by_callback += combinations;
}

/* Each constraint of the group fires at the depth where the last of its
 * parameters is bound: st->fire_start and st->fire, given st->order. */
static int schedule_constraints(const space *s, const space_group *g, search_state *st,
                                skytune_error *err)
{
    size_t w = g->n_params;
    size_t n_fire = g->n_constraints ? g->n_constraints : 1;
    size_t depth_of_column[SPACE_STACK_ITEMS];
    size_t *depth_of = w <= SPACE_STACK_ITEMS ? depth_of_column : malloc(w * sizeof *depth_of);
    if (!depth_of) return err_set(err, "search space: out of memory");
    for (size_t d = 0; d < w; d++) depth_of[st->order[d]] = d;
    size_t *fire_depth = malloc(n_fire * sizeof *fire_depth);
    if (!fire_depth) {
        if (depth_of != depth_of_column) free(depth_of);
        return err_set(err, "search space: out of memory");
    }
    for (size_t c = 0; c < g->n_constraints; c++) {
        const space_constraint *con = &s->constraints[g->constraints[c]];
        size_t deepest = 0;
        for (size_t j = 0; j < con->n_params; j++) {
            size_t d = depth_of[s->column_of[con->params[j]]];
            if (d > deepest) deepest = d;
        }
        fire_depth[c] = deepest;
        st->fire_start[deepest + 1]++;
    }
    if (depth_of != depth_of_column) free(depth_of);
    for (size_t d = 0; d < w; d++) st->fire_start[d + 1] += st->fire_start[d];
    size_t fill[SPACE_STACK_ITEMS];
    size_t *cursor = w <= SPACE_STACK_ITEMS ? fill : malloc(w * sizeof *cursor);
    if (!cursor) {
        free(fire_depth);
        return err_set(err, "search space: out of memory");
    }
    memcpy(cursor, st->fire_start, w * sizeof *cursor);
    /* Constraints keep their declaration order within a depth. */
    for (size_t c = 0; c < g->n_constraints; c++) {
        size_t slot = cursor[fire_depth[c]]++;
        st->fire[slot] = s->constraints[g->constraints[c]].expression;
        st->fire_constraint[slot] = g->constraints[c];
    }
    if (cursor != fill) free(cursor);
    free(fire_depth);
    return 0;
}

/* The search of group g set up: the order in which its parameters are
 * bound, what a rejection at each depth rules out, and the constraints
 * checked at each depth. `others` as for enumerate_group. */
static int start_search(const space *s, const space_group *g, double others, search_state *st,
                        skytune_error *err)
{
    size_t w = g->n_params;
    size_t n_fire = g->n_constraints ? g->n_constraints : 1;
    st->order = malloc(w * sizeof *st->order);
    st->fire_start = calloc(w + 1, sizeof *st->fire_start);
    st->fire = malloc(n_fire * sizeof *st->fire);
    st->fire_constraint = malloc(n_fire * sizeof *st->fire_constraint);
    st->current = malloc(w * sizeof *st->current);
    st->visits = calloc(w, sizeof *st->visits);
    st->ruled_out = malloc(w * sizeof *st->ruled_out);
    if (!st->order || !st->fire_start || !st->fire || !st->fire_constraint || !st->current ||
        !st->visits || !st->ruled_out) {
        search_state_free(st);
        return err_set(err, "search space: out of memory");
    }
    if (choose_order(s, g, st->order, err) != 0) {
        search_state_free(st);
        return -1;
    }
    /* A value rejected at depth d takes every value of the deeper
     * parameters with it. */
    double below = others;
    for (size_t d = w; d-- > 0;) {
        st->ruled_out[d] = below;
        below *= (double)s->params[g->params[st->order[d]]].count;
    }
    if (schedule_constraints(s, g, st, err) != 0) {
        search_state_free(st);
        return -1;
    }
    return 0;
}

/* The valid combinations of a group found so far, each its values' indices
 * by column. */
typedef struct tuple_list {
    uint16_t *items;
    size_t n, capacity;
    size_t max;                /* more is an error */
} tuple_list;

/* The combination bound at every depth, kept. */
static int keep_combination(const space *s, const space_group *g, const search_state *st,
                            tuple_list *kept, skytune_error *err)
{
    size_t w = g->n_params;
    if (kept->n == kept->max) {
        char names[512];
        describe_group(s, g, names, sizeof names);
        return err_set(err, "search space: the tuning parameters %s (linked by "
                       "constraints) have more than %zu valid combinations; add "
                       "constraints or keep fewer values with --only", names, kept->max);
    }
    if (kept->n == kept->capacity) {
        size_t grown = kept->capacity ? kept->capacity * 2 : 1024;
        if (grown > kept->max) grown = kept->max;
        uint16_t *bigger = realloc(kept->items, grown * w * sizeof *bigger);
        if (!bigger)
            return err_set(err, "search space: out of memory after %zu valid combinations",
                           kept->n);
        kept->items = bigger;
        kept->capacity = grown;
    }
    uint16_t *row = kept->items + kept->n * w;
    for (size_t d = 0; d < w; d++) row[st->order[d]] = st->current[d];
    kept->n++;
    return 0;
}

/* `others`: the combinations of the other groups each of this group's
 * combinations stands for, in the count of rejections (space_rejections). */
static int enumerate_group(space *s, space_group *g, expr_value *slots,
                           skytune_named_value *named, double others, build_watch *watch,
                           skytune_error *err)
{
    size_t w = g->n_params;
    search_state st;
    if (start_search(s, g, others, &st, err) != 0) return -1;
    tuple_list kept = {.max = SPACE_MAX_GROUP_BYTES / (w * sizeof(uint16_t))};
    if (kept.max > SPACE_MAX_GROUP_TUPLES) kept.max = SPACE_MAX_GROUP_TUPLES;
    skytune_values config = {.count = s->n_params, .items = named};
    bool in_order = true;
    for (size_t d = 0; d < w; d++)
        if (st.order[d] != d) in_order = false;

    /* Iterative depth-first search: at each depth bind the next value into
     * its slot in place, check the constraints that fire there, and descend
     * only when they all hold. Every binding counts as work. */
    size_t depth = 0;
    st.current[0] = 0;
    for (;;) {
        size_t col = st.order[depth];
        size_t param = g->params[col];
        if (st.current[depth] == s->params[param].count) {
            if (depth == 0) break;
            depth--;
            st.current[depth]++;
            continue;
        }
        st.visits[depth]++;
        if (++watch->checked >= watch->next_stop &&
            watch_stop(s, g, &st, depth, kept.n, watch, err) != 0)
            goto failed;
        uint16_t v = st.current[depth];
        slots[param] = s->param_operands[param][v];
        if (named) named[param].value = s->params[param].values[v];
        bool holds = true;
        for (size_t f = st.fire_start[depth]; f < st.fire_start[depth + 1]; f++) {
            if (!expr_eval_bool(st.fire[f], slots)) {
                s->rejected[st.fire_constraint[f]] += st.ruled_out[depth];
                holds = false;
                break;
            }
        }
        if (holds && depth + 1 < w) {
            depth++;
            st.current[depth] = 0;
            continue;
        }
        const char *why = NULL;
        if (holds && g->has_callback && s->callback(s->callback_ctx, &config, &why) == 0) {
            count_callback_rejection(s, why, st.ruled_out[depth]);
            holds = false;
        }
        if (holds && keep_combination(s, g, &st, &kept, err) != 0) goto failed;
        st.current[depth]++;
    }
    search_state_free(&st);
    g->tuples = kept.items;
    g->n_tuples = kept.n;
    if (!in_order && sort_tuples(s, g, err) != 0) return -1;
    return 0;
failed:
    free(kept.items);
    search_state_free(&st);
    return -1;
}

/* ----------------------------------------------------------- building */

static int copy_params(space *s, const space_spec *spec, skytune_error *err)
{
    s->params = calloc(spec->n_params ? spec->n_params : 1, sizeof *s->params);
    if (!s->params) return err_set(err, "search space: out of memory");
    for (size_t k = 0; k < spec->n_params; k++) {
        const param_def *p = &spec->params[k];
        for (size_t j = 0; j < k; j++)
            if (strcmp(spec->params[j].name, p->name) == 0)
                return err_set(err, "search space: tuning parameter '%s' is declared twice; "
                               "parameter names must be distinct", p->name);
        if (param_from_values(p->name, p->type, p->values, p->count, &s->params[k], err) != 0)
            return -1;
        s->n_params = k + 1;
    }
    return 0;
}

static int copy_constants(space *s, const space_spec *spec, skytune_error *err)
{
    size_t n = spec->n_constants;
    s->constant_names = calloc(n ? n : 1, sizeof *s->constant_names);
    s->constant_values = calloc(n ? n : 1, sizeof *s->constant_values);
    if (!s->constant_names || !s->constant_values)
        return err_set(err, "search space: out of memory");
    for (size_t k = 0; k < n; k++) {
        const space_constant *c = &spec->constants[k];
        if (!c->name) return err_set(err, "search space: constant %zu has no name", k + 1);
        s->constant_names[k] = duplicate_string(c->name);
        if (!s->constant_names[k] || value_copy(&s->constant_values[k], &c->value) != 0) {
            s->n_constants = k + 1;
            return err_set(err, "search space: out of memory");
        }
        s->n_constants = k + 1;
    }
    return 0;
}

static int prepare_slots(space *s, skytune_error *err)
{
    s->n_slots = s->n_params + s->n_constants;
    s->slot_template = calloc(s->n_slots ? s->n_slots : 1, sizeof *s->slot_template);
    s->param_operands = calloc(s->n_params ? s->n_params : 1, sizeof *s->param_operands);
    if (!s->slot_template || !s->param_operands) return err_set(err, "search space: out of memory");
    for (size_t k = 0; k < s->n_constants; k++)
        s->slot_template[s->n_params + k] = value_to_expr(&s->constant_values[k]);
    for (size_t k = 0; k < s->n_params; k++) {
        const param_def *p = &s->params[k];
        s->param_operands[k] = malloc(p->count * sizeof **s->param_operands);
        if (!s->param_operands[k]) return err_set(err, "search space: out of memory");
        for (size_t v = 0; v < p->count; v++) s->param_operands[k][v] = value_to_expr(&p->values[v]);
    }
    return 0;
}

static int parse_constraints(space *s, const space_spec *spec, skytune_error *err)
{
    size_t n = spec->n_constraints;
    s->constraints = calloc(n ? n : 1, sizeof *s->constraints);
    s->rejected = calloc(n ? n : 1, sizeof *s->rejected);
    if (!s->constraints || !s->rejected) return err_set(err, "search space: out of memory");
    for (size_t k = 0; k < n; k++) {
        const char *text = spec->constraints[k];
        space_constraint *c = &s->constraints[k];
        s->n_constraints = k + 1;
        if (!text) return err_set(err, "constraint %zu: no expression text", k + 1);
        if (expr_parse(text, resolve_name, s, &c->expression, err) != 0) {
            c->expression = NULL;
            return err_prefix(err, "constraint %zu ('%s')", k + 1, text);
        }
        size_t n_slots = 0;
        const int *slots = expr_slots(c->expression, &n_slots);
        c->params = malloc((n_slots ? n_slots : 1) * sizeof *c->params);
        if (!c->params) return err_set(err, "search space: out of memory");
        for (size_t j = 0; j < n_slots; j++)
            if (slots[j] >= 0 && (size_t)slots[j] < s->n_params)
                c->params[c->n_params++] = (size_t)slots[j];
        if (c->n_params == 0 && !expr_eval_bool(c->expression, s->slot_template)) {
            if (s->constants_hold) s->failed_constant = k;
            s->constants_hold = false;
        }
    }
    return 0;
}

static int form_groups(space *s, skytune_error *err)
{
    size_t np = s->n_params;
    size_t *parent = malloc((np ? np : 1) * sizeof *parent);
    s->group_of = malloc((np ? np : 1) * sizeof *s->group_of);
    s->column_of = malloc((np ? np : 1) * sizeof *s->column_of);
    s->groups = calloc(np ? np : 1, sizeof *s->groups);
    if (!parent || !s->group_of || !s->column_of || !s->groups) {
        free(parent);
        return err_set(err, "search space: out of memory");
    }
    for (size_t k = 0; k < np; k++) parent[k] = k;
    for (size_t c = 0; c < s->n_constraints; c++)
        for (size_t j = 1; j < s->constraints[c].n_params; j++)
            join(parent, s->constraints[c].params[0], s->constraints[c].params[j]);
    /* The callback sees every parameter, so it links them all. */
    if (s->callback)
        for (size_t k = 1; k < np; k++) join(parent, 0, k);

    /* Groups are numbered in the order of their first declared parameter;
     * that is the significance order of the rank's mixed radix. */
    for (size_t k = 0; k < np; k++) {
        size_t root = find_root(parent, k);
        if (root == k) s->group_of[k] = s->n_groups++;
        else s->group_of[k] = s->group_of[root];
        s->groups[s->group_of[k]].n_params++;
    }
    free(parent);
    for (size_t g = 0; g < s->n_groups; g++) {
        space_group *grp = &s->groups[g];
        grp->params = malloc(grp->n_params * sizeof *grp->params);
        if (!grp->params) return err_set(err, "search space: out of memory");
        grp->n_params = 0;
    }
    for (size_t k = 0; k < np; k++) {
        space_group *grp = &s->groups[s->group_of[k]];
        s->column_of[k] = grp->n_params;
        grp->params[grp->n_params++] = k;
    }
    for (size_t c = 0; c < s->n_constraints; c++)
        if (s->constraints[c].n_params > 0)
            s->groups[s->group_of[s->constraints[c].params[0]]].n_constraints++;
    for (size_t g = 0; g < s->n_groups; g++) {
        space_group *grp = &s->groups[g];
        grp->constraints = malloc((grp->n_constraints ? grp->n_constraints : 1) *
                                  sizeof *grp->constraints);
        if (!grp->constraints) return err_set(err, "search space: out of memory");
        grp->n_constraints = 0;
    }
    for (size_t c = 0; c < s->n_constraints; c++) {
        if (s->constraints[c].n_params == 0) continue;
        space_group *grp = &s->groups[s->group_of[s->constraints[c].params[0]]];
        grp->constraints[grp->n_constraints++] = c;
    }
    if (s->callback && s->n_groups > 0) s->groups[0].has_callback = true;
    return 0;
}

/* The same product as a real number, which never saturates (an estimate
 * past 2^53): the weight of a group's rejections. */
static double group_combinations(const space *s, const space_group *g)
{
    double product = 1.0;
    for (size_t j = 0; j < g->n_params; j++) product *= (double)s->params[g->params[j]].count;
    return product;
}

static uint64_t group_cartesian(const space *s, const space_group *g)
{
    uint64_t product = 1;
    for (size_t j = 0; j < g->n_params; j++)
        product = saturating_mul(product, s->params[g->params[j]].count);
    return product;
}

static int enumerate_groups(space *s, const space_control *control, skytune_error *err)
{
    expr_value *slots = malloc((s->n_slots ? s->n_slots : 1) * sizeof *slots);
    skytune_named_value *named = NULL;
    if (!slots) return err_set(err, "search space: out of memory");
    memcpy(slots, s->slot_template, s->n_slots * sizeof *slots);
    if (s->callback) {
        named = calloc(s->n_params ? s->n_params : 1, sizeof *named);
        if (!named) {
            free(slots);
            return err_set(err, "search space: out of memory");
        }
        for (size_t k = 0; k < s->n_params; k++) {
            named[k].name = s->params[k].name;
            named[k].value = s->params[k].values[0];
        }
    }
    size_t searched = 0;
    for (size_t g = 0; g < s->n_groups; g++)
        if (s->groups[g].n_constraints > 0 || s->groups[g].has_callback) searched++;
    build_watch watch;
    watch_init(&watch, control, searched);
    int rc = 0;
    /* Each combination ruled out is counted once, under the first group
     * (in order) that rejects it: a group's rejections stand for the valid
     * tuples of the groups before it and every tuple of those after it. */
    double valid_before = 1.0;
    for (size_t g = 0; g < s->n_groups && rc == 0; g++) {
        space_group *grp = &s->groups[g];
        uint64_t cartesian = group_cartesian(s, grp);
        if (grp->n_constraints == 0 && !grp->has_callback) {
            grp->dense = true;
            grp->n_tuples = cartesian;
            valid_before *= group_combinations(s, grp);
            continue;
        }
        double after = 1.0;
        for (size_t h = g + 1; h < s->n_groups; h++) after *= group_combinations(s, &s->groups[h]);
        rc = enumerate_group(s, grp, slots, named, valid_before * after, &watch, err);
        valid_before *= (double)grp->n_tuples;
        watch.group++;
        if (rc == 0 && grp->n_tuples == cartesian) {
            grp->dense = true;
            free(grp->tuples);
            grp->tuples = NULL;
        }
        /* One empty group empties the space; the rest need no work. */
        if (rc == 0 && grp->n_tuples == 0) break;
    }
    free(slots);
    free(named);
    return rc;
}

static int compute_counts(space *s, skytune_error *err)
{
    s->cartesian = 1;
    for (size_t k = 0; k < s->n_params; k++)
        s->cartesian = saturating_mul(s->cartesian, s->params[k].count);
    if (!s->constants_hold) {
        /* Nothing was enumerated: the constraint (or the callback, called
         * with no parameter) rules out the whole product. */
        double all = 1.0;
        for (size_t k = 0; k < s->n_params; k++) all *= (double)s->params[k].count;
        if (s->failed_constant != SIZE_MAX)
            s->rejected[s->failed_constant] = all;
        else
            count_callback_rejection(s, s->reason[0], all);
        s->count = 0;
        return 0;
    }
    for (size_t g = 0; g < s->n_groups; g++) {
        if (s->groups[g].n_tuples == 0) {
            s->count = 0;
            return 0;
        }
    }
    uint64_t weight = 1;
    for (size_t g = s->n_groups; g-- > 0;) {
        space_group *grp = &s->groups[g];
        grp->weight = weight;
        if (weight != 0 && grp->n_tuples > UINT64_MAX / weight)
            return err_set(err, "search space: more than %llu valid configurations, too many to "
                           "number; add constraints or keep fewer values with --only",
                           (unsigned long long)UINT64_MAX);
        weight *= grp->n_tuples;
    }
    s->count = weight;
    return 0;
}

static int compare_rejections(const void *a, const void *b)
{
    const space_rejection *x = a, *y = b;
    if (x->combinations != y->combinations) return x->combinations < y->combinations ? 1 : -1;
    /* The callback's bucket (SIZE_MAX) after the expressions. */
    return (x->constraint > y->constraint) - (x->constraint < y->constraint);
}

/* The buckets that ruled anything out, most first. */
static int collect_rejections(space *s, skytune_error *err)
{
    s->rejections = calloc(s->n_constraints + SPACE_MAX_REASONS + 1, sizeof *s->rejections);
    if (!s->rejections) return err_set(err, "search space: out of memory");
    for (size_t c = 0; c < s->n_constraints; c++)
        if (s->rejected[c] > 0)
            s->rejections[s->n_rejections++] = (space_rejection){
                .constraint = c, .text = expr_text(s->constraints[c].expression),
                .combinations = s->rejected[c]};
    for (size_t k = 0; k < s->n_reasons; k++)
        s->rejections[s->n_rejections++] = (space_rejection){
            .constraint = SPACE_CALLBACK, .text = s->reason[k], .combinations = s->rejected_for[k]};
    if (s->rejected_by_callback > 0)
        s->rejections[s->n_rejections++] = (space_rejection){
            .constraint = SPACE_CALLBACK, .text = NULL, .combinations = s->rejected_by_callback};
    qsort(s->rejections, s->n_rejections, sizeof *s->rejections, compare_rejections);
    return 0;
}

/* Everything space_build does before enumerating: copy, parse, group. */
static int define(const space_spec *spec, space **out, skytune_error *err)
{
    *out = NULL;
    if (!spec) return err_set(err, "search space: no description");
    if ((spec->n_params && !spec->params) || (spec->n_constraints && !spec->constraints) ||
        (spec->n_constants && !spec->constants))
        return err_set(err, "search space: a count is set but its array is missing");
    space *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "search space: out of memory");
    s->constants_hold = true;
    s->failed_constant = SIZE_MAX;
    s->first_added = spec->n_constraints;
    s->callback = spec->callback;
    s->callback_ctx = spec->callback_ctx;
    if (copy_params(s, spec, err) != 0 || copy_constants(s, spec, err) != 0 ||
        prepare_slots(s, err) != 0 || parse_constraints(s, spec, err) != 0 ||
        form_groups(s, err) != 0) {
        space_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int space_define(const space_spec *spec, space **out, skytune_error *err)
{
    if (define(spec, out, err) != 0) return -1;
    (*out)->definition = true;
    return 0;
}

bool space_is_definition(const space *s) { return s->definition; }

int space_build(const space_spec *spec, space **out, skytune_error *err)
{
    space *s;
    *out = NULL;
    if (define(spec, &s, err) != 0) return -1;
    if (s->callback && s->n_params == 0) {
        skytune_values none = {0};
        const char *why = NULL;
        if (!s->callback(s->callback_ctx, &none, &why)) s->constants_hold = false;
        s->reason[0] = why;
    }
    if ((s->constants_hold && enumerate_groups(s, spec->control, err) != 0) ||
        compute_counts(s, err) != 0 || collect_rejections(s, err) != 0) {
        space_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void space_free(space *s)
{
    if (!s) return;
    for (size_t k = 0; k < s->n_params; k++) {
        if (s->param_operands) free(s->param_operands[k]);
        param_free(&s->params[k]);
    }
    free(s->param_operands);
    free(s->params);
    for (size_t k = 0; k < s->n_constants; k++) {
        free(s->constant_names[k]);
        value_clear(&s->constant_values[k]);
    }
    free(s->constant_names);
    free(s->constant_values);
    for (size_t c = 0; c < s->n_constraints; c++) {
        expr_free(s->constraints[c].expression);
        free(s->constraints[c].params);
    }
    free(s->constraints);
    free(s->rejected);
    free(s->rejections);
    for (size_t g = 0; g < s->n_groups; g++) {
        free(s->groups[g].params);
        free(s->groups[g].constraints);
        free(s->groups[g].tuples);
    }
    free(s->groups);
    free(s->group_of);
    free(s->column_of);
    free(s->slot_template);
    free(s);
}

/* ------------------------------------------------------------ queries */

static int narrow_param(param_def *params, size_t n, const char *only, skytune_error *err)
{
    char shown[QUOTE_TEXT];
    const char *eq = strchr(only, '=');
    if (!eq || eq == only)
        return err_set(err, "--only '%s' is not NAME=v1,v2,...", quote_text(only, shown, sizeof shown));
    size_t len = (size_t)(eq - only);
    for (size_t k = 0; k < n; k++)
        if (strlen(params[k].name) == len && strncmp(params[k].name, only, len) == 0)
            return param_restrict(&params[k], eq + 1, err) == 0
                       ? 0
                       : err_prefix(err, "--only '%s'", quote_text(only, shown, sizeof shown));
    char known[600] = "";
    size_t used = 0;
    for (size_t k = 0; k < n && used < sizeof known - 1; k++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                                 params[k].name);
    char name_shown[QUOTE_TEXT], hint[160];
    char *name = strndup(only, len);
    const char *names[256];
    size_t n_names = 0;
    for (; n_names < n && n_names < 256; n_names++) names[n_names] = params[n_names].name;
    err_set(err, "--only '%s': unknown tuning parameter '%s'%s; valid: %s",
            quote_text(only, shown, sizeof shown), quote_text(name, name_shown, sizeof name_shown),
            nearest_hint(name, names, n_names, NULL, hint, sizeof hint), known);
    free(name);
    return -1;
}

int space_narrow(const space *s, const char *const *restricts, size_t n_restricts,
                 const char *const *only, size_t n_only, const space_control *control,
                 space **out, skytune_error *err)
{
    size_t n_constraints = s->n_constraints + n_restricts;
    param_def *params = calloc(s->n_params + 1, sizeof *params);
    const char **texts = calloc(n_constraints + 1, sizeof *texts);
    space_constant *constants = calloc(s->n_constants + 1, sizeof *constants);
    size_t copied = 0;
    int rc = 0;
    if (!params || !texts || !constants) {
        rc = err_set(err, "out of memory narrowing the search space");
        goto done;
    }
    for (; copied < s->n_params && rc == 0; copied++)
        rc = param_from_values(s->params[copied].name, s->params[copied].type,
                               s->params[copied].values, s->params[copied].count, &params[copied],
                               err);
    if (rc != 0) {
        copied--;
        goto done;
    }
    for (size_t k = 0; k < n_only && rc == 0; k++) rc = narrow_param(params, s->n_params, only[k], err);
    if (rc != 0) goto done;
    /* Restrictions are parsed alone first so that an error names the
     * user's text rather than a constraint number. */
    for (size_t k = 0; k < n_restricts && rc == 0; k++) {
        narrow_resolver r = {params, s->n_params, s};
        expr *e;
        skytune_error perr = {0};
        /* The expression is quoted shortened, so that a long one leaves room
         * for the reason (which gives the column). */
        char shown[QUOTE_TEXT];
        if (expr_parse(restricts[k], narrow_resolve, &r, &e, &perr) != 0)
            rc = err_set(err, "--restrict '%s': %s",
                         quote_text(restricts[k], shown, sizeof shown), perr.message);
        else
            expr_free(e);
    }
    if (rc != 0) goto done;
    for (size_t c = 0; c < s->n_constraints; c++) texts[c] = expr_text(s->constraints[c].expression);
    for (size_t k = 0; k < n_restricts; k++) texts[s->n_constraints + k] = restricts[k];
    for (size_t k = 0; k < s->n_constants; k++) {
        constants[k].name = s->constant_names[k];
        constants[k].value = s->constant_values[k];
    }
    space_spec spec = {
        .params = params,
        .n_params = s->n_params,
        .constraints = texts,
        .n_constraints = n_constraints,
        .constants = constants,
        .n_constants = s->n_constants,
        .callback = s->callback,
        .callback_ctx = s->callback_ctx,
        .control = control,
    };
    rc = space_build(&spec, out, err);
    if (rc == 0) (*out)->first_added = s->first_added;
done:
    for (size_t k = 0; k < copied; k++) param_free(&params[k]);
    free(params);
    free(texts);
    free(constants);
    return rc;
}

int space_from_definition(const space *definition, const space_control *control, space **out,
                          skytune_error *err)
{
    return space_narrow(definition, NULL, 0, NULL, 0, control, out, err);
}

size_t space_param_count(const space *s) { return s->n_params; }

size_t space_constraint_count(const space *s) { return s->n_constraints; }

const char *space_constraint_text(const space *s, size_t k)
{
    return k < s->n_constraints ? expr_text(s->constraints[k].expression) : NULL;
}

const param_def *space_param(const space *s, size_t k)
{
    return k < s->n_params ? &s->params[k] : NULL;
}

int space_param_index(const space *s, const char *name)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (strcmp(s->params[k].name, name) == 0) return (int)k;
    return -1;
}

uint64_t space_count(const space *s) { return s->count; }

uint64_t space_cartesian_count(const space *s) { return s->cartesian; }

const space_rejection *space_rejections(const space *s, size_t *n)
{
    *n = s->n_rejections;
    return s->rejections;
}

bool space_constraint_is_added(const space *s, size_t k)
{
    return k < s->n_constraints && k >= s->first_added;
}

bool space_constraint_reads(const space *s, size_t k, const char *prefix)
{
    if (k >= s->n_constraints) return false;
    size_t n_slots = 0;
    const int *slots = expr_slots(s->constraints[k].expression, &n_slots);
    for (size_t j = 0; j < n_slots; j++)
        if (slots[j] >= 0 && (size_t)slots[j] >= s->n_params &&
            strncmp(s->constant_names[(size_t)slots[j] - s->n_params], prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

static bool indices_in_range(const space *s, const uint16_t *idx)
{
    for (size_t k = 0; k < s->n_params; k++)
        if (idx[k] >= s->params[k].count) return false;
    return true;
}

bool space_is_valid(const space *s, const uint16_t *idx)
{
    if (!s->constants_hold || !indices_in_range(s, idx)) return false;
    expr_value slot_buffer[SPACE_STACK_ITEMS];
    skytune_named_value named_buffer[SPACE_STACK_ITEMS];
    expr_value *slots = slot_buffer;
    skytune_named_value *named = named_buffer;
    if (s->n_slots > SPACE_STACK_ITEMS) {
        slots = malloc(s->n_slots * sizeof *slots);
        if (!slots) return false;
    }
    if (s->callback && s->n_params > SPACE_STACK_ITEMS) {
        named = malloc(s->n_params * sizeof *named);
        if (!named) {
            if (slots != slot_buffer) free(slots);
            return false;
        }
    }
    memcpy(slots, s->slot_template, s->n_slots * sizeof *slots);
    for (size_t k = 0; k < s->n_params; k++) slots[k] = s->param_operands[k][idx[k]];
    bool valid = true;
    for (size_t c = 0; c < s->n_constraints && valid; c++)
        if (s->constraints[c].n_params > 0 && !expr_eval_bool(s->constraints[c].expression, slots))
            valid = false;
    if (valid && s->callback) {
        for (size_t k = 0; k < s->n_params; k++) {
            named[k].name = s->params[k].name;
            named[k].value = s->params[k].values[idx[k]];
        }
        skytune_values config = {.count = s->n_params, .items = named};
        const char *why = NULL;
        valid = s->callback(s->callback_ctx, &config, &why) != 0;
    }
    if (slots != slot_buffer) free(slots);
    if (named != named_buffer) free(named);
    return valid;
}

/* Position of idx's tuple within group g's valid list; false when it is not
 * there. */
static bool group_position(const space *s, const space_group *g, const uint16_t *idx,
                           uint64_t *position)
{
    size_t w = g->n_params;
    for (size_t j = 0; j < w; j++)
        if (idx[g->params[j]] >= s->params[g->params[j]].count) return false;
    if (g->dense) {
        uint64_t p = 0;
        for (size_t j = 0; j < w; j++) p = p * s->params[g->params[j]].count + idx[g->params[j]];
        *position = p;
        return true;
    }
    uint64_t low = 0, high = g->n_tuples;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2;
        const uint16_t *row = g->tuples + (size_t)mid * w;
        int order = 0;
        for (size_t j = 0; j < w && order == 0; j++) {
            uint16_t want = idx[g->params[j]];
            order = (row[j] > want) - (row[j] < want);
        }
        if (order == 0) {
            *position = mid;
            return true;
        }
        if (order < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return false;
}

/* Write group g's tuple at `position` into idx. */
static void group_tuple(const space *s, const space_group *g, uint64_t position, uint16_t *idx)
{
    size_t w = g->n_params;
    if (g->dense) {
        for (size_t j = w; j-- > 0;) {
            size_t values = s->params[g->params[j]].count;
            idx[g->params[j]] = (uint16_t)(position % values);
            position /= values;
        }
        return;
    }
    const uint16_t *row = g->tuples + (size_t)position * w;
    for (size_t j = 0; j < w; j++) idx[g->params[j]] = row[j];
}

int space_rank(const space *s, const uint16_t *idx, uint64_t *rank)
{
    if (s->count == 0) return -1;
    uint64_t r = 0;
    for (size_t g = 0; g < s->n_groups; g++) {
        uint64_t position;
        if (!group_position(s, &s->groups[g], idx, &position)) return -1;
        r += position * s->groups[g].weight;
    }
    *rank = r;
    return 0;
}

void space_unrank(const space *s, uint64_t rank, uint16_t *idx)
{
    if (s->count == 0) return;
    for (size_t g = 0; g < s->n_groups; g++) {
        const space_group *grp = &s->groups[g];
        group_tuple(s, grp, (rank / grp->weight) % grp->n_tuples, idx);
    }
}

uint64_t space_sample(const space *s, pcg32 *rng)
{
    /* Every rank is one valid configuration, so a uniform rank is a uniform
     * configuration. */
    return pcg32_bounded64(rng, s->count);
}

int space_enumerate(const space *s, int (*visit)(void *ctx, const uint16_t *idx), void *ctx)
{
    if (s->count == 0) return 0;
    uint16_t idx_buffer[SPACE_STACK_ITEMS];
    uint64_t position_buffer[SPACE_STACK_ITEMS];
    uint16_t *idx = idx_buffer;
    uint64_t *position = position_buffer;
    if (s->n_params > SPACE_STACK_ITEMS) {
        idx = malloc(s->n_params * sizeof *idx);
        position = malloc(s->n_groups * sizeof *position);
        if (!idx || !position) {
            free(idx);
            free(position);
            return -1;
        }
    }
    for (size_t g = 0; g < s->n_groups; g++) {
        position[g] = 0;
        group_tuple(s, &s->groups[g], 0, idx);
    }
    int rc = 0;
    for (;;) {
        rc = visit(ctx, idx);
        if (rc != 0) break;
        /* Odometer step, last group fastest. */
        size_t g = s->n_groups;
        while (g > 0) {
            g--;
            const space_group *grp = &s->groups[g];
            if (++position[g] < grp->n_tuples) {
                group_tuple(s, grp, position[g], idx);
                break;
            }
            position[g] = 0;
            group_tuple(s, grp, 0, idx);
            if (g == 0) goto done;
        }
        if (s->n_groups == 0) break;
    }
done:
    if (idx != idx_buffer) {
        free(idx);
        free(position);
    }
    return rc;
}

size_t space_neighbours(const space *s, const uint16_t *idx, space_neighbourhood kind,
                        uint64_t *out, size_t cap)
{
    if (s->count == 0) return 0;
    uint16_t idx_buffer[SPACE_STACK_ITEMS];
    uint64_t position_buffer[SPACE_STACK_ITEMS];
    bool found_buffer[SPACE_STACK_ITEMS];
    uint16_t *moved = idx_buffer;
    uint64_t *position = position_buffer;
    bool *found = found_buffer;
    if (s->n_params > SPACE_STACK_ITEMS) {
        moved = malloc(s->n_params * sizeof *moved);
        position = malloc(s->n_groups * sizeof *position);
        found = malloc(s->n_groups * sizeof *found);
        if (!moved || !position || !found) {
            free(moved);
            free(position);
            free(found);
            return 0;
        }
    }
    memcpy(moved, idx, s->n_params * sizeof *moved);
    /* A neighbour differs from idx in one group only: the others keep their
     * positions, and they must all be valid for any neighbour to be. */
    size_t invalid_groups = 0;
    uint64_t base = 0;
    for (size_t g = 0; g < s->n_groups; g++) {
        found[g] = group_position(s, &s->groups[g], idx, &position[g]);
        if (found[g])
            base += position[g] * s->groups[g].weight;
        else
            invalid_groups++;
    }
    size_t total = 0;
    for (size_t k = 0; k < s->n_params; k++) {
        size_t g = s->group_of[k];
        const space_group *grp = &s->groups[g];
        if (invalid_groups > 1 || (invalid_groups == 1 && found[g])) continue;
        uint64_t others = found[g] ? base - position[g] * grp->weight : base;
        size_t values = s->params[k].count;
        uint16_t original = idx[k];
        size_t candidates[2];
        size_t n_candidates = 0;
        if (kind == SPACE_ADJACENT) {
            if (original >= values) continue;
            if (original > 0) candidates[n_candidates++] = original - 1u;
            if (original + 1u < values) candidates[n_candidates++] = original + 1u;
        }
        size_t limit = kind == SPACE_ADJACENT ? n_candidates : values;
        for (size_t c = 0; c < limit; c++) {
            size_t v = kind == SPACE_ADJACENT ? candidates[c] : c;
            if (v == original) continue;
            moved[k] = (uint16_t)v;
            uint64_t p;
            if (group_position(s, grp, moved, &p)) {
                if (total < cap) out[total] = others + p * grp->weight;
                total++;
            }
        }
        moved[k] = original;
    }
    if (moved != idx_buffer) {
        free(moved);
        free(position);
        free(found);
    }
    return total;
}

/* ------------------------------------------------------ configuration text */

static const char *value_text(const skytune_value *v, char *number, size_t len)
{
    if (v->type == SKYTUNE_STRING) return v->s ? v->s : "";
    value_format(v, number, len);
    return number;
}

size_t space_config_text(const space *s, const uint16_t *idx, char *buf, size_t len)
{
    size_t needed = 0;
    if (buf && len) buf[0] = '\0';
    for (size_t k = 0; k < s->n_params; k++) {
        char number[64];
        const param_def *p = &s->params[k];
        const char *text = idx[k] < p->count ? value_text(&p->values[idx[k]], number, sizeof number)
                                             : "?";
        /* The values of a space never need quotes (params.h), but the text
         * is canonical whatever they hold. */
        char *quoted = canonical_value_is_bare(text) ? NULL : canonical_value_text(text);
        const char *pieces[4] = {k ? "," : "", p->name, "=", quoted ? quoted : text};
        for (size_t j = 0; j < 4; j++) {
            size_t piece = strlen(pieces[j]);
            if (buf && needed + 1 < len) {
                size_t room = len - 1 - needed;
                size_t copy = piece < room ? piece : room;
                memcpy(buf + needed, pieces[j], copy);
                buf[needed + copy] = '\0';
            }
            needed += piece;
        }
        free(quoted);
    }
    return needed;
}

static void describe_param_names(const space *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->n_params && used + 1 < len; k++) {
        int n = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", s->params[k].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

int space_parse_config(const space *s, const char *text, uint16_t *idx, skytune_error *err)
{
    if (!text) return err_set(err, "configuration: no text");
    for (size_t k = 0; k < s->n_params; k++) idx[k] = SPACE_UNSET_INDEX;
    canonical_pair *pairs;
    size_t n_pairs;
    if (canonical_split(text, &pairs, &n_pairs, err) != 0) return err_prefix(err, "configuration");
    char shown[QUOTE_TEXT], name_shown[QUOTE_TEXT], value_shown[QUOTE_TEXT];
    int rc = 0;
    for (size_t j = 0; j < n_pairs && rc == 0; j++) {
        const char *name = pairs[j].name, *value = pairs[j].value;
        int k = -1;
        for (size_t i = 0; i < s->n_params && k < 0; i++)
            if (strcmp(s->params[i].name, name) == 0) k = (int)i;
        if (k < 0) {
            char names[512];
            describe_param_names(s, names, sizeof names);
            rc = err_set(err, "configuration '%s': unknown parameter '%s'; the parameters are %s",
                         quote_text(text, shown, sizeof shown),
                         quote_text(name, name_shown, sizeof name_shown), names);
        } else if (idx[k] != SPACE_UNSET_INDEX) {
            rc = err_set(err, "configuration '%s': parameter '%s' is given more than once",
                         quote_text(text, shown, sizeof shown), s->params[k].name);
        } else {
            int position = param_index_of(&s->params[k], value);
            if (position < 0) {
                char valid[512];
                param_describe_values(&s->params[k], valid, sizeof valid);
                rc = err_set(err, "configuration '%s': parameter '%s': '%s' is not one of its "
                             "values; valid values are %s", quote_text(text, shown, sizeof shown),
                             s->params[k].name, quote_text(value, value_shown, sizeof value_shown),
                             valid);
            } else {
                idx[k] = (uint16_t)position;
            }
        }
    }
    canonical_pairs_free(pairs, n_pairs);
    if (rc != 0) return rc;
    for (size_t k = 0; k < s->n_params; k++)
        if (idx[k] == SPACE_UNSET_INDEX)
            return err_set(err, "configuration '%s': parameter '%s' is missing; every "
                           "parameter needs a value", quote_text(text, shown, sizeof shown),
                           s->params[k].name);
    return 0;
}

uint64_t space_text_hash(const char *text)
{
    return hash_fnv1a(HASH_FNV1A_OFFSET, text, strlen(text));
}

void space_config_values(const space *s, const uint16_t *idx, skytune_named_value *out)
{
    for (size_t k = 0; k < s->n_params; k++) {
        out[k].name = s->params[k].name;
        out[k].value = s->params[k].values[idx[k]];
    }
}
