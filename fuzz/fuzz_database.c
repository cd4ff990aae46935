/* libFuzzer harness: the skytune-database reader of replay
 * (framework/engine/replay/skytune_database.c, reading through
 * db/store_reader.c).
 *
 * Two kinds of input. One that starts with SQLite's header is the database
 * file itself (the corpus holds a small real one), so that mutations reach
 * SQLite's own checks of a corrupt file. Any other is up to six lines of
 * "text<TAB>status<TAB>median_ns<TAB>build_s<TAB>bench_s" written over the
 * rows of a real database made with the store (a number field is stored as
 * a number, "NULL" as NULL, anything else as text), so that the reader's
 * own parsing of configuration texts, statuses and times is what varies;
 * a first line "@SELECTOR" is read as "FILE.db:SELECTOR", the campaign to
 * replay. A campaign that loads is replayed over its spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz_support.h"
#include "measurement.h"
#include "space.h"
#include "store.h"

#define ROWS 6

static unsigned char *template_bytes;
static size_t template_len;

static const char *const param_names[] = {"wg", "mode"};
static const char *const row_texts[ROWS][2] = {{"16", "naive"}, {"32", "naive"}, {"64", "naive"},
                                               {"16", "tiled"}, {"32", "tiled"}, {"64", "tiled"}};

static void fail(const char *what, const skytune_error *err)
{
    fprintf(stderr, "fuzz_database: %s: %s\n", what, err ? err->message : "");
    abort();
}

/* A database as `skytune run` writes it: one campaign of ROWS measurements. */
static void make_template(void)
{
    const char *path = fuzz_path("template.db");
    store *st = NULL;
    skytune_error err = {0};
    skytune_device_info dev = {0};
    snprintf(dev.platform, sizeof dev.platform, "Fuzz Platform");
    snprintf(dev.name, sizeof dev.name, "Fuzz Device");
    int64_t device_id = 0, plugin_id = 0, problem_id = 0, campaign_id = 0;
    bool resumed = false;
    if (store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err) != 0 ||
        store_device_id(st, &dev, &device_id, &err) ||
        store_plugin_id(st, "fuzz", "1", "0", &(store_param_names){.tuning = param_names, .n_tuning = 2},
                        &plugin_id, &err) ||
        store_problem_id(st, plugin_id, "n=1", &problem_id, &err))
        fail("making the template database", &err);
    store_campaign_spec spec = {.plugin_id = plugin_id, .device_id = device_id,
                                .problem_id = problem_id, .strategy = "random",
                                .settings = "runs=1", .seed = 1};
    if (store_campaign_open(st, &spec, &campaign_id, &resumed, &err) != 0)
        fail("opening the template's campaign", &err);
    for (size_t k = 0; k < ROWS; k++) {
        char text[64];
        snprintf(text, sizeof text, "wg=%s,mode=%s", row_texts[k][0], row_texts[k][1]);
        measurement m;
        measurement_init(&m);
        m.status = MEAS_OK;
        double samples[] = {1000.0 + 100.0 * (double)k};
        measurement_set_samples(&m, samples, 1);
        if (store_record_measurement(st, campaign_id, (int64_t)k, text, space_text_hash(text),
                                     param_names, row_texts[k], 2, &m, NULL, &err) != 0)
            fail("recording the template's measurements", &err);
        measurement_clear(&m);
    }
    if (store_campaign_close(st, campaign_id, "done", &err) != 0)
        fail("closing the template's campaign", &err);
    store_close(st);
    FILE *f = fopen(path, "rb");
    if (!f) fail(path, NULL);
    fseek(f, 0, SEEK_END);
    template_len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    template_bytes = malloc(template_len);
    if (!template_bytes || fread(template_bytes, 1, template_len, f) != template_len)
        fail("reading the template", NULL);
    fclose(f);
}

