#include "store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "canonical.h"
#include "median_interval.h"
#include "clock.h"
#include "busy_wait.h"
#include "quote.h"
#include "read_in_place.h"
#include "sqlite_message.h"

/* db/schema.sql, embedded at build time by tools/embed.py. */
extern const char store_schema_sql[];

/* ------------------------------------------------------------ migrations */

typedef struct store store;

/* One step brings a database from schema version from_version to
 * from_version + 1: its SQL, then its C function when it has one (for what
 * SQL cannot do). A fresh database gets schema.sql (the current version)
 * directly; these steps exist for databases made by an older skytune. When
 * the schema changes: edit schema.sql, bump STORE_SCHEMA_VERSION and add the
 * step that turns the previous version into the new one here. */
typedef struct store_migration {
    int from_version;
    const char *sql;
    int (*step)(store *st, skytune_error *err);
} store_migration;

static int migrate_problem_texts(store *st, skytune_error *err);
static int migrate_intervals(store *st, skytune_error *err);

static const store_migration store_migrations[] = {
    /* 2: the stage of a crash or timeout, the degraded flag, claims of
     * runs sharing the database; the results view shows the new columns. */
    { 1, "ALTER TABLE measurements ADD COLUMN stage TEXT CHECK (stage IS NULL OR stage IN"
         " ('build', 'prepare', 'verify', 'warm_up', 'timed', 'release'));"
         "ALTER TABLE measurements ADD COLUMN degraded INTEGER NOT NULL DEFAULT 0"
         " CHECK (degraded IN (0, 1));"
         "CREATE TABLE claims ("
         " plugin_id INTEGER NOT NULL REFERENCES plugins (id),"
         " device_id INTEGER NOT NULL REFERENCES devices (id),"
         " problem_id INTEGER NOT NULL REFERENCES problems (id),"
         " config_text TEXT NOT NULL,"
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id),"
         " pid INTEGER NOT NULL, host TEXT NOT NULL, claimed_at REAL NOT NULL,"
         " PRIMARY KEY (plugin_id, device_id, problem_id, config_text)) WITHOUT ROWID;"
         "DROP VIEW results;"
         "CREATE VIEW results AS"
         " SELECT e.campaign_id AS campaign_id, e.seq AS seq, p.name AS plugin,"
         " p.version AS plugin_version, d.name AS device, pr.text AS problem,"
         " c.text AS configuration, m.status AS status, m.median_ns AS median_ns,"
         " m.gflops AS gflops, m.gbs AS gbs, e.cached AS cached, m.id AS measurement_id,"
         " m.stage AS stage, m.degraded AS degraded"
         " FROM evaluations e"
         " JOIN measurements m ON m.id = e.measurement_id"
         " JOIN plugins p ON p.id = m.plugin_id"
         " JOIN devices d ON d.id = m.device_id"
         " JOIN problems pr ON pr.id = m.problem_id"
         " JOIN configurations c ON c.id = m.configuration_id;", NULL },
    /* 3: measurements met twice by a merge, and the merges made. */
    { 2, "CREATE TABLE duplicate_measurements ("
         " id INTEGER PRIMARY KEY,"
         " kept_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,"
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id),"
         " source TEXT NOT NULL, source_id INTEGER NOT NULL, status TEXT NOT NULL,"
         " median_ns REAL, min_ns REAL, max_ns REAL, mean_ns REAL, stddev_ns REAL,"
         " gflops REAL, gbs REAL, n_samples INTEGER NOT NULL, build_s REAL NOT NULL,"
         " verify_s REAL NOT NULL, bench_s REAL NOT NULL, overhead_s REAL NOT NULL,"
         " max_abs_error REAL, max_rel_error REAL, first_mismatch INTEGER, message TEXT,"
         " replayed INTEGER NOT NULL, measured_at TEXT NOT NULL, stage TEXT,"
         " degraded INTEGER NOT NULL);"
         "CREATE TABLE duplicate_samples ("
         " duplicate_id INTEGER NOT NULL REFERENCES duplicate_measurements (id) ON DELETE CASCADE,"
         " run INTEGER NOT NULL, time_ns REAL NOT NULL,"
         " PRIMARY KEY (duplicate_id, run)) WITHOUT ROWID;"
         "CREATE TABLE merges ("
         " id INTEGER PRIMARY KEY, source TEXT NOT NULL,"
         " merged_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),"
         " campaigns INTEGER NOT NULL, measurements INTEGER NOT NULL,"
         " duplicates INTEGER NOT NULL, evaluations INTEGER NOT NULL);", NULL },
    /* 4: problem texts quote values that hold ',' or '=' (canonical.h), and
     * the parameters of each problem are kept apart in problem_params. */
    { 3, "CREATE TABLE problem_params ("
         " problem_id INTEGER NOT NULL REFERENCES problems (id) ON DELETE CASCADE,"
         " position INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,"
         " PRIMARY KEY (problem_id, position)) WITHOUT ROWID;",
      migrate_problem_texts },
    /* 5: every invocation of a campaign with its budget and limits, and
     * the values a plugin derives from each configuration. One statement
     * per new table. */
    { 4, "CREATE TABLE invocations ("
         " id INTEGER PRIMARY KEY,"
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id),"
         " started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
         " ended_at TEXT, command TEXT, host TEXT, budget INTEGER, time_limit_s REAL,"
         " target TEXT, evaluations_before INTEGER NOT NULL, evaluations_after INTEGER,"
         " ended TEXT CHECK (ended IS NULL OR ended IN ('search_complete', 'budget',"
         " 'time_limit', 'target', 'device_time', 'interrupted', 'failed')));"
         "CREATE TABLE derived_values ("
         " measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,"
         " name TEXT NOT NULL, value REAL NOT NULL,"
         " PRIMARY KEY (measurement_id, name)) WITHOUT ROWID;",
      NULL },
    /* 6: a claim's heartbeat, renewed by the run that holds it; a claim
     * whose run stopped renewing it is taken over. */
    { 5, "ALTER TABLE claims ADD COLUMN heartbeat_at REAL;", NULL },
    /* 7: measurements stopped early by racing, flagged; the results view
     * shows the flag. */
    { 6, "ALTER TABLE measurements ADD COLUMN raced INTEGER NOT NULL DEFAULT 0"
         " CHECK (raced IN (0, 1));"
         "ALTER TABLE duplicate_measurements ADD COLUMN raced INTEGER NOT NULL DEFAULT 0;"
         "DROP VIEW results;"
         "CREATE VIEW results AS"
         " SELECT e.campaign_id AS campaign_id, e.seq AS seq, p.name AS plugin,"
         " p.version AS plugin_version, d.name AS device, pr.text AS problem,"
         " c.text AS configuration, m.status AS status, m.median_ns AS median_ns,"
         " m.gflops AS gflops, m.gbs AS gbs, e.cached AS cached, m.id AS measurement_id,"
         " m.stage AS stage, m.degraded AS degraded, m.raced AS raced"
         " FROM evaluations e"
         " JOIN measurements m ON m.id = e.measurement_id"
         " JOIN plugins p ON p.id = m.plugin_id"
         " JOIN devices d ON d.id = m.device_id"
         " JOIN problems pr ON pr.id = m.problem_id"
         " JOIN configurations c ON c.id = m.configuration_id;", NULL },
    /* 8: a campaign may end when more evaluations are not expected to gain
     * enough ('gain_below', with the fraction asked for); the space each
     * campaign searched and what each constraint removed from it. A CHECK
     * cannot be altered in place: the invocations are copied into a table
     * of the new shape. Some databases made between versions 4 and 5 lack
     * the invocations table (docs/results/beamformer-h200-exhaustive.db):
     * an empty one of the old shape stands in for it. */
    { 7, "CREATE TABLE IF NOT EXISTS invocations ("
         " id INTEGER PRIMARY KEY, campaign_id INTEGER NOT NULL, started_at TEXT NOT NULL,"
         " ended_at TEXT, command TEXT, host TEXT, budget INTEGER, time_limit_s REAL,"
         " target TEXT, evaluations_before INTEGER NOT NULL, evaluations_after INTEGER,"
         " ended TEXT);"
         "CREATE TABLE invocations_v8 ("
         " id INTEGER PRIMARY KEY,"
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id),"
         " started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
         " ended_at TEXT, command TEXT, host TEXT, budget INTEGER, time_limit_s REAL,"
         " target TEXT, evaluations_before INTEGER NOT NULL, evaluations_after INTEGER,"
         " ended TEXT CHECK (ended IS NULL OR ended IN ('search_complete', 'budget',"
         " 'time_limit', 'target', 'device_time', 'gain_below', 'interrupted', 'failed')),"
         " gain_below REAL);"
         "INSERT INTO invocations_v8 (id, campaign_id, started_at, ended_at, command, host,"
         " budget, time_limit_s, target, evaluations_before, evaluations_after, ended)"
         " SELECT id, campaign_id, started_at, ended_at, command, host, budget, time_limit_s,"
         " target, evaluations_before, evaluations_after, ended FROM invocations;"
         "DROP TABLE invocations;"
         "ALTER TABLE invocations_v8 RENAME TO invocations;"
         "CREATE TABLE campaign_spaces ("
         " campaign_id INTEGER PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,"
         " cartesian REAL NOT NULL, valid REAL NOT NULL);"
         "CREATE TABLE space_rejections ("
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,"
         " position INTEGER NOT NULL,"
         " kind TEXT NOT NULL CHECK (kind IN ('constraint', 'device_limit', 'restriction',"
         " 'callback')),"
         " rule TEXT, ruled_out REAL NOT NULL,"
         " PRIMARY KEY (campaign_id, position)) WITHOUT ROWID;", NULL },
    /* 9: every ok measurement's interval of the median (filled in from
     * its samples by migrate_intervals), and the confirmations of
     * campaigns' best configurations. One statement per new table. */
    { 8, "ALTER TABLE measurements ADD COLUMN ci_low_ns REAL;"
         "ALTER TABLE measurements ADD COLUMN ci_high_ns REAL;"
         "ALTER TABLE measurements ADD COLUMN ci_coverage REAL;"
         "CREATE TABLE confirmations ("
         " id INTEGER PRIMARY KEY,"
         " campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,"
         " started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),"
         " ended_at TEXT, top INTEGER NOT NULL, rounds INTEGER NOT NULL, runs INTEGER NOT NULL,"
         " campaign_best_id INTEGER NOT NULL REFERENCES configurations (id),"
         " winner_id INTEGER REFERENCES configurations (id),"
         " changed INTEGER NOT NULL CHECK (changed IN (0, 1)));"
         "CREATE TABLE confirmation_entries ("
         " confirmation_id INTEGER NOT NULL REFERENCES confirmations (id) ON DELETE CASCADE,"
         " configuration_id INTEGER NOT NULL REFERENCES configurations (id),"
         " campaign_place INTEGER NOT NULL, campaign_median_ns REAL NOT NULL,"
         " confirmed_place INTEGER, confirmed_median_ns REAL, ci_low_ns REAL, ci_high_ns REAL,"
         " ci_coverage REAL, ok_visits INTEGER NOT NULL,"
         " PRIMARY KEY (confirmation_id, configuration_id)) WITHOUT ROWID;"
         "CREATE TABLE confirmation_visits ("
         " confirmation_id INTEGER NOT NULL REFERENCES confirmations (id) ON DELETE CASCADE,"
         " round INTEGER NOT NULL, slot INTEGER NOT NULL,"
         " configuration_id INTEGER NOT NULL REFERENCES configurations (id),"
         " status TEXT NOT NULL, median_ns REAL, n_samples INTEGER NOT NULL,"
         " PRIMARY KEY (confirmation_id, round, slot)) WITHOUT ROWID;",
      migrate_intervals },
    { 0, NULL, NULL } /* end */
};

