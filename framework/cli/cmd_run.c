#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "strategy.h"
#include "tuning_run.h"

/* Set once SIGINT or SIGTERM arrives; the campaign loop checks it between
 * configurations. The one piece of global state, and it belongs to the CLI. */
static volatile sig_atomic_t stop_requested;

/* Signals are blocked in every thread and received here with sigwait, so no
 * library's own handler runs: an OpenCL compiler that catches SIGINT would
 * otherwise abort the build in flight, and that configuration would be
 * recorded as a false compile failure. A second signal ends the process at
 * once; the store's transactions keep the database consistent either way. */
static void *receive_stop_signals(void *arg)
{
    sigset_t *signals = arg;
    int signo;
    if (sigwait(signals, &signo) != 0) return NULL;
    stop_requested = 1;
    static const char notice[] =
        "\nskytune: stopping after the configuration in flight (again to stop at once)\n";
    if (write(STDERR_FILENO, notice, sizeof notice - 1) < 0) { /* nothing to do */ }
    if (sigwait(signals, &signo) != 0) return NULL;
    _exit(EXIT_INTERRUPTED);
}

static const cli_option options[] = {
    {"plugin", "NAME", false, "plugin name or path to its .so (required unless --replay)"},
    {"replay", "FILE", false, "a recorded dataset stands in for the device: Kernel Tuner cache, T4 results (.gz or plain) or skytune database[:CAMPAIGN]"},
    {"space", "FILE", false, "T1 file: the space of a --replay run, or a narrowing of a plugin's space; with --replay, 'recorded' is the configurations the dataset holds"},
    {"plugin-dir", "DIR", true, "search DIR for plugins first"},
    {"preset", "NAME", false, "problem preset of the plugin (see skytune plugins show NAME)"},
    {"set", "NAME=VALUE", true, "set a problem parameter"},
    {"restrict", "EXPR", true, "only configurations where EXPR holds, e.g. 'wg_x * wg_y <= 256'"},
    {"only", "NAME=V1,V2", true, "only these values of a tuning parameter"},
    {"strategy", "NAME", false, "search strategy (see below; default: the one docs/strategies.md recommends)"},
    {"strategy-opt", "KEY=VALUE", true, "option of the strategy"},
    {"budget", "N", false, "stop after N distinct configurations (default: no limit)"},
    {"time-limit", "DURATION", false, "stop after this long, e.g. 90s, 15m, 8h"},
    {"target", "VALUE", false, "stop once a configuration reaches a time (e.g. 2.5ms) or GFLOP/s (e.g. 150gflops)"},
    {"runs", "N", false, "timed runs per configuration (default 10)"},
    {"seed", "N", false, "seed for the strategy and the inputs (default 1)"},
    {"device", "SEL", false, "OpenCL device: PLATFORM:DEVICE or part of its name (default: first GPU, else first device)"},
    {"devices", "all|LIST", false, "one campaign per device at once: every device, or a comma-separated list of --device selectors"},
    {"db", "FILE", false, "result database (default skytune.db)"},
    {"quiet", NULL, false, "no progress output"},
    {"timeout-floor", "DURATION", false, "watchdog: a configuration may take this long after its build, plus --timeout-factor times the slowest ok one so far (default 10s)"},
    {"timeout-factor", "X", false, "watchdog: multiple of the slowest ok configuration's verify and timed runs (default 10)"},
    {"timeout-cap", "DURATION", false, "watchdog: never more than this per configuration, nor for a worker's set-up (default 10m)"},
    {"compile-timeout", "DURATION", false, "watchdog: limit of the build stage (default 5m)"},
    {"stop-grace", "DURATION", false, "after Ctrl-C, how long the configuration in flight may take before its worker is killed (default 3s)"},
    {"retry-failed", NULL, false, "measure configurations that failed before again (by default a failure is never retried on the same device, driver and plugin build)"},
    {"compile-jobs", "N", false, "compile worker processes building ahead of the device (default: the cores but two on a GPU, half of them on a CPU device; 0: none)"},
    {"measure-ahead", "N", false, "spare measuring workers that load the next configurations while the device times one (default 4 on a GPU, 0 on a CPU device)"},
    {"cache-dir", "DIR", false, "binary cache directory (default $SKYTUNE_CACHE_DIR, else ~/.cache/skytune/binaries)"},
    {"cache-limit", "SIZE", false, "binary cache size limit, least recently used entries go first, e.g. 500M, 4G (default 1G)"},
    {"no-cache", NULL, false, "compile every configuration from source, keep no binaries (also no compile workers)"},
    {"health-threshold", "FRACTION", false, "after a fault, the best configuration is re-timed; a drift past this marks the device degraded (default 0.25)"},
    {"no-isolation", NULL, false, "measure in this process, without a supervised worker (for debugging a plugin: a crash ends the run)"},
};

