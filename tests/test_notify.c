/* Notifications: the event documents and their chat shapes, the notifier's
 * rate limit, outage logging and bounded close, and `skytune run --notify`
 * on PoCL against a real HTTP(S) server on 127.0.0.1 (tests/http_sink.py)
 * that answers, answers 500, holds its answer, is down, or has a
 * self-signed certificate. Whatever the server does, the campaign measures
 * the same configurations and exits 0. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "http_sink.h"
#include "notify_sender.h"
#include "notify_format.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
    http_sink_clear_proxies();
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

TestSuite(notify, .init = make_scratch, .fini = remove_scratch);

/* ------------------------------------------------------------ helpers */

/* Lines the notifier logged, in order. */
typedef struct log_lines {
    char *lines[64];
    size_t n;
} log_lines;

static void keep_line(void *ctx, const char *text)
{
    log_lines *log = ctx;
    if (log->n < 64) log->lines[log->n++] = strdup(text);
}

static void log_lines_free(log_lines *log)
{
    for (size_t k = 0; k < log->n; k++) free(log->lines[k]);
    log->n = 0;
}

static size_t lines_containing(const log_lines *log, const char *part)
{
    size_t n = 0;
    for (size_t k = 0; k < log->n; k++) n += strstr(log->lines[k], part) != NULL;
    return n;
}

static size_t count_occurrences(const char *text, const char *part)
{
    size_t n = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part)) n++;
    return n;
}

/* Request n's body parsed as JSON. */
static json_t *request_document(const http_sink *sink, size_t n)
{
    char *body = http_sink_body(sink, n, NULL);
    json_error_t error;
    json_t *doc = json_loads(body, 0, &error);
    cr_assert(doc, "request %zu is not JSON (%s):\n%s", n, error.text, body);
    free(body);
    return doc;
}

static const char *event_name(const json_t *doc);

/* Whether request n's body is the named event. */
static bool request_is(const http_sink *sink, size_t n, const char *event)
{
    json_t *doc = request_document(sink, n);
    bool is = strcmp(event_name(doc), event) == 0;
    json_decref(doc);
    return is;
}

static const char *event_name(const json_t *doc)
{
    const char *name = json_string_value(json_object_get(doc, "event"));
    cr_assert(name, "a document without an \"event\" string");
    return name;
}

/* The events the sink received and answered 200, in order. */
typedef struct received {
    json_t *docs[256];
    size_t n;
} received;

static received delivered_events(const http_sink *sink)
{
    received r = {.n = 0};
    size_t total = http_sink_count(sink);
    for (size_t k = 1; k <= total && r.n < 256; k++) {
        char *path;
        char name[64];
        snprintf(name, sizeof name, "%04zu.answered", k);
        path = cli_path(sink->dir, name);
        size_t len;
        char *status = (char *)cli_read_file(path, &len);
        free(path);
        if (status && strcmp(status, "200") == 0) r.docs[r.n++] = request_document(sink, k);
        free(status);
    }
    return r;
}

static void received_free(received *r)
{
    for (size_t k = 0; k < r->n; k++) json_decref(r->docs[k]);
    r->n = 0;
}

static char *event_sequence(const received *r)
{
    static char text[8192];
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < r->n && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", k ? " " : "",
                                 event_name(r->docs[k]));
    return text;
}

static size_t count_events(const received *r, const char *name)
{
    size_t n = 0;
    for (size_t k = 0; k < r->n; k++) n += strcmp(event_name(r->docs[k]), name) == 0;
    return n;
}

/* A small exhaustive campaign of vector_add on PoCL: six configurations. */
#define BUDGET 6
typedef struct command {
    const char *args[40];
    size_t n;
} command;

static command run_command(const char *db)
{
    command c = {{"run", "--plugin", "vector_add", "--plugin-dir", cli_plugin_dir(), "--preset",
                  "small", "--strategy", "exhaustive", "--budget", "6", "--runs", "2", "--db", db},
                 15};
    return c;
}

static void add_args(command *c, const char *a, const char *b)
{
    c->args[c->n++] = a;
    if (b) c->args[c->n++] = b;
    c->args[c->n] = NULL;
}

static cli_result run(command *c)
{
    c->args[c->n] = NULL;
    return cli_run(c->args);
}

/* The campaign's evaluations in order: "config:status;...". */
static char *evaluations(const char *db)
{
    return cli_db_text(db, "SELECT group_concat(configuration || ':' || status, ';') FROM "
                           "(SELECT configuration, status FROM results ORDER BY seq)");
}

/* The same campaign without notifications, for comparison. */
static char *baseline_evaluations(void)
{
    char *db = cli_path(scratch, "baseline.db");
    command c = run_command(db);
    cli_result r = run(&c);
    cr_assert_eq(r.status, 0, "the baseline run failed (%s):\n%s%s", cli_status_text(r.status),
                 r.out, r.err);
    cli_result_free(&r);
    char *text = evaluations(db);
    free(db);
    return text;
}

