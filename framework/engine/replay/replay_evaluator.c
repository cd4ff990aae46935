/* The replay evaluator. See replay_evaluator.h. */
#include "replay_evaluator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

/* What the dataset recorded for one configuration of the space. */
typedef struct replay_record {
    uint64_t rank;          /* the configuration's, in the space */
    double time_ns;
    double compile_s;
    double bench_s;
    measurement_status status;
} replay_record;

#define NO_RECORD UINT32_MAX

/* Open addressing from a configuration's rank to its record. */
typedef struct rank_slot {
    uint64_t rank;
    uint32_t record; /* NO_RECORD: empty */
} rank_slot;

struct replay_evaluator {
    const space *space;     /* borrowed: must outlive the evaluator */
    replay_record *records;
    size_t n_records;
    rank_slot *slots;
    size_t slot_mask;       /* slot count - 1, a power of two minus one */
    bool have_optimum;
    double optimum_ns;
};

static size_t rank_home(uint64_t rank, size_t mask)
{
    /* splitmix64's finaliser: ranks are dense, the slots should not be. */
    rank ^= rank >> 30;
    rank *= 0xbf58476d1ce4e5b9ULL;
    rank ^= rank >> 27;
    rank *= 0x94d049bb133111ebULL;
    rank ^= rank >> 31;
    return (size_t)rank & mask;
}

static const replay_record *find_record(const replay_evaluator *re, uint64_t rank)
{
    for (size_t k = rank_home(rank, re->slot_mask);; k = (k + 1) & re->slot_mask) {
        const rank_slot *slot = &re->slots[k];
        if (slot->record == NO_RECORD) return NULL;
        if (slot->rank == rank) return &re->records[slot->record];
    }
}

/* One space parameter's values by canonical text, for matching entries. */
typedef struct value_index {
    const param_def *param;
    uint32_t *slots;   /* value index + 1; 0: empty */
    size_t mask;
} value_index;

static int value_index_build(value_index *vi, const param_def *p)
{
    size_t n = 16;
    while (n < 2 * p->count) n *= 2;
    vi->param = p;
    vi->mask = n - 1;
    vi->slots = calloc(n, sizeof *vi->slots);
    if (!vi->slots) return -1;
    for (size_t v = 0; v < p->count; v++) {
        char number[REPLAY_NUMBER_TEXT];
        const char *text = replay_value_text(&p->values[v], number, sizeof number);
        size_t k = (size_t)space_text_hash(text) & vi->mask;
        while (vi->slots[k]) k = (k + 1) & vi->mask;
        vi->slots[k] = (uint32_t)v + 1;
    }
    return 0;
}

/* Index of the space value with v's canonical text, or -1. */
static long value_index_find(const value_index *vi, const skytune_value *v)
{
    char number[REPLAY_NUMBER_TEXT], other[REPLAY_NUMBER_TEXT];
    const char *text = replay_value_text(v, number, sizeof number);
    size_t k = (size_t)space_text_hash(text) & vi->mask;
    for (; vi->slots[k]; k = (k + 1) & vi->mask) {
        uint32_t index = vi->slots[k] - 1;
        if (strcmp(replay_value_text(&vi->param->values[index], other, sizeof other), text) == 0)
            return (long)index;
    }
    return -1;
}

/* Map space parameter k to the dataset's parameter of the same name, and
 * refuse dataset parameters the space lacks unless they hold one value
 * (else one configuration would stand for several entries). */
static int match_params(const replay_dataset *d, const space *sp, size_t *dataset_param,
                        skytune_error *err)
{
    size_t n = space_param_count(sp);
    for (size_t k = 0; k < n; k++) {
        const char *name = space_param(sp, k)->name;
        int j = replay_dataset_param_index(d, name);
        if (j < 0) {
            char names[512];
            size_t used = 0;
            names[0] = '\0';
            for (size_t p = 0; p < d->n_params && used < sizeof names; p++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", p ? ", " : "",
                                         d->params[p].name);
            return err_set(err, "dataset %s has no parameter '%s' of the space; its parameters "
                           "are %s", d->name, name, names);
        }
        dataset_param[k] = (size_t)j;
    }
    for (size_t j = 0; j < d->n_params; j++) {
        if (space_param_index(sp, d->params[j].name) >= 0 || d->params[j].count <= 1) continue;
        return err_set(err, "dataset %s: parameter '%s' takes %zu values but the space has no "
                       "such parameter; a configuration would stand for several entries",
                       d->name, d->params[j].name, d->params[j].count);
    }
    return 0;
}

/* Place every entry that is a configuration of the space at its rank. An
 * entry with a value outside the space's lists, or one its constraints
 * reject, is not in the space and is left out; of two entries for one
 * configuration the first counts. */
