/* The skytune-database reader. See skytune_database.h.
 *
 * The database is read through db/'s store_reader; what is read is checked
 * here as any recorded dataset is: a configuration text must be
 * "name=value,..." with the campaign's parameters in their order, a status
 * one the store knows, a time a positive finite number. */
#include "skytune_database.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "store_reader.h"
#include "value.h"

/* ------------------------------------------------------------ the campaign */

/* "1 (vector_add on Test GPU, random), 2 (...)" for messages, as far as it
 * fits. */
typedef struct campaign_list {
    char *buf;
    size_t len, used;
} campaign_list;

static int list_campaign(void *ctx, const store_reader_campaign *c)
{
    campaign_list *l = ctx;
    char plugin[QUOTE_TEXT], device[QUOTE_TEXT], strategy[QUOTE_TEXT];
    quote_text(c->plugin, plugin, sizeof plugin);
    quote_text(c->device, device, sizeof device);
    quote_text(c->strategy, strategy, sizeof strategy);
    int n = snprintf(l->buf + l->used, l->len - l->used, "%s%lld (%s on %s, %s)",
                     l->used ? ", " : "", (long long)c->id, plugin, device, strategy);
    if (n < 0) return 1;
    l->used += (size_t)n;
    return l->used < l->len ? 0 : 1;
}

static void list_campaigns(store_reader *r, char *buf, size_t len)
{
    buf[0] = '\0';
    campaign_list l = {.buf = buf, .len = len, .used = 0};
    /* The list illustrates a message about something else: as much of it
     * as can be read. */
    store_reader_campaigns(r, list_campaign, &l, NULL);
}

/* A campaign id as written after "FILE.db:": a positive decimal number;
 * 0 when it is not one. */
static int64_t parse_campaign_id(const char *text)
{
    int64_t id = 0;
    if (!*text) return 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9' || id > (INT64_MAX - 9) / 10) return 0;
        id = id * 10 + (*c - '0');
    }
    return id;
}

/* The campaign to read: the one `selector` names (the text after "FILE:";
 * NULL: none), or the database's only one. `name` is the dataset as
 * messages quote it. */
static int choose_campaign(store_reader *r, const char *name, const char *file,
                           const char *selector, int64_t *campaign, skytune_error *err)
{
    int64_t count = 0;
    if (store_reader_campaign_count(r, &count, err) != 0) return -1;
    char listed[600];
    int64_t wanted = selector ? parse_campaign_id(selector) : 0;
    if (selector && wanted == 0) {
        char shown_selector[QUOTE_TEXT], shown_file[QUOTE_TEXT];
        quote_text(selector, shown_selector, sizeof shown_selector);
        quote_text(file, shown_file, sizeof shown_file);
        list_campaigns(r, listed, sizeof listed);
        return err_set(err, "%s: '%s' is not a campaign of %s; a campaign is chosen as %s:ID, ID "
                       "a positive number: %s", name, shown_selector, shown_file, shown_file,
                       count ? listed : "the database has no campaigns");
    }
    if (wanted > 0) {
        bool found = false;
        if (store_reader_has_campaign(r, wanted, &found, err) != 0) return -1;
        if (!found) {
            list_campaigns(r, listed, sizeof listed);
            return err_set(err, "%s: no campaign %lld; %s", name, (long long)wanted,
                           count ? listed : "the database has no campaigns");
        }
        *campaign = wanted;
        return 0;
    }
    if (count == 0) return err_set(err, "%s: the database has no campaigns to replay", name);
    if (count > 1) {
        list_campaigns(r, listed, sizeof listed);
        return err_set(err, "%s holds %lld campaigns; name one as %s:ID. Campaigns: %s", name,
                       (long long)count, name, listed);
    }
    return store_reader_only_campaign(r, campaign, err);
}

/* ------------------------------------------------------------ its evaluations */

/* Split canonical text "a=1,b=x" into its n-th name and value spans. */
typedef struct text_span {
    const char *begin;
    size_t length;
} text_span;

static size_t count_pairs(const char *text)
{
    size_t n = *text ? 1 : 0;
    for (const char *c = text; *c; c++) n += *c == ',';
    return n;
}

/* The pairs of a configuration text, or -1 when a pair has no '='. */
static int split_pairs(const char *text, text_span *names, text_span *values, size_t n)
{
    const char *item = text;
    for (size_t k = 0; k < n; k++) {
        const char *comma = strchr(item, ',');
        const char *end = comma ? comma : item + strlen(item);
        const char *equals = memchr(item, '=', (size_t)(end - item));
        if (!equals) return -1;
        names[k] = (text_span){item, (size_t)(equals - item)};
        values[k] = (text_span){equals + 1, (size_t)(end - equals - 1)};
        item = comma ? comma + 1 : end;
    }
    return 0;
}

