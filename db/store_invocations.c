#include "store_invocations.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "busy_wait.h"

static int fail(sqlite3 *db, skytune_error *err, const char *what)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "database: %s: %s", what, db_error_text(db, why, sizeof why));
}

static void bind_text_or_null(sqlite3_stmt *q, int col, const char *text)
{
    if (text)
        sqlite3_bind_text(q, col, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(q, col);
}

/* The campaign's evaluations so far and its latest invocation, read in the
 * transaction that adds the new one. */
static int read_before(sqlite3 *db, int64_t campaign_id, store_invocation_before *before,
                       skytune_error *err)
{
    memset(before, 0, sizeof *before);
    static const char sql[] =
        "SELECT (SELECT COUNT(*) FROM evaluations WHERE campaign_id = ?1),"
        " i.id IS NOT NULL, i.budget, i.ended"
        " FROM (SELECT 1) LEFT JOIN (SELECT id, budget, ended FROM invocations"
        "  WHERE campaign_id = ?1 ORDER BY id DESC LIMIT 1) i";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "reading the campaign's invocations");
    sqlite3_bind_int64(q, 1, campaign_id);
    int rc = 0;
    if (sqlite3_step(q) == SQLITE_ROW) {
        before->evaluations = sqlite3_column_int64(q, 0);
        before->had_previous = sqlite3_column_int(q, 1) != 0;
        before->previous_budget = (uint64_t)sqlite3_column_int64(q, 2);
        const unsigned char *ended = sqlite3_column_text(q, 3);
        snprintf(before->previous_ended, sizeof before->previous_ended, "%s",
                 ended ? (const char *)ended : "");
    } else {
        rc = fail(db, err, "reading the campaign's invocations");
    }
    sqlite3_finalize(q);
    return rc;
}

int store_invocation_begin(store *st, const store_invocation_spec *spec, int64_t *id,
                           store_invocation_before *before, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    /* One transaction: a run sharing the campaign that begins at the same
     * moment sees either none of this or all of it. */
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, "recording the invocation");
    int rc = read_before(db, spec->campaign_id, before, err);
    sqlite3_stmt *q = NULL;
    if (rc == 0 &&
        sqlite3_prepare_v2(db,
                           "INSERT INTO invocations (campaign_id, command, host, budget,"
                           " time_limit_s, target, evaluations_before, gain_below)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           -1, &q, NULL) != SQLITE_OK)
        rc = fail(db, err, "recording the invocation");
    if (rc == 0) {
        sqlite3_bind_int64(q, 1, spec->campaign_id);
        bind_text_or_null(q, 2, spec->command);
        bind_text_or_null(q, 3, spec->host);
        if (spec->budget)
            sqlite3_bind_int64(q, 4, (int64_t)spec->budget);
        else
            sqlite3_bind_null(q, 4);
        if (spec->time_limit_s > 0)
            sqlite3_bind_double(q, 5, spec->time_limit_s);
        else
            sqlite3_bind_null(q, 5);
        bind_text_or_null(q, 6, spec->target);
        sqlite3_bind_int64(q, 7, before->evaluations);
        if (spec->gain_below > 0)
            sqlite3_bind_double(q, 8, spec->gain_below);
        else
            sqlite3_bind_null(q, 8);
        if (sqlite3_step(q) != SQLITE_DONE) rc = fail(db, err, "recording the invocation");
    }
    sqlite3_finalize(q);
    if (rc == 0) {
        *id = sqlite3_last_insert_rowid(db);
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            rc = fail(db, err, "recording the invocation");
    }
    if (rc != 0) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int store_invocation_end(store *st, int64_t id, const char *ended, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db,
                           "UPDATE invocations SET ended = ?2,"
                           " ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
                           " evaluations_after = (SELECT COUNT(*) FROM evaluations e"
                           "  WHERE e.campaign_id = invocations.campaign_id)"
                           " WHERE id = ?1",
                           -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "recording the end of the invocation");
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_text(q, 2, ended, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q) == SQLITE_DONE ? 0 : fail(db, err, "recording the end of the invocation");
    sqlite3_finalize(q);
    if (rc == 0 && sqlite3_changes(db) == 0)
        rc = err_set(err, "database: there is no invocation %lld", (long long)id);
    return rc;
}
