-- skytune result database, schema version 9.
--
-- This script creates a fresh database. The store runs it in one transaction
-- together with PRAGMA application_id = 0x534B5954 ("SKYT") and
-- PRAGMA user_version = 9; a database made by an older skytune is brought
-- forward by the migration steps in db/store.c instead. docs/schema.md
-- describes every column and has example queries.
--
-- Conventions:
--   * Times of kernel runs are nanoseconds (REAL); phases of the engine's own
--     work are seconds (REAL). Timestamps are ISO-8601 UTC text.
--   * 64-bit unsigned values (seeds, configuration hashes) are stored as the
--     INTEGER with the same bit pattern, since SQLite integers are signed.
--   * A value that does not exist for a row is NULL, not 0, so that MIN(),
--     AVG() and ORDER BY never mistake "no time" for "fastest".
--   * Flags are INTEGER 0/1.

-- An OpenCL device as the driver describes it. A new driver version is a new
-- device: drivers change compilers, and so timings.
CREATE TABLE devices (
    id                    INTEGER PRIMARY KEY,
    platform              TEXT    NOT NULL,
    name                  TEXT    NOT NULL,
    vendor                TEXT    NOT NULL,
    driver_version        TEXT    NOT NULL,
    opencl_version        TEXT    NOT NULL,
    is_gpu                INTEGER NOT NULL CHECK (is_gpu IN (0, 1)),
    compute_units         INTEGER NOT NULL,
    max_clock_mhz         INTEGER NOT NULL,
    global_mem_size       INTEGER NOT NULL, -- bytes
    local_mem_size        INTEGER NOT NULL, -- bytes
    max_constant_size     INTEGER NOT NULL, -- bytes
    max_mem_alloc_size    INTEGER NOT NULL, -- bytes
    max_work_group_size   INTEGER NOT NULL,
    -- The device.max_work_item_size_N names of constraint expressions: kept
    -- so that a recorded dataset can stand in for this device.
    max_work_item_size_0  INTEGER NOT NULL,
    max_work_item_size_1  INTEGER NOT NULL,
    max_work_item_size_2  INTEGER NOT NULL,
    -- Roofline ceilings, filled in by hand or by a later benchmark; the
    -- driver does not report them.
    peak_gflops           REAL,
    peak_gbs              REAL,
    UNIQUE (platform, name, driver_version)
);

-- A build of a plugin. source_hash covers the kernel source, so editing a
-- kernel without bumping the version still separates its measurements.
CREATE TABLE plugins (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    version     TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    UNIQUE (name, version, source_hash)
);

-- A problem instance: the plugin's problem parameters in canonical text
-- "name=value,..." (every parameter, in the plugin's order, so equal problems
-- are equal text). A value holding ',' or '=' (or a quote or a backslash)
-- is quoted, a='1,b=2', so that two problems never share a text. A replayed
-- dataset's problem is the dataset's name.
CREATE TABLE problems (
    id        INTEGER PRIMARY KEY,
    plugin_id INTEGER NOT NULL REFERENCES plugins (id),
    text      TEXT    NOT NULL,
    UNIQUE (plugin_id, text)
);

-- The problem's parameters one per row, in the order of its text, so that
-- queries never split the text themselves. value is the value's canonical
-- text without quotes ("1024", "1420.5", "1,b=2").
CREATE TABLE problem_params (
    problem_id INTEGER NOT NULL REFERENCES problems (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    PRIMARY KEY (problem_id, position)
) WITHOUT ROWID;

-- One tuning run. Running the same command again finds the same row
-- (same plugin build, device, problem, strategy, settings and seed) and
-- continues it, which is why those six columns are unique together.
CREATE TABLE campaigns (
    id         INTEGER PRIMARY KEY,
    plugin_id  INTEGER NOT NULL REFERENCES plugins (id),
    device_id  INTEGER NOT NULL REFERENCES devices (id),
    problem_id INTEGER NOT NULL REFERENCES problems (id),
    strategy   TEXT    NOT NULL,
    -- Canonical text of everything else that shapes the run: budget, runs,
    -- restrictions, strategy options.
    settings   TEXT    NOT NULL,
    seed       INTEGER NOT NULL,  -- uint64 bit pattern
    command    TEXT,              -- the command line that started it (each run's: invocations)
    host       TEXT,
    replayed   INTEGER NOT NULL DEFAULT 0 CHECK (replayed IN (0, 1)),
    started_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended_at   TEXT,              -- NULL while running, or after a kill
    -- 'running' stays behind when the process was killed; the next run of
    -- the same command resumes the campaign.
    status     TEXT    NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'done', 'interrupted', 'failed')),
    UNIQUE (plugin_id, device_id, problem_id, strategy, settings, seed)
);

