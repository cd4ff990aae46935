#include "campaign_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "nearest.h"
#include "quantity.h"
#include "quote.h"
#include "sweep_values.h"

/* A reader over one parsed YAML document. */
typedef struct reader {
    campaign_file *f;
    yaml_document_t doc;
    skytune_error *err;
    size_t device;             /* the device entry being read */
} reader;

typedef int (*key_handler)(reader *r, const char *key, yaml_node_t *value);

typedef struct key_entry {
    const char *name;
    key_handler handle;
} key_entry;

static int line_of(const yaml_node_t *n)
{
    return (int)n->start_mark.line + 1;
}

static int vfail(const campaign_file *f, int line, skytune_error *err, const char *fmt,
                 va_list ap)
{
    char text[sizeof err->message];
    vsnprintf(text, sizeof text, fmt, ap);
    if (line > 0) return err_set(err, "%s:%d: %s", f->name, line, text);
    return err_set(err, "%s: %s", f->name, text);
}

int campaign_file_err(const campaign_file *f, int line, skytune_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(f, line, err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "FILE:LINE: key 'K': ..." about the node n. */
static int fail_at(reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
    SKYTUNE_PRINTF(4, 5);
static int fail_at(reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    char text[sizeof r->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return campaign_file_err(r->f, n ? line_of(n) : 0, r->err, "key '%s': %s", key, text);
}

static yaml_node_t *node(reader *r, int id)
{
    return yaml_document_get_node(&r->doc, id);
}

static const char *node_kind(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE     ? "a single value"
           : n->type == YAML_SEQUENCE_NODE ? "a list"
           : n->type == YAML_MAPPING_NODE  ? "a mapping"
                                           : "nothing";
}

/* The text of a scalar node, or a message saying what was expected. */
static const char *scalar(reader *r, yaml_node_t *n, const char *key, const char *expected)
{
    if (n->type != YAML_SCALAR_NODE) {
        fail_at(r, n, key, "expected %s, got %s", expected, node_kind(n));
        return NULL;
    }
    const char *text = (const char *)n->data.scalar.value;
    if (n->data.scalar.length != strlen(text)) {
        fail_at(r, n, key, "the value holds a NUL character");
        return NULL;
    }
    return text;
}

static int take_text(reader *r, yaml_node_t *n, const char *key, located_text *out)
{
    const char *text = scalar(r, n, key, "a text");
    if (!text) return -1;
    if (!*text) return fail_at(r, n, key, "must not be empty");
    free(out->text);
    out->text = strdup(text);
    out->line = line_of(n);
    return out->text ? 0 : fail_at(r, n, key, "out of memory");
}

static int take_count(reader *r, yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
                      uint64_t *out)
{
    const char *text = scalar(r, n, key, "a whole number");
    if (!text) return -1;
    uint64_t v;
    if (quantity_count(text, &v) != 0 || v < min || v > max)
        return fail_at(r, n, key, "'%s' is not a whole number from %llu to %llu", text,
                       (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

static int take_duration(reader *r, yaml_node_t *n, const char *key, double *out)
{
    const char *text = scalar(r, n, key, QUANTITY_DURATION_HELP);
    if (!text) return -1;
    if (quantity_duration(text, out) != 0 || !(*out > 0))
        return fail_at(r, n, key, "'%s' is not %s, longer than 0", text, QUANTITY_DURATION_HELP);
    return 0;
}

/* YAML's yes and no spellings are taken as well as true and false: a
 * YAML 1.1 reader such as libyaml's users expect them to be booleans. */
static int take_flag(reader *r, yaml_node_t *n, const char *key, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    const char *text = scalar(r, n, key, "true or false");
    if (!text) return -1;
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
        if (strcasecmp(text, yes[k]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(text, no[k]) == 0) {
            *out = false;
            return 0;
        }
    }
    return fail_at(r, n, key, "'%s' is not true or false", text);
}

/* A single text or a list of texts, appended to *list. */
static int take_texts(reader *r, yaml_node_t *n, const char *key, located_text **list,
                      size_t *count)
{
    yaml_node_item_t *begin = NULL, *end = NULL;
    int one = 0;
    if (n->type == YAML_SEQUENCE_NODE) {
        begin = n->data.sequence.items.start;
        end = n->data.sequence.items.top;
    } else if (n->type == YAML_SCALAR_NODE) {
        one = 1;
    } else {
        return fail_at(r, n, key, "expected a text or a list of texts, got %s", node_kind(n));
    }
    size_t add = one ? 1 : (size_t)(end - begin);
    located_text *grown = realloc(*list, (*count + add + 1) * sizeof *grown);
    if (!grown) return fail_at(r, n, key, "out of memory");
    *list = grown;
    for (size_t k = 0; k < add; k++) {
        yaml_node_t *item = one ? n : node(r, begin[k]);
        grown[*count] = (located_text){0};
        if (take_text(r, item, key, &grown[*count]) != 0) return -1;
        (*count)++;
    }
    return 0;
}

/* Walks a mapping's pairs, refusing keys given twice and keys not in the
 * table (naming the valid ones). */
static int read_mapping(reader *r, yaml_node_t *map, const char *where, const key_entry *keys,
                        size_t n_keys)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(r, map, where, "expected a mapping of keys to values, got %s",
                       node_kind(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node(r, p->key);
        const char *name = scalar(r, k, where, "a key");
        if (!name) return -1;
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *earlier = node(r, q->key);
            if (earlier->type == YAML_SCALAR_NODE &&
                strcmp((const char *)earlier->data.scalar.value, name) == 0)
                return fail_at(r, k, name, "given twice (first on line %d)", line_of(earlier));
        }
        size_t found = n_keys;
        for (size_t j = 0; j < n_keys; j++)
            if (strcmp(keys[j].name, name) == 0) found = j;
        if (found == n_keys) {
            char valid[600] = "";
            size_t used = 0;
            for (size_t j = 0; j < n_keys && used < sizeof valid; j++)
                used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", j ? ", " : "",
                                         keys[j].name);
            char full[300], hint[160];
            if (strcmp(where, "(top level)") == 0)
                snprintf(full, sizeof full, "%s", name);
            else
                snprintf(full, sizeof full, "%s.%s", where, name);
            const char *names[64];
            size_t n_names = 0;
            for (; n_names < n_keys && n_names < 64; n_names++) names[n_names] = keys[n_names].name;
            return fail_at(r, k, full, "unknown key%s; valid keys%s%s are %s",
                           nearest_hint(name, names, n_names, NULL, hint, sizeof hint),
                           strcmp(where, "(top level)") ? " of " : "",
                           strcmp(where, "(top level)") ? where : "", valid);
        }
        if (keys[found].handle(r, name, node(r, p->value)) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- keys */

static int on_plugin(reader *r, const char *key, yaml_node_t *v)
{
    return take_text(r, v, key, &r->f->plugin);
}

static int on_preset(reader *r, const char *key, yaml_node_t *v)
{
    return take_text(r, v, key, &r->f->preset);
}

/* One problem parameter: a value, a list (with "..." for a progression) or a
 * range {from, to, step | times}. */
static int read_sweep(reader *r, const char *name, yaml_node_t *v, sweep_param *p)
{
    char key[300];
    snprintf(key, sizeof key, "problem.%s", name);
    sweep_builder b;
    sweep_builder_init(&b);
    int rc = 0;
    skytune_error why;
    if (v->type == YAML_SCALAR_NODE) {
        const char *text = scalar(r, v, key, "a value");
        rc = !text ? -1 : sweep_builder_add(&b, text, line_of(v), &why);
        if (rc != 0 && text) fail_at(r, v, key, "%s", why.message);
    } else if (v->type == YAML_SEQUENCE_NODE) {
        p->swept = true;
        yaml_node_item_t *it = v->data.sequence.items.start;
        if (it == v->data.sequence.items.top) {
            sweep_builder_free(&b);
            return fail_at(r, v, key, "an empty list sweeps nothing: give at least one value");
        }
        for (; it < v->data.sequence.items.top && rc == 0; it++) {
            yaml_node_t *item = node(r, *it);
            const char *text = scalar(r, item, key, "a value in the list");
            if (!text) {
                rc = -1;
            } else if (item->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                       (strcmp(text, "...") == 0 || strcmp(text, "\xe2\x80\xa6") == 0)) {
                rc = sweep_builder_ellipsis(&b, line_of(item), &why);
                if (rc != 0) fail_at(r, item, key, "%s", why.message);
            } else {
                rc = sweep_builder_add(&b, text, line_of(item), &why);
                if (rc != 0) fail_at(r, item, key, "%s", why.message);
            }
        }
        if (rc == 0 && (rc = sweep_builder_finish(&b, &why)) != 0)
            fail_at(r, v, key, "%s", why.message);
    } else {
        p->swept = true;
        const char *from = NULL, *to = NULL, *step = NULL, *times = NULL;
        for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
             q++) {
            yaml_node_t *k = node(r, q->key);
            const char *kn = scalar(r, k, key, "a key");
            if (!kn) {
                sweep_builder_free(&b);
                return -1;
            }
            char sub[340];
            snprintf(sub, sizeof sub, "%s.%s", key, kn);
            const char *text = scalar(r, node(r, q->value), sub, "a number");
            if (!text) {
                sweep_builder_free(&b);
                return -1;
            }
            if (strcmp(kn, "from") == 0) from = text;
            else if (strcmp(kn, "to") == 0) to = text;
            else if (strcmp(kn, "step") == 0) step = text;
            else if (strcmp(kn, "times") == 0) times = text;
            else {
                sweep_builder_free(&b);
                return fail_at(r, k, sub, "unknown key; a range has from, to, and step or times");
            }
        }
        if (!from || !to || (!step == !times)) {
            sweep_builder_free(&b);
            return fail_at(r, v, key,
                           "a range needs from, to, and one of step (add) or times (multiply), "
                           "e.g. {from: 2, to: 4096, times: 2}");
        }
        rc = sweep_builder_range(&b, from, to, step ? step : times, times != NULL, line_of(v),
                                 &why);
        if (rc != 0) fail_at(r, v, key, "%s", why.message);
    }
    if (rc == 0) {
        p->values = sweep_builder_take(&b, &p->count);
        if (!p->values) rc = fail_at(r, v, key, "out of memory");
    }
    sweep_builder_free(&b);
    return rc;
}

static int on_problem(reader *r, const char *key, yaml_node_t *v)
{
    campaign_file *f = r->f;
    if (v->type != YAML_MAPPING_NODE)
        return fail_at(r, v, key, "expected a mapping of problem parameters to values or sweeps, "
                                  "got %s",
                       node_kind(v));
    f->problem_line = line_of(v);
    size_t n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
    f->params = calloc(n + 1, sizeof *f->params);
    if (!f->params) return fail_at(r, v, key, "out of memory");
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(r, p->key);
        const char *name = scalar(r, k, key, "a parameter name");
        if (!name) return -1;
        for (size_t j = 0; j < f->n_params; j++)
            if (strcmp(f->params[j].name, name) == 0)
                return fail_at(r, k, name, "problem parameter given twice (first on line %d)",
                               f->params[j].line);
        sweep_param *sp = &f->params[f->n_params];
        sp->name = strdup(name);
        sp->line = line_of(k);
        f->n_params++;
        if (!sp->name) return fail_at(r, k, key, "out of memory");
        if (read_sweep(r, name, node(r, p->value), sp) != 0) return -1;
    }
    return 0;
}

static int on_strategy(reader *r, const char *key, yaml_node_t *v)
{
    return take_text(r, v, key, &r->f->strategy);
}

static int on_strategy_options(reader *r, const char *key, yaml_node_t *v)
{
    campaign_file *f = r->f;
    if (v->type != YAML_MAPPING_NODE)
        return fail_at(r, v, key, "expected a mapping of option names to values, got %s",
                       node_kind(v));
    size_t n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
    f->strategy_opts = calloc(n + 1, sizeof *f->strategy_opts);
    if (!f->strategy_opts) return fail_at(r, v, key, "out of memory");
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        const char *name = scalar(r, node(r, p->key), key, "an option name");
        if (!name) return -1;
        char sub[300];
        snprintf(sub, sizeof sub, "%s.%s", key, name);
        const char *value = scalar(r, node(r, p->value), sub, "a value");
        if (!value) return -1;
        size_t len = strlen(name) + strlen(value) + 2;
        char *kv = malloc(len);
        if (!kv) return fail_at(r, v, key, "out of memory");
        snprintf(kv, len, "%s=%s", name, value);
        f->strategy_opts[f->n_strategy_opts++] = (located_text){kv, line_of(node(r, p->key))};
    }
    return 0;
}

static int on_restrict(reader *r, const char *key, yaml_node_t *v)
{
    return take_texts(r, v, key, &r->f->restricts, &r->f->n_restricts);
}

static int on_only(reader *r, const char *key, yaml_node_t *v)
{
    campaign_file *f = r->f;
    if (v->type != YAML_MAPPING_NODE)
        return fail_at(r, v, key, "expected a mapping of tuning parameters to lists of values, "
                                  "got %s",
                       node_kind(v));
    size_t n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
    f->only = calloc(n + 1, sizeof *f->only);
    if (!f->only) return fail_at(r, v, key, "out of memory");
    for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(r, p->key);
        const char *name = scalar(r, k, key, "a parameter name");
        if (!name) return -1;
        char sub[300];
        snprintf(sub, sizeof sub, "%s.%s", key, name);
        located_text *values = NULL;
        size_t count = 0;
        int rc = take_texts(r, node(r, p->value), sub, &values, &count);
        size_t len = strlen(name) + 2;
        for (size_t j = 0; j < count; j++) len += strlen(values[j].text) + 1;
        char *joined = rc == 0 ? malloc(len) : NULL;
        if (joined) {
            size_t used = (size_t)snprintf(joined, len, "%s=", name);
            for (size_t j = 0; j < count; j++)
                used += (size_t)snprintf(joined + used, len - used, "%s%s", j ? "," : "",
                                         values[j].text);
        }
        for (size_t j = 0; j < count; j++) free(values[j].text);
        free(values);
        if (rc != 0) return -1;
        if (!joined) return fail_at(r, k, sub, "out of memory");
        f->only[f->n_only++] = (only_param){strdup(name), line_of(k), joined};
    }
    return 0;
}

static int on_budget(reader *r, const char *key, yaml_node_t *v)
{
    return take_count(r, v, key, 1, 1000000000000000ull, &r->f->budget);
}

static int on_time_limit(reader *r, const char *key, yaml_node_t *v)
{
    return take_duration(r, v, key, &r->f->time_limit_s);
}

static int on_target(reader *r, const char *key, yaml_node_t *v)
{
    const char *text = scalar(r, v, key, QUANTITY_TARGET_HELP);
    if (!text) return -1;
    if (quantity_target(text, &r->f->target_ns, &r->f->target_gflops) != 0)
        return fail_at(r, v, key, "'%s' is not %s", text, QUANTITY_TARGET_HELP);
    return 0;
}

static int on_runs(reader *r, const char *key, yaml_node_t *v)
{
    uint64_t runs;
    if (take_count(r, v, key, 1, 100000, &runs) != 0) return -1;
    r->f->runs = (unsigned)runs;
    return 0;
}

static int on_seed(reader *r, const char *key, yaml_node_t *v)
{
    return take_count(r, v, key, 0, UINT64_MAX, &r->f->seed);
}

static int on_stop_when_gain_below(reader *r, const char *key, yaml_node_t *v)
{
    const char *text = scalar(r, v, key, QUANTITY_FRACTION_HELP);
    if (!text) return -1;
    if (quantity_fraction(text, &r->f->gain_below) != 0)
        return fail_at(r, v, key, "'%s' is not %s", text, QUANTITY_FRACTION_HELP);
    return 0;
}

static int on_transfers(reader *r, const char *key, yaml_node_t *v)
{
    r->f->transfers_line = line_of(v);
    return take_flag(r, v, key, &r->f->transfers);
}

static int on_campaign_budget(reader *r, const char *key, yaml_node_t *v)
{
    return take_count(r, v, key, 1, 1000000000000000ull, &r->f->campaign_budget);
}

static int on_campaign_time_limit(reader *r, const char *key, yaml_node_t *v)
{
    return take_duration(r, v, key, &r->f->campaign_time_limit_s);
}

/* SLURM's own spellings are checked by sbatch; here only that each is one
 * line of printable text, so it cannot break out of its #SBATCH line. */
static int take_sbatch_text(reader *r, yaml_node_t *v, const char *key, char **out)
{
    const char *text = scalar(r, v, key, "a text");
    if (!text) return -1;
    for (const char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return fail_at(r, v, key, "must be one line of printable text");
    if (!*text) return fail_at(r, v, key, "must not be empty");
    free(*out);
    *out = strdup(text);
    return *out ? 0 : fail_at(r, v, key, "out of memory");
}

static int on_device_constraint(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "devices.slurm.constraint",
                            &r->f->placements[r->device].constraint);
}

static int on_device_partition(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "devices.slurm.partition",
                            &r->f->placements[r->device].partition);
}

static int on_device_gres(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "devices.slurm.gres", &r->f->placements[r->device].gres);
}

static int on_device_slurm(reader *r, const char *key, yaml_node_t *v)
{
    static const key_entry keys[] = {{"constraint", on_device_constraint},
                                     {"partition", on_device_partition},
                                     {"gres", on_device_gres}};
    r->f->placements[r->device].line = line_of(v);
    if (read_mapping(r, v, "devices.slurm", keys, sizeof keys / sizeof keys[0]) != 0) return -1;
    if (v->data.mapping.pairs.start == v->data.mapping.pairs.top)
        return fail_at(r, v, "devices.slurm", "is empty: give constraint, partition or gres");
    return 0;
}

static int on_device_selector(reader *r, const char *key, yaml_node_t *v)
{
    return take_text(r, v, "devices.device", &r->f->devices[r->device]);
}

/* A device entry: a selector, or {device: SELECTOR, slurm: {constraint,
 * partition, gres}} for its shards' placement on a cluster. */
static int read_device(reader *r, yaml_node_t *item)
{
    if (item->type == YAML_SCALAR_NODE)
        return take_text(r, item, "devices", &r->f->devices[r->device]);
    if (item->type != YAML_MAPPING_NODE)
        return fail_at(r, item, "devices", "each entry is a device selector or a mapping "
                                           "{device: SELECTOR, slurm: {constraint, partition, "
                                           "gres}}, got %s",
                       node_kind(item));
    static const key_entry keys[] = {{"device", on_device_selector}, {"slurm", on_device_slurm}};
    if (read_mapping(r, item, "devices", keys, sizeof keys / sizeof keys[0]) != 0) return -1;
    if (!r->f->devices[r->device].text)
        return fail_at(r, item, "devices", "an entry written as a mapping needs its 'device' "
                                           "(a device selector, as `skytune devices` lists)");
    return 0;
}

static int on_devices(reader *r, const char *key, yaml_node_t *v)
{
    campaign_file *f = r->f;
    size_t n = v->type == YAML_SEQUENCE_NODE
                   ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start)
                   : 1;
    if (v->type != YAML_SEQUENCE_NODE && v->type != YAML_SCALAR_NODE)
        return fail_at(r, v, key, "expected a device selector or a list of them, got %s",
                       node_kind(v));
    if (n == 0) return 0; /* no entry: the default device */
    f->devices = calloc(n + 1, sizeof *f->devices);
    f->placements = calloc(n + 1, sizeof *f->placements);
    if (!f->devices || !f->placements) return fail_at(r, v, key, "out of memory");
    f->n_devices = n;
    for (size_t k = 0; k < n; k++) {
        r->device = k;
        yaml_node_t *item = v->type == YAML_SEQUENCE_NODE
                                ? node(r, v->data.sequence.items.start[k])
                                : v;
        if (read_device(r, item) != 0) return -1;
    }
    for (size_t k = 0; k < n; k++)
        if (strcmp(f->devices[k].text, "all") == 0 && n > 1)
            return fail_at(r, v, key, "'all' already names every device: give it alone, or a "
                                      "list of device selectors");
    return 0;
}

bool slurm_placement_same(const slurm_placement *a, const slurm_placement *b)
{
    const char *x[] = {a->constraint, a->partition, a->gres};
    const char *y[] = {b->constraint, b->partition, b->gres};
    for (size_t k = 0; k < 3; k++)
        if ((x[k] == NULL) != (y[k] == NULL) || (x[k] && strcmp(x[k], y[k]) != 0)) return false;
    return true;
}

/* A path written in the file, relative to the file's directory. */
static char *resolve_path(const campaign_file *f, const char *text)
{
    if (text[0] == '/' || strcmp(f->dir, ".") == 0) return strdup(text);
    size_t len = strlen(f->dir) + strlen(text) + 2;
    char *path = malloc(len);
    if (path) snprintf(path, len, "%s/%s", f->dir, text);
    return path;
}

static int on_database(reader *r, const char *key, yaml_node_t *v)
{
    const char *text = scalar(r, v, key, "a file name");
    if (!text) return -1;
    if (!*text) return fail_at(r, v, key, "must not be empty");
    free(r->f->database);
    r->f->database = resolve_path(r->f, text);
    r->f->database_line = line_of(v);
    return r->f->database ? 0 : fail_at(r, v, key, "out of memory");
}

static int on_notify_url(reader *r, const char *key, yaml_node_t *v)
{
    if (take_text(r, v, "notify.url", &r->f->notify_url) != 0) return -1;
    const char *u = r->f->notify_url.text;
    if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
        return fail_at(r, v, "notify.url", "'%s' is not an http:// or https:// URL", u);
    return 0;
}

static int on_notify_format(reader *r, const char *key, yaml_node_t *v)
{
    const char *text = scalar(r, v, "notify.format", "json, slack or matrix");
    if (!text) return -1;
    if (strcmp(text, "json") && strcmp(text, "slack") && strcmp(text, "matrix"))
        return fail_at(r, v, "notify.format", "'%s' is not json, slack or matrix", text);
    free(r->f->notify_format);
    r->f->notify_format = strdup(text);
    return 0;
}

static int on_notify_ca(reader *r, const char *key, yaml_node_t *v)
{
    const char *text = scalar(r, v, "notify.ca", "a file name");
    if (!text) return -1;
    free(r->f->notify_ca);
    r->f->notify_ca = resolve_path(r->f, text);
    return 0;
}

static int on_notify(reader *r, const char *key, yaml_node_t *v)
{
    if (v->type == YAML_SCALAR_NODE) return on_notify_url(r, key, v);
    static const key_entry keys[] = {
        {"url", on_notify_url}, {"format", on_notify_format}, {"ca", on_notify_ca}};
    if (read_mapping(r, v, "notify", keys, sizeof keys / sizeof keys[0]) != 0) return -1;
    if (!r->f->notify_url.text) return fail_at(r, v, key, "needs a url");
    return 0;
}

static int on_cross_top(reader *r, const char *key, yaml_node_t *v)
{
    uint64_t top;
    if (take_count(r, v, "cross.top", 1, 1000, &top) != 0) return -1;
    r->f->cross_top = (unsigned)top;
    return 0;
}

static int on_cross(reader *r, const char *key, yaml_node_t *v)
{
    static const key_entry keys[] = {{"top", on_cross_top}};
    r->f->cross_line = line_of(v);
    if (read_mapping(r, v, "cross", keys, sizeof keys / sizeof keys[0]) != 0) return -1;
    if (!r->f->cross_top) r->f->cross_top = 1;
    return 0;
}

static int on_slurm_partition(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "slurm.partition", &r->f->slurm.partition);
}