/* A worker is this same executable, started again. */
static char *own_executable(void)
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
        cli_error("--%s '%s' is not a positive number (e.g. 0.25)", option, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_positive_duration(const char *option, const char *text, double *out)
{
    if (cli_parse_duration(option, text, out) != 0) return -1;
    if (!(*out > 0)) {
        cli_error("--%s must be longer than 0, got '%s'", option, text);
        return -1;
    }
    return 0;
}

/* A size in bytes with an optional K, M or G (powers of 1024). */
static int parse_size(const char *option, const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    uint64_t unit = 1;
    if (*end == 'K' || *end == 'k') unit = 1ull << 10;
    else if (*end == 'M' || *end == 'm') unit = 1ull << 20;
    else if (*end == 'G' || *end == 'g') unit = 1ull << 30;
    if (unit != 1) end++;
    if (end == text || *end || errno || text[0] == '-' || v == 0 || v > UINT64_MAX / unit) {
        cli_error("--%s '%s' is not a size (a positive number of bytes, or with K, M or G)",
                  option, text);
        return -1;
    }
    *out = (uint64_t)v * unit;
    return 0;
}

/* The isolation and compiling options, into the request. */
static int parse_supervision(const cli_args *args, tuning_request *rq)
{
    supervisor_limits_default(&rq->watchdog);
    supervisor_health_default(&rq->health);
    rq->compile_jobs = -1;
    rq->measure_ahead = -1;
    const char *text;
    if ((text = cli_get(args, "timeout-floor")) &&
        parse_positive_duration("timeout-floor", text, &rq->watchdog.floor_s) != 0)
        return -1;
    if ((text = cli_get(args, "timeout-factor"))) {
        char *end;
        rq->watchdog.factor = strtod(text, &end);
        if (end == text || *end || !(rq->watchdog.factor >= 0) || !isfinite(rq->watchdog.factor)) {
            cli_error("--timeout-factor '%s' is not a number >= 0", text);
            return -1;
        }
    }
    if ((text = cli_get(args, "timeout-cap")) &&
        parse_positive_duration("timeout-cap", text, &rq->watchdog.cap_s) != 0)
        return -1;
    if ((text = cli_get(args, "compile-timeout")) &&
        parse_positive_duration("compile-timeout", text, &rq->watchdog.compile_s) != 0)
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
    rq->retry_failed = cli_flag(args, "retry-failed");
    rq->no_cache = cli_flag(args, "no-cache");
    rq->cache_dir = cli_get(args, "cache-dir");
    if ((text = cli_get(args, "cache-limit")) && parse_size("cache-limit", text, &rq->cache_max_bytes) != 0)
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

static int parse_target(const char *text, campaign_limits *limits)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v > 0)) goto bad;
    if (strcmp(end, "gflops") == 0 || strcmp(end, "GFLOPS") == 0 || strcmp(end, "GFLOP/s") == 0)
        limits->target_gflops = v;
    else if (strcmp(end, "ns") == 0)
        limits->target_ns = v;
    else if (strcmp(end, "us") == 0 || strcmp(end, "µs") == 0)
        limits->target_ns = v * 1e3;
    else if (strcmp(end, "ms") == 0)
        limits->target_ns = v * 1e6;
    else if (strcmp(end, "s") == 0)
        limits->target_ns = v * 1e9;
    else
        goto bad;
    return 0;
bad:
    cli_error("--target '%s' is not a time (e.g. 2.5ms, 800us) or a throughput (e.g. 150gflops)",
              text);
    return -1;
}