static char *span_copy(text_span s)
{
    char *copy = malloc(s.length + 1);
    if (!copy) return NULL;
    memcpy(copy, s.begin, s.length);
    copy[s.length] = '\0';
    return copy;
}

/* Whether `text` is the canonical text of a value of `type` ("16" is an
 * integer, "0x10" and "007" are not: as strings they must stay as written). */
static bool is_canonical(const char *text, skytune_type type)
{
    skytune_value parsed;
    skytune_error ignored = {0};
    if (value_parse(text, type, &parsed, &ignored) != 0) return false;
    char number[REPLAY_NUMBER_TEXT];
    value_format(&parsed, number, sizeof number);
    value_clear(&parsed);
    return strcmp(number, text) == 0;
}

/* Entries hold each value as text while the rows are read; once all are
 * in, a parameter whose every value is an integer's canonical text becomes
 * an integer parameter, else one whose every value is a real's a float
 * one, else a string one (as the database's config_values view types
 * them). */
static int type_skytune_params(const char *path, replay_dataset *d, skytune_error *err)
{
    replay_value_set *sets = calloc(d->n_params, sizeof *sets);
    if (!sets) return err_set(err, "%s: out of memory", path);
    int rc = 0;
    for (size_t k = 0; k < d->n_params && rc == 0; k++) {
        skytune_type type = SKYTUNE_INT;
        skytune_error ignored = {0};
        for (size_t e = 0; e < d->n_entries && type != SKYTUNE_STRING; e++) {
            const char *text = d->entries[e].values[k].s;
            while (type != SKYTUNE_STRING && !is_canonical(text, type))
                type = type == SKYTUNE_INT ? SKYTUNE_FLOAT : SKYTUNE_STRING;
        }
        d->params[k].type = type;
        for (size_t e = 0; e < d->n_entries && rc == 0; e++) {
            skytune_value *v = &d->entries[e].values[k];
            if (type != SKYTUNE_STRING) {
                char *text = (char *)v->s;
                rc = value_parse(text, type, v, &ignored);
                free(text);
                char shown[QUOTE_TEXT];
                if (rc != 0)
                    rc = err_set(err, "%s: cannot read a value: %s", path,
                                 quote_text(ignored.message, shown, sizeof shown));
            }
            if (rc == 0 && replay_value_set_add(&sets[k], v) != 0)
                rc = err_set(err, "%s: out of memory", path);
        }
    }
    if (rc == 0) rc = replay_dataset_params_from_sets(path, d, sets, err);
    for (size_t k = 0; k < d->n_params; k++) replay_value_set_free(&sets[k]);
    free(sets);
    return rc;
}

/* Scratch for splitting configuration texts, grown to the longest. */
typedef struct pair_spans {
    text_span *names, *values;
    size_t capacity;
} pair_spans;

static int pair_spans_reserve(pair_spans *p, size_t n)
{
    if (n <= p->capacity) return 0;
    text_span *names = realloc(p->names, n * sizeof *names);
    if (!names) return -1;
    p->names = names;
    text_span *values = realloc(p->values, n * sizeof *values);
    if (!values) return -1;
    p->values = values;
    p->capacity = n;
    return 0;
}

/* What reading the evaluations into the dataset needs. */
typedef struct row_reader {
    const char *path;
    replay_dataset *d;
    size_t capacity;      /* of d->entries */
    pair_spans spans;
    skytune_error *err;
} row_reader;

/* One evaluation as an entry of the dataset, its values kept as text until
 * every row is in (type_skytune_params). */
