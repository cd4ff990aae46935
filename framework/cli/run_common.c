#include "run_common.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_open.h"
#include "http_client.h"
#include "progress.h"
#include "quantity.h"
#include "quote.h"
#include "racing.h"
#include "terminal_text.h"

const cli_option run_supervision_options[] = {
    {"timeout-floor", "DURATION", false, "watchdog: a configuration may take this long after its build, plus --timeout-factor times the slowest ok one so far or, for its runs, its own verification (default 10s)"},
    {"timeout-factor", "X", false, "watchdog: multiple of the slowest ok configuration's verify and timed runs (default 10)"},
    {"timeout-cap", "DURATION", false, "watchdog: never more than this per configuration, nor for a worker's set-up (default 10m)"},
    {"compile-timeout", "DURATION", false, "watchdog: limit of the build stage (default 5m)"},
    {"stop-grace", "DURATION", false, "after Ctrl-C, SIGTERM or SIGUSR1, how long the configuration in flight may take before its worker is killed (default 3s)"},
    {"retry-failed", NULL, false, "measure configurations that failed before again (by default a failure is never retried on the same device, driver and plugin build)"},
    {"no-race", NULL, false, "time every configuration with all its --runs (by default a configuration whose first 3 timed runs are all slower than the 5th best so far by a margin, 3 times the best ones' noise and at least 10 %, or whose first runs are all over twice that, stops early and is recorded raced)"},
    {"compile-jobs", "N", false, "compile worker processes building ahead of the device (default, of the CPUs this process may use: all but two on a GPU, less the spares where loading a binary recompiles it; all of them on a CPU device (none with one CPU), whose compile workers pause while it runs; 0: none)"},
    {"measure-ahead", "N", false, "spare measuring workers that load the next configurations and wait at the device's gate, the next one timed while this one is compared (default on a GPU 2, or 4 on NVIDIA with CUDA_CACHE_DISABLE=1, where loading a binary recompiles it, at most half the CPUs this process may use but one; 0 on a CPU device)"},
    {"cache-dir", "DIR", false, "binary cache directory (default $SKYTUNE_CACHE_DIR, else ~/.cache/skytune/binaries)"},
    {"cache-limit", "SIZE", false, "binary cache size limit, least recently used entries go first, e.g. 500M, 4G (default 1G)"},
    {"no-cache", NULL, false, "compile every configuration from source, keep no binaries (also no compile workers)"},
    {"health-threshold", "FRACTION", false, "after a fault, the best configuration is re-timed; a drift past this marks the device degraded (default 0.25)"},
    {"confirm", "K", false, "at the end, time the K best configurations again, interleaved in one measuring worker (A B C … A B C …), and decide the winner on those rounds (default 5; at least 2)"},
    {"confirm-rounds", "R", false, "rounds of the confirmation: visits of each configuration, each with its warm-up and --runs timed runs (default 5, fewer where five would take over a tenth of the campaign's time)"},
    {"no-confirm", NULL, false, "no confirmation of the winner at the end"},
    {"no-isolation", NULL, false, "measure in this process, without a supervised worker (for debugging a plugin: a crash ends the run)"},
    BUSY_TIMEOUT_OPTION,
};
const size_t run_supervision_option_count =
    sizeof run_supervision_options / sizeof run_supervision_options[0];

size_t run_options_with_supervision(const cli_option *options, size_t n, cli_option *out)
{
    size_t k = 0;
    for (size_t j = 0; j < n && k < CLI_MAX_OPTIONS; j++) out[k++] = options[j];
    for (size_t j = 0; j < run_supervision_option_count && k < CLI_MAX_OPTIONS; j++)
        out[k++] = run_supervision_options[j];
    return k;
}

/* A worker is this same executable, started again. */
char *run_own_executable(void)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return NULL;
    path[n] = '\0';
    return strdup(path);
}

static int parse_fraction(const char *option, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v > 0) || !isfinite(v)) {
        char shown[QUOTE_TEXT];
        cli_error("--%s '%s' is not a positive number (e.g. 0.25)", option,
                  quote_text(text, shown, sizeof shown));
        return -1;
    }
    *out = v;
    return 0;
}

int run_parse_positive_duration(const char *option, const char *text, double *out)
{
    if (cli_parse_duration(option, text, out) != 0) return -1;
    if (!(*out > 0)) {
        char shown[QUOTE_TEXT];
        cli_error("--%s must be a duration longer than 0 (e.g. 90s, 15m, 8h), got '%s'", option,
                  quote_text(text, shown, sizeof shown));
        return -1;
    }
    return 0;
}