/* ------------------------------------------------------------ the handle */

/* The statements of the per-configuration path, prepared once at open. */
enum hot_statement {
    HOT_BEGIN,
    HOT_COMMIT,
    HOT_ROLLBACK,
    HOT_CAMPAIGN_KEY,
    HOT_CONFIG_FIND,
    HOT_CONFIG_INSERT,
    HOT_PARAM_INSERT,
    HOT_MEASUREMENT_INSERT,
    HOT_MEASUREMENT_FIND,
    HOT_SAMPLE_INSERT,
    HOT_PART_INSERT,
    HOT_DERIVED_INSERT,
    HOT_EVALUATION_INSERT,
    HOT_CACHED_INSERT,
    HOT_EVALUATION_FIND,
    HOT_MEASUREMENT_STATUS,
    HOT_MEASUREMENT_UPDATE,
    HOT_SAMPLES_DELETE,
    HOT_PARTS_DELETE,
    HOT_DERIVED_DELETE,
    HOT_KNOWN_BY_TEXT,
    HOT_CLAIM_FIND,
    HOT_CLAIM_PUT,
    HOT_CLAIM_DELETE,
    HOT_COUNT
};

static const char *const hot_sql[HOT_COUNT] = {
    /* IMMEDIATE takes the write lock up front, so a concurrent writer makes
     * BEGIN wait (busy_timeout) instead of failing halfway through. */
    [HOT_BEGIN] = "BEGIN IMMEDIATE",
    [HOT_COMMIT] = "COMMIT",
    [HOT_ROLLBACK] = "ROLLBACK",
    [HOT_CAMPAIGN_KEY] =
        "SELECT k.device_id, k.plugin_id, k.problem_id, p.name"
        " FROM campaigns k JOIN plugins p ON p.id = k.plugin_id WHERE k.id = ?1",
    [HOT_CONFIG_FIND] = "SELECT id FROM configurations WHERE plugin_name = ?1 AND text = ?2",
    [HOT_CONFIG_INSERT] =
        "INSERT INTO configurations (plugin_name, text, hash) VALUES (?1, ?2, ?3)",
    [HOT_PARAM_INSERT] =
        "INSERT INTO config_params (configuration_id, name, value) VALUES (?1, ?2, ?3)",
    [HOT_MEASUREMENT_INSERT] =
        "INSERT INTO measurements (device_id, plugin_id, problem_id, configuration_id,"
        " campaign_id, status, median_ns, min_ns, max_ns, mean_ns, stddev_ns, gflops, gbs,"
        " n_samples, build_s, verify_s, bench_s, overhead_s, max_abs_error, max_rel_error,"
        " first_mismatch, message, replayed, stage, degraded, raced, ci_low_ns, ci_high_ns,"
        " ci_coverage)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
        " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)",
    [HOT_MEASUREMENT_FIND] =
        "SELECT id FROM measurements WHERE plugin_id = ?1 AND device_id = ?2"
        " AND problem_id = ?3 AND configuration_id = ?4",
    [HOT_SAMPLE_INSERT] =
        "INSERT INTO samples (measurement_id, run, time_ns) VALUES (?1, ?2, ?3)",
    [HOT_PART_INSERT] =
        "INSERT INTO measurement_parts (measurement_id, part, label, median_ns)"
        " VALUES (?1, ?2, ?3, ?4)",
    [HOT_DERIVED_INSERT] =
        "INSERT INTO derived_values (measurement_id, name, value) VALUES (?1, ?2, ?3)",
    /* Runs sharing a campaign (the same command twice) number their own
     * evaluations: a number another run took already moves to the end, and
     * an evaluation the campaign holds already is not added twice. */
    [HOT_EVALUATION_INSERT] =
        "INSERT OR IGNORE INTO evaluations (campaign_id, seq, measurement_id, cached)"
        " VALUES (?1, CASE WHEN EXISTS (SELECT 1 FROM evaluations WHERE campaign_id = ?1"
        " AND seq = ?2) THEN (SELECT MAX(seq) + 1 FROM evaluations WHERE campaign_id = ?1)"
        " ELSE ?2 END, ?3, ?4)",
    /* Only a measurement under the campaign's own key may be reused; the
     * join makes a mismatch insert nothing, which the caller reports. */
    [HOT_CACHED_INSERT] =
        "INSERT OR IGNORE INTO evaluations (campaign_id, seq, measurement_id, cached)"
        " SELECT k.id, CASE WHEN EXISTS (SELECT 1 FROM evaluations WHERE campaign_id = ?1"
        " AND seq = ?2) THEN (SELECT MAX(seq) + 1 FROM evaluations WHERE campaign_id = ?1)"
        " ELSE ?2 END, m.id, 1 FROM campaigns k"
        " JOIN measurements m ON m.id = ?3 AND m.plugin_id = k.plugin_id"
        " AND m.device_id = k.device_id AND m.problem_id = k.problem_id"
        " WHERE k.id = ?1",
    [HOT_EVALUATION_FIND] =
        "SELECT 1 FROM evaluations WHERE measurement_id = ?2 AND campaign_id = ?1",
    [HOT_MEASUREMENT_STATUS] = "SELECT status FROM measurements WHERE id = ?1",
    /* --retry-failed: the new result replaces a failed one in its row, so
     * every campaign's evaluations of it still point at it. */
    [HOT_MEASUREMENT_UPDATE] =
        "UPDATE measurements SET campaign_id = ?2, status = ?3, median_ns = ?4, min_ns = ?5,"
        " max_ns = ?6, mean_ns = ?7, stddev_ns = ?8, gflops = ?9, gbs = ?10, n_samples = ?11,"
        " build_s = ?12, verify_s = ?13, bench_s = ?14, overhead_s = ?15, max_abs_error = ?16,"
        " max_rel_error = ?17, first_mismatch = ?18, message = ?19, replayed = ?20, stage = ?21,"
        " degraded = ?22, raced = ?23, ci_low_ns = ?24, ci_high_ns = ?25, ci_coverage = ?26,"
        " measured_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
    [HOT_SAMPLES_DELETE] = "DELETE FROM samples WHERE measurement_id = ?1",
    [HOT_PARTS_DELETE] = "DELETE FROM measurement_parts WHERE measurement_id = ?1",
    [HOT_DERIVED_DELETE] = "DELETE FROM derived_values WHERE measurement_id = ?1",
    [HOT_KNOWN_BY_TEXT] =
        "SELECT m.id, m.status, m.median_ns, m.gflops, m.gbs,"
        " EXISTS (SELECT 1 FROM evaluations e WHERE e.measurement_id = m.id"
        " AND e.campaign_id = ?5)"
        " FROM configurations c JOIN measurements m ON m.configuration_id = c.id"
        " AND m.plugin_id = ?2 AND m.device_id = ?3 AND m.problem_id = ?4"
        " WHERE c.plugin_name = ?1 AND c.text = ?6",
    [HOT_CLAIM_FIND] =
        "SELECT pid, host, MAX(claimed_at, COALESCE(heartbeat_at, claimed_at)) FROM claims"
        " WHERE plugin_id = ?1 AND device_id = ?2"
        " AND problem_id = ?3 AND config_text = ?4",
    [HOT_CLAIM_PUT] =
        "INSERT OR REPLACE INTO claims (plugin_id, device_id, problem_id, config_text,"
        " campaign_id, pid, host, claimed_at, heartbeat_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
    [HOT_CLAIM_DELETE] =
        "DELETE FROM claims WHERE plugin_id = ?1 AND device_id = ?2 AND problem_id = ?3"
        " AND config_text = ?4",
};

/* The (device, plugin build, problem) of a campaign and its plugin's name. */
typedef struct campaign_key {
    int64_t campaign_id; /* 0: nothing cached yet (ids start at 1) */
    int64_t device_id, plugin_id, problem_id;
    char *plugin_name;
} campaign_key;

struct store {
    sqlite3 *db;
    /* The file as messages name it: its path quoted (quote.h), since a
     * path may hold any byte but '/' and NUL. */
    char *name;
    double busy_timeout_s;  /* how long a statement waits for a lock */
    sqlite3_stmt *hot[HOT_COUNT];
    /* The key of the campaign last recorded to: a campaign records many
     * measurements in a row, and its key never changes. */
    campaign_key key;
    /* --retry-failed: a failed measurement is measured again, not reused. */
    bool retry_failed;
};

/* ------------------------------------------------------------ helpers */

/* A value bound to a statement parameter. */
typedef enum sql_arg_kind { ARG_NULL, ARG_INT, ARG_REAL, ARG_TEXT } sql_arg_kind;

typedef struct sql_arg {
    sql_arg_kind kind;
    int64_t i;
    double r;
    const char *text;
    size_t text_capacity; /* nonzero: text is a char array of this size */
} sql_arg;

#define ARG_INT(v) ((sql_arg){ .kind = ARG_INT, .i = (int64_t)(v) })
#define ARG_REAL(v) ((sql_arg){ .kind = ARG_REAL, .r = (v) })
/* NULL text binds SQL NULL. */
#define ARG_TEXT(v) ((sql_arg){ .kind = ARG_TEXT, .text = (v) })
/* A fixed-size char array (device names, part labels): never read past its
 * end, even when it is full and lacks the terminating NUL. */
#define ARG_CHARS(array) \
    ((sql_arg){ .kind = ARG_TEXT, .text = (array), .text_capacity = sizeof(array) })
#define ARG_REAL_IF(cond, v) ((cond) ? ARG_REAL(v) : (sql_arg){ .kind = ARG_NULL })
#define N_ARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* SQLite integers are signed 64-bit; seeds and hashes keep their bits. */
static int64_t u64_bits(uint64_t v)
{
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

static int bind_args(sqlite3_stmt *s, const sql_arg *args, int n_args)
{
    for (int k = 0; k < n_args; k++) {
        int rc;
        switch (args[k].kind) {
        case ARG_INT: rc = sqlite3_bind_int64(s, k + 1, args[k].i); break;
        case ARG_REAL: rc = sqlite3_bind_double(s, k + 1, args[k].r); break;
        case ARG_TEXT:
            /* STATIC: every statement is reset before the caller's strings
             * can go away, and copying build logs would cost for nothing. */
            if (!args[k].text)
                rc = sqlite3_bind_null(s, k + 1);
            else if (args[k].text_capacity > 0)
                rc = sqlite3_bind_text(s, k + 1, args[k].text,
                                       (int)strnlen(args[k].text, args[k].text_capacity),
                                       SQLITE_STATIC);
            else
                rc = sqlite3_bind_text(s, k + 1, args[k].text, -1, SQLITE_STATIC);
            break;
        default: rc = sqlite3_bind_null(s, k + 1); break;
        }
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* err = "<what>: <SQLite's message>". Call before the statement is reset or
 * anything else runs on the connection, which would replace the message. */
static int fail_sqlite(store *st, skytune_error *err, const char *what)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "%s: %s", what, db_error_text(st->db, why, sizeof why));
}

/* Bind, step once and reset. A statement that returns no row or whose row is
 * of no interest. */
static int stmt_exec(store *st, sqlite3_stmt *s, const sql_arg *args, int n_args,
                     skytune_error *err, const char *what)
{
    int rc = bind_args(s, args, n_args);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fail_sqlite(st, err, what);
        sqlite3_reset(s);
        return -1;
    }
    sqlite3_reset(s);
    return 0;
}

/* Bind, step once, read the first column of the row if there is one. */
static int stmt_int64(store *st, sqlite3_stmt *s, const sql_arg *args, int n_args,
                      int64_t *value, bool *found, skytune_error *err, const char *what)
{
    int rc = bind_args(s, args, n_args);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fail_sqlite(st, err, what);
        sqlite3_reset(s);
        return -1;
    }
    *found = rc == SQLITE_ROW;
    if (*found) *value = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return 0;
}

