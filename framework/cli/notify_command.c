#include "notify_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_client.h"
#include "quote.h"
#include "run_common.h"
#include "terminal_text.h"

/* The notifier's lines, from its sending thread: stderr locked for each,
 * so they never interleave with another line. On a terminal the progress
 * bar on that line is cleared first; it is drawn again with the next
 * configuration. */
static void print_log_line(void *ctx, const char *text)
{
    flockfile(stderr);
    if (isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
    terminal_message(text);
    funlockfile(stderr);
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

int notify_command_settings_from_args(const cli_args *args, const notify_command_settings *given,
                                  notify_command_settings *s)
{
    *s = given ? *given : (notify_command_settings){0};
    const char *url = cli_get(args, "notify");
    const char *format = cli_get(args, "notify-format");
    const char *ca = cli_get(args, "notify-ca");
    const char *interval = cli_get(args, "notify-best-interval");
    if (url) {
        s->url = url;
        s->origin = "--notify";
    }
    if (format) s->format = format;
    if (ca) {
        s->ca = ca;
        s->ca_origin = "--notify-ca";
    }
    if (interval) s->best_interval = interval;
    if (!s->url && (format || ca || interval)) {
        cli_error("--notify-format, --notify-ca and --notify-best-interval go with --notify URL");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int notify_command_open(const notify_command_settings *s, const char *command, const char *db_path,
                    size_t instances, notify_command *out)
{
    *out = (notify_command){0};
    if (!s->url) return EXIT_OK;
    notify_sender_options opt;
    notify_sender_options_default(&opt);
    skytune_error err;
    if (s->format && notify_format_parse(s->format, &opt.format, &err) != 0) {
        cli_error("%s: %s", s->origin, err.message);
        return EXIT_USAGE;
    }
    if (s->best_interval &&
        cli_parse_duration("notify-best-interval", s->best_interval, &opt.best_interval_s) != 0)
        return EXIT_USAGE;
    /* Checked now: a CA file that cannot be read would otherwise only show
     * as failed deliveries once the campaign runs. */
    FILE *ca = s->ca ? fopen(s->ca, "r") : NULL;
    if (s->ca && !ca) {
        int why = errno;
        char shown[QUOTE_PATH];
        cli_error("%s %s: %s (give a PEM file of CA certificates)", s->ca_origin,
                  quote_text(s->ca, shown, sizeof shown), strerror(why));
        return EXIT_USAGE;
    }
    if (ca) fclose(ca);
    opt.http.ca_file = s->ca;
    if (http_url_check(s->url, &err) != 0) {
        cli_error("%s: %s", s->origin, err.message);
        return EXIT_USAGE;
    }
    opt.on_log = print_log_line;
    char *database = absolute_path(db_path);
    if (!database || notify_sender_open(s->url, &opt, &out->notifier, &err) != 0 ||
        notify_run_new(out->notifier, command, database, instances, &out->events,
                              &err) != 0) {
        cli_error("%s: %s", s->origin, database ? err.message : "out of memory");
        free(database);
        notify_command_close(out);
        return EXIT_FAILED;
    }
    free(database);
    return EXIT_OK;
}

void notify_command_close(notify_command *rn)
{
    notify_sender_close(rn->notifier, NULL);
    notify_run_free(rn->events);
    *rn = (notify_command){0};
}

void run_observe_start(void *ctx, const tuning_started *s)
{
    run_observers *o = ctx;
    run_print_start(o->progress, s);
    if (o->notify) notify_run_started(o->notify, s);
}

void run_observe_event(void *ctx, const tuning_loop_event *ev)
{
    run_observers *o = ctx;
    progress_event(o->progress, ev);
    if (o->notify) notify_run_event(o->notify, ev);
}
