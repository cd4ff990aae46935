#include "store_merge.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_wait.h"
#include "quote.h"
#include "read_in_place.h"
#include "sqlite_message.h"

/* "merging SOURCE: <the connection's last error>"; source as messages
 * name it (quoted). */
static int fail(sqlite3 *db, skytune_error *err, const char *source)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "merging %s: %s", source, db_error_text(db, why, sizeof why));
}

/* The source's header: a skytune database of this schema version, or a
 * message saying what it is. Read on a connection of its own, read-only,
 * waiting for a lock as long as the target's connection. `path` is the
 * file, `name` the file as messages name it. */
static int check_source(const char *path, const char *name, double busy_timeout_s,
                        skytune_error *err)
{
    sqlite3 *db = NULL;
    char *uri = db_readonly_uri(path);
    if (!uri) return err_set(err, "out of memory");
    int opened = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (opened != SQLITE_OK) {
        err_set(err, "%s: cannot open: %s", name, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    db_busy_wait_set(db, busy_timeout_s);
    int64_t header[2] = {0, 0};
    const char *pragmas[2] = {"PRAGMA application_id", "PRAGMA user_version"};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(db, pragmas[k], -1, &q, NULL) != SQLITE_OK ||
            sqlite3_step(q) != SQLITE_ROW) {
            bool locked = (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY;
            char why[DB_ERROR_TEXT];
            db_error_text(db, why, sizeof why);
            rc = locked ? err_set(err, "%s: cannot read it: %s", name, why)
                        : err_set(err, "%s is not a SQLite database (%s)", name, why);
        } else {
            header[k] = sqlite3_column_int64(q, 0);
        }
        if (q) sqlite3_finalize(q);
    }
    sqlite3_close(db);
    if (rc != 0) return -1;
    if (header[0] != STORE_APPLICATION_ID)
        return err_set(err, "%s is not a skytune result database (application_id 0x%08x)", name,
                       (unsigned)(uint32_t)header[0]);
    if (header[1] > STORE_SCHEMA_VERSION)
        return err_set(err, "%s has schema version %lld, newer than this skytune's %d: merge it "
                            "with the skytune that made it",
                       name, (long long)header[1], STORE_SCHEMA_VERSION);
    if (header[1] < STORE_SCHEMA_VERSION)
        return err_set(err, "%s has schema version %lld, this skytune's is %d: open it once "
                            "with this skytune (e.g. `skytune best --db %s`), which brings it "
                            "forward, then merge it",
                       name, (long long)header[1], STORE_SCHEMA_VERSION, name);
    return 0;
}

/* The merge, statement by statement, inside one transaction. temp.map_*
 * map each source id to the target's. */
static const char *const merge_sql[] = {
    "CREATE TEMP TABLE map_device (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE map_plugin (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE map_problem (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE map_config (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE map_campaign (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL,"
    " is_new INTEGER NOT NULL)",
    /* kind: 0 new, 1 the same measurement again, 2 a duplicate */
    "CREATE TEMP TABLE map_measurement (src INTEGER PRIMARY KEY, dst INTEGER, kind INTEGER NOT NULL)",

    "INSERT OR IGNORE INTO main.devices (platform, name, vendor, driver_version, opencl_version,"
    " is_gpu, compute_units, max_clock_mhz, global_mem_size, local_mem_size, max_constant_size,"
    " max_mem_alloc_size, max_work_group_size, max_work_item_size_0, max_work_item_size_1,"
    " max_work_item_size_2, peak_gflops, peak_gbs)"
    " SELECT platform, name, vendor, driver_version, opencl_version, is_gpu, compute_units,"
    " max_clock_mhz, global_mem_size, local_mem_size, max_constant_size, max_mem_alloc_size,"
    " max_work_group_size, max_work_item_size_0, max_work_item_size_1, max_work_item_size_2,"
    " peak_gflops, peak_gbs FROM src.devices",
    "INSERT INTO temp.map_device SELECT s.id, d.id FROM src.devices s"
    " JOIN main.devices d ON d.platform = s.platform AND d.name = s.name"
    " AND d.driver_version = s.driver_version",
    /* Peaks entered by hand in one database fill the other's gaps. */
    "UPDATE main.devices SET"
    " peak_gflops = COALESCE(peak_gflops, (SELECT s.peak_gflops FROM src.devices s"
    "  JOIN temp.map_device m ON m.src = s.id WHERE m.dst = devices.id)),"
    " peak_gbs = COALESCE(peak_gbs, (SELECT s.peak_gbs FROM src.devices s"
    "  JOIN temp.map_device m ON m.src = s.id WHERE m.dst = devices.id))"
    " WHERE id IN (SELECT dst FROM temp.map_device)",

    "INSERT OR IGNORE INTO main.plugins (name, version, source_hash)"
    " SELECT name, version, source_hash FROM src.plugins",
    "INSERT INTO temp.map_plugin SELECT s.id, d.id FROM src.plugins s JOIN main.plugins d"
    " ON d.name = s.name AND d.version = s.version AND d.source_hash = s.source_hash",

    "INSERT OR IGNORE INTO main.problems (plugin_id, text)"
    " SELECT mp.dst, s.text FROM src.problems s JOIN temp.map_plugin mp ON mp.src = s.plugin_id",
    "INSERT INTO temp.map_problem SELECT s.id, d.id FROM src.problems s"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN main.problems d ON d.plugin_id = mp.dst AND d.text = s.text",
    /* A problem new to the target brings its parameters; one it had has
     * the same ones already (the same text). */
    "INSERT OR IGNORE INTO main.problem_params (problem_id, position, name, value)"
    " SELECT mr.dst, s.position, s.name, s.value FROM src.problem_params s"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id",

    "INSERT OR IGNORE INTO main.configurations (plugin_name, text, hash)"
    " SELECT plugin_name, text, hash FROM src.configurations",
    "INSERT INTO temp.map_config SELECT s.id, d.id FROM src.configurations s"
    " JOIN main.configurations d ON d.plugin_name = s.plugin_name AND d.text = s.text",
    "INSERT OR IGNORE INTO main.config_params (configuration_id, name, value)"
    " SELECT mc.dst, s.name, s.value FROM src.config_params s"
    " JOIN temp.map_config mc ON mc.src = s.configuration_id",

    /* Campaigns: new ones first marked by the ids the target had before. */
    "CREATE TEMP TABLE before AS SELECT COALESCE(MAX(id), 0) AS max_campaign FROM main.campaigns",
    "INSERT OR IGNORE INTO main.campaigns (plugin_id, device_id, problem_id, strategy, settings,"
    " seed, command, host, replayed, started_at, ended_at, status)"
    " SELECT mp.dst, md.dst, mr.dst, s.strategy, s.settings, s.seed, s.command, s.host,"
    " s.replayed, s.started_at, s.ended_at, s.status FROM src.campaigns s"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN temp.map_device md ON md.src = s.device_id"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id ORDER BY s.id",
    "INSERT INTO temp.map_campaign SELECT s.id, d.id, d.id > (SELECT max_campaign FROM temp.before)"
    " FROM src.campaigns s"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN temp.map_device md ON md.src = s.device_id"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id"
    " JOIN main.campaigns d ON d.plugin_id = mp.dst AND d.device_id = md.dst"
    " AND d.problem_id = mr.dst AND d.strategy = s.strategy AND d.settings = s.settings"
    " AND d.seed = s.seed",
    /* A campaign one database finished is done. */
    "UPDATE main.campaigns SET status = 'done', ended_at = (SELECT MAX(s.ended_at)"
    " FROM src.campaigns s JOIN temp.map_campaign m ON m.src = s.id WHERE m.dst = campaigns.id)"
    " WHERE status <> 'done' AND id IN (SELECT m.dst FROM temp.map_campaign m"
    " JOIN src.campaigns s ON s.id = m.src WHERE s.status = 'done')",

    /* Invocations follow their campaigns; one the target holds (the same
     * campaign, start, command and host: merged before) is not added again.
     * Their evaluation counts stay as the source counted them. */
    "INSERT INTO main.invocations (campaign_id, started_at, ended_at, command, host, budget,"
    " time_limit_s, target, evaluations_before, evaluations_after, ended, gain_below)"
    " SELECT mca.dst, s.started_at, s.ended_at, s.command, s.host, s.budget, s.time_limit_s,"
    " s.target, s.evaluations_before, s.evaluations_after, s.ended, s.gain_below"
    " FROM src.invocations s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.invocations d WHERE d.campaign_id = mca.dst"
    " AND d.started_at = s.started_at AND d.command IS s.command AND d.host IS s.host)"
    " ORDER BY s.id",

    /* A campaign's space, where the target has none for it: the shards of
     * one campaign search the same space. */
    "INSERT OR IGNORE INTO main.campaign_spaces (campaign_id, cartesian, valid)"
    " SELECT mca.dst, s.cartesian, s.valid FROM src.campaign_spaces s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id",
    "INSERT INTO main.space_rejections (campaign_id, position, kind, rule, ruled_out)"
    " SELECT mca.dst, s.position, s.kind, s.rule, s.ruled_out FROM src.space_rejections s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.space_rejections d WHERE d.campaign_id = mca.dst)",

    /* Measurements: the target's row under the same key, if any, and
     * whether it is this very measurement (merged before) or another. */
    "INSERT INTO temp.map_measurement"
    " SELECT s.id, d.id,"
    "  CASE WHEN d.id IS NULL THEN 0"
    "       WHEN d.measured_at = s.measured_at AND d.status = s.status"
    "        AND d.n_samples = s.n_samples AND d.median_ns IS s.median_ns THEN 1"
    "       WHEN EXISTS (SELECT 1 FROM main.duplicate_measurements x WHERE x.kept_id = d.id"
    "        AND x.measured_at = s.measured_at AND x.status = s.status"
    "        AND x.median_ns IS s.median_ns) THEN 1"
    "       ELSE 2 END"
    " FROM src.measurements s"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN temp.map_device md ON md.src = s.device_id"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id"
    " JOIN temp.map_config mc ON mc.src = s.configuration_id"
    " LEFT JOIN main.measurements d ON d.plugin_id = mp.dst AND d.device_id = md.dst"
    " AND d.problem_id = mr.dst AND d.configuration_id = mc.dst",
    "INSERT INTO main.measurements (device_id, plugin_id, problem_id, configuration_id,"
    " campaign_id, status, median_ns, min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs, n_samples,"
    " build_s, verify_s, bench_s, overhead_s, max_abs_error, max_rel_error, first_mismatch,"
    " message, replayed, measured_at, stage, degraded, raced, ci_low_ns, ci_high_ns, ci_coverage)"
    " SELECT md.dst, mp.dst, mr.dst, mc.dst, mca.dst, s.status, s.median_ns, s.min_ns, s.max_ns,"
    " s.mean_ns, s.stddev_ns, s.gflops, s.gbs, s.n_samples, s.build_s, s.verify_s, s.bench_s,"
    " s.overhead_s, s.max_abs_error, s.max_rel_error, s.first_mismatch, s.message, s.replayed,"
    " s.measured_at, s.stage, s.degraded, s.raced, s.ci_low_ns, s.ci_high_ns, s.ci_coverage"
    " FROM src.measurements s JOIN temp.map_measurement mm ON mm.src = s.id AND mm.kind = 0"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN temp.map_device md ON md.src = s.device_id"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id"
    " JOIN temp.map_config mc ON mc.src = s.configuration_id"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id ORDER BY s.id",
    "UPDATE temp.map_measurement SET dst = (SELECT d.id FROM src.measurements s"
    " JOIN temp.map_plugin mp ON mp.src = s.plugin_id"
    " JOIN temp.map_device md ON md.src = s.device_id"
    " JOIN temp.map_problem mr ON mr.src = s.problem_id"
    " JOIN temp.map_config mc ON mc.src = s.configuration_id"
    " JOIN main.measurements d ON d.plugin_id = mp.dst AND d.device_id = md.dst"
    " AND d.problem_id = mr.dst AND d.configuration_id = mc.dst WHERE s.id = map_measurement.src)"
    " WHERE kind = 0",
    "INSERT INTO main.samples (measurement_id, run, time_ns)"
    " SELECT mm.dst, s.run, s.time_ns FROM src.samples s"
    " JOIN temp.map_measurement mm ON mm.src = s.measurement_id AND mm.kind = 0",
    "INSERT INTO main.measurement_parts (measurement_id, part, label, median_ns)"
    " SELECT mm.dst, s.part, s.label, s.median_ns FROM src.measurement_parts s"
    " JOIN temp.map_measurement mm ON mm.src = s.measurement_id AND mm.kind = 0",
    "INSERT INTO main.derived_values (measurement_id, name, value)"
    " SELECT mm.dst, s.name, s.value FROM src.derived_values s"
    " JOIN temp.map_measurement mm ON mm.src = s.measurement_id AND mm.kind = 0",

    /* Duplicates, kept whole beside the row that stays. */
    "INSERT INTO main.duplicate_measurements (kept_id, campaign_id, source, source_id, status,"
    " median_ns, min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs, n_samples, build_s, verify_s,"
    " bench_s, overhead_s, max_abs_error, max_rel_error, first_mismatch, message, replayed,"
    " measured_at, stage, degraded, raced)"
    " SELECT mm.dst, mca.dst, (SELECT path FROM temp.merge_source), s.id, s.status, s.median_ns,"
    " s.min_ns, s.max_ns, s.mean_ns, s.stddev_ns, s.gflops, s.gbs, s.n_samples, s.build_s,"
    " s.verify_s, s.bench_s, s.overhead_s, s.max_abs_error, s.max_rel_error, s.first_mismatch,"
    " s.message, s.replayed, s.measured_at, s.stage, s.degraded, s.raced"
    " FROM src.measurements s JOIN temp.map_measurement mm ON mm.src = s.id AND mm.kind = 2"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id ORDER BY s.id",
    "INSERT INTO main.duplicate_samples (duplicate_id, run, time_ns)"
    " SELECT x.id, s.run, s.time_ns FROM src.samples s"
    " JOIN temp.map_measurement mm ON mm.src = s.measurement_id AND mm.kind = 2"
    " JOIN main.duplicate_measurements x ON x.kept_id = mm.dst AND x.source_id = s.measurement_id"
    " AND x.source = (SELECT path FROM temp.merge_source)",
    /* The source's own duplicates (a database merged before) follow their
     * kept rows, unless the target has them already. */
    "INSERT INTO main.duplicate_measurements (kept_id, campaign_id, source, source_id, status,"
    " median_ns, min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs, n_samples, build_s, verify_s,"
    " bench_s, overhead_s, max_abs_error, max_rel_error, first_mismatch, message, replayed,"
    " measured_at, stage, degraded, raced)"
    " SELECT mm.dst, mca.dst, x.source, x.source_id, x.status, x.median_ns, x.min_ns, x.max_ns,"
    " x.mean_ns, x.stddev_ns, x.gflops, x.gbs, x.n_samples, x.build_s, x.verify_s, x.bench_s,"
    " x.overhead_s, x.max_abs_error, x.max_rel_error, x.first_mismatch, x.message, x.replayed,"
    " x.measured_at, x.stage, x.degraded, x.raced"
    " FROM src.duplicate_measurements x JOIN temp.map_measurement mm ON mm.src = x.kept_id"
    " JOIN temp.map_campaign mca ON mca.src = x.campaign_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.duplicate_measurements y WHERE y.kept_id = mm.dst"
    " AND y.source = x.source AND y.source_id = x.source_id)"
    " AND NOT EXISTS (SELECT 1 FROM main.measurements m WHERE m.id = mm.dst"
    " AND m.measured_at = x.measured_at AND m.median_ns IS x.median_ns)",
    "INSERT OR IGNORE INTO main.duplicate_samples (duplicate_id, run, time_ns)"
    " SELECT y.id, s.run, s.time_ns FROM src.duplicate_samples s"
    " JOIN src.duplicate_measurements x ON x.id = s.duplicate_id"
    " JOIN temp.map_measurement mm ON mm.src = x.kept_id"
    " JOIN main.duplicate_measurements y ON y.kept_id = mm.dst AND y.source = x.source"
    " AND y.source_id = x.source_id",

    /* Evaluations: each campaign's in its order, after those the target
     * holds; one the target has (same campaign and measurement) is not
     * added again. A duplicate's evaluation reuses the kept row. */
    "CREATE TEMP TABLE adding AS"
    " SELECT mca.dst AS campaign_id, mm.dst AS measurement_id,"
    "  CASE WHEN mm.kind = 2 THEN 1 ELSE s.cached END AS cached, s.seq AS seq"
    " FROM src.evaluations s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id"
    " JOIN temp.map_measurement mm ON mm.src = s.measurement_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.evaluations e WHERE e.measurement_id = mm.dst"
    " AND e.campaign_id = mca.dst)",
    "INSERT INTO main.evaluations (campaign_id, seq, measurement_id, cached)"
    " SELECT a.campaign_id,"
    "  COALESCE((SELECT MAX(e.seq) FROM main.evaluations e WHERE e.campaign_id = a.campaign_id),"
    "   -1) + ROW_NUMBER() OVER (PARTITION BY a.campaign_id ORDER BY a.seq),"
    "  a.measurement_id, a.cached FROM temp.adding a",

    /* Confirmations follow their campaigns; one the target holds (the same
     * campaign, start and campaign best: merged before) is not added again,
     * and its configurations and visits, keyed by it, are not either. */
    "CREATE TEMP TABLE map_confirmation (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "INSERT INTO main.confirmations (campaign_id, started_at, ended_at, top, rounds, runs,"
    " campaign_best_id, winner_id, changed)"
    " SELECT mca.dst, s.started_at, s.ended_at, s.top, s.rounds, s.runs, mb.dst, mw.dst, s.changed"
    " FROM src.confirmations s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id"
    " JOIN temp.map_config mb ON mb.src = s.campaign_best_id"
    " LEFT JOIN temp.map_config mw ON mw.src = s.winner_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.confirmations d WHERE d.campaign_id = mca.dst"
    " AND d.started_at = s.started_at AND d.campaign_best_id = mb.dst)"
    " ORDER BY s.id",
    "INSERT INTO temp.map_confirmation SELECT s.id, MIN(d.id) FROM src.confirmations s"
    " JOIN temp.map_campaign mca ON mca.src = s.campaign_id"
    " JOIN temp.map_config mb ON mb.src = s.campaign_best_id"
    " JOIN main.confirmations d ON d.campaign_id = mca.dst AND d.started_at = s.started_at"
    " AND d.campaign_best_id = mb.dst GROUP BY s.id",
    "INSERT OR IGNORE INTO main.confirmation_entries (confirmation_id, configuration_id,"
    " campaign_place, campaign_median_ns, confirmed_place, confirmed_median_ns, ci_low_ns,"
    " ci_high_ns, ci_coverage, ok_visits)"
    " SELECT mc.dst, mg.dst, s.campaign_place, s.campaign_median_ns, s.confirmed_place,"
    " s.confirmed_median_ns, s.ci_low_ns, s.ci_high_ns, s.ci_coverage, s.ok_visits"
    " FROM src.confirmation_entries s"
    " JOIN temp.map_confirmation mc ON mc.src = s.confirmation_id"
    " JOIN temp.map_config mg ON mg.src = s.configuration_id",
    "INSERT OR IGNORE INTO main.confirmation_visits (confirmation_id, round, slot,"
    " configuration_id, status, median_ns, n_samples)"
    " SELECT mc.dst, s.round, s.slot, mg.dst, s.status, s.median_ns, s.n_samples"
    " FROM src.confirmation_visits s"
    " JOIN temp.map_confirmation mc ON mc.src = s.confirmation_id"
    " JOIN temp.map_config mg ON mg.src = s.configuration_id",

    "INSERT INTO main.merges (source, campaigns, measurements, duplicates, evaluations)"
    " SELECT (SELECT path FROM temp.merge_source),"
    " (SELECT COUNT(*) FROM temp.map_campaign WHERE is_new),"
    " (SELECT COUNT(*) FROM temp.map_measurement WHERE kind = 0),"
    " (SELECT COUNT(*) FROM temp.map_measurement WHERE kind = 2),"
    " (SELECT COUNT(*) FROM temp.adding)",
    NULL,
};

/* Views of plugins new to the target: the source's own definition. */
static const char copy_views_sql[] =
    "SELECT s.sql FROM src.sqlite_master s WHERE s.type = 'view' AND s.name LIKE 'results\\_%'"
    " ESCAPE '\\' AND s.name NOT IN (SELECT name FROM main.sqlite_master WHERE type = 'view')";

static int exec(sqlite3 *db, const char *sql, skytune_error *err, const char *source)
{
    /* sqlite3_exec leaves its error on the connection, as a statement's. */
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(db, err, source);
}

static int copy_views(sqlite3 *db, skytune_error *err, const char *source)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, copy_views_sql, -1, &q, NULL) != SQLITE_OK)
        return exec(db, copy_views_sql, err, source);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW)
        rc = exec(db, (const char *)sqlite3_column_text(q, 0), err, source);
    if (rc == 0 && step != SQLITE_DONE) rc = exec(db, copy_views_sql, err, source);
    sqlite3_finalize(q);
    return rc;
}