static int prepare(store *st, const char *sql, unsigned flags, sqlite3_stmt **s,
                   skytune_error *err, const char *what)
{
    if (sqlite3_prepare_v3(st->db, sql, -1, flags, s, NULL) != SQLITE_OK) {
        fail_sqlite(st, err, what);
        sqlite3_finalize(*s);
        *s = NULL;
        return -1;
    }
    return 0;
}

/* One-off statements (not on the per-configuration path). */
static int sql_exec(store *st, const char *sql, const sql_arg *args, int n_args,
                    skytune_error *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, 0, &s, err, what) != 0) return -1;
    int rc = stmt_exec(st, s, args, n_args, err, what);
    sqlite3_finalize(s);
    return rc;
}

static int sql_int64(store *st, const char *sql, const sql_arg *args, int n_args,
                     int64_t *value, bool *found, skytune_error *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    if (prepare(st, sql, 0, &s, err, what) != 0) return -1;
    int rc = stmt_int64(st, s, args, n_args, value, found, err, what);
    sqlite3_finalize(s);
    return rc;
}

static int begin_write(store *st, skytune_error *err)
{
    return stmt_exec(st, st->hot[HOT_BEGIN], NULL, 0, err, "starting a transaction");
}

static int commit(store *st, skytune_error *err)
{
    return stmt_exec(st, st->hot[HOT_COMMIT], NULL, 0, err, "committing");
}

/* Undo the open transaction, if any: SQLite ends a transaction by itself on
 * some errors, and ROLLBACK without one is an error of its own. The caller's
 * message is already in err and stays there. */
static void rollback(store *st)
{
    if (!sqlite3_get_autocommit(st->db)) {
        sqlite3_step(st->hot[HOT_ROLLBACK]);
        sqlite3_reset(st->hot[HOT_ROLLBACK]);
    }
}

/* Select the id; when absent insert (a concurrent writer may win: the insert
 * does nothing on a uniqueness conflict) and select again. */
static int find_or_insert(store *st, const char *find_sql, const sql_arg *find_args,
                          int n_find, const char *insert_sql, const sql_arg *insert_args,
                          int n_insert, int64_t *id, skytune_error *err)
{
    bool found = false;
    if (sql_int64(st, find_sql, find_args, n_find, id, &found, err, "looking it up") != 0)
        return -1;
    if (found) return 0;
    if (sql_exec(st, insert_sql, insert_args, n_insert, err, "inserting it") != 0) return -1;
    if (sql_int64(st, find_sql, find_args, n_find, id, &found, err, "looking it up") != 0)
        return -1;
    if (!found) return err_set(err, "inserted but not found again");
    return 0;
}

/* [A-Za-z_][A-Za-z0-9_]*: what the plugin loader accepts as a name. Checked
 * again here because store_plugin_id pastes names into SQL text. */
static bool is_identifier(const char *s)
{
    if (!s || !*s) return false;
    for (const char *c = s; *c; c++) {
        bool letter = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || *c == '_';
        bool digit = *c >= '0' && *c <= '9';
        if (!letter && !(digit && c != s)) return false;
    }
    return true;
}

/* A growing string for the one statement whose text depends on its input. */
typedef struct text_buffer {
    char *text;
    size_t length, capacity;
    bool out_of_memory;
} text_buffer;

static void text_append(text_buffer *b, const char *fmt, ...) SKYTUNE_PRINTF(2, 3);

static void text_append(text_buffer *b, const char *fmt, ...)
{
    if (b->out_of_memory) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->out_of_memory = true;
        return;
    }
    size_t need = b->length + (size_t)n + 1;
    if (need > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 1024;
        while (capacity < need) capacity *= 2;
        char *grown = realloc(b->text, capacity);
        if (!grown) {
            b->out_of_memory = true;
            return;
        }
        b->text = grown;
        b->capacity = capacity;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->length, b->capacity - b->length, fmt, ap);
    va_end(ap);
    b->length += (size_t)n;
}

/* ------------------------------------------------------------ migration to version 4 */

static int insert_problem_params(store *st, int64_t problem_id, const canonical_pair *pairs,
                                 size_t n, skytune_error *err);

/* The pairs of a problem text of schema version 3 or older, which wrote
 * values as they were: read back only when that cannot be mistaken, every
 * ','-separated piece holding exactly one '=' after a name that is an
 * identifier, and no name given twice. "a=1,b=2,b=3" (from a="1,b=2" or
 * from b="2,b=3") is not. Returns 1 with the pairs, 0 for a text that
 * cannot be read back, -1 when out of memory. */
static int unquoted_pairs(const char *text, canonical_pair **pairs_out, size_t *n_out)
{
    size_t n = 0;
    canonical_pair *pairs = NULL;
    int readable = 1;
    for (const char *piece = text; *text && readable == 1;) {
        const char *comma = strchr(piece, ',');
        const char *end = comma ? comma : piece + strlen(piece);
        const char *equals = memchr(piece, '=', (size_t)(end - piece));
        if (!equals || memchr(equals + 1, '=', (size_t)(end - equals - 1))) {
            readable = 0;
            break;
        }
        canonical_pair *grown = realloc(pairs, (n + 1) * sizeof *grown);
        if (!grown) {
            readable = -1;
            break;
        }
        pairs = grown;
        pairs[n].name = strndup(piece, (size_t)(equals - piece));
        pairs[n].value = strndup(equals + 1, (size_t)(end - equals - 1));
        n++;
        if (!pairs[n - 1].name || !pairs[n - 1].value) readable = -1;
        else if (!is_identifier(pairs[n - 1].name)) readable = 0;
        for (size_t k = 0; readable == 1 && k + 1 < n; k++)
            if (strcmp(pairs[k].name, pairs[n - 1].name) == 0) readable = 0;
        if (!comma) break;
        piece = comma + 1;
    }
    if (readable != 1) {
        canonical_pairs_free(pairs, n);
        return readable;
    }
    *pairs_out = pairs;
    *n_out = n;
    return 1;
}

/* What an ambiguous text of version 3 or older becomes: no canonical text
 * starts this way (a canonical text starts with an identifier and '='), so
 * no new run can take its measurements for its own. */
#define AMBIGUOUS_PREFIX "ambiguous before schema version 4: "

/* A problem row as read before rewriting it. */
typedef struct problem_row {
    int64_t id;
    char *text;
} problem_row;

static void problem_rows_free(problem_row *rows, size_t n)
{
    for (size_t k = 0; rows && k < n; k++) free(rows[k].text);
    free(rows);
}

/* The problems of plugins, all read before any is rewritten. A replayed
 * dataset's problem (plugin "replay") is the dataset's name, not pairs, and
 * is not among them. */
static int read_plugin_problems(store *st, problem_row **rows_out, size_t *n_out,
                                skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare(st, "SELECT pr.id, pr.text FROM problems pr JOIN plugins p ON p.id = pr.plugin_id"
                    " WHERE p.name <> 'replay' ORDER BY pr.id",
                0, &s, err, "reading the problems") != 0)
        return -1;
    problem_row *rows = NULL;
    size_t n = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        problem_row *grown = realloc(rows, (n + 1) * sizeof *grown);
        const char *text = (const char *)sqlite3_column_text(s, 1);
        char *copy = grown ? strdup(text ? text : "") : NULL;
        if (grown) rows = grown;
        if (!copy) {
            step = SQLITE_NOMEM;
            break;
        }
        rows[n++] = (problem_row){ sqlite3_column_int64(s, 0), copy };
    }
    if (step != SQLITE_DONE) {
        if (step == SQLITE_NOMEM)
            err_set(err, "reading the problems: out of memory");
        else
            fail_sqlite(st, err, "reading the problems");
        sqlite3_finalize(s);
        problem_rows_free(rows, n);
        return -1;
    }
    sqlite3_finalize(s);
    *rows_out = rows;
    *n_out = n;
    return 0;
}

/* Every problem of a plugin gets its parameters in problem_params and its
 * text in the canonical form, which is the same text unless a value needs
 * quotes now. A text that cannot be read back unambiguously keeps its
 * measurements under AMBIGUOUS_PREFIX + its text, with no parameters. */
static int migrate_problem_texts(store *st, skytune_error *err)
{
    problem_row *rows = NULL;
    size_t n_rows = 0;
    if (read_plugin_problems(st, &rows, &n_rows, err) != 0) return -1;
    int rc = 0;
    for (size_t r = 0; r < n_rows && rc == 0; r++) {
        canonical_pair *pairs = NULL;
        size_t n = 0;
        canonical_text text = { 0 };
        int readable = unquoted_pairs(rows[r].text, &pairs, &n);
        if (readable < 0) {
            rc = err_set(err, "out of memory");
        } else if (readable) {
            for (size_t k = 0; k < n; k++) canonical_append(&text, pairs[k].name, pairs[k].value);
            rc = insert_problem_params(st, rows[r].id, pairs, n, err);
            canonical_pairs_free(pairs, n);
        } else {
            size_t length = strlen(AMBIGUOUS_PREFIX) + strlen(rows[r].text) + 1;
            text.text = malloc(length);
            if (text.text) snprintf(text.text, length, AMBIGUOUS_PREFIX "%s", rows[r].text);
            text.failed = !text.text;
        }
        const char *new_text = text.text ? text.text : "";
        if (rc == 0 && text.failed) rc = err_set(err, "out of memory");
        if (rc == 0 && strcmp(new_text, rows[r].text) != 0) {
            const sql_arg args[] = { ARG_INT(rows[r].id), ARG_TEXT(new_text) };
            rc = sql_exec(st, "UPDATE problems SET text = ?2 WHERE id = ?1", args, N_ARGS(args),
                          err, "rewriting a problem text");
        }
        canonical_text_free(&text);
    }
    problem_rows_free(rows, n_rows);
    return rc;
}

/* ------------------------------------------------------------ migration to version 9 */

/* The interval of one measurement's samples into its row. */
static int store_interval(store *st, sqlite3_stmt *update, int64_t id, const double *x, size_t n,
                          skytune_error *err)
{
    median_interval ci;
    if (median_interval_of(x, n, MEDIAN_INTERVAL_LEVEL, &ci) != 0) return 0;
    const sql_arg args[] = { ARG_INT(id), ARG_REAL(ci.low), ARG_REAL(ci.high),
                             ARG_REAL(ci.coverage) };
    return stmt_exec(st, update, args, N_ARGS(args), err, "recording a measurement's interval");
}

/* Every ok measurement gets the interval of its samples, as if it had been
 * recorded now: SQL has no order statistics of a binomial level. */
static int migrate_intervals(store *st, skytune_error *err)
{
    sqlite3_stmt *read = NULL, *update = NULL;
    if (prepare(st, "SELECT s.measurement_id, s.time_ns FROM samples s"
                    " JOIN measurements m ON m.id = s.measurement_id WHERE m.status = 'ok'"
                    " ORDER BY s.measurement_id, s.run",
                0, &read, err, "reading the samples") != 0 ||
        prepare(st, "UPDATE measurements SET ci_low_ns = ?2, ci_high_ns = ?3, ci_coverage = ?4"
                    " WHERE id = ?1",
                0, &update, err, "recording the intervals") != 0) {
        sqlite3_finalize(read);
        return -1;
    }
    double *x = NULL;
    size_t n = 0, capacity = 0;
    int64_t current = 0;
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(read)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(read, 0);
        if (id != current) {
            rc = store_interval(st, update, current, x, n, err);
            current = id;
            n = 0;
        }
        if (n == capacity) {
            size_t grown_to = capacity ? 2 * capacity : 64;
            double *grown = realloc(x, grown_to * sizeof *grown);
            if (!grown) {
                rc = err_set(err, "recording the intervals: out of memory");
                break;
            }
            x = grown;
            capacity = grown_to;
        }
        x[n++] = sqlite3_column_double(read, 1);
    }
    if (rc == 0 && step != SQLITE_DONE) rc = fail_sqlite(st, err, "reading the samples");
    if (rc == 0) rc = store_interval(st, update, current, x, n, err);
    free(x);
    sqlite3_finalize(read);
    sqlite3_finalize(update);
    return rc;
}