static int on_slurm_gres(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "slurm.gres", &r->f->slurm.gres);
}

static int on_slurm_time(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "slurm.time", &r->f->slurm.time);
}

static int on_slurm_account(reader *r, const char *key, yaml_node_t *v)
{
    return take_sbatch_text(r, v, "slurm.account", &r->f->slurm.account);
}

static int on_slurm_cpus(reader *r, const char *key, yaml_node_t *v)
{
    uint64_t cpus;
    if (take_count(r, v, "slurm.cpus_per_task", 1, 4096, &cpus) != 0) return -1;
    r->f->slurm.cpus_per_task = (unsigned)cpus;
    return 0;
}

static int on_slurm_options(reader *r, const char *key, yaml_node_t *v)
{
    slurm_settings *s = &r->f->slurm;
    if (take_texts(r, v, "slurm.sbatch", &s->sbatch_options, &s->n_sbatch_options) != 0)
        return -1;
    for (size_t k = 0; k < s->n_sbatch_options; k++) {
        const char *text = s->sbatch_options[k].text;
        for (const char *c = text; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return fail_at(r, v, "slurm.sbatch", "each option must be one line of "
                                                     "printable text");
        if (strncmp(text, "--", 2) != 0)
            return fail_at(r, v, "slurm.sbatch", "'%s' is not an sbatch option (--name=value)",
                           text);
    }
    return 0;
}

static int on_slurm(reader *r, const char *key, yaml_node_t *v)
{
    static const key_entry keys[] = {
        {"partition", on_slurm_partition}, {"gres", on_slurm_gres},
        {"time", on_slurm_time},           {"account", on_slurm_account},
        {"cpus_per_task", on_slurm_cpus},  {"sbatch", on_slurm_options}};
    return read_mapping(r, v, "slurm", keys, sizeof keys / sizeof keys[0]);
}

static const key_entry top_keys[] = {
    {"plugin", on_plugin},
    {"preset", on_preset},
    {"problem", on_problem},
    {"strategy", on_strategy},
    {"strategy_options", on_strategy_options},
    {"restrict", on_restrict},
    {"only", on_only},
    {"budget", on_budget},
    {"time_limit", on_time_limit},
    {"target", on_target},
    {"runs", on_runs},
    {"seed", on_seed},
    {"stop_when_gain_below", on_stop_when_gain_below},
    {"transfers", on_transfers},
    {"campaign_budget", on_campaign_budget},
    {"campaign_time_limit", on_campaign_time_limit},
    {"devices", on_devices},
    {"database", on_database},
    {"notify", on_notify},
    {"cross", on_cross},
    {"slurm", on_slurm},
};

/* The file's directory, and its name without the extension + ".db". */
static int set_paths(campaign_file *f, const char *path)
{
    f->path = strdup(path);
    char name[QUOTE_PATH];
    f->name = strdup(quote_text(path, name, sizeof name));
    const char *slash = strrchr(path, '/');
    f->dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    size_t len = (slash ? (size_t)(base - path) : 0) + stem + 4;
    f->database = malloc(len);
    if (!f->path || !f->name || !f->dir || !f->database) return -1;
    snprintf(f->database, len, "%.*s%.*s.db", slash ? (int)(base - path) : 0, path, (int)stem,
             base);
    return 0;
}

int campaign_file_read(const char *path, campaign_file *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    out->runs = 10;
    out->seed = 1;
    if (set_paths(out, path) != 0) {
        campaign_file_free(out);
        return err_set(err, "out of memory");
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        int e = errno;
        campaign_file_free(out);
        char name[QUOTE_PATH];
        return err_set(err, "campaign file %s: %s", quote_text(path, name, sizeof name),
                       strerror(e));
    }
    yaml_parser_t parser;
    reader r = {.f = out, .err = err};
    int rc = -1;
    bool loaded = false;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        campaign_file_free(out);
        return err_set(err, "out of memory");
    }
    yaml_parser_set_input_file(&parser, fp);
    if (!yaml_parser_load(&parser, &r.doc)) {
        campaign_file_err(out, (int)parser.problem_mark.line + 1, err,
                          "not valid YAML: %s%s%s", parser.problem ? parser.problem : "error",
                          parser.context ? " " : "", parser.context ? parser.context : "");
        goto done;
    }
    loaded = true;
    yaml_node_t *root = yaml_document_get_root_node(&r.doc);
    if (!root) {
        campaign_file_err(out, 0, err, "the file is empty: a campaign file names at least a "
                                        "plugin (see docs/campaigns.md)");
        goto done;
    }
    if (read_mapping(&r, root, "(top level)", top_keys, sizeof top_keys / sizeof top_keys[0]) !=
        0)
        goto done;
    if (!out->plugin.text) {
        campaign_file_err(out, line_of(root), err, "key 'plugin' is missing: a campaign file "
                                                   "names the plugin to tune");
        goto done;
    }
    if (out->cross_top)
        for (size_t k = 0; k < out->n_devices; k++)
            if (strcmp(out->devices[k].text, "all") == 0) {
                campaign_file_err(out, out->cross_line, err,
                                  "key 'cross': the cross-measurement step measures on the "
                                  "devices the file lists; 'devices: all' names none: list them");
                goto done;
            }
    /* A second document would be silently ignored: refuse it. */
    yaml_document_t extra;
    if (yaml_parser_load(&parser, &extra)) {
        bool more = yaml_document_get_root_node(&extra) != NULL;
        int line = more ? line_of(yaml_document_get_root_node(&extra)) : 0;
        yaml_document_delete(&extra);
        if (more) {
            campaign_file_err(out, line, err, "a second YAML document: a campaign file holds one");
            goto done;
        }
    }
    rc = 0;
done:
    if (loaded) yaml_document_delete(&r.doc);
    yaml_parser_delete(&parser);
    fclose(fp);
    if (rc != 0) campaign_file_free(out);
    return rc;
}