-- Each time a campaign was run: every `skytune run` or campaign-file run
-- that opened it, with the limits it ran under. Stopping rules are not part
-- of a campaign's settings (a larger --budget continues the same campaign),
-- so they are recorded here, one row per invocation, with how far the
-- campaign had got before and after it.
CREATE TABLE invocations (
    id                 INTEGER PRIMARY KEY,
    campaign_id        INTEGER NOT NULL REFERENCES campaigns (id),
    -- Milliseconds, so that two invocations of one second stay apart.
    started_at         TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at           TEXT,              -- NULL while running, or after a kill
    command            TEXT,              -- the command line of this invocation
    host               TEXT,
    budget             INTEGER,           -- --budget (distinct configurations); NULL: none
    time_limit_s       REAL,              -- --time-limit; NULL: none
    target             TEXT,              -- --target, e.g. '2500000 ns' or '150 GFLOP/s'; NULL: none
    evaluations_before INTEGER NOT NULL,  -- the campaign's evaluations when it started
    evaluations_after  INTEGER,           -- and when it ended; NULL while running or after a kill
    -- How it ended: the stopping rule that ended it, 'interrupted' (Ctrl-C)
    -- or 'failed'; NULL while running, or after a kill. 'gain_below': the
    -- expected gain of more evaluations fell below gain_below.
    ended              TEXT    CHECK (ended IS NULL OR ended IN ('search_complete', 'budget',
                                      'time_limit', 'target', 'device_time', 'gain_below',
                                      'interrupted', 'failed')),
    gain_below         REAL               -- --stop-when-gain-below (a fraction); NULL: none
);

-- The space a campaign searched: the Cartesian product of its parameters'
-- value lists and the configurations its constraints let through, as the
-- run that last opened the campaign built it (exact below 2^53).
CREATE TABLE campaign_spaces (
    campaign_id INTEGER PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,
    cartesian   REAL NOT NULL,
    valid       REAL NOT NULL
);

-- What each constraint removed from that Cartesian product: every ruled-out
-- combination counted once, under the constraint that rejected it first in
-- the space's order of checking (framework/core/space.h, space_rejections).
-- kind: 'constraint' (the plugin's), 'device_limit' (a constraint that
-- reads device.*), 'restriction' (--restrict) or 'callback' (the plugin's
-- C constraint; rule is the reason it gave, or NULL).
CREATE TABLE space_rejections (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,  -- 0 for the one that removed most
    kind        TEXT    NOT NULL CHECK (kind IN ('constraint', 'device_limit', 'restriction',
                                                 'callback')),
    rule        TEXT,
    ruled_out   REAL    NOT NULL,
    PRIMARY KEY (campaign_id, position)
) WITHOUT ROWID;

-- A point of a plugin's tuning space, identified by its canonical text
-- "name=value,...". Keyed by plugin name rather than build: a configuration
-- means the same thing to every build of a plugin, and sharing it lets
-- queries compare builds configuration by configuration.
CREATE TABLE configurations (
    id          INTEGER PRIMARY KEY,
    plugin_name TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    hash        INTEGER NOT NULL,  -- the space's uint64 hash of text, bit pattern
    UNIQUE (plugin_name, text)
);

-- The configuration's parameters one per row, so that views can pivot them
-- into columns (see results_<plugin>). value is the canonical text.
CREATE TABLE config_params (
    configuration_id INTEGER NOT NULL REFERENCES configurations (id) ON DELETE CASCADE,
    name             TEXT    NOT NULL,
    value            TEXT    NOT NULL,
    PRIMARY KEY (configuration_id, name)
) WITHOUT ROWID;

