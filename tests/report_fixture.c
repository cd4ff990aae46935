#include "report_fixture.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "measurement.h"
#include "store.h"
#include "store_invocations.h"

static const char *const param_names[] = {"wg", "mode"};
static const char *const problem_names[] = {"n", "batch"};
static const store_param_names fixture_params = {
    .tuning = param_names, .n_tuning = 2, .problem = problem_names, .n_problem = 2};

typedef struct fixture_config {
    const char *wg, *mode;
} fixture_config;

static const fixture_config configs[6] = {
    {"32", "plain"},  {"64", "plain"},  {"128", "plain"},
    {"32", REPORT_FIXTURE_HOSTILE}, {"64", REPORT_FIXTURE_HOSTILE}, {"128", REPORT_FIXTURE_HOSTILE},
};

/* Per configuration: status and median ns on instance A and on instance B. */
typedef struct fixture_result {
    measurement_status status;
    double median_ns;
} fixture_result;

static const fixture_result results_a[6] = {
    {MEAS_OK, 1000}, {MEAS_OK, 500}, {MEAS_OK, 800},
    {MEAS_OK, 2000}, {MEAS_COMPILE, 0}, {MEAS_WRONG_RESULT, 0},
};
static const fixture_result results_b[6] = {
    {MEAS_OK, 4000}, {MEAS_OK, 2500}, {MEAS_OK, 2000},
    {MEAS_OK, 10000}, {MEAS_COMPILE, 0}, {MEAS_OK, 4000},
};

static const int order_a[6] = {0, 3, 4, 1, 5, 2};
static const int order_b[6] = {2, 0, 1, 3, 4, 5};

static skytune_device_info fixture_device(void)
{
    skytune_device_info d = {0};
    snprintf(d.platform, sizeof d.platform, "Fixture Platform");
    snprintf(d.name, sizeof d.name, "%s", REPORT_FIXTURE_DEVICE);
    snprintf(d.vendor, sizeof d.vendor, "Fixture Vendor");
    snprintf(d.driver_version, sizeof d.driver_version, "1.0");
    snprintf(d.opencl_version, sizeof d.opencl_version, "OpenCL 3.0");
    d.is_gpu = 1;
    d.compute_units = 64;
    d.max_clock_mhz = 1500;
    d.global_mem_size = INT64_C(17179869184);
    d.local_mem_size = 65536;
    d.max_constant_size = 65536;
    d.max_mem_alloc_size = INT64_C(4294967296);
    d.max_work_group_size = 1024;
    d.max_work_item_sizes[0] = 1024;
    d.max_work_item_sizes[1] = 1024;
    d.max_work_item_sizes[2] = 64;
    return d;
}

/* One configuration's measurement on an instance doing `flop` FLOP and
 * moving `bytes` bytes per run. */
static int fill_measurement(measurement *m, const fixture_result *r, double flop, double bytes)
{
    measurement_init(m);
    m->status = r->status;
    m->build_s = 1.0;
    m->verify_s = 0.5;
    m->bench_s = 0.25;
    m->overhead_s = 0.125;
    if (r->status == MEAS_COMPILE)
        return measurement_set_message(m, "error: <b>wg</b> too large & unsupported");
    if (r->status == MEAS_WRONG_RESULT) {
        m->max_abs_error = 0.5;
        m->max_rel_error = 0.25;
        m->first_mismatch = 17;
        return measurement_set_message(m, "output differs from the reference");
    }
    const double x = r->median_ns;
    const double samples[5] = {x - 10, x, x, x + 10, x + 20};
    if (measurement_set_samples(m, samples, 5) != 0) return -1;
    m->gflops = flop / x;
    m->gbs = bytes / x;
    m->max_abs_error = 0.0;
    m->max_rel_error = 0.0;
    return 0;
}

static int record_campaign(store *st, const store_campaign_spec *spec, const fixture_result *results,
                           const int *order, double flop, double bytes, int64_t *measurement_ids,
                           skytune_error *err)
{
    int64_t campaign_id, invocation_id;
    bool resumed;
    if (store_campaign_open(st, spec, &campaign_id, &resumed, err) != 0) return -1;
    store_invocation_spec run = {.campaign_id = campaign_id, .command = spec->command,
                                 .host = spec->host, .budget = 6};
    store_invocation_before before;
    if (store_invocation_begin(st, &run, &invocation_id, &before, err) != 0) return -1;
    for (int seq = 0; seq < 6; seq++) {
        int k = order[seq];
        char text[128];
        snprintf(text, sizeof text, "wg=%s,mode=%s", configs[k].wg, configs[k].mode);
        const char *values[2] = {configs[k].wg, configs[k].mode};
        measurement m;
        if (fill_measurement(&m, &results[k], flop, bytes) != 0) {
            measurement_clear(&m);
            return err_set(err, "fixture: out of memory");
        }
        int rc = store_record_measurement(st, campaign_id, seq, text, (uint64_t)(k + 1) * 0x9E37u,
                                          param_names, values, 2, &m, &measurement_ids[k], err);
        measurement_clear(&m);
        if (rc != 0) return -1;
    }
    if (store_invocation_end(st, invocation_id, "budget", err) != 0) return -1;
    return store_campaign_close(st, campaign_id, "done", err);
}