/* ------------------------------------------------------------ open */

/* What the header and the schema tables say about a database file. */
typedef struct db_state {
    int64_t tables;         /* rows of sqlite_master */
    int64_t application_id;
    int64_t user_version;
} db_state;

typedef enum open_action { OPEN_READY, OPEN_INITIALISE, OPEN_MIGRATE } open_action;

/* Reads only: a file that is refused must stay exactly as it was. */
static int read_db_state(store *st, db_state *state, skytune_error *err)
{
    static const struct {
        const char *sql;
        size_t offset;
    } reads[] = {
        { "SELECT count(*) FROM sqlite_master", offsetof(db_state, tables) },
        { "PRAGMA application_id", offsetof(db_state, application_id) },
        { "PRAGMA user_version", offsetof(db_state, user_version) },
    };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
        sqlite3_stmt *s = NULL;
        int rc = sqlite3_prepare_v2(st->db, reads[k].sql, -1, &s, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_step(s);
        if (rc != SQLITE_ROW) {
            if ((rc & 0xff) == SQLITE_NOTADB) {
                err_set(err, "%s is not a SQLite database", st->name);
            } else {
                fail_sqlite(st, err, "cannot read the database");
                err_prefix(err, "%s", st->name);
            }
            sqlite3_finalize(s);
            return -1;
        }
        *(int64_t *)((char *)state + reads[k].offset) = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    return 0;
}

static int decide_open_action(const store *st, const db_state *state, open_action *action,
                              skytune_error *err)
{
    bool empty = state->tables == 0 && state->application_id == 0;
    if (state->application_id != STORE_APPLICATION_ID && !empty)
        return err_set(err,
                       "%s is a SQLite database of another application (application_id "
                       "0x%08X), not a skytune result database",
                       st->name, (unsigned)(uint32_t)state->application_id);
    if (empty) {
        /* Someone set a version on a database without tables: not a blank
         * file to claim, and not ours either. */
        if (state->user_version != 0)
            return err_set(err,
                           "%s is a SQLite database with no tables but user_version %lld, "
                           "not a skytune result database",
                           st->name, (long long)state->user_version);
        *action = OPEN_INITIALISE;
        return 0;
    }
    if (state->user_version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s has schema version %lld, newer than this skytune (%d): "
                            "upgrade skytune",
                       st->name, (long long)state->user_version, STORE_SCHEMA_VERSION);
    *action = state->user_version < STORE_SCHEMA_VERSION ? OPEN_MIGRATE : OPEN_READY;
    return 0;
}

static int exec_script(store *st, const char *sql, skytune_error *err, const char *what)
{
    /* sqlite3_exec leaves its error on the connection, as a statement's. */
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail_sqlite(st, err, what);
    return 0;
}

/* PRAGMA values cannot be bound parameters; these are integers of ours. */
static int set_header_pragma(store *st, const char *pragma, long long value, skytune_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA %s = %lld", pragma, value);
    return exec_script(st, sql, err, pragma);
}

static int migrate(store *st, int64_t from_version, skytune_error *err)
{
    for (int64_t version = from_version; version < STORE_SCHEMA_VERSION; version++) {
        const store_migration *step = NULL;
        for (const store_migration *m = store_migrations; m->sql; m++)
            if (m->from_version == version) step = m;
        if (!step)
            return err_set(err, "no migration leads from schema version %lld to %d",
                           (long long)version, STORE_SCHEMA_VERSION);
        char what[64];
        snprintf(what, sizeof what, "migrating from schema version %lld", (long long)version);
        if (exec_script(st, step->sql, err, what) != 0) return -1;
        if (step->step && step->step(st, err) != 0) return err_prefix(err, "%s", what);
    }
    return set_header_pragma(st, "user_version", STORE_SCHEMA_VERSION, err);
}

/* Create or migrate in one transaction. The state is read again under the
 * write lock: another process may have done the work since we looked. */
static int prepare_schema(store *st, skytune_error *err)
{
    if (exec_script(st, "BEGIN IMMEDIATE", err, "starting a transaction") != 0) goto fail;
    db_state state;
    open_action action;
    if (read_db_state(st, &state, err) != 0) goto rollback;
    if (decide_open_action(st, &state, &action, err) != 0) {
        exec_script(st, "ROLLBACK", NULL, "rolling back");
        return -1;
    }
    if (action == OPEN_INITIALISE) {
        if (exec_script(st, store_schema_sql, err, "creating the schema") != 0) goto rollback;
        if (set_header_pragma(st, "application_id", STORE_APPLICATION_ID, err) != 0)
            goto rollback;
        if (set_header_pragma(st, "user_version", STORE_SCHEMA_VERSION, err) != 0)
            goto rollback;
    } else if (action == OPEN_MIGRATE) {
        if (migrate(st, state.user_version, err) != 0) goto rollback;
    }
    if (exec_script(st, "COMMIT", err, "committing") != 0) goto rollback;
    return 0;
rollback:
    if (!sqlite3_get_autocommit(st->db)) exec_script(st, "ROLLBACK", NULL, "rolling back");
fail:
    return err_prefix(err, "%s: cannot set up the result database", st->name);
}

static int configure_connection(store *st, skytune_error *err)
{
    /* WAL: readers (reports, the sqlite3 shell) never block the campaign
     * writing, and a commit is one append. Only after validation, because
     * switching to WAL rewrites the file header. */
    sqlite3_stmt *s = NULL;
    if (prepare(st, "PRAGMA journal_mode = WAL", 0, &s, err, "setting the journal mode") != 0)
        return err_prefix(err, "%s", st->name);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        fail_sqlite(st, err, "setting the journal mode");
        sqlite3_finalize(s);
        return err_prefix(err, "%s", st->name);
    }
    const char *mode = (const char *)sqlite3_column_text(s, 0);
    bool wal = mode && strcmp(mode, "wal") == 0;
    if (!wal)
        err_set(err, "%s: cannot use the WAL journal mode (SQLite kept '%s'); WAL needs a "
                     "local file system",
                st->name, mode ? mode : "?");
    sqlite3_finalize(s);
    if (!wal) return -1;

    /* NORMAL in WAL mode does not sync on commit, only at checkpoints: a
     * killed process loses nothing committed (the WAL is in the OS's page
     * cache), only a power cut can lose the last commits, and the database
     * stays consistent either way. FULL would add an fsync to every
     * configuration for a risk overnight campaigns hardly face. */
    if (exec_script(st, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", err,
                    "setting up the connection") != 0)
        return err_prefix(err, "%s", st->name);
    int64_t foreign_keys = 0;
    bool found = false;
    if (sql_int64(st, "PRAGMA foreign_keys", NULL, 0, &foreign_keys, &found, err,
                  "checking foreign keys") != 0)
        return err_prefix(err, "%s", st->name);
    if (!found || foreign_keys != 1)
        return err_set(err, "%s: this SQLite cannot enforce foreign keys", st->name);
    return 0;
}

/* Whether new files can be made in the folder that holds path: SQLite
 * creates PATH-wal and PATH-shm there. *folder gets the folder's name
 * (malloc'd; NULL when out of memory, and then the answer is yes and SQLite
 * has the last word). */
static bool folder_writable(const char *path, char **folder)
{
    const char *slash = strrchr(path, '/');
    *folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    return !*folder || access(*folder, W_OK | X_OK) == 0;
}

/* Why a file SQLite opened only for reading cannot be written. */
static const char *read_only_reason(const char *path)
{
    if (access(path, W_OK) == 0) return "SQLite could open it only for reading";
    if (errno == EROFS) return "it is on a read-only file system";
    if (errno == EACCES || errno == EPERM) return "you have no permission to write it";
    return strerror(errno);
}

/* What every open checks before SQLite sees the path. */
static int check_database_path(const char *path, bool create_if_missing, bool *existed,
                               skytune_error *err)
{
    if (!path || !*path) return err_set(err, "no result database file given");
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    struct stat info;
    *existed = stat(path, &info) == 0;
    if (!*existed && errno != ENOENT)
        return err_set(err, "%s: cannot access: %s", name, strerror(errno));
    if (!*existed && !create_if_missing) return err_set(err, "%s does not exist", name);
    if (*existed && S_ISDIR(info.st_mode))
        return err_set(err, "%s is a directory, not a result database file", name);
    /* A device, a FIFO or a socket is no database, and SQLite would make
     * its journal beside it (/dev/null-journal). */
    if (*existed && !S_ISREG(info.st_mode))
        return err_set(err, "%s is not a regular file (a device, a FIFO or a socket), so not a "
                            "result database file: give a file's path",
                       name);
    return 0;
}

static store *store_new(const char *path, double busy_timeout_s, skytune_error *err)
{
    char name[QUOTE_PATH];
    quote_text(path, name, sizeof name);
    store *st = calloc(1, sizeof *st);
    if (st) st->name = strdup(name);
    if (!st || !st->name) {
        free(st);
        err_set(err, "%s: out of memory", name);
        return NULL;
    }
    st->busy_timeout_s = busy_timeout_s;
    return st;
}

static int prepare_hot_statements(store *st, skytune_error *err)
{
    for (int k = 0; k < HOT_COUNT; k++)
        if (prepare(st, hot_sql[k], SQLITE_PREPARE_PERSISTENT, &st->hot[k], err,
                    "preparing statements") != 0)
            return err_prefix(err, "%s", st->name);
    return 0;
}

int store_open(const char *path, bool create_if_missing, double busy_timeout_s, store **out,
               skytune_error *err)
{
    if (!out) return err_set(err, "store_open: no place for the result");
    *out = NULL;
    bool existed;
    if (check_database_path(path, create_if_missing, &existed, err) != 0) return -1;

    char *folder;
    if (!folder_writable(path, &folder)) {
        int why = errno;
        char name[QUOTE_PATH], folder_name[QUOTE_PATH];
        quote_text(path, name, sizeof name);
        quote_text(folder, folder_name, sizeof folder_name);
        err_set(err,
                "%s: cannot write in its folder %s (%s): SQLite keeps the journal of a database "
                "it writes beside it (%s-wal, %s-shm); use a folder you can write to",
                name, folder_name, strerror(why), name, name);
        free(folder);
        return -1;
    }
    free(folder);

    store *st = store_new(path, busy_timeout_s, err);
    if (!st) return -1;

    int flags = SQLITE_OPEN_READWRITE | (create_if_missing ? SQLITE_OPEN_CREATE : 0);
    /* URI file names, so that merging can attach a source read-only
     * ("file:...?mode=ro"); a database whose own name starts with "file:"
     * keeps being a plain path. */
    if (strncmp(path, "file:", 5) != 0) flags |= SQLITE_OPEN_URI;
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
        if (st->db)
            err_set(err, "%s: cannot open: %s", st->name, sqlite3_errmsg(st->db));
        else
            err_set(err, "%s: cannot open: out of memory", st->name);
        goto fail;
    }
    /* SQLite falls back to reading a file it cannot open for writing. Found
     * before anything is read: reading a WAL database creates PATH-wal and
     * PATH-shm, which a connection that cannot write leaves behind. */
    if (sqlite3_db_readonly(st->db, "main") == 1) {
        err_set(err,
                "%s is read-only (%s), and this command writes to it; use a database you can "
                "write, or a copy of this one",
                st->name, read_only_reason(path));
        goto fail;
    }
    sqlite3_extended_result_codes(st->db, 1);
    db_busy_wait_set(st->db, busy_timeout_s);
    /* Closing a WAL database checkpoints it: the frames of its WAL file go
     * into the main file. Until the file is known to be ours, a WAL with
     * frames in it stays as it is. An empty or absent one is checkpointed
     * as usual, which writes nothing and removes the -wal and -shm files
     * that opening created. */
    if (existed && db_wal_has_frames(path))
        sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);

    db_state state;
    open_action action;
    if (read_db_state(st, &state, err) != 0) goto fail;
    if (decide_open_action(st, &state, &action, err) != 0) goto fail;
    if (action != OPEN_READY && prepare_schema(st, err) != 0) goto fail;
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, (int *)NULL);

    if (configure_connection(st, err) != 0) goto fail;
    if (prepare_hot_statements(st, err) != 0) goto fail;
    *out = st;
    return 0;

