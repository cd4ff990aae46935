#include "http_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "quote.h"

void http_policy_default(http_policy *p)
{
    *p = (http_policy){
        .connect_timeout_s = 10,
        .timeout_s = 30,
        .attempts = 4,
        .backoff_s = 0.5,
        .backoff_max_s = 30,
        .ca_file = NULL,
    };
}

int http_client_start(skytune_error *err)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) return err_set(err, "cannot start libcurl: %s", curl_easy_strerror(rc));
    return 0;
}

void http_client_stop(void)
{
    curl_global_cleanup();
}

/* Scheme, host and port of url, each malloc'd by libcurl (port NULL when
 * the URL names none). */
typedef struct url_parts {
    char *scheme, *host, *port;
} url_parts;

static int url_split(const char *url, url_parts *parts)
{
    *parts = (url_parts){0};
    CURLU *u = curl_url();
    if (!u) return -1;
    int rc = -1;
    if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &parts->scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &parts->host, 0) == CURLUE_OK) {
        if (curl_url_get(u, CURLUPART_PORT, &parts->port, 0) != CURLUE_OK) parts->port = NULL;
        rc = 0;
    }
    curl_url_cleanup(u);
    return rc;
}

static void url_parts_free(url_parts *parts)
{
    curl_free(parts->scheme);
    curl_free(parts->host);
    curl_free(parts->port);
    *parts = (url_parts){0};
}

void http_url_origin(const char *url, char *buf, size_t len)
{
    url_parts parts;
    if (url_split(url, &parts) != 0) {
        snprintf(buf, len, "(a URL that does not parse)");
        return;
    }
    /* Shown in messages: quoted, whatever the URL held. */
    char origin[1024];
    snprintf(origin, sizeof origin, "%s://%s%s%s", parts.scheme, parts.host, parts.port ? ":" : "",
             parts.port ? parts.port : "");
    quote_text(origin, buf, len);
    url_parts_free(&parts);
}

int http_url_check(const char *url, skytune_error *err)
{
    url_parts parts;
    char shown[QUOTE_TEXT];
    if (!url || !*url || url_split(url, &parts) != 0)
        return err_set(err, "'%s' is not a URL: give http://HOST[:PORT]/PATH or "
                            "https://HOST[:PORT]/PATH",
                       quote_text(url, shown, sizeof shown));
    bool web = strcmp(parts.scheme, "http") == 0 || strcmp(parts.scheme, "https") == 0;
    bool has_host = parts.host && *parts.host;
    int rc = 0;
    if (!web || !has_host) {
        char origin[512];
        http_url_origin(url, origin, sizeof origin);
        rc = err_set(err, "%s: only http:// and https:// URLs with a host can be sent to", origin);
    }
    url_parts_free(&parts);
    return rc;
}

static bool abandoned(const http_hooks *hooks)
{
    return hooks && hooks->abandon && hooks->abandon(hooks->ctx);
}

/* Sleep, looking at the abandon hook every 50 ms; false when abandoned. */
static bool wait_between_attempts(double seconds, const http_hooks *hooks)
{
    double until = clock_monotonic_s() + seconds;
    for (;;) {
        if (abandoned(hooks)) return false;
        double left = until - clock_monotonic_s();
        if (left <= 0) return true;
        double slice = left < 0.05 ? left : 0.05;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(slice * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
}

/* libcurl asks this during a transfer; non-zero aborts it. */
static int transfer_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                             curl_off_t ulnow)
{
    return abandoned(ctx) ? 1 : 0;
}

/* The first bytes of the answer's body, kept for messages. */
typedef struct reply_buffer {
    char *text;
    size_t len, cap;
} reply_buffer;

static size_t keep_reply(char *data, size_t size, size_t n, void *ctx)
{
    reply_buffer *b = ctx;
    size_t bytes = size * n;
    for (size_t k = 0; k < bytes && b->len + 1 < b->cap; k++) {
        unsigned char c = (unsigned char)data[k];
        bool space = c == '\n' || c == '\r' || c == '\t';
        b->text[b->len++] = space ? ' ' : c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    b->text[b->len] = '\0';
    return bytes;
}

/* A failure that a later attempt may not meet: the network, a timeout, or
 * a server that says it is busy or broken. */
static bool transfer_error_may_pass(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
        return true;
    default:
        return false;
    }
}

static bool status_may_pass(long status)
{
    return status == 408 || status == 429 || status >= 500;
}

static bool certificate_error(CURLcode rc)
{
    return rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
           rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_ISSUER_ERROR;
}

/* Header lines of the request; NULL when out of memory. */
static struct curl_slist *request_headers(const http_request *rq)
{
    char line[4200];
    struct curl_slist *list = NULL, *grown;
    snprintf(line, sizeof line, "Content-Type: %s", rq->content_type);
    if (!(grown = curl_slist_append(list, line))) goto fail;
    list = grown;
    /* No "Expect: 100-continue" round trip before the body. */
    if (!(grown = curl_slist_append(list, "Expect:"))) goto fail;
    list = grown;
    if (rq->bearer_token) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", rq->bearer_token);
        grown = curl_slist_append(list, line);
        memset(line, 0, sizeof line);
        if (!grown) goto fail;
        list = grown;
    }
    return list;
fail:
    curl_slist_free_all(list);
    return NULL;
}

