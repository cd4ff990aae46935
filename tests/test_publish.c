/* `skytune publish`: a campaign measured on PoCL uploaded to a real HTTP(S)
 * server on 127.0.0.1 (tests/http_sink.py). The T4 the server receives
 * reads back through `skytune run --replay` as the same configurations; the
 * bearer token comes from the environment, arrives in the Authorization
 * header and is never on the command line; refusals, retries and
 * certificates are reported with a non-zero exit. */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "http_sink.h"

static char *scratch;
static char *db;

#define TOKEN "tok-3f9a0c-never-on-the-command-line"

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
    http_sink_clear_proxies();
    unsetenv("SKYTUNE_PUBLISH_TOKEN");
    db = cli_path(scratch, "campaign.db");
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    free(db);
    scratch = db = NULL;
}

TestSuite(publish, .init = make_scratch, .fini = remove_scratch);

/* A small exhaustive campaign of vector_add on PoCL into db. */
static void measure_campaign(void)
{
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "vector_add", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small", "--strategy",
                                    "exhaustive", "--budget", "6", "--runs", "2", "--db", db,
                                    "--quiet"));
    cr_assert_eq(r.status, 0, "the campaign failed (%s):\n%s%s", cli_status_text(r.status), r.out,
                 r.err);
    cli_result_free(&r);
}

static const char *header(const json_t *request, const char *name)
{
    return json_string_value(json_object_get(json_object_get(request, "headers"), name));
}

static const char *method(const json_t *request)
{
    return json_string_value(json_object_get(request, "method"));
}

/* configuration:status:median of every evaluation, sorted. */
/* Each configuration's status, in order; and its median, in full. */
static char *statuses(const char *path)
{
    return cli_db_text(path, "SELECT group_concat(row, ';') FROM (SELECT configuration || ':' || "
                             "status AS row FROM results ORDER BY configuration)");
}

static char *medians(const char *path)
{
    return cli_db_text(path, "SELECT group_concat(printf('%%.17g', median_ns), ' ') FROM "
                             "(SELECT median_ns FROM results ORDER BY configuration)");
}

/* The medians of two lists agree to a part in 10^9: T4 writes times in
 * milliseconds as decimals, so a median read back may differ in its last
 * bits, and printing both to a few digits would part them at a rounding
 * boundary (127884.5 ns is 127884 and 127885 to six). */
static void expect_same_medians(const char *a, const char *b)
{
    const char *p = a, *q = b;
    size_t k = 0;
    for (;;) {
        char *pe, *qe;
        double x = strtod(p, &pe), y = strtod(q, &qe);
        if (pe == p || qe == q) {
            cr_expect(pe == p && qe == q, "the lists differ in length: %s / %s", a, b);
            return;
        }
        cr_expect(fabs(x - y) <= 1e-9 * fabs(x), "median %zu: %.17g against %.17g", k, x, y);
        p = pe;
        q = qe;
        k++;
    }
}

static bool contains(const char *text, const char *part)
{
    return strstr(text, part) != NULL;
}

Test(publish, t4_upload_reads_back_through_replay, .timeout = 300)
{
    measure_campaign();
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    cli_result r = cli_run_env(CLI_ARGS("SKYTUNE_PUBLISH_TOKEN=" TOKEN),
                               CLI_ARGS("publish", "--db", db, "--url", sink.url,
                                        "--token-over-http"));
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert(contains(r.out, "published campaign 1 of") && contains(r.out, "T4 results") &&
                  contains(r.out, "with a bearer token") && contains(r.out, ": HTTP 200"),
              "%s", r.out);
    cr_assert(!contains(r.out, "k3y-that-is-secret") && !contains(r.out, TOKEN), "%s", r.out);
    cr_assert_eq(http_sink_count(&sink), 1);
    json_t *request = http_sink_request(&sink, 1);
    cr_assert_str_eq(method(request), "PUT");
    cr_assert_str_eq(json_string_value(json_object_get(request, "path")), "/hook/k3y-that-is-secret");
    cr_assert_str_eq(header(request, "authorization"), "Bearer " TOKEN);
    cr_assert_str_eq(header(request, "content-type"), "application/json");

    /* What arrived is what `skytune export --format t4` writes ... */
    size_t len;
    char *body = http_sink_body(&sink, 1, &len);
    cli_result exported = cli_run(CLI_ARGS("export", "--db", db, "--format", "t4"));
    cr_assert_eq(exported.status, 0, "%s", exported.err);
    cr_assert_eq(len, strlen(exported.out));
    cr_assert(memcmp(body, exported.out, len) == 0, "the upload differs from the export");

    /* ... and, saved to a file, replays as the same configurations. */
    char *saved = cli_path(scratch, "received.t4.json");
    cli_write_file(saved, body, len);
    char *replay_db = cli_path(scratch, "replay.db");
    cli_result replayed = cli_run(CLI_ARGS("run", "--replay", saved, "--space", "recorded",
                                           "--strategy", "exhaustive", "--db", replay_db, "--quiet"));
    cr_assert_eq(replayed.status, 0, "%s%s", replayed.out, replayed.err);
    char *original = statuses(db), *again = statuses(replay_db);
    cr_assert_str_eq(again, original);
    char *original_medians = medians(db), *again_medians = medians(replay_db);
    expect_same_medians(original_medians, again_medians);
    free(original_medians);
    free(again_medians);
    cr_assert_eq(cli_db_int(replay_db, "SELECT COUNT(*) FROM results"), 6);
    free(original);
    free(again);
    free(replay_db);
    free(saved);
    free(body);
    json_decref(request);
    cli_result_free(&replayed);
    cli_result_free(&exported);
    cli_result_free(&r);
}