/* An unsigned option within [low, high] into *out; prints and returns -1
 * otherwise. */
static int parse_count(const char *option, const char *text, unsigned low, unsigned high,
                       unsigned *out)
{
    unsigned long long number;
    if (cli_parse_u64(option, text, &number) != 0) return -1;
    if (number < low || number > high) {
        cli_error("--%s must be between %u and %u, got %llu", option, low, high, number);
        return -1;
    }
    *out = (unsigned)number;
    return 0;
}

int run_parse_confirmation(const cli_args *args, tuning_request *rq)
{
    rq->confirm_top = CONFIRM_DEFAULT_TOP;
    rq->confirm_rounds = CONFIRM_DEFAULT_ROUNDS;
    const char *top = cli_get(args, "confirm"), *rounds = cli_get(args, "confirm-rounds");
    if (cli_flag(args, "no-confirm") && (top || rounds)) {
        cli_error("--no-confirm contradicts --%s: give one or the other",
                  top ? "confirm" : "confirm-rounds");
        return -1;
    }
    if (top && parse_count("confirm", top, 2, CONFIRM_MAX_TOP, &rq->confirm_top) != 0) return -1;
    if (rounds &&
        parse_count("confirm-rounds", rounds, 1, CONFIRM_MAX_ROUNDS, &rq->confirm_rounds) != 0)
        return -1;
    rq->confirm_rounds_asked = rounds != NULL;
    if (cli_flag(args, "no-confirm")) rq->confirm_top = 0;
    return 0;
}

int run_parse_supervision(const cli_args *args, tuning_request *rq)
{
    supervisor_limits_default(&rq->watchdog);
    supervisor_health_default(&rq->health);
    rq->compile_jobs = -1;
    rq->measure_ahead = -1;
    const char *text;
    if ((text = cli_get(args, "timeout-floor")) &&
        run_parse_positive_duration("timeout-floor", text, &rq->watchdog.floor_s) != 0)
        return -1;
    if ((text = cli_get(args, "timeout-factor"))) {
        char *end;
        rq->watchdog.factor = strtod(text, &end);
        if (end == text || *end || !(rq->watchdog.factor >= 0) || !isfinite(rq->watchdog.factor)) {
            char shown[QUOTE_TEXT];
            cli_error("--timeout-factor '%s' is not a number >= 0",
                      quote_text(text, shown, sizeof shown));
            return -1;
        }
    }
    if ((text = cli_get(args, "timeout-cap")) &&
        run_parse_positive_duration("timeout-cap", text, &rq->watchdog.cap_s) != 0)
        return -1;
    if ((text = cli_get(args, "compile-timeout")) &&
        run_parse_positive_duration("compile-timeout", text, &rq->watchdog.compile_s) != 0)
        return -1;
    if ((text = cli_get(args, "stop-grace")) &&
        cli_parse_duration("stop-grace", text, &rq->watchdog.stop_grace_s) != 0)
        return -1;
    if ((text = cli_get(args, "health-threshold")) &&
        parse_fraction("health-threshold", text, &rq->health.threshold) != 0)
        return -1;
    if ((text = cli_get(args, "compile-jobs"))) {
        unsigned long long jobs;
        if (cli_parse_u64("compile-jobs", text, &jobs) != 0) return -1;
        if (jobs > 256) {
            cli_error("--compile-jobs must be between 0 and 256, got %llu", jobs);
            return -1;
        }
        rq->compile_jobs = (int)jobs;
    }
    if ((text = cli_get(args, "measure-ahead"))) {
        unsigned long long ahead;
        if (cli_parse_u64("measure-ahead", text, &ahead) != 0) return -1;
        if (ahead > 16) {
            cli_error("--measure-ahead must be between 0 and 16, got %llu", ahead);
            return -1;
        }
        rq->measure_ahead = (int)ahead;
    }
    if (cli_busy_timeout(args, &rq->busy_timeout_s) != 0) return -1;
    if (run_parse_confirmation(args, rq) != 0) return -1;
    rq->retry_failed = cli_flag(args, "retry-failed");
    rq->no_race = cli_flag(args, "no-race");
    rq->no_cache = cli_flag(args, "no-cache");
    rq->cache_dir = cli_get(args, "cache-dir");
    if ((text = cli_get(args, "cache-limit")) && cli_parse_size("cache-limit", text, &rq->cache_max_bytes) != 0)
        return -1;
    if (rq->no_cache && rq->cache_dir) {
        cli_error("--no-cache and --cache-dir contradict each other");
        return -1;
    }
    if (rq->no_cache && rq->compile_jobs > 0) {
        cli_error("--compile-jobs needs the binary cache (compile workers hand their builds over "
                  "through it): drop --no-cache");
        return -1;
    }
    return 0;
}