static int read_counts(sqlite3 *db, store_merge_counts *counts)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db,
                           "SELECT campaigns, measurements, duplicates, evaluations FROM"
                           " main.merges ORDER BY id DESC LIMIT 1",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(q) == SQLITE_ROW) {
        counts->campaigns = sqlite3_column_int64(q, 0);
        counts->measurements = sqlite3_column_int64(q, 1);
        counts->duplicates = sqlite3_column_int64(q, 2);
        counts->evaluations = sqlite3_column_int64(q, 3);
    }
    sqlite3_finalize(q);
    return 0;
}

int store_merge(store *st, const char *source_path, store_merge_counts *counts,
                skytune_error *err)
{
    memset(counts, 0, sizeof *counts);
    char source[QUOTE_PATH];
    quote_text(source_path, source, sizeof source);
    if (check_source(source_path, source, store_busy_timeout_s(st), err) != 0) return -1;
    sqlite3 *db = store_handle(st);
    char *uri = db_readonly_uri(source_path);
    if (!uri) return err_set(err, "out of memory");
    sqlite3_stmt *attach;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS src", -1, &attach, NULL) != SQLITE_OK) {
        rc = fail(db, err, source);
    } else {
        sqlite3_bind_text(attach, 1, uri, -1, SQLITE_STATIC);
        if (sqlite3_step(attach) != SQLITE_DONE) {
            char why[DB_ERROR_TEXT];
            rc = err_set(err, "merging %s: cannot open it read-only: %s", source,
                         db_error_text(db, why, sizeof why));
        }
        sqlite3_finalize(attach);
    }
    free(uri);
    if (rc != 0) return -1;
    rc = exec(db, "BEGIN IMMEDIATE", err, source);
    if (rc == 0) rc = exec(db, "CREATE TEMP TABLE merge_source (path TEXT NOT NULL)", err, source);
    if (rc == 0) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(db, "INSERT INTO temp.merge_source VALUES (?1)", -1, &q, NULL) !=
            SQLITE_OK) {
            rc = fail(db, err, source);
        } else {
            /* The merges table records the path as given: data, not a message. */
            sqlite3_bind_text(q, 1, source_path, -1, SQLITE_STATIC);
            if (sqlite3_step(q) != SQLITE_DONE) rc = fail(db, err, source);
            sqlite3_finalize(q);
        }
    }
    for (size_t k = 0; rc == 0 && merge_sql[k]; k++) rc = exec(db, merge_sql[k], err, source);
    if (rc == 0) rc = copy_views(db, err, source);
    if (rc == 0) rc = read_counts(db, counts) == 0 ? 0 : fail(db, err, source);
    if (rc == 0) rc = exec(db, "COMMIT", err, source);
    if (rc != 0) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    /* The temp tables go with the transaction only where it committed. */
    sqlite3_exec(db,
                 "DROP TABLE IF EXISTS temp.map_device; DROP TABLE IF EXISTS temp.map_plugin;"
                 "DROP TABLE IF EXISTS temp.map_problem; DROP TABLE IF EXISTS temp.map_config;"
                 "DROP TABLE IF EXISTS temp.map_campaign;"
                 "DROP TABLE IF EXISTS temp.map_measurement; DROP TABLE IF EXISTS temp.before;"
                 "DROP TABLE IF EXISTS temp.adding; DROP TABLE IF EXISTS temp.merge_source;"
                 "DROP TABLE IF EXISTS temp.map_confirmation;",
                 NULL, NULL, NULL);
    sqlite3_exec(db, "DETACH DATABASE src", NULL, NULL, NULL);
    return rc;
}
