#include "progress.h"

#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "quote.h"
#include "terminal_text.h"

/* Redrawing a bar faster than this only costs time on slow terminals. */
#define REDRAW_INTERVAL_S 0.1
/* A log says a configuration is still being measured after this long, and
 * again every STILL_EVERY_S: a configuration normally takes well under the
 * first, and a line every half minute keeps a long one's log short. */
#define STILL_FIRST_S 10.0
#define STILL_EVERY_S 30.0
/* Failures of one status given a line of their own on a terminal; the rest
 * are counted in the bar (their messages are in the database). */
#define FAILURE_LINES 3
/* A failure's reason in a log line or above the bar: its first line, cut. */
#define REASON_BYTES 160
/* Width of a terminal that does not say. */
#define DEFAULT_COLUMNS 100

void progress_init(progress *p, FILE *out, bool quiet)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->quiet = quiet;
    p->terminal = isatty(fileno(out));
}

void format_duration_ns(double ns, char *buf, size_t len)
{
    if (!(ns >= 0) || isinf(ns))
        snprintf(buf, len, "-");
    else if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.3g µs", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g s", ns / 1e9);
}

void format_wait_s(double s, char *buf, size_t len)
{
    if (!(s >= 0) || isinf(s))
        snprintf(buf, len, "-");
    else if (s < 0.01)
        snprintf(buf, len, "<0.01 s");
    else if (s < 10)
        snprintf(buf, len, "%.2g s", s);
    else if (s < 90)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 90 * 60)
        snprintf(buf, len, "%.0f min", s / 60);
    else if (s < 48 * 3600)
        snprintf(buf, len, "%.1f h", s / 3600);
    else
        snprintf(buf, len, "%.1f d", s / 86400);
}

static void format_clock(double s, char *buf, size_t len)
{
    if (!(s >= 0) || isinf(s) || s > 360000) {
        snprintf(buf, len, "--:--");
        return;
    }
    int t = (int)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60);
    else
        snprintf(buf, len, "%d:%02d", t / 60, t % 60);
}

/* The campaign of this label, taking a free slot for a new one; the last
 * slot serves any beyond PROGRESS_MAX_CAMPAIGNS. */
static progress_campaign *campaign_of(progress *p, const char *label)
{
    for (size_t k = 0; k < PROGRESS_MAX_CAMPAIGNS; k++) {
        progress_campaign *c = &p->campaigns[k];
        if (c->used && (c->label == label || (c->label && label && !strcmp(c->label, label))))
            return c;
        if (!c->used) {
            memset(c, 0, sizeof *c);
            c->used = true;
            c->label = label;
            return c;
        }
    }
    return &p->campaigns[PROGRESS_MAX_CAMPAIGNS - 1];
}

void progress_begin(progress *p, const char *label, unsigned ahead)
{
    progress_campaign *c = campaign_of(p, label);
    memset(c, 0, sizeof *c);
    c->used = true;
    c->label = label;
    run_pace_init(&c->pace, ahead);
}

/* Configurations of the plan not evaluated yet. */
static uint64_t left_of(uint64_t planned, uint64_t evaluated)
{
    return planned > evaluated ? planned - evaluated : 0;
}

/* ------------------------------------------------------------ the bar */

static int terminal_columns(const progress *p)
{
    struct winsize ws;
    if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return DEFAULT_COLUMNS;
}

/* text cut to `columns` characters (UTF-8: a character is a lead byte) into
 * out, ending in "…" when something was cut. */
static void fit_columns(const char *text, int columns, char *out, size_t len)
{
    int seen = 0;
    size_t k = 0;
    for (; text[k]; k++) {
        if (((unsigned char)text[k] & 0xC0) == 0x80) continue;
        if (seen == columns - 1) break;
        seen++;
    }
    /* k: where the last column's character starts, or the end. */
    size_t rest = k;
    if (text[rest]) {
        rest++;
        while (((unsigned char)text[rest] & 0xC0) == 0x80) rest++;
    }
    if (!text[rest])
        snprintf(out, len, "%s", text);
    else
        snprintf(out, len, "%.*s\xE2\x80\xA6", (int)k, text);
}