/* "60 configurations", "1 configuration" */
static const char *configurations(uint64_t n)
{
    return n == 1 ? "configuration" : "configurations";
}

/* "--budget 60", or "no --budget" */
static void budget_text(uint64_t budget, char *buf, size_t len)
{
    if (budget)
        snprintf(buf, len, "--budget %llu", (unsigned long long)budget);
    else
        snprintf(buf, len, "no --budget");
}

/* What a rerun adds to a campaign that exists: the budget is not part of a
 * campaign's identity, so a larger one extends it, and a smaller or equal
 * one only reads back what is there. */
static void print_continuation(const tuning_started *s)
{
    if (!s->resumed) return;
    if (s->shared_host)
        terminal_printf("  campaign %lld is being measured by process %lld on host %s; sharing "
                        "its work\n",
                        (long long)s->campaign_id, (long long)s->shared_pid, s->shared_host);
    uint64_t before = s->evaluated_before;
    char now[48], previous[48];
    budget_text(s->budget, now, sizeof now);
    budget_text(s->previous_budget, previous, sizeof previous);
    uint64_t left = s->space_count > before ? s->space_count - before : 0;
    uint64_t more = s->budget ? (s->budget > before ? s->budget - before : 0) : left;
    if (more > left) more = left;
    char adds[64];
    if (more)
        snprintf(adds, sizeof adds, "%llu more", (unsigned long long)more);
    else
        snprintf(adds, sizeof adds, "nothing more to evaluate");
    if (s->had_previous && s->budget && s->previous_budget && s->budget > s->previous_budget &&
        before >= s->previous_budget)
        printf("  extending campaign %lld: %llu %s evaluated under %s; now %s: %s\n",
               (long long)s->campaign_id, (unsigned long long)before, configurations(before),
               previous, now, adds);
    else if (s->had_previous)
        printf("  %llu %s evaluated before (the last run: %s, %s); now %s: %s\n",
               (unsigned long long)before, configurations(before), previous,
               s->previous_ended[0] ? s->previous_ended
               : s->shared_host     ? "still running"
                                    : "killed before it ended",
               now, adds);
    else
        printf("  %llu %s evaluated before; now %s: %s\n", (unsigned long long)before,
               configurations(before), now, adds);
}

char *run_absolute_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real) return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t len = strlen(real) + strlen(base) + 2;
    char *out = malloc(len);
    if (out) snprintf(out, len, "%s/%s", real, base);
    free(real);
    return out;
}

/* "database skytune.db (/home/u/skytune.db)": the path as given and, when
 * it is relative, where it is, so that the database a run wrote can be
 * found from any folder. */
static void print_database(const char *path)
{
    char *absolute = path[0] != '/' ? run_absolute_path(path) : NULL;
    terminal_printf("  database %s", path);
    if (absolute) terminal_printf(" (%s)", absolute);
    printf("\n");
    free(absolute);
}

void run_print_start(void *ctx, const tuning_started *s)
{
    progress *p = ctx;
    progress_begin(p, s->label, s->compile_jobs + s->measure_ahead);
    if (p->quiet) return;
    /* The plugin's, the driver's and the user's words (a version, a device,
     * a dataset's name in the problem, the cache folder) go out escaped. */
    terminal_printf("%s campaign %lld: %s %s on %s (%s)\n  problem %s\n  strategy %s over %llu "
                    "valid %s\n",
                    s->resumed ? "continuing" : "starting", (long long)s->campaign_id, s->plugin,
                    s->plugin_version, s->device, s->platform, s->problem_text, s->strategy,
                    (unsigned long long)s->space_count, configurations(s->space_count));
    if (s->db_path) print_database(s->db_path);
    print_continuation(s);
    if (!strcmp(s->platform, "replay")) {
        fflush(stdout);
        return;
    }
    if (s->verification) terminal_printf("  outputs verified against %s\n", s->verification);
    char cpus[48] = "";
    if (s->usable_cpus)
        snprintf(cpus, sizeof cpus, " (CPUs usable: %u)", s->usable_cpus);
    terminal_printf("  measured %s (%u spare%s); %u compile worker%s%s; binary cache %s\n",
                    s->isolated ? "in a supervised worker" : "in this process (--no-isolation)",
                    s->measure_ahead, s->measure_ahead == 1 ? "" : "s", s->compile_jobs,
                    s->compile_jobs == 1 ? "" : "s", cpus, s->cache_dir ? s->cache_dir : "off");
    fflush(stdout);
}

