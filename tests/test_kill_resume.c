/* Killing with SIGKILL, again and again, loses nothing and measures nothing
 * twice.
 *
 * The engine: a campaign of the (harmless) hostile plugin is SIGKILLed at
 * random moments ten times (SKYTUNE_KILLS sets another number), each time
 * started again with the same command, then run to the end. Every
 * configuration is measured exactly once, the campaign evaluates each once,
 * the database passes SQLite's own checks after every kill, and the killed
 * engine's workers do not outlive it.
 *
 * The measuring worker: while one campaign runs, its measuring worker is
 * SIGKILLed ten times too. The engine notices each death, records the
 * configuration in flight as a crash (SIGKILL, signal 9) in the stage it was
 * in, starts another worker and goes on to the end with exit status 0.
 *
 * The kill moments come from PCG32 with a seed that is printed, and can be
 * set with SKYTUNE_KILL_SEED to repeat a run. Kills wait for the campaign to
 * make progress first, so that whatever the machine's speed they land
 * inside the campaign rather than before or after it. Ten kills at moments
 * drawn afresh each run cover in a few runs of the suite what twenty fixed
 * ones would, in half the time (the suite's slowest test after SLURM's). */
#include <criterion/criterion.h>

#include <pcg32.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile_harness.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = hostile_scratch_open();
}

static void remove_scratch(void)
{
    hostile_scratch_close(scratch);
    scratch = NULL;
}

TestSuite(kill_resume, .init = make_scratch, .fini = remove_scratch);

#define MAX_KILLS 100

/* How many kills: 10, or SKYTUNE_KILLS (1 to MAX_KILLS) for a longer soak. */
static int kills_wanted(void)
{
    const char *text = getenv("SKYTUNE_KILLS");
    long n = text && *text ? strtol(text, NULL, 10) : 10;
    return n >= 1 && n <= MAX_KILLS ? (int)n : 10;
}
#define MAX_WORKERS_SEEN 256

static pcg32 seeded_rng(const char *test)
{
    unsigned long long seed;
    const char *text = getenv("SKYTUNE_KILL_SEED");
    if (text && *text)
        seed = strtoull(text, NULL, 10);
    else
        seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    fprintf(stderr, "%s: kill moments from seed %llu (SKYTUNE_KILL_SEED=%llu repeats them)\n",
            test, seed, seed);
    pcg32 rng;
    pcg32_seed(&rng, seed, 0x6b696c6cu);
    return rng;
}

/* How long the run takes per configuration: the time between its first and
 * third measurement, halved. Kill moments are drawn in units of it, so that
 * on any machine a kill lands somewhere in the next configuration or two. */
static long ms_per_configuration(pid_t pid, const char *db, long long already,
                                 const char *out_path, const char *err_path)
{
    hostile_wait_for_measurements(pid, db, already + 1, out_path, err_path);
    double first = hostile_now_s();
    hostile_wait_for_measurements(pid, db, already + 3, out_path, err_path);
    long ms = (long)((hostile_now_s() - first) * 1000.0 / 2.0);
    return ms > 10 ? ms : 10;
}

/* Every row is ok with its samples: a kill of the engine may lose the
 * configuration in flight, never make it fail or leave half of it. */
static void assert_whole_and_ok(const char *db, int runs, int kill)
{
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status != 'ok'"), 0,
                 "after kill %d a measurement is not ok: %s", kill,
                 cli_db_text(db, "SELECT group_concat(status || ': ' || COALESCE(message, ''),"
                                 " char(10)) FROM measurements WHERE status != 'ok'"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM samples"),
                 cli_db_int(db, "SELECT COUNT(*) FROM measurements") * runs,
                 "after kill %d a measurement lacks samples", kill);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"),
                 cli_db_int(db, "SELECT COUNT(*) FROM measurements"),
                 "after kill %d measurements and evaluations differ", kill);
    cr_assert_leq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1,
                  "after kill %d there is more than one campaign", kill);
}

