/* The search space, checked against brute force: on hundreds of random small
 * spaces the pruned, grouped enumeration must agree with filtering the full
 * Cartesian product, in the documented rank order, and ranking, neighbours,
 * sampling and configuration text must agree with it too. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "params.h"
#include "pcg32.h"
#include "space.h"
#include "space_rejections.h"
#include "value.h"

/* ------------------------------------------------------------ helpers */

static param_def make_ints(const char *name, const int64_t *values, size_t count)
{
    skytune_value v[64];
    cr_assert_leq(count, 64);
    memset(v, 0, sizeof v);
    for (size_t k = 0; k < count; k++) {
        v[k].type = SKYTUNE_INT;
        v[k].i = values[k];
    }
    param_def p;
    skytune_error err;
    cr_assert_eq(param_from_values(name, SKYTUNE_INT, v, count, &p, &err), 0, "%s", err.message);
    return p;
}

static param_def make_expanded(const char *name, skytune_values_kind kind, const char *list)
{
    skytune_tuning_param spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    spec.kind = kind;
    spec.list = list;
    param_def p;
    skytune_error err;
    cr_assert_eq(param_expand(&spec, &p, &err), 0, "%s", err.message);
    return p;
}

static space *build_ok(const param_def *params, size_t n_params, const char *const *constraints,
                       size_t n_constraints, const space_constant *constants, size_t n_constants)
{
    space_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.params = params;
    spec.n_params = n_params;
    spec.constraints = constraints;
    spec.n_constraints = n_constraints;
    spec.constants = constants;
    spec.n_constants = n_constants;
    space *s = NULL;
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(space_build(&spec, &s, &err), 0, "space_build failed: %s", err.message);
    cr_assert_not_null(s);
    return s;
}

static void build_fails(const param_def *params, size_t n_params, const char *const *constraints,
                        size_t n_constraints, const space_constant *constants, size_t n_constants,
                        skytune_error *err)
{
    space_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.params = params;
    spec.n_params = n_params;
    spec.constraints = constraints;
    spec.n_constraints = n_constraints;
    spec.constants = constants;
    spec.n_constants = n_constants;
    space *s = (space *)1;
    memset(err, 0, sizeof *err);
    cr_assert_neq(space_build(&spec, &s, err), 0, "space_build should fail");
    cr_assert_null(s);
}

static void free_params(param_def *params, size_t n)
{
    for (size_t k = 0; k < n; k++) param_free(&params[k]);
}

typedef struct collected {
    size_t width;
    size_t count;
    size_t capacity;
    uint16_t *rows;
    size_t stop_after; /* 0: never stop */
} collected;

static int collect(void *ctx, const uint16_t *idx)
{
    collected *c = ctx;
    if (c->count == c->capacity) {
        c->capacity = c->capacity ? c->capacity * 2 : 64;
        c->rows = realloc(c->rows, c->capacity * (c->width ? c->width : 1) * sizeof *c->rows);
        cr_assert_not_null(c->rows);
    }
    memcpy(c->rows + c->count * c->width, idx, c->width * sizeof *idx);
    c->count++;
    if (c->stop_after && c->count == c->stop_after) return 7;
    return 0;
}

static collected enumerate_all(const space *s)
{
    collected c;
    memset(&c, 0, sizeof c);
    c.width = space_param_count(s);
    cr_assert_eq(space_enumerate(s, collect, &c), 0);
    return c;
}

/* ----------------------------------------------- brute-force reference */

typedef struct reference {
    size_t n_params;
    const param_def *params;
    size_t n_slots;
    const space_constant *constants;
    size_t n_constants;
    expr **constraints;
    size_t n_constraints;
    space_callback_fn callback;
    void *callback_ctx;
    size_t *group_of;      /* the documented grouping, computed independently */
    uint16_t *valid;       /* valid configurations in the documented rank order */
    size_t n_valid;
} reference;

static int reference_resolve(void *ctx, const char *name, size_t len)
{
    const reference *r = ctx;
    for (size_t k = 0; k < r->n_params; k++)
        if (strlen(r->params[k].name) == len && memcmp(r->params[k].name, name, len) == 0)
            return (int)k;
    for (size_t k = 0; k < r->n_constants; k++)
        if (strlen(r->constants[k].name) == len && memcmp(r->constants[k].name, name, len) == 0)
            return (int)(r->n_params + k);
    return -1;
}

static bool reference_valid(const reference *r, const uint16_t *idx)
{
    expr_value slots[32];
    cr_assert_leq(r->n_slots, 32);
    for (size_t k = 0; k < r->n_params; k++) slots[k] = value_to_expr(&r->params[k].values[idx[k]]);
    for (size_t k = 0; k < r->n_constants; k++)
        slots[r->n_params + k] = value_to_expr(&r->constants[k].value);
    for (size_t c = 0; c < r->n_constraints; c++)
        if (!expr_eval_bool(r->constraints[c], slots)) return false;
    if (r->callback) {
        skytune_named_value named[16];
        for (size_t k = 0; k < r->n_params; k++) {
            named[k].name = r->params[k].name;
            named[k].value = r->params[k].values[idx[k]];
        }
        skytune_values config = {.count = r->n_params, .items = named};
        const char *why = NULL;
        if (!r->callback(r->callback_ctx, &config, &why)) return false;
    }
    return true;
}

static size_t root_of(size_t *parent, size_t k)
{
    while (parent[k] != k) k = parent[k];
    return k;
}

/* The rank order space.h documents: groups of parameters linked by
 * constraints, ordered by their first declared parameter, most significant
 * first; within a group, lexicographic in declaration order. */
static const reference *sort_reference;

static int compare_in_rank_order(const void *pa, const void *pb)
{
    const uint16_t *a = pa, *b = pb;
    const reference *r = sort_reference;
    for (size_t g = 0; g < r->n_params; g++) {
        for (size_t k = 0; k < r->n_params; k++) {
            if (r->group_of[k] != g) continue;
            if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
        }
    }
    return 0;
}

