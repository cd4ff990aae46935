/* Replay: recorded datasets loaded from Kernel Tuner caches, T4 results and
 * skytune databases, and an evaluator that answers a space's configurations
 * from them. See replay.h.
 *
 * Units. Kernel Tuner records milliseconds; T4 says its unit in
 * metadata.timeunit (milliseconds when absent); a skytune database records
 * nanoseconds for kernel times and seconds for phases. Entries hold kernel
 * times in nanoseconds and phases in seconds.
 *
 * Matching. A dataset entry and a configuration of a space are the same
 * point when, parameter by parameter (matched by name), their values have
 * the same canonical text (value_format): 16 and 16.0 match, as they do in
 * the configurations' canonical text "name=value,...". */
#include "replay.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>
#include <zlib.h>

#include "quote.h"
#include "stats.h"
#include "store.h"
#include "value.h"

/* Canonical text of a number fits easily: "%.17g" of a double or a 64-bit
 * integer. */
#define NUMBER_TEXT 64

/* A JSON value quoted in a message is cut here. */
#define QUOTED_JSON 80

/* The first 16 bytes of every SQLite 3 database file. */
static const char sqlite_magic[16] = "SQLite format 3";

static bool is_gzip(const unsigned char *data, size_t length)
{
    return length >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

static bool is_sqlite(const unsigned char *data, size_t length)
{
    return length >= sizeof sqlite_magic && memcmp(data, sqlite_magic, sizeof sqlite_magic) == 0;
}

/* ------------------------------------------------------------ file bytes */

typedef struct byte_buffer {
    unsigned char *data;
    size_t length, capacity;
} byte_buffer;

static void byte_buffer_free(byte_buffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Room for at least `extra` more bytes. */
static int byte_buffer_reserve(byte_buffer *b, size_t extra)
{
    if (b->capacity - b->length >= extra) return 0;
    if (extra > SIZE_MAX - b->length) return -1;
    size_t need = b->length + extra;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < need) capacity = capacity > SIZE_MAX / 2 ? need : capacity * 2;
    unsigned char *grown = realloc(b->data, capacity);
    if (!grown) return -1;
    b->data = grown;
    b->capacity = capacity;
    return 0;
}

/* "256 MiB", "1 GiB", "1000 bytes": a limit as the user would write it. */
static void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    size_t unit = 0;
    while (unit + 1 < sizeof units / sizeof units[0] && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        unit++;
    }
    snprintf(buf, len, "%llu %s", (unsigned long long)bytes, units[unit]);
}

static int too_large(const char *path, const char *what, uint64_t limit, skytune_error *err)
{
    char shown[32];
    format_bytes(limit, shown, sizeof shown);
    return err_set(err, "%s: more than %s of JSON text%s, the input limit; a file this large is "
                   "more likely a mistake or a decompression bomb than a dataset, but if it is "
                   "genuine raise the limit (--input-limit, e.g. --input-limit 2G)",
                   path, shown, what);
}

/* The whole file, refused once it is longer than `limit` bytes. `name` is
 * the path as messages quote it. */
static int read_file(const char *path, const char *name, uint64_t limit, byte_buffer *out,
                     skytune_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, "%s: cannot open: %s", name, strerror(errno));
    int rc = 0;
    for (;;) {
        if (out->length > limit) {
            rc = too_large(name, "", limit, err);
            break;
        }
        if (byte_buffer_reserve(out, (size_t)1 << 16) != 0) {
            rc = err_set(err, "%s: out of memory reading the file", name);
            break;
        }
        size_t got = fread(out->data + out->length, 1, out->capacity - out->length, f);
        out->length += got;
        if (got == 0) {
            if (ferror(f)) rc = err_set(err, "%s: cannot read: %s", name, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != 0) byte_buffer_free(out);
    return rc;
}

/* The first bytes of a file (fewer when it is shorter). */
static int read_file_start(const char *path, unsigned char *buf, size_t len, size_t *got,
                           int *open_errno)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *open_errno = errno;
        return -1;
    }
    *got = fread(buf, 1, len, f);
    fclose(f);
    return 0;
}

/* Inflate every gzip member of `in` (gzip -c a b > c makes several). Bytes
 * after the last member that are not another member are ignored, as gzip
 * does. Input that ends inside a member, or does not check out, fails, and
 * so does output longer than `limit`, once a byte more than that is out
 * (the buffer never grows much past the limit). */
static int gunzip(const char *path, const byte_buffer *in, uint64_t limit, byte_buffer *out,
                  skytune_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return err_set(err, "%s: cannot start gzip decompression", path);
    size_t consumed = 0;
    int rc = 0;
    for (;;) {
        if (out->length > limit) {
            rc = too_large(path, " after decompression", limit, err);
            break;
        }
        /* Compressed JSON commonly inflates tenfold; grow by at least the
         * input size so that large files take few reallocations. */
        size_t want = in->length > ((size_t)1 << 16) ? in->length : ((size_t)1 << 16);
        if (byte_buffer_reserve(out, want) != 0) {
            rc = err_set(err, "%s: out of memory decompressing", path);
            break;
        }
        size_t in_left = in->length - consumed;
        size_t out_room = out->capacity - out->length;
        /* One byte past the limit is enough to know it is passed. */
        if (out_room > limit + 1 - out->length) out_room = (size_t)(limit + 1 - out->length);
        zs.next_in = in->data + consumed;
        zs.avail_in = (uInt)(in_left > UINT_MAX ? UINT_MAX : in_left);
        zs.next_out = out->data + out->length;
        zs.avail_out = (uInt)(out_room > UINT_MAX ? UINT_MAX : out_room);
        uInt in_before = zs.avail_in, out_before = zs.avail_out;
        int z = inflate(&zs, Z_NO_FLUSH);
        consumed += in_before - zs.avail_in;
        out->length += out_before - zs.avail_out;
        if (z == Z_STREAM_END) {
            if (is_gzip(in->data + consumed, in->length - consumed) && inflateReset(&zs) == Z_OK)
                continue;
            break;
        }
        if (z == Z_OK) continue;
        /* Z_BUF_ERROR with output room left: the input ended mid-stream. */
        if (z == Z_MEM_ERROR)
            rc = err_set(err, "%s: out of memory decompressing", path);
        else
            rc = err_set(err, "%s: truncated or corrupt gzip data", path);
        break;
    }
    inflateEnd(&zs);
    if (rc != 0) byte_buffer_free(out);
    return rc;
}

/* Kernel Tuner appends each entry to its cache file as it goes ("key":
 * {...},) and writes the two closing braces when the run ends, so a run
 * that was killed leaves the file unterminated. Kernel Tuner reads such a
 * file by closing it, and so does this: a text ending in ',' or '{' gets
 * "}\n}" (the comma dropped). Only a result that is a cache counts. */