static void print_start(void *ctx, const tuning_started *s)
{
    progress *p = ctx;
    if (p->quiet) return;
    fprintf(stdout, "%s campaign %lld: %s %s on %s (%s)\n  problem %s\n  strategy %s over %llu "
                    "valid configurations\n",
            s->resumed ? "continuing" : "starting", (long long)s->campaign_id, s->plugin,
            s->plugin_version, s->device, s->platform, s->problem_text, s->strategy,
            (unsigned long long)s->space_count);
    if (!strcmp(s->platform, "replay")) {
        fflush(stdout);
        return;
    }
    printf("  measured %s (%u spare%s); %u compile worker%s; binary cache %s\n",
           s->isolated ? "in a supervised worker" : "in this process (--no-isolation)",
           s->measure_ahead, s->measure_ahead == 1 ? "" : "s",
           s->compile_jobs, s->compile_jobs == 1 ? "" : "s",
           s->cache_dir ? s->cache_dir : "off");
    fflush(stdout);
}

static void print_strategies(void)
{
    size_t n;
    const strategy_ops *const *all = strategy_registry(&n);
    printf("\nstrategies (--strategy NAME, options with --strategy-opt KEY=VALUE):\n");
    for (size_t k = 0; k < n; k++) {
        printf("  %-14s %s%s\n", all[k]->name, all[k]->summary,
               strcmp(all[k]->name, strategy_default_name()) == 0 ? " (default)" : "");
        for (const strategy_option *o = all[k]->options; o && o->name; o++)
            printf("  %-14s   %s=%s: %s\n", "", o->name, o->default_value, o->help);
    }
}

static char *join_command(int argc, char **argv)
{
    size_t len = strlen("skytune run") + 1;
    for (int k = 0; k < argc; k++) len += strlen(argv[k]) + 3;
    char *text = malloc(len);
    if (!text) return NULL;
    strcpy(text, "skytune run");
    for (int k = 0; k < argc; k++) {
        strcat(text, strchr(argv[k], ' ') ? " '" : " ");
        strcat(text, argv[k]);
        if (strchr(argv[k], ' ')) strcat(text, "'");
    }
    return text;
}

/* The summary of one campaign; returns its exit status. */
static int print_outcome(const tuning_outcome *out, const char *label)
{
    const campaign_result *r = &out->result;
    if (label) printf("[%s] ", label);
    printf("campaign %lld: %s after %llu configurations (%llu measured, %llu from the database) "
           "in %.1f s\n",
           (long long)out->campaign_id, campaign_stop_name(r->stop),
           (unsigned long long)r->evaluated, (unsigned long long)r->measured,
           (unsigned long long)r->reused, r->wall_s);
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
    if (sv->compiled_ahead)
        printf("\n  compiled ahead by the compile workers: %llu", (unsigned long long)sv->compiled_ahead);
    printf("\n  time: %sbuild %.1f s, verification %.1f s, timed runs %.1f s; engine %.2f s\n",
           r->replayed ? "recorded on the device: " : "", r->build_s, r->verify_s, r->bench_s,
           r->overhead_s);
    if (r->have_best) {
        char best[32];
        format_duration_ns(r->best_ns, best, sizeof best);
        printf("best: %s  (%s", out->best_text, best);
        if (r->best_gflops > 0) printf(", %.2f GFLOP/s", r->best_gflops);
        printf(")\n");
    } else {
        printf("best: none — no configuration passed verification\n");
    }
    if (r->stop == CAMPAIGN_INTERRUPTED) {
        printf("interrupted: run the same command again to continue\n");
        return EXIT_INTERRUPTED;
    }
    return EXIT_OK;
}

