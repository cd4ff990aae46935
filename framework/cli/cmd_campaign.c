#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign_check.h"
#include "campaign_cross.h"
#include "campaign_file.h"
#include "campaign_plan.h"
#include "campaign_sweep.h"
#include "cli.h"
#include "db_open.h"
#include "input_limits.h"
#include "plugin_loader.h"
#include "plugin_problem.h"
#include "plugin_space.h"
#include "progress.h"
#include "quote.h"
#include "run_common.h"
#include "notify_command.h"
#include "slurm_script.h"
#include "stop_signals.h"
#include "store_campaigns.h"
#include "store_merge.h"
#include "strategy.h"
#include "terminal_text.h"

static const cli_option options[] = {
    {"shard", "I/N", false, "run: only shard I of N (0 <= I < N), into its own database (FILE's database with .shard-I-of-N before the extension, unless --db)"},
    {"db", "FILE", false, "the result database (default: the file's `database`, else the file's name with .db)"},
    {"shards", "N", false, "slurm: how many array tasks (shards) to split the campaign into; merge: how many shards the campaign ran as; status: how many it was split into, to name the shards of parts missing"},
    {"out", "DIR", false, "slurm: the folder for the scripts and their logs (default: slurm-<file's name> beside the file)"},
    {"plugin-dir", "DIR", true, "search DIR for plugins first"},
    {"quiet", NULL, false, "no progress output"},
    RUN_NOTIFY_OPTIONS,
    SPACE_WORK_LIMIT_OPTION,
};

static const char summary[] =
    "Campaign files (docs/campaigns.md): `run FILE` runs every instance of the file's sweep on "
    "its devices (running it again resumes), `status FILE` (or `status --db DB`) shows each "
    "instance: done, running or remaining, with its best so far, `cross FILE` runs the "
    "cross-measurement step alone (after merging shards), `merge FILE --shards N` checks that "
    "every shard's database is there, belongs to the file and finished, then merges them into "
    "the file's database (or --db), and `slurm FILE --shards N` writes a SLURM job array that "
    "runs the shards and merges them.";

/* ------------------------------------------------------------- printing */

/* What a campaign file and its database name (labels made of its values,
 * paths, devices, configurations) is printed through terminal_printf: a
 * file or a database from elsewhere may hold any bytes. */

typedef struct sweep_printer {
    progress *prog;
    notify_run *notify; /* NULL: no notifications */
    size_t shown;              /* units started so far */
    size_t total;              /* units this invocation runs */
    const char *db_path;       /* the database, as given */
} sweep_printer;

static void print_unit_started(void *ctx, const campaign_plan *p, size_t unit, bool cross,
                               const tuning_started *s)
{
    sweep_printer *sp = ctx;
    if (!sp->prog->quiet) {
        const campaign_instance *in = &p->instances[p->units[unit].instance];
        if (cross)
            terminal_printf("== cross-measurement in instance %s\n",
                            *in->label ? in->label : "(the one)");
        else
            terminal_printf("== unit %zu of %zu: instance %zu of %zu%s%s%s\n", ++sp->shown,
                            sp->total, p->units[unit].instance + 1, p->n_instances,
                            *in->label ? " (" : "", in->label, *in->label ? ")" : "");
        if (p->units[unit].parts > 1)
            printf("   part %u of %u of its space\n", p->units[unit].part + 1,
                   p->units[unit].parts);
    }
    run_print_start(sp->prog, s);
    if (sp->notify) notify_run_started(sp->notify, s);
}

static void print_unit_finished(void *ctx, const campaign_plan *p, size_t unit, bool cross,
                                const tuning_outcome *out, const skytune_error *error)
{
    sweep_printer *sp = ctx;
    progress_finish(sp->prog);
    const campaign_instance *in = &p->instances[p->units[unit].instance];
    if (sp->notify)
        notify_run_instance_done(sp->notify, in->label, out, out ? NULL : error->message);
    if (!out) {
        cli_error("campaign: instance %s%s: %s", *in->label ? in->label : "(the one)",
                  cross ? " (cross-measurement)" : "", error->message);
        return;
    }
    if (!sp->prog->quiet) run_print_outcome(out, *in->label ? in->label : NULL, sp->db_path);
    fflush(stdout);
}

/* ------------------------------------------------------------------ run */

static int load_file(const char *path, campaign_file *f)
{
    skytune_error err;
    if (campaign_file_read(path, f, &err) != 0) {
        cli_error("campaign: %s", err.message);
        return -1;
    }
    return 0;
}

static int prepare_base(const cli_args *args, const char *sub, tuning_request *base,
                        char **worker_exe)
{
    memset(base, 0, sizeof *base);
    base->search.n_dirs = cli_all(args, "plugin-dir", &base->search.dirs);
    if (run_parse_supervision(args, base) != 0) return EXIT_USAGE;
    input_limits limits;
    if (input_limits_parse(args, &limits) != 0) return EXIT_USAGE;
    base->space_work_limit = limits.space_work_limit;
    *worker_exe = NULL;
    if (!cli_flag(args, "no-isolation")) {
        *worker_exe = run_own_executable();
        if (!*worker_exe) {
            cli_error("campaign %s: cannot find this executable to start workers "
                      "(/proc/self/exe); --no-isolation measures in this process",
                      sub);
            return EXIT_FAILED;
        }
    }
    base->worker_exe = *worker_exe;
    return EXIT_OK;
}

