/* The recorded space of a dataset: its own parameter lists, restricted to
 * the configurations it holds (ran or failed).
 *
 * A skytune database of an exhaustive campaign holds exactly the valid
 * configurations of the plugin's space on that device, but it does not
 * record the constraints that made them valid (device limits, C
 * constraints). Replayed over the plain product of its parameter lists,
 * every combination the plugin ruled out would be a failure that costs an
 * evaluation, and a strategy would be judged on a space it never had. The
 * restriction is a space callback that looks a configuration up among the
 * dataset's entries, by the hash of its values' text. */
#include "replay_recorded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

struct replay_recorded_set {
    size_t count;
    uint64_t *hashes;         /* sorted */
};

/* "v1,v2,..." of the values in parameter order, hashed. */
static uint64_t values_hash(const skytune_value *const *values, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n && used < len; k++) {
        char text[128];
        value_format(values[k], text, sizeof text);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? "," : "", text);
    }
    return space_text_hash(buf);
}

static int compare_hashes(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#define KEY_TEXT 4096
#define MAX_PARAMS 64

static int is_recorded(void *ctx, const skytune_values *config, const char **why)
{
    const struct replay_recorded_set *set = ctx;
    const skytune_value *values[MAX_PARAMS];
    size_t n = config->count < MAX_PARAMS ? config->count : MAX_PARAMS;
    for (size_t k = 0; k < n; k++) values[k] = &config->items[k].value;
    char text[KEY_TEXT];
    uint64_t hash = values_hash(values, n, text, sizeof text);
    if (bsearch(&hash, set->hashes, set->count, sizeof hash, compare_hashes)) return 1;
    *why = "not among the dataset's recorded configurations";
    return 0;
}

static int build_set(replay_dataset *d, skytune_error *err)
{
    if (d->recorded) return 0;
    if (d->n_params > MAX_PARAMS)
        return err_set(err, "dataset %s: more than %d parameters", d->name, MAX_PARAMS);
    struct replay_recorded_set *set = calloc(1, sizeof *set);
    if (!set || !(set->hashes = malloc((d->n_entries ? d->n_entries : 1) * sizeof *set->hashes))) {
        free(set);
        return err_set(err, "out of memory");
    }
    char text[KEY_TEXT];
    const skytune_value *values[MAX_PARAMS];
    for (size_t e = 0; e < d->n_entries; e++) {
        for (size_t k = 0; k < d->n_params; k++) values[k] = &d->entries[e].values[k];
        set->hashes[set->count++] = values_hash(values, d->n_params, text, sizeof text);
    }
    qsort(set->hashes, set->count, sizeof *set->hashes, compare_hashes);
    d->recorded = set;
    return 0;
}

void replay_recorded_set_free(struct replay_recorded_set *set)
{
    if (!set) return;
    free(set->hashes);
    free(set);
}

int replay_recorded_definition(replay_dataset *d, space **out, skytune_error *err)
{
    *out = NULL;
    if (d->n_params == 0) return err_set(err, "dataset %s has no parameters", d->name);
    if (build_set(d, err) != 0) return -1;
    space_spec spec = {.params = d->params,
                       .n_params = d->n_params,
                       .callback = is_recorded,
                       .callback_ctx = d->recorded};
    if (space_define(&spec, out, err) != 0) return err_prefix(err, "dataset %s", d->name);
    return 0;
}
