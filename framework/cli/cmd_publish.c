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
#include "quote.h"
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
    BUSY_TIMEOUT_OPTION,
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
        char shown[QUOTE_TEXT];
        cli_error("publish: --token-env %s: the variable is %s in the environment (export it, or "
                  "leave out --token-env to upload without a token)",
                  quote_text(name, shown, sizeof shown), token ? "empty" : "not set");
        *bad = true;
    }
    return NULL;
}

/* What is published where, from the command line. */
typedef struct publication {
    const char *path;          /* the database */
    const char *url;
    const char *campaign;      /* NULL: the database's only one, */
    char only_campaign[32];    /* which is read into here */
    const char *format;        /* "t4" or "html" */
    const char *method;        /* "PUT" or "POST" */
    const char *ca;            /* a PEM file of CA certificates, or NULL */
    const char *token;         /* NULL: none */
    double busy_timeout_s;     /* --busy-timeout */
} publication;

/* The options, checked: EXIT_OK or EXIT_USAGE. */
static int read_publication(const cli_args *args, publication *p)
{
    p->path = cli_get(args, "db");
    p->url = cli_get(args, "url");
    p->campaign = cli_get(args, "campaign");
    p->format = cli_get(args, "format") ? cli_get(args, "format") : "t4";
    p->method = cli_get(args, "method") ? cli_get(args, "method") : "PUT";
    p->ca = cli_get(args, "ca");
    const char *token_env = cli_get(args, "token-env");
    if (!p->path || !p->url) {
        cli_error("publish: --db FILE and --url URL are required");
        return EXIT_USAGE;
    }
    skytune_error err = {0};
    if (http_url_check(p->url, &err) != 0) {
        cli_error("publish: --url: %s", err.message);
        return EXIT_USAGE;
    }
    static const char *const formats[] = {"t4", "html"}, *const methods[] = {"PUT", "POST"};
    if (cli_check_choice("publish: --format", p->format, formats, 2) != 0 ||
        cli_check_choice("publish: --method", p->method, methods, 2) != 0)
        return EXIT_USAGE;
    if (cli_campaign_arg(p->campaign) != 0 || cli_busy_timeout(args, &p->busy_timeout_s) != 0)
        return EXIT_USAGE;
    if (p->ca && cli_check_readable("ca", p->ca, "a PEM file of CA certificates") != 0)
        return EXIT_USAGE;
    bool bad_token;
    p->token = token_from_env(token_env ? token_env : DEFAULT_TOKEN_ENV, token_env != NULL,
                              &bad_token);
    if (bad_token) return EXIT_USAGE;
    /* A bearer token over plain HTTP is readable by anyone on the path:
     * refused unless asked for by name. */
    if (p->token && strncasecmp(p->url, "https://", 8) != 0 && !cli_flag(args, "token-over-http")) {
        char variable[QUOTE_TEXT], url[QUOTE_TEXT];
        cli_error("publish: a bearer token (from %s) is sent over https only, and --url is %s...: "
                  "use an https URL, unset the variable to upload without a token, or pass "
                  "--token-over-http to send it in the clear",
                  quote_text(token_env ? token_env : DEFAULT_TOKEN_ENV, variable, sizeof variable),
                  quote_span(p->url, strnlen(p->url, 8), url, sizeof url));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The upload, written from the database. */
static int read_body(publication *p, char **body, size_t *len)
{
    store *st = cli_open_existing_db(p->path, p->busy_timeout_s);
    if (!st) return EXIT_FAILED;
    if (!p->campaign) {
        if (cli_only_campaign(st, "publish", p->only_campaign,
                              sizeof p->only_campaign) != 0) {
            store_close(st);
            return EXIT_FAILED;
        }
        p->campaign = p->only_campaign;
    }
    skytune_error err = {0};
    int rc = write_body(store_handle(st), p->path, p->format, p->campaign, body, len, &err);
    store_close(st);
    if (rc != 0) {
        char shown[QUOTE_PATH];
        cli_error("publish: %s: %s", quote_text(p->path, shown, sizeof shown), err.message);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* The body sent, with retries; *status: the server's answer. */
static int upload(const publication *p, const char *body, size_t len, long *status)
{
    http_policy policy;
    http_policy_default(&policy);
    policy.ca_file = p->ca;
    http_request rq = {
        .method = p->method,
        .url = p->url,
        .content_type =
            strcmp(p->format, "t4") == 0 ? "application/json" : "text/html; charset=utf-8",
        .bearer_token = p->token,
        .body = body,
        .body_len = len,
    };
    http_hooks hooks = {.on_retry = print_retry};
    http_result result;
    skytune_error err = {0};
    /* A server that closes the connection while the body is written over
     * TLS would otherwise end the process with SIGPIPE instead of failing
     * the attempt: http_client asks libcurl not to touch signals (its
     * callers may run threads), so the command that owns the process
     * ignores it. */
    signal(SIGPIPE, SIG_IGN);
    if (http_client_start(&err) != 0) {
        cli_error("publish: %s", err.message);
        return EXIT_FAILED;
    }
    int rc = http_send(&policy, &rq, &hooks, &result, &err);
    http_client_stop();
    if (rc != 0) {
        char shown[QUOTE_PATH];
        cli_error("publish: campaign %s of %s was not published: %s", p->campaign,
                  quote_text(p->path, shown, sizeof shown), err.message);
        return EXIT_FAILED;
    }
    *status = result.status;
    return EXIT_OK;
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
    publication p;
    if ((rc = read_publication(&args, &p)) != EXIT_OK) return rc;
    char *body = NULL;
    size_t len = 0;
    if ((rc = read_body(&p, &body, &len)) != EXIT_OK) return rc;
    long status;
    rc = upload(&p, body, len, &status);
    free(body);
    if (rc != EXIT_OK) return rc;
    char origin[512], shown[QUOTE_PATH];
    http_url_origin(p.url, origin, sizeof origin);
    printf("published campaign %s of %s (%s, %zu bytes%s) to %s: HTTP %ld\n", p.campaign,
           quote_text(p.path, shown, sizeof shown),
           strcmp(p.format, "t4") == 0 ? "T4 results" : "HTML report", len,
           p.token ? ", with a bearer token" : "", origin, status);
    return EXIT_OK;
}
