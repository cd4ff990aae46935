/* The engine's own cost per configuration: everything a campaign spends on a
 * configuration except the OpenCL compiler and the kernel runs.
 *
 * A real campaign (random strategy, real SQLite store in a temporary file,
 * the default OpenCL device) over 1,000 configurations of a trivial kernel.
 * For each configuration, the time between consecutive progress events —
 * one full turn of the loop: strategy, configuration text, build, verify,
 * warm-up, timed runs, store transaction, history — minus the measured
 * build, verification and timed-run phases, is the engine's overhead.
 *
 * With --isolated, configurations are measured as `skytune run` measures
 * them by default: in a supervised worker process (the skytune executable
 * EXE, loading the same kernel from the plugin module MODULE), so the
 * difference between the two modes is the cost of isolation: the messages,
 * the worker's side of them and the supervisor's waiting.
 *
 * usage: bench_overhead [CONFIGURATIONS [RUNS [--isolated EXE MODULE]]]
 *        (defaults 1000 and 10) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "tuning_loop.h"
#include "cl_device.h"
#include "measurer.h"
#include "plugin_space.h"
#include "stats.h"
#include "supervisor.h"
#include "trivial_plugin.h"

typedef struct turn_log {
    double last_s;
    size_t n;
    double *overhead_s, *build_s, *kernel_s;
} turn_log;


static void on_event(void *ctx, const tuning_loop_event *ev)
{
    turn_log *log = ctx;
    double t = clock_monotonic_s();
    /* The first turn also pays for the loop's start; it is left out. */
    if (ev->evaluated > 1) {
        const measurement *m = ev->m;
        log->overhead_s[log->n] = (t - log->last_s) - m->build_s - m->verify_s - m->bench_s;
        log->build_s[log->n] = m->build_s;
        log->kernel_s[log->n] = m->verify_s + m->bench_s;
        log->n++;
    }
    log->last_s = t;
}

typedef struct bench_evaluator {
    const space *space;
    measurer *ms;
    skytune_named_value values[8];
} bench_evaluator;

static int evaluate(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    bench_evaluator *be = ctx;
    space_config_values(be->space, idx, be->values);
    skytune_values config = {space_param_count(be->space), be->values};
    return measurer_measure(be->ms, &config, m, err);
}

