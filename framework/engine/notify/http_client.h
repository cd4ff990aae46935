/* HTTP transfers over libcurl: the one place skytune talks to a network
 * (notifications, publishing results). Every transfer has a connect timeout
 * and an overall timeout; an attempt that fails in a way that may pass (no
 * connection, a timeout, HTTP 408, 429 or 5xx) is retried with exponential
 * backoff; TLS certificates are always verified, against the system's CAs
 * or a CA file the user gives. There is deliberately no way to turn
 * verification off: a server with a private certificate is reached by
 * giving its CA. Redirects are not followed (a body would be sent again to
 * a place the user did not name). */
#ifndef SKYTUNE_HTTP_CLIENT_H
#define SKYTUNE_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct http_policy {
    double connect_timeout_s;  /* per attempt: establishing the connection (and TLS) */
    double timeout_s;          /* per attempt: the whole transfer */
    unsigned attempts;         /* at least 1 */
    double backoff_s;          /* wait before the second attempt; doubled for each next one */
    double backoff_max_s;      /* never wait longer than this (also caps a Retry-After) */
    const char *ca_file;       /* PEM file of CA certificates to trust; NULL: the system's */
} http_policy;

/* 10 s to connect, 30 s a transfer, 4 attempts 0.5 s, 1 s and 2 s apart
 * (at most 30 s apart), the system's CAs. */
void http_policy_default(http_policy *p);

typedef struct http_request {
    const char *method;        /* "POST" or "PUT" */
    const char *url;           /* http:// or https:// */
    const char *content_type;  /* e.g. "application/json" */
    const char *bearer_token;  /* NULL: no Authorization header */
    const char *body;
    size_t body_len;
} http_request;

typedef struct http_hooks {
    /* Called after each failed attempt that will be tried again: its
     * number (1 = the first), what went wrong, and the wait before the
     * next. May be NULL. */
    void (*on_retry)(void *ctx, unsigned attempt, const char *why, double wait_s);
    /* Asked during a transfer and while waiting between attempts; true
     * abandons the request at once. May be NULL. */
    bool (*abandon)(void *ctx);
    void *ctx;
} http_hooks;

typedef enum http_outcome {
    HTTP_DELIVERED = 0,        /* a 2xx answer */
    HTTP_REFUSED,              /* an answer that retrying cannot change (4xx, 3xx), or a
                                * failure that will not pass (certificate not trusted) */
    HTTP_GAVE_UP,              /* every attempt failed in a way that might have passed */
    HTTP_ABANDONED             /* hooks.abandon said so */
} http_outcome;

typedef struct http_result {
    http_outcome outcome;
    long status;               /* HTTP status of the last answer; 0 when there was none */
    unsigned attempts;         /* attempts made */
    char reply[256];           /* the start of the last answer's body, printable characters */
} http_result;

/* libcurl's process-wide state: each http_client_start that succeeded is
 * matched by one http_client_stop (libcurl counts them). Safe to call from
 * any thread with the libcurl Debian ships (7.84 and later). */
int http_client_start(skytune_error *err);
void http_client_stop(void);

/* Whether url is one this client can send to: http:// or https:// with a
 * host. The message names the URL (redacted) and what is valid. */
int http_url_check(const char *url, skytune_error *err);

/* The URL without what may be secret, for messages and logs: scheme, host
 * and port only ("https://hooks.slack.com"), quoted (quote.h). A webhook's
 * path is often its key, so it is never printed. */
void http_url_origin(const char *url, char *buf, size_t len);

/* Send one request, retrying as the policy says. Returns 0 when delivered;
 * otherwise -1 with *result saying how it ended and err a message naming
 * the server (by its origin), the last failure and the attempts made. */
int http_send(const http_policy *policy, const http_request *rq, const http_hooks *hooks,
              http_result *result, skytune_error *err);

#endif
