/* The stop signals, end to end: every command that runs campaigns stops
 * cleanly on SIGINT, SIGTERM and SIGUSR1, whenever one arrives.
 *
 * For each command (`run`, `run --devices all`, `campaign run`, a shard of
 * `campaign run`) and each signal: a campaign of the (harmless) hostile
 * plugin is started, the signal is sent at a random moment once it has
 * measured something, and then
 *
 *  - the command exits 128 + the signal's number (130, 143, 138), having
 *    said at once that it stops;
 *  - its workers are gone;
 *  - the database is sound: no campaign left `running`, no claim left, no
 *    invocation left open, every measurement ok and whole, none twice;
 *  - the same command run again completes, measuring every configuration
 *    exactly once.
 *
 * Also: a signal while the command is still starting (before the first
 * measurement, while the OpenCL platform opens); a second signal, which
 * stops at once however long the stop grace; and the final notification of
 * a stopped `campaign run`, shard and `run`, received by a local HTTP sink.
 *
 * The moments come from PCG32 with a seed that is printed, and can be set
 * with SKYTUNE_STOP_SEED to repeat a run. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <pcg32.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hostile_harness.h"
#include "http_sink.h"

static char *scratch;

/* One binary cache for the whole suite, made before the first test and
 * removed after the last (report hooks run in Criterion's runner, whose
 * environment every test inherits): every test builds the same kernels,
 * and only the first to meet one compiles it. PoCL's kernel cache is the
 * suites' shared one (tests/meson.build), where the hostile plugin's
 * kernels are already built by the other suites that run it: a private
 * one compiled them again in every run (on a CPU device a build is kept
 * in PoCL's cache, not in skytune's: binary_keeping.h). */
#define SHARED_CACHE_VARIABLE "SKYTUNE_TEST_STOP_SIGNALS_CACHE"

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    (void)tests;
    char *dir = cli_make_temp_dir();
    setenv(SHARED_CACHE_VARIABLE, dir, 1);
    free(dir);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    const char *dir = getenv(SHARED_CACHE_VARIABLE);
    if (dir && *dir) cli_remove_tree(dir);
}

static void make_scratch(void)
{
    scratch = hostile_scratch_open();
    const char *shared = getenv(SHARED_CACHE_VARIABLE);
    if (shared && *shared) {
        char *cache = cli_path(shared, "cache");
        mkdir(cache, 0700);
        cr_assert(setenv("SKYTUNE_CACHE_DIR", cache, 1) == 0);
        free(cache);
    }
    http_sink_clear_proxies();
}

static void remove_scratch(void)
{
    hostile_scratch_close(scratch);
    scratch = NULL;
}

TestSuite(stop_signals, .init = make_scratch, .fini = remove_scratch, .timeout = 400);

/* Configurations of each campaign: x = 0 .. VALUES-1; each doubles 4 Mi
 * floats, so that with the kernels in the cache a configuration still
 * takes some 0.1 s and a signal lands inside the campaign. */
#define VALUES 16
#define VALUES_TEXT "16"
#define ELEMENTS_TEXT "4194304"

typedef enum { RUN, RUN_DEVICES, CAMPAIGN, SHARD } command_kind;

static const char *const command_names[] = {"run", "run --devices all", "campaign run",
                                            "campaign run --shard 1/2"};

/* A command, the database it writes and the log files of its runs. */
typedef struct stop_command {
    hostile_args args;
    char *db, *file, *out_path, *err_path;
    char name[64];
} stop_command;

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGUSR1";
}

/* A campaign file of the hostile plugin: `values` is its problem line. */
static char *write_campaign_file(const char *name, const char *values, const char *db,
                                 const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "plugin: %s\n"
             "problem:\n"
             "  values: %s\n"
             "  n: " ELEMENTS_TEXT "\n"
             "strategy: exhaustive\n"
             "runs: 1\n"
             "seed: 1\n"
             "database: %s\n"
             "%s",
             hostile_plugin_path(), values, db, extra ? extra : "");
    char *path = cli_path(scratch, name);
    cli_write_file(path, text, strlen(text));
    return path;
}

/* The command of a kind; its database holds one campaign of VALUES
 * configurations once it is complete. extra: more lines of a campaign
 * file (NULL: none). */
