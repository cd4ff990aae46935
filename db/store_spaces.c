#include "store_spaces.h"

#include <sqlite3.h>

#include "busy_wait.h"

static int fail(sqlite3 *db, skytune_error *err)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "database: recording the campaign's space: %s",
                   db_error_text(db, why, sizeof why));
}

static const char *kind_of(const space *sp, const space_rejection *r)
{
    if (r->constraint == SPACE_CALLBACK) return "callback";
    if (space_constraint_is_added(sp, r->constraint)) return "restriction";
    if (space_constraint_reads(sp, r->constraint, "device.")) return "device_limit";
    return "constraint";
}

static int step_done(sqlite3_stmt *q)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_rows(sqlite3 *db, int64_t campaign_id, const space *sp)
{
    sqlite3_stmt *q = NULL;
    int rc = 0;
    /* The product as a real, as space_rejections counts: it may pass 2^64. */
    double cartesian = 1.0;
    for (size_t k = 0; k < space_param_count(sp); k++)
        cartesian *= (double)space_param(sp, k)->count;
    if (sqlite3_prepare_v2(db, "DELETE FROM space_rejections WHERE campaign_id = ?1", -1, &q,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, campaign_id);
    rc = step_done(q);
    sqlite3_finalize(q);
    if (rc != 0) return -1;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO campaign_spaces (campaign_id, cartesian,"
                               " valid) VALUES (?1, ?2, ?3)", -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, campaign_id);
    sqlite3_bind_double(q, 2, cartesian);
    sqlite3_bind_double(q, 3, (double)space_count(sp));
    rc = step_done(q);
    sqlite3_finalize(q);
    if (rc != 0) return -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO space_rejections (campaign_id, position, kind, rule,"
                               " ruled_out) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &q, NULL) !=
        SQLITE_OK)
        return -1;
    size_t n;
    const space_rejection *r = space_rejections(sp, &n);
    for (size_t k = 0; k < n && rc == 0; k++) {
        sqlite3_bind_int64(q, 1, campaign_id);
        sqlite3_bind_int64(q, 2, (int64_t)k);
        sqlite3_bind_text(q, 3, kind_of(sp, &r[k]), -1, SQLITE_STATIC);
        if (r[k].text)
            sqlite3_bind_text(q, 4, r[k].text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(q, 4);
        sqlite3_bind_double(q, 5, r[k].combinations);
        rc = step_done(q);
    }
    sqlite3_finalize(q);
    return rc;
}

int store_record_space(store *st, int64_t campaign_id, const space *sp, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return fail(db, err);
    if (write_rows(db, campaign_id, sp) != 0) {
        fail(db, err);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fail(db, err);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
