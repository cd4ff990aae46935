/* The search space: tuning parameters × constraints, never materialised as a
 * Cartesian product.
 *
 * Parameters are split into independent groups (two parameters share a group
 * when some constraint names both). Each group's valid tuples are enumerated
 * once by depth-first search that checks every constraint as soon as the last
 * of its parameters is bound, pruning whole subtrees; a constraint naming no
 * parameter at all is checked once up front. The space is the product of the
 * groups' valid lists, so its size, uniform sampling and ranking cost nothing
 * more.
 *
 * A configuration is an array of value indices, one per parameter, in the
 * declaration order of the parameters (uint16_t idx[space_param_count()]).
 * Its rank is its position in the space's order (mixed radix over the groups,
 * the first group most significant; within a group, lexicographic in
 * parameter order), a dense 0..count-1 identity. Groups are ordered by their
 * first declared parameter, so the group holding parameter 0 is the first. Its stable identity across
 * runs and spaces is its canonical text "name=value,name=value" in
 * declaration order, and the 64-bit FNV-1a hash of that text. */
#ifndef SKYTUNE_SPACE_H
#define SKYTUNE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "params.h"
#include "pcg32.h"

typedef struct space space;

typedef struct space_constant {
    const char *name;       /* problem parameter or "device.xxx" */
    skytune_value value;
} space_constant;

/* Optional C constraint, called with every parameter bound: nonzero
 * accepts. When it rejects it may point *why at a short static text naming
 * its rule; rejections are counted by that text (space_rejections). */
typedef int (*space_callback_fn)(void *ctx, const skytune_values *config, const char **why);

/* How far the enumeration of a space has got, for a progress display. */
typedef struct space_progress {
    uint64_t checked;         /* combinations checked so far, all groups together */
    uint64_t work_limit;      /* the limit `checked` may reach */
    uint64_t valid;           /* valid tuples found so far in the group being enumerated */
    size_t group;             /* that group (from 0) */
    size_t n_groups;          /* groups of the space (dense ones need no enumeration) */
    double fraction;          /* of that group's Cartesian product covered, 0..1 */
} space_progress;

/* What enumerating a space may cost, and a way to watch and stop it. The
 * work is counted in combinations checked: every value the depth-first
 * search binds, with the constraints that can be checked there (and, at a
 * leaf, the C callback), is one. A constraint that names many parameters is
 * checked only once all of them are bound, so a space can need far more
 * work than it has valid configurations; past the limit space_build fails,
 * naming the constraint that prunes too little. */
typedef struct space_control {
    uint64_t work_limit;      /* 0: SPACE_DEFAULT_WORK_LIMIT */
    /* Called about every SPACE_PROGRESS_INTERVAL combinations, from the
     * building thread; a nonzero return stops the build, which then fails
     * with "search space: stopped ...". May be NULL. */
    int (*on_progress)(void *ctx, const space_progress *p);
    void *ctx;
} space_control;

/* About a minute of checking at the enumeration's usual pace (tens of
 * millions of combinations a second); the spaces of the bundled plugins need
 * a few million at most. */
#define SPACE_DEFAULT_WORK_LIMIT ((uint64_t)1000000000)
#define SPACE_PROGRESS_INTERVAL ((uint64_t)1 << 16)

typedef struct space_spec {
    const param_def *params;          /* copied by space_build */
    size_t n_params;
    const char *const *constraints;   /* expression texts */
    size_t n_constraints;
    const space_constant *constants;  /* names usable in expressions; copied */
    size_t n_constants;
    space_callback_fn callback;       /* may be NULL */
    void *callback_ctx;
    const space_control *control;     /* NULL: the default limit, no progress */
} space_spec;

/* Parse the constraints and enumerate the valid tuples. A constraint that
 * does not parse fails with "constraint N ('<text>'): column C: ...". A
 * space with no valid configuration is not an error (count 0). Also fails
 * when one group of linked parameters has more than 50 million valid tuples
 * (or they would take more than 512 MiB), when the number of valid
 * configurations does not fit in 64 bits (ranks could not number them),
 * when the enumeration needs more work than spec->control allows (naming
 * the constraint that prunes too little), and when its on_progress asks to
 * stop. */
int space_build(const space_spec *spec, space **out, skytune_error *err);
void space_free(space *s);

/* The same checks and parsing as space_build, without the enumeration: a
 * space's definition, to be narrowed (space_narrow) or completed
 * (space_from_definition) before it is used, so that --only and --restrict
 * cut the work of enumerating it. Only space_param_count, space_param,
 * space_param_index, space_constraint_count, space_constraint_text,
 * space_is_definition, space_narrow, space_from_definition and space_free
 * accept a definition. */
int space_define(const space_spec *spec, space **out, skytune_error *err);
bool space_is_definition(const space *s);