/* "https://hooks.example.org/…" for a URL with more than its origin. */
static void redacted_url(const char *url, char *buf, size_t len)
{
    http_url_origin(url, buf, len);
    if (strlen(url) > strlen(buf)) snprintf(buf + strlen(buf), len - strlen(buf), "/\xE2\x80\xA6");
}

char *run_join_command(const char *command, int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "skytune %s", command);
    for (int k = 0; k < argc; k++) {
        char redacted[600];
        const char *arg = argv[k];
        if (strncmp(arg, "--notify=", 9) == 0) {
            snprintf(redacted, sizeof redacted, "--notify=");
            redacted_url(arg + 9, redacted + 9, sizeof redacted - 9);
            arg = redacted;
        } else if (k > 0 && strcmp(argv[k - 1], "--notify") == 0) {
            redacted_url(arg, redacted, sizeof redacted);
            arg = redacted;
        }
        fprintf(f, strchr(arg, ' ') ? " '%s'" : " %s", arg);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* " (2 stored in the cache; 39 could not be stored: No space left on
 * device)": what became of the cache entries of a number of builds, the
 * parts that are not 0, but the stored count wherever any was to be
 * stored: "0 stored" is said, not left out. */
static void print_entries(const cache_entries *e)
{
    const char *sep = " (";
    if (e->stored || e->not_stored) {
        printf("%s%llu stored in the cache", sep, (unsigned long long)e->stored);
        sep = "; ";
    }
    if (e->found) {
        printf("%s%llu already in the cache", sep, (unsigned long long)e->found);
        sep = "; ";
    }
    if (e->not_stored)
        printf("%s%llu could not be stored: %s", sep, (unsigned long long)e->not_stored,
               e->first_reason);
    printf(")");
}

static uint64_t entries_told(const cache_entries *e)
{
    return e->found + e->stored + e->not_stored;
}


/* What a campaign of twice the length would be expected to gain, so that
 * the user can judge whether to run it longer (gain_estimate.h). */
static void print_stop_advice(const tuning_loop_result *r)
{
    if (!r->have_gain) {
        if (r->evaluated)
            printf("more evaluations: no estimate of their gain yet (fewer than %d passed)\n",
                   GAIN_MIN_PASSED);
        return;
    }
    if (r->gain_more == 0) {
        printf("more evaluations: none left in the space\n");
        return;
    }
    printf("more evaluations: %llu more expected to lower the best time by %.3g %%\n",
           (unsigned long long)r->gain_more, 100 * r->expected_gain);
}
void run_print_confirmation(const confirmation_outcome *c)
{
    if (!c->confirmed) {
        if (c->skipped[0]) printf("confirmed: no (%s)\n", c->skipped);
        return;
    }
    printf("confirmed: the best %u timed again in %u interleaved rounds", c->top, c->rounds);
    if (c->failed_visits) printf(" (%u visits failed)", c->failed_visits);
    if (!c->has_winner) {
        printf(": none passed every visit, no winner\n");
        return;
    }
    char winner[32], before[32];
    format_duration_ns(c->winner_confirmed_ns, winner, sizeof winner);
    if (!c->changed) {
        terminal_printf(": the winner stands, %s (median %s)\n", c->winner, winner);
        return;
    }
    terminal_printf(": a new winner, %s (median %s)\n", c->winner, winner);
    if (c->campaign_best_confirmed_ns > 0) {
        format_duration_ns(c->campaign_best_confirmed_ns, before, sizeof before);
        /* A percentage, not a ratio: the change is often under 1 %, which a
         * ratio to three digits prints as "1× as fast". */
        terminal_printf("  the campaign's best, %s, confirmed at %s: the new winner is %.3g %% "
                        "faster\n",
                        c->campaign_best, before,
                        100 * (c->campaign_best_confirmed_ns / c->winner_confirmed_ns - 1));
    } else {
        terminal_printf("  the campaign's best, %s, failed a visit\n", c->campaign_best);
    }
}