/* The campaign with --notify to the sink, checked against the same
 * campaign without: it exits 0 and measures the same configurations in the
 * same order. The result is returned for what it printed. */
static cli_result run_unaffected(const http_sink *sink, const char *db_name)
{
    char *expected = baseline_evaluations();
    char *db = cli_path(scratch, db_name);
    command c = run_command(db);
    add_args(&c, "--notify", sink->url);
    cli_result r = run(&c);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    char *measured = evaluations(db);
    cr_assert_str_eq(measured, expected, "the notifications changed what was measured");
    free(measured);
    free(expected);
    free(db);
    return r;
}

/* ------------------------------------------------------------ documents */

static void expect_keys(const json_t *obj, const char *const *keys, const char *what)
{
    cr_assert(json_is_object(obj), "%s is not an object", what);
    size_t n = 0;
    for (; keys[n]; n++)
        cr_assert(json_object_get(obj, keys[n]), "%s has no \"%s\"", what, keys[n]);
    cr_assert_eq(json_object_size(obj), n, "%s has %zu keys, the documented %zu", what,
                 json_object_size(obj), n);
}

static const char *const top_keys[] = {"schema_version", "event", "time", "campaign", "instance",
                                       "counts", "best", "stop", "error", NULL};
static const char *const campaign_keys[] = {"name", "database", "host", "instances", "started", NULL};
static const char *const instance_keys[] = {"index", "campaign_id", "plugin", "plugin_version",
                                            "problem", "device", "platform", "strategy",
                                            "space_size", "started", NULL};
static const char *const counts_keys[] = {"evaluated", "measured", "reused", "by_status", NULL};
static const char *const status_keys[] = {"ok", "compile", "launch", "wrong_result", "timeout",
                                          "crash", NULL};
static const char *const best_keys[] = {"config", "median_ns", "gflops", NULL};

static bool is_utc_time(const json_t *v)
{
    const char *t = json_string_value(v);
    /* 2025-03-01T02:03:04.567Z */
    return t && strlen(t) == 24 && t[4] == '-' && t[10] == 'T' && t[19] == '.' && t[23] == 'Z';
}

/* Every key the documentation lists, with its type. */
static void expect_document_shape(const json_t *doc)
{
    expect_keys(doc, top_keys, "the event");
    cr_assert_eq(json_integer_value(json_object_get(doc, "schema_version")), 1);
    cr_assert(is_utc_time(json_object_get(doc, "time")), "time is not UTC ISO 8601");
    const json_t *c = json_object_get(doc, "campaign");
    expect_keys(c, campaign_keys, "campaign");
    cr_assert(json_is_string(json_object_get(c, "name")));
    cr_assert(json_is_string(json_object_get(c, "host")));
    cr_assert(is_utc_time(json_object_get(c, "started")));
    const json_t *in = json_object_get(doc, "instance");
    if (!json_is_null(in)) {
        expect_keys(in, instance_keys, "instance");
        cr_assert(json_is_integer(json_object_get(in, "index")));
        cr_assert(json_is_integer(json_object_get(in, "space_size")));
    }
    const json_t *counts = json_object_get(doc, "counts");
    expect_keys(counts, counts_keys, "counts");
    expect_keys(json_object_get(counts, "by_status"), status_keys, "counts.by_status");
    const json_t *best = json_object_get(doc, "best");
    if (!json_is_null(best)) {
        expect_keys(best, best_keys, "best");
        cr_assert(json_is_string(json_object_get(best, "config")));
        cr_assert(json_is_number(json_object_get(best, "median_ns")));
    }
    const json_t *stop = json_object_get(doc, "stop"), *error = json_object_get(doc, "error");
    cr_assert(json_is_null(stop) || json_is_string(stop));
    cr_assert(json_is_null(error) || json_is_string(error));
}

static notify_instance example_instance(void)
{
    return (notify_instance){.index = 1, .campaign_id = 7, .plugin = "vector_add",
                             .plugin_version = "1.0", .problem = "n=4096", .device = "gpu \xff",
                             .platform = "p", .strategy = "random", .space_size = 28,
                             .started_at = 1700000000.25};
}

