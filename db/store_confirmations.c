#include "store_confirmations.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy_wait.h"

static int fail(sqlite3 *db, skytune_error *err, const char *what)
{
    char why[DB_ERROR_TEXT];
    return err_set(err, "database: %s: %s", what, db_error_text(db, why, sizeof why));
}

static char *column_copy(sqlite3_stmt *q, int col)
{
    const unsigned char *text = sqlite3_column_text(q, col);
    return strdup(text ? (const char *)text : "");
}

void store_campaign_origin_free(store_campaign_origin *o)
{
    free(o->plugin);
    free(o->device);
    free(o->problem_text);
    for (size_t k = 0; o->problem_sets && k < o->n_problem_sets; k++) free(o->problem_sets[k]);
    free(o->problem_sets);
    memset(o, 0, sizeof *o);
}

static int read_problem_sets(sqlite3 *db, int64_t campaign_id, store_campaign_origin *o,
                             skytune_error *err)
{
    static const char sql[] =
        "SELECT pp.name || '=' || pp.value FROM campaigns c"
        " JOIN problem_params pp ON pp.problem_id = c.problem_id"
        " WHERE c.id = ?1 ORDER BY pp.position";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "reading the campaign's problem");
    sqlite3_bind_int64(q, 1, campaign_id);
    int rc = 0, step;
    while ((step = sqlite3_step(q)) == SQLITE_ROW) {
        char **grown = realloc(o->problem_sets, (o->n_problem_sets + 1) * sizeof *grown);
        char *set = grown ? column_copy(q, 0) : NULL;
        if (grown) o->problem_sets = grown;
        if (!set) {
            rc = err_set(err, "out of memory");
            break;
        }
        o->problem_sets[o->n_problem_sets++] = set;
    }
    if (rc == 0 && step != SQLITE_DONE) rc = fail(db, err, "reading the campaign's problem");
    sqlite3_finalize(q);
    return rc;
}

int store_campaign_origin_of(store *st, int64_t campaign_id, store_campaign_origin *o,
                             skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    memset(o, 0, sizeof *o);
    static const char sql[] =
        "SELECT p.name, d.name, pr.text, c.replayed FROM campaigns c"
        " JOIN plugins p ON p.id = c.plugin_id JOIN devices d ON d.id = c.device_id"
        " JOIN problems pr ON pr.id = c.problem_id WHERE c.id = ?1";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "reading the campaign");
    sqlite3_bind_int64(q, 1, campaign_id);
    int step = sqlite3_step(q), rc = 0;
    if (step == SQLITE_ROW) {
        o->plugin = column_copy(q, 0);
        o->device = column_copy(q, 1);
        o->problem_text = column_copy(q, 2);
        o->replayed = sqlite3_column_int(q, 3) != 0;
        if (!o->plugin || !o->device || !o->problem_text) rc = err_set(err, "out of memory");
    } else if (step == SQLITE_DONE) {
        rc = err_set(err, "there is no campaign %lld", (long long)campaign_id);
    } else {
        rc = fail(db, err, "reading the campaign");
    }
    sqlite3_finalize(q);
    if (rc == 0) rc = read_problem_sets(db, campaign_id, o, err);
    if (rc != 0) store_campaign_origin_free(o);
    return rc;
}

int store_confirmation_count(store *st, int64_t campaign_id, int64_t *count, skytune_error *err)
{
    sqlite3 *db = store_handle(st);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM confirmations WHERE campaign_id = ?1", -1, &q,
                           NULL) != SQLITE_OK)
        return fail(db, err, "reading the campaign's confirmations");
    sqlite3_bind_int64(q, 1, campaign_id);
    int rc = 0;
    if (sqlite3_step(q) == SQLITE_ROW)
        *count = sqlite3_column_int64(q, 0);
    else
        rc = fail(db, err, "reading the campaign's confirmations");
    sqlite3_finalize(q);
    return rc;
}

static void bind_real_or_null(sqlite3_stmt *q, int col, bool known, double v)
{
    if (known && isfinite(v))
        sqlite3_bind_double(q, col, v);
    else
        sqlite3_bind_null(q, col);
}

static int step_done(sqlite3 *db, sqlite3_stmt *q, skytune_error *err, const char *what)
{
    int rc = sqlite3_step(q) == SQLITE_DONE ? 0 : fail(db, err, what);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return rc;
}

/* The configuration's id, by its text, among the campaign's plugin's. */
#define CONFIG_ID(text_param)                                                                      \
    "(SELECT cf.id FROM configurations cf JOIN plugins p ON p.name = cf.plugin_name"             \
    " JOIN campaigns k ON k.plugin_id = p.id WHERE k.id = ?1 AND cf.text = " text_param ")"

