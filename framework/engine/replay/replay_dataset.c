/* The recorded dataset: freeing it, its space, and what its readers share
 * while they fill one. See replay_dataset.h. */
#include "replay_dataset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_recorded.h"
#include "value.h"

void replay_free(replay_dataset *d)
{
    if (!d) return;
    for (size_t k = 0; k < d->n_params; k++) param_free(&d->params[k]);
    free(d->params);
    for (size_t e = 0; e < d->n_entries; e++) {
        if (!d->entries[e].values) continue;
        for (size_t k = 0; k < d->n_params; k++) value_clear(&d->entries[e].values[k]);
        free(d->entries[e].values);
    }
    free(d->entries);
    free(d->name);
    replay_recorded_set_free(d->recorded);
    free(d);
}

int replay_dataset_space(const replay_dataset *d, space **out, skytune_error *err)
{
    *out = NULL;
    if (d->n_params == 0) return err_set(err, "dataset %s has no parameters", d->name);
    space_spec spec = {.params = d->params, .n_params = d->n_params};
    if (space_build(&spec, out, err) != 0) return err_prefix(err, "dataset %s", d->name);
    return 0;
}

replay_entry *replay_dataset_add_entry(replay_dataset *d, size_t *capacity)
{
    if (d->n_entries == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 256;
        replay_entry *grown = realloc(d->entries, grown_capacity * sizeof *grown);
        if (!grown) return NULL;
        d->entries = grown;
        *capacity = grown_capacity;
    }
    replay_entry *e = &d->entries[d->n_entries];
    memset(e, 0, sizeof *e);
    e->values = calloc(d->n_params ? d->n_params : 1, sizeof *e->values);
    if (!e->values) return NULL;
    d->n_entries++;
    return e;
}

int replay_dataset_param_index(const replay_dataset *d, const char *name)
{
    for (size_t k = 0; k < d->n_params; k++)
        if (d->params[k].name && strcmp(d->params[k].name, name) == 0) return (int)k;
    return -1;
}

void replay_value_set_free(replay_value_set *s)
{
    for (size_t k = 0; k < s->count; k++) value_clear(&s->items[k]);
    free(s->items);
    memset(s, 0, sizeof *s);
}

int replay_value_set_add(replay_value_set *s, const skytune_value *v)
{
    for (size_t k = 0; k < s->count; k++)
        if (value_equal(&s->items[k], v)) return 0;
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 16;
        skytune_value *grown = realloc(s->items, capacity * sizeof *grown);
        if (!grown) return -1;
        s->items = grown;
        s->capacity = capacity;
    }
    if (value_copy(&s->items[s->count], v) != 0) return -1;
    s->count++;
    return 0;
}

static int compare_numbers(const void *a, const void *b)
{
    const skytune_value *x = a, *y = b;
    double fx = x->type == SKYTUNE_FLOAT ? x->f : (double)x->i;
    double fy = y->type == SKYTUNE_FLOAT ? y->f : (double)y->i;
    if (x->type != SKYTUNE_FLOAT && y->type != SKYTUNE_FLOAT) return (x->i > y->i) - (x->i < y->i);
    return (fx > fy) - (fx < fy);
}

int replay_dataset_params_from_sets(const char *path, replay_dataset *d, replay_value_set *sets,
                                    skytune_error *err)
{
    for (size_t k = 0; k < d->n_params; k++) {
        param_def *p = &d->params[k];
        replay_value_set *s = &sets[k];
        if (p->type != SKYTUNE_STRING) qsort(s->items, s->count, sizeof *s->items, compare_numbers);
        char *name = p->name;
        skytune_type type = p->type;
        skytune_error param_err = {0};
        /* p holds only its name so far; param_from_values fills it afresh. */
        memset(p, 0, sizeof *p);
        int rc = param_from_values(name, type, s->items, s->count, p, &param_err);
        free(name);
        if (rc != 0) return err_set(err, "%s: %s", path, param_err.message);
    }
    return 0;
}

bool replay_is_kernel_time(double ns)
{
    return ns >= REPLAY_MIN_KERNEL_NS && isfinite(ns);
}

bool replay_is_phase_time(double s)
{
    return s >= 0.0 && isfinite(s);
}

const char *replay_value_text(const skytune_value *v, char *number, size_t len)
{
    if (v->type == SKYTUNE_STRING) return v->s ? v->s : "";
    value_format(v, number, len);
    return number;
}