Test(notify, event_document_has_every_documented_field)
{
    notify_instance in = example_instance();
    notify_event ev = {.kind = NOTIFY_INSTANCE_FINISHED, .campaign = "skytune run ...",
                       .database = "/data/x.db", .host = "node7", .instances = 1,
                       .campaign_started_at = 1700000000.0, .time = 1700000100.5, .instance = &in,
                       .counts = {.evaluated = 12, .measured = 10, .reused = 2,
                                  .by_status = {[MEAS_OK] = 11, [MEAS_COMPILE] = 1}},
                       .best = {.known = true, .config = "wg_size=64,per_item=2",
                                .median_ns = 8125.5, .gflops = 3.25},
                       .stop = "budget reached"};
    json_t *doc = notify_event_json(&ev);
    cr_assert(doc);
    expect_document_shape(doc);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "event")), "instance_finished");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "time")), "2023-11-14T22:15:00.500Z");
    const json_t *instance = json_object_get(doc, "instance");
    /* A device name that is not UTF-8 still gives a document that parses. */
    cr_assert_str_eq(json_string_value(json_object_get(instance, "device")), "gpu ?");
    cr_assert_eq(json_integer_value(json_object_get(instance, "campaign_id")), 7);
    const json_t *counts = json_object_get(doc, "counts");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(counts, "by_status"), "compile")), 1);
    cr_assert_eq(json_integer_value(json_object_get(counts, "reused")), 2);
    const json_t *best = json_object_get(doc, "best");
    cr_assert_float_eq(json_real_value(json_object_get(best, "gflops")), 3.25, 1e-12);

    /* No best yet, no instance (a campaign of several), no GFLOP/s. */
    notify_event bare = {.kind = NOTIFY_CAMPAIGN_STARTED, .campaign = "c", .database = "d",
                         .host = "h", .instances = 3, .campaign_started_at = 1700000000.0};
    json_t *doc2 = notify_event_json(&bare);
    expect_document_shape(doc2);
    cr_assert(json_is_null(json_object_get(doc2, "instance")));
    cr_assert(json_is_null(json_object_get(doc2, "best")));
    json_decref(doc2);

    /* The chat shapes carry one line of text with what matters. */
    char *slack = notify_format_body(doc, NOTIFY_FORMAT_SLACK);
    char *matrix = notify_format_body(doc, NOTIFY_FORMAT_MATRIX);
    char *plain = notify_format_body(doc, NOTIFY_FORMAT_JSON);
    json_t *s = json_loads(slack, 0, NULL), *m = json_loads(matrix, 0, NULL), *p = json_loads(plain, 0, NULL);
    cr_assert(s && m && p);
    cr_assert_eq(json_object_size(s), 1, "slack: %s", slack);
    const char *text = json_string_value(json_object_get(s, "text"));
    cr_assert(text && strncmp(text, "skytune: instance 1 of 1 finished (budget reached)", 50) == 0,
              "slack text: %s", text);
    cr_assert(strstr(text, "wg_size=64,per_item=2") && strstr(text, "8.126 \xC2\xB5s") &&
                  strstr(text, "ok 11, compile 1") && strstr(text, "/data/x.db"),
              "slack text lacks the best, its time, the counts or the database: %s", text);
    cr_assert_eq(json_object_size(m), 2, "matrix: %s", matrix);
    cr_assert_str_eq(json_string_value(json_object_get(m, "msgtype")), "m.text");
    cr_assert_str_eq(json_string_value(json_object_get(m, "body")), text);
    cr_assert(json_equal(p, doc), "the json format is not the event document: %s", plain);
    skytune_error err;
    notify_format f;
    cr_assert_eq(notify_format_parse("teams", &f, &err), -1);
    cr_assert(strstr(err.message, "json") && strstr(err.message, "slack") &&
              strstr(err.message, "matrix"), "%s", err.message);
    json_decref(s);
    json_decref(m);
    json_decref(p);
    free(slack);
    free(matrix);
    free(plain);
    json_decref(doc);
}

/* ------------------------------------------------------------ the notify_sender */

static notify_sender *open_notifier(const http_sink *sink, notify_sender_options o, log_lines *log)
{
    o.on_log = keep_line;
    o.log_ctx = log;
    notify_sender *n;
    skytune_error err;
    cr_assert_eq(notify_sender_open(sink->url, &o, &n, &err), 0, "%s", err.message);
    return n;
}

/* campaign_started and campaign_finished through a notifier with options
 * o, closed; what happened to them. */
static notify_sender_totals post_two_events(const http_sink *sink, notify_sender_options o, log_lines *log)
{
    notify_sender *n = open_notifier(sink, o, log);
    notify_event ev = {.kind = NOTIFY_CAMPAIGN_STARTED, .campaign = "c", .database = "d",
                       .host = "h", .instances = 1, .campaign_started_at = 1.0};
    notify_sender_post(n, &ev);
    ev.kind = NOTIFY_CAMPAIGN_FINISHED;
    notify_sender_post(n, &ev);
    notify_sender_totals totals;
    notify_sender_close(n, &totals);
    return totals;
}

static notify_event best_event(const notify_instance *in, const char *config, double ns)
{
    return (notify_event){.kind = NOTIFY_NEW_BEST, .campaign = "c", .database = "d", .host = "h",
                          .instances = 1, .campaign_started_at = 1.0, .instance = in,
                          .best = {.known = true, .config = config, .median_ns = ns}};
}

