/* The store: every SQL statement the engine runs against a result database.
 *
 * SQLite in WAL mode with foreign keys on. PRAGMA application_id marks a
 * skytune database and PRAGMA user_version holds the schema version; opening
 * a file that is not SQLite, a SQLite file of another application, or one
 * with a newer schema fails without writing to it. Measurements are written
 * one transaction per configuration (summary, every sample, the campaign's
 * evaluation row), so a killed run loses at most the configuration in flight.
 *
 * A measurement belongs to (device, plugin build, problem, configuration) and
 * exists once for that key: a campaign that meets a configuration already
 * measured under the same key reuses the row (an evaluation marked cached)
 * instead of measuring again. */
#ifndef SKYTUNE_STORE_H
#define SKYTUNE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "measurement.h"

#define STORE_APPLICATION_ID 0x534B5954 /* "SKYT" */
#define STORE_SCHEMA_VERSION 9

/* How long a statement waits by default for a lock another process holds
 * on the database (busy_wait.h) before it fails, naming the holder: runs
 * sharing a database hold it for milliseconds, and a campaign outwaits a
 * longer hold (a sqlite3 shell's open transaction, a merge into the
 * database) rather than end on it. */
#define STORE_BUSY_TIMEOUT_S 120 /* seconds */

typedef struct store store;

/* Open or create, to write. create_if_missing false: a missing file is an
 * error. A file SQLite can only read (no permission, a read-only file
 * system), or one in a folder where it cannot make its journal files
 * (PATH-wal, PATH-shm), is refused before anything is read, so nothing
 * appears beside it. A statement waits up to busy_timeout_s for a lock
 * another process holds. */
int store_open(const char *path, bool create_if_missing, double busy_timeout_s, store **out,
               skytune_error *err);

/* Open an existing database for the commands that only read it, in place:
 * nothing is written to it or beside it, whoever reads it (immutable while
 * nothing lies beside it, read_in_place.h), on a read-only file system
 * too; refused when its schema is older than this skytune's (a command
 * that writes to it migrates it). Waits for locks as store_open. */
int store_open_for_reading(const char *path, double busy_timeout_s, store **out,
                           skytune_error *err);
void store_close(store *st);

/* For reports and queries: the underlying handle (sqlite3 *). */
void *store_handle(store *st);

/* The wait for a lock it was opened with, for the connections that go
 * with it (a merge's source). */
double store_busy_timeout_s(const store *st);

/* Find or insert; fields as in skytune_device_info. */
int store_device_id(store *st, const skytune_device_info *dev, int64_t *id, skytune_error *err);

/* A plugin build's parameter names, each list in the plugin's order, and
 * the names of its derived values (skytune_derived_value). */
typedef struct store_param_names {
    const char *const *tuning;
    size_t n_tuning;
    const char *const *problem;
    size_t n_problem;
    const char *const *derived;
    size_t n_derived;
} store_param_names;

/* Find or insert the plugin build (name, version, hash of kernel source) and
 * (re)create the view results_<name>: one row per measurement of this plugin
 * with one column per tuning parameter, then one per problem parameter, then
 * one per derived value. params may be NULL for a plugin without
 * parameters. */
int store_plugin_id(store *st, const char *name, const char *version, const char *source_hash,
                    const store_param_names *params, int64_t *id, skytune_error *err);

/* Find or insert a problem instance by its canonical text "k=v,...". */
int store_problem_id(store *st, int64_t plugin_id, const char *problem_text, int64_t *id,
                     skytune_error *err);

typedef struct store_campaign_spec {
    int64_t plugin_id, device_id, problem_id;
    const char *strategy;    /* name */
    const char *settings;    /* canonical text of everything that shapes the run:
                                budget, runs, restrictions, strategy options */
    uint64_t seed;
    const char *command;     /* the command line, for the record */
    const char *host;
    bool replayed;
} store_campaign_spec;

/* The campaign with the same plugin, device, problem, strategy, settings and
 * seed, or a new one. *resumed tells which. Marks it 'running'. */
int store_campaign_open(store *st, const store_campaign_spec *spec, int64_t *campaign_id,
                        bool *resumed, skytune_error *err);

/* status: "done", "interrupted", "failed". Sets ended_at. */
int store_campaign_close(store *st, int64_t campaign_id, const char *status, skytune_error *err);

/* A measurement already recorded for the campaign's key, as loaded back.
 * Values that do not exist for a failed measurement (median, throughput)
 * read as 0, as in a fresh measurement. */