-- What measuring one configuration gave. One row per (plugin build, device,
-- problem, configuration): a campaign that meets a configuration measured
-- before reuses the row through an evaluation marked cached. To measure a
-- configuration again, delete its row; its samples, parts and evaluations
-- go with it.
CREATE TABLE measurements (
    id               INTEGER PRIMARY KEY,
    device_id        INTEGER NOT NULL REFERENCES devices (id),
    plugin_id        INTEGER NOT NULL REFERENCES plugins (id),
    problem_id       INTEGER NOT NULL REFERENCES problems (id),
    configuration_id INTEGER NOT NULL REFERENCES configurations (id),
    campaign_id      INTEGER NOT NULL REFERENCES campaigns (id), -- the campaign that measured it
    status           TEXT    NOT NULL
                     CHECK (status IN ('ok', 'compile', 'launch', 'wrong_result', 'timeout', 'crash')),
    -- Statistics of the timed runs (status 'ok' only; NULL otherwise).
    median_ns        REAL,  -- what configurations are ranked by
    min_ns           REAL,
    max_ns           REAL,
    mean_ns          REAL,
    stddev_ns        REAL,  -- sample standard deviation (n-1)
    -- Throughput at the median, from the plugin's work counts (status 'ok'
    -- and the plugin counts that work; NULL otherwise).
    gflops           REAL,
    gbs              REAL,
    n_samples        INTEGER NOT NULL,  -- rows in samples
    -- Wall-clock seconds of each phase, to say where a campaign's time went.
    build_s          REAL    NOT NULL,  -- OpenCL compiler, with the code a driver generates
                                        -- at the first launch (PoCL)
    verify_s         REAL    NOT NULL,  -- prepare, verification run and comparison
    bench_s          REAL    NOT NULL,  -- warm-up and timed runs
    overhead_s       REAL    NOT NULL,  -- everything else the engine did for it
    -- Verification against the CPU reference (status 'ok' or 'wrong_result',
    -- where the comparison ran; NULL otherwise).
    max_abs_error    REAL,
    max_rel_error    REAL,
    first_mismatch   INTEGER,  -- element index; NULL when none
    message          TEXT,     -- build log or error text
    replayed         INTEGER NOT NULL DEFAULT 0 CHECK (replayed IN (0, 1)), -- from a recorded dataset
    measured_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    -- crash and timeout: the stage the measuring worker was in (NULL otherwise).
    stage            TEXT    CHECK (stage IS NULL OR stage IN
                                    ('build', 'prepare', 'verify', 'warm_up', 'timed', 'release')),
    -- 1: measured while the device failed its health check after a fault.
    degraded         INTEGER NOT NULL DEFAULT 0 CHECK (degraded IN (0, 1)),
    -- 1: stopped timing early, clearly slower than the campaign's best
    -- (racing); n_samples and the statistics are those of the runs made.
    raced            INTEGER NOT NULL DEFAULT 0 CHECK (raced IN (0, 1)),
    -- The 95 % confidence interval of median_ns from the samples, by order
    -- statistics (framework/core/median_interval.h), and the probability it
    -- holds the median: 0.95 or more, less with fewer than 6 samples (3:
    -- 0.75). NULL when not ok or fewer than 2 samples (a replayed result).
    ci_low_ns        REAL,
    ci_high_ns       REAL,
    ci_coverage      REAL,
    -- plugin_id first: the same index then serves the per-plugin views as
    -- well as looking up a campaign's (plugin, device, problem).
    UNIQUE (plugin_id, device_id, problem_id, configuration_id)
);
-- No index on campaign_id (nor configuration_id): no query of the engine
-- needs one, and every index is one more page written to the WAL per
-- measured configuration. Deleting a campaign or configuration scans
-- measurements instead, which is rare and acceptable.

-- Every timed run's total, in run order (run 0 is the first timed run; the
-- warm-up is not stored). Kept so that distributions can be re-analysed.
CREATE TABLE samples (
    measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
    run            INTEGER NOT NULL,
    time_ns        REAL    NOT NULL,
    PRIMARY KEY (measurement_id, run)
) WITHOUT ROWID;

-- Median time of each kernel (or FFT pass) of a multi-kernel run, by the
-- label the plugin gave its event. part is the event's position in the run,
-- since a plugin may enqueue the same kernel, and so the same label, twice.
CREATE TABLE measurement_parts (
    measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
    part           INTEGER NOT NULL,
    label          TEXT    NOT NULL,
    median_ns      REAL    NOT NULL,
    PRIMARY KEY (measurement_id, part)
) WITHOUT ROWID;

