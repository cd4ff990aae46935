#include "store_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "busy_wait.h"
#include "read_in_place.h"
#include "sqlite_message.h"
#include "store.h"

struct store_reader {
    char *name;     /* the file as messages name it */
    sqlite3 *db;
};

static int fail(const store_reader *r, skytune_error *err, const char *what)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "%s: %s: %s", r->name, what, db_error_text(r->db, why, sizeof why));
}

/* One integer from a statement without parameters, or `fallback` when it
 * returns no row. The first statement a connection runs is where a file
 * that is not a database shows itself. */
static int single_int(const store_reader *r, const char *sql, int64_t fallback, int64_t *out,
                      skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(r->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        if ((rc & 0xff) == SQLITE_NOTADB)
            err_set(err, "%s is not a SQLite database", r->name);
        else
            fail(r, err, "cannot read the database");
        sqlite3_finalize(s);
        return -1;
    }
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : fallback;
    sqlite3_finalize(s);
    return 0;
}

/* A skytune database this skytune can read: its application id, and a
 * schema version not newer than its own (an older one reads the same for
 * what a reader asks). */
static int check_header(const store_reader *r, skytune_error *err)
{
    int64_t application_id = 0, version = 0;
    if (single_int(r, "PRAGMA application_id", 0, &application_id, err) != 0 ||
        single_int(r, "PRAGMA user_version", 0, &version, err) != 0)
        return -1;
    if (application_id != STORE_APPLICATION_ID)
        return err_set(err, "%s is a SQLite database of another application (application_id "
                       "0x%08X), not a skytune result database", r->name,
                       (unsigned)(uint32_t)application_id);
    if (version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s has schema version %lld, newer than this skytune (%d)", r->name,
                       (long long)version, STORE_SCHEMA_VERSION);
    return 0;
}

int store_reader_open(const char *path, const char *name, store_reader **out,
                      skytune_error *err)
{
    *out = NULL;
    store_reader *r = calloc(1, sizeof *r);
    if (r) r->name = strdup(name);
    if (!r || !r->name) {
        free(r);
        return err_set(err, "%s: out of memory", name);
    }
    int rc = db_open_in_place(path, name, &r->db, err);
    /* Whatever the connection could do, this one only reads. */
    if (rc == 0 && sqlite3_exec(r->db, "PRAGMA query_only = ON", NULL, NULL, NULL) != SQLITE_OK)
        rc = fail(r, err, "cannot read the database");
    if (rc == 0) {
        /* A dataset is read as the reading commands read a database. */
        db_busy_wait_set(r->db, STORE_BUSY_TIMEOUT_S);
        rc = check_header(r, err);
    }
    if (rc != 0) {
        store_reader_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void store_reader_close(store_reader *r)
{
    if (!r) return;
    sqlite3_close(r->db);
    free(r->name);
    free(r);
}

int store_reader_campaign_count(store_reader *r, int64_t *count, skytune_error *err)
{
    return single_int(r, "SELECT count(*) FROM campaigns", 0, count, err);
}

int store_reader_only_campaign(store_reader *r, int64_t *id, skytune_error *err)
{
    return single_int(r, "SELECT id FROM campaigns", 0, id, err);
}

int store_reader_has_campaign(store_reader *r, int64_t id, bool *found, skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(r->db, "SELECT 1 FROM campaigns WHERE id = ?1", -1, &s, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_bind_int64(s, 1, id);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return fail(r, err, "cannot read the campaigns");
    *found = rc == SQLITE_ROW;
    return 0;
}

int store_reader_campaigns(store_reader *r,
                           int (*visit)(void *ctx, const store_reader_campaign *campaign),
                           void *ctx, skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT k.id, p.name, d.name, k.strategy FROM campaigns k"
                           " JOIN plugins p ON p.id = k.plugin_id"
                           " JOIN devices d ON d.id = k.device_id ORDER BY k.id",
                           -1, &s, NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return fail(r, err, "cannot read the campaigns");
    }
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        store_reader_campaign campaign = {
            .plugin = (const char *)sqlite3_column_text(s, 1),
            .device = (const char *)sqlite3_column_text(s, 2),
            .strategy = (const char *)sqlite3_column_text(s, 3),
            .id = sqlite3_column_int64(s, 0),
        };
        if (visit(ctx, &campaign) != 0) {
            step = SQLITE_DONE;
            break;
        }
    }
    int rc = step == SQLITE_DONE ? 0 : fail(r, err, "cannot read the campaigns");
    sqlite3_finalize(s);
    return rc;
}

int store_reader_device_name(store_reader *r, int64_t campaign, char **name,
                             skytune_error *err)
{
    *name = NULL;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT d.name FROM campaigns k JOIN devices d ON d.id = k.device_id"
                           " WHERE k.id = ?1",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(s, 1, campaign) != SQLITE_OK) {
        sqlite3_finalize(s);
        return fail(r, err, "cannot read the campaign");
    }
    /* A row that cannot be read gives no name; the evaluations that follow
     * meet the same fault and say so. */
    const char *found =
        sqlite3_step(s) == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    int rc = 0;
    if (found && !(*name = strdup(found))) rc = err_set(err, "%s: out of memory", r->name);
    sqlite3_finalize(s);
    return rc;
}

/* The columns of store_evaluation's times, after the text and the status. */
static const char *const time_columns[STORE_RECORDED_TIMES] = {"median_ns", "build_s", "bench_s"};
#define FIRST_TIME_COLUMN 2

const char *store_evaluation_time_text(const store_evaluation *e, int k)
{
    return (const char *)sqlite3_column_text(e->row, FIRST_TIME_COLUMN + k);
}

int store_reader_evaluations(store_reader *r, int64_t campaign,
                             int (*visit)(void *ctx, const store_evaluation *e), void *ctx,
                             skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT c.text, m.status, m.median_ns, m.build_s, m.bench_s"
                           " FROM evaluations e JOIN measurements m ON m.id = e.measurement_id"
                           " JOIN configurations c ON c.id = m.configuration_id"
                           " WHERE e.campaign_id = ?1 ORDER BY e.seq",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(s, 1, campaign) != SQLITE_OK) {
        sqlite3_finalize(s);
        return fail(r, err, "cannot read the measurements");
    }
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
        store_evaluation e = {
            .config_text = (const char *)sqlite3_column_text(s, 0),
            .status = (const char *)sqlite3_column_text(s, 1),
            .row = s,
        };
        for (int k = 0; k < STORE_RECORDED_TIMES; k++) {
            int type = sqlite3_column_type(s, FIRST_TIME_COLUMN + k);
            e.times[k] = (store_recorded_time){
                .column = time_columns[k],
                .numeric = type == SQLITE_INTEGER || type == SQLITE_FLOAT,
                .value = sqlite3_column_double(s, FIRST_TIME_COLUMN + k),
            };
        }
        if (visit(ctx, &e) != 0) rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE) rc = fail(r, err, "cannot read the measurements");
    sqlite3_finalize(s);
    return rc;
}
