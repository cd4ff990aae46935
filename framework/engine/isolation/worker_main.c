#include "worker_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary_cache.h"
#include "clock.h"
#include "cl_device.h"
#include "measurer.h"
#include "plugin_loader.h"

/* What a worker holds for its whole life. */
typedef struct worker_state {
    int fd;
    worker_role role;
    bool wait_for_go;
    uint64_t request_id;     /* the request being served, for STAGE messages */
    loaded_plugin plugin;
    cl_device_entry *devices;
    skytune_named_value *problem_items;
    size_t problem_count;
    skytune_values problem;
    binary_cache *cache;
    measurer *measurer;
    trace *trace;            /* --trace: this process's track, or NULL */
    char *reference_file;    /* the campaign's shared CPU reference, or "" */
} worker_state;

/* The engine is gone or confused: nothing is left to report to. */
static void lost_engine(void)
{
    _exit(1);
}

static void send_or_exit(worker_state *ws, const worker_message *msg)
{
    skytune_error err;
    if (worker_send(ws->fd, msg, &err) != 0) lost_engine();
}

static bool report_stage(void *ctx, measure_stage stage)
{
    worker_state *ws = ctx;
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_STAGE);
    worker_put_u64(&msg, ws->request_id);
    worker_put_u32(&msg, (uint32_t)stage);
    send_or_exit(ws, &msg);
    worker_message_free(&msg);
    if (stage != STAGE_PREPARE || !ws->wait_for_go) return true;
    /* The device is the engine's to hand out: this configuration may have
     * been built ahead of its turn, another worker may be timing one, or a
     * CPU device's compile workers must be paused first. GO, or CANCEL for
     * a configuration no longer wanted. */
    worker_message answer;
    skytune_error err;
    if (worker_receive(ws->fd, &answer, &err) != 1 ||
        (answer.type != WORKER_MSG_GO && answer.type != WORKER_MSG_CANCEL))
        lost_engine();
    bool go = answer.type == WORKER_MSG_GO;
    worker_message_free(&answer);
    return go;
}

static int set_up(worker_state *ws, worker_message *msg, skytune_error *err)
{
    uint32_t role = worker_get_u32(msg);
    char *plugin_path = worker_get_str(msg);
    uint32_t platform_index = worker_get_u32(msg);
    uint32_t device_index = worker_get_u32(msg);
    char *device_name = worker_get_str(msg);
    int rc = 0;
    if (msg->bad || role != (uint32_t)ws->role) {
        rc = err_set(err, "malformed setup message (role %u, expected %s)", role,
                     worker_role_name(ws->role));
        goto done;
    }
    if (worker_get_values(msg, &ws->problem_items, &ws->problem_count, err) != 0) {
        rc = -1;
        goto done;
    }
    ws->problem.count = ws->problem_count;
    ws->problem.items = ws->problem_items;
    /* Read in the order written: initialisers have no order of their own. */
    unsigned runs = worker_get_u32(msg);
    unsigned warm_up_runs = worker_get_u32(msg);
    bool transfers = worker_get_u32(msg) != 0;
    unsigned compare = worker_get_u32(msg);
    uint64_t seed = worker_get_u64(msg);
    measurer_options opts = {
        .runs = runs,
        .warm_up_runs = warm_up_runs,
        .transfers = transfers,
        .compare = compare <= COMPARE_DEVICE ? (measurer_compare)compare : COMPARE_AUTO,
        .seed = seed,
        .on_stage = report_stage,
        .stage_ctx = ws,
        .skip_reference = ws->role == WORKER_ROLE_COMPILE,
    };
    char *cache_dir = worker_get_str(msg);
    uint64_t cache_max = worker_get_u64(msg);
    ws->wait_for_go = worker_get_u32(msg) != 0;
    char *trace_path = worker_get_str(msg);
    ws->reference_file = worker_get_str(msg);
    if (msg->bad) {
        free(cache_dir);
        free(trace_path);
        rc = err_set(err, "malformed setup message");
        goto done;
    }
    /* A trace that cannot be opened costs the trace, not the campaign. */
    skytune_error trace_err = {0};
    if (trace_path && trace_path[0])
        trace_append(trace_path, ws->role == WORKER_ROLE_COMPILE ? "compile worker"
                                                                 : "measuring worker",
                     &ws->trace, &trace_err);
    free(trace_path);
    opts.trace = ws->trace;
    if (ws->reference_file && ws->reference_file[0]) opts.reference_file = ws->reference_file;
    if (cache_dir && cache_dir[0] && binary_cache_open(cache_dir, cache_max, &ws->cache, err) != 0)
        rc = -1;
    free(cache_dir);
    if (rc != 0) goto done;
    opts.cache = ws->cache;
    plugin_search no_dirs = {0};
    size_t n_devices = 0;
    double since = clock_monotonic_s();
    if (plugin_load(plugin_path, &no_dirs, &ws->plugin, err) != 0) {
        rc = -1;
        goto done;
    }
    opts.reference_name = ws->plugin.compared_with;
    trace_span(ws->trace, "load plugin", "setup", since, clock_monotonic_s(), NULL);
    since = clock_monotonic_s();
    if (cl_devices_list(&ws->devices, &n_devices, err) != 0) {
        rc = -1;
        goto done;
    }
    trace_span(ws->trace, "list OpenCL devices", "setup", since, clock_monotonic_s(), NULL);
    const cl_device_entry *dev = NULL;
    for (size_t k = 0; k < n_devices; k++)
        if (ws->devices[k].platform_index == platform_index &&
            ws->devices[k].device_index == device_index)
            dev = &ws->devices[k];
    if (!dev || strcmp(dev->info.name, device_name) != 0) {
        rc = err_set(err, "device %u:%u is not '%s' in this process", platform_index,
                     device_index, device_name);
        goto done;
    }
    rc = measurer_open(ws->plugin.desc, dev, &ws->problem, &opts, &ws->measurer, err);
done:
    free(plugin_path);
    free(device_name);
    return rc;
}