static void free_texts(located_text *list, size_t n)
{
    for (size_t k = 0; k < n; k++) free(list[k].text);
    free(list);
}

void campaign_file_free(campaign_file *f)
{
    if (!f) return;
    free(f->path);
    free(f->name);
    free(f->dir);
    free(f->plugin.text);
    free(f->preset.text);
    for (size_t k = 0; k < f->n_params; k++) {
        free(f->params[k].name);
        free_texts(f->params[k].values, f->params[k].count);
    }
    free(f->params);
    free(f->strategy.text);
    free_texts(f->strategy_opts, f->n_strategy_opts);
    free_texts(f->restricts, f->n_restricts);
    for (size_t k = 0; k < f->n_only; k++) {
        free(f->only[k].name);
        free(f->only[k].values);
    }
    free(f->only);
    free_texts(f->devices, f->n_devices);
    for (size_t k = 0; f->placements && k < f->n_devices; k++) {
        free(f->placements[k].constraint);
        free(f->placements[k].partition);
        free(f->placements[k].gres);
    }
    free(f->placements);
    free(f->database);
    free(f->notify_url.text);
    free(f->notify_format);
    free(f->notify_ca);
    free(f->slurm.partition);
    free(f->slurm.gres);
    free(f->slurm.time);
    free(f->slurm.account);
    free_texts(f->slurm.sbatch_options, f->slurm.n_sbatch_options);
    memset(f, 0, sizeof *f);
}