/* A new space from this one (built or a definition): the same parameters,
 * constraints, constants and callback, with the value lists narrowed by
 * `only` ("name=v1,v2,...", the values kept in the parameter's own order)
 * and the `restricts` expressions added as constraints, enumerated under
 * `control` (NULL: the default limit). Fails naming an unknown parameter
 * (listing the valid ones), a value not in a parameter's list, or a
 * restriction that does not parse ("--restrict 'text': column C: ..."), and
 * as space_build does. */
int space_narrow(const space *s, const char *const *restricts, size_t n_restricts,
                 const char *const *only, size_t n_only, const space_control *control,
                 space **out, skytune_error *err);

/* The enumerated space of a definition (space_narrow with nothing to narrow). */
int space_from_definition(const space *definition, const space_control *control, space **out,
                          skytune_error *err);

size_t space_param_count(const space *s);
const param_def *space_param(const space *s, size_t k);
int space_param_index(const space *s, const char *name); /* -1 when unknown */

/* The constraint expressions the space was built with, in order. */
size_t space_constraint_count(const space *s);
const char *space_constraint_text(const space *s, size_t k);

/* Number of valid configurations (saturates at UINT64_MAX; space_build
 * refuses a space where it would, so in practice it is exact). */
uint64_t space_count(const space *s);
/* Size of the Cartesian product of the value lists (saturates). */
uint64_t space_cartesian_count(const space *s);

/* Why the rest of the Cartesian product is not in the space. While a space
 * is enumerated, every combination it rules out is counted once, under the
 * constraint that rejected it first in the search's order (the groups in
 * order, each depth-first; a rejection at a partial binding counts every
 * completion of it), or under the C callback. A constraint that names no
 * parameter and fails rules out everything. The counts add up to
 * space_cartesian_count() - space_count() (as reals: exact below 2^53),
 * except where an empty group stopped the enumeration: the groups after it
 * count nothing, having no valid combination to stand for. */
#define SPACE_CALLBACK SIZE_MAX
#define SPACE_MAX_REASONS 16
typedef struct space_rejection {
    size_t constraint;       /* as space_constraint_text; SPACE_CALLBACK: the C callback */
    /* The constraint's expression; for the callback the reason it gave,
     * or NULL for the rejections it gave none (or past SPACE_MAX_REASONS
     * distinct ones): one SPACE_CALLBACK bucket per reason. */
    const char *text;
    double combinations;     /* of the Cartesian product it ruled out */
} space_rejection;

/* The buckets that ruled out anything, most first (ties in constraint
 * order, the callback last); *n of them. Owned by the space; none for a
 * definition. */
const space_rejection *space_rejections(const space *s, size_t *n);

/* Whether constraint k was added by space_narrow (a restriction) rather
 * than being the definition's own. */
bool space_constraint_is_added(const space *s, size_t k);
/* Whether constraint k reads a constant whose name starts with prefix
 * ("device." for the device's limits). */
bool space_constraint_reads(const space *s, size_t k, const char *prefix);

/* Every constraint (and the callback) holds. idx need not be in the space's
 * enumerated order; works for any index array within the value lists. */
bool space_is_valid(const space *s, const uint16_t *idx);

/* Rank of a valid configuration; returns -1 (no message) when invalid. */
int space_rank(const space *s, const uint16_t *idx, uint64_t *rank);
/* The configuration at `rank` (< space_count). */
void space_unrank(const space *s, uint64_t rank, uint16_t *idx);

/* A uniformly random valid configuration's rank. count must be > 0. */
uint64_t space_sample(const space *s, pcg32 *rng);

/* Visit every valid configuration in rank order; stop early when visit
 * returns nonzero (that value is returned). Returns -1 without visiting
 * when scratch memory cannot be allocated (only for more than 64
 * parameters). */
int space_enumerate(const space *s, int (*visit)(void *ctx, const uint16_t *idx), void *ctx);

typedef enum space_neighbourhood {
    SPACE_HAMMING = 0,   /* any one parameter changed to any other value */
    SPACE_ADJACENT = 1   /* one parameter moved to the previous or next value */
} space_neighbourhood;

/* Valid neighbours of idx, written as ranks into out (at most cap of them,
 * in a deterministic order: parameter by parameter, value by value).
 * Returns how many there are in total (may exceed cap). */
size_t space_neighbours(const space *s, const uint16_t *idx, space_neighbourhood kind,
                        uint64_t *out, size_t cap);

/* Canonical text "a=1,b=tiled". Returns the length it needs (like snprintf). */
size_t space_config_text(const space *s, const uint16_t *idx, char *buf, size_t len);
/* Parse canonical text (any order of names; every parameter required).
 * Fails naming the unknown parameter or the value not in its list. */
int space_parse_config(const space *s, const char *text, uint16_t *idx, skytune_error *err);
uint64_t space_text_hash(const char *text);

/* Fill `out` (space_param_count items) with the configuration's values; the
 * names and string values point into the space. */
void space_config_values(const space *s, const uint16_t *idx, skytune_named_value *out);

#endif