-- Numbers the plugin derives from the problem and the configuration alone
-- (its derived_values: a transposition's layout distance, say), stored with
-- each measurement so that queries can relate them to its time. Shown as
-- columns of results_<plugin>. A replayed measurement has none.
CREATE TABLE derived_values (
    measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
    name           TEXT    NOT NULL,
    value          REAL    NOT NULL,
    PRIMARY KEY (measurement_id, name)
) WITHOUT ROWID;

-- Configurations a run is measuring now, so that runs sharing the database
-- never measure one twice: a run claims a configuration before measuring
-- it, another run that meets the claim waits for the measurement, and the
-- claim goes in the transaction that records the measurement. pid and host
-- say whose claim it is; the run renews heartbeat_at while it lives. A
-- claim whose process is gone, or whose run stopped renewing it, is taken
-- over.
CREATE TABLE claims (
    plugin_id   INTEGER NOT NULL REFERENCES plugins (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    problem_id  INTEGER NOT NULL REFERENCES problems (id),
    config_text TEXT    NOT NULL,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id),
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    claimed_at  REAL    NOT NULL,  -- Unix time, seconds
    heartbeat_at REAL,             -- last renewed, Unix time, seconds
    PRIMARY KEY (plugin_id, device_id, problem_id, config_text)
) WITHOUT ROWID;

-- Merging databases (skytune merge) can meet one configuration measured in
-- two of them under the same key (device, plugin build, problem): two shards
-- that overlapped, or the same work repeated on another node. The row
-- already in the target stays in measurements and every campaign's
-- evaluation points to it; the other measurement is kept here whole, with
-- its samples in duplicate_samples, naming the kept row, the campaign that
-- measured it and the file it came from. Nothing measured is thrown away.
CREATE TABLE duplicate_measurements (
    id             INTEGER PRIMARY KEY,
    kept_id        INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id), -- the campaign that measured it
    source         TEXT    NOT NULL,  -- the database file it was merged from
    source_id      INTEGER NOT NULL,  -- its measurements.id there
    status         TEXT    NOT NULL,
    median_ns      REAL,
    min_ns         REAL,
    max_ns         REAL,
    mean_ns        REAL,
    stddev_ns      REAL,
    gflops         REAL,
    gbs            REAL,
    n_samples      INTEGER NOT NULL,
    build_s        REAL    NOT NULL,
    verify_s       REAL    NOT NULL,
    bench_s        REAL    NOT NULL,
    overhead_s     REAL    NOT NULL,
    max_abs_error  REAL,
    max_rel_error  REAL,
    first_mismatch INTEGER,
    message        TEXT,
    replayed       INTEGER NOT NULL,
    measured_at    TEXT    NOT NULL,
    stage          TEXT,
    degraded       INTEGER NOT NULL,
    raced          INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE duplicate_samples (
    duplicate_id INTEGER NOT NULL REFERENCES duplicate_measurements (id) ON DELETE CASCADE,
    run          INTEGER NOT NULL,
    time_ns      REAL    NOT NULL,
    PRIMARY KEY (duplicate_id, run)
) WITHOUT ROWID;

-- One row per database merged in, with what it added.
CREATE TABLE merges (
    id           INTEGER PRIMARY KEY,
    source       TEXT    NOT NULL,
    merged_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    campaigns    INTEGER NOT NULL,  -- campaigns new to this database
    measurements INTEGER NOT NULL,  -- measurements new to this database
    duplicates   INTEGER NOT NULL,  -- measurements kept in duplicate_measurements
    evaluations  INTEGER NOT NULL   -- evaluations added
);

-- A campaign's evaluations in the order the strategy proposed them (seq
-- from 0). cached = 1: the measurement existed before and was reused.
-- A campaign's best configurations timed again, interleaved (A B C ... A
-- B C ...) in one measuring worker, each visit with its own warm-up: the
-- winner is the fastest on these paired rounds (docs/reports.md,
-- "Confirmation").
CREATE TABLE confirmations (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    started_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended_at     TEXT,
    top          INTEGER NOT NULL,  -- configurations confirmed (the campaign's best, by median)
    rounds       INTEGER NOT NULL,  -- visits of each
    runs         INTEGER NOT NULL,  -- timed runs per visit
    -- The campaign's best before, and the confirmed winner (NULL when no
    -- configuration passed every visit).
    campaign_best_id INTEGER NOT NULL REFERENCES configurations (id),
    winner_id        INTEGER REFERENCES configurations (id),
    changed      INTEGER NOT NULL CHECK (changed IN (0, 1))  -- winner_id differs from campaign_best_id
);