fail:
    store_close(st);
    /* A file this call created and could not set up is nobody's. */
    if (!existed) unlink(path);
    return -1;
}

/* An older schema read without writing it: the database copied into a
 * private temporary one (SQLite's "" file, removed when closed) and
 * migrated there, the reading connection then reading the copy. */
static int migrate_a_copy(store *st, skytune_error *err)
{
    sqlite3 *copy = NULL;
    if (sqlite3_open_v2("", &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        err_set(err, "%s: cannot make a temporary copy to migrate: %s", st->name,
                copy ? sqlite3_errmsg(copy) : "out of memory");
        sqlite3_close(copy);
        return -1;
    }
    sqlite3_backup *b = sqlite3_backup_init(copy, "main", st->db, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(copy);
    if (b) sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        err_set(err, "%s: cannot copy it to migrate: %s", st->name, sqlite3_errstr(rc));
        sqlite3_close(copy);
        return -1;
    }
    sqlite3_close(st->db);
    st->db = copy;
    sqlite3_extended_result_codes(st->db, 1);
    return prepare_schema(st, err);
}

int store_open_for_reading(const char *path, double busy_timeout_s, store **out,
                           skytune_error *err)
{
    if (!out) return err_set(err, "store_open_for_reading: no place for the result");
    *out = NULL;
    bool existed;
    if (check_database_path(path, false, &existed, err) != 0) return -1;
    /* Read where it is, as the sources of a merge are: nothing is written
     * to it or beside it, whoever reads it and wherever it lies (a
     * read-write open would switch it to WAL, rewriting its header, and
     * leave -wal and -shm files of the reader's behind if killed). */
    store *st = store_new(path, busy_timeout_s, err);
    if (!st) return -1;
    char *uri = db_readonly_uri(path);
    int opened = uri ? sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL)
                     : SQLITE_NOMEM;
    free(uri);
    if (opened != SQLITE_OK) {
        err_set(err, "%s: cannot open: %s", st->name,
                st->db ? sqlite3_errmsg(st->db) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(st->db, 1);
    db_busy_wait_set(st->db, busy_timeout_s);
    db_state state;
    open_action action;
    if (read_db_state(st, &state, err) != 0 || decide_open_action(st, &state, &action, err) != 0)
        goto fail;
    if (action == OPEN_INITIALISE) {
        err_set(err, "%s is an empty database, not a result database (a run makes it one)",
                st->name);
        goto fail;
    }
    if (action == OPEN_MIGRATE && migrate_a_copy(st, err) != 0) goto fail;
    /* Statements that write fail on this connection with SQLite's message;
     * the commands that read never run them. */
    if (prepare_hot_statements(st, err) != 0) goto fail;
    *out = st;
    return 0;
fail:
    store_close(st);
    return -1;
}

void store_close(store *st)
{
    if (!st) return;
    for (int k = 0; k < HOT_COUNT; k++) sqlite3_finalize(st->hot[k]);
    sqlite3_close(st->db);
    free(st->key.plugin_name);
    free(st->name);
    free(st);
}

void *store_handle(store *st)
{
    return st ? st->db : NULL;
}

double store_busy_timeout_s(const store *st)
{
    return st->busy_timeout_s;
}

/* ------------------------------------------------------------ identities */

int store_device_id(store *st, const skytune_device_info *dev, int64_t *id, skytune_error *err)
{
    if (!dev || !id) return err_set(err, "%s: store_device_id: no device given", st->name);
    const sql_arg find[] = { ARG_CHARS(dev->platform), ARG_CHARS(dev->name),
                             ARG_CHARS(dev->driver_version) };
    const sql_arg insert[] = {
        ARG_CHARS(dev->platform),          ARG_CHARS(dev->name),
        ARG_CHARS(dev->vendor),            ARG_CHARS(dev->driver_version),
        ARG_CHARS(dev->opencl_version),    ARG_INT(dev->is_gpu ? 1 : 0),
        ARG_INT(dev->compute_units),       ARG_INT(dev->max_clock_mhz),
        ARG_INT(dev->global_mem_size),     ARG_INT(dev->local_mem_size),
        ARG_INT(dev->max_constant_size),   ARG_INT(dev->max_mem_alloc_size),
        ARG_INT(dev->max_work_group_size), ARG_INT(dev->max_work_item_sizes[0]),
        ARG_INT(dev->max_work_item_sizes[1]), ARG_INT(dev->max_work_item_sizes[2]),
    };
    if (find_or_insert(
            st, "SELECT id FROM devices WHERE platform = ?1 AND name = ?2 AND driver_version = ?3",
            find, N_ARGS(find),
            "INSERT INTO devices (platform, name, vendor, driver_version, opencl_version, is_gpu,"
            " compute_units, max_clock_mhz, global_mem_size, local_mem_size, max_constant_size,"
            " max_mem_alloc_size, max_work_group_size, max_work_item_size_0,"
            " max_work_item_size_1, max_work_item_size_2)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
            " ON CONFLICT DO NOTHING",
            insert, N_ARGS(insert), id, err) != 0) {
        /* Both as the driver gives them: any bytes, perhaps without a NUL. */
        char name[QUOTE_TEXT], driver[QUOTE_TEXT];
        quote_span(dev->name, strnlen(dev->name, sizeof dev->name), name, sizeof name);
        quote_span(dev->driver_version, strnlen(dev->driver_version, sizeof dev->driver_version),
                   driver, sizeof driver);
        return err_prefix(err, "%s: cannot record device '%s' (driver %s)", st->name, name,
                          driver);
    }
    return 0;
}

/* The name a parameter's column gets in results_<plugin>: its own, unless
 * SQLite (case-insensitive) would confuse it with a column before it. */
static bool column_name_taken(const char *name, const char *const *taken, size_t n_taken)
{
    for (size_t k = 0; k < n_taken; k++)
        if (strcasecmp(name, taken[k]) == 0) return true;
    return false;
}

static const char *const results_view_fixed_columns[] = {
    "measurement_id", "campaign_id", "device", "problem", "status", "median_ns", "gflops", "gbs",
};

/* A problem parameter's value typed as the config_values view of
 * schema.sql types a tuning parameter's: an integer, a real, else text. */
#define RESULTS_VIEW_PROBLEM_VALUE                                                              \
    "(SELECT CASE WHEN pp.value = CAST(CAST(pp.value AS INTEGER) AS TEXT)"                      \
    " THEN CAST(pp.value AS INTEGER)"                                                           \
    " WHEN pp.value GLOB '*[0-9]*' AND pp.value GLOB '*[.eE]*'"                                 \
    " AND pp.value = CAST(pp.value AS NUMERIC) THEN CAST(pp.value AS REAL)"                     \
    " ELSE pp.value END"                                                                        \
    " FROM problem_params pp WHERE pp.problem_id = m.problem_id AND pp.name = '%s')"

/* The column a parameter gets in results_<plugin>: its name, or
 * param_<name> where that is taken already (by a fixed column or an earlier
 * parameter). NULL with err set when both are taken. */
static char *results_view_column(const char *plugin, const char *kind, const char *name,
                                 const char **taken, size_t *n_taken, skytune_error *err)
{
    size_t len = strlen(name) + sizeof "param_";
    char *column = malloc(len);
    if (!column) {
        err_set(err, "out of memory");
        return NULL;
    }
    snprintf(column, len, "%s", name);
    if (column_name_taken(column, taken, *n_taken)) snprintf(column, len, "param_%s", name);
    if (column_name_taken(column, taken, *n_taken)) {
        err_set(err, "%s '%s' has no column name of its own in results_%s (parameter "
                     "names must differ ignoring case)",
                kind, name, plugin);
        free(column);
        return NULL;
    }
    taken[(*n_taken)++] = column;
    return column;
}

/* The text of CREATE VIEW results_<plugin>: the fixed columns, one column
 * per tuning parameter, then one per problem parameter, then one per
 * derived value. The tuning parameters come first because they are what
 * differs from row to row of a campaign; the problem's are the same along a
 * campaign. Derived values are read by subqueries, which multiply no rows.
 * Identifiers are checked by the caller; they go in double quotes as names
 * and single quotes as values. */
static int results_view_sql(const char *plugin, const store_param_names *params, char **sql,
                            skytune_error *err)
{
    size_t n_fixed = sizeof results_view_fixed_columns / sizeof results_view_fixed_columns[0];
    size_t n_params = params->n_tuning + params->n_problem;
    const char **taken = calloc(n_fixed + n_params + params->n_derived + 1, sizeof *taken);
    if (!taken) return err_set(err, "out of memory");
    size_t n_taken = 0;
    for (size_t k = 0; k < n_fixed; k++) taken[n_taken++] = results_view_fixed_columns[k];

    text_buffer b = { 0 };
    text_append(&b,
                "CREATE VIEW \"results_%s\" AS\n"
                "SELECT m.id AS measurement_id, m.campaign_id AS campaign_id, d.name AS device,\n"
                "       pr.text AS problem, m.status AS status, m.median_ns AS median_ns,\n"
                "       m.gflops AS gflops, m.gbs AS gbs",
                plugin);
    int rc = 0;
    for (size_t k = 0; k < n_params && rc == 0; k++) {
        bool tuning = k < params->n_tuning;
        const char *name = tuning ? params->tuning[k] : params->problem[k - params->n_tuning];
        const char *column =
            results_view_column(plugin, tuning ? "tuning parameter" : "problem parameter", name,
                                taken, &n_taken, err);
        if (!column)
            rc = -1;
        else if (tuning)
            text_append(&b, ",\n       MAX(CASE WHEN v.name = '%s' THEN v.value END) AS \"%s\"",
                        name, column);
        else
            text_append(&b, ",\n       " RESULTS_VIEW_PROBLEM_VALUE " AS \"%s\"", name, column);
    }
    for (size_t k = 0; k < params->n_derived && rc == 0; k++) {
        const char *name = params->derived[k];
        const char *column =
            results_view_column(plugin, "derived value", name, taken, &n_taken, err);
        if (!column)
            rc = -1;
        else
            text_append(&b,
                        ",\n       (SELECT x.value FROM derived_values x"
                        " WHERE x.measurement_id = m.id AND x.name = '%s') AS \"%s\"",
                        name, column);
    }
    text_append(&b,
                "\nFROM measurements m\n"
                "JOIN plugins p ON p.id = m.plugin_id\n"
                "JOIN devices d ON d.id = m.device_id\n"
                "JOIN problems pr ON pr.id = m.problem_id\n"
                "LEFT JOIN config_values v ON v.configuration_id = m.configuration_id\n"
                "WHERE p.name = '%s'\n"
                "GROUP BY m.id",
                plugin);
    for (size_t k = n_fixed; k < n_taken; k++) free((char *)taken[k]);
    free(taken);
    if (rc == 0 && b.out_of_memory) rc = err_set(err, "out of memory");
    if (rc != 0) {
        free(b.text);
        return -1;
    }
    *sql = b.text;
    return 0;
}

/* Drop and create results_<plugin> unless it is already exactly this view:
 * redefining it on every run would invalidate every other connection's
 * prepared statements for nothing. Inside the caller's transaction. */
static int refresh_results_view(store *st, const char *plugin, const char *view_sql,
                                skytune_error *err)
{
    char view_name[256];
    if ((size_t)snprintf(view_name, sizeof view_name, "results_%s", plugin) >= sizeof view_name)
        return err_set(err, "plugin name too long for a view name");
    sqlite3_stmt *s = NULL;
    if (prepare(st, "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?1", 0, &s, err,
                "looking up the view") != 0)
        return -1;
    int rc = bind_args(s, (sql_arg[]){ ARG_TEXT(view_name) }, 1);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        fail_sqlite(st, err, "looking up the view");
        sqlite3_finalize(s);
        return -1;
    }
    bool same = rc == SQLITE_ROW && sqlite3_column_text(s, 0) &&
                strcmp((const char *)sqlite3_column_text(s, 0), view_sql) == 0;
    sqlite3_finalize(s);
    if (same) return 0;

    char drop[300];
    snprintf(drop, sizeof drop, "DROP VIEW IF EXISTS \"%s\"", view_name);
    if (exec_script(st, drop, err, "dropping the old view") != 0) return -1;
    return exec_script(st, view_sql, err, "creating the view");
}

/* Parameter names become column names of results_<plugin>. */
static int check_param_names(const store *st, const char *plugin, const char *kind,
                             const char *const *names, size_t n, skytune_error *err)
{
    for (size_t k = 0; k < n; k++)
        if (!is_identifier(names[k]))
            return err_set(err, "%s: plugin %s: %s name '%s' is not an identifier "
                                "([A-Za-z_][A-Za-z0-9_]*)",
                           st->name, plugin, kind, names[k] ? names[k] : "(null)");
    return 0;
}

int store_plugin_id(store *st, const char *name, const char *version, const char *source_hash,
                    const store_param_names *params, int64_t *id, skytune_error *err)
{
    static const store_param_names none = { 0 };
    if (!params) params = &none;
    if (!is_identifier(name))
        return err_set(err, "%s: plugin name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                       st->name, name ? name : "(null)");
    if (!version || !source_hash || !id || (params->n_tuning > 0 && !params->tuning) ||
        (params->n_problem > 0 && !params->problem) ||
        (params->n_derived > 0 && !params->derived))
        return err_set(err, "%s: store_plugin_id: plugin %s given without version, source "
                            "hash or column names",
                       st->name, name);
    if (check_param_names(st, name, "tuning parameter", params->tuning, params->n_tuning, err) !=
            0 ||
        check_param_names(st, name, "problem parameter", params->problem, params->n_problem,
                          err) != 0 ||
        check_param_names(st, name, "derived value", params->derived, params->n_derived, err) !=
            0)
        return -1;

    char *view_sql = NULL;
    if (results_view_sql(name, params, &view_sql, err) != 0)
        return err_prefix(err, "%s: cannot make the view results_%s", st->name, name);

    const sql_arg key[] = { ARG_TEXT(name), ARG_TEXT(version), ARG_TEXT(source_hash) };
    if (begin_write(st, err) != 0) goto fail;
    if (find_or_insert(st,
                       "SELECT id FROM plugins WHERE name = ?1 AND version = ?2 AND source_hash = ?3",
                       key, N_ARGS(key),
                       "INSERT INTO plugins (name, version, source_hash) VALUES (?1, ?2, ?3)"
                       " ON CONFLICT DO NOTHING",
                       key, N_ARGS(key), id, err) != 0)
        goto fail;
    if (refresh_results_view(st, name, view_sql, err) != 0) {
        err_prefix(err, "results_%s", name);
        goto fail;
    }
    if (commit(st, err) != 0) goto fail;
    free(view_sql);
    return 0;
fail:
    rollback(st);
    free(view_sql);
    return err_prefix(err, "%s: cannot record plugin %s %s (source %s)", st->name, name, version,
                      source_hash);
}

/* The pairs of a problem text, when it is one: a canonical text
 * (canonical.h) whose names are identifiers. A replayed dataset's problem
 * is the dataset's name instead, and has none. */
static bool problem_pairs(const char *text, canonical_pair **pairs, size_t *n)
{
    skytune_error ignored;
    if (canonical_split(text, pairs, n, &ignored) != 0) return false;
    for (size_t k = 0; k < *n; k++)
        if (!is_identifier((*pairs)[k].name)) {
            canonical_pairs_free(*pairs, *n);
            return false;
        }
    return true;
}

static int insert_problem_params(store *st, int64_t problem_id, const canonical_pair *pairs,
                                 size_t n, skytune_error *err)
{
    sqlite3_stmt *s = NULL;
    if (prepare(st, "INSERT INTO problem_params (problem_id, position, name, value)"
                    " VALUES (?1, ?2, ?3, ?4)",
                0, &s, err, "recording the problem's parameters") != 0)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const sql_arg args[] = { ARG_INT(problem_id), ARG_INT((int64_t)k), ARG_TEXT(pairs[k].name),
                                 ARG_TEXT(pairs[k].value) };
        rc = stmt_exec(st, s, args, N_ARGS(args), err, "recording the problem's parameters");
    }
    sqlite3_finalize(s);
    return rc;
}

int store_problem_id(store *st, int64_t plugin_id, const char *problem_text, int64_t *id,
                     skytune_error *err)
{
    if (!problem_text || !id)
        return err_set(err, "%s: store_problem_id: no problem text given", st->name);
    canonical_pair *pairs = NULL;
    size_t n_pairs = 0;
    bool has_pairs = problem_pairs(problem_text, &pairs, &n_pairs);
    const sql_arg key[] = { ARG_INT(plugin_id), ARG_TEXT(problem_text) };
    const char *find = "SELECT id FROM problems WHERE plugin_id = ?1 AND text = ?2";
    bool found = false;
    /* The problem and its parameters in one transaction, so that no reader
     * sees one without the other. */
    if (begin_write(st, err) != 0) goto fail;
    if (sql_int64(st, find, key, N_ARGS(key), id, &found, err, "looking it up") != 0) goto fail;
    if (!found) {
        if (sql_exec(st, "INSERT INTO problems (plugin_id, text) VALUES (?1, ?2)", key,
                     N_ARGS(key), err, "inserting it") != 0 ||
            sql_int64(st, find, key, N_ARGS(key), id, &found, err, "looking it up") != 0)
            goto fail;
        if (!found) {
            err_set(err, "inserted but not found again");
            goto fail;
        }
        if (has_pairs && insert_problem_params(st, *id, pairs, n_pairs, err) != 0) goto fail;
    }
    if (commit(st, err) != 0) goto fail;
    if (has_pairs) canonical_pairs_free(pairs, n_pairs);
    return 0;
fail:
    rollback(st);
    if (has_pairs) canonical_pairs_free(pairs, n_pairs);
    return err_prefix(err, "%s: cannot record problem '%s' of plugin %lld", st->name,
                      problem_text, (long long)plugin_id);
}

/* ------------------------------------------------------------ campaigns */

int store_campaign_open(store *st, const store_campaign_spec *spec, int64_t *campaign_id,
                        bool *resumed, skytune_error *err)
{
    if (!spec || !spec->strategy || !spec->settings || !campaign_id || !resumed)
        return err_set(err, "%s: store_campaign_open: the campaign needs a strategy and "
                            "settings",
                       st->name);
    const sql_arg key[] = {
        ARG_INT(spec->plugin_id), ARG_INT(spec->device_id), ARG_INT(spec->problem_id),
        ARG_TEXT(spec->strategy), ARG_TEXT(spec->settings), ARG_INT(u64_bits(spec->seed)),
    };
    bool found = false;
    int64_t id = 0;
    /* One transaction: two runs of one command started together must not
     * both insert. */
    if (begin_write(st, err) != 0) goto fail;
    if (sql_int64(st,
                  "SELECT id FROM campaigns WHERE plugin_id = ?1 AND device_id = ?2"
                  " AND problem_id = ?3 AND strategy = ?4 AND settings = ?5 AND seed = ?6",
                  key, N_ARGS(key), &id, &found, err, "looking it up") != 0)
        goto fail;
    if (found) {
        if (sql_exec(st, "UPDATE campaigns SET status = 'running', ended_at = NULL WHERE id = ?1",
                     (sql_arg[]){ ARG_INT(id) }, 1, err, "marking it running") != 0)
            goto fail;
    } else {
        const sql_arg row[] = {
            key[0], key[1], key[2], key[3], key[4], key[5],
            ARG_TEXT(spec->command), ARG_TEXT(spec->host), ARG_INT(spec->replayed ? 1 : 0),
        };
        if (sql_exec(st,
                     "INSERT INTO campaigns (plugin_id, device_id, problem_id, strategy, settings,"
                     " seed, command, host, replayed, status)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'running')",
                     row, N_ARGS(row), err, "inserting it") != 0)
            goto fail;
        id = sqlite3_last_insert_rowid(st->db);
    }
    if (commit(st, err) != 0) goto fail;
    *campaign_id = id;
    *resumed = found;
    return 0;
fail:
    rollback(st);
    return err_prefix(err,
                      "%s: cannot open the campaign (plugin %lld, device %lld, problem %lld, "
                      "strategy %s)",
                      st->name, (long long)spec->plugin_id, (long long)spec->device_id,
                      (long long)spec->problem_id, spec->strategy);
}

int store_campaign_close(store *st, int64_t campaign_id, const char *status, skytune_error *err)
{
    if (!status || (strcmp(status, "done") != 0 && strcmp(status, "interrupted") != 0 &&
                    strcmp(status, "failed") != 0))
        return err_set(err, "%s: cannot close campaign %lld with status '%s': the status must "
                            "be done, interrupted or failed",
                       st->name, (long long)campaign_id, status ? status : "(null)");
    const sql_arg args[] = { ARG_INT(campaign_id), ARG_TEXT(status) };
    if (sql_exec(st,
                 "UPDATE campaigns SET status = ?2,"
                 " ended_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
                 args, N_ARGS(args), err, "updating it") != 0)
        return err_prefix(err, "%s: cannot close campaign %lld", st->name,
                          (long long)campaign_id);
    if (sqlite3_changes(st->db) == 0)
        return err_set(err, "%s: cannot close campaign %lld: there is no such campaign",
                       st->name, (long long)campaign_id);
    return 0;
}

int store_known_measurements(store *st, int64_t campaign_id,
                             int (*visit)(void *ctx, const store_known *k), void *ctx,
                             skytune_error *err)
{
    if (!visit) return err_set(err, "%s: store_known_measurements: no visitor", st->name);
    int64_t found_id = 0;
    bool found = false;
    if (sql_int64(st, "SELECT id FROM campaigns WHERE id = ?1", (sql_arg[]){ ARG_INT(campaign_id) },
                  1, &found_id, &found, err, "looking up the campaign") != 0)
        return err_prefix(err, "%s: cannot read the measurements known to campaign %lld",
                          st->name, (long long)campaign_id);
    if (!found)
        return err_set(err, "%s: there is no campaign %lld", st->name, (long long)campaign_id);

    sqlite3_stmt *s = NULL;
    /* Served by the measurements (plugin, device, problem, configuration)
     * index and the evaluations (measurement, campaign) index. */
    if (prepare(st,
                "SELECT m.id, c.text, m.status, m.median_ns, m.gflops, m.gbs, e.seq"
                " FROM campaigns k"
                " JOIN measurements m ON m.plugin_id = k.plugin_id AND m.device_id = k.device_id"
                " AND m.problem_id = k.problem_id"
                " JOIN configurations c ON c.id = m.configuration_id"
                " LEFT JOIN evaluations e ON e.campaign_id = k.id AND e.measurement_id = m.id"
                " WHERE k.id = ?1"
                " ORDER BY e.seq IS NULL, e.seq, m.id",
                0, &s, err, "preparing the query") != 0)
        return err_prefix(err, "%s: cannot read the measurements known to campaign %lld",
                          st->name, (long long)campaign_id);
    int rc = sqlite3_bind_int64(s, 1, campaign_id);
    int result = 0;
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW) break;
        const char *status_text = (const char *)sqlite3_column_text(s, 2);
        int status = status_text ? measurement_status_parse(status_text) : -1;
        if (status < 0) {
            result = err_set(err, "%s: measurement %lld has an unknown status '%s'", st->name,
                             (long long)sqlite3_column_int64(s, 0),
                             status_text ? status_text : "(null)");
            break;
        }
        store_known k = {
            .measurement_id = sqlite3_column_int64(s, 0),
            .config_text = (const char *)sqlite3_column_text(s, 1),
            .status = (measurement_status)status,
            .median_ns = sqlite3_column_double(s, 3), /* NULL reads as 0 */
            .gflops = sqlite3_column_double(s, 4),
            .gbs = sqlite3_column_double(s, 5),
            .in_campaign = sqlite3_column_type(s, 6) != SQLITE_NULL,
            .seq = sqlite3_column_int64(s, 6),
        };
        if (!k.config_text) {
            result = err_set(err, "%s: out of memory reading measurement %lld", st->name,
                             (long long)k.measurement_id);
            break;
        }
        if (visit(ctx, &k) != 0) {
            result = -1;
            break;
        }
    }
    if (result == 0 && rc != SQLITE_DONE) {
        fail_sqlite(st, err, "reading");
        result = err_prefix(err, "%s: cannot read the measurements known to campaign %lld",
                            st->name, (long long)campaign_id);
    }
    sqlite3_finalize(s);
    return result;
}

