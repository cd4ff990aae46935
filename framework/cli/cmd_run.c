#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "input_limits.h"
#include "progress.h"
#include "run_common.h"
#include "stop_signals.h"
#include "notify_command.h"
#include "quantity.h"
#include "quote.h"
#include "strategy.h"
#include "t1_plugin.h"
#include "device_campaigns.h"
#include "tuning_run.h"

static const cli_option options[] = {
    {"plugin", "NAME", false, "plugin name or path to its .so (required unless --t1 or --replay)"},
    {"t1", "FILE", false, "tune the OpenCL kernel a T1 file describes (its KernelSpecification), without writing a plugin; see docs/t1.md"},
    {"replay", "FILE", false, "a recorded dataset stands in for the device: Kernel Tuner cache, T4 results (.gz or plain) or skytune database[:CAMPAIGN]"},
    {"space", "FILE", false, "T1 file: the space of a --replay run, or a narrowing of a plugin's space; with --replay, 'recorded' is the configurations the dataset holds"},
    {"plugin-dir", "DIR", true, "search DIR for plugins first"},
    {"preset", "NAME", false, "problem preset of the plugin (see skytune plugins show NAME)"},
    {"set", "NAME=VALUE", true, "set a problem parameter"},
    {"restrict", "EXPR", true, "only configurations where EXPR holds, e.g. 'wg_x * wg_y <= 256'"},
    {"only", "NAME=V1,V2", true, "only these values of a tuning parameter"},
    {"strategy", "NAME", false, "search strategy (see below; default: the one docs/strategies.md recommends)"},
    {"strategy-opt", "KEY=VALUE", true, "option of the strategy"},
    {"warm-start", "FILE", true, "seed the strategy (bayes) with this space's measurements on other devices: a skytune database[:CAMPAIGN], Kernel Tuner cache or T4 results; their ranks, not their times, count"},
    {"budget", "N", false, "stop after N distinct configurations of the campaign (default: no limit); a larger one on a rerun extends the campaign"},
    {"time-limit", "DURATION", false, "stop after this long, e.g. 90s, 15m, 8h"},
    {"target", "VALUE", false, "stop once a configuration reaches a time (e.g. 2.5ms) or GFLOP/s (e.g. 150gflops)"},
    {"stop-when-gain-below", "FRACTION", false, "stop once a campaign twice as long is expected to lower the best time by less than this, e.g. 0.01 or 1% (docs/reports.md, stop advice)"},
    {"runs", "N", false, "timed runs per configuration (default 10)"},
    {"warm-up", "N", false, "untimed runs before the timed ones, besides the verification run, which is the kernel's first launch and the warm-up by default (default 0)"},
    {"compare", "WHERE", false, "where outputs are compared with the reference: device (a kernel compares them where they are and reads back a summary; needs the plugin's device_outputs and double precision), host (read back and compared by the plugin's verify), or auto (default: device on GPUs, host on CPU devices); the verdicts are the same"},
    {"transfers", NULL, false, "also time the plugin's host-to-device and device-to-host copies of its inputs and outputs, each a labelled part of every run (a campaign of its own; default: the kernels alone)"},
    {"seed", "N", false, "seed for the strategy and the inputs (default 1)"},
    {"device", "SEL", false, "OpenCL device: PLATFORM:DEVICE, part of its name, or its platform's or vendor's short name as skytune devices shows it: pocl, nvidia, amd, intel (default: first GPU, else first device)"},
    {"devices", "all|LIST", false, "one campaign per device at once: every device, or a comma-separated list of --device selectors"},
    {"db", "FILE", false, "result database (default skytune.db)"},
    {"quiet", NULL, false, "no progress output"},
    {"trace", "FILE", false, "write the campaign's pipeline (every configuration's stages on every worker, and the engine's steps) as Chrome trace events to FILE, for Perfetto (ui.perfetto.dev) or chrome://tracing"},
    INPUT_LIMIT_OPTIONS,
    RUN_NOTIFY_OPTIONS,
};

/* Room for the plugin loader's name of a T1 file: T1_PLUGIN_PREFIX and the
 * file's path. */