static int finish_status(const sweep_result *r, const char *path)
{
    char shown[QUOTE_PATH];
    printf("campaign %s: %zu unit%s done, %zu failed, %zu left%s%s\n",
           quote_text(path, shown, sizeof shown), r->units_run, r->units_run == 1 ? "" : "s",
           r->units_failed, r->units_left, r->cross_runs ? ", cross-measurement done" : "",
           r->limit_reached ? " (the campaign's budget or time limit was reached)" : "");
    if (r->interrupted) {
        printf("interrupted: run the same command again to continue\n");
        return EXIT_INTERRUPTED;
    }
    return r->units_failed ? EXIT_FAILED : EXIT_OK;
}

/* The file's notify settings under the --notify options. */
static int notify_settings(const cli_args *args, const campaign_file *f, char *origin,
                           size_t origin_len, char *ca_origin, size_t ca_origin_len,
                           notify_command_settings *s)
{
    snprintf(origin, origin_len, "%s:%d: key 'notify'", f->name, f->notify_url.line);
    snprintf(ca_origin, ca_origin_len, "%s: key 'notify.ca'", f->name);
    notify_command_settings from_file = {
        .url = f->notify_url.text,
        .format = f->notify_format,
        .ca = f->notify_ca,
        .origin = origin,
        .ca_origin = ca_origin,
    };
    return notify_command_settings_from_args(args, &from_file, s);
}

/* How the sweep ended, for campaign_finished; NULL: as its units did. */
static const char *sweep_stop(const sweep_result *r)
{
    return r->interrupted     ? tuning_loop_stop_name(TUNING_LOOP_INTERRUPTED)
           : r->limit_reached ? "campaign budget or time limit reached"
                              : NULL;
}

/* run and cross: check everything, then measure. */
static int run_or_cross(const cli_args *args, const char *sub, const char *path, bool cross_only,
                        int argc, char **argv)
{
    campaign_file f;
    if (load_file(path, &f) != 0) return EXIT_FAILED;
    unsigned shard = 0, shards = 1;
    skytune_error err;
    const char *shard_text = cli_get(args, "shard");
    int status = EXIT_FAILED;
    campaign_plan plan = {0};
    char *worker_exe = NULL, *db = NULL, *command = NULL;
    notify_command notify = {0};
    if (shard_text && campaign_shard_parse(shard_text, &shard, &shards, &err) != 0) {
        cli_error("campaign %s: %s", sub, err.message);
        status = EXIT_USAGE;
        goto done;
    }
    if (campaign_plan_build(&f, shards, &plan, &err) != 0) {
        cli_error("campaign %s: %s", sub, err.message);
        goto done;
    }
    tuning_request base;
    if ((status = prepare_base(args, sub, &base, &worker_exe)) != EXIT_OK) goto done;
    status = EXIT_FAILED;
    /* Received from here on (main blocked them before anything started):
     * checking the units opens the OpenCL platform, and a stop signal then
     * leaves every unit for the next run. */
    base.stop_requested = stop_signals_receive("campaign", base.watchdog.stop_grace_s);
    if (!base.stop_requested) goto done;
    db = cli_get(args, "db")    ? strdup(cli_get(args, "db"))
         : shards > 1           ? campaign_shard_db(f.database, shard, shards)
                                : strdup(f.database);
    command = run_join_command("campaign", argc, argv);
    if (!db || !command) {
        cli_error("campaign %s: out of memory", sub);
        goto done;
    }
    base.db_path = db;
    base.command = command;
    if (campaign_check_file(&f, &base.search, &err) != 0 ||
        campaign_check_units(&f, &plan, shard, &base, &err) != 0) {
        cli_error("campaign %s: %s", sub, err.message);
        /* A stop signal while a unit's space was being built for the
         * check: nothing began. */
        if (*base.stop_requested) {
            printf("interrupted before the campaign began: nothing was recorded\n");
            status = EXIT_INTERRUPTED;
        }
        goto done;
    }
    size_t mine = 0;
    for (size_t u = 0; u < plan.n_units; u++) mine += campaign_plan_in_shard(&plan, u, shard);
    char origin[4200], ca_origin[4200];
    notify_command_settings notifying;
    if ((status = notify_settings(args, &f, origin, sizeof origin, ca_origin, sizeof ca_origin,
                                  &notifying)) != EXIT_OK ||
        (status = notify_command_open(&notifying, command, db, cross_only ? 0 : mine, &notify)) !=
            EXIT_OK)
        goto done;
    status = EXIT_FAILED;
    progress prog;
    progress_init(&prog, stdout, cli_flag(args, "quiet"));
    prog.terminal = false; /* units follow one another: a line each */
    run_observers observers = {.progress = &prog, .notify = notify.events};
    base.on_notice = progress_notice;
    base.notice_ctx = &prog;
    base.on_event = run_observe_event;
    base.event_ctx = &observers;
    base.on_activity = progress_activity;
    base.activity_ctx = &prog;
    prog.stop_requested = base.stop_requested;
    sweep_printer printer = {.prog = &prog, .notify = notify.events, .total = mine, .db_path = db};
    sweep_events events = {print_unit_started, print_unit_finished, &printer};
    sweep_result result;
    int rc = cross_only ? campaign_cross_run(&f, &plan, &base, &events,
                                             memset(&result, 0, sizeof result), &err)
                        : campaign_sweep_run(&f, &plan, shard, &base, &events, &result, &err);
    if (notify.events) notify_run_finish(notify.events, rc != 0 ? NULL : sweep_stop(&result),
                                                rc != 0 ? err.message : NULL);
    if (rc != 0) {
        cli_error("campaign %s: %s", sub, err.message);
        goto done;
    }
    status = finish_status(&result, path);
done:
    /* The final notification goes out (or is given up) before the exit. */
    notify_command_close(&notify);
    stop_signals_release();
    free(command);
    free(db);
    free(worker_exe);
    campaign_plan_free(&plan);
    campaign_file_free(&f);
    return status == EXIT_INTERRUPTED ? stop_signals_exit_status() : status;
}