static int place_entries(replay_evaluator *re, const replay_dataset *d,
                         const size_t *dataset_param, value_index *indices, uint16_t *idx,
                         skytune_error *err)
{
    size_t n = space_param_count(re->space);
    for (size_t e = 0; e < d->n_entries; e++) {
        const replay_entry *entry = &d->entries[e];
        bool in_lists = true;
        for (size_t k = 0; k < n && in_lists; k++) {
            long v = value_index_find(&indices[k], &entry->values[dataset_param[k]]);
            in_lists = v >= 0;
            if (in_lists) idx[k] = (uint16_t)v;
        }
        uint64_t rank;
        if (!in_lists || space_rank(re->space, idx, &rank) != 0) continue;
        size_t k = rank_home(rank, re->slot_mask);
        while (re->slots[k].record != NO_RECORD && re->slots[k].rank != rank)
            k = (k + 1) & re->slot_mask;
        if (re->slots[k].record != NO_RECORD) {
            /* Which of two records of one configuration is right cannot be
             * told: refused rather than one taken without a word. */
            char text[512];
            space_config_text(re->space, idx, text, sizeof text);
            return err_set(err, "dataset %s: the configuration %s is recorded twice (entry %zu "
                                "and an earlier one); a dataset holds each configuration once",
                           d->name, text, e + 1);
        }
        if (re->n_records >= NO_RECORD)
            return err_set(err, "dataset %s: too many entries", d->name);
        replay_record *r = &re->records[re->n_records];
        r->rank = rank;
        r->status = entry->status;
        r->time_ns = entry->status == MEAS_OK ? entry->time_ns : 0.0;
        r->compile_s = entry->compile_s;
        r->bench_s = entry->bench_s;
        re->slots[k].rank = rank;
        re->slots[k].record = (uint32_t)re->n_records++;
        if (r->status == MEAS_OK && (!re->have_optimum || r->time_ns < re->optimum_ns)) {
            re->have_optimum = true;
            re->optimum_ns = r->time_ns;
        }
    }
    return 0;
}

int replay_evaluator_new(const replay_dataset *d, const space *sp, replay_evaluator **out,
                         skytune_error *err)
{
    *out = NULL;
    size_t n = space_param_count(sp);
    replay_evaluator *re = calloc(1, sizeof *re);
    size_t *dataset_param = calloc(n ? n : 1, sizeof *dataset_param);
    value_index *indices = calloc(n ? n : 1, sizeof *indices);
    uint16_t *idx = calloc(n ? n : 1, sizeof *idx);
    int rc = 0;
    if (!re || !dataset_param || !indices || !idx) {
        rc = err_set(err, "out of memory preparing the replay of dataset %s", d->name);
        goto done;
    }
    re->space = sp;
    if (match_params(d, sp, dataset_param, err) != 0) {
        rc = -1;
        goto done;
    }
    size_t slots = 16;
    while (slots < 2 * d->n_entries) slots *= 2;
    re->slot_mask = slots - 1;
    re->slots = malloc(slots * sizeof *re->slots);
    re->records = malloc((d->n_entries ? d->n_entries : 1) * sizeof *re->records);
    if (!re->slots || !re->records) {
        rc = err_set(err, "out of memory preparing the replay of dataset %s", d->name);
        goto done;
    }
    for (size_t k = 0; k < slots; k++) re->slots[k].record = NO_RECORD;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (value_index_build(&indices[k], space_param(sp, k)) != 0)
            rc = err_set(err, "out of memory preparing the replay of dataset %s", d->name);
    if (rc == 0) rc = place_entries(re, d, dataset_param, indices, idx, err);
done:
    if (indices)
        for (size_t k = 0; k < n; k++) free(indices[k].slots);
    free(indices);
    free(dataset_param);
    free(idx);
    if (rc != 0) {
        replay_evaluator_free(re);
        return -1;
    }
    *out = re;
    return 0;
}

void replay_evaluator_free(replay_evaluator *re)
{
    if (!re) return;
    free(re->slots);
    free(re->records);
    free(re);
}

/* A configuration in the space but absent from the dataset is a failed
 * evaluation: the dataset's tuner could not, or did not, time it, and a
 * strategy must not learn a time for it. */
static const char absent_message[] = "not in the dataset";

static const char *recorded_failure_message(measurement_status status)
{
    switch (status) {
    case MEAS_COMPILE: return "recorded as failed to compile";
    case MEAS_LAUNCH: return "recorded as failed to run";
    case MEAS_WRONG_RESULT: return "recorded as giving a wrong result";
    case MEAS_TIMEOUT: return "recorded as timed out";
    case MEAS_CRASH: return "recorded as crashed";
    default: return "recorded as failed";
    }
}

static int replay_evaluate(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    const replay_evaluator *re = ctx;
    measurement_init(m);
    m->replayed = true;
    uint64_t rank;
    const replay_record *r = NULL;
    if (space_rank(re->space, idx, &rank) == 0) r = find_record(re, rank);
    const char *message = NULL;
    if (!r) {
        m->status = MEAS_LAUNCH;
        message = absent_message;
    } else {
        m->status = r->status;
        m->build_s = r->compile_s;
        m->bench_s = r->bench_s;
        if (r->status == MEAS_OK) {
            if (measurement_set_samples(m, &r->time_ns, 1) != 0)
                return err_set(err, "out of memory replaying a measurement");
            return 0;
        }
        message = recorded_failure_message(r->status);
    }
    if (measurement_set_message(m, message) != 0)
        return err_set(err, "out of memory replaying a measurement");
    return 0;
}

evaluator replay_evaluator_as_evaluator(replay_evaluator *re)
{
    evaluator e = {.ctx = re, .evaluate = replay_evaluate};
    return e;
}

bool replay_optimum(const replay_evaluator *re, double *time_ns)
{
    if (!re->have_optimum) return false;
    if (time_ns) *time_ns = re->optimum_ns;
    return true;
}

double replay_objective(const replay_evaluator *re, uint64_t rank)
{
    const replay_record *r = find_record(re, rank);
    return r && r->status == MEAS_OK ? r->time_ns : INFINITY;
}

size_t replay_record_count(const replay_evaluator *re)
{
    return re->n_records;
}

uint64_t replay_record_at(const replay_evaluator *re, size_t k, double *time_ns)
{
    const replay_record *r = &re->records[k];
    *time_ns = r->status == MEAS_OK ? r->time_ns : INFINITY;
    return r->rank;
}