-- Each confirmed configuration: its place in the campaign, and its
-- confirmed figures (the median of its visits' medians, and that median's
-- interval over the visits).
CREATE TABLE confirmation_entries (
    confirmation_id  INTEGER NOT NULL REFERENCES confirmations (id) ON DELETE CASCADE,
    configuration_id INTEGER NOT NULL REFERENCES configurations (id),
    campaign_place   INTEGER NOT NULL,  -- 1: the campaign's best
    campaign_median_ns REAL NOT NULL,
    confirmed_place  INTEGER,           -- 1: the winner; NULL when a visit failed
    confirmed_median_ns REAL,
    ci_low_ns        REAL,
    ci_high_ns       REAL,
    ci_coverage      REAL,
    ok_visits        INTEGER NOT NULL,
    PRIMARY KEY (confirmation_id, configuration_id)
) WITHOUT ROWID;

-- Every visit: its round, its place in the round, and what it measured
-- (the median of its timed runs; a failed visit has its status).
CREATE TABLE confirmation_visits (
    confirmation_id  INTEGER NOT NULL REFERENCES confirmations (id) ON DELETE CASCADE,
    round            INTEGER NOT NULL,  -- from 1
    slot             INTEGER NOT NULL,  -- order in the round, from 1
    configuration_id INTEGER NOT NULL REFERENCES configurations (id),
    status           TEXT    NOT NULL,
    median_ns        REAL,
    n_samples        INTEGER NOT NULL,
    PRIMARY KEY (confirmation_id, round, slot)
) WITHOUT ROWID;

CREATE TABLE evaluations (
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id),
    seq            INTEGER NOT NULL,
    measurement_id INTEGER NOT NULL REFERENCES measurements (id) ON DELETE CASCADE,
    cached         INTEGER NOT NULL CHECK (cached IN (0, 1)),
    PRIMARY KEY (campaign_id, seq),
    -- measurement_id first: this index also finds a measurement's
    -- evaluations (deleting a measurement cascades here), so no second
    -- index is needed.
    UNIQUE (measurement_id, campaign_id)
) WITHOUT ROWID;

-- One row per evaluation with names instead of ids: the first thing to
-- query in the sqlite3 shell.
CREATE VIEW results AS
SELECT e.campaign_id    AS campaign_id,
       e.seq            AS seq,
       p.name           AS plugin,
       p.version        AS plugin_version,
       d.name           AS device,
       pr.text          AS problem,
       c.text           AS configuration,
       m.status         AS status,
       m.median_ns      AS median_ns,
       m.gflops         AS gflops,
       m.gbs            AS gbs,
       e.cached         AS cached,
       m.id             AS measurement_id,
       m.stage          AS stage,
       m.degraded       AS degraded,
       m.raced          AS raced
FROM evaluations e
JOIN measurements m    ON m.id = e.measurement_id
JOIN plugins p         ON p.id = m.plugin_id
JOIN devices d         ON d.id = m.device_id
JOIN problems pr       ON pr.id = m.problem_id
JOIN configurations c  ON c.id = m.configuration_id;

-- config_params with each value typed: an integer where the text is one
-- exactly ("32", "-4"), a real where it is a real literal ("1.5", "1e3"),
-- text otherwise ("tiled", "TCSP", "007"). Typed values make comparisons
-- such as wg_x = 32 and numeric ORDER BY work in the results_<plugin> views.
CREATE VIEW config_values AS
SELECT configuration_id,
       name,
       CASE
           WHEN value = CAST(CAST(value AS INTEGER) AS TEXT) THEN CAST(value AS INTEGER)
           WHEN value GLOB '*[0-9]*' AND value GLOB '*[.eE]*'
                AND value = CAST(value AS NUMERIC) THEN CAST(value AS REAL)
           ELSE value
       END AS value
FROM config_params;

-- The store also creates one view per plugin, results_<plugin name>: one row
-- per measurement of any build of that plugin, with one column per tuning
-- parameter. Its columns depend on the plugin, so it is made when the plugin
-- is registered (store_plugin_id), not here.