static stop_command make_command(command_kind kind, const char *extra)
{
    stop_command c = {.args = {.n = 0}};
    snprintf(c.name, sizeof c.name, "%s", command_names[kind]);
    c.out_path = cli_path(scratch, "command.out");
    c.err_path = cli_path(scratch, "command.err");
    switch (kind) {
    case RUN:
    case RUN_DEVICES:
        c.db = cli_path(scratch, "run.db");
        c.args = hostile_run_args("exhaustive", c.db);
        hostile_args_add(&c.args,
                         CLI_ARGS("--runs", "1", "--seed", "1", "--set", "values=" VALUES_TEXT,
                                  "--set", "n=" ELEMENTS_TEXT));
        if (kind == RUN_DEVICES) hostile_args_add(&c.args, CLI_ARGS("--devices", "all"));
        break;
    case CAMPAIGN:
        c.db = cli_path(scratch, "sweep.db");
        c.file = write_campaign_file("sweep.yaml", VALUES_TEXT, c.db, extra);
        hostile_args_add(&c.args, CLI_ARGS("campaign", "run", c.file, "--quiet"));
        break;
    case SHARD: {
        /* Two instances, values=6 and values=VALUES: shard 1 of 2 runs the
         * second, into a database of its own. */
        char *db = cli_path(scratch, "sharded.db");
        c.file = write_campaign_file("sharded.yaml", "[6, " VALUES_TEXT "]", db, extra);
        free(db);
        c.db = cli_path(scratch, "sharded.shard-1-of-2.db");
        hostile_args_add(&c.args, CLI_ARGS("campaign", "run", c.file, "--shard", "1/2", "--quiet"));
        break;
    }
    }
    return c;
}

static void free_command(stop_command *c)
{
    free(c->db);
    free(c->file);
    free(c->out_path);
    free(c->err_path);
}

static unsigned long long seed_of(const char *test)
{
    unsigned long long seed;
    const char *text = getenv("SKYTUNE_STOP_SEED");
    if (text && *text)
        seed = strtoull(text, NULL, 10);
    else
        seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    fprintf(stderr, "%s: moments from seed %llu (SKYTUNE_STOP_SEED=%llu repeats them)\n", test,
            seed, seed);
    return seed;
}

/* Whether /proc says the process blocks every stop signal (SigBlk, a hex
 * mask with bit N-1 for signal N). */
static bool blocks_stop_signals(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[256];
    unsigned long long mask = 0;
    bool found = false;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "SigBlk:", 7) == 0) {
            mask = strtoull(line + 7, NULL, 16);
            found = true;
        }
    fclose(f);
    unsigned long long want =
        (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1)) | (1ull << (SIGUSR1 - 1));
    return found && (mask & want) == want;
}

/* How the command ended after the signal: exit status, what it said, its
 * workers gone, and the database as a stop leaves it. Returns how many
 * configurations were measured. */
static long long assert_stopped(const stop_command *c, int sig, int status, bool after_start,
                                const hostile_process *workers, size_t n_workers,
                                unsigned long long seed)
{
    char *out = hostile_read_text(c->out_path), *err = hostile_read_text(c->err_path);
    cr_assert_eq(status, 128 + sig,
                 "%s, %s (seed %llu): ended with %s, expected exit status %d\nstdout:\n%s\n"
                 "stderr:\n%s",
                 c->name, signal_name(sig), seed, cli_status_text(status), 128 + sig, out, err);
    if (after_start)
        cr_assert(strstr(err, "skytune: stopping"),
                  "%s, %s (seed %llu): the stop was not announced:\n%s", c->name,
                  signal_name(sig), seed, err);
    free(out);
    free(err);
    long still = hostile_wait_until_gone(workers, n_workers, 10.0);
    cr_assert_eq(still, -1, "%s, %s (seed %llu): a %s worker (pid %d) still runs", c->name,
                 signal_name(sig), seed, still >= 0 ? workers[still].role : "",
                 still >= 0 ? (int)workers[still].pid : 0);
    if (!cli_file_exists(c->db)) {
        cr_assert(!after_start, "%s, %s (seed %llu): no database after the campaign started",
                  c->name, signal_name(sig), seed);
        return 0;
    }
    const char *db = c->db;
    hostile_assert_database_sound(db);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status = 'running'"), 0,
                 "%s, %s (seed %llu): a campaign is left running: %s", c->name, signal_name(sig),
                 seed, cli_db_text(db, "SELECT group_concat(id || ' ' || status) FROM campaigns"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM claims"), 0,
                 "%s, %s (seed %llu): claims are left", c->name, signal_name(sig), seed);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations WHERE ended IS NULL"), 0,
                 "%s, %s (seed %llu): an invocation is left open", c->name, signal_name(sig),
                 seed);
    long long measured = hostile_count_measurements(db);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0,
                 "%s, %s (seed %llu): a stop made a measurement fail: %s", c->name,
                 signal_name(sig), seed,
                 cli_db_text(db, "SELECT group_concat(status || ': ' || COALESCE(message, ''),"
                                 " char(10)) FROM measurements WHERE status <> 'ok'"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"), measured,
                 "%s, %s (seed %llu): a measurement lacks its sample (runs: 1)", c->name,
                 signal_name(sig), seed);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(DISTINCT configuration_id) FROM measurements"),
                 measured, "%s, %s (seed %llu): a configuration was measured twice", c->name,
                 signal_name(sig), seed);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), measured,
                 "%s, %s (seed %llu): measurements and evaluations differ", c->name,
                 signal_name(sig), seed);
    if (after_start) {
        cr_assert_lt(measured, VALUES, "%s, %s (seed %llu): the signal came after the end",
                     c->name, signal_name(sig), seed);
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status = "
                                    "'interrupted'"),
                     1, "%s, %s (seed %llu): the campaign is not marked interrupted: %s",
                     c->name, signal_name(sig), seed,
                     cli_db_text(db, "SELECT group_concat(status) FROM campaigns"));
        cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM invocations WHERE ended = "
                                    "'interrupted'"),
                     1, "%s, %s (seed %llu): the invocation did not end as interrupted",
                     c->name, signal_name(sig), seed);
    }
    return measured;
}