Test(kill_resume, engine_killed_again_and_again_measures_every_configuration_once)
{
    pcg32 rng = seeded_rng("engine_killed_again_and_again");
    int kills = kills_wanted();
    /* Each kill costs two or three configurations, up to four on a machine
     * under heavy load: six per kill leave the last run some to measure. */
    const int CONFIGURATIONS = 6 * kills;
    enum { RUNS = 1 };
    char values[32];
    snprintf(values, sizeof values, "values=%d", CONFIGURATIONS);
    char *db = cli_path(scratch, "engine.db");
    char *out_path = cli_path(scratch, "engine.out");
    char *err_path = cli_path(scratch, "engine.err");
    hostile_args args = hostile_run_args("exhaustive", db);
    hostile_args_add(&args, CLI_ARGS("--runs", "1", "--seed", "1", "--set", values));

    long per_configuration_ms = 0;
    for (int kill_no = 1; kill_no <= kills; kill_no++) {
        long long before = cli_file_exists(db) ? hostile_count_measurements(db) : -1;
        if (before < 0) before = 0;
        pid_t pid = cli_start(args.items, out_path, err_path);
        /* The first run measures three configurations to time them. After
         * that, one kill in four lands at any moment of the first 0.4 s,
         * when the engine may still be opening the database or starting
         * workers; the others once the run has measured something, at any
         * moment of the next one and a half configurations. */
        if (kill_no == 1) {
            per_configuration_ms = ms_per_configuration(pid, db, 0, out_path, err_path);
            fprintf(stderr, "engine_killed_again_and_again: %ld ms per configuration\n",
                    per_configuration_ms);
            hostile_sleep_ms((long)pcg32_bounded(&rng, (uint32_t)(per_configuration_ms * 3 / 2)));
        } else if (pcg32_bounded(&rng, 4) == 0) {
            hostile_sleep_ms((long)pcg32_bounded(&rng, 400));
        } else {
            hostile_wait_for_measurements(pid, db, before + 1, out_path, err_path);
            hostile_sleep_ms((long)pcg32_bounded(&rng, (uint32_t)(per_configuration_ms * 3 / 2)));
        }
        int status;
        if (cli_poll_exit(pid, &status)) {
            char *out = hostile_read_text(out_path);
            cr_assert_fail("the run ended (%s) before kill %d: the campaign is too short for "
                           "this test\n%s",
                           cli_status_text(status), kill_no, out);
        }
        hostile_process workers[64];
        size_t n_workers = hostile_children(pid, workers, 64);
        kill(pid, SIGKILL);
        status = cli_wait(pid, 30);
        cr_assert_eq(status, CLI_SIGNALED(SIGKILL), "kill %d: the run ended with %s", kill_no,
                     cli_status_text(status));
        long still = hostile_wait_until_gone(workers, n_workers, 10.0);
        cr_assert_eq(still, -1, "kill %d: the killed engine's %s worker (pid %d) still runs",
                     kill_no, still >= 0 ? workers[still].role : "",
                     still >= 0 ? (int)workers[still].pid : 0);
        if (cli_file_exists(db) && hostile_count_measurements(db) >= 0) {
            hostile_assert_database_sound(db);
            assert_whole_and_ok(db, RUNS, kill_no);
        }
    }

    long long before = hostile_count_measurements(db);
    fprintf(stderr, "engine_killed_again_and_again: %lld of %d configurations measured before the "
                    "last run\n",
            before, CONFIGURATIONS);
    cr_assert_geq(before, 1, "%d kills and nothing measured", kills);
    cr_assert_lt(before, CONFIGURATIONS, "the kills landed after the last configuration");
    cli_result r = hostile_run_ok(&args, "running the same command after the kills");
    hostile_summary s = hostile_parse_summary(r.out);
    cr_assert_eq(s.evaluated, CONFIGURATIONS, "%s", r.out);
    cr_assert_eq(s.measured, CONFIGURATIONS - before,
                 "%lld were measured before the last run, which measured %lld of %d:\n%s", before,
                 s.measured, CONFIGURATIONS, r.out);
    cli_result_free(&r);

    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    assert_whole_and_ok(db, RUNS, kills + 1);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns"), 1);
    char *status = cli_db_text(db, "SELECT status FROM campaigns");
    cr_assert_str_eq(status, "done");
    free(status);
    hostile_assert_database_sound(db);
    free(db);
    free(out_path);
    free(err_path);
}

