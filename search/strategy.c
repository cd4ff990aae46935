#include "strategy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nearest.h"
#include "quote.h"

extern const strategy_ops strategy_exhaustive;
extern const strategy_ops strategy_random;
extern const strategy_ops strategy_hill_climbing;
extern const strategy_ops strategy_prune;
extern const strategy_ops strategy_evolutionary;
extern const strategy_ops strategy_annealing;
extern const strategy_ops strategy_bayes;

static const strategy_ops *const registry[] = {
    &strategy_random,
    &strategy_exhaustive,
    &strategy_hill_climbing,
    &strategy_evolutionary,
    &strategy_annealing,
    &strategy_prune,
    &strategy_bayes,
};

const strategy_ops *const *strategy_registry(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const strategy_ops *strategy_find(const char *name)
{
    for (size_t k = 0; k < sizeof registry / sizeof registry[0]; k++)
        if (strcmp(registry[k]->name, name) == 0) return registry[k];
    return NULL;
}

/* bayes: the highest mean fraction of the optimum at 100 and 200 evaluations
 * on the recorded GPU spaces (docs/strategies.md, "Choosing the default"). */
bool strategy_reads_budget(const char *name)
{
    const strategy_ops *ops = strategy_find(name);
    return !ops || ops->reads_budget;
}

const char *strategy_default_name(void)
{
    return "bayes";
}

struct strategy {
    const strategy_ops *ops;
    void *state;
    strategy_options options;
    char *storage[32]; /* option values given by the user, owned */
    char phase[2][256];  /* the phase line reported last ([0]) and the new one */
};

static const char *option_value(const strategy_options *o, const char *name)
{
    for (size_t k = 0; k < o->count; k++)
        if (strcmp(o->names[k], name) == 0) return o->values[k];
    return NULL;
}

double strategy_option_double(const strategy_options *o, const char *name)
{
    const char *v = option_value(o, name);
    return v ? strtod(v, NULL) : 0.0;
}

int64_t strategy_option_int(const strategy_options *o, const char *name)
{
    const char *v = option_value(o, name);
    return v ? (int64_t)strtoll(v, NULL, 10) : 0;
}

const char *strategy_option_string(const strategy_options *o, const char *name)
{
    const char *v = option_value(o, name);
    return v ? v : "";
}

static int is_number(const char *text)
{
    char *end;
    errno = 0;
    strtod(text, &end);
    return *text && *end == '\0' && errno == 0;
}

const char *strategy_nearest_hint(const char *name, char *buf, size_t len)
{
    const char *names[sizeof registry / sizeof registry[0]];
    for (size_t k = 0; k < sizeof registry / sizeof registry[0]; k++) names[k] = registry[k]->name;
    return nearest_hint(name, names, sizeof names / sizeof names[0], NULL, buf, len);
}

static void list_strategies(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof registry / sizeof registry[0] && used < len - 1; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", registry[k]->name);
}

static void list_options(const strategy_ops *ops, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const strategy_option *o = ops->options; o && o->name && used < len - 1; o++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s (default %s)", used ? ", " : "",
                                 o->name, o->default_value);
    if (used == 0) snprintf(buf, len, "none");
}

void strategy_free(strategy *s)
{
    if (!s) return;
    if (s->state) s->ops->destroy(s->state);
    for (size_t k = 0; k < 32; k++) free(s->storage[k]);
    free(s);
}