/* The command line of a running process, its arguments joined by spaces
 * (a file of /proc has no size to read it by: read until its end). */
static char *process_command_line(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    cr_assert(len > 0, "%s is empty", path);
    text[len] = '\0';
    for (size_t k = 0; k + 1 < len; k++)
        if (text[k] == '\0') text[k] = ' ';
    return strdup(text);
}

Test(publish, the_token_comes_from_the_environment_never_the_command_line, .timeout = 300)
{
    measure_campaign();
    http_sink sink;
    http_sink_start(&sink, scratch, "hold", NULL, NULL);
    /* The test's own environment is what the publishing process inherits. */
    setenv("ARCHIVE_TOKEN", TOKEN, 1);
    char *out = cli_path(scratch, "publish.out"), *err = cli_path(scratch, "publish.err");
    pid_t pid = cli_start(CLI_ARGS("publish", "--db", db, "--url", sink.url, "--format", "html",
                                   "--method", "POST", "--token-env", "ARCHIVE_TOKEN",
                                   "--token-over-http"),
                          out, err);
    bool arrived = http_sink_wait_for(&sink, 1);
    /* While the server holds the request, the process is still running:
     * its command line is what anyone on the machine can read. */
    char *command_line = arrived ? process_command_line(pid) : NULL;
    http_sink_release(&sink);
    int status = cli_wait(pid, 120);
    http_sink_stop(&sink);
    cr_assert(arrived, "no request arrived");
    cr_assert_eq(status, 0, "%s", cli_status_text(status));
    cr_assert(contains(command_line, "publish --db") && contains(command_line, "ARCHIVE_TOKEN"),
              "not the publishing process: %s", command_line);
    cr_assert(!contains(command_line, TOKEN), "the token is on the command line: %s", command_line);
    json_t *request = http_sink_request(&sink, 1);
    cr_assert_str_eq(header(request, "authorization"), "Bearer " TOKEN);
    cr_assert_str_eq(method(request), "POST");
    cr_assert_str_eq(header(request, "content-type"), "text/html; charset=utf-8");
    char *body = http_sink_body(&sink, 1, NULL);
    char *best = cli_db_text(db, "SELECT configuration FROM results WHERE status = 'ok' ORDER BY "
                                 "median_ns LIMIT 1");
    cr_assert(strncmp(body, "<!DOCTYPE html>", 15) == 0, "not an HTML report: %.80s", body);
    cr_assert(contains(body, best), "the report lacks the best configuration %s", best);
    free(best);
    free(body);
    json_decref(request);
    free(command_line);
    free(out);
    free(err);
}

Test(publish, without_a_token_no_authorization_is_sent, .timeout = 300)
{
    measure_campaign();
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    cli_result r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink.url));
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert(!contains(r.out, "bearer"), "%s", r.out);
    json_t *request = http_sink_request(&sink, 1);
    cr_assert_null(header(request, "authorization"));
    json_decref(request);
    cli_result_free(&r);

    /* A variable named but not set is an error, before anything is sent. */
    r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink.url, "--token-env", "NO_SUCH_TOKEN_VAR"));
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(contains(r.err, "--token-env NO_SUCH_TOKEN_VAR: the variable is not set"), "%s", r.err);
    cr_assert_eq(http_sink_count(&sink), 1);
    cli_result_free(&r);
}

/* The campaign published to a sink answering in `mode`; the sink is
 * stopped, its records kept. */
static cli_result publish_to(http_sink *sink, const char *mode)
{
    measure_campaign();
    http_sink_start(sink, scratch, mode, NULL, NULL);
    cli_result r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink->url));
    http_sink_stop(sink);
    return r;
}