Test(notify, new_best_is_rate_limited_and_the_final_best_always_sent)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    log_lines log = {.n = 0};
    notify_sender_options o;
    notify_sender_options_default(&o);
    o.best_interval_s = 3600;
    notify_sender *n = open_notifier(&sink, o, &log);
    notify_instance in = example_instance();
    notify_event started = {.kind = NOTIFY_CAMPAIGN_STARTED, .campaign = "c", .database = "d",
                            .host = "h", .instances = 1, .campaign_started_at = 1.0, .instance = &in};
    notify_sender_post(n, &started);
    const char *configs[] = {"a=1", "a=2", "a=3", "a=4"};
    for (int k = 0; k < 4; k++) {
        notify_event ev = best_event(&in, configs[k], 100.0 - k);
        notify_sender_post(n, &ev);
    }
    notify_event done = started;
    done.kind = NOTIFY_INSTANCE_FINISHED;
    notify_sender_post(n, &done);
    done.kind = NOTIFY_CAMPAIGN_FINISHED;
    notify_sender_post(n, &done);
    notify_sender_totals totals;
    notify_sender_close(n, &totals);
    http_sink_stop(&sink);

    received r = delivered_events(&sink);
    /* The first best at once; a minute has not passed, so of the others
     * only the latest, and that before the instance's end. */
    cr_assert_str_eq(event_sequence(&r),
                     "campaign_started new_best new_best instance_finished campaign_finished");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.docs[1], "best"), "config")), "a=1");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.docs[2], "best"), "config")), "a=4");
    cr_assert_eq(totals.posted, 7);
    cr_assert_eq(totals.delivered, 5);
    cr_assert_eq(totals.superseded, 2);
    cr_assert_eq(totals.failed + totals.dropped + totals.abandoned, 0);
    cr_assert_eq(log.n, 0, "nothing to log when every event arrives, got: %s", log.n ? log.lines[0] : "");
    for (size_t k = 1; k <= http_sink_count(&sink); k++) {
        json_t *rq = http_sink_request(&sink, k);
        cr_assert_str_eq(json_string_value(json_object_get(rq, "method")), "POST");
        cr_assert_str_eq(json_string_value(json_object_get(rq, "path")), "/hook/k3y-that-is-secret");
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(rq, "headers"),
                                                           "content-type")),
                         "application/json");
        json_decref(rq);
    }
    received_free(&r);
    log_lines_free(&log);
}

Test(notify, an_outage_is_logged_once_and_its_end_once)
{
    /* Three 500s: the first event fails both its attempts (dropped), the
     * second fails once and then arrives. */
    http_sink sink;
    http_sink_start(&sink, scratch, "fail:3", NULL, NULL);
    notify_sender_options o;
    notify_sender_options_default(&o);
    o.http.attempts = 2;
    o.http.backoff_s = 0.01;
    log_lines log = {.n = 0};
    notify_sender_totals totals = post_two_events(&sink, o, &log);
    http_sink_stop(&sink);
    cr_assert_eq(http_sink_count(&sink), 4, "2 attempts each: %zu requests", http_sink_count(&sink));
    cr_assert_eq(totals.failed, 1);
    cr_assert_eq(totals.delivered, 1);
    cr_assert_eq(log.n, 2, "one line when the outage begins, one when it ends; got %zu", log.n);
    cr_assert(strstr(log.lines[0], "cannot deliver to http://127.0.0.1:") &&
                  strstr(log.lines[0], "HTTP 500"), "%s", log.lines[0]);
    /* The webhook's path is its key: never in a log. */
    cr_assert(!strstr(log.lines[0], "k3y-that-is-secret"), "%s", log.lines[0]);
    cr_assert(strstr(log.lines[1], "answers again (1 event could not be delivered meanwhile)"),
              "%s", log.lines[1]);
    received r = delivered_events(&sink);
    cr_assert_str_eq(event_sequence(&r), "campaign_finished");
    received_free(&r);
    log_lines_free(&log);
}

Test(notify, close_gives_up_on_a_server_that_holds_its_answer)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "hold", NULL, NULL);
    notify_sender_options o;
    notify_sender_options_default(&o);
    o.close_wait_s = 0.2;
    log_lines log = {.n = 0};
    notify_sender_totals totals = post_two_events(&sink, o, &log);
    /* close returned while the server still holds whatever reached it. */
    for (size_t k = 1; k <= http_sink_count(&sink); k++)
        cr_assert(!http_sink_answered(&sink, k), "request %zu was answered", k);
    http_sink_release(&sink);
    http_sink_stop(&sink);
    cr_assert_eq(totals.delivered, 0);
    cr_assert_eq(totals.abandoned, 2, "both events given up, got %llu",
                 (unsigned long long)totals.abandoned);
    cr_assert_eq(lines_containing(&log, "gave up on 2 events still waiting for http://127.0.0.1:"),
                 1, "no line saying what was given up (%zu lines)", log.n);
    log_lines_free(&log);
}

Test(notify, only_http_and_https_urls)
{
    notify_sender_options o;
    notify_sender_options_default(&o);
    notify_sender *n;
    skytune_error err;
    cr_assert_eq(notify_sender_open("ftp://example.org/x", &o, &n, &err), -1);
    cr_assert(strstr(err.message, "only http:// and https://"), "%s", err.message);
    cr_assert_eq(notify_sender_open("not a url", &o, &n, &err), -1);
    cr_assert(strstr(err.message, "is not a URL"), "%s", err.message);
    cr_assert_null(n);
}