static bool same_process(const hostile_process *a, const hostile_process *b)
{
    return a->pid == b->pid && a->start_time == b->start_time;
}

/* A measuring worker of the engine that is not one already killed; waits
 * for one to appear. */
static hostile_process next_measuring_worker(pid_t engine, const hostile_process *killed,
                                             size_t n_killed, const char *out_path)
{
    double deadline = hostile_now_s() + 120.0;
    while (hostile_now_s() < deadline) {
        int status;
        if (cli_poll_exit(engine, &status)) {
            char *out = hostile_read_text(out_path);
            cr_assert_fail("the run ended (%s) after %zu worker kills: the campaign is too "
                           "short for this test\n%s",
                           cli_status_text(status), n_killed, out);
        }
        hostile_process children[64];
        size_t n = hostile_children(engine, children, 64);
        for (size_t k = 0; k < n; k++) {
            if (strcmp(children[k].role, "measure") != 0) continue;
            bool was_killed = false;
            for (size_t j = 0; j < n_killed; j++)
                was_killed = was_killed || same_process(&children[k], &killed[j]);
            if (!was_killed) return children[k];
        }
        hostile_sleep_ms(10);
    }
    kill(engine, SIGKILL);
    cli_wait(engine, 30);
    cr_assert_fail("no measuring worker ('skytune worker measure ...', a child of the run) "
                   "after two minutes");
    return (hostile_process){0};
}

