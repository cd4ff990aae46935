#include "store_campaigns.h"

#include <sqlite3.h>
#include <stdio.h>

#include "sqlite_message.h"

static const char *text_col(sqlite3_stmt *q, int col)
{
    return (const char *)sqlite3_column_text(q, col);
}

static int fail(sqlite3 *db, skytune_error *err, const char *what)
{
    return err_set(err, "database: %s: %s", what, db_message(db));
}

int store_campaigns_find(store *st, const char *plugin, const char *problem_text,
                         int (*visit)(void *ctx, const store_campaign_row *row), void *ctx,
                         skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    /* Each campaign's counts and its fastest ok evaluation (of equally fast
     * ones, the lowest measurement id). */
    static const char sql[] =
        "WITH counts AS ("
        "  SELECT e.campaign_id, COUNT(*) AS evaluated, SUM(m.status = 'ok') AS ok,"
        "         SUM(m.status <> 'ok') AS failed"
        "  FROM evaluations e JOIN measurements m ON m.id = e.measurement_id"
        "  GROUP BY e.campaign_id),"
        " best AS ("
        "  SELECT e.campaign_id, m.id AS measurement_id,"
        "         ROW_NUMBER() OVER (PARTITION BY e.campaign_id ORDER BY m.median_ns, m.id) AS place"
        "  FROM evaluations e JOIN measurements m ON m.id = e.measurement_id"
        "  WHERE m.status = 'ok')"
        " SELECT c.id, p.name, p.version, d.name, pr.text, c.strategy, c.settings, c.status,"
        "        c.seed, c.started_at, c.ended_at, COALESCE(n.evaluated, 0), COALESCE(n.ok, 0),"
        "        COALESCE(n.failed, 0), cf.text, m.median_ns, m.gflops"
        " FROM campaigns c"
        " JOIN plugins p ON p.id = c.plugin_id"
        " JOIN devices d ON d.id = c.device_id"
        " JOIN problems pr ON pr.id = c.problem_id"
        " LEFT JOIN counts n ON n.campaign_id = c.id"
        " LEFT JOIN best b ON b.campaign_id = c.id AND b.place = 1"
        " LEFT JOIN measurements m ON m.id = b.measurement_id"
        " LEFT JOIN configurations cf ON cf.id = m.configuration_id"
        " WHERE (?1 IS NULL OR p.name = ?1) AND (?2 IS NULL OR pr.text = ?2)"
        " ORDER BY c.id";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "reading campaigns");
    sqlite3_bind_text(q, 1, plugin, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, problem_text, -1, SQLITE_STATIC);
    int rc = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        store_campaign_row row = {
            .id = sqlite3_column_int64(q, 0),
            .plugin = text_col(q, 1),
            .plugin_version = text_col(q, 2),
            .device = text_col(q, 3),
            .problem = text_col(q, 4),
            .strategy = text_col(q, 5),
            .settings = text_col(q, 6),
            .status = text_col(q, 7),
            .seed = (uint64_t)sqlite3_column_int64(q, 8),
            .started_at = text_col(q, 9),
            .ended_at = text_col(q, 10),
            .evaluated = sqlite3_column_int64(q, 11),
            .ok = sqlite3_column_int64(q, 12),
            .failed = sqlite3_column_int64(q, 13),
            .best_config = text_col(q, 14),
            .best_ns = sqlite3_column_double(q, 15),
            .best_gflops = sqlite3_column_double(q, 16),
        };
        if (visit(ctx, &row) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && step != SQLITE_DONE) rc = fail(db, err, "reading campaigns");
    sqlite3_finalize(q);
    return rc;
}

int store_campaign_top(store *st, int64_t campaign_id, unsigned k,
                       int (*visit)(void *ctx, const char *config_text, double median_ns),
                       void *ctx, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    static const char sql[] =
        "SELECT cf.text, m.median_ns FROM evaluations e"
        " JOIN measurements m ON m.id = e.measurement_id"
        " JOIN configurations cf ON cf.id = m.configuration_id"
        " WHERE e.campaign_id = ?1 AND m.status = 'ok'"
        " ORDER BY m.median_ns, m.id LIMIT ?2";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "reading a campaign's best configurations");
    sqlite3_bind_int64(q, 1, campaign_id);
    sqlite3_bind_int64(q, 2, k);
    int rc = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW)
        if (visit(ctx, text_col(q, 0), sqlite3_column_double(q, 1)) != 0) {
            rc = -1;
            break;
        }
    if (rc == 0 && step != SQLITE_DONE) rc = fail(db, err, "reading a campaign's best configurations");
    sqlite3_finalize(q);
    return rc;
}

int store_campaign_only(store *st, int64_t *id, int *count, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    *count = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT id FROM campaigns ORDER BY id LIMIT 2", -1, &q, NULL) !=
        SQLITE_OK)
        return err_set(err, "query does not prepare: %s", db_message(db));
    int step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW)
        if ((*count)++ == 0) *id = sqlite3_column_int64(q, 0);
    int rc = step == SQLITE_DONE ? 0 : err_set(err, "query failed: %s", db_message(db));
    sqlite3_finalize(q);
    return rc;
}
