#include "http_sink.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_harness.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void http_sink_clear_proxies(void)
{
    static const char *const names[] = {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                        "all_proxy",  "ALL_PROXY"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) unsetenv(names[k]);
}

/* A child running argv with standard output and error going to log_path
 * (or /dev/null); execvp, so a bare name is looked up in PATH. */
static pid_t spawn(char *const argv[], const char *log_path)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed: %s", strerror(errno));
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0) _exit(127);
        dup2(in, STDIN_FILENO);
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static char *read_text(const char *path)
{
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    return text ? text : strdup("(nothing)");
}

void http_sink_start(http_sink *s, const char *scratch, const char *mode, const char *cert,
                     const char *key)
{
    static int started;
    char name[64];
    snprintf(name, sizeof name, "sink-%d", ++started);
    *s = (http_sink){.pid = 0};
    snprintf(s->dir, sizeof s->dir, "%s/%s", scratch, name);
    cr_assert(mkdir(s->dir, 0755) == 0, "cannot create %s: %s", s->dir, strerror(errno));
    char *script = cli_path(cli_source_dir(), "tests/http_sink.py");
    char *port_file = cli_path(s->dir, "port");
    char *log = cli_path(s->dir, "server.log");
    const char *python = getenv("SKYTUNE_PYTHON") ? getenv("SKYTUNE_PYTHON") : "python3";
    char *argv[] = {(char *)python, script, "--dir", s->dir, "--port-file", port_file,
                    "--mode", (char *)mode, cert ? "--tls" : NULL, (char *)cert, (char *)key,
                    NULL};
    s->pid = spawn(argv, log);
    for (int waited = 0; !cli_file_exists(port_file); waited += 20) {
        int status;
        if (cli_poll_exit(s->pid, &status)) {
            s->pid = 0;
            cr_assert_fail("the test server ended (%s) before reporting its port:\n%s",
                           cli_status_text(status), read_text(log));
        }
        if (waited > 60000) {
            http_sink_stop(s);
            cr_assert_fail("the test server reported no port within a minute:\n%s", read_text(log));
        }
        sleep_ms(20);
    }
    char *port = read_text(port_file);
    s->port = atoi(port);
    cr_assert(s->port > 0, "the test server reported port '%s'", port);
    snprintf(s->url, sizeof s->url, "%s://127.0.0.1:%d/hook/k3y-that-is-secret",
             cert ? "https" : "http", s->port);
    free(port);
    free(script);
    free(port_file);
    free(log);
}

void http_sink_stop(http_sink *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGTERM);
    if (cli_wait(s->pid, 30) == CLI_TIMED_OUT) {
        /* cli_wait killed it */
    }
    s->pid = 0;
}

void http_sink_release(const http_sink *s)
{
    char *path = cli_path(s->dir, "release");
    cli_write_file(path, "", 0);
    free(path);
}

static char *record_path(const http_sink *s, size_t n, const char *suffix)
{
    char name[64];
    snprintf(name, sizeof name, "%04zu.%s", n, suffix);
    return cli_path(s->dir, name);
}

size_t http_sink_count(const http_sink *s)
{
    size_t n = 0;
    for (;;) {
        char *path = record_path(s, n + 1, "request.json");
        bool exists = cli_file_exists(path);
        free(path);
        if (!exists) return n;
        n++;
    }
}

json_t *http_sink_request(const http_sink *s, size_t n)
{
    char *path = record_path(s, n, "request.json");
    json_error_t error;
    json_t *record = json_load_file(path, 0, &error);
    cr_assert(record, "request %zu was not recorded (%s): %s", n, path, error.text);
    free(path);
    return record;
}

char *http_sink_body(const http_sink *s, size_t n, size_t *len)
{
    char *path = record_path(s, n, "body");
    size_t size;
    char *body = (char *)cli_read_file(path, &size);
    cr_assert(body, "the body of request %zu was not recorded (%s)", n, path);
    free(path);
    if (len) *len = size;
    return body;
}

bool http_sink_answered(const http_sink *s, size_t n)
{
    char *path = record_path(s, n, "answered");
    bool answered = cli_file_exists(path);
    free(path);
    return answered;
}

bool http_sink_wait_for(const http_sink *s, size_t count)
{
    for (int waited = 0; waited < 60000; waited += 20) {
        if (http_sink_count(s) >= count) return true;
        sleep_ms(20);
    }
    return false;
}

void http_sink_make_certificate(const char *dir, char **cert, char **key)
{
    *cert = cli_path(dir, "cert.pem");
    *key = cli_path(dir, "key.pem");
    char *log = cli_path(dir, "openssl.log");
    char *argv[] = {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", *key, "-out", *cert,
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1", NULL};
    int status = cli_wait(spawn(argv, log), 60);
    cr_assert(status == 0, "openssl could not make a certificate (%s):\n%s",
              cli_status_text(status), read_text(log));
    free(log);
}