static void tear_down(worker_state *ws)
{
    measurer_close(ws->measurer);
    binary_cache_close(ws->cache);
    worker_values_free(ws->problem_items, ws->problem_count);
    free(ws->devices);
    plugin_unload(&ws->plugin);
    trace_close(ws->trace, false);
    free(ws->reference_file);
}

static void send_failed(worker_state *ws, const char *text)
{
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_FAILED);
    worker_put_str(&msg, text);
    send_or_exit(ws, &msg);
    worker_message_free(&msg);
}

/* One MEASURE or COMPILE request. Returns -1 when the device is unusable. */
static int serve(worker_state *ws, worker_message *request, skytune_error *err)
{
    ws->request_id = worker_get_u64(request);
    skytune_named_value *items = NULL;
    size_t count = 0;
    if (worker_get_values(request, &items, &count, err) != 0) return -1;
    skytune_values config = {.count = count, .items = items};
    worker_result r = {.request = ws->request_id};
    bool compile = request->type == WORKER_MSG_COMPILE;
    double race_limit_ns = compile ? 0.0 : worker_get_f64(request);
    if (request->bad) {
        worker_values_free(items, count);
        return err_set(err, "malformed request from the engine");
    }
    int rc = compile ? measurer_compile(ws->measurer, &config, &r.m, err)
                     : measurer_measure_raced(ws->measurer, &config, race_limit_ns, &r.m, err);
    worker_values_free(items, count);
    if (rc != 0) {
        measurement_clear(&r.m);
        return -1;
    }
    /* A launch failure, or a kernel that failed on the device, may have
     * taken the context with it: then this worker is of no more use, and the
     * engine starts another. */
    r.context_lost = (r.m.status == MEAS_LAUNCH || r.m.status == MEAS_CRASH) &&
                     !measurer_device_usable(ws->measurer);
    const char *reason;
    r.entry = measurer_cache_entry(ws->measurer, &reason);
    snprintf(r.entry_reason, sizeof r.entry_reason, "%s", reason);
    worker_message reply;
    worker_message_init(&reply, WORKER_MSG_RESULT);
    worker_put_result(&reply, &r);
    measurement_clear(&r.m);
    send_or_exit(ws, &reply);
    worker_message_free(&reply);
    return 0;
}

int worker_main(worker_role role, int fd)
{
    worker_state ws = {.fd = fd, .role = role};
    skytune_error err = {0};
    worker_message msg;
    if (worker_receive(fd, &msg, &err) != 1 || msg.type != WORKER_MSG_SETUP) {
        if (msg.data) worker_message_free(&msg);
        return 1;
    }
    int rc = set_up(&ws, &msg, &err);
    worker_message_free(&msg);
    if (rc != 0) {
        send_failed(&ws, err.message);
        tear_down(&ws);
        return 1;
    }
    worker_message ready;
    worker_message_init(&ready, WORKER_MSG_READY);
    send_or_exit(&ws, &ready);
    worker_message_free(&ready);
    int status = 0;
    for (;;) {
        int got = worker_receive(fd, &msg, &err);
        if (got <= 0) break; /* the engine closed the pipe: done */
        if (msg.type == WORKER_MSG_QUIT) {
            worker_message_free(&msg);
            break;
        }
        if (msg.type == WORKER_MSG_MEASURE ||
            (msg.type == WORKER_MSG_COMPILE && role == WORKER_ROLE_COMPILE)) {
            rc = serve(&ws, &msg, &err);
        } else {
            rc = err_set(&err, "unexpected message %u for a %s worker", msg.type,
                         worker_role_name(role));
        }
        worker_message_free(&msg);
        if (rc != 0) {
            send_failed(&ws, err.message);
            status = 1;
            break;
        }
    }
    tear_down(&ws);
    return status;
}