int report_fixture_create(const char *path, bool with_peaks, skytune_error *err)
{
    store *st;
    if (store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, err) != 0) return -1;
    skytune_device_info dev = fixture_device();
    int64_t device_id, plugin_id, problem_a, problem_b, ids_a[6], ids_b[6];
    int rc = -1;
    if (store_device_id(st, &dev, &device_id, err) != 0 ||
        store_plugin_id(st, REPORT_FIXTURE_PLUGIN, "1.0", "fixturehash", &fixture_params,
                        &plugin_id, err) != 0 ||
        store_problem_id(st, plugin_id, REPORT_FIXTURE_PROBLEM_A, &problem_a, err) != 0 ||
        store_problem_id(st, plugin_id, REPORT_FIXTURE_PROBLEM_B, &problem_b, err) != 0)
        goto done;
    store_campaign_spec spec = {
        .plugin_id = plugin_id, .device_id = device_id, .problem_id = problem_a,
        .strategy = "random", .settings = "budget=6,runs=5", .seed = 7,
        .command = "skytune run --plugin toy --set n=1000", .host = "fixture-host",
    };
    if (record_campaign(st, &spec, results_a, order_a, 2e6, 1e6, ids_a, err) != 0) goto done;
    spec.problem_id = problem_b;
    spec.command = "skytune run --plugin toy --set n=4000";
    if (record_campaign(st, &spec, results_b, order_b, 8e6, 4e6, ids_b, err) != 0) goto done;

    spec.strategy = "exhaustive";
    spec.seed = 1;
    spec.settings = "budget=2,runs=5";
    int64_t reuse_id;
    bool resumed;
    if (store_campaign_open(st, &spec, &reuse_id, &resumed, err) != 0 ||
        store_record_cached(st, reuse_id, 0, ids_b[2], err) != 0 ||
        store_record_cached(st, reuse_id, 1, ids_b[0], err) != 0 ||
        store_campaign_close(st, reuse_id, "done", err) != 0)
        goto done;

    if (with_peaks) {
        sqlite3_stmt *s = NULL;
        sqlite3 *db = store_handle(st);
        if (sqlite3_prepare_v2(db, "UPDATE devices SET peak_gflops = ?1, peak_gbs = ?2 WHERE id = ?3",
                               -1, &s, NULL) != SQLITE_OK) {
            err_set(err, "fixture: %s", sqlite3_errmsg(db));
            goto done;
        }
        sqlite3_bind_double(s, 1, REPORT_FIXTURE_PEAK_GFLOPS);
        sqlite3_bind_double(s, 2, REPORT_FIXTURE_PEAK_GBS);
        sqlite3_bind_int64(s, 3, device_id);
        int step = sqlite3_step(s);
        sqlite3_finalize(s);
        if (step != SQLITE_DONE) {
            err_set(err, "fixture: %s", sqlite3_errmsg(db));
            goto done;
        }
    }
    rc = 0;
done:
    store_close(st);
    return rc;
}

/* ------------------------------------------------------------ noisy */

typedef struct noisy_config {
    const char *wg, *mode;
    double runs_ms[7];
    size_t n;
} noisy_config;

static const noisy_config noisy_configs[] = {
    {"32", "plain", {1.2, 1.5, 2.9, 3.07, 3.3, 5.4, 6.0}, 7},
    {"64", "plain", {3.45, 3.48, 3.5, 3.5, 3.5, 3.52, 3.55}, 7},
    {"128", "plain", {3.62, 4.0, 4.38}, 3},
    {"32", REPORT_FIXTURE_HOSTILE, {4.0275, 4.5, 4.9725}, 3},
};

static int record_noisy(store *st, int64_t campaign_id, int seq, const noisy_config *c,
                        skytune_error *err)
{
    measurement m;
    measurement_init(&m);
    double samples[7];
    for (size_t k = 0; k < c->n; k++) samples[k] = c->runs_ms[k] * 1e6;
    m.status = MEAS_OK;
    m.build_s = 1.0;
    m.verify_s = 0.5;
    m.bench_s = 0.25;
    m.overhead_s = 0.125;
    m.max_abs_error = 0.0;
    m.max_rel_error = 0.0;
    if (measurement_set_samples(&m, samples, c->n) != 0) {
        measurement_clear(&m);
        return err_set(err, "fixture: out of memory");
    }
    m.gflops = 2e6 / m.median_ns;
    m.gbs = 1e6 / m.median_ns;
    char text[128];
    snprintf(text, sizeof text, "wg=%s,mode=%s", c->wg, c->mode);
    const char *values[2] = {c->wg, c->mode};
    int64_t id;
    int rc = store_record_measurement(st, campaign_id, seq, text, (uint64_t)(seq + 1) * 0x9E37u,
                                      param_names, values, 2, &m, &id, err);
    measurement_clear(&m);
    return rc;
}