/* " ok 10, compile 1, wrong_result 2" */
static size_t format_counts(const progress_campaign *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int s = 0; s < MEAS_STATUS_COUNT && used < len; s++)
        if (s == MEAS_OK || c->by_status[s])
            used += (size_t)snprintf(buf + used, len - used, "%s%s %llu", used ? ", " : "",
                                     measurement_status_name((measurement_status)s),
                                     (unsigned long long)c->by_status[s]);
    return used;
}

static bool stopping(const progress *p)
{
    return p->stop_requested && *p->stop_requested;
}

/* What the configuration in flight is doing: "build 12 s", "health check
 * 3 s", "starting 1 s". */
static void format_stage(const progress_campaign *c, char *buf, size_t len)
{
    char time[32];
    format_wait_s(c->config_s, time, sizeof time);
    const char *stage = c->checking_health ? "health check"
                        : c->stage == STAGE_NONE ? "starting"
                                                 : measure_stage_name(c->stage);
    snprintf(buf, len, "%s %s", stage, time);
}

static void draw_bar(progress *p, const progress_campaign *c)
{
    double now = clock_monotonic_s();
    p->last_draw_s = now;
    /* This run's own pace: configurations reused from the database come
     * back at once and would make the rest look instant. */
    double pace = run_pace_seconds(&c->pace);
    double rate = pace > 0 ? 1.0 / pace : 0.0;
    double eta = pace > 0 ? (double)left_of(c->planned, c->evaluated) * pace : INFINITY;
    char eta_text[32], best[32], counts[256];
    format_clock(eta, eta_text, sizeof eta_text);
    format_duration_ns(c->have_best ? c->best_ns : NAN, best, sizeof best);
    format_counts(c, counts, sizeof counts);
    const int width = 20;
    int filled = c->planned ? (int)((double)width * (double)c->evaluated / (double)c->planned) : 0;
    char bar[32];
    for (int k = 0; k < width; k++) bar[k] = k < filled ? '#' : '.';
    bar[width] = '\0';
    char line[2048];
    /* What running as long again would gain: the user's cue to stop. */
    char gain[48] = "";
    if (c->have_gain && c->gain_more)
        snprintf(gain, sizeof gain, "  +%llu: ~%.2g %%", (unsigned long long)c->gain_more,
                 100 * c->expected_gain);
    int used = snprintf(line, sizeof line, "[%s] %llu/%llu  %s  %.2g/s  ETA %s  best %s%s", bar,
                        (unsigned long long)c->evaluated, (unsigned long long)c->planned, counts,
                        rate, eta_text, best, gain);
    if (c->in_flight && used > 0 && (size_t)used < sizeof line) {
        char stage[64], config[QUOTE_PATH];
        format_stage(c, stage, sizeof stage);
        /* Escaped before the line is fitted to the terminal's columns. */
        quote_text(c->config, config, sizeof config);
        if (stopping(p))
            snprintf(line + used, sizeof line - (size_t)used,
                     "  | stopping after %s (%s; Ctrl-C again: now)", config, stage);
        else
            snprintf(line + used, sizeof line - (size_t)used, "  | %s: %s", stage, config);
    }
    /* One column short of the width: a line that fills it would wrap on
     * some terminals, and the next redraw would start a line lower. */
    char shown[sizeof line + 4];
    fit_columns(line, terminal_columns(p) - 1, shown, sizeof shown);
    fprintf(p->out, "\r\033[K%s", shown);
    fflush(p->out);
    p->drawn = true;
}

/* ------------------------------------------------------------ lines */

/* A failure's reason in one line, escaped and cut: the first line of its
 * message, or for a build the first line of the log that says "error" (the
 * first line only repeats the options). */
static const char *reason_of(const measurement *m, char *buf, size_t len)
{
    const char *text = m->message ? m->message : "";
    const char *line = text;
    if (m->status == MEAS_COMPILE)
        for (const char *at = text; *at; at += strcspn(at, "\n"), at += *at == '\n') {
            size_t n = strcspn(at, "\n");
            const char *hit = strstr(at, "error");
            if (hit && hit < at + n) {
                line = at;
                break;
            }
        }
    size_t first = strcspn(line, "\n");
    if (first > REASON_BYTES) first = REASON_BYTES;
    return quote_span(line, first, buf, len);
}