/* --------------------------------------------------------------- status */

/* Where a shard's part of an instance's space stands: never seen in the
 * database, seen but not finished, finished. */
enum { PART_MISSING = 0, PART_UNFINISHED = 1, PART_DONE = 2 };

typedef struct instance_status {
    const char *strategy;
    uint64_t seed;
    int campaigns, done, running;
    int64_t evaluated, ok, failed;
    char best[1024];
    double best_ns;
    char devices[512];
    /* An exhaustive instance split between shards: its campaigns are the
     * parts ("part=k/n" in their settings), each part's state here. */
    unsigned parts;
    unsigned char *part_state;
    bool out_of_memory;
} instance_status;

/* The part k of n a campaign's settings name; false when it is whole. */
static bool part_of(const char *settings, unsigned *k, unsigned *n)
{
    const char *at = strstr(settings, ";part=");
    return at && sscanf(at, ";part=%u/%u", k, n) == 2 && *n > 1 && *k < *n;
}

static int gather_instance(void *ctx, const store_campaign_row *row)
{
    instance_status *is = ctx;
    if (strcmp(row->strategy, is->strategy) != 0 || row->seed != is->seed ||
        strstr(row->settings, ";configs="))
        return 0;
    unsigned k, n;
    if (part_of(row->settings, &k, &n)) {
        if (!is->parts) {
            is->part_state = calloc(n, 1);
            if (!is->part_state) {
                is->out_of_memory = true;
                return 0;
            }
            is->parts = n;
        }
        /* Parts of another split (the campaign was sharded twice, in
         * other numbers) count below but say nothing of this one's. */
        if (n == is->parts) {
            unsigned char state = strcmp(row->status, "done") == 0 ? PART_DONE : PART_UNFINISHED;
            if (state > is->part_state[k]) is->part_state[k] = state;
        }
    }
    is->campaigns++;
    is->done += strcmp(row->status, "done") == 0;
    is->running += strcmp(row->status, "running") == 0;
    is->evaluated += row->evaluated;
    is->ok += row->ok;
    is->failed += row->failed;
    if (!strstr(is->devices, row->device) && strlen(is->devices) + strlen(row->device) + 3 <
                                                 sizeof is->devices)
        snprintf(is->devices + strlen(is->devices), sizeof is->devices - strlen(is->devices),
                 "%s%s", *is->devices ? ", " : "", row->device);
    if (row->best_config && (is->best_ns == 0 || row->best_ns < is->best_ns)) {
        is->best_ns = row->best_ns;
        snprintf(is->best, sizeof is->best, "%s", row->best_config);
    }
    return 0;
}

/* The configurations of an instance's space, as a run builds it but for
 * the device's limits; 0 when it cannot be built without a device. */
static uint64_t instance_space_size(const campaign_file *f, const campaign_plan *plan,
                                    const skytune_plugin *desc, const problem *prob)
{
    plugin_space_request rq = {
        .plugin = desc,
        .problem = &prob->values,
        .restricts = plan->restricts,
        .n_restricts = f->n_restricts,
        .only = plan->only,
        .n_only = f->n_only,
    };
    space *sp = NULL;
    skytune_error err;
    if (plugin_space_build(&rq, &sp, &err) != 0) return 0;
    uint64_t n = space_count(sp);
    space_free(sp);
    return n;
}

/* The shard of N that runs part k of the instance (on the file's first
 * device entry), as campaign_plan numbers units. */
static unsigned shard_of_part(const campaign_plan *plan, size_t n_devices, size_t instance,
                              unsigned parts, unsigned k, unsigned shards)
{
    uint64_t unit = ((uint64_t)instance * n_devices) * parts + k;
    return (unsigned)(unit % shards);
}

/* A split instance's parts: how much of its space is measured, and the
 * parts that never ran or did not finish here, by the shard that runs each
 * when the number of shards is known (--shards, or one instance on one
 * device: one part a shard). */