static int insert_header(sqlite3 *db, const store_confirmation *c, int64_t *id,
                         skytune_error *err)
{
    static const char sql[] =
        "INSERT INTO confirmations (campaign_id, ended_at, top, rounds, runs, campaign_best_id,"
        " winner_id, changed) VALUES (?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?2, ?3, ?4,"
        " " CONFIG_ID("?5") ", " CONFIG_ID("?6") ", ?7)";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "recording the confirmation");
    bool has_winner = c->winner < c->n_entries;
    sqlite3_bind_int64(q, 1, c->campaign_id);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)c->n_entries);
    sqlite3_bind_int64(q, 3, c->rounds);
    sqlite3_bind_int64(q, 4, c->runs);
    sqlite3_bind_text(q, 5, c->entries[0].config_text, -1, SQLITE_STATIC);
    if (has_winner)
        sqlite3_bind_text(q, 6, c->entries[c->winner].config_text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(q, 6);
    sqlite3_bind_int(q, 7, has_winner && c->winner != 0);
    int rc = step_done(db, q, err, "recording the confirmation");
    sqlite3_finalize(q);
    *id = sqlite3_last_insert_rowid(db);
    return rc;
}

static int insert_entries(sqlite3 *db, int64_t id, const store_confirmation *c,
                          skytune_error *err)
{
    static const char sql[] =
        "INSERT INTO confirmation_entries (confirmation_id, configuration_id, campaign_place,"
        " campaign_median_ns, confirmed_place, confirmed_median_ns, ci_low_ns, ci_high_ns,"
        " ci_coverage, ok_visits) VALUES (?11, " CONFIG_ID("?2") ", ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
        " ?10)";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "recording the confirmed configurations");
    int rc = 0;
    for (size_t k = 0; k < c->n_entries && rc == 0; k++) {
        const store_confirmed *e = &c->entries[k];
        sqlite3_bind_int64(q, 1, c->campaign_id);
        sqlite3_bind_int64(q, 11, id);
        sqlite3_bind_text(q, 2, e->config_text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 3, (sqlite3_int64)e->campaign_place);
        sqlite3_bind_double(q, 4, e->campaign_median_ns);
        if (e->confirmed_place)
            sqlite3_bind_int64(q, 5, (sqlite3_int64)e->confirmed_place);
        else
            sqlite3_bind_null(q, 5);
        bind_real_or_null(q, 6, true, e->confirmed_median_ns);
        bind_real_or_null(q, 7, e->has_interval, e->ci_low_ns);
        bind_real_or_null(q, 8, e->has_interval, e->ci_high_ns);
        bind_real_or_null(q, 9, e->has_interval, e->ci_coverage);
        sqlite3_bind_int64(q, 10, (sqlite3_int64)e->ok_visits);
        rc = step_done(db, q, err, "recording the confirmed configurations");
    }
    sqlite3_finalize(q);
    return rc;
}

static int insert_visits(sqlite3 *db, int64_t id, const store_confirmation *c,
                         skytune_error *err)
{
    static const char sql[] =
        "INSERT INTO confirmation_visits (confirmation_id, round, slot, configuration_id, status,"
        " median_ns, n_samples) VALUES (?8, ?2, ?3, " CONFIG_ID("?4") ", ?5, ?6, ?7)";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return fail(db, err, "recording the confirmation's visits");
    int rc = 0;
    for (size_t k = 0; k < c->n_visits && rc == 0; k++) {
        const store_confirmation_visit *v = &c->visits[k];
        sqlite3_bind_int64(q, 1, c->campaign_id);
        sqlite3_bind_int64(q, 8, id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)v->round);
        sqlite3_bind_int64(q, 3, (sqlite3_int64)v->slot);
        sqlite3_bind_text(q, 4, c->entries[v->entry].config_text, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, v->status, -1, SQLITE_STATIC);
        bind_real_or_null(q, 6, true, v->median_ns);
        sqlite3_bind_int64(q, 7, (sqlite3_int64)v->n_samples);
        rc = step_done(db, q, err, "recording the confirmation's visits");
    }
    sqlite3_finalize(q);
    return rc;
}

int store_record_confirmation(store *st, const store_confirmation *c, int64_t *id,
                              skytune_error *err)
{
    if (c->n_entries == 0) return err_set(err, "a confirmation needs a configuration");
    sqlite3 *db = store_handle(st);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err, "recording the confirmation");
    int rc = insert_header(db, c, id, err);
    if (rc == 0) rc = insert_entries(db, *id, c, err);
    if (rc == 0) rc = insert_visits(db, *id, c, err);
    if (rc == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = fail(db, err, "recording the confirmation");
    if (rc != 0) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