/* text right-aligned in `width` characters (UTF-8: "µs" is one less than
 * its bytes), into buf. */
static const char *pad_left(const char *text, int width, char *buf, size_t len)
{
    int chars = 0;
    for (const char *c = text; *c; c++)
        if (((unsigned char)*c & 0xC0) != 0x80) chars++;
    snprintf(buf, len, "%*s%s", width > chars ? width - chars : 0, "", text);
    return buf;
}

/* Lines that show a configuration or a label are written escaped
 * (terminal_text.h): a recorded dataset names its own. */
static void print_line_prefix(const progress *p, const char *label)
{
    if (label) terminal_fprintf(p->out, "[%s] ", label);
}

/* Once the run has measured its pace (run_pace.h): what the configurations
 * left will take at that pace. */
static void print_estimate(progress *p, progress_campaign *c, const tuning_loop_event *ev)
{
    c->estimated = true;
    uint64_t left = left_of(ev->planned, ev->evaluated);
    if (left == 0) return;
    const run_pace *pace = &c->pace;
    double each = run_pace_seconds(pace);
    char every[32], total[32], why[160], limit[160] = "";
    format_wait_s(each, every, sizeof every);
    format_wait_s(each * (double)left, total, sizeof total);
    const tuning_loop_limits *l = ev->limits;
    if (l && l->max_evaluations)
        snprintf(why, sizeof why, " of --budget %llu", (unsigned long long)l->max_evaluations);
    else
        snprintf(why, sizeof why, " (the whole space: no --budget; --budget N or --time-limit "
                                  "bounds it)");
    /* The time limit counts from the run's start. */
    double to_go = l && l->time_limit_s > 0 ? l->time_limit_s - ev->elapsed_s : 0;
    if (l && l->time_limit_s > 0 && to_go < each * (double)left) {
        char stop[32];
        format_wait_s(to_go > 0 ? to_go : 0, stop, sizeof stop);
        snprintf(limit, sizeof limit, "; --time-limit stops it in %s", stop);
    }
    progress_finish(p);
    print_line_prefix(p, ev->label);
    char first[64] = "the first, which starts the worker";
    uint64_t round = run_pace_round(pace);
    if (round > 1)
        snprintf(first, sizeof first, "the first %llu, which start the workers",
                 (unsigned long long)round);
    fprintf(p->out, "estimate: one configuration every %s (%llu measured; %s, not counted); at "
            "that pace the %llu %s left%s take about %s%s\n",
            every, (unsigned long long)pace->measured, first, (unsigned long long)left,
            left == 1 ? "configuration" : "configurations", why, total, limit);
    fflush(p->out);
}

static void print_log_line(progress *p, const tuning_loop_event *ev)
{
    const measurement *m = ev->m;
    char time_text[32], gflops[32] = "", reason[REASON_BYTES * 4 + 8] = "";
    format_duration_ns(m->median_ns, time_text, sizeof time_text);
    /* GFLOP/s where the plugin counts flops, else GB/s where it counts
     * bytes only (a transposition computes nothing), else nothing. */
    if (m->status == MEAS_OK && m->gflops > 0)
        snprintf(gflops, sizeof gflops, "%.2f GFLOP/s", m->gflops);
    else if (m->status == MEAS_OK && m->gbs > 0)
        snprintf(gflops, sizeof gflops, "%.2f GB/s", m->gbs);
    if (m->status != MEAS_OK) {
        char shown[REASON_BYTES * 4 + 4];
        snprintf(reason, sizeof reason, "  \"%s\"", reason_of(m, shown, sizeof shown));
    }
    char raced[48] = "";
    if (m->raced)
        snprintf(raced, sizeof raced, " (raced: %zu timed %s)", m->n_samples,
                 m->n_samples == 1 ? "run" : "runs");
    char time_column[48];
    pad_left(m->status == MEAS_OK ? time_text : "-", 10, time_column, sizeof time_column);
    print_line_prefix(p, ev->label);
    terminal_fprintf(p->out, "[%llu/%llu] %-12s %s %16s  %s%s%s%s\n",
                     (unsigned long long)ev->evaluated, (unsigned long long)ev->planned,
                     measurement_status_name(m->status), time_column, gflops, ev->config_text,
                     ev->cached ? " (stored)" : "", raced, reason);
    fflush(p->out);
}