/* ------------------------------------------------------------ skytune run --notify */

/* The best after each evaluation that improved it, from the database. */
typedef struct improvement {
    char config[256];
    double median_ns;
} improvement;

static size_t improvements(const char *db, improvement *out, size_t cap)
{
    size_t n = 0;
    double best = INFINITY;
    long long count = cli_db_int(db, "SELECT COUNT(*) FROM results");
    for (long long seq = 0; seq < count; seq++) {
        char *status = cli_db_text(db, "SELECT status FROM results WHERE seq = %lld", seq);
        if (strcmp(status, "ok") == 0) {
            char *median = cli_db_text(db, "SELECT median_ns FROM results WHERE seq = %lld", seq);
            double v = strtod(median, NULL);
            if (v < best && n < cap) {
                best = v;
                char *config = cli_db_text(db, "SELECT configuration FROM results WHERE seq = %lld", seq);
                snprintf(out[n].config, sizeof out[n].config, "%s", config);
                out[n].median_ns = v;
                n++;
                free(config);
            }
            free(median);
        }
        free(status);
    }
    return n;
}

static const json_t *at(const json_t *doc, const char *a, const char *b)
{
    const json_t *v = json_object_get(doc, a);
    return b ? json_object_get(v, b) : v;
}

Test(notify, run_posts_every_event_with_the_documented_json, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char *db = cli_path(scratch, "notified.db");
    command c = run_command(db);
    add_args(&c, "--notify", sink.url);
    add_args(&c, "--notify-best-interval", "0");
    cli_result r = run(&c);
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert(!strstr(r.err, "notify"), "nothing to say when every event arrives:\n%s", r.err);

    received got = delivered_events(&sink);
    cr_assert_eq(got.n, http_sink_count(&sink), "every request answered 200");
    /* Every improvement of the best, in order: the interval is 0. */
    improvement best[BUDGET];
    size_t n_best = improvements(db, best, BUDGET);
    cr_assert(n_best >= 1);
    cr_assert_eq(got.n, 3 + n_best, "events: %s", event_sequence(&got));
    cr_assert_str_eq(event_name(got.docs[0]), "campaign_started");
    cr_assert_str_eq(event_name(got.docs[got.n - 2]), "instance_finished");
    cr_assert_str_eq(event_name(got.docs[got.n - 1]), "campaign_finished");

    char *abs_db = cli_path(scratch, "notified.db"); /* scratch is absolute */
    char *problem = cli_db_text(db, "SELECT text FROM problems");
    char *device = cli_db_text(db, "SELECT name FROM devices");
    long long campaign_id = cli_db_int(db, "SELECT id FROM campaigns");
    char *command_text = cli_db_text(db, "SELECT command FROM campaigns");
    for (size_t k = 0; k < got.n; k++) {
        const json_t *doc = got.docs[k];
        expect_document_shape(doc);
        cr_assert_str_eq(json_string_value(at(doc, "campaign", "database")), abs_db);
        cr_assert_eq(json_integer_value(at(doc, "campaign", "instances")), 1);
        /* One instance: every event names it. */
        const json_t *in = at(doc, "instance", NULL);
        cr_assert_str_eq(json_string_value(json_object_get(in, "plugin")), "vector_add");
        cr_assert_str_eq(json_string_value(json_object_get(in, "problem")), problem);
        cr_assert_str_eq(json_string_value(json_object_get(in, "device")), device);
        cr_assert_str_eq(json_string_value(json_object_get(in, "strategy")), "exhaustive");
        cr_assert_eq(json_integer_value(json_object_get(in, "campaign_id")), campaign_id);
        cr_assert_eq(json_integer_value(json_object_get(in, "index")), 1);
        cr_assert_eq(json_integer_value(json_object_get(in, "space_size")), 28);
        const char *name = json_string_value(at(doc, "campaign", "name"));
        cr_assert_str_eq(name, command_text, "the campaign is named by its recorded command");
    }
    /* The webhook's secret path is neither in the database nor in the events. */
    cr_assert(!strstr(command_text, "k3y-that-is-secret"), "%s", command_text);
    cr_assert(strstr(command_text, "--notify http://127.0.0.1:"), "%s", command_text);

    const json_t *started = got.docs[0];
    cr_assert(json_is_null(at(started, "best", NULL)));
    cr_assert_eq(json_integer_value(at(started, "counts", "evaluated")), 0);
    for (size_t k = 0; k < n_best; k++) {
        const json_t *doc = got.docs[1 + k];
        cr_assert_str_eq(event_name(doc), "new_best");
        cr_assert_str_eq(json_string_value(at(doc, "best", "config")), best[k].config);
        double ns = json_number_value(at(doc, "best", "median_ns"));
        cr_assert(fabs(ns - best[k].median_ns) <= 1e-9 * best[k].median_ns, "%g vs %g", ns,
                  best[k].median_ns);
        cr_assert(json_is_number(at(doc, "best", "gflops")), "vector_add counts its FLOPs");
    }
    char *final_config = cli_db_text(db, "SELECT configuration FROM results WHERE status = 'ok' "
                                         "ORDER BY median_ns, seq LIMIT 1");
    long long ok = cli_db_int(db, "SELECT COUNT(*) FROM results WHERE status = 'ok'");
    for (size_t k = got.n - 2; k < got.n; k++) {
        const json_t *doc = got.docs[k];
        cr_assert_str_eq(json_string_value(at(doc, "stop", NULL)), "budget reached");
        cr_assert(json_is_null(at(doc, "error", NULL)));
        cr_assert_eq(json_integer_value(at(doc, "counts", "evaluated")), BUDGET);
        cr_assert_eq(json_integer_value(at(doc, "counts", "measured")), BUDGET);
        cr_assert_eq(json_integer_value(at(doc, "counts", "reused")), 0);
        cr_assert_eq(json_integer_value(json_object_get(at(doc, "counts", "by_status"), "ok")), ok);
        cr_assert_str_eq(json_string_value(at(doc, "best", "config")), final_config);
    }
    received_free(&got);
    free(final_config);
    free(command_text);
    free(problem);
    free(device);
    free(abs_db);
    free(db);
    cli_result_free(&r);
}