static void reference_build(reference *r, const param_def *params, size_t n_params,
                            const char *const *constraints, size_t n_constraints,
                            const space_constant *constants, size_t n_constants,
                            space_callback_fn callback, void *callback_ctx)
{
    memset(r, 0, sizeof *r);
    r->params = params;
    r->n_params = n_params;
    r->constants = constants;
    r->n_constants = n_constants;
    r->n_slots = n_params + n_constants;
    r->callback = callback;
    r->callback_ctx = callback_ctx;
    r->constraints = calloc(n_constraints + 1, sizeof *r->constraints);
    r->group_of = calloc(n_params + 1, sizeof *r->group_of);
    size_t parent[16];
    for (size_t k = 0; k < n_params; k++) parent[k] = k;
    for (size_t c = 0; c < n_constraints; c++) {
        skytune_error err;
        cr_assert_eq(expr_parse(constraints[c], reference_resolve, r, &r->constraints[c], &err), 0,
                     "reference cannot parse '%s': %s", constraints[c], err.message);
        size_t n_slots;
        const int *slots = expr_slots(r->constraints[c], &n_slots);
        int first = -1;
        for (size_t j = 0; j < n_slots; j++) {
            if ((size_t)slots[j] >= n_params) continue;
            if (first < 0) {
                first = slots[j];
                continue;
            }
            size_t a = root_of(parent, (size_t)first), b = root_of(parent, (size_t)slots[j]);
            if (a < b) parent[b] = a;
            if (b < a) parent[a] = b;
        }
    }
    r->n_constraints = n_constraints;
    if (callback)
        for (size_t k = 0; k < n_params; k++) parent[k] = 0;
    /* Number the groups by their first parameter. */
    size_t n_groups = 0;
    size_t group_of_root[16];
    for (size_t k = 0; k < n_params; k++) {
        size_t root = root_of(parent, k);
        if (root == k) group_of_root[k] = n_groups++;
        r->group_of[k] = group_of_root[root];
    }

    size_t cartesian = 1;
    for (size_t k = 0; k < n_params; k++) cartesian *= params[k].count;
    r->valid = malloc(cartesian * (n_params ? n_params : 1) * sizeof *r->valid);
    cr_assert_not_null(r->valid);
    uint16_t idx[16] = {0};
    for (size_t n = 0; n < cartesian; n++) {
        if (reference_valid(r, idx)) {
            memcpy(r->valid + r->n_valid * n_params, idx, n_params * sizeof *idx);
            r->n_valid++;
        }
        for (size_t k = n_params; k-- > 0;) {
            if (++idx[k] < params[k].count) break;
            idx[k] = 0;
        }
    }
    sort_reference = r;
    qsort(r->valid, r->n_valid, n_params * sizeof *r->valid, compare_in_rank_order);
}

static void reference_free(reference *r)
{
    for (size_t c = 0; c < r->n_constraints; c++) expr_free(r->constraints[c]);
    free(r->constraints);
    free(r->group_of);
    free(r->valid);
}

/* Rank of idx in the reference, or -1. */
static int64_t reference_rank(const reference *r, const uint16_t *idx)
{
    sort_reference = r;
    const uint16_t *found = bsearch(idx, r->valid, r->n_valid, r->n_params * sizeof *idx,
                                    compare_in_rank_order);
    if (!found) return -1;
    /* Within a group order, equal keys mean equal configurations. */
    cr_assert_eq(memcmp(found, idx, r->n_params * sizeof *idx), 0);
    return (int64_t)((size_t)(found - r->valid) / r->n_params);
}

static size_t reference_neighbours(const reference *r, const uint16_t *idx,
                                   space_neighbourhood kind, uint64_t *out)
{
    uint16_t moved[16];
    memcpy(moved, idx, r->n_params * sizeof *idx);
    size_t n = 0;
    for (size_t k = 0; k < r->n_params; k++) {
        for (size_t v = 0; v < r->params[k].count; v++) {
            if (v == idx[k]) continue;
            if (kind == SPACE_ADJACENT && v + 1 != idx[k] && v != (size_t)idx[k] + 1) continue;
            moved[k] = (uint16_t)v;
            int64_t rank = reference_rank(r, moved);
            if (rank >= 0) out[n++] = (uint64_t)rank;
        }
        moved[k] = idx[k];
    }
    return n;
}

/* -------------------------------------------- random space generation */

typedef struct generator {
    pcg32 rng;
    const param_def *params;
    size_t n_params;
    char text[1024];
    size_t used;
} generator;

static void emit(generator *g, const char *s)
{
    size_t n = strlen(s);
    cr_assert_lt(g->used + n, sizeof g->text, "generated constraint too long");
    memcpy(g->text + g->used, s, n + 1);
    g->used += n;
}

static bool one_in(generator *g, uint32_t n) { return pcg32_bounded(&g->rng, n) == 0; }

static int pick_param(generator *g, skytune_type type)
{
    int candidates[16];
    size_t n = 0;
    for (size_t k = 0; k < g->n_params; k++)
        if ((g->params[k].type == SKYTUNE_STRING) == (type == SKYTUNE_STRING))
            candidates[n++] = (int)k;
    if (n == 0) return -1;
    return candidates[pcg32_bounded(&g->rng, (uint32_t)n)];
}

static void gen_operand(generator *g)
{
    uint32_t choice = pcg32_bounded(&g->rng, 10);
    int k = pick_param(g, SKYTUNE_INT);
    if (choice < 6 && k >= 0) {
        emit(g, g->params[k].name);
    } else if (choice == 6) {
        emit(g, one_in(g, 2) ? "n" : "device.max_work_group_size");
    } else if (choice == 7) {
        emit(g, "scale");
    } else {
        char number[16];
        snprintf(number, sizeof number, "%u", 1 + pcg32_bounded(&g->rng, 8));
        emit(g, number);
    }
}

static void gen_arith(generator *g, int depth)
{
    if (depth == 0 || one_in(g, 2)) {
        gen_operand(g);
        return;
    }
    static const char *const ops[] = {" + ", " - ", " * ", " // ", " % ", " / "};
    uint32_t op = pcg32_bounded(&g->rng, 6);
    emit(g, "(");
    gen_arith(g, depth - 1);
    emit(g, ops[op]);
    /* Divisors are mostly nonzero literals: division by zero rejects the
     * configuration, and too much of it would leave most spaces empty. */
    if (op >= 3 && !one_in(g, 3)) {
        char number[16];
        snprintf(number, sizeof number, "%u", 1 + pcg32_bounded(&g->rng, 8));
        emit(g, number);
    } else {
        gen_arith(g, depth - 1);
    }
    emit(g, ")");
}