static int read_row(void *ctx, const store_evaluation *row)
{
    row_reader *rr = ctx;
    const char *path = rr->path;
    replay_dataset *d = rr->d;
    skytune_error *err = rr->err;
    const char *text = row->config_text;
    if (!text) return err_set(err, "%s: a configuration without text", path);
    char shown[QUOTE_TEXT];
    quote_text(text, shown, sizeof shown);
    size_t n = count_pairs(text);
    if (pair_spans_reserve(&rr->spans, n) != 0) return err_set(err, "%s: out of memory", path);
    text_span *names = rr->spans.names, *values = rr->spans.values;
    if (d->n_params == 0) {
        /* The first configuration gives the parameters and their order. */
        if (n == 0 || split_pairs(text, names, values, n) != 0)
            return err_set(err, "%s: configuration \"%s\" is not name=value,...", path, shown);
        d->params = calloc(n, sizeof *d->params);
        if (!d->params) return err_set(err, "%s: out of memory", path);
        d->n_params = n;
        for (size_t k = 0; k < n; k++)
            if (!(d->params[k].name = span_copy(names[k])))
                return err_set(err, "%s: out of memory", path);
    }
    if (n != d->n_params || split_pairs(text, names, values, n) != 0)
        return err_set(err, "%s: configuration \"%s\" does not have the %zu parameters of the "
                       "campaign's first configuration", path, shown, d->n_params);
    replay_entry *e = replay_dataset_add_entry(d, &rr->capacity);
    if (!e) return err_set(err, "%s: out of memory", path);
    for (size_t k = 0; k < n; k++) {
        /* The store writes parameters in declaration order, so each name is
         * where the first configuration had it. */
        if (names[k].length != strlen(d->params[k].name) ||
            memcmp(names[k].begin, d->params[k].name, names[k].length) != 0) {
            /* The name is the first configuration's text, as the file has it. */
            char name_shown[QUOTE_TEXT];
            return err_set(err, "%s: configuration \"%s\": parameter %zu is not '%s'", path, shown,
                           k + 1, quote_text(d->params[k].name, name_shown, sizeof name_shown));
        }
        e->values[k].type = SKYTUNE_STRING;
        if (!(e->values[k].s = span_copy(values[k])))
            return err_set(err, "%s: out of memory", path);
    }
    const char *status = row->status;
    int parsed = status ? measurement_status_parse(status) : -1;
    char status_shown[QUOTE_TEXT];
    quote_text(status, status_shown, sizeof status_shown);
    if (parsed < 0)
        return err_set(err, "%s: configuration \"%s\": unknown status '%s'", path, shown,
                       status_shown);
    e->status = (measurement_status)parsed;
    for (int k = 0; k < STORE_RECORDED_TIMES; k++) {
        const store_recorded_time *t = &row->times[k];
        bool is_median = k == STORE_MEDIAN_NS;
        bool fine = is_median
                        ? e->status != MEAS_OK || (t->numeric && replay_is_kernel_time(t->value))
                        : t->numeric && replay_is_phase_time(t->value);
        if (!fine) {
            const char *recorded = store_evaluation_time_text(row, k);
            char recorded_shown[QUOTE_TEXT];
            quote_text(recorded, recorded_shown, sizeof recorded_shown);
            return err_set(err, "%s: configuration \"%s\" (%s): %s is %s%s%s; a recorded %s is a "
                           "%s, finite number", path, shown, status_shown, t->column,
                           recorded ? "'" : "", recorded ? recorded_shown : "NULL",
                           recorded ? "'" : "", is_median ? "time" : "phase time",
                           is_median ? "positive" : "non-negative");
        }
    }
    e->time_ns = e->status == MEAS_OK ? row->times[STORE_MEDIAN_NS].value : 0.0;
    e->compile_s = row->times[STORE_BUILD_S].value;
    e->bench_s = row->times[STORE_BENCH_S].value;
    return 0;
}

static int read_campaign(store_reader *r, const char *name, int64_t campaign, replay_dataset *d,
                         skytune_error *err)
{
    char *device_name = NULL;
    if (store_reader_device_name(r, campaign, &device_name, err) != 0) return -1;
    /* The dataset's name is shown and recorded as a device name. */
    char device[QUOTE_TEXT];
    quote_text(device_name, device, sizeof device);
    free(device_name);
    d->name = strdup(device);
    if (!d->name) return err_set(err, "%s: out of memory", name);

    row_reader rr = {.path = name, .d = d, .capacity = 0, .err = err};
    int rc = store_reader_evaluations(r, campaign, read_row, &rr, err);
    free(rr.spans.names);
    free(rr.spans.values);
    if (rc != 0) return -1;
    if (d->n_entries == 0)
        return err_set(err, "%s: campaign %lld has no evaluations to replay", name,
                       (long long)campaign);
    return type_skytune_params(name, d, err);
}

int skytune_database_read(const char *name, const char *file, const char *selector,
                          replay_dataset *d, skytune_error *err)
{
    store_reader *r = NULL;
    if (store_reader_open(file, name, &r, err) != 0) return -1;
    int64_t campaign = 0;
    int rc = choose_campaign(r, name, file, selector, &campaign, err);
    if (rc == 0) rc = read_campaign(r, name, campaign, d, err);
    store_reader_close(r);
    return rc;
}