Test(notify, run_sends_new_best_at_most_once_an_interval_and_the_final_best, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char *db = cli_path(scratch, "limited.db");
    command c = run_command(db);
    add_args(&c, "--notify", sink.url);
    add_args(&c, "--notify-best-interval", "1h");
    add_args(&c, "--notify-format", "json");
    cli_result r = run(&c);
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    received got = delivered_events(&sink);
    improvement best[BUDGET];
    size_t n_best = improvements(db, best, BUDGET);
    /* The first best at once; within the hour only the final one more. */
    size_t expected = n_best >= 2 ? 2 : 1;
    cr_assert_eq(count_events(&got, "new_best"), expected, "%zu improvements, events: %s", n_best,
                 event_sequence(&got));
    cr_assert_str_eq(json_string_value(at(got.docs[1], "best", "config")), best[0].config);
    const json_t *last_best = got.docs[expected];
    cr_assert_str_eq(event_name(last_best), "new_best");
    cr_assert_str_eq(json_string_value(at(last_best, "best", "config")), best[n_best - 1].config);
    cr_assert_str_eq(event_name(got.docs[expected + 1]), "instance_finished");
    received_free(&got);
    free(db);
    cli_result_free(&r);
}

Test(notify, run_retries_a_server_answering_500, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "fail:2", NULL, NULL);
    cli_result r = run_unaffected(&sink, "retried.db");
    http_sink_stop(&sink);
    /* campaign_started was refused twice, then arrived, as did the rest. */
    cr_assert(request_is(&sink, 1, "campaign_started"), "request 1 is not campaign_started");
    cr_assert(request_is(&sink, 3, "campaign_started"), "request 3 is not campaign_started");
    received got = delivered_events(&sink);
    cr_assert_str_eq(event_name(got.docs[0]), "campaign_started");
    cr_assert_eq(count_events(&got, "campaign_started"), 1);
    cr_assert_eq(count_events(&got, "instance_finished"), 1);
    cr_assert_str_eq(event_name(got.docs[got.n - 1]), "campaign_finished", "%s", event_sequence(&got));
    /* Logged once as it began and once as it ended. */
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: cannot deliver to"), 1, "%s", r.err);
    cr_assert_eq(count_occurrences(r.err, "HTTP 500"), 1, "%s", r.err);
    cr_assert_eq(count_occurrences(r.err, "answers again"), 1, "%s", r.err);
    cr_assert_eq(count_occurrences(r.err, "notify"), 2, "%s", r.err);
    received_free(&got);
    cli_result_free(&r);
}

Test(notify, run_goes_on_when_the_server_is_down, .timeout = 300)
{
    /* A port that was just listened on and is now closed. */
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    http_sink_stop(&sink);
    cli_result r = run_unaffected(&sink, "down.db");
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: cannot deliver to http://127.0.0.1:"), 1,
                 "%s", r.err);
    cr_assert_eq(count_occurrences(r.err, "answers again"), 0, "%s", r.err);
    cr_assert(!strstr(r.err, "k3y-that-is-secret"), "%s", r.err);
    /* The run ends; what could not be sent by then is given up, said once. */
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: gave up on "), 1, "%s", r.err);
    cr_assert_eq(http_sink_count(&sink), 0);
    cli_result_free(&r);
}