static int run_one(const tuning_request *rq, progress *prog)
{
    tuning_outcome out;
    skytune_error err;
    int rc = tuning_run(rq, print_start, prog, &out, &err);
    progress_finish(prog);
    if (rc != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    return print_outcome(&out, NULL);
}

/* --devices: every device's summary; the worst exit status of them. */
static int run_devices(const tuning_request *rq, const char *devices, progress *prog)
{
    tuning_device_outcome *outcomes;
    size_t n;
    skytune_error err;
    prog->terminal = false; /* one bar cannot show several campaigns: a line each */
    if (tuning_run_devices(rq, devices, print_start, prog, &outcomes, &n, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    int status = EXIT_OK;
    for (size_t k = 0; k < n; k++) {
        int one;
        if (outcomes[k].status != 0) {
            cli_error("[%s] %s", outcomes[k].device, outcomes[k].error.message);
            one = EXIT_FAILED;
        } else {
            one = print_outcome(&outcomes[k].outcome, outcomes[k].device);
        }
        if (one == EXIT_FAILED || (one == EXIT_INTERRUPTED && status == EXIT_OK)) status = one;
    }
    free(outcomes);
    return status;
}

int cmd_run(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("run",
                       "Tune a kernel plugin: search its configuration space with a strategy, "
                       "measure every configuration on an OpenCL device (verified against the "
                       "plugin's CPU reference), and record every measurement in a SQLite "
                       "database. Running the same command again continues where it stopped.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc < 0) print_strategies();
    if (rc) return rc < 0 ? EXIT_OK : rc;
    tuning_request rq = {0};
    rq.plugin = cli_get(&args, "plugin");
    rq.replay = cli_get(&args, "replay");
    rq.space_file = cli_get(&args, "space");
    if (!rq.plugin && !rq.replay) {
        cli_error("run: --plugin NAME (see skytune plugins) or --replay FILE is required");
        return EXIT_USAGE;
    }
    rq.search.n_dirs = cli_all(&args, "plugin-dir", &rq.search.dirs);
    rq.preset = cli_get(&args, "preset");
    rq.n_sets = cli_all(&args, "set", &rq.sets);
    rq.n_restricts = cli_all(&args, "restrict", &rq.restricts);
    rq.n_only = cli_all(&args, "only", &rq.only);
    rq.strategy = cli_get(&args, "strategy");
    rq.n_strategy_opts = cli_all(&args, "strategy-opt", &rq.strategy_opts);
    rq.device = cli_get(&args, "device");
    rq.db_path = cli_get(&args, "db") ? cli_get(&args, "db") : "skytune.db";
    unsigned long long number;
    const char *text;
    if ((text = cli_get(&args, "budget"))) {
        if (cli_parse_u64("budget", text, &number) != 0) return EXIT_USAGE;
        if (number == 0) {
            cli_error("--budget must be at least 1");
            return EXIT_USAGE;
        }
        rq.limits.max_evaluations = number;
    }
    if ((text = cli_get(&args, "time-limit")) &&
        cli_parse_duration("time-limit", text, &rq.limits.time_limit_s) != 0)
        return EXIT_USAGE;
    if ((text = cli_get(&args, "target")) && parse_target(text, &rq.limits) != 0) return EXIT_USAGE;
    rq.runs = 10;
    if ((text = cli_get(&args, "runs"))) {
        if (cli_parse_u64("runs", text, &number) != 0) return EXIT_USAGE;
        if (number < 1 || number > 100000) {
            cli_error("--runs must be between 1 and 100000, got %llu", number);
            return EXIT_USAGE;
        }
        rq.runs = (unsigned)number;
    }
    rq.seed = 1;
    if ((text = cli_get(&args, "seed"))) {
        if (cli_parse_u64("seed", text, &number) != 0) return EXIT_USAGE;
        rq.seed = number;
    }

    if (parse_supervision(&args, &rq) != 0) return EXIT_USAGE;
    char *worker_exe = NULL;
    if (!cli_flag(&args, "no-isolation") && !rq.replay) {
        worker_exe = own_executable();
        if (!worker_exe) {
            cli_error("run: cannot find this executable to start workers (/proc/self/exe); "
                      "--no-isolation measures in this process");
            return EXIT_FAILED;
        }
    }
    rq.worker_exe = worker_exe;

    progress prog;
    progress_init(&prog, stdout, cli_flag(&args, "quiet"));
    rq.on_notice = progress_notice;
    rq.notice_ctx = &prog;
    rq.on_event = progress_event;
    rq.event_ctx = &prog;
    rq.stop_requested = &stop_requested;
    char *command = join_command(argc, argv);
    rq.command = command;

    /* Blocked before any OpenCL thread exists, so every thread inherits it. */
    static sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_t receiver;
    if (pthread_sigmask(SIG_BLOCK, &stop_signals, NULL) != 0 ||
        pthread_create(&receiver, NULL, receive_stop_signals, &stop_signals) != 0) {
        cli_error("run: cannot set up Ctrl-C handling");
        free(command);
        free(worker_exe);
        return EXIT_FAILED;
    }
    pthread_detach(receiver);

    const char *devices = cli_get(&args, "devices");
    int status = devices ? run_devices(&rq, devices, &prog) : run_one(&rq, &prog);
    free(command);
    free(worker_exe);
    return status;
}
