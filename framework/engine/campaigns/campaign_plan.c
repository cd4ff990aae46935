#include "campaign_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

static int build_instances(const campaign_file *f, campaign_plan *p, skytune_error *err)
{
    uint64_t n = 1;
    for (size_t k = 0; k < f->n_params; k++) {
        n *= f->params[k].count;
        if (n > CAMPAIGN_MAX_INSTANCES)
            return campaign_file_err(f, f->problem_line, err,
                                     "key 'problem': the sweep has more than %d instances "
                                     "(the product of the swept lists' lengths)",
                                     CAMPAIGN_MAX_INSTANCES);
    }
    p->instances = calloc(n, sizeof *p->instances);
    if (!p->instances) return err_set(err, "out of memory");
    p->n_instances = n;
    /* Mixed radix: the last parameter varies fastest. */
    for (uint64_t i = 0; i < n; i++) {
        campaign_instance *in = &p->instances[i];
        in->sets = calloc(f->n_params + 1, sizeof *in->sets);
        if (!in->sets) return err_set(err, "out of memory");
        size_t label_len = 1;
        uint64_t rest = i;
        size_t *pick = calloc(f->n_params + 1, sizeof *pick);
        if (!pick) return err_set(err, "out of memory");
        for (size_t k = f->n_params; k-- > 0;) {
            pick[k] = rest % f->params[k].count;
            rest /= f->params[k].count;
        }
        for (size_t k = 0; k < f->n_params; k++) {
            const sweep_param *sp = &f->params[k];
            const char *value = sp->values[pick[k]].text;
            size_t len = strlen(sp->name) + strlen(value) + 2;
            in->sets[k] = malloc(len);
            if (!in->sets[k]) {
                free(pick);
                return err_set(err, "out of memory");
            }
            snprintf(in->sets[k], len, "%s=%s", sp->name, value);
            in->n_sets++;
            if (sp->swept) label_len += len;
        }
        in->label = malloc(label_len);
        if (!in->label) {
            free(pick);
            return err_set(err, "out of memory");
        }
        size_t used = 0;
        in->label[0] = '\0';
        for (size_t k = 0; k < f->n_params; k++)
            if (f->params[k].swept)
                used += (size_t)snprintf(in->label + used, label_len - used, "%s%s",
                                         used ? "," : "", in->sets[k]);
        free(pick);
    }
    return 0;
}

static const char **texts_of(const located_text *list, size_t n)
{
    const char **out = calloc(n + 1, sizeof *out);
    for (size_t k = 0; out && k < n; k++) out[k] = list[k].text;
    return out;
}

int campaign_plan_build(const campaign_file *f, unsigned shards, campaign_plan *out,
                        skytune_error *err)
{
    memset(out, 0, sizeof *out);
    out->shards = shards ? shards : 1;
    if (build_instances(f, out, err) != 0) goto fail;
    out->restricts = texts_of(f->restricts, f->n_restricts);
    out->strategy_opts = texts_of(f->strategy_opts, f->n_strategy_opts);
    out->only = calloc(f->n_only + 1, sizeof *out->only);
    if (!out->restricts || !out->strategy_opts || !out->only) {
        err_set(err, "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < f->n_only; k++) out->only[k] = f->only[k].values;

    size_t n_devices = f->n_devices ? f->n_devices : 1;
    uint64_t pairs = (uint64_t)out->n_instances * n_devices;
    unsigned parts = 1;
    if (out->shards > pairs) {
        const char *strategy_name = f->strategy.text ? f->strategy.text : "";
        if (strcmp(strategy_name, "exhaustive") != 0) {
            campaign_file_err(f, f->strategy.line, err,
                              "%u shards for %llu instance-device pairs: only the exhaustive "
                              "strategy can split an instance's space between shards, so this "
                              "campaign can have at most %llu shards",
                              out->shards, (unsigned long long)pairs, (unsigned long long)pairs);
            goto fail;
        }
        parts = (unsigned)((out->shards + pairs - 1) / pairs);
    }
    out->n_units = (size_t)(pairs * parts);
    out->units = calloc(out->n_units, sizeof *out->units);
    if (!out->units) {
        err_set(err, "out of memory");
        goto fail;
    }
    size_t u = 0;
    for (size_t i = 0; i < out->n_instances; i++)
        for (size_t d = 0; d < n_devices; d++)
            for (unsigned part = 0; part < parts; part++)
                out->units[u++] = (campaign_unit){
                    .instance = i,
                    .device = f->n_devices ? f->devices[d].text : NULL,
                    .device_entry = d,
                    .part = part,
                    .parts = parts,
                };
    return 0;
fail:
    campaign_plan_free(out);
    return -1;
}

void campaign_plan_free(campaign_plan *p)
{
    for (size_t i = 0; p->instances && i < p->n_instances; i++) {
        for (size_t k = 0; k < p->instances[i].n_sets; k++) free(p->instances[i].sets[k]);
        free(p->instances[i].sets);
        free(p->instances[i].label);
    }
    free(p->instances);
    free(p->units);
    free(p->restricts);
    free(p->only);
    free(p->strategy_opts);
    memset(p, 0, sizeof *p);
}

int campaign_plan_in_shard(const campaign_plan *p, size_t unit, unsigned shard)
{
    return unit % p->shards == shard;
}

int campaign_shard_parse(const char *text, unsigned *shard, unsigned *shards, skytune_error *err)
{
    const char *slash = strchr(text, '/');
    char first[32];
    uint64_t i, n;
    if (!slash || (size_t)(slash - text) >= sizeof first) goto bad;
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    if (quantity_count(first, &i) != 0 || quantity_count(slash + 1, &n) != 0) goto bad;
    if (n < 1 || n > 100000 || i >= n) goto bad;
    *shard = (unsigned)i;
    *shards = (unsigned)n;
    return 0;
bad:
    return err_set(err, "--shard '%s' is not I/N with 0 <= I < N <= 100000 (shards count from "
                        "0, as SLURM's array task ids do: 0/3, 1/3 and 2/3)",
                   text);
}

char *campaign_shard_db(const char *db, unsigned shard, unsigned shards)
{
    const char *slash = strrchr(db, '/');
    const char *base = slash ? slash + 1 : db;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - db) : strlen(db);
    size_t len = strlen(db) + 48;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s.shard-%u-of-%u%s", (int)stem, db, shard, shards,
                 dot && dot != base ? dot : "");
    return out;
}

void campaign_unit_request(const campaign_file *f, const campaign_plan *p, size_t unit,
                           const tuning_request *base, tuning_request *out)
{
    const campaign_unit *u = &p->units[unit];
    const campaign_instance *in = &p->instances[u->instance];
    *out = *base;
    out->plugin = f->plugin.text;
    out->preset = f->preset.text;
    out->sets = (const char *const *)in->sets;
    out->n_sets = in->n_sets;
    out->restricts = p->restricts;
    out->n_restricts = f->n_restricts;
    out->only = p->only;
    out->n_only = f->n_only;
    out->strategy = f->strategy.text;
    out->strategy_opts = p->strategy_opts;
    out->n_strategy_opts = f->n_strategy_opts;
    out->limits.max_evaluations = f->budget;
    out->limits.time_limit_s = f->time_limit_s;
    out->limits.target_ns = f->target_ns;
    out->limits.target_gflops = f->target_gflops;
    out->limits.gain_below = f->gain_below;
    out->transfers = f->transfers;
    out->runs = f->runs;
    out->seed = f->seed;
    out->device = u->device && strcmp(u->device, "all") != 0 ? u->device : NULL;
    out->space_part = u->part;
    out->space_parts = u->parts;
}
