#include "progress.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Redrawing a bar faster than this only costs time on slow terminals. */
#define REDRAW_INTERVAL_S 0.1

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

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GFLOP/s where the plugin counts flops, else GB/s where it counts bytes
 * only (a transposition computes nothing), else "-": 16 columns each. */
static void format_rate(const measurement *m, char *buf, size_t len)
{
    if (m->gflops > 0)
        snprintf(buf, len, "%8.2f GFLOP/s", m->gflops);
    else if (m->gbs > 0)
        snprintf(buf, len, "%8.2f GB/s   ", m->gbs);
    else
        snprintf(buf, len, "%8s        ", "-");
}

void progress_event(void *ctx, const campaign_event *ev)
{
    progress *p = ctx;
    if (p->quiet) return;
    char best[32], time_text[32];
    format_duration_ns(ev->have_best ? ev->best_ns : NAN, best, sizeof best);
    format_duration_ns(ev->m->median_ns, time_text, sizeof time_text);
    if (!p->terminal) {
        const char *status = measurement_status_name(ev->m->status);
        if (ev->label) fprintf(p->out, "[%s] ", ev->label);
        char rate[32];
        format_rate(ev->m, rate, sizeof rate);
        fprintf(p->out, "[%llu/%llu] %-12s %10s %s%s  %s\n", (unsigned long long)ev->evaluated,
                (unsigned long long)ev->planned, status,
                ev->m->status == MEAS_OK ? time_text : "-", rate, ev->cached ? " (stored)" : "",
                ev->config_text);
        fflush(p->out);
        return;
    }
    double now = wall_s();
    if (ev->evaluated < ev->planned && now - p->last_draw_s < REDRAW_INTERVAL_S) return;
    p->last_draw_s = now;
    double rate = ev->elapsed_s > 0 ? (double)ev->evaluated / ev->elapsed_s : 0.0;
    double eta = rate > 0 ? (double)(ev->planned - ev->evaluated) / rate : INFINITY;
    char eta_text[32];
    format_clock(eta, eta_text, sizeof eta_text);
    const int width = 24;
    int filled = ev->planned ? (int)((double)width * (double)ev->evaluated / (double)ev->planned) : 0;
    char bar[32];
    for (int k = 0; k < width; k++) bar[k] = k < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(p->out, "\r\033[K[%s] %llu/%llu  %.1f/s  ETA %s  best %s", bar,
            (unsigned long long)ev->evaluated, (unsigned long long)ev->planned, rate, eta_text,
            best);
    fflush(p->out);
    p->drawn = true;
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
    double now = wall_s();
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
    fprintf(stderr, "skytune: %s\n", text);
    fflush(stderr);
}