/* On a terminal, the first failures of each status, with their reason,
 * above the bar. */
static void print_failure_line(progress *p, progress_campaign *c, const tuning_loop_event *ev)
{
    const measurement *m = ev->m;
    /* A crash or timeout has had its notice from the supervisor already. */
    if (m->status == MEAS_OK || m->status == MEAS_CRASH || m->status == MEAS_TIMEOUT ||
        (unsigned)m->status >= MEAS_STATUS_COUNT)
        return;
    uint64_t n = ++c->lines_by_status[m->status];
    if (n > FAILURE_LINES) return;
    char shown[REASON_BYTES * 4 + 4];
    char line[2048];
    if (n < FAILURE_LINES)
        snprintf(line, sizeof line, "%s: %s: %s", measurement_status_name(m->status),
                 ev->config_text, reason_of(m, shown, sizeof shown));
    else
        snprintf(line, sizeof line, "%s: %s: %s (further %s failures are counted in the bar; "
                 "`skytune query --db FILE failures` lists them all)",
                 measurement_status_name(m->status), ev->config_text,
                 reason_of(m, shown, sizeof shown), measurement_status_name(m->status));
    progress_finish(p);
    terminal_fprintf(p->out, "%s\n", line);
}

/* A multi-phase strategy's new phase, before the evaluation that began it:
 * the log then shows how many evaluations each phase took. */
static void print_phase_line(progress *p, const tuning_loop_event *ev)
{
    if (p->terminal) progress_finish(p);
    print_line_prefix(p, ev->label);
    fprintf(p->out, "from evaluation %llu, %s\n", (unsigned long long)ev->evaluated,
            ev->strategy_phase);
    fflush(p->out);
}

/* A log has no bar: it says what more evaluations would gain once as the
 * estimate falls below each of these, the points where a user weighs
 * stopping (--stop-when-gain-below takes the same fractions). */
static const double gain_marks[] = {0.05, 0.01, 0.001};
#define N_GAIN_MARKS (sizeof gain_marks / sizeof gain_marks[0])

static void print_gain_line(progress *p, progress_campaign *c, const tuning_loop_event *ev)
{
    if (!ev->have_gain || ev->gain_more == 0) return;
    unsigned passed = 0;
    while (passed < N_GAIN_MARKS && ev->expected_gain < gain_marks[passed]) passed++;
    if (passed <= c->gain_marks_said) return;
    c->gain_marks_said = passed;
    print_line_prefix(p, ev->label);
    fprintf(p->out, "after %llu evaluations: %llu more expected to lower the best time by "
                    "%.3g %% (below %g %%)\n",
            (unsigned long long)ev->evaluated, (unsigned long long)ev->gain_more,
            100 * ev->expected_gain, 100 * gain_marks[passed - 1]);
    fflush(p->out);
}

void progress_event(void *ctx, const tuning_loop_event *ev)
{
    progress *p = ctx;
    progress_campaign *c = campaign_of(p, ev->label);
    if ((unsigned)ev->m->status < MEAS_STATUS_COUNT) c->by_status[ev->m->status]++;
    c->evaluated = ev->evaluated;
    c->planned = ev->planned;
    c->have_best = ev->have_best;
    c->best_ns = ev->best_ns;
    c->have_gain = ev->have_gain;
    c->expected_gain = ev->expected_gain;
    c->gain_more = ev->gain_more;
    c->elapsed_s = ev->elapsed_s;
    c->in_flight = false;
    if (!ev->cached) run_pace_add(&c->pace, ev->elapsed_s, ev->wall_s);
    if (p->quiet) return;
    /* A replay takes no time of its own to estimate. */
    bool estimate = !ev->cached && !ev->m->replayed && !c->estimated &&
                    run_pace_settled(&c->pace);
    if (ev->strategy_phase) print_phase_line(p, ev);
    if (!p->terminal) {
        print_log_line(p, ev);
        if (estimate) print_estimate(p, c, ev);
        print_gain_line(p, c, ev);
        return;
    }
    if (estimate) print_estimate(p, c, ev);
    print_failure_line(p, c, ev);
    if (ev->evaluated < ev->planned && p->drawn &&
        clock_monotonic_s() - p->last_draw_s < REDRAW_INTERVAL_S)
        return;
    draw_bar(p, c);
}