static json_t *parse_unterminated_cache(byte_buffer *text)
{
    size_t n = text->length;
    while (n > 0 && isspace(text->data[n - 1])) n--;
    if (n == 0 || (text->data[n - 1] != ',' && text->data[n - 1] != '{')) return NULL;
    if (text->data[n - 1] == ',') n--;
    text->length = n;
    static const char closing[] = "}\n}";
    if (byte_buffer_reserve(text, sizeof closing) != 0) return NULL;
    memcpy(text->data + text->length, closing, sizeof closing - 1);
    text->length += sizeof closing - 1;
    json_t *root = json_loadb((const char *)text->data, text->length, 0, NULL);
    if (root && !json_is_object(json_object_get(root, "cache"))) {
        json_decref(root);
        root = NULL;
    }
    return root;
}

int replay_read_json(const char *path, uint64_t max_json_bytes, json_t **out,
                     skytune_error *err)
{
    *out = NULL;
    uint64_t limit = max_json_bytes ? max_json_bytes : REPLAY_DEFAULT_MAX_JSON_BYTES;
    /* The limit leaves room for the closing that an unterminated cache gets. */
    if (limit > SIZE_MAX / 2) limit = SIZE_MAX / 2;
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    byte_buffer raw = {0};
    if (read_file(path, name, limit, &raw, err) != 0) return -1;
    if (is_gzip(raw.data, raw.length)) {
        byte_buffer inflated = {0};
        int rc = gunzip(name, &raw, limit, &inflated, err);
        byte_buffer_free(&raw);
        if (rc != 0) return -1;
        raw = inflated;
    } else if (is_sqlite(raw.data, raw.length)) {
        byte_buffer_free(&raw);
        return err_set(err, "%s: a SQLite database, not a JSON file", name);
    }
    json_error_t jerr;
    memset(&jerr, 0, sizeof jerr);
    json_t *root = json_loadb((const char *)raw.data, raw.length, 0, &jerr);
    if (!root) root = parse_unterminated_cache(&raw);
    byte_buffer_free(&raw);
    char reason[QUOTE_TEXT];
    if (!root)
        return err_set(err, "%s: not JSON: %s (line %d, column %d)", name,
                       quote_text(jerr.text, reason, sizeof reason), jerr.line, jerr.column);
    *out = root;
    return 0;
}

/* ------------------------------------------------------------ datasets */

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

/* "A100" from ".../A100.cache.json.gz": the file name up to its first dot
 * (the whole name when it starts with one), quoted since it is shown and
 * recorded as the device's name. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strcspn(base, ".");
    if (len == 0) len = strlen(base);
    char name[QUOTE_TEXT];
    quote_span(base, len, name, sizeof name);
    return strdup(name);
}

/* Entries grow by doubling; `capacity` lives beside the dataset while it is
 * being loaded. */
static replay_entry *new_entry(replay_dataset *d, size_t *capacity)
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

/* Parameters still being loaded have no name yet. */
static int find_param(const replay_dataset *d, const char *name)
{
    for (size_t k = 0; k < d->n_params; k++)
        if (d->params[k].name && strcmp(d->params[k].name, name) == 0) return (int)k;
    return -1;
}

static long find_value(const param_def *p, const skytune_value *v)
{
    for (size_t k = 0; k < p->count; k++)
        if (value_equal(&p->values[k], v)) return (long)k;
    return -1;
}

/* Add a value seen in an entry but not declared (the dataset's parameter
 * lists are what it declared and what it recorded). */
static int param_append(param_def *p, const skytune_value *v)
{
    if (p->count >= PARAM_MAX_VALUES) return -1;
    skytune_value *grown = realloc(p->values, (p->count + 1) * sizeof *grown);
    if (!grown) return -1;
    p->values = grown;
    if (value_copy(&p->values[p->count], v) != 0) return -1;
    p->count++;
    return 0;
}

/* ------------------------------------------------------------ JSON values */

static void describe_json(const json_t *j, char *buf, size_t len)
{
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (!text) {
        snprintf(buf, len, "%s", j ? "(a value)" : "nothing");
        return;
    }
    /* The dump escapes ASCII controls but keeps other UTF-8, C1 controls
     * too; the cut is the quoting's. */
    quote_text(text, buf, len < QUOTED_JSON + 4 ? len : QUOTED_JSON + 4);
    free(text);
}

/* Which kinds of JSON value a parameter's values are. */
typedef struct json_kinds {
    bool integer, real, boolean, string, other;
} json_kinds;

static void json_kinds_add(json_kinds *k, const json_t *v)
{
    if (json_is_integer(v))
        k->integer = true;
    else if (json_is_real(v))
        k->real = true;
    else if (json_is_boolean(v))
        k->boolean = true;
    else if (json_is_string(v))
        k->string = true;
    else
        k->other = true;
}

/* Integers (and booleans) stay integers, any real makes the parameter a
 * float, strings are strings; anything else or a mixture fails. */
static int json_kinds_type(const json_kinds *k, skytune_type *type)
{
    if (k->other) return -1;
    if (k->string) {
        if (k->integer || k->real || k->boolean) return -1;
        *type = SKYTUNE_STRING;
        return 0;
    }
    *type = k->real ? SKYTUNE_FLOAT : SKYTUNE_INT;
    return 0;
}

/* The JSON value as a value of `type` (a string is copied). Returns 0, -1
 * when the value is not of that type, -2 when out of memory. */
static int json_to_value(const json_t *j, skytune_type type, skytune_value *out)
{
    memset(out, 0, sizeof *out);
    switch (type) {
    case SKYTUNE_INT:
    case SKYTUNE_BOOL:
        out->type = SKYTUNE_INT;
        if (json_is_integer(j)) {
            out->i = (int64_t)json_integer_value(j);
            return 0;
        }
        if (json_is_boolean(j)) {
            out->i = json_is_true(j);
            return 0;
        }
        if (json_is_real(j)) {
            double f = json_real_value(j);
            if (f == trunc(f) && fabs(f) < 9.0e18) {
                out->i = (int64_t)f;
                return 0;
            }
        }
        return -1;
    case SKYTUNE_FLOAT:
        out->type = SKYTUNE_FLOAT;
        if (json_is_number(j)) {
            out->f = json_number_value(j);
            return 0;
        }
        if (json_is_boolean(j)) {
            out->f = json_is_true(j);
            return 0;
        }
        return -1;
    case SKYTUNE_STRING: {
        out->type = SKYTUNE_STRING;
        if (!json_is_string(j)) return -1;
        char *copy = strdup(json_string_value(j));
        if (!copy) return -2;
        out->s = copy;
        return 0;
    }
    }
    return -1;
}

/* A parameter from a JSON array of values (Kernel Tuner's tune_params),
 * typed by what the values are. `where` names the place for messages. */