Test(notify, run_goes_on_when_the_server_closes_connections, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "drop", NULL, NULL);
    cli_result r = run_unaffected(&sink, "dropped.db");
    http_sink_stop(&sink);
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: cannot deliver to"), 1, "%s", r.err);
    /* Every attempt reached the server, and each was retried. */
    cr_assert(http_sink_count(&sink) >= 2, "%zu requests", http_sink_count(&sink));
    cr_assert(request_is(&sink, 2, "campaign_started"), "request 2 is not campaign_started");
    cli_result_free(&r);
}

Test(notify, run_finishes_while_a_slow_server_holds_its_request, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "hold", NULL, NULL);
    cli_result r = run_unaffected(&sink, "slow.db");
    /* The run is over; the server has not answered anything yet. */
    size_t held = http_sink_count(&sink);
    bool any_answered = false;
    for (size_t k = 1; k <= held; k++) any_answered |= http_sink_answered(&sink, k);
    http_sink_release(&sink);
    http_sink_stop(&sink);
    cr_assert(held >= 1, "the first event never reached the server");
    cr_assert(!any_answered, "the server answered before the run ended");
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: gave up on "), 1, "%s", r.err);
    cli_result_free(&r);
}

Test(notify, run_refuses_a_self_signed_server_unless_its_ca_is_given, .timeout = 300)
{
    char *cert, *key;
    http_sink_make_certificate(scratch, &cert, &key);
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", cert, key);
    char *db = cli_path(scratch, "tls.db");
    command c = run_command(db);
    add_args(&c, "--notify", sink.url);
    cli_result r = run(&c);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert_eq(http_sink_count(&sink), 0, "an untrusted server was sent events");
    cr_assert_eq(count_occurrences(r.err, "skytune: notify: "), 1, "%s", r.err);
    cr_assert(strstr(r.err, "certificate could not be verified"), "%s", r.err);
    cli_result_free(&r);

    /* The same command with its CA: the campaign (all six configurations
     * now from the database) and its events arrive. */
    add_args(&c, "--notify-ca", cert);
    add_args(&c, "--notify-format", "matrix");
    r = run(&c);
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert(!strstr(r.err, "notify"), "%s", r.err);
    received got = delivered_events(&sink);
    cr_assert_eq(got.n, http_sink_count(&sink));
    cr_assert(got.n >= 3, "%zu events", got.n);
    for (size_t k = 0; k < got.n; k++) {
        cr_assert_str_eq(json_string_value(json_object_get(got.docs[k], "msgtype")), "m.text");
        cr_assert(strncmp(json_string_value(json_object_get(got.docs[k], "body")), "skytune: ", 9) == 0);
    }
    const char *last = json_string_value(json_object_get(got.docs[got.n - 1], "body"));
    cr_assert(strstr(last, "campaign finished (budget reached)") && strstr(last, "6 evaluated"),
              "%s", last);

    /* A CA file that is not there is refused before anything runs. */
    command bad = run_command(db);
    add_args(&bad, "--notify", sink.url);
    add_args(&bad, "--notify-ca", "/nonexistent/ca.pem");
    cli_result_free(&r);
    r = run(&bad);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--notify-ca /nonexistent/ca.pem"), "%s", r.err);
    received_free(&got);
    free(db);
    free(cert);
    free(key);
    cli_result_free(&r);
}

Test(notify, a_campaign_file_sends_the_events_of_every_instance, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char text[1024];
    snprintf(text, sizeof text,
             "plugin: vector_add\nproblem:\n  n: [4096, 8192]\nstrategy: exhaustive\n"
             "budget: 2\nruns: 2\ndatabase: sweep.db\nnotify: {url: '%s', format: json}\n",
             sink.url);
    char *file = cli_path(scratch, "sweep.yaml"), *db = cli_path(scratch, "sweep.db");
    cli_write_file(file, text, strlen(text));
    cli_result r = cli_run(CLI_ARGS("campaign", "run", file, "--plugin-dir", cli_plugin_dir(),
                                    "--notify-best-interval", "0", "--quiet"));
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    received got = delivered_events(&sink);
    cr_assert(got.n >= 5, "events: %s", event_sequence(&got));
    for (size_t k = 0; k < got.n; k++) {
        expect_document_shape(got.docs[k]);
        cr_assert_eq(json_integer_value(at(got.docs[k], "campaign", "instances")), 2);
        cr_assert_str_eq(json_string_value(at(got.docs[k], "campaign", "database")), db);
    }
    /* The campaign's own events: two instances, so none is named. */
    const json_t *first = got.docs[0], *last = got.docs[got.n - 1];
    cr_assert_str_eq(event_name(first), "campaign_started");
    cr_assert(json_is_null(at(first, "instance", NULL)));
    cr_assert(strncmp(json_string_value(at(first, "campaign", "name")), "skytune campaign run ", 21) == 0);
    cr_assert_str_eq(event_name(last), "campaign_finished", "%s", event_sequence(&got));
    cr_assert(json_is_null(at(last, "instance", NULL)));
    cr_assert_str_eq(json_string_value(at(last, "stop", NULL)), "done");
    cr_assert_eq(json_integer_value(at(last, "counts", "evaluated")), 4);
    /* Each instance: its new bests, then its end, in sweep order. */
    const char *problems[] = {"n=4096", "n=8192"};
    size_t finished = 0;
    for (size_t k = 1; k + 1 < got.n; k++) {
        const json_t *doc = got.docs[k];
        const json_t *in = at(doc, "instance", NULL);
        cr_assert(json_is_object(in), "event %zu names no instance", k);
        cr_assert(finished < 2, "an event after both instances finished: %s", event_sequence(&got));
        cr_assert_eq(json_integer_value(json_object_get(in, "index")), (json_int_t)finished + 1);
        cr_assert_str_eq(json_string_value(json_object_get(in, "problem")), problems[finished]);
        if (strcmp(event_name(doc), "instance_finished") == 0) {
            long long id = json_integer_value(json_object_get(in, "campaign_id"));
            char *best = cli_db_text(db, "SELECT configuration FROM results WHERE campaign_id = "
                                         "%lld AND status = 'ok' ORDER BY median_ns, seq LIMIT 1", id);
            cr_assert_str_eq(json_string_value(at(doc, "best", "config")), best);
            cr_assert_eq(json_integer_value(at(doc, "counts", "evaluated")), 2);
            cr_assert_str_eq(json_string_value(at(doc, "stop", NULL)), "budget reached");
            free(best);
            finished++;
        } else {
            cr_assert_str_eq(event_name(doc), "new_best");
        }
    }
    cr_assert_eq(finished, 2, "events: %s", event_sequence(&got));
    received_free(&got);
    free(file);
    free(db);
    cli_result_free(&r);
}