/* ------------------------------------------------------------ recording */

static int load_campaign_key(store *st, int64_t campaign_id, skytune_error *err)
{
    if (st->key.campaign_id == campaign_id && campaign_id != 0) return 0;
    sqlite3_stmt *s = st->hot[HOT_CAMPAIGN_KEY];
    int rc = sqlite3_bind_int64(s, 1, campaign_id);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(s);
        return err_set(err, "there is no campaign %lld", (long long)campaign_id);
    }
    if (rc != SQLITE_ROW) {
        fail_sqlite(st, err, "looking up the campaign");
        sqlite3_reset(s);
        return -1;
    }
    const char *name = (const char *)sqlite3_column_text(s, 3);
    char *copy = name ? strdup(name) : NULL;
    if (!copy) {
        sqlite3_reset(s);
        return err_set(err, "out of memory");
    }
    free(st->key.plugin_name);
    st->key = (campaign_key){
        .campaign_id = campaign_id,
        .device_id = sqlite3_column_int64(s, 0),
        .plugin_id = sqlite3_column_int64(s, 1),
        .problem_id = sqlite3_column_int64(s, 2),
        .plugin_name = copy,
    };
    sqlite3_reset(s);
    return 0;
}

/* The configuration's id, inserting it and its parameters the first time
 * any build of the plugin meets it. Inside the caller's transaction. */