static int param_from_json_list(const char *path, const char *where, const char *name,
                                const json_t *list, param_def *out, skytune_error *err)
{
    size_t n = json_array_size(list);
    char shown[QUOTE_TEXT];
    quote_text(name, shown, sizeof shown);
    if (!json_is_array(list) || n == 0)
        return err_set(err, "%s: %s \"%s\": expected a non-empty array of values", path, where,
                       shown);
    json_kinds kinds = {0};
    for (size_t k = 0; k < n; k++) json_kinds_add(&kinds, json_array_get(list, k));
    skytune_type type;
    if (json_kinds_type(&kinds, &type) != 0)
        return err_set(err, "%s: %s \"%s\": values must be all numbers or all strings (booleans "
                       "count as numbers)", path, where, shown);
    skytune_value *values = calloc(n, sizeof *values);
    if (!values) return err_set(err, "%s: out of memory", path);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        if (json_to_value(json_array_get(list, k), type, &values[k]) != 0)
            rc = err_set(err, "%s: out of memory", path);
    skytune_error param_err = {0};
    if (rc == 0 && param_from_values(name, type, values, n, out, &param_err) != 0)
        rc = err_set(err, "%s: %s: %s", path, where, param_err.message);
    for (size_t k = 0; k < n; k++) value_clear(&values[k]);
    free(values);
    return rc;
}

/* ------------------------------------------------------------ recorded times */

/* A recorded kernel time is a finite number of nanoseconds above 0: zero or
 * less is no time at all, and an infinite one (1e308 ms is one in ns)
 * cannot be ranked. A strategy would take either for the best. */
static bool is_kernel_time(double ns)
{
    return ns > 0.0 && isfinite(ns);
}

/* A recorded phase (compile, benchmark) is a finite number of seconds, not
 * negative: 0 stands for a phase that was not timed. */
static bool is_phase_time(double s)
{
    return s >= 0.0 && isfinite(s);
}

/* A phase time given in `unit_ns` units as a JSON number, in seconds; 0 when
 * absent. `where` and `name` name it in the message ("FILE: cache entry
 * "KEY": "compile_time" ..."). */
static int phase_seconds(const char *path, const char *where, const char *name, const json_t *j,
                         double unit_ns, double *seconds, skytune_error *err)
{
    *seconds = 0.0;
    if (!j) return 0;
    if (json_is_number(j) && is_phase_time(json_number_value(j) * unit_ns / 1e9)) {
        *seconds = json_number_value(j) * unit_ns / 1e9;
        return 0;
    }
    char shown[QUOTED_JSON + 8];
    describe_json(j, shown, sizeof shown);
    return err_set(err, "%s: %s: \"%s\" is %s; a recorded phase time is a finite number, 0 or "
                   "more", path, where, name, shown);
}

/* ------------------------------------------------------------ Kernel Tuner */

/* Kernel Tuner's names for configurations that did not give a time.
 * InvalidConfig (a configuration its restrictions or the device refused)
 * is a failed launch here, like any other failure it records. */
static measurement_status kernel_tuner_failure(const char *name)
{
    if (strcmp(name, "CompilationFailedConfig") == 0) return MEAS_COMPILE;
    return MEAS_LAUNCH;
}

/* An entry's values from the cache key "16,1,1,...", written in
 * tune_params_keys order: for entries that do not repeat the parameters as
 * fields. */
static int kernel_tuner_values_from_key(const char *path, const replay_dataset *d, const char *key,
                                        const char *shown_key, skytune_value *values,
                                        skytune_error *err)
{
    size_t pieces = 1;
    for (const char *c = key; *c; c++) pieces += *c == ',';
    if (pieces != d->n_params)
        return err_set(err, "%s: cache entry \"%s\": the key has %zu values for %zu parameters "
                       "(tune_params_keys), and the entry does not name its parameters", path,
                       shown_key, pieces, d->n_params);
    const char *piece = key;
    for (size_t k = 0; k < d->n_params; k++) {
        const char *comma = strchr(piece, ',');
        size_t len = comma ? (size_t)(comma - piece) : strlen(piece);
        char *text = malloc(len + 1);
        if (!text) return err_set(err, "%s: out of memory", path);
        memcpy(text, piece, len);
        text[len] = '\0';
        const param_def *p = &d->params[k];
        skytune_error value_err = {0};
        int rc = 0;
        /* Python writes booleans as True and False. */
        if (p->type == SKYTUNE_INT && (strcmp(text, "True") == 0 || strcmp(text, "False") == 0)) {
            memset(&values[k], 0, sizeof values[k]);
            values[k].type = SKYTUNE_INT;
            values[k].i = text[0] == 'T';
        } else if (value_parse(text, p->type, &values[k], &value_err) != 0) {
            char shown[QUOTE_TEXT];
            rc = err_set(err, "%s: cache entry \"%s\": value %zu of the key, '%s', is not a %s "
                         "like the values of parameter '%s'", path, shown_key, k + 1,
                         quote_text(text, shown, sizeof shown), type_name(p->type), p->name);
        }
        free(text);
        if (rc != 0) return -1;
        piece = comma ? comma + 1 : piece + len;
    }
    return 0;
}

static int kernel_tuner_entry(const char *path, replay_dataset *d, size_t *capacity,
                              const char *key, const json_t *fields, skytune_error *err)
{
    char key_shown[QUOTE_TEXT];
    quote_text(key, key_shown, sizeof key_shown);
    if (!json_is_object(fields))
        return err_set(err, "%s: cache entry \"%s\": expected an object", path, key_shown);
    replay_entry *e = new_entry(d, capacity);
    if (!e) return err_set(err, "%s: out of memory", path);

    bool named = true;
    for (size_t k = 0; k < d->n_params && named; k++)
        named = json_object_get(fields, d->params[k].name) != NULL;
    if (named) {
        for (size_t k = 0; k < d->n_params; k++) {
            param_def *p = &d->params[k];
            const json_t *v = json_object_get(fields, p->name);
            int rc = json_to_value(v, p->type, &e->values[k]);
            if (rc == -2) return err_set(err, "%s: out of memory", path);
            if (rc != 0) {
                char shown[QUOTED_JSON + 8];
                describe_json(v, shown, sizeof shown);
                return err_set(err, "%s: cache entry \"%s\": parameter '%s' is %s, not a %s like "
                               "its values in tune_params", path, key_shown, p->name, shown,
                               type_name(p->type));
            }
        }
    } else if (kernel_tuner_values_from_key(path, d, key, key_shown, e->values, err) != 0) {
        return -1;
    }
    for (size_t k = 0; k < d->n_params; k++) {
        if (find_value(&d->params[k], &e->values[k]) >= 0) continue;
        const char *fault = e->values[k].type == SKYTUNE_STRING
                                ? param_string_value_fault(e->values[k].s)
                                : NULL;
        if (fault) {
            char shown[QUOTE_TEXT];
            return err_set(err, "%s: cache entry \"%s\": parameter '%s' is \"%s\", which %s; %s",
                           path, key_shown, d->params[k].name,
                           quote_text(e->values[k].s, shown, sizeof shown), fault,
                           PARAM_STRING_VALUES);
        }
        if (param_append(&d->params[k], &e->values[k]) != 0)
            return err_set(err, "%s: cache entry \"%s\": cannot add a value to parameter '%s' "
                           "(out of memory, or more than %d values)", path, key_shown,
                           d->params[k].name, PARAM_MAX_VALUES);
    }

    const json_t *time = json_object_get(fields, "time");
    if (!time)
        return err_set(err, "%s: cache entry \"%s\": no \"time\" (the time in milliseconds, or "
                       "a failure such as \"CompilationFailedConfig\")", path, key_shown);
    if (json_is_number(time)) {
        double ms = json_number_value(time);
        if (!is_kernel_time(ms * 1e6))
            return err_set(err, "%s: cache entry \"%s\": \"time\" is %g ms; a recorded time is a "
                           "positive, finite number of milliseconds", path, key_shown, ms);
        e->status = MEAS_OK;
        e->time_ns = ms * 1e6;
    } else if (json_is_string(time)) {
        e->status = kernel_tuner_failure(json_string_value(time));
        e->time_ns = 0.0;
    } else {
        char shown[QUOTED_JSON + 8];
        describe_json(time, shown, sizeof shown);
        return err_set(err, "%s: cache entry \"%s\": \"time\" is %s; expected milliseconds or "
                       "the name of a failure such as \"RuntimeFailedConfig\"", path, key_shown,
                       shown);
    }
    char where[32 + QUOTE_TEXT];
    snprintf(where, sizeof where, "cache entry \"%s\"", key_shown);
    if (phase_seconds(path, where, "compile_time", json_object_get(fields, "compile_time"), 1e6,
                      &e->compile_s, err) != 0 ||
        phase_seconds(path, where, "benchmark_time", json_object_get(fields, "benchmark_time"),
                      1e6, &e->bench_s, err) != 0)
        return -1;
    return 0;
}