static void print_parts(const campaign_file *f, const campaign_plan *plan, size_t instance,
                        const instance_status *is, unsigned parts_done, unsigned shards,
                        uint64_t space_size)
{
    size_t n_devices = f->n_devices ? f->n_devices : 1;
    uint64_t pairs = (uint64_t)plan->n_instances * n_devices;
    if (!shards && pairs == 1) shards = is->parts;
    /* --shards N that did not make these parts is no help. */
    if (shards && (shards + pairs - 1) / pairs != is->parts) shards = 0;
    printf("            split in %u parts between shards: %u finished", is->parts, parts_done);
    if (space_size)
        printf("; %lld of the space's %llu configurations measured", (long long)is->evaluated,
               (unsigned long long)space_size);
    printf("\n");
    for (int want = PART_MISSING; want <= PART_UNFINISHED; want++) {
        unsigned listed = 0, count = 0;
        for (unsigned k = 0; k < is->parts; k++) count += is->part_state[k] == want;
        if (!count) continue;
        printf("            %s:", want == PART_MISSING ? "missing (never ran, or not merged)"
                                                       : "not finished");
        for (unsigned k = 0; k < is->parts && listed < 16; k++) {
            if (is->part_state[k] != want) continue;
            if (shards && n_devices == 1)
                printf(" shard %u/%u", shard_of_part(plan, n_devices, instance, is->parts, k,
                                                     shards), shards);
            else
                printf(" part %u/%u", k, is->parts);
            listed++;
        }
        if (count > listed) printf(" and %u more", count - listed);
        printf("\n");
    }
}

static int status_of_file(const cli_args *args, const char *path, double busy_timeout_s)
{
    campaign_file f;
    if (load_file(path, &f) != 0) return EXIT_FAILED;
    campaign_plan plan;
    skytune_error err;
    int status = EXIT_FAILED;
    loaded_plugin plugin = {0};
    store *st = NULL;
    plugin_search search = {0};
    search.n_dirs = cli_all(args, "plugin-dir", &search.dirs);
    unsigned shards = 0;
    if (cli_get(args, "shards")) {
        unsigned long long n = 0;
        if (cli_parse_u64("shards", cli_get(args, "shards"), &n) != 0) {
            campaign_file_free(&f);
            return EXIT_USAGE;
        }
        if (n < 1 || n > 100000) {
            cli_error("campaign status: --shards must be between 1 and 100000, got %llu", n);
            campaign_file_free(&f);
            return EXIT_USAGE;
        }
        shards = (unsigned)n;
    }
    if (campaign_plan_build(&f, 1, &plan, &err) != 0) {
        cli_error("campaign status: %s", err.message);
        campaign_file_free(&f);
        return EXIT_FAILED;
    }
    if (plugin_load(f.plugin.text, &search, &plugin, &err) != 0) {
        cli_error("campaign status: %s:%d: key 'plugin': %s", f.name, f.plugin.line, err.message);
        goto done;
    }
    const char *db = cli_get(args, "db") ? cli_get(args, "db") : f.database;
    if (access(db, F_OK) == 0 && !(st = cli_open_existing_db(db, busy_timeout_s))) goto done;
    terminal_printf("campaign %s: plugin %s, %zu instance%s, database %s%s\n", path,
                    plugin.desc->name, plan.n_instances, plan.n_instances == 1 ? "" : "s", db,
                    st ? "" : " (not created yet)");
    size_t counts[4] = {0, 0, 0, 0}; /* done, running, remaining, incomplete */
    for (size_t i = 0; i < plan.n_instances; i++) {
        const campaign_instance *in = &plan.instances[i];
        problem prob;
        if (problem_resolve(plugin.desc, f.preset.text, (const char *const *)in->sets,
                            in->n_sets, &prob, &err) != 0) {
            cli_error("campaign status: %s:%d: key 'problem': instance %s: %s", f.name,
                      f.problem_line, in->label, err.message);
            goto done;
        }
        instance_status is = {
            .strategy = f.strategy.text ? f.strategy.text : strategy_default_name(),
            .seed = f.seed,
        };
        int rc = st ? store_campaigns_find(st, plugin.desc->name, prob.text, gather_instance,
                                           &is, &err)
                    : 0;
        /* The size of a split instance's space, to set what its parts
         * measured against (0: unknown; the device's limits are not). */
        uint64_t space_size = 0;
        if (rc == 0 && is.parts) space_size = instance_space_size(&f, &plan, plugin.desc, &prob);
        problem_free(&prob);
        if (rc != 0 || is.out_of_memory) {
            cli_error("campaign status: %s", rc != 0 ? err.message : "out of memory");
            free(is.part_state);
            goto done;
        }
        unsigned parts_done = 0;
        for (unsigned k = 0; k < is.parts; k++) parts_done += is.part_state[k] == PART_DONE;
        bool incomplete = is.parts && parts_done < is.parts && !is.running;
        const char *state = is.campaigns == 0  ? "remaining"
                            : is.running       ? "running"
                            : incomplete       ? "incomplete"
                            : is.done == is.campaigns ? "done"
                                                      : "stopped";
        counts[is.campaigns == 0 ? 2
               : incomplete      ? 3
               : is.running || is.done < is.campaigns ? 1
                                                      : 0]++;
        terminal_printf("  %-9s %s\n", state, *in->label ? in->label : "(the one instance)");
        if (is.campaigns) {
            terminal_printf("            %lld evaluated (%lld ok, %lld failed) on %s\n",
                            (long long)is.evaluated, (long long)is.ok, (long long)is.failed,
                            is.devices);
            if (is.parts) print_parts(&f, &plan, i, &is, parts_done, shards, space_size);
            if (*is.best) {
                char time[32];
                format_duration_ns(is.best_ns, time, sizeof time);
                terminal_printf("            best so far %s  (%s)\n", is.best, time);
            }
        }
        free(is.part_state);
    }
    printf("%zu done, %zu running or stopped, %zu remaining", counts[0], counts[1], counts[2]);
    if (counts[3])
        printf(", %zu incomplete (split between shards, not all of them finished here)",
               counts[3]);
    printf("\n");
    status = EXIT_OK;
done:
    store_close(st);
    plugin_unload(&plugin);
    campaign_plan_free(&plan);
    campaign_file_free(&f);
    return status;
}