/* The same command again completes: every configuration exactly once. */
static void assert_rerun_completes(const stop_command *c, int sig, long long before,
                                   unsigned long long seed)
{
    cli_result r = cli_run(c->args.items);
    cr_assert_eq(r.status, 0, "%s after %s (seed %llu): the same command again ended with %s\n"
                              "stdout:\n%s\nstderr:\n%s",
                 c->name, signal_name(sig), seed, cli_status_text(r.status), r.out, r.err);
    cli_result_free(&r);
    long long campaign = cli_db_int(c->db, "SELECT id FROM campaigns");
    hostile_assert_each_measured_once(c->db, campaign, VALUES);
    cr_assert_eq(cli_db_int(c->db, "SELECT COUNT(*) FROM campaigns WHERE status = 'done'"), 1,
                 "%s after %s (seed %llu): the campaign is not done", c->name, signal_name(sig),
                 seed);
    cr_assert_eq(cli_db_int(c->db, "SELECT COUNT(*) FROM claims"), 0);
    cr_assert_eq(cli_db_int(c->db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    fprintf(stderr, "%s, %s (seed %llu): %lld of %d measured before the stop\n", c->name,
            signal_name(sig), seed, before, VALUES);
    hostile_assert_database_sound(c->db);
}

/* Start, signal once the campaign has measured two configurations (at a
 * random moment of the next one and a half), check the stop, run again. */
static void stop_and_resume(command_kind kind, int sig)
{
    char test[96];
    snprintf(test, sizeof test, "%s, %s", command_names[kind], signal_name(sig));
    unsigned long long seed = seed_of(test);
    pcg32 rng;
    pcg32_seed(&rng, seed, 0x73746f70u);
    stop_command c = make_command(kind, NULL);
    pid_t pid = cli_start(c.args.items, c.out_path, c.err_path);
    hostile_wait_for_measurements(pid, c.db, 1, c.out_path, c.err_path);
    double first = hostile_now_s();
    hostile_wait_for_measurements(pid, c.db, 2, c.out_path, c.err_path);
    /* Within the next one and a half configurations, but no more than
     * 0.4 s: a configuration the compile worker has built ahead takes less
     * than the first ones did. */
    long per_configuration_ms = (long)((hostile_now_s() - first) * 1000.0);
    long window_ms = per_configuration_ms * 3 / 2;
    if (window_ms > 400) window_ms = 400;
    if (window_ms < 10) window_ms = 10;
    long delay_ms = (long)pcg32_bounded(&rng, (uint32_t)window_ms);
    hostile_sleep_ms(delay_ms);
    int status;
    if (cli_poll_exit(pid, &status)) {
        char *out = hostile_read_text(c.out_path);
        cr_assert_fail("%s (seed %llu): the command ended (%s) before the signal: the campaign "
                       "is too short for this test\n%s",
                       test, seed, cli_status_text(status), out);
    }
    hostile_process workers[64];
    size_t n_workers = hostile_children(pid, workers, 64);
    fprintf(stderr, "%s (seed %llu): %s %ld ms after the second measurement (%ld ms each)\n",
            test, seed, signal_name(sig), delay_ms, per_configuration_ms);
    kill(pid, sig);
    status = cli_wait(pid, 120);
    long long before = assert_stopped(&c, sig, status, true, workers, n_workers, seed);
    assert_rerun_completes(&c, sig, before, seed);
    free_command(&c);
}

Test(stop_signals, run_stops_on_sigint) { stop_and_resume(RUN, SIGINT); }
Test(stop_signals, run_stops_on_sigterm) { stop_and_resume(RUN, SIGTERM); }
Test(stop_signals, run_stops_on_sigusr1) { stop_and_resume(RUN, SIGUSR1); }
Test(stop_signals, run_devices_stops_on_sigint) { stop_and_resume(RUN_DEVICES, SIGINT); }
Test(stop_signals, run_devices_stops_on_sigterm) { stop_and_resume(RUN_DEVICES, SIGTERM); }
Test(stop_signals, run_devices_stops_on_sigusr1) { stop_and_resume(RUN_DEVICES, SIGUSR1); }
Test(stop_signals, campaign_run_stops_on_sigint) { stop_and_resume(CAMPAIGN, SIGINT); }
Test(stop_signals, campaign_run_stops_on_sigterm) { stop_and_resume(CAMPAIGN, SIGTERM); }
Test(stop_signals, campaign_run_stops_on_sigusr1) { stop_and_resume(CAMPAIGN, SIGUSR1); }
Test(stop_signals, campaign_shard_stops_on_sigint) { stop_and_resume(SHARD, SIGINT); }
Test(stop_signals, campaign_shard_stops_on_sigterm) { stop_and_resume(SHARD, SIGTERM); }
Test(stop_signals, campaign_shard_stops_on_sigusr1) { stop_and_resume(SHARD, SIGUSR1); }

/* A signal while the command starts: the mask is set before anything else
 * (checked in /proc), and the signal comes at a random moment of the next
 * half second, while the plugin loads, the OpenCL platform opens and the
 * workers start. The command stops as at any other moment; the campaign
 * may not have begun. */
static void stop_while_starting(command_kind kind)
{
    char test[96];
    snprintf(test, sizeof test, "%s while starting", command_names[kind]);
    unsigned long long seed = seed_of(test);
    pcg32 rng;
    pcg32_seed(&rng, seed, 0x73746172u);
    const int signals[] = {SIGINT, SIGTERM, SIGUSR1};
    int sig = signals[pcg32_bounded(&rng, 3)];
    stop_command c = make_command(kind, NULL);
    pid_t pid = cli_start(c.args.items, c.out_path, c.err_path);
    double deadline = hostile_now_s() + 30;
    while (!blocks_stop_signals(pid) && hostile_now_s() < deadline) usleep(200);
    cr_assert(blocks_stop_signals(pid), "%s: the stop signals are not blocked after 30 s", test);
    long delay_ms = (long)pcg32_bounded(&rng, 500);
    hostile_sleep_ms(delay_ms);
    hostile_process workers[64];
    size_t n_workers = hostile_children(pid, workers, 64);
    fprintf(stderr, "%s (seed %llu): %s %ld ms after the mask was set\n", test, seed,
            signal_name(sig), delay_ms);
    kill(pid, sig);
    int status = cli_wait(pid, 120);
    long long before = assert_stopped(&c, sig, status, false, workers, n_workers, seed);
    assert_rerun_completes(&c, sig, before, seed);
    free_command(&c);
}

Test(stop_signals, run_stops_while_starting) { stop_while_starting(RUN); }
Test(stop_signals, campaign_run_stops_while_starting) { stop_while_starting(CAMPAIGN); }

/* A second stop signal ends the command at once, whichever command and
 * signals: here a campaign run whose configuration x = 2 hangs in prepare,
 * with a stop grace of ten minutes, so only the second signal can end it
 * in time. It exits 128 + the second signal's number; the database is
 * sound, and the hanging configuration was not recorded. */
Test(stop_signals, campaign_run_second_signal_stops_at_once)
{
    char *db = cli_path(scratch, "hang.db");
    char text[4096];
    snprintf(text, sizeof text,
             "plugin: %s\nproblem:\n  values: 6\n  fault: hang\n  where: prepare\n  bad: 2\n"
             "strategy: exhaustive\nruns: 1\nseed: 1\ndatabase: %s\n",
             hostile_plugin_path(), db);
    char *file = cli_path(scratch, "hang.yaml");
    cli_write_file(file, text, strlen(text));
    char *out_path = cli_path(scratch, "hang.out"), *err_path = cli_path(scratch, "hang.err");
    pid_t pid = cli_start(CLI_ARGS("campaign", "run", file, "--quiet", "--stop-grace", "10m",
                                   "--timeout-floor", "10m", "--compile-timeout", "60s"),
                          out_path, err_path);
    hostile_wait_for_measurements(pid, db, 2, out_path, err_path);
    hostile_sleep_ms(700);
    hostile_process workers[64];
    size_t n_workers = hostile_children(pid, workers, 64);
    kill(pid, SIGTERM);
    hostile_sleep_ms(500);
    int status;
    cr_assert(!cli_poll_exit(pid, &status),
              "SIGTERM ended the run (%s) while x = 2 hung and the stop grace was ten minutes",
              cli_status_text(status));
    char *said = hostile_read_text(err_path);
    cr_assert(strstr(said, "skytune: stopping (SIGTERM): the configuration in flight has 10 min "
                           "to finish (--stop-grace)") &&
                  strstr(said, "a second stop signal (SIGTERM, SIGINT, SIGUSR1) stops at once"),
              "SIGTERM did not say what happens now:\n%s", said);
    free(said);
    kill(pid, SIGUSR1);
    status = cli_wait(pid, 60);
    cr_assert_eq(status, 128 + SIGUSR1, "the second signal (SIGUSR1) ended the run with %s",
                 cli_status_text(status));
    cr_assert_eq(hostile_wait_until_gone(workers, n_workers, 10.0), -1,
                 "a worker of the run stopped at once is still running");
    hostile_assert_database_sound(db);
    cr_assert_eq(hostile_rows_of(db, 2), 0, "x = 2 hung when the run was stopped, yet it was "
                                            "recorded");
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    free(db);
    free(file);
    free(out_path);
    free(err_path);
}

/* ------------------------------------------------------------ notifications */

static const char *event_of(const json_t *doc)
{
    const char *name = json_string_value(json_object_get(doc, "event"));
    return name ? name : "(none)";
}

/* The last event the sink received, parsed; its names in order into seq. */
static json_t *last_event(const http_sink *sink, char *seq, size_t seq_len)
{
    size_t n = http_sink_count(sink);
    json_t *last = NULL;
    seq[0] = '\0';
    for (size_t k = 1; k <= n; k++) {
        char *body = http_sink_body(sink, k, NULL);
        json_error_t error;
        json_t *doc = json_loads(body, 0, &error);
        cr_assert(doc, "request %zu is not JSON (%s):\n%s", k, error.text, body);
        free(body);
        size_t len = strlen(seq);
        snprintf(seq + len, seq_len - len, "%s%s", len ? " " : "", event_of(doc));
        json_decref(last);
        last = doc;
    }
    cr_assert(last, "the sink received nothing");
    return last;
}

/* Stopped by sig once the campaign has measured something: the last event
 * is campaign_finished, stop "interrupted", with what was evaluated. */
static void stopped_campaign_notifies(command_kind kind, int sig)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char notify[256];
    snprintf(notify, sizeof notify, "notify: '%s'\n", sink.url);
    stop_command c = make_command(kind, notify);
    if (kind == RUN || kind == RUN_DEVICES) hostile_args_add(&c.args, CLI_ARGS("--notify", sink.url));
    pid_t pid = cli_start(c.args.items, c.out_path, c.err_path);
    hostile_wait_for_measurements(pid, c.db, 2, c.out_path, c.err_path);
    hostile_process workers[64];
    size_t n_workers = hostile_children(pid, workers, 64);
    kill(pid, sig);
    int status = cli_wait(pid, 120);
    long long measured = assert_stopped(&c, sig, status, true, workers, n_workers, 0);
    http_sink_stop(&sink);
    char seq[2048];
    json_t *last = last_event(&sink, seq, sizeof seq);
    cr_assert_str_eq(event_of(last), "campaign_finished", "%s, %s: events %s", c.name,
                     signal_name(sig), seq);
    cr_assert_str_eq(json_string_value(json_object_get(last, "stop")), "interrupted",
                     "%s, %s: events %s", c.name, signal_name(sig), seq);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(last, "counts"), "evaluated")),
                 measured, "%s, %s: events %s", c.name, signal_name(sig), seq);
    cr_assert(strstr(seq, "campaign_started") == seq, "%s, %s: events %s", c.name,
              signal_name(sig), seq);
    json_decref(last);
    free_command(&c);
}

Test(stop_signals, campaign_run_stopped_by_sigterm_sends_its_final_notification)
{
    stopped_campaign_notifies(CAMPAIGN, SIGTERM);
}

Test(stop_signals, shard_stopped_by_sigusr1_sends_its_final_notification)
{
    stopped_campaign_notifies(SHARD, SIGUSR1);
}

Test(stop_signals, run_stopped_by_sigterm_sends_its_final_notification)
{
    stopped_campaign_notifies(RUN, SIGTERM);
}