int strategy_create(const char *name, const strategy_setup *setup, const char *const *settings,
                    size_t n_settings, strategy **out, skytune_error *err)
{
    const strategy_ops *ops = strategy_find(name);
    if (!ops) {
        char known[256];
        list_strategies(known, sizeof known);
        char shown[QUOTE_TEXT], hint[96];
        return err_set(err, "--strategy: unknown strategy '%s'%s; valid: %s",
                       quote_text(name, shown, sizeof shown),
                       strategy_nearest_hint(name, hint, sizeof hint), known);
    }
    bool selects = (setup->parts > 1) || setup->ranks;
    if (selects && ops != &strategy_exhaustive)
        return err_set(err, "strategy %s searches the whole space: only exhaustive measures %s",
                       name, setup->ranks ? "a given list of configurations"
                                          : "a part of a space (a shard of a campaign)");
    if (setup->prior && !ops->reads_prior)
        return err_set(err, "strategy %s makes no use of a warm start (--warm-start); bayes does",
                       name);
    if (setup->parts > 1 && setup->part >= setup->parts)
        return err_set(err, "part %u of a space split in %u does not exist (parts count from 0)",
                       setup->part, setup->parts);
    strategy *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->ops = ops;
    for (const strategy_option *o = ops->options; o && o->name && s->options.count < 32; o++) {
        s->options.names[s->options.count] = o->name;
        s->options.values[s->options.count] = o->default_value;
        s->options.count++;
    }
    for (size_t k = 0; k < n_settings; k++) {
        const char *eq = strchr(settings[k], '=');
        size_t slot = s->options.count;
        if (eq)
            for (size_t j = 0; j < s->options.count; j++)
                if (strlen(s->options.names[j]) == (size_t)(eq - settings[k]) &&
                    strncmp(s->options.names[j], settings[k], (size_t)(eq - settings[k])) == 0)
                    slot = j;
        if (!eq || slot == s->options.count) {
            char known[512];
            list_options(ops, known, sizeof known);
            strategy_free(s);
            char shown[QUOTE_TEXT];
            return err_set(err, "--strategy-opt '%s': strategy %s has options: %s",
                           quote_text(settings[k], shown, sizeof shown), name, known);
        }
        const char *value = eq + 1;
        if (is_number(s->options.values[slot]) && !is_number(value)) {
            char shown[QUOTE_TEXT];
            /* The message first: the option's name lives in s. */
            err_set(err, "--strategy-opt '%s': %s wants a number",
                    quote_text(settings[k], shown, sizeof shown), s->options.names[slot]);
            strategy_free(s);
            return -1;
        }
        free(s->storage[slot]);
        s->storage[slot] = strdup(value);
        if (!s->storage[slot]) {
            strategy_free(s);
            return err_set(err, "out of memory");
        }
        s->options.values[slot] = s->storage[slot];
    }
    if (ops->create(setup, &s->options, &s->state, err) != 0) {
        s->state = NULL;
        strategy_free(s);
        return err_prefix(err, "strategy %s", name);
    }
    *out = s;
    return 0;
}

bool strategy_prior_lookup(const strategy_prior *p, uint64_t rank, double *position)
{
    size_t lo = 0, hi = p->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->count || p->ranks[lo] != rank) return false;
    *position = p->position[lo];
    return true;
}

strategy_answer strategy_ask(strategy *s, uint64_t *rank)
{
    return s->ops->ask(s->state, rank);
}

void strategy_tell(strategy *s, uint64_t rank, double objective)
{
    s->ops->tell(s->state, rank, objective);
}

size_t strategy_upcoming(strategy *s, uint64_t *ranks, size_t max)
{
    if (!s->ops->upcoming || max == 0) return 0;
    return s->ops->upcoming(s->state, ranks, max);
}

const char *strategy_phase_change(strategy *s)
{
    if (!s->ops->describe_phase) return NULL;
    s->phase[1][0] = '\0';
    s->ops->describe_phase(s->state, s->phase[1], sizeof s->phase[1]);
    if (!s->phase[1][0] || strcmp(s->phase[0], s->phase[1]) == 0) return NULL;
    memcpy(s->phase[0], s->phase[1], sizeof s->phase[0]);
    return s->phase[0];
}

const char *strategy_name(const strategy *s)
{
    return s->ops->name;
}

size_t strategy_settings_text(const strategy *s, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < s->options.count; k++)
        used += (size_t)snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
                                 "%s%s=%s", k ? "," : "", s->options.names[k],
                                 s->options.values[k]);
    return used;
}