/* Binds one field: a number as a number, "NULL" as NULL, else text. */
static void bind_field(sqlite3_stmt *s, int column, const char *text, size_t len)
{
    char buf[64];
    if (len < sizeof buf) {
        memcpy(buf, text, len);
        buf[len] = '\0';
        char *end;
        double v = strtod(buf, &end);
        if (len > 0 && *end == '\0') {
            sqlite3_bind_double(s, column, v);
            return;
        }
        if (strcmp(buf, "NULL") == 0) {
            sqlite3_bind_null(s, column);
            return;
        }
    }
    sqlite3_bind_text(s, column, text, (int)len, SQLITE_TRANSIENT);
}

/* Writes the input's lines over the template's rows; false when SQLite
 * refuses them (the schema's constraints), which is not the reader's to
 * handle. */
static bool write_rows(const char *path, const uint8_t *data, size_t size)
{
    fuzz_write_file(path, template_bytes, template_len);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *text_update = NULL, *measurement_update = NULL;
    sqlite3_prepare_v2(db, "UPDATE configurations SET text = ?1 WHERE id = ?2", -1,
                       &text_update, NULL);
    sqlite3_prepare_v2(db,
                       "UPDATE measurements SET status = coalesce(?1, status), median_ns = ?2, "
                       "build_s = ?3, bench_s = ?4 WHERE configuration_id = ?5",
                       -1, &measurement_update, NULL);
    bool fine = text_update && measurement_update;
    const char *at = (const char *)data, *end = at + size;
    for (int row = 1; fine && row <= ROWS && at < end; row++) {
        const char *line_end = memchr(at, '\n', (size_t)(end - at));
        if (!line_end) line_end = end;
        const char *field[5] = {at};
        size_t field_len[5] = {0}, n = 0;
        for (const char *f = at; n < 5 && f <= line_end;) {
            const char *tab = memchr(f, '\t', (size_t)(line_end - f));
            const char *stop = tab ? tab : line_end;
            field[n] = f;
            field_len[n++] = (size_t)(stop - f);
            f = stop + 1;
        }
        sqlite3_reset(text_update);
        sqlite3_bind_text(text_update, 1, field[0], (int)field_len[0], SQLITE_TRANSIENT);
        sqlite3_bind_int(text_update, 2, row);
        fine = sqlite3_step(text_update) == SQLITE_DONE;
        sqlite3_reset(measurement_update);
        sqlite3_clear_bindings(measurement_update);
        if (n > 1) sqlite3_bind_text(measurement_update, 1, field[1], (int)field_len[1], SQLITE_TRANSIENT);
        for (size_t k = 2; k < 5; k++) {
            if (k < n)
                bind_field(measurement_update, (int)k, field[k], field_len[k]);
            else
                sqlite3_bind_double(measurement_update, (int)k, 1.0);
        }
        sqlite3_bind_int(measurement_update, 5, row);
        fine = fine && sqlite3_step(measurement_update) == SQLITE_DONE;
        at = line_end + 1;
    }
    sqlite3_finalize(text_update);
    sqlite3_finalize(measurement_update);
    fine = fine && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return fine;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char magic[16] = "SQLite format 3";
    if (!template_bytes) make_template();
    char path[512], side[600];
    snprintf(path, sizeof path, "%s", fuzz_path("results.db"));
    /* What an earlier input's connection may have left beside the file. */
    const char *suffixes[] = {"-wal", "-shm", "-journal"};
    for (size_t k = 0; k < 3; k++) {
        snprintf(side, sizeof side, "%s%s", path, suffixes[k]);
        unlink(side);
    }
    char selected[640];
    snprintf(selected, sizeof selected, "%s", path);
    if (size >= sizeof magic && memcmp(data, magic, sizeof magic) == 0) {
        fuzz_write_file(path, data, size);
    } else {
        if (size > 0 && data[0] == '@') {
            const uint8_t *end = memchr(data, '\n', size);
            size_t len = end ? (size_t)(end - data) : size;
            /* The selector may hold anything but NUL, as a path can. */
            if (memchr(data, '\0', len) || len > 64) return 0;
            snprintf(selected, sizeof selected, "%s:%.*s", path, (int)(len - 1),
                     (const char *)data + 1);
            data += end ? len + 1 : len;
            size -= end ? len + 1 : len;
        }
        if (!write_rows(path, data, size)) return 0;
    }
    fuzz_replay_file(selected);
    return 0;
}