#define T1_PLUGIN_NAME_BYTES 4096

static int parse_target(const char *text, tuning_loop_limits *limits)
{
    if (quantity_target(text, &limits->target_ns, &limits->target_gflops) == 0) return 0;
    char shown[QUOTE_TEXT];
    cli_error("--target '%s' is not " QUANTITY_TARGET_HELP, quote_text(text, shown, sizeof shown));
    return -1;
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

static int run_one(const tuning_request *rq, run_observers *obs)
{
    tuning_outcome out;
    skytune_error err;
    int rc = tuning_run(rq, run_observe_start, obs, &out, &err);
    progress_finish(obs->progress);
    if (obs->notify) {
        notify_run_instance_done(obs->notify, NULL, &out, rc != 0 ? err.message : NULL);
        notify_run_finish(obs->notify, NULL, rc != 0 ? err.message : NULL);
    }
    if (rc != 0) {
        cli_error("%s", err.message);
        if (!*rq->stop_requested) return EXIT_FAILED;
        /* Ctrl-C before the campaign began, while the space was being
         * built: the database was not opened. */
        printf("interrupted before the campaign began: nothing was recorded\n");
        return EXIT_INTERRUPTED;
    }
    return run_print_outcome(&out, NULL, rq->db_path);
}

/* --devices: every device's summary; the worst exit status of them. */
static int run_devices(const tuning_request *rq, const char *devices, run_observers *obs)
{
    tuning_device_outcome *outcomes;
    size_t n;
    skytune_error err;
    obs->progress->terminal = false; /* one bar cannot show several campaigns: a line each */
    if (tuning_run_devices(rq, devices, run_observe_start, obs, &outcomes, &n, &err) != 0) {
        if (obs->notify) notify_run_finish(obs->notify, NULL, err.message);
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    if (obs->notify) {
        for (size_t k = 0; k < n; k++)
            notify_run_instance_done(obs->notify, outcomes[k].label, &outcomes[k].outcome,
                                            outcomes[k].status != 0 ? outcomes[k].error.message
                                                                    : NULL);
        notify_run_finish(obs->notify, NULL, NULL);
    }
    int status = EXIT_OK;
    for (size_t k = 0; k < n; k++) {
        int one;
        if (outcomes[k].status != 0) {
            cli_error("[%s] %s", outcomes[k].device, outcomes[k].error.message);
            /* Stopped while its space was being built, as run_one says. */
            one = *rq->stop_requested ? EXIT_INTERRUPTED : EXIT_FAILED;
            if (one == EXIT_INTERRUPTED)
                printf("[%s] interrupted before the campaign began: nothing was recorded\n",
                       outcomes[k].device);
        } else {
            one = run_print_outcome(&outcomes[k].outcome, outcomes[k].device, rq->db_path);
        }
        if (one == EXIT_FAILED || (one == EXIT_INTERRUPTED && status == EXIT_OK)) status = one;
    }
    free(outcomes);
    return status;
}

/* What is tuned: --plugin, a T1 file as the plugin (named in t1_plugin,
 * 4096 bytes), or --replay. EXIT_OK or EXIT_USAGE. */
static int parse_kernel(const cli_args *args, tuning_request *rq, char *t1_plugin)
{
    rq->plugin = cli_get(args, "plugin");
    rq->replay = cli_get(args, "replay");
    rq->space_file = cli_get(args, "space");
    if (cli_get(args, "t1")) {
        if (rq->plugin) {
            cli_error("run: --t1 FILE is the plugin: give --t1 or --plugin, not both");
            return EXIT_USAGE;
        }
        /* The plugin loader's name for a T1 file, whatever the file's name. */
        if ((size_t)snprintf(t1_plugin, T1_PLUGIN_NAME_BYTES, T1_PLUGIN_PREFIX "%s",
                             cli_get(args, "t1")) >= T1_PLUGIN_NAME_BYTES) {
            cli_error("run: --t1: the file name is too long");
            return EXIT_USAGE;
        }
        rq->plugin = t1_plugin;
    }
    if (!rq->plugin && !rq->replay) {
        cli_error("run: --plugin NAME (see skytune plugins), --t1 FILE or --replay FILE is "
                  "required");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int parse_gain_below(const char *text, double *fraction)
{
    if (quantity_fraction(text, fraction) == 0) return 0;
    char shown[QUOTE_TEXT];
    cli_error("--stop-when-gain-below '%s' is not %s", quote_text(text, shown, sizeof shown),
              QUANTITY_FRACTION_HELP);
    return -1;
}

static int parse_compare(const char *text, measurer_compare *compare)
{
    static const struct {
        const char *name;
        measurer_compare value;
    } places[] = {{"auto", COMPARE_AUTO}, {"device", COMPARE_DEVICE}, {"host", COMPARE_HOST}};
    for (size_t k = 0; k < sizeof places / sizeof places[0]; k++)
        if (strcmp(text, places[k].name) == 0) {
            *compare = places[k].value;
            return 0;
        }
    char shown[QUOTE_TEXT];
    cli_error("--compare '%s' is not a place to compare outputs: auto, device or host",
              quote_text(text, shown, sizeof shown));
    return -1;
}

/* --budget, --time-limit, --target, --runs and --seed: EXIT_OK or
 * EXIT_USAGE. */
static int parse_limits(const cli_args *args, tuning_request *rq)
{
    unsigned long long number;
    const char *text;
    if ((text = cli_get(args, "budget"))) {
        if (cli_parse_u64("budget", text, &number) != 0) return EXIT_USAGE;
        if (number == 0) {
            cli_error("--budget must be at least 1");
            return EXIT_USAGE;
        }
        rq->limits.max_evaluations = number;
    }
    if ((text = cli_get(args, "time-limit")) &&
        run_parse_positive_duration("time-limit", text, &rq->limits.time_limit_s) != 0)
        return EXIT_USAGE;
    if ((text = cli_get(args, "target")) && parse_target(text, &rq->limits) != 0) return EXIT_USAGE;
    if ((text = cli_get(args, "stop-when-gain-below")) &&
        parse_gain_below(text, &rq->limits.gain_below) != 0)
        return EXIT_USAGE;
    rq->runs = 10;
    if ((text = cli_get(args, "runs"))) {
        if (cli_parse_u64("runs", text, &number) != 0) return EXIT_USAGE;
        if (number < 1 || number > 100000) {
            cli_error("--runs must be between 1 and 100000, got %llu", number);
            return EXIT_USAGE;
        }
        rq->runs = (unsigned)number;
    }
    if ((text = cli_get(args, "warm-up"))) {
        if (cli_parse_u64("warm-up", text, &number) != 0) return EXIT_USAGE;
        if (number > 1000) {
            cli_error("--warm-up must be between 0 and 1000, got %llu", number);
            return EXIT_USAGE;
        }
        rq->warm_up_runs = (unsigned)number;
    }
    rq->transfers = cli_flag(args, "transfers");
    if ((text = cli_get(args, "compare")) && parse_compare(text, &rq->compare) != 0)
        return EXIT_USAGE;
    rq->seed = 1;
    if ((text = cli_get(args, "seed"))) {
        if (cli_parse_u64("seed", text, &number) != 0) return EXIT_USAGE;
        rq->seed = number;
    }
    return EXIT_OK;
}

/* The request from the command line, but for its observers and the
 * command's own text. *worker_exe: this executable, which the workers run
 * (malloc'd; NULL without isolation). */
static int parse_request(const cli_args *args, tuning_request *rq, char *t1_plugin,
                         char **worker_exe)
{
    *worker_exe = NULL;
    int rc = parse_kernel(args, rq, t1_plugin);
    if (rc != EXIT_OK) return rc;
    rq->search.n_dirs = cli_all(args, "plugin-dir", &rq->search.dirs);
    rq->preset = cli_get(args, "preset");
    rq->n_sets = cli_all(args, "set", &rq->sets);
    rq->n_restricts = cli_all(args, "restrict", &rq->restricts);
    rq->n_only = cli_all(args, "only", &rq->only);
    rq->strategy = cli_get(args, "strategy");
    rq->n_strategy_opts = cli_all(args, "strategy-opt", &rq->strategy_opts);
    rq->n_warm_start = cli_all(args, "warm-start", &rq->warm_start);
    rq->device = cli_get(args, "device");
    rq->db_path = cli_get(args, "db") ? cli_get(args, "db") : "skytune.db";
    rq->trace_path = cli_get(args, "trace");
    if (rq->trace_path && cli_get(args, "devices")) {
        cli_error("--trace traces one campaign; with --devices, run one device at a time with "
                  "--device and a trace file each");
        return EXIT_USAGE;
    }
    if (parse_limits(args, rq) != EXIT_OK || run_parse_supervision(args, rq) != 0)
        return EXIT_USAGE;
    input_limits limits;
    if (input_limits_parse(args, &limits) != 0) return EXIT_USAGE;
    rq->space_work_limit = limits.space_work_limit;
    rq->max_json_bytes = limits.max_json_bytes;
    if (!cli_flag(args, "no-isolation") && !rq->replay) {
        *worker_exe = run_own_executable();
        if (!*worker_exe) {
            cli_error("run: cannot find this executable to start workers (/proc/self/exe); "
                      "--no-isolation measures in this process");
            return EXIT_FAILED;
        }
    }
    rq->worker_exe = *worker_exe;
    return EXIT_OK;
}

/* The progress display and the notifications hear of the run. */
static void observe(tuning_request *rq, progress *prog, run_observers *observers)
{
    rq->on_notice = progress_notice;
    rq->notice_ctx = prog;
    rq->on_event = run_observe_event;
    rq->event_ctx = observers;
    rq->on_space_progress = progress_space;
    rq->space_progress_ctx = prog;
    rq->on_activity = progress_activity;
    rq->activity_ctx = prog;
}

int cmd_run(int argc, char **argv)
{
    cli_args args;
    cli_option all_options[CLI_MAX_OPTIONS];
    size_t n_options = run_options_with_supervision(options, sizeof options / sizeof options[0],
                                                    all_options);
    int rc = cli_parse("run",
                       "Tune a kernel plugin: search its configuration space with a strategy, "
                       "measure every configuration on an OpenCL device (verified against the "
                       "plugin's CPU reference), and record every measurement in a SQLite "
                       "database. Running the same command again continues where it stopped.",
                       all_options, n_options, 0, NULL, argc, argv, &args);
    if (rc < 0) print_strategies();
    if (rc) return rc < 0 ? EXIT_OK : rc;
    tuning_request rq = {0};
    char t1_plugin[T1_PLUGIN_NAME_BYTES];
    char *worker_exe;
    if ((rc = parse_request(&args, &rq, t1_plugin, &worker_exe)) != EXIT_OK) return rc;

    char *command = run_join_command("run", argc, argv);
    if (!command) {
        cli_error("run: out of memory");
        free(worker_exe);
        return EXIT_FAILED;
    }
    rq.command = command;
    const char *devices = cli_get(&args, "devices");
    /* Received from here on; main blocked them before anything started. */
    rq.stop_requested = stop_signals_receive("run", rq.watchdog.stop_grace_s);
    if (!rq.stop_requested) {
        free(command);
        free(worker_exe);
        return EXIT_FAILED;
    }
    notify_command_settings notify_settings;
    notify_command notify;
    if ((rc = notify_command_settings_from_args(&args, NULL, &notify_settings)) != EXIT_OK ||
        (rc = notify_command_open(&notify_settings, command, rq.db_path, devices ? 0 : 1, &notify)) !=
            EXIT_OK) {
        stop_signals_release();
        free(command);
        free(worker_exe);
        return rc;
    }
    progress prog;
    progress_init(&prog, stdout, cli_flag(&args, "quiet"));
    run_observers observers = {.progress = &prog, .notify = notify.events};
    observe(&rq, &prog, &observers);
    prog.stop_requested = rq.stop_requested;
    int status = devices ? run_devices(&rq, devices, &observers) : run_one(&rq, &observers);
    /* The final notification goes out (or is given up) before the exit. */
    notify_command_close(&notify);
    stop_signals_release();
    free(command);
    free(worker_exe);
    return status == EXIT_INTERRUPTED ? stop_signals_exit_status() : status;
}