int report_fixture_create_noisy(const char *path, skytune_error *err)
{
    store *st;
    if (store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, err) != 0) return -1;
    skytune_device_info dev = fixture_device();
    int64_t device_id, plugin_id, problem_id, campaign_id;
    bool resumed;
    int rc = -1;
    if (store_device_id(st, &dev, &device_id, err) != 0 ||
        store_plugin_id(st, REPORT_FIXTURE_PLUGIN, "1.0", "fixturehash", &fixture_params,
                        &plugin_id, err) != 0 ||
        store_problem_id(st, plugin_id, REPORT_FIXTURE_PROBLEM_A, &problem_id, err) != 0)
        goto done;
    store_campaign_spec spec = {
        .plugin_id = plugin_id, .device_id = device_id, .problem_id = problem_id,
        .strategy = "random", .settings = "budget=4,runs=7", .seed = 7,
        .command = "skytune run --plugin toy --set n=1000", .host = "fixture-host",
    };
    if (store_campaign_open(st, &spec, &campaign_id, &resumed, err) != 0) goto done;
    for (int k = 0; k < 4; k++)
        if (record_noisy(st, campaign_id, k, &noisy_configs[k], err) != 0) goto done;
    rc = store_campaign_close(st, campaign_id, "done", err);
done:
    store_close(st);
    return rc;
}

/* ------------------------------------------------------------ a grid */

/* Times (ns) of the grid fixture's configurations, [problem][wg][mode]. */
static const double grid_times[2][3][2] = {
    /* A: separable, wg ranks 32 < 64 < 128 under both modes. */
    {{1000, 1500}, {2000, 3000}, {3000, 4500}},
    /* B: wg's order under "fast" is the reverse of that under "plain". */
    {{1000, 4500}, {2000, 3000}, {3000, 1500}},
};

int report_fixture_create_grid(const char *path, skytune_error *err)
{
    static const char *const wgs[3] = {"32", "64", "128"};
    static const char *const modes[2] = {"plain", "fast"};
    store *st;
    if (store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, err) != 0) return -1;
    skytune_device_info dev = fixture_device();
    int64_t device_id, plugin_id, problems[2];
    int rc = -1;
    if (store_device_id(st, &dev, &device_id, err) != 0 ||
        store_plugin_id(st, REPORT_FIXTURE_PLUGIN, "1.0", "fixturehash", &fixture_params,
                        &plugin_id, err) != 0 ||
        store_problem_id(st, plugin_id, REPORT_FIXTURE_PROBLEM_A, &problems[0], err) != 0 ||
        store_problem_id(st, plugin_id, REPORT_FIXTURE_PROBLEM_B, &problems[1], err) != 0)
        goto done;
    for (int p = 0; p < 2; p++) {
        store_campaign_spec spec = {
            .plugin_id = plugin_id, .device_id = device_id, .problem_id = problems[p],
            .strategy = "exhaustive", .settings = "runs=1", .seed = 1,
            .command = "skytune run --plugin toy --strategy exhaustive", .host = "fixture-host",
        };
        int64_t campaign_id;
        bool resumed;
        if (store_campaign_open(st, &spec, &campaign_id, &resumed, err) != 0) goto done;
        for (int k = 0; k < 6; k++) {
            const char *values[2] = {wgs[k / 2], modes[k % 2]};
            char text[64];
            snprintf(text, sizeof text, "wg=%s,mode=%s", values[0], values[1]);
            measurement m;
            measurement_init(&m);
            m.status = MEAS_OK;
            const double t = grid_times[p][k / 2][k % 2];
            if (measurement_set_samples(&m, &t, 1) != 0) {
                measurement_clear(&m);
                err_set(err, "fixture: out of memory");
                goto done;
            }
            int64_t id;
            int recorded = store_record_measurement(st, campaign_id, k, text,
                                                    (uint64_t)(k + 1) * 0x9E37u, param_names,
                                                    values, 2, &m, &id, err);
            measurement_clear(&m);
            if (recorded != 0) goto done;
        }
        if (store_campaign_close(st, campaign_id, "done", err) != 0) goto done;
    }
    rc = 0;
done:
    store_close(st);
    return rc;
}