Test(notify, a_run_refused_as_bad_input_sends_campaign_failed, .timeout = 300)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char *db = cli_path(scratch, "never.db");
    command c = run_command(db);
    add_args(&c, "--set", "n=-3");
    add_args(&c, "--notify", sink.url);
    cli_result r = run(&c);
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 1, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert(!cli_file_exists(db), "a refused run created its database");
    received got = delivered_events(&sink);
    cr_assert_str_eq(event_sequence(&got), "campaign_failed");
    expect_document_shape(got.docs[0]);
    const char *error = json_string_value(at(got.docs[0], "error", NULL));
    cr_assert(error && strstr(error, "n must be at least 1") && strstr(r.err, error),
              "the event's error is not the one printed: %s\n%s", error, r.err);
    cr_assert(json_is_null(at(got.docs[0], "instance", NULL)), "no instance started");
    cr_assert(json_is_null(at(got.docs[0], "stop", NULL)));
    received_free(&got);
    free(db);
    cli_result_free(&r);
}

Test(notify, run_refuses_bad_notify_options)
{
    const char *db = "/nonexistent/never.db";
    command c = run_command(db);
    add_args(&c, "--notify", "ftp://example.org/x");
    cli_result r = run(&c);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "only http:// and https://"), "%s", r.err);
    cli_result_free(&r);
    c = run_command(db);
    add_args(&c, "--notify", "http://127.0.0.1:1/x");
    add_args(&c, "--notify-format", "teams");
    r = run(&c);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "json") && strstr(r.err, "slack") && strstr(r.err, "matrix"), "%s", r.err);
    cli_result_free(&r);
    c = run_command(db);
    add_args(&c, "--notify-format", "slack");
    r = run(&c);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "go with --notify URL"), "%s", r.err);
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("run", "--help"));
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--notify URL") && strstr(r.out, "--notify-format") &&
              strstr(r.out, "--notify-ca FILE") && strstr(r.out, "--notify-best-interval"),
              "%s", r.out);
    cli_result_free(&r);
}

/* `skytune campaign merge` of a campaign file with notify: an incomplete
 * campaign (no shard ran) is refused and campaign_failed names the
 * missing shards. */
Test(notify, an_incomplete_campaign_merge_sends_campaign_failed_naming_the_shards)
{
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    char text[1024];
    snprintf(text, sizeof text,
             "plugin: vector_add\npreset: small\nstrategy: exhaustive\nnotify: %s\n", sink.url);
    char *file = cli_path(scratch, "merged.yaml");
    cli_write_file(file, text, strlen(text));
    cli_result r = cli_run(CLI_ARGS("campaign", "merge", file, "--shards", "2", "--plugin-dir",
                                    cli_plugin_dir()));
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect(strstr(r.err, "shard 0: no database") && strstr(r.err, "shard 1: no database"),
              "%s", r.err);
    cli_result_free(&r);
    cr_assert(http_sink_wait_for(&sink, 1), "no notification");
    json_t *doc = request_document(&sink, 1);
    http_sink_stop(&sink);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "event")), "campaign_failed");
    const char *error = json_string_value(json_object_get(doc, "error"));
    cr_expect(error && strstr(error, "merge incomplete: 2 of 2 shards") &&
                  strstr(error, "shard 1: no database"),
              "%s", error ? error : "(no error)");
    json_decref(doc);
    free(file);
}