static int fail(const skytune_error *err)
{
    fprintf(stderr, "bench_overhead: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long configs = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    unsigned runs = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10;
    bool isolated = argc == 6 && strcmp(argv[3], "--isolated") == 0;
    if (configs < 2 || configs > 1000 || runs < 1 || (argc > 3 && !isolated)) {
        fprintf(stderr, "usage: bench_overhead [CONFIGURATIONS (2..1000) [RUNS [--isolated EXE "
                        "MODULE]]]\n");
        return 2;
    }
    skytune_error err;
    cl_device_entry *devices;
    size_t n_devices, chosen;
    if (cl_devices_list(&devices, &n_devices, &err) != 0 ||
        cl_device_select(devices, n_devices, getenv("SKYTUNE_DEVICE"), &chosen, &err) != 0)
        return fail(&err);
    const char *only[] = {"MODE=0", "wg=64"};
    char restrict_text[64];
    snprintf(restrict_text, sizeof restrict_text, "variant < %lu", configs);
    const char *restricts[] = {restrict_text};
    skytune_values no_problem = {0};
    plugin_space_request rq = {.plugin = &trivial_plugin, .problem = &no_problem,
                               .device = &devices[chosen].info, .restricts = restricts,
                               .n_restricts = 1, .only = only, .n_only = 2};
    space *sp;
    if (plugin_space_build(&rq, &sp, &err) != 0) return fail(&err);

    char db_path[] = "/tmp/skytune-bench-overhead-XXXXXX";
    int fd = mkstemp(db_path);
    if (fd < 0) return 1;
    close(fd);
    unlink(db_path);
    store *st;
    measurer *ms = NULL;
    supervisor *sup = NULL;
    evaluator eval;
    bench_evaluator be = {.space = sp};
    if (store_open(db_path, true, STORE_BUSY_TIMEOUT_S, &st, &err) != 0) return fail(&err);
    if (isolated) {
        supervisor_options so = {
            .worker_exe = argv[4],
            .setup = {.plugin_path = argv[5],
                      .platform_index = devices[chosen].platform_index,
                      .device_index = devices[chosen].device_index,
                      .device_name = devices[chosen].info.name,
                      .problem = &no_problem,
                      .runs = runs,
                      .seed = 1},
        };
        supervisor_limits_default(&so.limits);
        supervisor_health_default(&so.health);
        if (supervisor_open(&so, sp, &sup, &err) != 0) return fail(&err);
        eval = supervisor_evaluator(sup);
    } else {
        measurer_options mopts = {.runs = runs, .seed = 1};
        if (measurer_open(&trivial_plugin, &devices[chosen], &no_problem, &mopts, &ms, &err) != 0)
            return fail(&err);
        be.ms = ms;
        eval = (evaluator){.ctx = &be, .evaluate = evaluate};
    }
    int64_t dev_id, plugin_id, problem_id, campaign_id;
    bool resumed;
    const char *names[] = {"wg", "MODE", "variant"};
    if (store_device_id(st, &devices[chosen].info, &dev_id, &err) != 0 ||
        store_plugin_id(st, "trivial", "1", "0",
                        &(store_param_names){.tuning = names, .n_tuning = 3}, &plugin_id, &err) != 0 ||
        store_problem_id(st, plugin_id, "", &problem_id, &err) != 0)
        return fail(&err);
    store_campaign_spec spec = {plugin_id, dev_id, problem_id, "random", "", 1, "bench", "", false};
    if (store_campaign_open(st, &spec, &campaign_id, &resumed, &err) != 0) return fail(&err);

    history *h = history_new();
    strategy_setup setup = {.space = sp, .history = h, .seed = 1};
    strategy *strat;
    if (strategy_create("random", &setup, NULL, 0, &strat, &err) != 0) return fail(&err);
    turn_log log = {.overhead_s = calloc(configs, sizeof(double)),
                    .build_s = calloc(configs, sizeof(double)),
                    .kernel_s = calloc(configs, sizeof(double))};
    tuning_loop_config cc = {.space = sp, .strategy = strat, .history = h,
                          .eval = eval, .store = st,
                          .campaign_id = campaign_id, .on_event = on_event, .event_ctx = &log};
    tuning_loop_result r;
    log.last_s = clock_monotonic_s();
    if (tuning_loop_run(&cc, &r, &err) != 0) return fail(&err);

    stats_summary over, build, kernel;
    stats_summarise(log.overhead_s, log.n, &over);
    stats_summarise(log.build_s, log.n, &build);
    stats_summarise(log.kernel_s, log.n, &kernel);
    printf("device: %s — %s; measured %s\n", devices[chosen].info.platform,
           devices[chosen].info.name,
           isolated ? "in a supervised worker process" : "in this process");
    printf("configurations: %llu evaluated (%llu ok), %u timed runs each, %zu turns measured\n",
           (unsigned long long)r.evaluated, (unsigned long long)r.by_status[MEAS_OK], runs, log.n);
    printf("engine overhead per configuration: median %.1f us, mean %.1f us, min %.1f us, max %.1f us\n",
           over.median * 1e6, over.mean * 1e6, over.min * 1e6, over.max * 1e6);
    printf("OpenCL build per configuration:    median %.1f ms\n", build.median * 1e3);
    printf("verify + timed runs:               median %.2f ms\n", kernel.median * 1e3);
    printf("campaign wall time: %.1f s\n", r.wall_s);

    strategy_free(strat);
    history_free(h);
    measurer_close(ms);
    supervisor_close(sup);
    store_close(st);
    space_free(sp);
    free(devices);
    free(log.overhead_s);
    free(log.build_s);
    free(log.kernel_s);
    unlink(db_path);
    char wal[64];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db_path);
    unlink(wal);
    return 0;
}