static int configuration_id(store *st, const char *config_text, uint64_t config_hash,
                            const char *const *names, const char *const *values, size_t n_params,
                            int64_t *id, skytune_error *err)
{
    bool found = false;
    const sql_arg key[] = { ARG_TEXT(st->key.plugin_name), ARG_TEXT(config_text) };
    if (stmt_int64(st, st->hot[HOT_CONFIG_FIND], key, N_ARGS(key), id, &found, err,
                   "looking up the configuration") != 0)
        return -1;
    if (found) return 0;
    const sql_arg row[] = { key[0], key[1], ARG_INT(u64_bits(config_hash)) };
    if (stmt_exec(st, st->hot[HOT_CONFIG_INSERT], row, N_ARGS(row), err,
                  "inserting the configuration") != 0)
        return -1;
    *id = sqlite3_last_insert_rowid(st->db);
    for (size_t k = 0; k < n_params; k++) {
        const sql_arg param[] = { ARG_INT(*id), ARG_TEXT(names[k]), ARG_TEXT(values[k]) };
        if (stmt_exec(st, st->hot[HOT_PARAM_INSERT], param, N_ARGS(param), err,
                      "inserting the configuration's parameters") != 0)
            return -1;
    }
    return 0;
}

/* A measurement's own columns, status through ci_coverage, in the order
 * both the insert (from ?6) and the in-place update (from ?3) bind them.
 * Values that do not exist for its status go in as NULL (see schema.sql). */
#define MEASUREMENT_VALUES 24

static void measurement_values(const measurement *m, sql_arg *v)
{
    bool ok = m->status == MEAS_OK;
    bool verified = ok || m->status == MEAS_WRONG_RESULT;
    bool faulted = m->status == MEAS_CRASH || m->status == MEAS_TIMEOUT;
    /* The interval is the samples' (median_interval.h): computed here, once,
     * so that every reader — reports, exports, the sqlite3 shell — shows
     * the same one. */
    median_interval ci = {0};
    bool interval = ok && median_interval_of(m->samples_ns, m->n_samples, MEDIAN_INTERVAL_LEVEL,
                                             &ci) == 0;
    const sql_arg values[MEASUREMENT_VALUES] = {
        ARG_TEXT(measurement_status_name(m->status)),
        ARG_REAL_IF(ok, m->median_ns),
        ARG_REAL_IF(ok, m->min_ns),
        ARG_REAL_IF(ok, m->max_ns),
        ARG_REAL_IF(ok, m->mean_ns),
        ARG_REAL_IF(ok, m->stddev_ns),
        ARG_REAL_IF(ok && m->gflops != 0.0, m->gflops),
        ARG_REAL_IF(ok && m->gbs != 0.0, m->gbs),
        ARG_INT(m->n_samples),
        ARG_REAL(m->build_s),
        ARG_REAL(m->verify_s),
        ARG_REAL(m->bench_s),
        ARG_REAL(m->overhead_s),
        ARG_REAL_IF(verified, m->max_abs_error),
        ARG_REAL_IF(verified, m->max_rel_error),
        m->first_mismatch >= 0 ? ARG_INT(m->first_mismatch) : ARG_TEXT(NULL),
        ARG_TEXT(m->message),
        ARG_INT(m->replayed ? 1 : 0),
        ARG_TEXT(faulted && m->stage != STAGE_NONE ? measure_stage_recorded_name(m->stage) : NULL),
        ARG_INT(m->degraded ? 1 : 0),
        ARG_INT(m->raced ? 1 : 0),
        ARG_REAL_IF(interval, ci.low),
        ARG_REAL_IF(interval, ci.high),
        ARG_REAL_IF(interval, ci.coverage),
    };
    memcpy(v, values, sizeof values);
}

/* Insert the measurement row: 0 with *id, or 1 when the key has one
 * already (another run recorded it since this one claimed it, or no claim
 * was taken), with its id in *id; -1 on an error. */
static int insert_measurement(store *st, int64_t campaign_id, int64_t config_id,
                              const measurement *m, int64_t *id, skytune_error *err)
{
    sql_arg row[5 + MEASUREMENT_VALUES] = {
        ARG_INT(st->key.device_id),
        ARG_INT(st->key.plugin_id),
        ARG_INT(st->key.problem_id),
        ARG_INT(config_id),
        ARG_INT(campaign_id),
    };
    measurement_values(m, row + 5);
    sqlite3_stmt *s = st->hot[HOT_MEASUREMENT_INSERT];
    int rc = bind_args(s, row, N_ARGS(row));
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(s);
        *id = sqlite3_last_insert_rowid(st->db);
        return 0;
    }
    bool duplicate = rc == SQLITE_CONSTRAINT_UNIQUE;
    fail_sqlite(st, err, "inserting the measurement");
    sqlite3_reset(s);
    if (!duplicate) return -1;
    bool found = false;
    const sql_arg key[] = { row[1], row[0], row[2], row[3] };
    if (stmt_int64(st, st->hot[HOT_MEASUREMENT_FIND], key, N_ARGS(key), id, &found, err,
                   "looking up the measurement") != 0)
        return -1;
    if (!found) return err_set(err, "the measurement's key is taken, yet no row holds it");
    return 1;
}

/* --retry-failed: write the new result over a failed one, samples and parts
 * replaced, its id kept. */
static int replace_measurement(store *st, int64_t campaign_id, int64_t id, const measurement *m,
                               skytune_error *err)
{
    sql_arg row[2 + MEASUREMENT_VALUES] = { ARG_INT(id), ARG_INT(campaign_id) };
    measurement_values(m, row + 2);
    const sql_arg which[] = { ARG_INT(id) };
    if (stmt_exec(st, st->hot[HOT_MEASUREMENT_UPDATE], row, N_ARGS(row), err,
                  "replacing the failed measurement") != 0 ||
        stmt_exec(st, st->hot[HOT_SAMPLES_DELETE], which, 1, err, "removing old samples") != 0 ||
        stmt_exec(st, st->hot[HOT_PARTS_DELETE], which, 1, err, "removing old parts") != 0 ||
        stmt_exec(st, st->hot[HOT_DERIVED_DELETE], which, 1, err,
                  "removing old derived values") != 0)
        return -1;
    return 0;
}

/* Whether the measurement's status is anything but ok. */
static int measurement_failed(store *st, int64_t id, bool *failed, skytune_error *err)
{
    sqlite3_stmt *s = st->hot[HOT_MEASUREMENT_STATUS];
    int rc = sqlite3_bind_int64(s, 1, id);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        fail_sqlite(st, err, "reading the measurement's status");
        sqlite3_reset(s);
        return -1;
    }
    const char *status = (const char *)sqlite3_column_text(s, 0);
    *failed = !status || strcmp(status, "ok") != 0;
    sqlite3_reset(s);
    return 0;
}

void store_set_retry_failed(store *st, bool on)
{
    st->retry_failed = on;
}