static int load_kernel_tuner(const char *path, const json_t *root, replay_dataset *d,
                             skytune_error *err)
{
    const json_t *tune_params = json_object_get(root, "tune_params");
    if (!json_is_object(tune_params))
        return err_set(err, "%s: a Kernel Tuner cache needs a \"tune_params\" object (each "
                       "parameter's list of values)", path);
    const json_t *keys = json_object_get(root, "tune_params_keys");
    if (keys && !json_is_array(keys))
        return err_set(err, "%s: \"tune_params_keys\" must be an array of parameter names", path);
    /* The cache keys list values in tune_params_keys order; without it,
     * tune_params' own order is the only one there is. */
    size_t n = keys ? json_array_size(keys) : json_object_size(tune_params);
    if (n == 0) return err_set(err, "%s: the cache declares no tuning parameters", path);
    d->params = calloc(n, sizeof *d->params);
    if (!d->params) return err_set(err, "%s: out of memory", path);
    d->n_params = n;
    const char *key;
    const json_t *list;
    size_t k = 0;
    if (keys) {
        for (k = 0; k < n; k++) {
            const char *name = json_string_value(json_array_get(keys, k));
            if (!name)
                return err_set(err, "%s: tune_params_keys item %zu is not a parameter name",
                               path, k + 1);
            list = json_object_get(tune_params, name);
            char shown[QUOTE_TEXT];
            if (!list)
                return err_set(err, "%s: tune_params_keys names '%s', which tune_params does "
                               "not list", path, quote_text(name, shown, sizeof shown));
            if (param_from_json_list(path, "tune_params", name, list, &d->params[k], err) != 0)
                return -1;
            if (find_param(d, name) != (int)k)
                return err_set(err, "%s: tune_params_keys names '%s' twice", path,
                               quote_text(name, shown, sizeof shown));
        }
    } else {
        json_object_foreach((json_t *)tune_params, key, list) {
            if (param_from_json_list(path, "tune_params", key, list, &d->params[k], err) != 0)
                return -1;
            k++;
        }
    }

    const json_t *cache = json_object_get(root, "cache");
    size_t capacity = 0;
    const json_t *fields;
    json_object_foreach((json_t *)cache, key, fields) {
        if (kernel_tuner_entry(path, d, &capacity, key, fields, err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ T4 */

typedef struct time_unit {
    const char *name;
    double ns;
} time_unit;

/* T4's metadata.timeunit values (and the spelling "miliseconds" that Kernel
 * Tuner's T4 writer uses), and the short forms a measurement's unit may
 * have. */
static const time_unit time_units[] = {
    {"nanoseconds", 1.0},   {"ns", 1.0},     {"microseconds", 1e3}, {"us", 1e3},
    {"milliseconds", 1e6},  {"miliseconds", 1e6}, {"ms", 1e6},     {"seconds", 1e9},
    {"s", 1e9},
};

static int time_unit_ns(const char *name, double *ns)
{
    for (size_t k = 0; k < sizeof time_units / sizeof time_units[0]; k++)
        if (strcmp(time_units[k].name, name) == 0) {
            *ns = time_units[k].ns;
            return 0;
        }
    return -1;
}

typedef struct t4_status {
    const char *invalidity;
    measurement_status status;
    bool in_space; /* false: the configuration breaks the constraints */
} t4_status;

static const t4_status t4_statuses[] = {
    {"correct", MEAS_OK, true},          {"compile", MEAS_COMPILE, true},
    {"runtime", MEAS_LAUNCH, true},      {"timeout", MEAS_TIMEOUT, true},
    {"correctness", MEAS_WRONG_RESULT, true}, {"constraints", MEAS_LAUNCH, false},
};

static const t4_status *t4_find_status(const char *invalidity)
{
    for (size_t k = 0; k < sizeof t4_statuses / sizeof t4_statuses[0]; k++)
        if (strcmp(t4_statuses[k].invalidity, invalidity) == 0) return &t4_statuses[k];
    return NULL;
}

/* The result's status, or NULL with a message. */
static const t4_status *t4_result_status(const char *path, size_t number, const json_t *result,
                                         skytune_error *err)
{
    const char *invalidity = json_string_value(json_object_get(result, "invalidity"));
    if (!invalidity) {
        err_set(err, "%s: result %zu: no \"invalidity\" (one of correct, compile, runtime, "
                "timeout, correctness, constraints)", path, number);
        return NULL;
    }
    const t4_status *s = t4_find_status(invalidity);
    char shown[QUOTE_TEXT];
    if (!s)
        err_set(err, "%s: result %zu: unknown invalidity \"%s\"; expected one of correct, "
                "compile, runtime, timeout, correctness, constraints", path, number,
                quote_text(invalidity, shown, sizeof shown));
    return s;
}

/* The configuration object of result `number`, checked to name exactly the
 * dataset's parameters. */
static const json_t *t4_configuration(const char *path, size_t number, const json_t *result,
                                      const replay_dataset *d, skytune_error *err)
{
    const json_t *config = json_object_get(result, "configuration");
    if (!json_is_object(config)) {
        err_set(err, "%s: result %zu: no \"configuration\" object", path, number);
        return NULL;
    }
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)config, name, value) {
        if (find_param(d, name) < 0) {
            char shown[QUOTE_TEXT];
            err_set(err, "%s: result %zu: parameter '%s' does not appear in the first result's "
                    "configuration", path, number, quote_text(name, shown, sizeof shown));
            return NULL;
        }
    }
    if (json_object_size(config) != d->n_params) {
        err_set(err, "%s: result %zu: the configuration has %zu values for %zu parameters", path,
                number, json_object_size(config), d->n_params);
        return NULL;
    }
    return config;
}

/* The recorded time of a result in ns: the measurement named "time" (in its
 * own unit, or the file's), or the median of its runtimes. */
static int t4_time_ns(const char *path, size_t number, const json_t *result, double unit_ns,
                      double *time_ns, skytune_error *err)
{
    const json_t *measurements = json_object_get(result, "measurements");
    for (size_t k = 0; k < json_array_size(measurements); k++) {
        const json_t *m = json_array_get(measurements, k);
        const char *name = json_string_value(json_object_get(m, "name"));
        if (!name || strcmp(name, "time") != 0) continue;
        const json_t *value = json_object_get(m, "value");
        if (!json_is_number(value))
            return err_set(err, "%s: result %zu: invalidity is \"correct\" but the \"time\" "
                           "measurement is not a number", path, number);
        double scale = unit_ns;
        const char *unit = json_string_value(json_object_get(m, "unit"));
        char shown[QUOTE_TEXT];
        if (unit && *unit && time_unit_ns(unit, &scale) != 0)
            return err_set(err, "%s: result %zu: unknown time unit \"%s\"; expected ns, us, ms, s "
                           "or their long names", path, number, quote_text(unit, shown, sizeof shown));
        double t = json_number_value(value) * scale;
        if (!is_kernel_time(t))
            return err_set(err, "%s: result %zu: the \"time\" measurement is %g %s; a recorded "
                           "time is a positive, finite number", path, number,
                           json_number_value(value),
                           unit && *unit ? quote_text(unit, shown, sizeof shown) : "(the file's unit)");
        *time_ns = t;
        return 0;
    }
    const json_t *runtimes = json_object_get(json_object_get(result, "times"), "runtimes");
    size_t n = json_array_size(runtimes);
    if (n == 0)
        return err_set(err, "%s: result %zu: neither a \"time\" measurement nor runtimes", path,
                       number);
    double *samples = malloc(n * sizeof *samples);
    if (!samples) return err_set(err, "%s: out of memory", path);
    for (size_t k = 0; k < n; k++) samples[k] = json_number_value(json_array_get(runtimes, k));
    stats_summary s;
    int rc = stats_summarise(samples, n, &s);
    free(samples);
    if (rc != 0) return err_set(err, "%s: result %zu: cannot summarise its runtimes", path, number);
    *time_ns = s.median * unit_ns;
    return 0;
}

/* Every runtime of a result (checked whether or not it ran: a file that
 * records a negative or non-numeric run is not to be trusted), and their
 * total in seconds. */
static int t4_runtimes(const char *path, size_t number, const json_t *times, double unit_ns,
                       double *total_s, skytune_error *err)
{
    const json_t *runtimes = json_object_get(times, "runtimes");
    *total_s = 0.0;
    if (!runtimes) return 0;
    if (!json_is_array(runtimes))
        return err_set(err, "%s: result %zu: \"runtimes\" is not an array of times", path,
                       number);
    double total = 0.0;
    for (size_t k = 0; k < json_array_size(runtimes); k++) {
        const json_t *run = json_array_get(runtimes, k);
        if (!json_is_number(run) || !is_kernel_time(json_number_value(run) * unit_ns)) {
            char shown[QUOTED_JSON + 8];
            describe_json(run, shown, sizeof shown);
            return err_set(err, "%s: result %zu: runtime %zu is %s; a recorded time is a "
                           "positive, finite number", path, number, k + 1, shown);
        }
        total += json_number_value(run) * unit_ns / 1e9;
    }
    if (!is_phase_time(total))
        return err_set(err, "%s: result %zu: its runtimes add up to more than any time", path,
                       number);
    *total_s = total;
    return 0;
}

/* A growing list of distinct values, one per parameter while loading. */
typedef struct value_set {
    skytune_value *items;
    size_t count, capacity;
} value_set;

static void value_set_free(value_set *s)
{
    for (size_t k = 0; k < s->count; k++) value_clear(&s->items[k]);
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* Adds a copy of v unless an equal value is there. */
static int value_set_add(value_set *s, const skytune_value *v)
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

/* Parameter lists from values seen (no declaration exists): numbers in
 * ascending order, so that adjacent values are neighbours; strings in the
 * order they first appear. */
static int params_from_sets(const char *path, replay_dataset *d, value_set *sets,
                            skytune_error *err)
{
    for (size_t k = 0; k < d->n_params; k++) {
        param_def *p = &d->params[k];
        value_set *s = &sets[k];
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

static int load_t4(const char *path, const json_t *root, replay_dataset *d, skytune_error *err)
{
    const json_t *results = json_object_get(root, "results");
    size_t n_results = json_array_size(results);
    if (n_results == 0) return err_set(err, "%s: the \"results\" array is empty", path);

    double unit_ns = 1e6;
    const json_t *metadata = json_object_get(root, "metadata");
    const char *unit = json_string_value(json_object_get(metadata, "timeunit"));
    char shown[QUOTE_TEXT];
    if (unit && time_unit_ns(unit, &unit_ns) != 0)
        return err_set(err, "%s: metadata.timeunit \"%s\" is not one of nanoseconds, "
                       "microseconds, milliseconds, seconds", path,
                       quote_text(unit, shown, sizeof shown));

    /* The first result's configuration gives the parameters and their
     * order; the file declares them nowhere else. */
    const json_t *first = json_object_get(json_array_get(results, 0), "configuration");
    if (!json_is_object(first) || json_object_size(first) == 0)
        return err_set(err, "%s: result 1: no \"configuration\" object with parameters", path);
    d->n_params = json_object_size(first);
    d->params = calloc(d->n_params, sizeof *d->params);
    if (!d->params) {
        d->n_params = 0;
        return err_set(err, "%s: out of memory", path);
    }
    json_kinds *kinds = calloc(d->n_params, sizeof *kinds);
    value_set *sets = calloc(d->n_params, sizeof *sets);
    int rc = 0;
    if (!kinds || !sets) {
        rc = err_set(err, "%s: out of memory", path);
        goto done;
    }
    size_t k = 0;
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)first, name, value) {
        d->params[k].name = strdup(name);
        if (!d->params[k].name) {
            rc = err_set(err, "%s: out of memory", path);
            goto done;
        }
        k++;
    }

    /* Pass 1: check every result and learn each parameter's type. */
    for (size_t r = 0; r < n_results; r++) {
        const json_t *result = json_array_get(results, r);
        if (!json_is_object(result)) {
            rc = err_set(err, "%s: result %zu is not an object", path, r + 1);
            goto done;
        }
        const json_t *config = t4_configuration(path, r + 1, result, d, err);
        if (!config || !t4_result_status(path, r + 1, result, err)) {
            rc = -1;
            goto done;
        }
        for (k = 0; k < d->n_params; k++)
            json_kinds_add(&kinds[k], json_object_get(config, d->params[k].name));
    }
    for (k = 0; k < d->n_params; k++) {
        if (json_kinds_type(&kinds[k], &d->params[k].type) != 0) {
            rc = err_set(err, "%s: parameter '%s': values must be all numbers or all strings",
                         path, d->params[k].name);
            goto done;
        }
    }

    /* Pass 2: the entries, and the values seen. */
    size_t capacity = 0;
    for (size_t r = 0; r < n_results; r++) {
        const json_t *result = json_array_get(results, r);
        const t4_status *s = t4_result_status(path, r + 1, result, err);
        if (!s->in_space) continue;
        const json_t *config = json_object_get(result, "configuration");
        replay_entry *e = new_entry(d, &capacity);
        if (!e) {
            rc = err_set(err, "%s: out of memory", path);
            goto done;
        }
        for (k = 0; k < d->n_params; k++) {
            if (json_to_value(json_object_get(config, d->params[k].name), d->params[k].type,
                              &e->values[k]) != 0 ||
                value_set_add(&sets[k], &e->values[k]) != 0) {
                rc = err_set(err, "%s: out of memory", path);
                goto done;
            }
        }
        e->status = s->status;
        const json_t *times = json_object_get(result, "times");
        /* T4 has no benchmark total; the runs themselves are the closest. */
        if (t4_runtimes(path, r + 1, times, unit_ns, &e->bench_s, err) != 0 ||
            (s->status == MEAS_OK &&
             t4_time_ns(path, r + 1, result, unit_ns, &e->time_ns, err) != 0)) {
            rc = -1;
            goto done;
        }
        const char *compile_name = "compilation";
        const json_t *compilation = json_object_get(times, compile_name);
        if (!compilation) compilation = json_object_get(times, compile_name = "compilation_time");
        char where[32];
        snprintf(where, sizeof where, "result %zu", r + 1);
        if (phase_seconds(path, where, compile_name, compilation, unit_ns, &e->compile_s, err) !=
            0) {
            rc = -1;
            goto done;
        }
    }
    if (d->n_entries == 0) {
        rc = err_set(err, "%s: every result breaks the constraints; nothing to replay", path);
        goto done;
    }
    rc = params_from_sets(path, d, sets, err);
done:
    if (sets)
        for (k = 0; k < d->n_params; k++) value_set_free(&sets[k]);
    free(sets);
    free(kinds);
    return rc;
}

/* ------------------------------------------------------------ skytune */

typedef struct sql_reader {
    const char *path;
    sqlite3 *db;
} sql_reader;

static int sql_fail(const sql_reader *r, skytune_error *err, const char *what)
{
    return err_set(err, "%s: %s: %s", r->path, what, sqlite3_errmsg(r->db));
}

/* One integer from a query without parameters, or `fallback` when it
 * returns no row. */
static int sql_single_int(const sql_reader *r, const char *sql, int64_t fallback, int64_t *out,
                          skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(r->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        if ((rc & 0xff) == SQLITE_NOTADB)
            err_set(err, "%s is not a SQLite database", r->path);
        else
            sql_fail(r, err, "cannot read the database");
        sqlite3_finalize(s);
        return -1;
    }
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : fallback;
    sqlite3_finalize(s);
    return 0;
}

/* "1 (vector_add on Test GPU, random), 2 (...)" for messages. */
static void list_campaigns(const sql_reader *r, char *buf, size_t len)
{
    buf[0] = '\0';
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT k.id, p.name, d.name, k.strategy FROM campaigns k"
                           " JOIN plugins p ON p.id = k.plugin_id"
                           " JOIN devices d ON d.id = k.device_id ORDER BY k.id",
                           -1, &s, NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return;
    }
    size_t used = 0;
    while (sqlite3_step(s) == SQLITE_ROW && used < len) {
        char plugin[QUOTE_TEXT], device[QUOTE_TEXT], strategy[QUOTE_TEXT];
        quote_text((const char *)sqlite3_column_text(s, 1), plugin, sizeof plugin);
        quote_text((const char *)sqlite3_column_text(s, 2), device, sizeof device);
        quote_text((const char *)sqlite3_column_text(s, 3), strategy, sizeof strategy);
        int n = snprintf(buf + used, len - used, "%s%lld (%s on %s, %s)", used ? ", " : "",
                         (long long)sqlite3_column_int64(s, 0), plugin, device, strategy);
        if (n < 0) break;
        used += (size_t)n;
    }
    sqlite3_finalize(s);
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
 * NULL: none), or the database's only one. */
static int choose_campaign(const sql_reader *r, const char *file, const char *selector,
                           int64_t *campaign, skytune_error *err)
{
    int64_t count = 0;
    if (sql_single_int(r, "SELECT count(*) FROM campaigns", 0, &count, err) != 0) return -1;
    char listed[600];
    int64_t wanted = selector ? parse_campaign_id(selector) : 0;
    if (selector && wanted == 0) {
        char shown_selector[QUOTE_TEXT], shown_file[QUOTE_TEXT];
        quote_text(selector, shown_selector, sizeof shown_selector);
        quote_text(file, shown_file, sizeof shown_file);
        list_campaigns(r, listed, sizeof listed);
        return err_set(err, "%s: '%s' is not a campaign of %s; a campaign is chosen as %s:ID, ID "
                       "a positive number: %s", r->path, shown_selector, shown_file, shown_file,
                       count ? listed : "the database has no campaigns");
    }
    if (wanted > 0) {
        sqlite3_stmt *s = NULL;
        int rc = sqlite3_prepare_v2(r->db, "SELECT 1 FROM campaigns WHERE id = ?1", -1, &s, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_bind_int64(s, 1, wanted);
        if (rc == SQLITE_OK) rc = sqlite3_step(s);
        sqlite3_finalize(s);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return sql_fail(r, err, "cannot read the campaigns");
        if (rc == SQLITE_DONE) {
            list_campaigns(r, listed, sizeof listed);
            return err_set(err, "%s: no campaign %lld; %s", r->path, (long long)wanted,
                           count ? listed : "the database has no campaigns");
        }
        *campaign = wanted;
        return 0;
    }
    if (count == 0) return err_set(err, "%s: the database has no campaigns to replay", r->path);
    if (count > 1) {
        list_campaigns(r, listed, sizeof listed);
        return err_set(err, "%s holds %lld campaigns; name one as %s:ID. Campaigns: %s", r->path,
                       (long long)count, r->path, listed);
    }
    return sql_single_int(r, "SELECT id FROM campaigns", 0, campaign, err);
}

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
    char number[NUMBER_TEXT];
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
    value_set *sets = calloc(d->n_params, sizeof *sets);
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
            if (rc == 0 && value_set_add(&sets[k], v) != 0)
                rc = err_set(err, "%s: out of memory", path);
        }
    }
    if (rc == 0) rc = params_from_sets(path, d, sets, err);
    for (size_t k = 0; k < d->n_params; k++) value_set_free(&sets[k]);
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

static int skytune_row(const char *path, replay_dataset *d, size_t *capacity, sqlite3_stmt *s,
                       pair_spans *spans, skytune_error *err)
{
    const char *text = (const char *)sqlite3_column_text(s, 0);
    if (!text) return err_set(err, "%s: a configuration without text", path);
    char shown[QUOTE_TEXT];
    quote_text(text, shown, sizeof shown);
    size_t n = count_pairs(text);
    if (pair_spans_reserve(spans, n) != 0) return err_set(err, "%s: out of memory", path);
    text_span *names = spans->names, *values = spans->values;
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
    replay_entry *e = new_entry(d, capacity);
    if (!e) return err_set(err, "%s: out of memory", path);
    for (size_t k = 0; k < n; k++) {
        /* The store writes parameters in declaration order, so each name is
         * where the first configuration had it. */
        if (names[k].length != strlen(d->params[k].name) ||
            memcmp(names[k].begin, d->params[k].name, names[k].length) != 0)
            return err_set(err, "%s: configuration \"%s\": parameter %zu is not '%s'", path, shown,
                           k + 1, d->params[k].name);
        e->values[k].type = SKYTUNE_STRING;
        if (!(e->values[k].s = span_copy(values[k])))
            return err_set(err, "%s: out of memory", path);
    }
    const char *status = (const char *)sqlite3_column_text(s, 1);
    int parsed = status ? measurement_status_parse(status) : -1;
    char status_shown[QUOTE_TEXT];
    quote_text(status, status_shown, sizeof status_shown);
    if (parsed < 0)
        return err_set(err, "%s: configuration \"%s\": unknown status '%s'", path, shown,
                       status_shown);
    e->status = (measurement_status)parsed;
    /* A database written by hand (or by another program) can hold anything
     * in a REAL column: text, NULL, a negative number. */
    static const char *const columns[] = {"median_ns", "build_s", "bench_s"};
    for (int c = 2; c <= 4; c++) {
        int type = sqlite3_column_type(s, c);
        double v = sqlite3_column_double(s, c);
        bool numeric = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
        bool fine = c == 2 ? e->status != MEAS_OK || (numeric && is_kernel_time(v))
                           : numeric && is_phase_time(v);
        if (!fine) {
            const char *recorded = (const char *)sqlite3_column_text(s, c);
            char recorded_shown[QUOTE_TEXT];
            quote_text(recorded, recorded_shown, sizeof recorded_shown);
            return err_set(err, "%s: configuration \"%s\" (%s): %s is %s%s%s; a recorded %s is a "
                           "%s, finite number", path, shown, status_shown, columns[c - 2],
                           recorded ? "'" : "", recorded ? recorded_shown : "NULL",
                           recorded ? "'" : "", c == 2 ? "time" : "phase time",
                           c == 2 ? "positive" : "non-negative");
        }
    }
    e->time_ns = e->status == MEAS_OK ? sqlite3_column_double(s, 2) : 0.0;
    e->compile_s = sqlite3_column_double(s, 3);
    e->bench_s = sqlite3_column_double(s, 4);
    return 0;
}

static int read_skytune_campaign(const sql_reader *r, int64_t campaign, replay_dataset *d,
                                 skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT d.name FROM campaigns k JOIN devices d ON d.id = k.device_id"
                           " WHERE k.id = ?1",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(s, 1, campaign) != SQLITE_OK) {
        sqlite3_finalize(s);
        return sql_fail(r, err, "cannot read the campaign");
    }
    int rc = sqlite3_step(s);
    /* The dataset's name is shown and recorded as a device name. */
    char device[QUOTE_TEXT];
    quote_text(rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL, device,
               sizeof device);
    d->name = strdup(device);
    sqlite3_finalize(s);
    if (!d->name) return err_set(err, "%s: out of memory", r->path);

    /* Every configuration the campaign evaluated, measured by it or reused
     * from an earlier campaign, in evaluation order. */
    if (sqlite3_prepare_v2(r->db,
                           "SELECT c.text, m.status, m.median_ns, m.build_s, m.bench_s"
                           " FROM evaluations e JOIN measurements m ON m.id = e.measurement_id"
                           " JOIN configurations c ON c.id = m.configuration_id"
                           " WHERE e.campaign_id = ?1 ORDER BY e.seq",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(s, 1, campaign) != SQLITE_OK) {
        sqlite3_finalize(s);
        return sql_fail(r, err, "cannot read the measurements");
    }
    pair_spans spans = {0};
    size_t capacity = 0;
    rc = 0;
    int step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = skytune_row(r->path, d, &capacity, s, &spans, err);
    if (rc == 0 && step != SQLITE_DONE) rc = sql_fail(r, err, "cannot read the measurements");
    sqlite3_finalize(s);
    free(spans.names);
    free(spans.values);
    if (rc != 0) return -1;
    if (d->n_entries == 0)
        return err_set(err, "%s: campaign %lld has no evaluations to replay", r->path,
                       (long long)campaign);
    return type_skytune_params(r->path, d, err);
}

/* Whether FILE-wal exists and is not empty. When in doubt, yes. */
static bool wal_has_frames(const char *file)
{
    size_t length = strlen(file) + sizeof "-wal";
    char *wal = malloc(length);
    if (!wal) return true;
    snprintf(wal, length, "%s-wal", file);
    struct stat info;
    bool has_frames = stat(wal, &info) != 0 ? errno != ENOENT : info.st_size > 0;
    free(wal);
    return has_frames;
}

/* Replaying a database only reads it; the file and its folder stay as
 * they were. A connection opened read-only to a WAL database creates the
 * -wal and -shm files and, unable to checkpoint, leaves them behind; a
 * read-write connection that only reads removes them on close, and its
 * checkpoint of an empty WAL writes nothing. So: read-write (without
 * creating) when the WAL is absent or empty; read-only when it holds frames
 * (a writer is at work or was killed: checkpointing them would be writing,
 * and the files exist already), or when the file cannot be opened for
 * writing at all. */
static int open_database_for_reading(const char *path, const char *file, sqlite3 **db,
                                     skytune_error *err)
{
    *db = NULL;
    if (!wal_has_frames(file)) {
        if (sqlite3_open_v2(file, db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) return 0;
        sqlite3_close(*db);
        *db = NULL;
    }
    if (sqlite3_open_v2(file, db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) return 0;
    int rc = err_set(err, "%s: cannot open: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
    sqlite3_close(*db);
    *db = NULL;
    return rc;
}

static int load_skytune(const char *path, const char *file, const char *selector,
                        replay_dataset *d, skytune_error *err)
{
    sql_reader r = {.path = path, .db = NULL};
    if (open_database_for_reading(path, file, &r.db, err) != 0) return -1;
    /* Whatever the connection could do, this one only reads. */
    if (sqlite3_exec(r.db, "PRAGMA query_only = ON", NULL, NULL, NULL) != SQLITE_OK) {
        int rc = sql_fail(&r, err, "cannot read the database");
        sqlite3_close(r.db);
        return rc;
    }
    sqlite3_busy_timeout(r.db, 5000);
    int64_t application_id = 0, version = 0, campaign = 0;
    int rc = sql_single_int(&r, "PRAGMA application_id", 0, &application_id, err);
    if (rc == 0) rc = sql_single_int(&r, "PRAGMA user_version", 0, &version, err);
    if (rc == 0 && application_id != STORE_APPLICATION_ID)
        rc = err_set(err, "%s is a SQLite database of another application (application_id "
                     "0x%08X), not a skytune result database", path,
                     (unsigned)(uint32_t)application_id);
    if (rc == 0 && version > STORE_SCHEMA_VERSION)
        rc = err_set(err, "%s has schema version %lld, newer than this skytune (%d)", path,
                     (long long)version, STORE_SCHEMA_VERSION);
    if (rc == 0) rc = choose_campaign(&r, file, selector, &campaign, err);
    if (rc == 0) rc = read_skytune_campaign(&r, campaign, d, err);
    sqlite3_close(r.db);
    return rc;
}

/* "FILE.db:SELECTOR" split at its last colon: FILE.db (malloc'd) and what
 * follows. False when there is no colon with text on both sides. */
static bool split_campaign_suffix(const char *path, char **file, const char **selector)
{
    const char *colon = strrchr(path, ':');
    if (!colon || colon == path || !colon[1]) return false;
    *file = malloc((size_t)(colon - path) + 1);
    if (!*file) return false;
    memcpy(*file, path, (size_t)(colon - path));
    (*file)[colon - path] = '\0';
    *selector = colon + 1;
    return true;
}

/* A path that cannot be opened as it is may be "FILE.db:CAMPAIGN". */
static int load_campaign_suffix(const char *path, const char *name, int open_errno,
                                replay_dataset *d, skytune_error *err)
{
    char *db_file = NULL;
    const char *selector = NULL;
    if (!split_campaign_suffix(path, &db_file, &selector))
        return err_set(err, "%s: cannot open: %s", name, strerror(open_errno));
    unsigned char start[sizeof sqlite_magic];
    size_t got = 0;
    int file_errno = 0;
    char shown_file[QUOTE_TEXT];
    quote_text(db_file, shown_file, sizeof shown_file);
    int rc;
    if (read_file_start(db_file, start, sizeof start, &got, &file_errno) != 0) {
        rc = err_set(err, "%s: cannot open: %s; nor can %s, as a database whose campaign is "
                     "chosen with :ID: %s", name, strerror(open_errno), shown_file,
                     strerror(file_errno));
    } else if (!is_sqlite(start, got)) {
        rc = err_set(err, "%s: cannot open: %s; and %s is not a skytune database, whose "
                     "campaigns are chosen with FILE.db:ID", name, strerror(open_errno),
                     shown_file);
    } else {
        d->format = REPLAY_SKYTUNE;
        rc = load_skytune(name, db_file, selector, d, err);
    }
    free(db_file);
    return rc;
}

/* ------------------------------------------------------------ loading */

int replay_load(const char *path, uint64_t max_json_bytes, replay_dataset **out,
                skytune_error *err)
{
    *out = NULL;
    if (!path || !*path) return err_set(err, "no dataset file given");
    /* The path as messages quote it; the loaders below only name it. */
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    replay_dataset *d = calloc(1, sizeof *d);
    if (!d) return err_set(err, "%s: out of memory", name);

    unsigned char start[sizeof sqlite_magic];
    size_t got = 0;
    int open_errno = 0;
    int rc = 0;
    if (read_file_start(path, start, sizeof start, &got, &open_errno) != 0) {
        rc = load_campaign_suffix(path, name, open_errno, d, err);
    } else if (is_sqlite(start, got)) {
        d->format = REPLAY_SKYTUNE;
        rc = load_skytune(name, path, NULL, d, err);
    } else {
        json_t *root = NULL;
        rc = replay_read_json(path, max_json_bytes, &root, err);
        if (rc == 0) {
            if (json_is_object(json_object_get(root, "cache"))) {
                d->format = REPLAY_KERNEL_TUNER;
                rc = load_kernel_tuner(name, root, d, err);
            } else if (json_is_array(json_object_get(root, "results"))) {
                d->format = REPLAY_T4;
                rc = load_t4(name, root, d, err);
            } else {
                rc = err_set(err, "%s: neither a Kernel Tuner cache (no \"cache\" object) nor T4 "
                             "results (no \"results\" array)", name);
            }
            json_decref(root);
        }
        if (rc == 0 && !(d->name = name_from_path(path)))
            rc = err_set(err, "%s: out of memory", name);
    }
    if (rc != 0) {
        replay_free(d);
        return -1;
    }
    *out = d;
    return 0;
}

int replay_dataset_space(const replay_dataset *d, space **out, skytune_error *err)
{
    *out = NULL;
    if (d->n_params == 0) return err_set(err, "dataset %s has no parameters", d->name);
    space_spec spec = {.params = d->params, .n_params = d->n_params};
    if (space_build(&spec, out, err) != 0) return err_prefix(err, "dataset %s", d->name);
    return 0;
}

/* ------------------------------------------------------------ evaluator */

/* What the dataset recorded for one configuration of the space. */
typedef struct replay_record {
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

/* The canonical text of a value, as configurations spell it. */
static const char *value_text(const skytune_value *v, char *number, size_t len)
{
    if (v->type == SKYTUNE_STRING) return v->s ? v->s : "";
    value_format(v, number, len);
    return number;
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
        char number[NUMBER_TEXT];
        const char *text = value_text(&p->values[v], number, sizeof number);
        size_t k = (size_t)space_text_hash(text) & vi->mask;
        while (vi->slots[k]) k = (k + 1) & vi->mask;
        vi->slots[k] = (uint32_t)v + 1;
    }
    return 0;
}

/* Index of the space value with v's canonical text, or -1. */
static long value_index_find(const value_index *vi, const skytune_value *v)
{
    char number[NUMBER_TEXT], other[NUMBER_TEXT];
    const char *text = value_text(v, number, sizeof number);
    size_t k = (size_t)space_text_hash(text) & vi->mask;
    for (; vi->slots[k]; k = (k + 1) & vi->mask) {
        uint32_t index = vi->slots[k] - 1;
        if (strcmp(value_text(&vi->param->values[index], other, sizeof other), text) == 0)
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
        int j = find_param(d, name);
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
        if (re->slots[k].record != NO_RECORD) continue;
        if (re->n_records >= NO_RECORD)
            return err_set(err, "dataset %s: too many entries", d->name);
        replay_record *r = &re->records[re->n_records];
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