typedef struct store_known {
    int64_t measurement_id;
    const char *config_text; /* valid only during the visit call */
    measurement_status status;
    double median_ns;
    double gflops, gbs;      /* 0 when unknown */
    bool in_campaign;        /* already an evaluation of this campaign */
    int64_t seq;             /* its evaluation order in this campaign, when in_campaign */
} store_known;

/* Every measurement under the campaign's (device, plugin, problem), each
 * with whether this campaign already evaluated it. Ordered by the campaign's
 * evaluation order first, then by measurement id. visit returns 0 to go on;
 * any other value stops the walk, and the call returns -1 without touching
 * err (the visitor reports its own failure through ctx). */
int store_known_measurements(store *st, int64_t campaign_id,
                             int (*visit)(void *ctx, const store_known *k), void *ctx,
                             skytune_error *err);

/* One transaction: the configuration (and its parameter values, for the
 * views), the measurement with its samples and parts, and the campaign's
 * evaluation number seq. names/values: the configuration's parameters as
 * canonical text. A configuration already measured under the campaign's key
 * is refused (nothing is written): reuse it with store_record_cached. */
int store_record_measurement(store *st, int64_t campaign_id, int64_t seq, const char *config_text,
                             uint64_t config_hash, const char *const *names,
                             const char *const *values, size_t n_params, const measurement *m,
                             int64_t *measurement_id, skytune_error *err);

/* The campaign evaluated a configuration measured before under the same key.
 * An evaluation the campaign holds already is not added again (runs sharing
 * a campaign retrace each other). seq, here and above, is the caller's next
 * evaluation number; one another run took already moves to the end. */
int store_record_cached(store *st, int64_t campaign_id, int64_t seq, int64_t measurement_id,
                        skytune_error *err);

/* --retry-failed: a failed measurement (any status but ok) counts as not
 * measured for store_claim and is replaced by store_record_measurement. */
void store_set_retry_failed(store *st, bool on);

/* ------------------------------------------------- runs sharing a database */

typedef enum store_claim_kind {
    STORE_CLAIM_OURS = 0,      /* claimed for this process: measure it */
    STORE_CLAIM_MEASURED = 1,  /* recorded already under the key: known holds it */
    STORE_CLAIM_BUSY = 2       /* another live run is measuring it */
} store_claim_kind;

/* Whose claim an OURS answer took over, if anyone's. */
typedef enum store_claim_takeover {
    STORE_HOLDER_NONE = 0,     /* nobody's: the configuration was free */
    STORE_HOLDER_GONE = 1,     /* a process that holder_alive found gone */
    STORE_HOLDER_SILENT = 2    /* a run that renewed no claim for stale_after_s */
} store_claim_takeover;

typedef struct store_claim_result {
    store_claim_kind kind;
    store_known known;         /* MEASURED (config_text NULL, seq unset) */
    int64_t holder_pid;        /* BUSY, or OURS taken over: whose claim */
    char holder_host[256];
    double last_seen_s;        /* how long ago the holder claimed or renewed it */
    store_claim_takeover taken_over; /* OURS: whose claim it was */
} store_claim_result;

/* In one IMMEDIATE transaction: MEASURED if the campaign's key has a
 * measurement of config_text; BUSY if another process's claim holds it and
 * that process is alive (holder_alive, given pid and host; NULL: assume so)
 * and claimed it or renewed its claims (its heartbeat) less than
 * stale_after_s ago; otherwise the claim becomes this process's (my_pid on
 * my_host) and the answer is OURS. */
int store_claim(store *st, int64_t campaign_id, const char *config_text, uint64_t config_hash,
                int64_t my_pid, const char *my_host, double stale_after_s,
                bool (*holder_alive)(void *ctx, int64_t pid, const char *host), void *alive_ctx,
                store_claim_result *out, skytune_error *err);

/* The heartbeat: every claim of this process (my_pid on my_host) renewed
 * at now (Unix seconds), so that other runs see it is alive. */
int store_renew_claims(store *st, int64_t my_pid, const char *my_host, double now,
                       skytune_error *err);

/* The claim in the campaign that another process renewed last, if any. */
typedef struct store_claim_holder {
    bool found;
    int64_t pid;
    char host[256];
    double last_seen_s;        /* how long ago it claimed or renewed it */
} store_claim_holder;

/* The most recently claimed or renewed claim in campaign_id of a process
 * other than my_pid on my_host: how a run tells that another one is
 * measuring the campaign now. */
int store_latest_claim(store *st, int64_t campaign_id, int64_t my_pid, const char *my_host,
                       store_claim_holder *out, skytune_error *err);

/* Remove every claim of this process (my_pid on my_host): configurations
 * it claimed and did not record, on a stop or an error. */
int store_release_claims(store *st, int64_t my_pid, const char *my_host, skytune_error *err);

#endif