Test(kill_resume, measuring_worker_killed_again_and_again_campaign_completes)
{
    pcg32 rng = seeded_rng("measuring_worker_killed_again_and_again");
    int kills = kills_wanted();
    const int CONFIGURATIONS = 6 * kills; /* as above */
    enum { RUNS = 3, KILL_MARGIN = 10 };
    char values[32];
    snprintf(values, sizeof values, "values=%d", CONFIGURATIONS);
    char *db = cli_path(scratch, "worker.db");
    char *out_path = cli_path(scratch, "worker.out");
    char *err_path = cli_path(scratch, "worker.err");
    /* With no compile workers the measuring worker also builds, so it is
     * busy with a configuration nearly all the time and a kill nearly always
     * lands in one. */
    hostile_args args = hostile_run_args("exhaustive", db);
    /* --no-race: every configuration keeps its 3 runs, which the checks
     * below count. */
    hostile_args_add(&args, CLI_ARGS("--runs", "3", "--seed", "1", "--set", values,
                                      "--compile-jobs", "0", "--no-race"));
    pid_t engine = cli_start(args.items, out_path, err_path);

    long per_configuration_ms = ms_per_configuration(engine, db, 0, out_path, err_path);
    fprintf(stderr, "measuring_worker_killed_again_and_again: %ld ms per configuration\n",
            per_configuration_ms);
    hostile_process killed[MAX_KILLS];
    size_t n_killed = 0;
    long long progress_mark = 0;
    while (n_killed < (size_t)kills) {
        /* The kills stop while a good part of the campaign is left, so that
         * it is still running when the next wait and kill come: a kill can
         * cost more configurations than the start's pace says (builds that
         * PoCL's shared cache already holds go fast, and each crash's health
         * checks take their time), and the run must not end under a waiting
         * test. At least half the kills must land before that (below). */
        if (hostile_count_measurements(db) + KILL_MARGIN >= CONFIGURATIONS) break;
        /* Kill only a worker that has measured something since the last
         * kill (the engine may rightly give up on a worker that dies again
         * and again before it measures anything), at any moment of its next
         * one and a half configurations. */
        hostile_wait_for_measurements(engine, db, progress_mark + 1, out_path, err_path);
        hostile_process worker = next_measuring_worker(engine, killed, n_killed, out_path);
        hostile_sleep_ms((long)pcg32_bounded(&rng, (uint32_t)(per_configuration_ms * 3 / 2)));
        if (!hostile_signal_if_running(&worker, SIGKILL)) continue; /* it ended on its own */
        killed[n_killed++] = worker;
        long long now = hostile_count_measurements(db);
        /* The killed configuration's crash row may come later; one more
         * row than that shows a worker measuring again. */
        progress_mark = now + 1;
    }

    fprintf(stderr, "measuring_worker_killed_again_and_again: %zu of %d kills done with %lld of "
                    "%d configurations recorded\n",
            n_killed, kills, hostile_count_measurements(db), CONFIGURATIONS);
    cr_assert_geq(n_killed, (size_t)(kills + 1) / 2,
                  "only %zu of %d kills landed before the last %d configurations", n_killed,
                  kills, KILL_MARGIN);
    int status = cli_wait(engine, CLI_TIMEOUT_S);
    char *out = hostile_read_text(out_path), *err = hostile_read_text(err_path);
    cr_assert_eq(status, 0, "the run whose worker was killed %d times ended with %s\nstdout:\n%s\n"
                            "stderr:\n%s",
                 kills, cli_status_text(status), out, err);
    hostile_summary s = hostile_parse_summary(out);
    cr_assert_eq(s.evaluated, CONFIGURATIONS, "%s", out);
    cr_assert_eq(s.measured, CONFIGURATIONS, "%s", out);
    /* A CPU device's health checks after a crash follow one another at
     * once: the crashed process took its state with it (a GPU's pause
     * 2 s, 4 s and 8 s, and say so). */
    cr_assert_null(strstr(err, "checking the device again in"),
                   "the health check paused on a CPU device:\n%s", err);
    free(out);
    free(err);
    cr_assert_eq(hostile_wait_until_gone(killed, n_killed, 10.0), -1,
                 "a killed worker is still running");

    hostile_assert_each_measured_once(db, s.campaign, CONFIGURATIONS);
    /* A kill lands in a worker that measured others first, or in a fresh
     * one: the first is measured again in a fresh worker, where it passes
     * and says so; only the second stands as a crash. */
    long long crashes = cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'crash'");
    long long measured_again =
        cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"
                       " AND message LIKE 'a crash in a worker that had measured %%ok in a fresh "
                       "one%%SIGKILL%%'");
    cr_assert_geq(crashes + measured_again, 1,
                  "%zu workers were killed, and no configuration is a crash or was measured again",
                  n_killed);
    cr_assert_leq(crashes + measured_again, (long long)n_killed,
                  "%lld crashes and %lld measured again from %zu kills", crashes, measured_again,
                  n_killed);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'crash'"
                                " AND message LIKE '%%SIGKILL%%' AND message LIKE '%%signal 9%%'"
                                " AND stage IN ('build', 'prepare', 'verify', 'warm_up',"
                                "  'timed', 'release')"),
                 crashes, "a crash does not name SIGKILL and signal 9, or has no stage: %s",
                 cli_db_text(db, "SELECT group_concat(COALESCE(stage, 'no stage') || ': '"
                                 " || COALESCE(message, 'no message'), char(10))"
                                 " FROM measurements WHERE status = 'crash'"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"),
                 CONFIGURATIONS - crashes, "a configuration is neither ok nor a crash: %s",
                 cli_db_text(db, "SELECT group_concat(status || ': ' || COALESCE(message, ''),"
                                 " char(10)) FROM measurements"
                                 " WHERE status NOT IN ('ok', 'crash')"));
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'"
                                " AND (stage IS NOT NULL OR n_samples != %d)",
                            RUNS),
                 0, "an ok measurement has a stage or lacks samples");
    char *campaign_status = cli_db_text(db, "SELECT status FROM campaigns WHERE id = %lld",
                                        s.campaign);
    cr_assert_str_eq(campaign_status, "done");
    free(campaign_status);
    hostile_assert_database_sound(db);
    free(db);
    free(out_path);
    free(err_path);
}