static int list_campaign(void *ctx, const store_campaign_row *row)
{
    char time[32] = "-";
    if (row->best_config) format_duration_ns(row->best_ns, time, sizeof time);
    terminal_printf("%4lld  %-11s %-8s %s on %s, %s, %lld evaluated (%lld ok)\n      problem %s\n",
                    (long long)row->id, row->status, row->plugin, row->strategy, row->device,
                    strstr(row->settings, ";configs=") ? "cross-measurement" : "search",
                    (long long)row->evaluated, (long long)row->ok, row->problem);
    if (row->best_config) terminal_printf("      best %s  (%s)\n", row->best_config, time);
    return 0;
}

static int status_of_db(const char *db, double busy_timeout_s)
{
    store *st = cli_open_existing_db(db, busy_timeout_s);
    if (!st) return EXIT_FAILED;
    skytune_error err;
    int rc = store_campaigns_find(st, NULL, NULL, list_campaign, NULL, &err);
    store_close(st);
    if (rc != 0) {
        cli_error("campaign status: %s", err.message);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* ---------------------------------------------------------------- slurm */

/* An absolute path for a file that exists (the scripts run elsewhere). */
static char *absolute(const char *path)
{
    char *real = realpath(path, NULL);
    return real;
}

static int write_slurm(const cli_args *args, const char *path)
{
    const char *shards_text = cli_get(args, "shards");
    if (!shards_text) {
        cli_error("campaign slurm: --shards N is required (how many array tasks)");
        return EXIT_USAGE;
    }
    unsigned long long shards;
    if (cli_parse_u64("shards", shards_text, &shards) != 0) return EXIT_USAGE;
    if (shards < 1 || shards > 100000) {
        cli_error("campaign slurm: --shards must be between 1 and 100000, got %llu", shards);
        return EXIT_USAGE;
    }
    campaign_file f;
    if (load_file(path, &f) != 0) return EXIT_FAILED;
    campaign_plan plan;
    skytune_error err;
    int status = EXIT_FAILED;
    char *exe = NULL, *campaign = NULL, *db = NULL, *out_dir = NULL;
    plugin_search search = {0};
    search.n_dirs = cli_all(args, "plugin-dir", &search.dirs);
    bool planned = campaign_plan_build(&f, (unsigned)shards, &plan, &err) == 0;
    if (!planned || campaign_check_file(&f, &search, &err) != 0) {
        cli_error("campaign slurm: %s", err.message);
        goto done;
    }
    exe = run_own_executable();
    campaign = absolute(path);
    db = run_absolute_path(cli_get(args, "db") ? cli_get(args, "db") : f.database);
    if (cli_get(args, "out")) {
        out_dir = strdup(cli_get(args, "out"));
    } else {
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        const char *dot = strrchr(base, '.');
        size_t len = strlen(path) + 8;
        out_dir = malloc(len);
        if (out_dir)
            snprintf(out_dir, len, "%.*sslurm-%.*s", (int)(base - path), path,
                     (int)(dot && dot != base ? (size_t)(dot - base) : strlen(base)), base);
    }
    if (!exe || !campaign || !db || !out_dir) {
        char shown[QUOTE_PATH];
        cli_error("campaign slurm: cannot resolve the absolute paths the job needs (skytune, %s, "
                  "its database)",
                  quote_text(path, shown, sizeof shown));
        goto done;
    }
    if (mkdir(out_dir, 0755) != 0 && access(out_dir, W_OK) != 0) {
        char shown[QUOTE_PATH];
        cli_error("campaign slurm: cannot create %s", quote_text(out_dir, shown, sizeof shown));
        goto done;
    }
    char *abs_out = absolute(out_dir);
    if (!abs_out) {
        char shown[QUOTE_PATH];
        cli_error("campaign slurm: cannot resolve %s", quote_text(out_dir, shown, sizeof shown));
        goto done;
    }
    slurm_job job = {.skytune = exe, .campaign = campaign, .database = db, .out_dir = abs_out,
                     .shards = (unsigned)shards, .plan = &plan};
    int arrays = slurm_write_scripts(&f, &job, &err);
    if (arrays < 0) {
        cli_error("campaign slurm: %s", err.message);
        free(abs_out);
        goto done;
    }
    if (arrays == 1)
        terminal_printf("wrote %s/array.sbatch (%llu tasks), %s/merge.sbatch and %s/submit.sh\n", abs_out,
               shards, abs_out, abs_out);
    else
        terminal_printf("wrote %s/array-1.sbatch to array-%d.sbatch (%llu tasks, one array per SLURM "
               "placement of the file's devices), %s/merge.sbatch and %s/submit.sh\n",
               abs_out, arrays, shards, abs_out, abs_out);
    terminal_printf("%zu unit%s of work over %llu shard%s; read them, then submit with:\n  sh %s/submit.sh\n",
           plan.n_units, plan.n_units == 1 ? "" : "s", shards, shards == 1 ? "" : "s", abs_out);
    free(abs_out);
    status = EXIT_OK;
done:
    free(exe);
    free(campaign);
    free(db);
    free(out_dir);
    if (planned) campaign_plan_free(&plan);
    campaign_file_free(&f);
    return status;
}

/* ---------------------------------------------------------------- merge */

/* What one shard's database holds, against the file's sweep. */
typedef struct shard_check {
    const char *plugin, *strategy;
    uint64_t seed;
    char **problems;           /* the instances' canonical problem texts */
    size_t n_problems;
    size_t *by_text;           /* instance indices in the order of their problem texts */
    int *campaigns, *done;     /* per instance: search campaigns, and those done */
    int *needed;               /* per instance: the shard's units of it */
    char foreign[1024];        /* the first campaign not of the file; "" when none */
    int64_t rows;
} shard_check;

static int check_shard_row(void *ctx, const store_campaign_row *row)
{
    shard_check *c = ctx;
    c->rows++;
    size_t i = c->n_problems;
    if (strcmp(row->plugin, c->plugin) == 0 && strcmp(row->strategy, c->strategy) == 0 &&
        row->seed == c->seed) {
        size_t lo = 0, hi = c->n_problems; /* binary search of by_text */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int cmp = strcmp(c->problems[c->by_text[mid]], row->problem);
            if (cmp == 0) {
                i = c->by_text[mid];
                break;
            }
            if (cmp < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (i == c->n_problems) {
        snprintf(c->foreign, sizeof c->foreign,
                 "campaign %lld (plugin %s, %s, seed %llu, problem %s)", (long long)row->id,
                 row->plugin, row->strategy, (unsigned long long)row->seed, row->problem);
        return 1;
    }
    if (strstr(row->settings, ";configs=")) return 0; /* a cross-measurement */
    c->campaigns[i]++;
    c->done[i] += strcmp(row->status, "done") == 0;
    return 0;
}

static const shard_check *sorting; /* for by_problem_text */

static int by_problem_text(const void *a, const void *b)
{
    return strcmp(sorting->problems[*(const size_t *)a], sorting->problems[*(const size_t *)b]);
}

/* Appends a new line and the text to the report. */
static void report_add(char *report, size_t len, const char *fmt, ...) SKYTUNE_PRINTF(3, 4);
static void report_add(char *report, size_t len, const char *fmt, ...)
{
    size_t used = strlen(report);
    if (used + 8 >= len) return;
    if (used) used += (size_t)snprintf(report + used, len - used, "\n  ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(report + used, len - used, fmt, ap);
    va_end(ap);
}

/* Checks shard i's database: present, of the file's sweep, every unit of
 * the shard finished. Appends what is wrong to problems (and returns 1),
 * or 0 when it may be merged; -1 on an error (printed). */
static int check_shard(const campaign_file *f, const campaign_plan *plan, shard_check *c,
                       unsigned shard, const char *path, double busy_timeout_s, char *problems,
                       size_t len)
{
    if (access(path, F_OK) != 0) {
        report_add(problems, len, "shard %u: no database (%s): it never ran or failed early",
                   shard, path);
        return 1;
    }
    store *st = NULL;
    skytune_error err;
    if (store_open_for_reading(path, busy_timeout_s, &st, &err) != 0) {
        report_add(problems, len, "shard %u: %s", shard, err.message);
        return 1;
    }
    memset(c->campaigns, 0, plan->n_instances * sizeof *c->campaigns);
    memset(c->done, 0, plan->n_instances * sizeof *c->done);
    c->foreign[0] = '\0';
    c->rows = 0;
    int rc = store_campaigns_find(st, NULL, NULL, check_shard_row, c, &err);
    store_close(st);
    if (rc < 0 && !*c->foreign) {
        report_add(problems, len, "shard %u: %s: %s", shard, path, err.message);
        return 1;
    }
    if (*c->foreign) {
        report_add(problems, len,
                   "shard %u: %s does not belong to %s: it holds %s, which is not one of the "
                   "file's instances with its plugin, strategy and seed",
                   shard, path, f->path, c->foreign);
        return 1;
    }
    /* Shard i runs the units u with u mod N = i: how many of each instance. */
    for (size_t u = shard; u < plan->n_units; u += plan->shards)
        c->needed[plan->units[u].instance]++;
    int bad = 0;
    for (size_t u = shard; u < plan->n_units; u += plan->shards) {
        size_t i = plan->units[u].instance;
        int needed = c->needed[i];
        if (!needed) continue; /* reported with its first unit */
        c->needed[i] = 0;
        const char *label = *plan->instances[i].label ? plan->instances[i].label : "(the one)";
        if (c->campaigns[i] == 0) {
            report_add(problems, len, "shard %u: instance %s not started", shard, label);
            bad = 1;
        } else if (c->campaigns[i] < needed || c->done[i] < c->campaigns[i]) {
            report_add(problems, len,
                       "shard %u: instance %s unfinished (%d of %d campaign%s done: running, "
                       "stopped or failed)",
                       shard, label, c->done[i], needed > c->campaigns[i] ? needed : c->campaigns[i],
                       needed == 1 ? "" : "s");
            bad = 1;
        }
    }
    return bad;
}

static int merge_shards(const cli_args *args, const char *path, double busy_timeout_s, int argc,
                        char **argv)
{
    const char *shards_text = cli_get(args, "shards");
    if (!shards_text) {
        cli_error("campaign merge: --shards N is required (how many shards the campaign ran as)");
        return EXIT_USAGE;
    }
    unsigned long long shards;
    if (cli_parse_u64("shards", shards_text, &shards) != 0) return EXIT_USAGE;
    if (shards < 1 || shards > 100000) {
        cli_error("campaign merge: --shards must be between 1 and 100000, got %llu", shards);
        return EXIT_USAGE;
    }
    campaign_file f;
    if (load_file(path, &f) != 0) return EXIT_FAILED;
    campaign_plan plan = {0};
    skytune_error err;
    int status = EXIT_FAILED;
    loaded_plugin plugin = {0};
    plugin_search search = {0};
    search.n_dirs = cli_all(args, "plugin-dir", &search.dirs);
    shard_check check = {.seed = f.seed};
    char *command = run_join_command("campaign", argc, argv);
    const char *target = cli_get(args, "db") ? cli_get(args, "db") : f.database;
    notify_command notify = {0};
    char **shard_dbs = NULL;
    static char problems[16384];
    problems[0] = '\0';
    if (!command) {
        cli_error("campaign merge: out of memory");
        goto done;
    }
    if (campaign_plan_build(&f, (unsigned)shards, &plan, &err) != 0) {
        cli_error("campaign merge: %s", err.message);
        goto done;
    }
    if (plugin_load(f.plugin.text, &search, &plugin, &err) != 0) {
        cli_error("campaign merge: %s:%d: key 'plugin': %s", f.path, f.plugin.line, err.message);
        goto done;
    }
    char origin[4200], ca_origin[4200];
    notify_command_settings notifying;
    if ((status = notify_settings(args, &f, origin, sizeof origin, ca_origin, sizeof ca_origin,
                                  &notifying)) != EXIT_OK ||
        (status = notify_command_open(&notifying, command, target, 0, &notify)) != EXIT_OK)
        goto done;
    status = EXIT_FAILED;
    check.plugin = plugin.desc->name;
    check.strategy = f.strategy.text ? f.strategy.text : strategy_default_name();
    check.problems = calloc(plan.n_instances, sizeof *check.problems);
    check.campaigns = calloc(plan.n_instances, sizeof *check.campaigns);
    check.done = calloc(plan.n_instances, sizeof *check.done);
    check.needed = calloc(plan.n_instances, sizeof *check.needed);
    check.by_text = calloc(plan.n_instances, sizeof *check.by_text);
    shard_dbs = calloc(shards, sizeof *shard_dbs);
    if (!check.problems || !check.campaigns || !check.done || !check.needed || !check.by_text ||
        !shard_dbs) {
        cli_error("campaign merge: out of memory");
        goto done;
    }
    for (size_t i = 0; i < plan.n_instances; i++, check.n_problems++) {
        const campaign_instance *in = &plan.instances[i];
        problem prob;
        if (problem_resolve(plugin.desc, f.preset.text, (const char *const *)in->sets,
                            in->n_sets, &prob, &err) != 0) {
            cli_error("campaign merge: %s:%d: key 'problem': instance %s: %s", f.path,
                      f.problem_line, in->label, err.message);
            goto done;
        }
        check.problems[i] = strdup(prob.text);
        problem_free(&prob);
        if (!check.problems[i]) {
            cli_error("campaign merge: out of memory");
            goto done;
        }
    }
    for (size_t i = 0; i < check.n_problems; i++) check.by_text[i] = i;
    sorting = &check;
    qsort(check.by_text, check.n_problems, sizeof *check.by_text, by_problem_text);
    unsigned bad = 0;
    for (unsigned i = 0; i < shards; i++) {
        shard_dbs[i] = shards > 1 ? campaign_shard_db(f.database, i, (unsigned)shards)
                                  : strdup(f.database);
        if (!shard_dbs[i]) {
            cli_error("campaign merge: out of memory");
            goto done;
        }
        struct stat a, b;
        if (stat(shard_dbs[i], &a) == 0 && stat(target, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            cli_error("campaign merge: shard %u's database %s is the database merged into: give "
                      "--db another file",
                      i, shard_dbs[i]);
            goto done;
        }
        bad += check_shard(&f, &plan, &check, i, shard_dbs[i], busy_timeout_s, problems,
                           sizeof problems) != 0;
    }
    if (bad) {
        cli_error("campaign merge: %s: %u of %llu shard%s missing, unfinished or not of this "
                  "file; nothing merged (run them again, then merge again):\n  %s",
                  path, bad, shards, shards == 1 ? "" : "s", problems);
        if (notify.events) {
            char why[1200];
            snprintf(why, sizeof why, "merge incomplete: %u of %llu shards missing, "
                     "unfinished or not of the file:\n  %s", bad, shards, problems);
            notify_run_finish(notify.events, NULL, why);
        }
        goto done;
    }
    store *st;
    if (store_open(target, true, busy_timeout_s, &st, &err) != 0) {
        cli_error("campaign merge: %s", err.message);
        goto done;
    }
    status = EXIT_OK;
    store_merge_counts total = {0};
    for (unsigned i = 0; i < shards; i++) {
        store_merge_counts c;
        if (store_merge(st, shard_dbs[i], &c, &err) != 0) {
            cli_error("campaign merge: %s", err.message);
            status = EXIT_FAILED;
            continue;
        }
        total.campaigns += c.campaigns;
        total.measurements += c.measurements;
        total.duplicates += c.duplicates;
        if (!cli_flag(args, "quiet"))
            terminal_printf("%s: %lld campaign%s, %lld measurement%s, %lld duplicate%s added\n",
                   shard_dbs[i], (long long)c.campaigns, c.campaigns == 1 ? "" : "s",
                   (long long)c.measurements, c.measurements == 1 ? "" : "s",
                   (long long)c.duplicates, c.duplicates == 1 ? "" : "s");
    }
    store_close(st);
    if (status == EXIT_OK)
        terminal_printf("campaign %s: %llu shard%s complete, merged into %s (%lld campaigns, %lld "
               "measurements new)\n",
               path, shards, shards == 1 ? "" : "s", target, (long long)total.campaigns,
               (long long)total.measurements);
    if (notify.events) {
        char stop[200];
        snprintf(stop, sizeof stop, "merged: all %llu shards complete", shards);
        notify_run_finish(notify.events, status == EXIT_OK ? stop : NULL,
                          status == EXIT_OK ? NULL : err.message);
    }
done:
    notify_command_close(&notify);
    for (size_t i = 0; check.problems && i < check.n_problems; i++) free(check.problems[i]);
    free(check.problems);
    free(check.campaigns);
    free(check.done);
    free(check.needed);
    free(check.by_text);
    for (unsigned i = 0; shard_dbs && i < shards; i++) free(shard_dbs[i]);
    free(shard_dbs);
    free(command);
    plugin_unload(&plugin);
    campaign_plan_free(&plan);
    campaign_file_free(&f);
    return status;
}

int cmd_campaign(int argc, char **argv)
{
    cli_args args;
    cli_option all_options[CLI_MAX_OPTIONS];
    size_t n_options = run_options_with_supervision(options, sizeof options / sizeof options[0],
                                                    all_options);
    int rc = cli_parse("campaign", summary, all_options, n_options, 2,
                       "run|status|cross|merge|slurm FILE", argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *sub = args.n_positional ? args.positional[0] : NULL;
    const char *path = args.n_positional > 1 ? args.positional[1] : NULL;
    static const char *const subs[] = {"run", "status", "cross", "merge", "slurm"};
    if (sub && cli_check_choice("campaign:", sub, subs, sizeof subs / sizeof subs[0]) != 0)
        return EXIT_USAGE;
    if (!sub) {
        cli_error("campaign: give one of run, status, cross, merge, slurm and a campaign file, e.g. "
                  "skytune campaign run sweep.yaml (see skytune campaign --help)");
        return EXIT_USAGE;
    }
    double busy_timeout_s;
    if (cli_busy_timeout(&args, &busy_timeout_s) != 0) return EXIT_USAGE;
    if (strcmp(sub, "status") == 0 && !path) {
        stop_signals_unblock();
        if (!cli_get(&args, "db")) {
            cli_error("campaign status: give a campaign file, or --db FILE");
            return EXIT_USAGE;
        }
        return status_of_db(cli_get(&args, "db"), busy_timeout_s);
    }
    if (!path) {
        cli_error("campaign %s: give the campaign file", sub);
        return EXIT_USAGE;
    }
    if (cli_get(&args, "shard") && strcmp(sub, "run") != 0) {
        cli_error("campaign %s: --shard belongs to campaign run", sub);
        return EXIT_USAGE;
    }
    /* main blocked the stop signals for run and cross; status, slurm and
     * merge run no campaign, have started no thread yet, and stop as any
     * command does (each shard is merged in one transaction: stopped, a shard
     * is added whole or not at all). */
    if (strcmp(sub, "status") == 0 || strcmp(sub, "slurm") == 0 || strcmp(sub, "merge") == 0)
        stop_signals_unblock();
    if (strcmp(sub, "status") == 0) return status_of_file(&args, path, busy_timeout_s);
    if (strcmp(sub, "slurm") == 0) return write_slurm(&args, path);
    if (strcmp(sub, "merge") == 0) return merge_shards(&args, path, busy_timeout_s, argc, argv);
    return run_or_cross(&args, sub, path, strcmp(sub, "cross") == 0, argc, argv);
}
