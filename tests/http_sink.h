/* A real HTTP(S) server on 127.0.0.1 for the notification and publishing
 * tests: tests/http_sink.py, started by the test on a port the system
 * picks, recording every request (method, headers, body) to files, and
 * stopped by the test. See http_sink.py for its modes: ok, fail:K,
 * status:C, hold (answers once released), drop. */
#ifndef SKYTUNE_TESTS_HTTP_SINK_H
#define SKYTUNE_TESTS_HTTP_SINK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct http_sink {
    pid_t pid;                 /* 0 once stopped */
    char dir[4096];            /* where requests are recorded */
    int port;
    char url[160];             /* http(s)://127.0.0.1:PORT/hook/k3y-that-is-secret */
} http_sink;

/* Start a sink in a new folder under scratch. cert and key (PEM files)
 * make it HTTPS; NULL for plain HTTP. Fails the test when it does not
 * report its port within a minute. */
void http_sink_start(http_sink *s, const char *scratch, const char *mode, const char *cert,
                     const char *key);

/* Stop it (SIGTERM, then wait). The recorded files stay readable. */
void http_sink_stop(http_sink *s);

/* Let held requests (mode hold) be answered. */
void http_sink_release(const http_sink *s);

/* Requests received so far (recorded completely). */
size_t http_sink_count(const http_sink *s);

/* Request n (1-based): its record {"method", "path", "headers", ...}, a new
 * reference; fails the test when it is missing. */
json_t *http_sink_request(const http_sink *s, size_t n);

/* Its body, NUL-terminated, malloc'd; *len its size (may be NULL). */
char *http_sink_body(const http_sink *s, size_t n, size_t *len);

/* Whether request n has been answered. */
bool http_sink_answered(const http_sink *s, size_t n);

/* Wait until at least `count` requests were received (up to a minute);
 * false if they were not. */
bool http_sink_wait_for(const http_sink *s, size_t count);

/* A self-signed certificate for 127.0.0.1 made with the openssl command:
 * cert and key paths in dir, malloc'd. */
void http_sink_make_certificate(const char *dir, char **cert, char **key);

/* Remove proxy settings from this process's environment (and so from the
 * commands it starts), so that a proxy the user has set never stands
 * between skytune and the sink on 127.0.0.1. */
void http_sink_clear_proxies(void);

#endif