static void gen_comparison(generator *g)
{
    static const char *const cmps[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
    int s = pick_param(g, SKYTUNE_STRING);
    if (s >= 0 && one_in(g, 4)) {
        static const char *const words[] = {"'x'", "'y'", "'zz'", "'q'"};
        emit(g, g->params[s].name);
        emit(g, one_in(g, 2) ? " == " : " != ");
        emit(g, words[pcg32_bounded(&g->rng, 4)]);
        return;
    }
    gen_arith(g, 2);
    emit(g, cmps[pcg32_bounded(&g->rng, 6)]);
    gen_arith(g, 2);
    if (one_in(g, 4)) { /* a chained comparison */
        emit(g, cmps[pcg32_bounded(&g->rng, 6)]);
        gen_arith(g, 1);
    }
}

static void gen_condition(generator *g, int depth)
{
    uint32_t choice = depth == 0 ? 0 : pcg32_bounded(&g->rng, 6);
    if (choice <= 2) {
        gen_comparison(g);
    } else if (choice == 3 || choice == 4) {
        emit(g, "(");
        gen_condition(g, depth - 1);
        emit(g, choice == 3 ? ") and (" : ") or (");
        gen_condition(g, depth - 1);
        emit(g, ")");
    } else {
        emit(g, "not (");
        gen_condition(g, depth - 1);
        emit(g, ")");
    }
}

static const space_constant random_constants[] = {
    {"n", {SKYTUNE_INT, 6, 0.0, NULL}},
    {"device.max_work_group_size", {SKYTUNE_INT, 8, 0.0, NULL}},
    {"scale", {SKYTUNE_FLOAT, 0, 1.5, NULL}},
};

/* Accepts about two thirds of configurations, depending on every value. */
static int random_callback(void *ctx, const skytune_values *config, const char **why)
{
    (void)why;
    const uint64_t *salt = ctx;
    uint64_t h = *salt;
    for (size_t k = 0; k < config->count; k++) {
        const skytune_value *v = &config->items[k].value;
        uint64_t x = v->type == SKYTUNE_STRING ? strlen(v->s) * 31u + (unsigned char)v->s[0]
                     : v->type == SKYTUNE_FLOAT ? (uint64_t)(v->f * 4.0 + 100.0)
                                                : (uint64_t)(v->i + 100);
        h = (h ^ x) * 1099511628211ull;
    }
    return (h >> 29) % 3 != 0;
}

typedef struct random_space {
    param_def params[6];
    size_t n_params;
    char constraint_text[4][1024];
    const char *constraints[4];
    size_t n_constraints;
    bool with_callback;
    uint64_t salt;
} random_space;

static void random_space_make(random_space *rs, pcg32 *rng)
{
    static const char *const names[] = {"a", "b", "wg_x", "tile", "mode", "f"};
    static const char *const words[] = {"x", "y", "zz", "q", "w"};
    memset(rs, 0, sizeof *rs);
    rs->n_params = 2 + pcg32_bounded(rng, 5);
    for (size_t k = 0; k < rs->n_params; k++) {
        size_t count = 1 + pcg32_bounded(rng, 6);
        uint32_t kind = pcg32_bounded(rng, 10);
        skytune_value values[6];
        memset(values, 0, sizeof values);
        skytune_type type = kind < 7 ? SKYTUNE_INT : kind < 9 ? SKYTUNE_STRING : SKYTUNE_FLOAT;
        if (type == SKYTUNE_STRING && count > 5) count = 5;
        /* Distinct values in a shuffled order: value order is not value size. */
        int64_t pool[12];
        for (int j = 0; j < 12; j++) pool[j] = j - 3;
        for (size_t j = 0; j < 12; j++) {
            size_t other = j + pcg32_bounded(rng, (uint32_t)(12 - j));
            int64_t t = pool[j];
            pool[j] = pool[other];
            pool[other] = t;
        }
        size_t word_order[5] = {0, 1, 2, 3, 4};
        for (size_t j = 0; j < 5; j++) {
            size_t other = j + pcg32_bounded(rng, (uint32_t)(5 - j));
            size_t t = word_order[j];
            word_order[j] = word_order[other];
            word_order[other] = t;
        }
        for (size_t j = 0; j < count; j++) {
            values[j].type = type;
            if (type == SKYTUNE_INT) values[j].i = pool[j];
            if (type == SKYTUNE_FLOAT) values[j].f = (double)pool[j] * 0.5;
            if (type == SKYTUNE_STRING) values[j].s = words[word_order[j]];
        }
        skytune_error err;
        cr_assert_eq(param_from_values(names[k], type, values, count, &rs->params[k], &err), 0,
                     "%s", err.message);
    }
    generator g;
    memset(&g, 0, sizeof g);
    g.rng = *rng;
    g.params = rs->params;
    g.n_params = rs->n_params;
    rs->n_constraints = pcg32_bounded(rng, 4);
    for (size_t c = 0; c < rs->n_constraints; c++) {
        g.used = 0;
        g.text[0] = '\0';
        gen_condition(&g, 2);
        memcpy(rs->constraint_text[c], g.text, g.used + 1);
        rs->constraints[c] = rs->constraint_text[c];
    }
    *rng = g.rng;
    rs->with_callback = pcg32_bounded(rng, 6) == 0;
    rs->salt = pcg32_next(rng);
}

static space *random_space_build(random_space *rs)
{
    space_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.params = rs->params;
    spec.n_params = rs->n_params;
    spec.constraints = rs->constraints;
    spec.n_constraints = rs->n_constraints;
    spec.constants = random_constants;
    spec.n_constants = 3;
    if (rs->with_callback) {
        spec.callback = random_callback;
        spec.callback_ctx = &rs->salt;
    }
    space *s = NULL;
    skytune_error err;
    memset(&err, 0, sizeof err);
    cr_assert_eq(space_build(&spec, &s, &err), 0, "space_build failed: %s", err.message);
    return s;
}

static void describe_random_space(const random_space *rs, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%zu params (", rs->n_params);
    for (size_t k = 0; k < rs->n_params && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s:%zu ", rs->params[k].name,
                                 rs->params[k].count);
    for (size_t c = 0; c < rs->n_constraints && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, ") [%s]", rs->constraints[c]);
    if (used < len && rs->with_callback) snprintf(buf + used, len - used, " +callback");
}

/* The rejection counts against brute force: they add up to the
 * combinations outside the space, no constraint is charged with more
 * combinations than fail it, and the callback with exactly those that pass
 * every expression and fail it (it is asked only then). */
static void check_rejections(const space *s, const reference *r, uint64_t cartesian,
                             const char *what)
{
    size_t n;
    const space_rejection *rej = space_rejections(s, &n);
    double sum = 0;
    for (size_t k = 0; k < n; k++) {
        cr_assert_gt(rej[k].combinations, 0, "%s", what);
        if (k) cr_assert_leq(rej[k].combinations, rej[k - 1].combinations, "not most first: %s", what);
        sum += rej[k].combinations;
    }
    cr_assert_eq((uint64_t)sum, cartesian - space_count(s), "rejections add up to %.0f of %llu "
                 "combinations outside the space: %s", sum,
                 (unsigned long long)(cartesian - space_count(s)), what);
    size_t w = r->n_params;
    uint64_t failing[4] = {0}, callback_only = 0;
    uint16_t idx[6] = {0};
    expr_value slots[32];
    for (size_t k = 0; k < r->n_constants; k++)
        slots[w + k] = value_to_expr(&r->constants[k].value);
    for (uint64_t c = 0; c < cartesian; c++) {
        for (size_t k = 0; k < w; k++) slots[k] = value_to_expr(&r->params[k].values[idx[k]]);
        bool all = true;
        for (size_t j = 0; j < r->n_constraints; j++)
            if (!expr_eval_bool(r->constraints[j], slots)) {
                failing[j]++;
                all = false;
            }
        if (all && !reference_valid(r, idx)) callback_only++;
        for (size_t k = w; k-- > 0;) {
            if (++idx[k] < r->params[k].count) break;
            idx[k] = 0;
        }
    }
    double by_callback = 0;
    for (size_t k = 0; k < n; k++) {
        if (rej[k].constraint == SPACE_CALLBACK) {
            by_callback = rej[k].combinations;
            continue;
        }
        cr_assert_lt(rej[k].constraint, r->n_constraints, "%s", what);
        cr_assert_leq(rej[k].combinations, (double)failing[rej[k].constraint],
                      "constraint %zu charged with %.0f combinations, %llu fail it: %s",
                      rej[k].constraint + 1, rej[k].combinations,
                      (unsigned long long)failing[rej[k].constraint], what);
    }
    cr_assert_eq((uint64_t)by_callback, callback_only, "the callback charged with %.0f, rejects "
                 "%llu: %s", by_callback, (unsigned long long)callback_only, what);
}

/* -------------------------------------------- random spaces vs brute force */

#define RANDOM_SPACES 500

Test(space_random, enumeration_matches_brute_force, .timeout = 120)
{
    pcg32 rng;
    pcg32_seed(&rng, 20240611u, 7u);
    size_t nonempty = 0, pruned = 0, grouped = 0;
    for (int trial = 0; trial < RANDOM_SPACES; trial++) {
        random_space rs;
        random_space_make(&rs, &rng);
        char what[2048];
        describe_random_space(&rs, what, sizeof what);
        space *s = random_space_build(&rs);
        reference ref;
        reference_build(&ref, rs.params, rs.n_params, rs.constraints, rs.n_constraints,
                        random_constants, 3, rs.with_callback ? random_callback : NULL,
                        &rs.salt);
        size_t w = rs.n_params;

        uint64_t cartesian = 1;
        for (size_t k = 0; k < w; k++) cartesian *= rs.params[k].count;
        cr_assert_eq(space_cartesian_count(s), cartesian, "trial %d: %s", trial, what);
        cr_assert_eq(space_count(s), ref.n_valid, "trial %d: count %llu, brute force %zu: %s",
                     trial, (unsigned long long)space_count(s), ref.n_valid, what);

        collected got = enumerate_all(s);
        cr_assert_eq(got.count, ref.n_valid, "trial %d: %s", trial, what);
        for (size_t i = 0; i < got.count; i++) {
            cr_assert_eq(memcmp(got.rows + i * w, ref.valid + i * w, w * sizeof *got.rows), 0,
                         "trial %d: configuration %zu differs from brute force: %s", trial, i,
                         what);
            uint64_t rank = 0;
            cr_assert_eq(space_rank(s, got.rows + i * w, &rank), 0, "trial %d: %s", trial, what);
            cr_assert_eq(rank, i, "trial %d: %s", trial, what);
            uint16_t back[6];
            space_unrank(s, i, back);
            cr_assert_eq(memcmp(back, got.rows + i * w, w * sizeof *back), 0, "trial %d", trial);
        }

        /* Validity and rank of every combination, valid or not. */
        uint16_t idx[6] = {0};
        for (uint64_t n = 0; n < cartesian; n++) {
            bool valid = reference_rank(&ref, idx) >= 0;
            cr_assert_eq(space_is_valid(s, idx), valid, "trial %d: %s", trial, what);
            uint64_t rank;
            cr_assert_eq(space_rank(s, idx, &rank) == 0, valid, "trial %d: %s", trial, what);
            for (size_t k = w; k-- > 0;) {
                if (++idx[k] < rs.params[k].count) break;
                idx[k] = 0;
            }
        }

        check_rejections(s, &ref, cartesian, what);
        if (ref.n_valid) nonempty++;
        if (ref.n_valid && ref.n_valid < cartesian) pruned++;
        bool several_groups = false;
        for (size_t k = 0; k < w; k++)
            if (ref.group_of[k] != 0) several_groups = true;
        if (several_groups && ref.n_valid < cartesian) grouped++;

        free(got.rows);
        reference_free(&ref);
        space_free(s);
        free_params(rs.params, rs.n_params);
    }
    /* The generator must exercise what it is meant to. */
    cr_assert_gt(nonempty, RANDOM_SPACES * 2 / 5, "only %zu non-empty spaces", nonempty);
    cr_assert_gt(pruned, RANDOM_SPACES / 5, "only %zu spaces with pruning", pruned);
    cr_assert_gt(grouped, RANDOM_SPACES / 5, "only %zu constrained multi-group spaces", grouped);
}

Test(space_random, neighbours_match_brute_force, .timeout = 120)
{
    pcg32 rng;
    pcg32_seed(&rng, 99u, 3u);
    size_t checked = 0;
    for (int trial = 0; trial < RANDOM_SPACES / 2; trial++) {
        random_space rs;
        random_space_make(&rs, &rng);
        char what[2048];
        describe_random_space(&rs, what, sizeof what);
        space *s = random_space_build(&rs);
        reference ref;
        reference_build(&ref, rs.params, rs.n_params, rs.constraints, rs.n_constraints,
                        random_constants, 3, rs.with_callback ? random_callback : NULL,
                        &rs.salt);
        size_t w = rs.n_params;
        uint64_t cartesian = space_cartesian_count(s);
        /* Every combination (valid or not) of the smaller spaces; a stride
         * through the larger ones. */
        uint64_t stride = cartesian > 600 ? cartesian / 600 + 1 : 1;
        for (uint64_t n = 0; n < cartesian; n += stride) {
            uint16_t idx[6];
            uint64_t rest = n;
            for (size_t k = w; k-- > 0;) {
                idx[k] = (uint16_t)(rest % rs.params[k].count);
                rest /= rs.params[k].count;
            }
            for (int kind = SPACE_HAMMING; kind <= SPACE_ADJACENT; kind++) {
                uint64_t want[64], got[64];
                size_t n_want = reference_neighbours(&ref, idx, (space_neighbourhood)kind, want);
                size_t n_got = space_neighbours(s, idx, (space_neighbourhood)kind, got, 64);
                cr_assert_eq(n_got, n_want, "trial %d kind %d: %zu neighbours, want %zu: %s",
                             trial, kind, n_got, n_want, what);
                for (size_t j = 0; j < n_got; j++)
                    cr_assert_eq(got[j], want[j], "trial %d kind %d neighbour %zu: %s", trial,
                                 kind, j, what);
                /* A small buffer gets the first ones and the full count. */
                if (n_want > 1) {
                    uint64_t first[1];
                    cr_assert_eq(space_neighbours(s, idx, (space_neighbourhood)kind, first, 1),
                                 n_want);
                    cr_assert_eq(first[0], want[0]);
                }
                cr_assert_eq(space_neighbours(s, idx, (space_neighbourhood)kind, NULL, 0), n_want);
                checked++;
            }
        }
        reference_free(&ref);
        space_free(s);
        free_params(rs.params, rs.n_params);
    }
    cr_assert_gt(checked, 1000);
}

Test(space_random, text_round_trip_and_sampling_stay_valid, .timeout = 120)
{
    pcg32 rng;
    pcg32_seed(&rng, 5u, 11u);
    for (int trial = 0; trial < RANDOM_SPACES / 2; trial++) {
        random_space rs;
        random_space_make(&rs, &rng);
        space *s = random_space_build(&rs);
        size_t w = rs.n_params;
        collected all = enumerate_all(s);
        for (size_t i = 0; i < all.count; i++) {
            const uint16_t *idx = all.rows + i * w;
            char text[256];
            size_t need = space_config_text(s, idx, text, sizeof text);
            cr_assert_eq(need, strlen(text));
            uint16_t back[6];
            skytune_error err;
            cr_assert_eq(space_parse_config(s, text, back, &err), 0, "'%s': %s", text,
                         err.message);
            cr_assert_eq(memcmp(back, idx, w * sizeof *idx), 0, "'%s'", text);
        }
        if (space_count(s) > 0) {
            pcg32 draw;
            pcg32_seed(&draw, (uint64_t)trial, 1u);
            for (int d = 0; d < 50; d++) {
                uint64_t rank = space_sample(s, &draw);
                cr_assert_lt(rank, space_count(s));
                uint16_t idx[6];
                space_unrank(s, rank, idx);
                cr_assert(space_is_valid(s, idx));
            }
        }
        free(all.rows);
        space_free(s);
        free_params(rs.params, rs.n_params);
    }
}

/* -------------------------------------------------------- fixed spaces */

Test(space, work_group_example_counts)
{
    param_def params[2];
    params[0] = make_expanded("wg_x", SKYTUNE_LIST, "1,2,4,8,16");
    params[1] = make_expanded("wg_y", SKYTUNE_LIST, "1,2,4,8,16");
    const char *const constraints[] = {"4 <= wg_x * wg_y <= 16"};
    space *s = build_ok(params, 2, constraints, 1, NULL, 0);
    /* Products 4, 8 and 16 out of 25 pairs: (1,4)(1,8)(1,16)(2,2)(2,4)(2,8)
     * (4,1)(4,2)(4,4)(8,1)(8,2)(16,1). */
    cr_assert_eq(space_count(s), 12);
    cr_assert_eq(space_cartesian_count(s), 25);
    collected c = enumerate_all(s);
    const uint16_t first[] = {0, 2}, last[] = {4, 0};
    cr_assert_eq(memcmp(c.rows, first, sizeof first), 0);
    cr_assert_eq(memcmp(c.rows + 11 * 2, last, sizeof last), 0);
    free(c.rows);
    space_free(s);
    free_params(params, 2);
}

Test(space, rank_order_is_grouped_then_lexicographic)
{
    /* a and c are linked, b stands alone: ranks run over (a, c) first and b
     * fastest, which is not the plain lexicographic order of (a, b, c). */
    const int64_t three[] = {0, 1, 2}, two[] = {0, 1};
    param_def params[3];
    params[0] = make_ints("a", three, 3);
    params[1] = make_ints("b", two, 2);
    params[2] = make_ints("c", two, 2);
    const char *const constraints[] = {"a != c"};
    space *s = build_ok(params, 3, constraints, 1, NULL, 0);
    cr_assert_eq(space_count(s), 8);
    const uint16_t want[8][3] = {{0, 0, 1}, {0, 1, 1}, {1, 0, 0}, {1, 1, 0},
                                 {2, 0, 0}, {2, 1, 0}, {2, 0, 1}, {2, 1, 1}};
    collected c = enumerate_all(s);
    cr_assert_eq(c.count, 8);
    for (size_t i = 0; i < 8; i++)
        cr_assert_eq(memcmp(c.rows + i * 3, want[i], sizeof want[i]), 0, "rank %zu", i);
    free(c.rows);
    space_free(s);
    free_params(params, 3);
}

Test(space, enumeration_order_does_not_change_rank_order)
{
    /* The constraints make binding `c` first the cheapest search; the ranks
     * must still be lexicographic in declaration order. */
    const int64_t values[] = {0, 1, 2, 3, 4, 5, 6, 7};
    param_def params[3];
    params[0] = make_ints("a", values, 8);
    params[1] = make_ints("b", values, 8);
    params[2] = make_ints("c", values, 3);
    const char *const constraints[] = {"c >= 1", "c * 3 > a", "c + b < 6", "(a + b) % 2 == 0"};
    space *s = build_ok(params, 3, constraints, 4, NULL, 0);
    collected c = enumerate_all(s);
    cr_assert_eq(c.count, 20);
    for (size_t i = 1; i < c.count; i++) {
        const uint16_t *p = c.rows + (i - 1) * 3, *q = c.rows + i * 3;
        bool increasing = p[0] < q[0] || (p[0] == q[0] && (p[1] < q[1] ||
                                                            (p[1] == q[1] && p[2] < q[2])));
        cr_assert(increasing, "rank %zu is out of order", i);
    }
    free(c.rows);
    space_free(s);
    free_params(params, 3);
}

Test(space, enumerate_stops_when_the_visitor_asks)
{
    const int64_t values[] = {1, 2, 3, 4};
    param_def params[2];
    params[0] = make_ints("a", values, 4);
    params[1] = make_ints("b", values, 4);
    space *s = build_ok(params, 2, NULL, 0, NULL, 0);
    collected c;
    memset(&c, 0, sizeof c);
    c.width = 2;
    c.stop_after = 5;
    cr_assert_eq(space_enumerate(s, collect, &c), 7);
    cr_assert_eq(c.count, 5);
    free(c.rows);
    space_free(s);
    free_params(params, 2);
}

/* wg in 32 .. 1024 (powers of two), with device.max_work_group_size = 256
 * and n = 4096 as constants. */
static void work_group_fixture(param_def params[1], space_constant constants[2])
{
    const int64_t sizes[] = {32, 64, 128, 256, 512, 1024};
    params[0] = make_ints("wg", sizes, 6);
    memset(constants, 0, 2 * sizeof *constants);
    constants[0].name = "device.max_work_group_size";
    constants[0].value.type = SKYTUNE_INT;
    constants[0].value.i = 256;
    constants[1].name = "n";
    constants[1].value.type = SKYTUNE_INT;
    constants[1].value.i = 4096;
}

Test(space, constants_and_device_limits)
{
    param_def params[1];
    space_constant constants[2];
    work_group_fixture(params, constants);
    const char *const constraints[] = {"wg <= device.max_work_group_size", "n % wg == 0"};
    space *s = build_ok(params, 1, constraints, 2, constants, 2);
    cr_assert_eq(space_count(s), 4);
    space_free(s);

    /* A constraint naming only constants holds or empties the space. */
    const char *const holds[] = {"n >= 1024", "wg > 32"};
    s = build_ok(params, 1, holds, 2, constants, 2);
    cr_assert_eq(space_count(s), 5);
    space_free(s);
    const char *const fails[] = {"n > 1000000", "wg > 32"};
    s = build_ok(params, 1, fails, 2, constants, 2);
    cr_assert_eq(space_count(s), 0);
    cr_assert_eq(space_cartesian_count(s), 6);
    uint16_t idx[1] = {3};
    cr_assert_not(space_is_valid(s, idx));
    uint64_t rank;
    cr_assert_eq(space_rank(s, idx, &rank), -1);
    collected c = enumerate_all(s);
    cr_assert_eq(c.count, 0);
    uint64_t out[8];
    cr_assert_eq(space_neighbours(s, idx, SPACE_HAMMING, out, 8), 0);
    space_free(s);
    free_params(params, 1);
}

/* Each combination outside the space is charged to the first constraint
 * that rules it out: here two groups, the first rejecting half of its
 * values, the second (counted over the first's valid values only) eight of
 * ten. */
Test(space, rejections_count_each_combination_once_under_its_first_constraint)
{
    const int64_t values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    param_def params[2];
    params[0] = make_ints("a", values, 10);
    params[1] = make_ints("b", values, 10);
    const char *const constraints[] = {"a < 5", "b < 2"};
    space *s = build_ok(params, 2, constraints, 2, NULL, 0);
    cr_assert_eq(space_count(s), 10);
    size_t n;
    const space_rejection *r = space_rejections(s, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(r[0].constraint, 0);
    cr_assert_str_eq(r[0].text, "a < 5");
    cr_assert_eq(r[0].combinations, 50.0, "a < 5 rules out %g", r[0].combinations);
    cr_assert_eq(r[1].constraint, 1);
    cr_assert_eq(r[1].combinations, 40.0, "b < 2 rules out %g", r[1].combinations);
    space_free(s);

    /* Nothing valid: one constraint over both parameters rules out all. */
    const char *const none[] = {"a + b > 100", "a < 5"};
    s = build_ok(params, 2, none, 2, NULL, 0);
    cr_assert_eq(space_count(s), 0);
    r = space_rejections(s, &n);
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += r[k].combinations;
    cr_assert_eq(sum, 100.0);
    cr_assert_str_eq(r[0].text, "a + b > 100");
    free_params(params, 2);
    space_free(s);
}

/* A constraint over constants alone that fails rules out everything; text
 * lines name device limits and restrictions as such. */
Test(space, rejections_text_names_device_limits_and_restrictions)
{
    param_def params[1];
    space_constant constants[2];
    work_group_fixture(params, constants);
    const char *const constraints[] = {"wg <= device.max_work_group_size", "n > 1000000"};
    space *s = build_ok(params, 1, constraints, 2, constants, 2);
    size_t n;
    const space_rejection *r = space_rejections(s, &n);
    cr_assert_eq(n, 1, "only the failing constant constraint is charged");
    cr_assert_eq(r[0].constraint, 1);
    cr_assert_eq(r[0].combinations, 6.0);
    space_free(s);

    const char *const limits[] = {"wg <= device.max_work_group_size"};
    space *base = build_ok(params, 1, limits, 1, constants, 2);
    const char *const restricts[] = {"wg != 64"};
    skytune_error err;
    cr_assert_eq(space_narrow(base, restricts, 1, NULL, 0, NULL, &s, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(s), 3);
    cr_assert(space_constraint_is_added(s, 1));
    cr_assert_not(space_constraint_is_added(s, 0));
    char text[1024];
    size_t len = space_rejections_text(s, "  ", 0, text, sizeof text);
    cr_assert_eq(len, strlen(text));
    cr_assert_str_eq(text,
                     "  2 of 6 (33.3 %) ruled out by wg <= device.max_work_group_size (a device "
                     "limit)\n"
                     "  1 of 6 (16.7 %) ruled out by restriction wg != 64\n");
    /* One line at most: it sums every bucket. */
    space_rejections_text(s, "", 1, text, sizeof text);
    cr_assert_str_eq(text, "3 of 6 (50.0 %) ruled out by 2 other constraints\n");
    space_free(s);
    space_free(base);
    free_params(params, 1);
}

Test(space, empty_when_no_combination_satisfies)
{
    const int64_t values[] = {1, 2, 3};
    param_def params[3];
    params[0] = make_ints("a", values, 3);
    params[1] = make_ints("b", values, 3);
    params[2] = make_ints("c", values, 3);
    const char *const constraints[] = {"a + b > 10", "c > 1"};
    space *s = build_ok(params, 3, constraints, 2, NULL, 0);
    cr_assert_eq(space_count(s), 0);
    cr_assert_eq(space_cartesian_count(s), 27);
    collected c = enumerate_all(s);
    cr_assert_eq(c.count, 0);
    space_free(s);
    free_params(params, 3);
}

Test(space, no_parameters_is_one_empty_configuration)
{
    space *s = build_ok(NULL, 0, NULL, 0, NULL, 0);
    cr_assert_eq(space_count(s), 1);
    cr_assert_eq(space_cartesian_count(s), 1);
    collected c = enumerate_all(s);
    cr_assert_eq(c.count, 1);
    char text[8];
    cr_assert_eq(space_config_text(s, NULL, text, sizeof text), 0);
    cr_assert_str_eq(text, "");
    skytune_error err;
    cr_assert_eq(space_parse_config(s, "", NULL, &err), 0, "%s", err.message);
    free(c.rows);
    space_free(s);
}

static int reject_odd_sum(void *ctx, const skytune_values *config, const char **why)
{
    (void)why;
    int *calls = ctx;
    (*calls)++;
    cr_assert_eq(config->count, 3);
    cr_assert_str_eq(config->items[0].name, "a");
    cr_assert_str_eq(config->items[2].name, "c");
    return (skytune_int(config, "a") + skytune_int(config, "b") + skytune_int(config, "c")) % 2 == 0;
}

Test(space, callback_sees_every_parameter)
{
    const int64_t values[] = {0, 1, 2, 3};
    param_def params[3];
    params[0] = make_ints("a", values, 4);
    params[1] = make_ints("b", values, 4);
    params[2] = make_ints("c", values, 4);
    const char *const constraints[] = {"a < 3"};
    int calls = 0;
    space_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.params = params;
    spec.n_params = 3;
    spec.constraints = constraints;
    spec.n_constraints = 1;
    spec.callback = reject_odd_sum;
    spec.callback_ctx = &calls;
    space *s = NULL;
    skytune_error err;
    cr_assert_eq(space_build(&spec, &s, &err), 0, "%s", err.message);
    /* 3 * 4 * 4 = 48 combinations pass a < 3; half have an even sum. */
    cr_assert_eq(space_count(s), 24);
    /* The expression prunes before the callback is asked. */
    cr_assert_eq(calls, 48);
    uint16_t odd[3] = {0, 0, 1}, even[3] = {1, 1, 2}, pruned[3] = {3, 1, 2};
    cr_assert_not(space_is_valid(s, odd));
    cr_assert(space_is_valid(s, even));
    cr_assert_not(space_is_valid(s, pruned));
    /* What the callback rules out is its own bucket. */
    char text[512];
    space_rejections_text(s, "", 0, text, sizeof text);
    cr_assert_str_eq(text, "24 of 64 (37.5 %) ruled out by the C constraint\n"
                           "16 of 64 (25.0 %) ruled out by a < 3\n");
    space_free(s);
    free_params(params, 3);
}

/* Rejects an odd sum, saying whether a or the others made it odd; accepts
 * a sum of 6 without a reason's help. */
static int reject_with_reasons(void *ctx, const skytune_values *config, const char **why)
{
    (void)ctx;
    int64_t a = skytune_int(config, "a"), rest = skytune_int(config, "b") + skytune_int(config, "c");
    if ((a + rest) % 2 == 0) return 1;
    if (rest == 5) return 0; /* no reason given */
    *why = a % 2 ? "a is odd" : "b + c is odd";
    return 0;
}

Test(space, the_c_constraint_rules_out_by_reason)
{
    const int64_t values[] = {0, 1, 2, 3};
    param_def params[3];
    params[0] = make_ints("a", values, 4);
    params[1] = make_ints("b", values, 4);
    params[2] = make_ints("c", values, 4);
    space_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.params = params;
    spec.n_params = 3;
    spec.callback = reject_with_reasons;
    space *s = NULL;
    skytune_error err;
    cr_assert_eq(space_build(&spec, &s, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(s), 32);
    /* Of the 32 odd sums, b + c = 5 (b, c) = (2, 3), (3, 2) with a even:
     * 2 x 2 = 4 without a reason; a odd with b + c even: 2 x 8 = 16; a even
     * with b + c odd, but not 5: 2 x 6 = 12. */
    size_t n;
    const space_rejection *r = space_rejections(s, &n);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(r[0].text, "a is odd");
    cr_expect_float_eq(r[0].combinations, 16.0, 1e-9);
    cr_assert_str_eq(r[1].text, "b + c is odd");
    cr_expect_float_eq(r[1].combinations, 12.0, 1e-9);
    cr_assert_null(r[2].text);
    cr_expect_float_eq(r[2].combinations, 4.0, 1e-9);
    char text[512];
    space_rejections_text(s, "", 0, text, sizeof text);
    cr_assert_str_eq(text, "16 of 64 (25.0 %) ruled out by the C constraint: a is odd\n"
                           "12 of 64 (18.8 %) ruled out by the C constraint: b + c is odd\n"
                           " 4 of 64 (6.2 %) ruled out by the C constraint\n");
    space_free(s);
    free_params(params, 3);
}

Test(space, is_valid_rejects_indices_out_of_range)
{
    const int64_t values[] = {1, 2};
    param_def params[2];
    params[0] = make_ints("a", values, 2);
    params[1] = make_ints("b", values, 2);
    space *s = build_ok(params, 2, NULL, 0, NULL, 0);
    uint16_t idx[2] = {1, 2};
    cr_assert_not(space_is_valid(s, idx));
    uint64_t rank;
    cr_assert_eq(space_rank(s, idx, &rank), -1);
    space_free(s);
    free_params(params, 2);
}

Test(space, sampling_is_uniform)
{
    const int64_t values[] = {1, 2, 3, 4, 5};
    param_def params[3];
    params[0] = make_ints("a", values, 5);
    params[1] = make_ints("b", values, 5);
    params[2] = make_ints("c", values, 3);
    const char *const constraints[] = {"a + b <= 5", "c != a"};
    space *s = build_ok(params, 3, constraints, 2, NULL, 0);
    uint64_t count = space_count(s);
    cr_assert_gt(count, 10);
    cr_assert_lt(count, 64);
    size_t hits[64] = {0};
    pcg32 rng;
    pcg32_seed(&rng, 42u, 54u);
    const size_t draws = 200000;
    for (size_t d = 0; d < draws; d++) {
        uint64_t rank = space_sample(s, &rng);
        cr_assert_lt(rank, count);
        hits[rank]++;
    }
    double expected = (double)draws / (double)count;
    double chi2 = 0.0;
    for (uint64_t r = 0; r < count; r++) {
        cr_assert_gt(hits[r], 0, "rank %llu never drawn", (unsigned long long)r);
        double d = (double)hits[r] - expected;
        chi2 += d * d / expected;
        cr_assert_lt(d < 0 ? -d : d, expected * 0.06, "rank %llu drawn %zu times, expected %.0f",
                     (unsigned long long)r, hits[r], expected);
    }
    /* count - 1 degrees of freedom; 3x that is far in the tail. */
    cr_assert_lt(chi2, 3.0 * (double)(count - 1) + 30.0, "chi-square %.1f", chi2);
    space_free(s);
    free_params(params, 3);
}

Test(space, sampling_is_deterministic_for_a_seed)
{
    const int64_t values[] = {1, 2, 3, 4, 5, 6, 7, 8};
    param_def params[2];
    params[0] = make_ints("a", values, 8);
    params[1] = make_ints("b", values, 8);
    const char *const constraints[] = {"a * b <= 20"};
    space *s = build_ok(params, 2, constraints, 1, NULL, 0);
    pcg32 one, two;
    pcg32_seed(&one, 1234u, 5u);
    pcg32_seed(&two, 1234u, 5u);
    for (int d = 0; d < 100; d++) cr_assert_eq(space_sample(s, &one), space_sample(s, &two));
    space_free(s);
    free_params(params, 2);
}

/* ------------------------------------------------------ identity text */

Test(space, canonical_text_and_hash)
{
    param_def params[4];
    params[0] = make_expanded("wg_x", SKYTUNE_LIST, "16,32");
    params[1] = make_expanded("variant", SKYTUNE_ENUM, "naive,tiled");
    params[2] = make_expanded("alpha", SKYTUNE_FLOAT_LIST, "0.5,0.1");
    params[3] = make_expanded("layout", SKYTUNE_PERMUTATION, "TC");
    space *s = build_ok(params, 4, NULL, 0, NULL, 0);
    uint16_t idx[4] = {1, 1, 1, 1};
    char text[128];
    size_t need = space_config_text(s, idx, text, sizeof text);
    cr_assert_str_eq(text, "wg_x=32,variant=tiled,alpha=0.1,layout=CT");
    cr_assert_eq(need, strlen(text));

    /* Like snprintf: the full length is returned, the text is truncated. */
    char small[10];
    cr_assert_eq(space_config_text(s, idx, small, sizeof small), need);
    cr_assert_str_eq(small, "wg_x=32,v");
    cr_assert_eq(space_config_text(s, idx, NULL, 0), need);

    uint16_t back[4];
    skytune_error err;
    cr_assert_eq(space_parse_config(s, " layout=CT, alpha=0.10,variant=tiled ,wg_x=0x20", back,
                                    &err), 0, "%s", err.message);
    cr_assert_eq(memcmp(back, idx, sizeof idx), 0);

    /* FNV-1a 64 reference values. */
    cr_assert_eq(space_text_hash(""), 0xcbf29ce484222325ull);
    cr_assert_eq(space_text_hash("a"), 0xaf63dc4c8601ec8cull);
    cr_assert_eq(space_text_hash("foobar"), 0x85944171f73967e8ull);
    cr_assert_neq(space_text_hash("wg_x=32,variant=tiled"), space_text_hash("wg_x=32,variant=naive"));

    skytune_named_value named[4];
    space_config_values(s, idx, named);
    cr_assert_str_eq(named[1].name, "variant");
    cr_assert_str_eq(named[1].value.s, "tiled");
    cr_assert_eq(named[0].value.i, 32);
    cr_assert_float_eq(named[2].value.f, 0.1, 1e-15);

    cr_assert_eq(space_param_count(s), 4);
    cr_assert_eq(space_param_index(s, "alpha"), 2);
    cr_assert_eq(space_param_index(s, "beta"), -1);
    cr_assert_str_eq(space_param(s, 3)->name, "layout");
    cr_assert_eq(space_param(s, 3)->count, 2);
    space_free(s);
    free_params(params, 4);
}

Test(space, parse_config_errors)
{
    param_def params[2];
    params[0] = make_expanded("wg_x", SKYTUNE_LIST, "16,32");
    params[1] = make_expanded("variant", SKYTUNE_ENUM, "naive,tiled");
    space *s = build_ok(params, 2, NULL, 0, NULL, 0);
    uint16_t idx[2];
    skytune_error err;

    cr_assert_neq(space_parse_config(s, "wg_x=16,wg_y=2,variant=naive", idx, &err), 0);
    cr_assert(strstr(err.message, "unknown parameter 'wg_y'"), "%s", err.message);
    cr_assert(strstr(err.message, "wg_x, variant"), "%s", err.message);

    cr_assert_neq(space_parse_config(s, "wg_x=16", idx, &err), 0);
    cr_assert(strstr(err.message, "'variant'"), "%s", err.message);
    cr_assert(strstr(err.message, "missing"), "%s", err.message);

    cr_assert_neq(space_parse_config(s, "wg_x=64,variant=naive", idx, &err), 0);
    cr_assert(strstr(err.message, "'wg_x'"), "%s", err.message);
    cr_assert(strstr(err.message, "'64'"), "%s", err.message);
    cr_assert(strstr(err.message, "16, 32"), "%s", err.message);

    cr_assert_neq(space_parse_config(s, "wg_x=16,variant=naive,wg_x=32", idx, &err), 0);
    cr_assert(strstr(err.message, "more than once"), "%s", err.message);

    cr_assert_neq(space_parse_config(s, "wg_x=16,variant", idx, &err), 0);
    cr_assert(strstr(err.message, "name=value"), "%s", err.message);

    cr_assert_neq(space_parse_config(s, "", idx, &err), 0);
    cr_assert_neq(space_parse_config(s, "wg_x=16,,variant=naive", idx, &err), 0);
    space_free(s);
    free_params(params, 2);
}

/* ------------------------------------------------------------- errors */

Test(space, unknown_name_in_a_constraint)
{
    const int64_t values[] = {1, 2};
    param_def params[2];
    params[0] = make_ints("wg_x", values, 2);
    params[1] = make_ints("wg_y", values, 2);
    const char *const constraints[] = {"wg_x <= wg_y", "wg_x * wg_z <= 4"};
    skytune_error err;
    build_fails(params, 2, constraints, 2, NULL, 0, &err);
    cr_assert(strstr(err.message, "constraint 2 ('wg_x * wg_z <= 4'): column 8"), "%s",
              err.message);
    cr_assert(strstr(err.message, "unknown name 'wg_z'"), "%s", err.message);

    /* device.* names exist only when the caller binds them. */
    const char *const device[] = {"wg_x <= device.max_work_group_size"};
    build_fails(params, 2, device, 1, NULL, 0, &err);
    cr_assert(strstr(err.message, "constraint 1 ("), "%s", err.message);
    cr_assert(strstr(err.message, "device.max_work_group_size"), "%s", err.message);
    free_params(params, 2);
}

Test(space, syntax_error_in_a_constraint)
{
    const int64_t values[] = {1, 2};
    param_def params[1];
    params[0] = make_ints("wg_x", values, 2);
    const char *const constraints[] = {"wg_x * "};
    skytune_error err;
    build_fails(params, 1, constraints, 1, NULL, 0, &err);
    cr_assert(strstr(err.message, "constraint 1 ('wg_x * '): column "), "%s", err.message);
    free_params(params, 1);
}

Test(space, duplicate_parameter_names)
{
    const int64_t values[] = {1, 2};
    param_def params[2];
    params[0] = make_ints("wg", values, 2);
    params[1] = make_ints("wg", values, 2);
    skytune_error err;
    build_fails(params, 2, NULL, 0, NULL, 0, &err);
    cr_assert(strstr(err.message, "'wg'"), "%s", err.message);
    free_params(params, 2);
}

Test(space, huge_spaces_are_counted_without_being_materialised)
{
    skytune_tuning_param spec;
    memset(&spec, 0, sizeof spec);
    spec.kind = SKYTUNE_RANGE;
    spec.from = 0;
    spec.to = PARAM_MAX_VALUES - 1;
    spec.step = 1;
    static const char *const names[] = {"a", "b", "c", "d", "e"};
    param_def params[5];
    skytune_error err;
    for (size_t k = 0; k < 5; k++) {
        spec.name = names[k];
        cr_assert_eq(param_expand(&spec, &params[k], &err), 0, "%s", err.message);
    }
    /* 65535^4 valid configurations still have ranks. */
    space *s = build_ok(params, 4, NULL, 0, NULL, 0);
    uint64_t n = PARAM_MAX_VALUES;
    cr_assert_eq(space_count(s), n * n * n * n);
    uint16_t idx[4];
    space_unrank(s, space_count(s) - 1, idx);
    for (size_t k = 0; k < 4; k++) cr_assert_eq(idx[k], PARAM_MAX_VALUES - 1);
    uint64_t rank;
    cr_assert_eq(space_rank(s, idx, &rank), 0);
    cr_assert_eq(rank, space_count(s) - 1);
    space_free(s);

    /* A constraint pins one parameter: the Cartesian count saturates while
     * the valid count stays exact. */
    const char *const pin[] = {"e == 7"};
    s = build_ok(params, 5, pin, 1, NULL, 0);
    cr_assert_eq(space_cartesian_count(s), UINT64_MAX);
    cr_assert_eq(space_count(s), n * n * n * n);
    space_free(s);

    /* 65535^5 valid configurations cannot be numbered with 64 bits. */
    build_fails(params, 5, NULL, 0, NULL, 0, &err);
    cr_assert(strstr(err.message, "valid configurations"), "%s", err.message);
    free_params(params, 5);
}