int run_print_outcome(const tuning_outcome *out, const char *label, const char *db_path)
{
    const tuning_loop_result *r = &out->result;
    if (label) terminal_printf("[%s] ", label);
    printf("campaign %lld: %s after %llu %s (%llu measured, %llu from the database) in %.1f s\n",
           (long long)out->campaign_id, tuning_loop_stop_name(r->stop),
           (unsigned long long)r->evaluated, configurations(r->evaluated),
           (unsigned long long)r->measured, (unsigned long long)r->reused, r->wall_s);
    if (db_path) print_database(db_path);
    printf("  status:");
    for (int s = 0; s < MEAS_STATUS_COUNT; s++)
        if (r->by_status[s]) printf(" %s %llu", measurement_status_name(s), (unsigned long long)r->by_status[s]);
    const supervisor_stats *sv = &out->supervision;
    if (sv->crashes || sv->timeouts || sv->health_checks)
        printf("\n  workers: %llu crashed, %llu timed out, %llu restarted; %llu health checks, %llu "
               "failed",
               (unsigned long long)sv->crashes, (unsigned long long)sv->timeouts,
               (unsigned long long)sv->restarts, (unsigned long long)sv->health_checks,
               (unsigned long long)sv->health_failures);
    if (sv->confirmations)
        printf("\n  failures measured again in a fresh worker: %llu (%llu of them an earlier "
               "configuration's damage, recorded as the fresh worker found them)",
               (unsigned long long)sv->confirmations, (unsigned long long)sv->damaged);
    if (sv->compiled_ahead) {
        printf("\n  compiled ahead by the compile workers: %llu",
               (unsigned long long)sv->compiled_ahead);
        if (entries_told(&sv->ahead_entries)) print_entries(&sv->ahead_entries);
    }
    if (sv->early_runs)
        printf("\n  timed while the configuration before was compared: %llu",
               (unsigned long long)sv->early_runs);
    /* The programs built to measure are said only when some could not be
     * stored: otherwise the cache did what it is there for. */
    const cache_entries *measuring = &out->measuring_entries;
    if (measuring->not_stored) {
        printf("\n  built for measuring: %llu", (unsigned long long)entries_told(measuring));
        print_entries(measuring);
    }
    /* Said only where some were: a plugin without device_outputs, a CPU
     * device or --compare host compare on the host, as before. */
    if (r->compared_on_device)
        printf("\n  outputs compared on the device: %llu of the %llu measured (--compare)",
               (unsigned long long)r->compared_on_device, (unsigned long long)r->measured);
    if (r->racing && r->measured) {
        if (r->raced)
            printf("\n  raced: %llu %s stopped early (slower than the best %d by more than "
                   "%.0f %%)",
                   (unsigned long long)r->raced, configurations(r->raced), RACE_BEST,
                   100 * r->race_margin);
        else if (r->race_margin > 0)
            printf("\n  raced: none stopped early (racing on: slower than the best %d by more "
                   "than %.0f %% stops; --no-race turns it off)",
                   RACE_BEST, 100 * r->race_margin);
        else
            printf("\n  raced: none stopped early (racing on, from the %dth configuration "
                   "that passes)",
                   RACE_BEST + 1);
    }
    printf("\n  time: %sbuild %.1f s, verification %.1f s, timed runs %.1f s; engine %.2f s\n",
           r->replayed ? "recorded on the device: " : "", r->build_s, r->verify_s, r->bench_s,
           r->overhead_s);
    if (r->have_best) {
        char best[32];
        format_duration_ns(r->best_ns, best, sizeof best);
        terminal_printf("best: %s  (%s", out->best_text, best);
        if (r->best_gflops > 0) printf(", %.2f GFLOP/s", r->best_gflops);
        printf(")\n");
    } else {
        printf("best: none — no configuration passed verification\n");
    }
    print_stop_advice(r);
    run_print_confirmation(&out->confirmation);
    if (r->stop == TUNING_LOOP_INTERRUPTED) {
        printf("interrupted: run the same command again to continue\n");
        return EXIT_INTERRUPTED;
    }
    return EXIT_OK;
}