static int check_request(const http_request *rq, skytune_error *err)
{
    if (strcmp(rq->method, "POST") != 0 && strcmp(rq->method, "PUT") != 0)
        return err_set(err, "HTTP method '%s' is not one of: PUT, POST", rq->method);
    if (http_url_check(rq->url, err) != 0) return -1;
    if (rq->bearer_token) {
        size_t len = strlen(rq->bearer_token);
        if (len == 0 || len > 4000)
            return err_set(err, "the bearer token is %s (it must be 1 to 4000 characters)",
                           len ? "too long" : "empty");
        for (size_t k = 0; k < len; k++) {
            unsigned char c = (unsigned char)rq->bearer_token[k];
            if (c <= 0x20 || c >= 0x7f)
                return err_set(err, "the bearer token holds a space, a control character or a "
                                    "non-ASCII byte (at character %zu); a token is printable "
                                    "ASCII without spaces",
                               k + 1);
        }
    }
    return 0;
}

/* Set up the handle for every attempt of rq. */
static CURLcode configure(CURL *h, const http_policy *policy, const http_request *rq,
                          struct curl_slist *headers, reply_buffer *reply, const http_hooks *hooks)
{
    CURLcode rc = CURLE_OK;
#define SET(opt, value) \
    if (rc == CURLE_OK) rc = curl_easy_setopt(h, opt, value)
    SET(CURLOPT_URL, rq->url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_CUSTOMREQUEST, rq->method);
    SET(CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(rq->body ? rq->body_len : 0));
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_USERAGENT, "skytune");
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    /* Verification is on in libcurl by default; said again here so that no
     * change of default can switch it off. */
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    if (policy->ca_file) SET(CURLOPT_CAINFO, policy->ca_file);
    SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(policy->connect_timeout_s * 1000));
    SET(CURLOPT_TIMEOUT_MS, (long)(policy->timeout_s * 1000));
    /* Timeouts without SIGALRM: the caller may be one thread of many. */
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_WRITEFUNCTION, keep_reply);
    SET(CURLOPT_WRITEDATA, reply);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, transfer_progress);
    SET(CURLOPT_XFERINFODATA, (void *)hooks);
#undef SET
    return rc;
}

int http_send(const http_policy *policy, const http_request *rq, const http_hooks *hooks,
              http_result *result, skytune_error *err)
{
    *result = (http_result){.outcome = HTTP_REFUSED};
    if (check_request(rq, err) != 0) return -1;
    char origin[512];
    http_url_origin(rq->url, origin, sizeof origin);
    CURL *h = curl_easy_init();
    struct curl_slist *headers = h ? request_headers(rq) : NULL;
    if (!h || !headers) {
        curl_slist_free_all(headers);
        curl_easy_cleanup(h);
        return err_set(err, "%s: out of memory setting up the request", origin);
    }
    reply_buffer reply = {.text = result->reply, .cap = sizeof result->reply};
    CURLcode rc = configure(h, policy, rq, headers, &reply, hooks);
    if (rc != CURLE_OK) {
        curl_slist_free_all(headers);
        curl_easy_cleanup(h);
        return err_set(err, "%s: libcurl refused a setting: %s", origin, curl_easy_strerror(rc));
    }
    char curl_message[CURL_ERROR_SIZE];
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_message);
    unsigned attempts = policy->attempts ? policy->attempts : 1;
    double backoff = policy->backoff_s;
    char why[700] = "";
    for (unsigned attempt = 1;; attempt++) {
        reply.len = 0;
        reply.text[0] = '\0';
        curl_message[0] = '\0';
        result->attempts = attempt;
        result->status = 0;
        rc = curl_easy_perform(h);
        bool may_pass;
        double retry_after = 0;
        if (rc == CURLE_OK) {
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &result->status);
            if (result->status >= 200 && result->status < 300) {
                result->outcome = HTTP_DELIVERED;
                break;
            }
            curl_off_t after = 0;
            if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after > 0)
                retry_after = (double)after;
            snprintf(why, sizeof why, "HTTP %ld%s%s%s", result->status,
                     result->status >= 300 && result->status < 400 ? " (a redirect, not followed: "
                                                                     "give the final URL)"
                                                                   : "",
                     reply.len ? ": " : "", reply.text);
            may_pass = status_may_pass(result->status);
        } else if (rc == CURLE_ABORTED_BY_CALLBACK) {
            result->outcome = HTTP_ABANDONED;
            if (!why[0]) snprintf(why, sizeof why, "no answer yet");
            break;
        } else {
            snprintf(why, sizeof why, "%s",
                     curl_message[0] ? curl_message : curl_easy_strerror(rc));
            if (certificate_error(rc))
                snprintf(why + strlen(why), sizeof why - strlen(why),
                         " (the server's certificate could not be verified: give the CA "
                         "certificate that signed it as a PEM file, and the host name it was "
                         "issued for)");
            may_pass = transfer_error_may_pass(rc);
        }
        if (!may_pass) {
            result->outcome = HTTP_REFUSED;
            break;
        }
        if (attempt >= attempts) {
            result->outcome = HTTP_GAVE_UP;
            break;
        }
        double wait = retry_after > backoff ? retry_after : backoff;
        if (wait > policy->backoff_max_s) wait = policy->backoff_max_s;
        if (hooks && hooks->on_retry) hooks->on_retry(hooks->ctx, attempt, why, wait);
        if (!wait_between_attempts(wait, hooks)) {
            result->outcome = HTTP_ABANDONED;
            break;
        }
        backoff = fmin(2 * backoff, policy->backoff_max_s);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    if (result->outcome == HTTP_DELIVERED) return 0;
    const char *how = result->outcome == HTTP_ABANDONED ? "abandoned"
                      : result->outcome == HTTP_GAVE_UP ? "gave up"
                                                        : "refused";
    return err_set(err, "%s %s %s: %s (%u attempt%s)", rq->method, origin, how, why,
                   result->attempts, result->attempts == 1 ? "" : "s");
}