int store_record_measurement(store *st, int64_t campaign_id, int64_t seq, const char *config_text,
                             uint64_t config_hash, const char *const *names,
                             const char *const *values, size_t n_params, const measurement *m,
                             int64_t *measurement_id, skytune_error *err)
{
    if (!config_text || !m || (n_params > 0 && (!names || !values)))
        return err_set(err, "%s: store_record_measurement: no configuration or measurement "
                            "given",
                       st->name);
    for (size_t k = 0; k < n_params; k++)
        if (!names[k] || !values[k])
            return err_set(err, "%s: configuration '%s': parameter %zu has no name or value",
                           st->name, config_text, k);
    if ((unsigned)m->status >= MEAS_STATUS_COUNT)
        return err_set(err, "%s: configuration '%s': status %d is not a measurement status",
                       st->name, config_text, (int)m->status);
    if ((m->n_samples > 0 && !m->samples_ns) || m->n_parts > MEAS_MAX_PARTS ||
        m->n_derived > MEAS_MAX_DERIVED)
        return err_set(err, "%s: configuration '%s': the measurement's samples, parts or derived "
                            "values are inconsistent (%zu samples, %zu parts, %zu derived "
                            "values; at most %d parts and %d derived values)",
                       st->name, config_text, m->n_samples, m->n_parts, m->n_derived,
                       MEAS_MAX_PARTS, MEAS_MAX_DERIVED);

    int64_t config_id = 0, id = 0;
    if (load_campaign_key(st, campaign_id, err) != 0) goto fail_outside;
    if (begin_write(st, err) != 0) goto fail;
    if (configuration_id(st, config_text, config_hash, names, values, n_params, &config_id,
                         err) != 0)
        goto fail;
    int inserted = insert_measurement(st, campaign_id, config_id, m, &id, err);
    if (inserted < 0) goto fail;
    /* Measured already under this key: this campaign's evaluation reuses
     * that row, unless failures are being measured again. */
    bool reused = inserted == 1;
    if (reused && st->retry_failed) {
        bool failed = false;
        if (measurement_failed(st, id, &failed, err) != 0) goto fail;
        if (failed) {
            if (replace_measurement(st, campaign_id, id, m, err) != 0) goto fail;
            reused = false;
        }
    }
    for (size_t k = 0; !reused && k < m->n_samples; k++) {
        const sql_arg sample[] = { ARG_INT(id), ARG_INT(k), ARG_REAL(m->samples_ns[k]) };
        if (stmt_exec(st, st->hot[HOT_SAMPLE_INSERT], sample, N_ARGS(sample), err,
                      "inserting the samples") != 0)
            goto fail;
    }
    for (size_t k = 0; !reused && k < m->n_parts; k++) {
        const sql_arg part[] = { ARG_INT(id), ARG_INT(k), ARG_CHARS(m->parts[k].label),
                                 ARG_REAL(m->parts[k].median_ns) };
        if (stmt_exec(st, st->hot[HOT_PART_INSERT], part, N_ARGS(part), err,
                      "inserting the parts") != 0)
            goto fail;
    }
    for (size_t k = 0; !reused && k < m->n_derived; k++) {
        const sql_arg value[] = { ARG_INT(id), ARG_CHARS(m->derived[k].name),
                                  ARG_REAL(m->derived[k].value) };
        if (stmt_exec(st, st->hot[HOT_DERIVED_INSERT], value, N_ARGS(value), err,
                      "inserting the derived values") != 0)
            goto fail;
    }
    const sql_arg evaluation[] = { ARG_INT(campaign_id), ARG_INT(seq), ARG_INT(id),
                                   ARG_INT(reused ? 1 : 0) };
    if (stmt_exec(st, st->hot[HOT_EVALUATION_INSERT], evaluation, N_ARGS(evaluation), err,
                  "inserting the evaluation") != 0)
        goto fail;
    const sql_arg claim[] = { ARG_INT(st->key.plugin_id), ARG_INT(st->key.device_id),
                              ARG_INT(st->key.problem_id), ARG_TEXT(config_text) };
    if (stmt_exec(st, st->hot[HOT_CLAIM_DELETE], claim, N_ARGS(claim), err,
                  "removing the claim") != 0)
        goto fail;
    if (commit(st, err) != 0) goto fail;
    if (measurement_id) *measurement_id = id;
    return 0;
fail:
    rollback(st);
fail_outside:
    return err_prefix(err, "%s: cannot record configuration '%s' as evaluation %lld of campaign %lld",
                      st->name, config_text, (long long)seq, (long long)campaign_id);
}

int store_record_cached(store *st, int64_t campaign_id, int64_t seq, int64_t measurement_id,
                        skytune_error *err)
{
    const sql_arg args[] = { ARG_INT(campaign_id), ARG_INT(seq), ARG_INT(measurement_id) };
    if (stmt_exec(st, st->hot[HOT_CACHED_INSERT], args, N_ARGS(args), err,
                  "inserting the evaluation") != 0)
        goto fail;
    if (sqlite3_changes(st->db) == 0) {
        /* Nothing added: the campaign holds this evaluation already (a run
         * sharing it got there first), or the measurement is not its. */
        bool held = false;
        int64_t one;
        const sql_arg pair[] = { ARG_INT(campaign_id), ARG_INT(measurement_id) };
        if (stmt_int64(st, st->hot[HOT_EVALUATION_FIND], pair, N_ARGS(pair), &one, &held, err,
                       "looking up the evaluation") != 0)
            goto fail;
        if (held) return 0;
        err_set(err, "the measurement is not under the campaign's device, plugin build and "
                     "problem, or one of them does not exist");
        goto fail;
    }
    return 0;
fail:
    return err_prefix(err, "%s: cannot record measurement %lld as evaluation %lld of campaign %lld",
                      st->name, (long long)measurement_id, (long long)seq,
                      (long long)campaign_id);
}

/* ------------------------------------------------------------ claims */

/* What the key holds for config_text: *found, and if so the known fields. */
static int known_by_text(store *st, int64_t campaign_id, const char *config_text, bool *found,
                         store_known *known, skytune_error *err)
{
    sqlite3_stmt *s = st->hot[HOT_KNOWN_BY_TEXT];
    const sql_arg args[] = { ARG_TEXT(st->key.plugin_name), ARG_INT(st->key.plugin_id),
                             ARG_INT(st->key.device_id), ARG_INT(st->key.problem_id),
                             ARG_INT(campaign_id), ARG_TEXT(config_text) };
    int rc = bind_args(s, args, N_ARGS(args));
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        fail_sqlite(st, err, "looking up the configuration's measurement");
        sqlite3_reset(s);
        return -1;
    }
    if (*found) {
        const char *status_text = (const char *)sqlite3_column_text(s, 1);
        int status = status_text ? measurement_status_parse(status_text) : -1;
        if (status < 0) {
            sqlite3_reset(s);
            return err_set(err, "measurement %lld has an unknown status",
                           (long long)sqlite3_column_int64(s, 0));
        }
        *known = (store_known){
            .measurement_id = sqlite3_column_int64(s, 0),
            .status = (measurement_status)status,
            .median_ns = sqlite3_column_double(s, 2),
            .gflops = sqlite3_column_double(s, 3),
            .gbs = sqlite3_column_double(s, 4),
            .in_campaign = sqlite3_column_int64(s, 5) != 0,
        };
    }
    sqlite3_reset(s);
    return 0;
}

int store_claim(store *st, int64_t campaign_id, const char *config_text, uint64_t config_hash,
                int64_t my_pid, const char *my_host, double stale_after_s,
                bool (*holder_alive)(void *ctx, int64_t pid, const char *host), void *alive_ctx,
                store_claim_result *out, skytune_error *err)
{
    (void)config_hash;
    memset(out, 0, sizeof *out);
    if (!config_text || !my_host)
        return err_set(err, "%s: store_claim: no configuration or host given", st->name);
    if (load_campaign_key(st, campaign_id, err) != 0) goto fail_outside;
    /* IMMEDIATE: the look and the claim are one step for every run. */
    if (begin_write(st, err) != 0) goto fail;
    bool measured = false;
    if (known_by_text(st, campaign_id, config_text, &measured, &out->known, err) != 0) goto fail;
    if (measured && (out->known.status == MEAS_OK || !st->retry_failed)) {
        out->kind = STORE_CLAIM_MEASURED;
        if (commit(st, err) != 0) goto fail;
        return 0;
    }
    const sql_arg key[] = { ARG_INT(st->key.plugin_id), ARG_INT(st->key.device_id),
                            ARG_INT(st->key.problem_id), ARG_TEXT(config_text) };
    sqlite3_stmt *s = st->hot[HOT_CLAIM_FIND];
    int rc = bind_args(s, key, N_ARGS(key));
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        fail_sqlite(st, err, "looking up claims");
        sqlite3_reset(s);
        goto fail;
    }
    double now = clock_wall_s();
    if (rc == SQLITE_ROW) {
        int64_t pid = sqlite3_column_int64(s, 0);
        const char *host = (const char *)sqlite3_column_text(s, 1);
        double seen_at = sqlite3_column_double(s, 2);
        snprintf(out->holder_host, sizeof out->holder_host, "%s", host ? host : "");
        out->holder_pid = pid;
        out->last_seen_s = now - seen_at;
        bool ours = pid == my_pid && strcmp(out->holder_host, my_host) == 0;
        bool gone = !ours && holder_alive && !holder_alive(alive_ctx, pid, out->holder_host);
        bool live = !ours && !gone && out->last_seen_s < stale_after_s;
        sqlite3_reset(s);
        if (live) {
            out->kind = STORE_CLAIM_BUSY;
            if (commit(st, err) != 0) goto fail;
            return 0;
        }
        if (!ours) out->taken_over = gone ? STORE_HOLDER_GONE : STORE_HOLDER_SILENT;
    } else {
        sqlite3_reset(s);
    }
    const sql_arg row[] = { key[0], key[1], key[2], key[3], ARG_INT(campaign_id),
                            ARG_INT(my_pid), ARG_TEXT(my_host), ARG_REAL(now) };
    if (stmt_exec(st, st->hot[HOT_CLAIM_PUT], row, N_ARGS(row), err, "claiming it") != 0)
        goto fail;
    if (commit(st, err) != 0) goto fail;
    out->kind = STORE_CLAIM_OURS;
    return 0;
fail:
    rollback(st);
fail_outside:
    return err_prefix(err, "%s: cannot claim configuration '%s' for campaign %lld", st->name,
                      config_text, (long long)campaign_id);
}

int store_renew_claims(store *st, int64_t my_pid, const char *my_host, double now,
                       skytune_error *err)
{
    const sql_arg args[] = { ARG_INT(my_pid), ARG_TEXT(my_host), ARG_REAL(now) };
    if (sql_exec(st, "UPDATE claims SET heartbeat_at = ?3 WHERE pid = ?1 AND host = ?2", args,
                 N_ARGS(args), err, "renewing claims") != 0)
        return err_prefix(err, "%s: cannot renew this run's claims", st->name);
    return 0;
}

int store_latest_claim(store *st, int64_t campaign_id, int64_t my_pid, const char *my_host,
                       store_claim_holder *out, skytune_error *err)
{
    memset(out, 0, sizeof *out);
    const sql_arg args[] = { ARG_INT(campaign_id), ARG_INT(my_pid), ARG_TEXT(my_host) };
    sqlite3_stmt *s = NULL;
    if (prepare(st,
                "SELECT pid, host, MAX(claimed_at, COALESCE(heartbeat_at, claimed_at)) AS seen"
                " FROM claims WHERE campaign_id = ?1 AND NOT (pid = ?2 AND host = ?3)"
                " ORDER BY seen DESC LIMIT 1",
                0, &s, err, "reading the campaign's claims") != 0)
        return err_prefix(err, "%s", st->name);
    int rc = bind_args(s, args, N_ARGS(args));
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fail_sqlite(st, err, "reading the campaign's claims");
        sqlite3_finalize(s);
        return err_prefix(err, "%s", st->name);
    }
    if (rc == SQLITE_ROW) {
        const char *host = (const char *)sqlite3_column_text(s, 1);
        out->found = true;
        out->pid = sqlite3_column_int64(s, 0);
        snprintf(out->host, sizeof out->host, "%s", host ? host : "");
        out->last_seen_s = clock_wall_s() - sqlite3_column_double(s, 2);
    }
    sqlite3_finalize(s);
    return 0;
}

int store_release_claims(store *st, int64_t my_pid, const char *my_host, skytune_error *err)
{
    const sql_arg args[] = { ARG_INT(my_pid), ARG_TEXT(my_host) };
    if (sql_exec(st, "DELETE FROM claims WHERE pid = ?1 AND host = ?2", args, N_ARGS(args), err,
                 "removing claims") != 0)
        return err_prefix(err, "%s: cannot give up this run's claims", st->name);
    return 0;
}