void progress_activity(void *ctx, const tuning_loop_activity *a)
{
    progress *p = ctx;
    progress_campaign *c = campaign_of(p, a->label);
    bool same = c->in_flight && strncmp(c->config, a->config_text, sizeof c->config - 1) == 0;
    if (!same) {
        snprintf(c->config, sizeof c->config, "%s", a->config_text);
        c->still_said = 0;
    }
    c->in_flight = true;
    c->stage = a->stage;
    c->config_s = a->elapsed_s;
    c->checking_health = a->checking_health;
    c->evaluated = a->evaluated;
    c->planned = a->planned;
    c->elapsed_s = a->tuning_loop_elapsed_s;
    if (p->quiet) return;
    if (p->terminal) {
        if (clock_monotonic_s() - p->last_draw_s >= REDRAW_INTERVAL_S) draw_bar(p, c);
        return;
    }
    double due = STILL_FIRST_S + STILL_EVERY_S * c->still_said;
    if (a->elapsed_s < due) return;
    c->still_said++;
    char time[32];
    format_wait_s(a->elapsed_s, time, sizeof time);
    print_line_prefix(p, a->label);
    if (a->checking_health)
        terminal_fprintf(p->out, "still checking the device's health before %s: %s\n",
                         a->config_text, time);
    else
        terminal_fprintf(p->out, "still measuring %s: stage %s, %s\n", a->config_text,
                         a->stage == STAGE_NONE ? "starting" : measure_stage_name(a->stage), time);
    fflush(p->out);
}

/* "812", "35.2 k", "1.23 M", "4.5 G": a count at a glance. */
static void format_count(uint64_t n, char *buf, size_t len)
{
    if (n < 1000)
        snprintf(buf, len, "%llu", (unsigned long long)n);
    else if (n < 1000000)
        snprintf(buf, len, "%.3g k", (double)n / 1e3);
    else if (n < 1000000000)
        snprintf(buf, len, "%.3g M", (double)n / 1e6);
    else
        snprintf(buf, len, "%.3g G", (double)n / 1e9);
}

/* A space built within this time shows nothing. */
#define SPACE_QUIET_S 1.0

void progress_space(void *ctx, const space_progress *sp)
{
    progress *p = ctx;
    if (p->quiet || !p->terminal) return;
    double now = clock_monotonic_s();
    if (p->space_started_s == 0) p->space_started_s = now;
    double elapsed = now - p->space_started_s;
    if (elapsed < SPACE_QUIET_S || now - p->last_draw_s < REDRAW_INTERVAL_S) return;
    p->last_draw_s = now;
    char checked[32], limit[32], valid[32], clock[32], share[64] = "";
    format_count(sp->checked, checked, sizeof checked);
    format_count(sp->work_limit, limit, sizeof limit);
    format_count(sp->valid, valid, sizeof valid);
    format_clock(elapsed, clock, sizeof clock);
    /* A share too small to print says nothing; the limit bounds the wait. */
    if (sp->fraction >= 0.001)
        snprintf(share, sizeof share, ", %.1f%% of group %zu/%zu", 100.0 * sp->fraction,
                 sp->group + 1, sp->n_groups);
    fprintf(p->out, "\r\033[Kbuilding the search space: %s of at most %s combinations checked, "
            "%s valid%s  %s  (Ctrl-C stops)", checked, limit, valid, share, clock);
    fflush(p->out);
    p->drawn = true;
}

void progress_finish(progress *p)
{
    if (p->drawn) {
        fprintf(p->out, "\r\033[K");
        fflush(p->out);
        p->drawn = false;
    }
}

void progress_notice(void *ctx, const char *text)
{
    progress *p = ctx;
    progress_finish(p);
    fflush(p->out);
    terminal_message(text);
    fflush(stderr);
}
