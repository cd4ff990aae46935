#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "db_open.h"
#include "export.h"
#include "html_report.h"
#include "http_client.h"
#include "report.h"

#define DEFAULT_TOKEN_ENV "SKYTUNE_PUBLISH_TOKEN"

static const cli_option options[] = {
    {"db", "FILE", false, "result database (required)"},
    {"url", "URL", false, "where to upload: an http:// or https:// URL (required)"},
    {"campaign", "ID", false, "the campaign to publish (required when the database holds several)"},
    {"format", "t4|html", false, "t4 (default): the campaign's evaluations in the T4 results "
                                 "format, as `skytune export --format t4`; html: its report, as "
                                 "`skytune report`"},
    {"method", "PUT|POST", false, "HTTP method (default PUT)"},
    {"token-env", "NAME", false, "send the bearer token held by this environment variable (default "
                                 DEFAULT_TOKEN_ENV ", sent when set); a token is never taken "
                                 "from the command line"},
    {"ca", "FILE", false, "trust this PEM CA certificate for an https URL (certificates are "
                          "always verified)"},
    {"token-over-http", NULL, false, "send the bearer token over a plain http:// URL too (a test "
                                     "server on this machine, say); without it a token is sent "
                                     "over https only"},
};

/* The campaign's upload, written into memory. */
static int write_body(void *db, const char *db_path, const char *format, const char *campaign,
                      char **body, size_t *len, skytune_error *err)
{
    FILE *f = open_memstream(body, len);
    if (!f) return err_set(err, "out of memory");
    int rc;
    if (strcmp(format, "t4") == 0) {
        size_t results;
        rc = export_t4(db, campaign, f, &results, err);
    } else {
        report_options opts = {.campaign = campaign, .top = 20, .source = db_path};
        report_data data;
        rc = report_load(db, &opts, &data, err);
        if (rc == 0) {
            rc = html_report_write(f, &data, err);
            report_free(&data);
        }
    }
    if (fclose(f) != 0 && rc == 0) rc = err_set(err, "out of memory writing the upload");
    if (rc != 0) {
        free(*body);
        *body = NULL;
    }
    return rc;
}

static void print_retry(void *ctx, unsigned attempt, const char *why, double wait_s)
{
    cli_error("publish: attempt %u failed: %s; trying again in %.1f s", attempt, why, wait_s);
}

/* The token from the environment: NULL when there is none to send. *bad is
 * set when --token-env names a variable that is not set. */
static const char *token_from_env(const char *name, bool named, bool *bad)
{
    const char *token = getenv(name);
    *bad = false;
    if (token && *token) return token;
    if (named) {
        cli_error("publish: --token-env %s: the variable is %s in the environment (export it, or "
                  "leave out --token-env to upload without a token)",
                  name, token ? "empty" : "not set");
        *bad = true;
    }
    return NULL;
}

int cmd_publish(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("publish",
                       "Upload a campaign's results to a web server with an HTTP PUT or POST: "
                       "its evaluations in the T4 results format (default), or its HTML report. "
                       "A bearer token, when the server needs one, is read from an environment "
                       "variable. Failed attempts (no connection, a timeout, HTTP 408, 429, 5xx) "
                       "are retried with backoff; TLS certificates are always verified. See "
                       "docs/campaigns.md, \"Publishing\".",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db");
    const char *url = cli_get(&args, "url");
    const char *campaign = cli_get(&args, "campaign");
    const char *format = cli_get(&args, "format") ? cli_get(&args, "format") : "t4";
    const char *method = cli_get(&args, "method") ? cli_get(&args, "method") : "PUT";
    const char *token_env = cli_get(&args, "token-env");
    const char *ca = cli_get(&args, "ca");
    if (!path || !url) {
        cli_error("publish: --db FILE and --url URL are required");
        return EXIT_USAGE;
    }
    skytune_error err = {0};
    if (http_url_check(url, &err) != 0) {
        cli_error("publish: --url: %s", err.message);
        return EXIT_USAGE;
    }
    if (strcmp(format, "t4") != 0 && strcmp(format, "html") != 0) {
        cli_error("publish: --format '%s' is not one of: t4, html", format);
        return EXIT_USAGE;
    }
    if (strcmp(method, "PUT") != 0 && strcmp(method, "POST") != 0) {
        cli_error("publish: --method '%s' is not one of: PUT, POST", method);
        return EXIT_USAGE;
    }
    if (cli_campaign_arg(campaign) != 0) return EXIT_USAGE;
    if (ca && cli_check_readable("ca", ca, "a PEM file of CA certificates") != 0)
        return EXIT_USAGE;
    bool bad_token;
    const char *token = token_from_env(token_env ? token_env : DEFAULT_TOKEN_ENV, token_env != NULL,
                                       &bad_token);
    if (bad_token) return EXIT_USAGE;
    /* A bearer token over plain HTTP is readable by anyone on the path:
     * refused unless asked for by name. */
    if (token && strncasecmp(url, "https://", 8) != 0 && !cli_flag(&args, "token-over-http")) {
        cli_error("publish: a bearer token (from %s) is sent over https only, and --url is %.8s...: "
                  "use an https URL, unset the variable to upload without a token, or pass "
                  "--token-over-http to send it in the clear",
                  token_env ? token_env : DEFAULT_TOKEN_ENV, url);
        return EXIT_USAGE;
    }

    store *st = cli_open_existing_db(path);
    if (!st) return EXIT_FAILED;
    char only[32];
    if (!campaign) {
        if (cli_only_campaign(st, "publish", only, sizeof only) != 0) {
            store_close(st);
            return EXIT_FAILED;
        }
        campaign = only;
    }
    char *body = NULL;
    size_t len = 0;
    rc = write_body(store_handle(st), path, format, campaign, &body, &len, &err);
    store_close(st);
    if (rc != 0) {
        cli_error("publish: %s: %s", path, err.message);
        return EXIT_FAILED;
    }

    http_policy policy;
    http_policy_default(&policy);
    policy.ca_file = ca;
    http_request rq = {
        .method = method,
        .url = url,
        .content_type = strcmp(format, "t4") == 0 ? "application/json" : "text/html; charset=utf-8",
        .bearer_token = token,
        .body = body,
        .body_len = len,
    };
    http_hooks hooks = {.on_retry = print_retry};
    http_result result;
    /* A server that closes the connection while the body is written over
     * TLS would otherwise end the process with SIGPIPE instead of failing
     * the attempt: http_client asks libcurl not to touch signals (its
     * callers may run threads), so the command that owns the process
     * ignores it. */
    signal(SIGPIPE, SIG_IGN);
    if (http_client_start(&err) != 0) {
        free(body);
        cli_error("publish: %s", err.message);
        return EXIT_FAILED;
    }
    rc = http_send(&policy, &rq, &hooks, &result, &err);
    http_client_stop();
    free(body);
    if (rc != 0) {
        cli_error("publish: campaign %s of %s was not published: %s", campaign, path, err.message);
        return EXIT_FAILED;
    }
    char origin[512];
    http_url_origin(url, origin, sizeof origin);
    printf("published campaign %s of %s (%s, %zu bytes%s) to %s: HTTP %ld\n", campaign, path,
           strcmp(format, "t4") == 0 ? "T4 results" : "HTML report", len,
           token ? ", with a bearer token" : "", origin, result.status);
    return EXIT_OK;
}
