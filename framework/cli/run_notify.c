#include "run_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_client.h"

/* The notifier's lines, from its sending thread: one fprintf each, so
 * they never interleave with another line. On a terminal the progress bar
 * on that line is cleared first; it is drawn again with the next
 * configuration. */
static void print_log_line(void *ctx, const char *text)
{
    fprintf(stderr, "%sskytune: %s\n", isatty(STDERR_FILENO) ? "\r\033[K" : "", text);
}

/* The database's path as the events give it: absolute, so that a message
 * read elsewhere says where to look. */
static char *absolute_path(const char *path)
{
    if (path[0] == '/') return strdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return strdup(path);
    size_t len = strlen(cwd) + strlen(path) + 2;
    char *joined = malloc(len);
    if (joined) snprintf(joined, len, "%s/%s", cwd, path);
    return joined;
}

int run_notify_open(const cli_args *args, const char *command, const char *db_path,
                    size_t instances, run_notify *out)
{
    *out = (run_notify){0};
    const char *url = cli_get(args, "notify");
    const char *format = cli_get(args, "notify-format");
    const char *ca = cli_get(args, "notify-ca");
    const char *interval = cli_get(args, "notify-best-interval");
    if (!url) {
        if (format || ca || interval) {
            cli_error("--notify-format, --notify-ca and --notify-best-interval go with "
                      "--notify URL");
            return EXIT_USAGE;
        }
        return EXIT_OK;
    }
    notifier_options opt;
    notifier_options_default(&opt);
    skytune_error err;
    if (format && notify_format_parse(format, &opt.format, &err) != 0) {
        cli_error("--notify-format: %s", err.message);
        return EXIT_USAGE;
    }
    if (interval && cli_parse_duration("notify-best-interval", interval, &opt.best_interval_s) != 0)
        return EXIT_USAGE;
    /* Checked now: a CA file that cannot be read would otherwise only show
     * as failed deliveries once the campaign runs. */
    if (ca && cli_check_readable("notify-ca", ca, "a PEM file of CA certificates") != 0)
        return EXIT_USAGE;
    opt.http.ca_file = ca;
    if (http_url_check(url, &err) != 0) {
        cli_error("--notify: %s", err.message);
        return EXIT_USAGE;
    }
    opt.on_log = print_log_line;
    char *database = absolute_path(db_path);
    if (!database || notifier_open(url, &opt, &out->notifier, &err) != 0 ||
        run_notifications_new(out->notifier, command, database, instances, &out->events, &err) != 0) {
        cli_error("--notify: %s", database ? err.message : "out of memory");
        free(database);
        run_notify_close(out);
        return EXIT_FAILED;
    }
    free(database);
    return EXIT_OK;
}

void run_notify_close(run_notify *rn)
{
    notifier_close(rn->notifier, NULL);
    run_notifications_free(rn->events);
    *rn = (run_notify){0};
}