Test(publish, a_server_answering_500_is_retried_then_reported, .timeout = 300)
{
    http_sink sink;
    cli_result r = publish_to(&sink, "status:500");
    cr_assert_eq(r.status, 1, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert_eq(http_sink_count(&sink), 4, "4 attempts, got %zu", http_sink_count(&sink));
    cr_assert(contains(r.err, "attempt 1 failed: HTTP 500: sink answers 500; trying again in 0.5 s"),
              "%s", r.err);
    cr_assert(contains(r.err, "attempt 3 failed") && !contains(r.err, "attempt 4 failed;"), "%s", r.err);
    cr_assert(contains(r.err, "was not published: PUT http://127.0.0.1:") &&
                  contains(r.err, "gave up: HTTP 500: sink answers 500 (4 attempts)"),
              "%s", r.err);
    cr_assert(!contains(r.err, "k3y-that-is-secret"), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    cli_result_free(&r);
}

Test(publish, a_refusal_is_not_retried, .timeout = 300)
{
    http_sink sink;
    cli_result r = publish_to(&sink, "status:403");
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert_eq(http_sink_count(&sink), 1);
    cr_assert(contains(r.err, "refused: HTTP 403: sink answers 403 (1 attempt)"), "%s", r.err);
    cli_result_free(&r);
}

Test(publish, a_server_that_closes_the_connection_is_retried, .timeout = 300)
{
    http_sink sink;
    cli_result r = publish_to(&sink, "drop");
    cr_assert_eq(r.status, 1, "%s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cr_assert_eq(http_sink_count(&sink), 4, "4 attempts, got %zu", http_sink_count(&sink));
    cr_assert(contains(r.err, "gave up: Empty reply from server (4 attempts)"), "%s", r.err);
    cli_result_free(&r);
}

Test(publish, a_self_signed_server_is_refused_unless_its_ca_is_given, .timeout = 300)
{
    measure_campaign();
    char *cert, *key;
    http_sink_make_certificate(scratch, &cert, &key);
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", cert, key);
    cli_result r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink.url));
    cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_assert(contains(r.err, "certificate could not be verified"), "%s", r.err);
    cr_assert_eq(http_sink_count(&sink), 0, "an untrusted server received the upload");
    cli_result_free(&r);
    r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink.url, "--ca", cert));
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_eq(http_sink_count(&sink), 1);
    cr_assert(contains(r.out, "to https://127.0.0.1:"), "%s", r.out);
    cli_result_free(&r);
    free(cert);
    free(key);
}

/* A bearer token goes over https only: to an http:// URL it is refused
 * before anything is sent, unless --token-over-http asks for it. */
Test(publish, a_token_is_not_sent_over_plain_http_unless_asked, .timeout = 300)
{
    measure_campaign();
    http_sink sink;
    http_sink_start(&sink, scratch, "ok", NULL, NULL);
    cli_result r = cli_run_env(CLI_ARGS("SKYTUNE_PUBLISH_TOKEN=" TOKEN),
                               CLI_ARGS("publish", "--db", db, "--url", sink.url));
    cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
    cr_assert(contains(r.err, "is sent over https only") && contains(r.err, "--token-over-http"),
              "%s", r.err);
    cr_assert(!contains(r.err, TOKEN), "the message shows the token: %s", r.err);
    cr_assert_eq(http_sink_count(&sink), 0, "something was sent over http");
    cli_result_free(&r);
    /* Without a token, plain http is as before. */
    r = cli_run(CLI_ARGS("publish", "--db", db, "--url", sink.url));
    http_sink_stop(&sink);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_assert_eq(http_sink_count(&sink), 1);
    cli_result_free(&r);
}

Test(publish, bad_input_is_refused_with_the_valid_choices)
{
    struct {
        const char *const *args;
        int status;
        const char *message;
    } cases[] = {
        {CLI_ARGS("publish", "--db", "x.db"), 2, "--db FILE and --url URL are required"},
        {CLI_ARGS("publish", "--db", "x.db", "--url", "ftp://example.org/x"), 2,
         "only http:// and https://"},
        {CLI_ARGS("publish", "--db", "x.db", "--url", "http://127.0.0.1:1/x", "--format", "pdf"), 2,
         "not one of: t4, html"},
        {CLI_ARGS("publish", "--db", "x.db", "--url", "http://127.0.0.1:1/x", "--method", "GET"), 2,
         "not one of: PUT, POST"},
        {CLI_ARGS("publish", "--db", "x.db", "--url", "http://127.0.0.1:1/x", "--ca", "/no/ca.pem"),
         2, "--ca /no/ca.pem"},
        {CLI_ARGS("publish", "--db", "/nonexistent/x.db", "--url", "http://127.0.0.1:1/x"), 1,
         "/nonexistent/x.db"},
        {CLI_ARGS("publish", "--token", "abc"), 2, "unknown option '--token'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cli_result r = cli_run(cases[k].args);
        cr_assert_eq(r.status, cases[k].status, "case %zu: %s", k, r.err);
        cr_assert(contains(r.err, cases[k].message), "case %zu: %s", k, r.err);
        cli_result_free(&r);
    }
    cli_result r = cli_run(CLI_ARGS("publish", "--help"));
    cr_assert_eq(r.status, 0);
    cr_assert(contains(r.out, "--db FILE") && contains(r.out, "--url URL") &&
                  contains(r.out, "--campaign ID") && contains(r.out, "--format t4|html") &&
                  contains(r.out, "--method PUT|POST") && contains(r.out, "--token-env NAME") &&
                  contains(r.out, "--ca FILE"),
              "%s", r.out);
    cli_result_free(&r);
}

Test(publish, an_unknown_campaign_is_named, .timeout = 300)
{
    measure_campaign();
    cli_result r = cli_run(CLI_ARGS("publish", "--db", db, "--url", "http://127.0.0.1:1/x",
                                    "--campaign", "9"));
    cr_assert_eq(r.status, 1, "%s", r.err);
    cr_assert(contains(r.err, "9"), "%s", r.err);
    cli_result_free(&r);
}
