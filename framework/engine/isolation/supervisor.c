#include "supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "compile_pool.h"
#include "measure_ahead.h"
#include "quote.h"
#include "worker_process.h"

/* A measuring worker that dies during its own set-up this many times in a
 * row is a broken setup, not a bad configuration: the campaign stops. */
#define MAX_START_FAILURES 3
/* How often a wait looks at the stop flag, in seconds. */
#define STOP_POLL_S 0.05
#define MAX_POLLFDS 256

struct supervisor {
    supervisor_options o;
    const space *space;
    size_t n_params;
    skytune_named_value *values;
    worker_process worker;
    compile_pool *pool;
    measure_ahead *ahead;     /* spare measuring workers; NULL: none */
    uint64_t *hint;           /* the next configuration and those after it */
    size_t hint_cap;
    /* hint[0] is the configuration in flight, hint[1] the one the
     * strategy will probably ask next (hint_count 1: none). */
    size_t hint_count;
    uint64_t *spare_hint;      /* hint_spares: what the spares are given of it */
    bool waiting_for_device;   /* wait_for_worker: until no early run holds it */
    char reference_dir[4096];  /* the shared CPU reference's folder; "": none */
    char reference_file[4200];
    uint64_t next_request;
    unsigned start_failures;
    /* The watchdog: the slowest verify + timed seconds of an ok
     * configuration so far. */
    double slowest_ok_s;
    /* The most a first launch took beyond its kernels' own time so far (the
     * driver's code generation, measurer.h); -1: none measured yet. */
    double first_launch_extra_s;
    /* The wait for a compile worker that built the configuration in flight:
     * the part of its build that happened before its request. */
    double waited_for_build_s;
    /* The health check's reference: the best configuration so far and its
     * recorded median, from a measurement taken while healthy. */
    bool have_reference;
    uint16_t *reference_idx;
    double reference_ns;
    double reference_min_ns, reference_max_ns;   /* its samples' spread */
    bool check_due;           /* a fault happened since the last check */
    bool degraded;
    unsigned since_check;     /* measurements since the last failed check */
    supervisor_stats stats;
    /* The configuration in flight, as the campaign's watcher hears of it. */
    void (*on_activity)(void *ctx, const evaluation_activity *a);
    void *activity_ctx;
    bool in_flight;
    double flight_started;
    measure_stage flight_stage;
    bool checking_health;
    double next_activity;     /* when to report again, monotonic seconds */
    /* The configurations the measuring worker has measured since it
     * started (as text, the last of them): a wrong result from a worker
     * that measured others first may be their damage. */
    unsigned worker_measured;
    char worker_last[256];
    bool told_cache_unwritable;   /* said once per run */
    double race_limit_ns;     /* the campaign's race limit (racing.h); 0: none */
};

void supervisor_limits_default(supervisor_limits *l)
{
    *l = (supervisor_limits){
        .floor_s = 10, .factor = 10, .cap_s = 600, .compile_s = 300, .stop_grace_s = 3};
}

void supervisor_health_default(supervisor_health *h)
{
    *h = (supervisor_health){.threshold = 0.25, .retries = 3, .wait_s = 2, .every = 10};
}

static void notice(supervisor *s, const char *fmt, ...) SKYTUNE_PRINTF(2, 3);

static void notice(supervisor *s, const char *fmt, ...)
{
    if (!s->o.on_notice) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    s->o.on_notice(s->o.notice_ctx, text);
}

/* A worker's output that belongs to no configuration: a notice. */
static void notice_output(supervisor *s, const char *who, char *output)
{
    worker_output_notice(output, who, s->o.on_notice, s->o.notice_ctx);
}

/* Attach what a worker wrote while it worked on a configuration to the
 * configuration's message, under a heading: kept in the database with
 * the configuration, never on the terminal. Frees it. */
static int attach_output(measurement *m, const char *heading, char *output)
{
    if (!output) return 0;
    /* A build log ends in blank lines of its own. */
    int kept = m->message ? (int)strlen(m->message) : 0;
    while (kept > 0 && (m->message[kept - 1] == '\n' || m->message[kept - 1] == ' ')) kept--;
    size_t len = (size_t)kept + 2 + strlen(heading) + strlen(output) + 3;
    char *text = malloc(len);
    int rc = -1;
    if (text) {
        snprintf(text, len, "%.*s%s%s:\n%s", kept, kept ? m->message : "", kept ? "\n\n" : "",
                 heading, output);
        rc = measurement_set_message(m, text);
    }
    free(text);
    free(output);
    return rc;
}

/* Count what became of a build's cache entry; at the first that could not
 * be stored, whichever worker built it, say so: the run goes on, but the
 * next one compiles again what this one could not keep. */
static void count_entry(supervisor *s, cache_entries *into, cache_entry_outcome outcome,
                        const char *reason)
{
    if (!cache_entries_count(into, outcome, reason) || s->told_cache_unwritable) return;
    s->told_cache_unwritable = true;
    char text[1024];
    cache_entries_unwritable_notice(s->o.setup.cache_dir, into->first_reason, text, sizeof text);
    notice(s, "%s", text);
}

static void count_ahead_entry(void *ctx, cache_entry_outcome outcome, const char *reason)
{
    supervisor *s = ctx;
    count_entry(s, &s->stats.ahead_entries, outcome, reason);
}

static void count_measuring_entry(void *ctx, cache_entry_outcome outcome, const char *reason)
{
    supervisor *s = ctx;
    count_entry(s, &s->stats.measuring_entries, outcome, reason);
}

static bool stop_requested(const supervisor *s)
{
    return s->o.stop_requested && *s->o.stop_requested;
}

/* Tell the watcher where the configuration in flight is. */
static void report_activity(supervisor *s)
{
    if (!s->on_activity || !s->in_flight) return;
    double now = clock_monotonic_s();
    s->next_activity = now + EVALUATOR_ACTIVITY_INTERVAL_S;
    evaluation_activity a = {.stage = s->flight_stage,
                             .elapsed_s = now - s->flight_started,
                             .checking_health = s->checking_health};
    s->on_activity(s->activity_ctx, &a);
}

static void set_stage(supervisor *s, measure_stage stage)
{
    s->flight_stage = stage;
    report_activity(s);
}

/* Wait until the worker has something to say, `until` (monotonic seconds)
 * passes, or a stop is requested, keeping the compile pool served meanwhile
 * and the watcher told. Returns true when the worker's pipe is readable. */
static bool wait_for_worker(supervisor *s, double until)
{
    for (;;) {
        struct pollfd fds[MAX_POLLFDS];
        size_t n = 0;
        if (s->worker.fd >= 0) fds[n++] = (struct pollfd){.fd = s->worker.fd, .events = POLLIN};
        size_t pool_first = n;
        if (s->pool) n += compile_pool_pollfds(s->pool, fds + n, MAX_POLLFDS - n);
        size_t ahead_first = n;
        if (s->ahead) n += measure_ahead_pollfds(s->ahead, fds + n, MAX_POLLFDS - n);
        double wake = until;
        if (s->pool && compile_pool_deadline(s->pool) < wake) wake = compile_pool_deadline(s->pool);
        if (s->ahead && measure_ahead_deadline(s->ahead) < wake)
            wake = measure_ahead_deadline(s->ahead);
        bool watched = s->on_activity && s->in_flight;
        if (watched && s->next_activity < wake) wake = s->next_activity;
        double now = clock_monotonic_s();
        double left = wake - now;
        if (s->o.stop_requested && left > STOP_POLL_S) left = STOP_POLL_S;
        int wait_ms = left <= 0 ? 0 : (int)(left * 1e3) + 1;
        int r = poll(fds, n, wait_ms);
        if (r < 0 && errno != EINTR) return false;
        if (s->pool)
            compile_pool_service(s->pool, fds + pool_first, r > 0 ? ahead_first - pool_first : 0);
        if (s->ahead) measure_ahead_service(s->ahead, fds + ahead_first, r > 0 ? n - ahead_first : 0);
        if (watched && clock_monotonic_s() >= s->next_activity) report_activity(s);
        if (r > 0 && pool_first == 1 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            return true;
        if (s->waiting_for_device && !measure_ahead_device_busy(s->ahead)) return false;
        if (clock_monotonic_s() >= until || stop_requested(s)) return false;
    }
}

/* Ends the measuring worker; what it wrote until then into *output (NULL:
 * passed on as a notice, since no configuration is there to take it). */
static void end_worker(supervisor *s, double grace_s, char *how, size_t len, char **output)
{
    char *left = NULL;
    worker_process_end_with_output(&s->worker, grace_s, how, len, &left);
    if (output)
        *output = left;
    else
        notice_output(s, "the measuring worker", left);
    if (s->pool) compile_pool_resume(s->pool);
}

/* Start the measuring worker if none runs, and wait for its READY. 1: ready;
 * 0: a stop was requested meanwhile; -1: it cannot be started (err). */
static int ensure_worker_untraced(supervisor *s, skytune_error *err);

/* A measuring worker ready to measure, starting one when there is none: 1;
 * 0 when a stop request came first; -1 when none could be started. */
static int ensure_worker(supervisor *s, skytune_error *err)
{
    if (s->worker.pid > 0) return 1;
    double since = clock_monotonic_s();
    int rc = ensure_worker_untraced(s, err);
    trace_span(s->o.trace, "start the measuring worker", "engine", since, clock_monotonic_s(),
               NULL);
    return rc;
}

static int ensure_worker_untraced(supervisor *s, skytune_error *err)
{
    while (s->worker.pid <= 0) {
        if (worker_process_start(s->o.worker_exe, WORKER_ROLE_MEASURE, &s->o.setup, &s->worker,
                                 err) != 0)
            return -1;
        worker_message msg;
        skytune_error send_err;
        double deadline = clock_monotonic_s() + s->o.limits.cap_s;
        char how[128] = "";
        if (wait_for_worker(s, deadline)) {
            int got = worker_process_receive(&s->worker, 0, &msg, &send_err);
            if (got == 1 && msg.type == WORKER_MSG_READY) {
                worker_message_free(&msg);
                s->start_failures = 0;
                s->worker_measured = 0;
                s->worker_last[0] = '\0';
                notice_output(s, "the measuring worker's set-up",
                              worker_process_take_output(&s->worker));
                return 1;
            }
            if (got == 1 && msg.type == WORKER_MSG_FAILED) {
                char *text = worker_get_str(&msg);
                err_set(err, "the measuring worker could not set up: %s", text ? text : "");
                free(text);
                worker_message_free(&msg);
                end_worker(s, 1.0, NULL, 0, NULL);
                return -1;
            }
            if (got == 1) worker_message_free(&msg);
            end_worker(s, 1.0, how, sizeof how, NULL);
        } else if (stop_requested(s)) {
            end_worker(s, 0, NULL, 0, NULL);
            return 0;
        } else {
            end_worker(s, 0, how, sizeof how, NULL);
            snprintf(how, sizeof how, "not ready after %.0f s", s->o.limits.cap_s);
        }
        if (++s->start_failures >= MAX_START_FAILURES)
            return err_set(err,
                           "the measuring worker failed to start %u times in a row (last: %s); "
                           "the plugin's setup or reference, or the device, is broken",
                           s->start_failures, how[0] ? how : "no answer");
        s->stats.restarts++;
    }
    return 1;
}

/* The limit after a build, for a configuration whose first launch may
 * need `codegen_s` for the driver's code generation (0 once it is past). */
static double post_build_limit(const supervisor *s, double codegen_s)
{
    double limit = s->o.limits.floor_s + s->o.limits.factor * (s->slowest_ok_s + codegen_s);
    return limit < s->o.limits.cap_s ? limit : s->o.limits.cap_s;
}

/* Once a configuration has verified, its own verification says how long a
 * run of it takes: the warm-up and the timed runs get the floor plus the
 * factor times that many runs of it, if that is more than the limit from
 * earlier configurations. Without this, a configuration whose runs take
 * seconds (a large problem on a CPU device) would time out on the floor
 * whenever no configuration had passed before it. */
static double runs_limit(const supervisor *s, double verified_s)
{
    double limit = s->o.limits.floor_s +
                   s->o.limits.factor * verified_s * ((double)s->o.setup.runs + 1.0);
    double earlier = post_build_limit(s, 0);
    if (limit < earlier) limit = earlier;
    return limit < s->o.limits.cap_s ? limit : s->o.limits.cap_s;
}

/* Let the measuring worker, waiting at the gate, use the device: on a CPU
 * device once the compile workers are stopped. */
static int give_device(supervisor *s, skytune_error *err)
{
    /* A spare let through early (let_next_through) has the device until
     * its release; its own deadline bounds the wait. */
    if (s->ahead && measure_ahead_device_busy(s->ahead)) {
        double since = clock_monotonic_s();
        s->waiting_for_device = true;
        while (measure_ahead_device_busy(s->ahead) && !stop_requested(s))
            wait_for_worker(s, clock_monotonic_s() + s->o.limits.cap_s);
        s->waiting_for_device = false;
        trace_span(s->o.trace, "wait for an early run to release the device", "engine", since,
                   clock_monotonic_s(), NULL);
    }
    if (s->pool && s->o.pause_compile_for_device) compile_pool_pause(s->pool);
    worker_message go;
    worker_message_init(&go, WORKER_MSG_GO);
    int rc = worker_process_send(&s->worker, &go, err);
    worker_message_free(&go);
    return rc;
}

/* The configuration's rank; UINT64_MAX for one outside the space. */
static uint64_t configuration_rank(const supervisor *s, const uint16_t *idx)
{
    uint64_t rank;
    return space_rank(s->space, idx, &rank) == 0 ? rank : UINT64_MAX;
}

/* What the measuring worker wrote (output, freed) and what a compile worker
 * wrote building it ahead, into the configuration's message. */
static int attach_worker_output(supervisor *s, uint64_t rank, measurement *m, char *output,
                                skytune_error *err)
{
    char *built = s->pool && rank != UINT64_MAX ? compile_pool_take_output(s->pool, rank) : NULL;
    if (attach_output(m, "compile worker output", built) != 0 ||
        attach_output(m, "worker output", output) != 0)
        return err_set(err, "out of memory");
    return 0;
}

/* A configuration on the measuring worker, from its request to its end. */
typedef struct flight {
    uint64_t request;          /* the worker's number for it */
    double started;            /* monotonic seconds */
    double build_end;          /* 0: building still */
    double codegen_s;          /* allowed for the first launch's code generation */
    measure_stage stage;
    double limit_s;            /* the stage's time limit, */
    double deadline;           /* and when it runs out */
    double stop_deadline;      /* after a stop request: when the worker is stopped */
    double verify_entered;
    double verified_s;         /* the verification's seconds; -1: not verified yet */
    bool given_early;          /* a spare's early run, taken over with the device */
    /* The request could not be sent, or the device not given: the worker
     * is lost, and io_err says why. */
    bool lost;
    skytune_error io_err;
} flight;

/* How following a configuration ended. */
typedef enum flight_end {
    FLIGHT_UNDER_WAY,          /* not yet */
    FLIGHT_ANSWERED,           /* its result is in *m */
    FLIGHT_FATAL,              /* the device or the supervisor cannot go on (err) */
    FLIGHT_LOST,               /* the worker died or spoke out of turn */
    FLIGHT_TIMED_OUT,
    FLIGHT_INTERRUPTED         /* a stop request, and the grace after it, ran out */
} flight_end;

static double first_launch_allowance(const supervisor *s, double own_build_s);
static void hint_spares(supervisor *s, bool taken);
static void let_next_through(supervisor *s);

/* A configuration that a spare worker began building ahead, taken on where
 * it stands. */
static void resume_handed(supervisor *s, const ahead_handover *handed, flight *f)
{
    f->request = handed->request;
    f->started = handed->started;
    if (handed->stage >= STAGE_PREPARE) {
        f->build_end = handed->build_end ? handed->build_end : clock_monotonic_s();
        f->stage = handed->stage;
    }
    if (handed->running) {
        /* Let through early: it has the device already, under the limit
         * it was given then. The stages' limits count from then, as they
         * count from the gate for any configuration built ahead (it may
         * have waited there for long). */
        f->given_early = true;
        f->build_end = handed->go_at;
        f->verify_entered = handed->go_at;
        f->codegen_s = first_launch_allowance(s, 0);
        f->limit_s = post_build_limit(s, f->codegen_s);
        /* Past its verification already: its runs' limit too, unknown
         * here without its verification's time, bounded by the floor's. */
        if (f->stage >= STAGE_WARM_UP) f->limit_s += runs_limit(s, 0);
        f->deadline = handed->go_at + f->limit_s;
    }
    set_stage(s, f->stage);
}

static void send_request(supervisor *s, const uint16_t *idx, flight *f)
{
    worker_message msg;
    space_config_values(s->space, idx, s->values);
    worker_message_init(&msg, WORKER_MSG_MEASURE);
    f->request = ++s->next_request;
    /* The health check's reference is timed in full: its median is what
     * the device's health is judged by. */
    worker_put_measure_request(&msg, f->request, s->values, s->n_params,
                               s->checking_health ? 0.0 : s->race_limit_ns);
    f->lost = worker_process_send(&s->worker, &msg, &f->io_err) != 0;
    worker_message_free(&msg);
    set_stage(s, STAGE_BUILD);
}

/* Before any first launch of the campaign was measured, the least a first
 * launch is allowed for code generation (times the factor): a build loaded
 * from the cache, or done ahead by a spare worker, says nothing of it. */
#define UNMEASURED_FIRST_LAUNCH_S 0.5

/* What the configuration's first launch is allowed for the driver's code
 * generation: the most an earlier first launch took beyond its kernels;
 * before any was measured, the configuration's own build (the rest of
 * what a driver that defers code generation does then), at least
 * UNMEASURED_FIRST_LAUNCH_S. */
static double first_launch_allowance(const supervisor *s, double own_build_s)
{
    if (s->first_launch_extra_s >= 0) return s->first_launch_extra_s;
    return own_build_s > UNMEASURED_FIRST_LAUNCH_S ? own_build_s : UNMEASURED_FIRST_LAUNCH_S;
}

/* The first time limit: the compiler's, from the request; for a build done
 * ahead, the kernel's from now, with the device given to the worker. */
static void start_limit(supervisor *s, flight *f)
{
    if (f->given_early) return;
    f->limit_s = s->o.limits.compile_s;
    f->deadline = f->started + f->limit_s;
    if (f->stage != STAGE_PREPARE) return;
    f->build_end = clock_monotonic_s();
    f->codegen_s = first_launch_allowance(s, 0);
    f->limit_s = post_build_limit(s, 0);
    f->deadline = f->build_end + f->limit_s;
    if (!f->lost && give_device(s, &f->io_err) != 0) f->lost = true;
}

/* After a wait that heard nothing from the worker: whether the grace after
 * a stop request or the stage's time limit has run out. */
static flight_end check_deadlines(supervisor *s, flight *f)
{
    double now = clock_monotonic_s();
    if (stop_requested(s) && f->stop_deadline == INFINITY)
        f->stop_deadline = now + s->o.limits.stop_grace_s;
    if (now >= f->stop_deadline) return FLIGHT_INTERRUPTED;
    if (now >= f->deadline) return FLIGHT_TIMED_OUT;
    return FLIGHT_UNDER_WAY;
}

/* The time limit of the stage the worker went on to from `previous`. The
 * build ends once; no later stage is given the compiler's limit. Only the
 * verification, whose run is the first launch, is allowed the driver's code
 * generation on top of the kernel's limit. */
static void limit_stage(supervisor *s, flight *f, measure_stage previous)
{
    if (f->stage != STAGE_BUILD && f->build_end == 0) {
        f->build_end = clock_monotonic_s();
        f->codegen_s =
            first_launch_allowance(s, f->build_end - f->started + s->waited_for_build_s);
        f->limit_s = post_build_limit(s, 0);
        f->deadline = f->build_end + f->limit_s;
    }
    if (f->stage == STAGE_VERIFY && previous != STAGE_VERIFY) {
        f->limit_s = post_build_limit(s, f->codegen_s);
        f->deadline = f->build_end + f->limit_s;
    }
    /* Out of verification into the runs (a warm-up, or the timed runs when
     * the verification run was the warm-up). */
    if ((f->stage == STAGE_WARM_UP || f->stage == STAGE_TIMED) && previous == STAGE_VERIFY) {
        f->verified_s = clock_monotonic_s() - f->verify_entered;
        f->limit_s = runs_limit(s, f->verified_s);
        f->deadline = clock_monotonic_s() + f->limit_s;
    }
    /* The comparison after the runs is host code: the kernel's limit. */
    if (f->stage == STAGE_COMPARE && previous != STAGE_COMPARE) {
        f->limit_s = post_build_limit(s, 0);
        f->deadline = clock_monotonic_s() + f->limit_s;
    }
}

/* The device is done with the configuration in flight (its release, then
 * its comparison on the CPU): the spare holding the configuration the
 * strategy will probably ask next is let through the gate at once, so that
 * the device times it while this one is compared. Not where compile
 * workers are paused for whoever runs on the device (a CPU device's), nor
 * for the health check. */
static void let_next_through(supervisor *s)
{
    if (!s->ahead || (s->pool && s->o.pause_compile_for_device) || s->checking_health ||
        s->hint_count < 2 || measure_ahead_device_busy(s->ahead))
        return;
    /* Its verification and its runs: the limits a flight gets for them one
     * after the other, its runs' from the slowest ok configuration's. */
    double allowance = first_launch_allowance(s, 0);
    double limit = post_build_limit(s, allowance) + runs_limit(s, s->slowest_ok_s);
    if (measure_ahead_go_early(s->ahead, s->hint[1], limit)) s->stats.early_runs++;
}

/* The worker's STAGE message (freed). */
static flight_end enter_stage(supervisor *s, flight *f, worker_message *msg)
{
    uint64_t id = worker_get_u64(msg);
    uint32_t st = worker_get_u32(msg);
    worker_message_free(msg);
    if (id != f->request || st >= STAGE_COUNT) return FLIGHT_LOST;
    measure_stage previous = f->stage;
    f->stage = (measure_stage)st;
    set_stage(s, f->stage);
    if (f->stage == STAGE_VERIFY) f->verify_entered = clock_monotonic_s();
    limit_stage(s, f, previous);
    if (f->stage == STAGE_PREPARE && give_device(s, &f->io_err) != 0) return FLIGHT_LOST;
    if (f->stage == STAGE_RELEASE && previous != STAGE_RELEASE) let_next_through(s);
    return FLIGHT_UNDER_WAY;
}

/* The worker's RESULT message (freed) into *m. */
static flight_end take_result(supervisor *s, const uint16_t *idx, measurement *m, flight *f,
                              worker_message *msg, skytune_error *err)
{
    worker_result r;
    int rc = worker_get_result(msg, &r, &f->io_err);
    worker_message_free(msg);
    if (s->pool) compile_pool_resume(s->pool);
    if (rc != 0) return FLIGHT_LOST;
    if (r.request != f->request) {
        measurement_clear(&r.m);
        return FLIGHT_LOST;
    }
    *m = r.m;
    count_measuring_entry(s, r.entry, r.entry_reason);
    if (attach_worker_output(s, configuration_rank(s, idx), m,
                             worker_process_take_output(&s->worker), err) != 0)
        return FLIGHT_FATAL;
    if (r.context_lost) {
        /* The configuration's own result stands; the device needs a fresh
         * context, and a check that it is itself again. */
        end_worker(s, 1.0, NULL, 0, NULL);
        s->stats.restarts++;
        s->check_due = true;
        notice(s, "the device stopped answering after a launch failure; starting a new worker");
    }
    return FLIGHT_ANSWERED;
}

/* The worker's FAILED message (freed): the device cannot go on. */
static flight_end device_failed(supervisor *s, worker_message *msg, skytune_error *err)
{
    char *text = worker_get_str(msg);
    err_set(err, "the device cannot go on: %s", text ? text : "");
    free(text);
    worker_message_free(msg);
    end_worker(s, 1.0, NULL, 0, NULL);
    return FLIGHT_FATAL;
}

/* The worker's messages about the configuration, until its result or its
 * end. */
static flight_end follow_request(supervisor *s, const uint16_t *idx, measurement *m, flight *f,
                                 skytune_error *err)
{
    flight_end end = FLIGHT_UNDER_WAY;
    while (end == FLIGHT_UNDER_WAY) {
        double until = f->deadline < f->stop_deadline ? f->deadline : f->stop_deadline;
        if (!wait_for_worker(s, until)) {
            end = check_deadlines(s, f);
            continue;
        }
        worker_message msg;
        if (worker_process_receive(&s->worker, 0, &msg, &f->io_err) != 1) return FLIGHT_LOST;
        if (msg.type == WORKER_MSG_STAGE)
            end = enter_stage(s, f, &msg);
        else if (msg.type == WORKER_MSG_RESULT)
            end = take_result(s, idx, m, f, &msg, err);
        else if (msg.type == WORKER_MSG_FAILED)
            end = device_failed(s, &msg, err);
        else {
            worker_message_free(&msg);
            end = FLIGHT_LOST; /* a message out of turn: the worker is not to be trusted */
        }
    }
    return end;
}

static void describe_timeout(const supervisor *s, const flight *f, char *text, size_t len)
{
    const supervisor_limits *l = &s->o.limits;
    const char *stage = measure_stage_name(f->stage);
    if (f->stage == STAGE_BUILD)
        snprintf(text, len,
                 "timed out in stage build: no answer within the compile limit of %.3g s; the "
                 "worker was killed",
                 f->limit_s);
    else if (f->verified_s >= 0)
        snprintf(text, len,
                 "timed out in stage %s: no answer within %.3g s after the verification "
                 "(floor %.3g s + %.3g x %u runs of the verification's %.3g s, or more if "
                 "earlier configurations took longer; cap %.3g s); the worker was killed",
                 stage, f->limit_s, l->floor_s, l->factor, s->o.setup.runs + 1, f->verified_s,
                 l->cap_s);
    else if (s->slowest_ok_s > 0 || (f->stage == STAGE_VERIFY && f->codegen_s > 0)) {
        char codegen[160] = "";
        if (f->stage == STAGE_VERIFY && f->codegen_s > 0)
            snprintf(codegen, sizeof codegen,
                     " + %.3g s for the driver's code generation at the first launch (%s)",
                     f->codegen_s,
                     s->first_launch_extra_s >= 0
                         ? "the most an earlier first launch took beyond its kernels"
                         : "none measured yet: its own build time, at least 0.5 s");
        snprintf(text, len,
                 "timed out in stage %s: no answer within %.3g s after the build (floor "
                 "%.3g s + %.3g x (the slowest ok configuration's %.3g s%s), cap %.3g s); the "
                 "worker was killed",
                 stage, f->limit_s, l->floor_s, l->factor, s->slowest_ok_s, codegen, l->cap_s);
    } else
        snprintf(text, len,
                 "timed out in stage %s: no answer within the floor of %.3g s after the "
                 "build (no configuration has passed yet to scale it by; cap %.3g s, "
                 "--timeout-floor raises it); the worker was killed",
                 stage, f->limit_s, l->cap_s);
}

/* how: how the worker ended, as end_worker tells it; "" when it is not known. */
static void describe_crash(const flight *f, const char *how, char *text, size_t len)
{
    const char *stage = measure_stage_name(f->stage);
    /* "was killed by signal 11 (SIGSEGV)" reads; "was exit status 3" does not. */
    if (strncmp(how, "exit status", 11) == 0)
        snprintf(text, len, "crash in stage %s: the measuring worker ended with %s", stage, how);
    else
        snprintf(text, len, "crash in stage %s: the measuring worker was %s%s", stage,
                 how[0] ? "" : "lost: ", how[0] ? how : f->io_err.message);
}

/* The worker died, hung or was stopped: it is ended either way, and the
 * next configuration gets a fresh one. The configuration's status and
 * message say which. */
static int record_lost_request(supervisor *s, const uint16_t *idx, measurement *m,
                               const flight *f, flight_end end, skytune_error *err)
{
    double now = clock_monotonic_s();
    char *output = NULL;
    char how[160] = "";
    end_worker(s, end == FLIGHT_LOST ? 1.0 : 0, how, sizeof how, &output);
    s->stats.restarts++;
    m->build_s = (f->build_end ? f->build_end : now) - f->started;
    m->verify_s = f->build_end ? now - f->build_end : 0;
    m->stage = f->stage;
    char text[1536];
    if (end == FLIGHT_INTERRUPTED) {
        m->status = MEAS_CRASH;
        snprintf(text, sizeof text,
                 "interrupted in stage %s: the worker was stopped %.1f s after the stop request",
                 measure_stage_name(f->stage), s->o.limits.stop_grace_s);
    } else if (end == FLIGHT_TIMED_OUT) {
        m->status = MEAS_TIMEOUT;
        s->stats.timeouts++;
        describe_timeout(s, f, text, sizeof text);
        s->check_due = true;
    } else {
        m->status = MEAS_CRASH;
        s->stats.crashes++;
        describe_crash(f, how, text, sizeof text);
        s->check_due = true;
    }
    if (measurement_set_message(m, text) != 0) {
        free(output);
        return err_set(err, "out of memory");
    }
    if (end != FLIGHT_INTERRUPTED) notice(s, "%s", text);
    return attach_worker_output(s, configuration_rank(s, idx), m, output, err);
}

/* One configuration on the measuring worker. Faults are statuses in *m
 * (return 0); -1 only when the worker cannot be had at all. */
static int run_request(supervisor *s, const uint16_t *idx, measurement *m, skytune_error *err)
{
    measurement_init(m);
    flight f = {.started = clock_monotonic_s(),
                .stage = STAGE_BUILD,
                .stop_deadline = INFINITY,
                .verified_s = -1};
    uint64_t rank;
    ahead_handover handed;
    if (s->ahead && space_rank(s->space, idx, &rank) == 0 &&
        measure_ahead_take(s->ahead, rank, &s->worker, &handed)) {
        /* Built ahead: its worker becomes the measuring worker, and ours
         * (idle) takes its place among the spares. */
        s->worker = handed.proc;
        /* The worker that took its place, idle now, is given the next
         * configuration at once: it is to wait at the gate before this one
         * is compared (let_next_through). */
        hint_spares(s, true);
        /* A spare's history is its own: counted as unknown. */
        s->worker_measured = 1;
        s->worker_last[0] = '\0';
        /* Let through early and done with the device already (comparing,
         * or finished): the next one may have the device now, as it would
         * have had at this one's release. */
        if (handed.finished || (handed.running && handed.stage >= STAGE_RELEASE))
            let_next_through(s);
        if (handed.finished) {
            *m = handed.result;
            return attach_worker_output(s, rank, m, worker_process_take_output(&s->worker), err);
        }
        resume_handed(s, &handed, &f);
    } else {
        int ready = ensure_worker(s, err);
        if (ready < 0) return -1;
        if (ready == 0) {
            m->status = MEAS_CRASH;
            measurement_set_message(m, "interrupted before the worker was ready");
            return 0;
        }
        send_request(s, idx, &f);
    }
    start_limit(s, &f);
    flight_end end = f.lost ? FLIGHT_LOST : follow_request(s, idx, m, &f, err);
    if (end == FLIGHT_ANSWERED) return 0;
    if (end == FLIGHT_FATAL) return -1;
    return record_lost_request(s, idx, m, &f, end, err);
}

static void consider_reference(supervisor *s, const uint16_t *idx, const measurement *m)
{
    if (m->status != MEAS_OK || m->degraded || !(m->median_ns > 0)) return;
    if (s->have_reference && m->median_ns >= s->reference_ns) return;
    memcpy(s->reference_idx, idx, s->n_params * sizeof *idx);
    s->reference_ns = m->median_ns;
    /* A result from the store has its median only. */
    s->reference_min_ns = m->min_ns > 0 ? m->min_ns : m->median_ns;
    s->reference_max_ns = m->max_ns > 0 ? m->max_ns : m->median_ns;
    s->have_reference = true;
}

static void pause_interruptibly(supervisor *s, double seconds)
{
    double until = clock_monotonic_s() + seconds;
    while (!stop_requested(s) && clock_monotonic_s() < until) wait_for_worker(s, until);
}

/* Re-time the reference on the (new) worker until it is within the
 * threshold of its recorded median or the retries are spent. */
static int check_health_untraced(supervisor *s, skytune_error *err);

static int check_health(supervisor *s, skytune_error *err)
{
    double since = clock_monotonic_s();
    int rc = check_health_untraced(s, err);
    trace_span(s->o.trace, "health check", "engine", since, clock_monotonic_s(), NULL);
    return rc;
}

static int check_health_untraced(supervisor *s, skytune_error *err)
{
    s->check_due = false;
    s->since_check = 0;
    if (!s->have_reference) return 0;
    char text[256];
    space_config_text(s->space, s->reference_idx, text, sizeof text);
    for (unsigned attempt = 0;; attempt++) {
        measurement m;
        s->checking_health = true;
        int rc = run_request(s, s->reference_idx, &m, err);
        s->checking_health = false;
        if (rc != 0) return -1;
        /* The check measured in this worker too: what it damaged is charged
         * to the configuration after it unless the worker's history says
         * so (confirm_failure). */
        s->worker_measured++;
        snprintf(s->worker_last, sizeof s->worker_last, "%.200s, the health check's reference",
                 text);
        s->stats.health_checks++;
        double drift = m.status == MEAS_OK ? m.median_ns / s->reference_ns - 1.0 : INFINITY;
        /* Within the threshold, or within the spread of the reference's own
         * samples: a kernel of a microsecond varies by more than a
         * threshold meant for a device's health. */
        bool healthy = fabs(drift) <= s->o.health.threshold ||
                       (m.status == MEAS_OK && m.median_ns >= s->reference_min_ns &&
                        m.median_ns <= s->reference_max_ns);
        measurement_clear(&m);
        if (stop_requested(s)) return 0;
        if (healthy) {
            if (s->degraded) notice(s, "device healthy again: the reference %s is within %.0f %% "
                                       "of its recorded time",
                                    text, 100 * s->o.health.threshold);
            s->degraded = false;
            return 0;
        }
        s->stats.health_failures++;
        s->degraded = true;
        if (isfinite(drift))
            notice(s, "device degraded: the reference %s took %+.0f %% of its recorded time "
                      "(threshold %.0f %%)",
                   text, 100 * drift, 100 * s->o.health.threshold);
        else
            notice(s, "device degraded: the reference %s no longer measures", text);
        if (attempt >= s->o.health.retries) {
            notice(s, "going on after %u checks; measurements are flagged degraded until a "
                      "check passes",
                   attempt + 1);
            return 0;
        }
        /* The first re-check follows at once: a fresh worker's first runs
         * can be slow (a CPU device's thread pool starting) without the
         * device being at fault. The pauses after it (none where wait_s is
         * 0: a CPU device, tuning_run.c) are said, so that a campaign that
         * stands still says why. */
        double wait_s = attempt > 0 ? s->o.health.wait_s * ldexp(1.0, (int)attempt - 1) : 0;
        if (wait_s > 0) {
            notice(s, "checking the device again in %.0f s", wait_s);
            pause_interruptibly(s, wait_s);
        }
    }
}

/* A worker that measured a failure is not measured with again: a kernel
 * that wrote out of bounds or over its inputs, or left the context in a
 * bad state, would have the configurations after it charged with its
 * damage. Its successor starts from the plugin's set-up. A failed build
 * ran nothing on the device and keeps its worker; a timeout, and a crash
 * that killed the worker, have ended it already (a kernel that failed on
 * the device is a crash in a live worker). */
static void retire_worker_after(supervisor *s, const measurement *m)
{
    if (m->status != MEAS_WRONG_RESULT && m->status != MEAS_LAUNCH && m->status != MEAS_CRASH)
        return;
    if (s->worker.pid <= 0) return;
    end_worker(s, 1.0, NULL, 0, NULL);
    s->stats.retired++;
}

/* The length of the first line of text (NULL: 0). */
static size_t first_line_length(const char *text)
{
    return text ? strcspn(text, "\n") : 0;
}

/* What a failure looks like in a message, for the statuses that are
 * measured again (needs_confirmation); NULL for the others. */
static const char *failure_words(measurement_status status)
{
    switch (status) {
    case MEAS_WRONG_RESULT: return "wrong results";
    case MEAS_CRASH: return "a crash";
    case MEAS_LAUNCH: return "a failed launch";
    default: return NULL;
    }
}

/* A wrong result, a crash or a failed launch in a worker that measured
 * other configurations first may be their damage: a kernel that wrote
 * over its inputs, or past its buffers into the heap of a CPU device's
 * worker (found only later, at a free), or left the context broken. Such
 * a failure is measured again in a fresh worker, where it is the
 * configuration's own. A stop request's interruption is no failure of
 * the configuration; a timeout is not measured again (it would cost the
 * limit twice). */
static bool needs_confirmation(const supervisor *s, const measurement *m)
{
    return failure_words(m->status) && !s->checking_health && s->worker_measured > 1 &&
           !stop_requested(s);
}

/* Measured again in a fresh worker (needs_confirmation). Where the fresh
 * worker finds the same status, the first measurement stands, said to be
 * confirmed; otherwise the fresh one is recorded, and its message names
 * what the first worker had measured, the likely culprit. */
static int confirm_failure(supervisor *s, const uint16_t *idx, measurement *m,
                           skytune_error *err)
{
    if (!needs_confirmation(s, m)) return 0;
    char previous[sizeof s->worker_last];
    snprintf(previous, sizeof previous, "%s", s->worker_last);
    unsigned before = s->worker_measured - 1;
    if (s->worker.pid > 0) {
        end_worker(s, 1.0, NULL, 0, NULL);
        s->stats.retired++;
    }
    measurement again;
    if (run_request(s, idx, &again, err) != 0) return -1;
    s->worker_measured++;
    s->stats.confirmations++;
    if (again.status == m->status) {
        measurement_clear(&again);
        char text[2048];
        snprintf(text, sizeof text, "%s (confirmed in a fresh worker)",
                 m->message ? m->message : measurement_status_name(m->status));
        return measurement_set_message(m, text) == 0 ? 0 : err_set(err, "out of memory");
    }
    char text[1024];
    char first[320];
    quote_span(m->message ? m->message : "", first_line_length(m->message), first, sizeof first);
    char last[sizeof previous + 16] = "";
    if (previous[0]) snprintf(last, sizeof last, " (the last: %s)", previous);
    snprintf(text, sizeof text,
             "%s in a worker that had measured %u other configuration%s%s, %s in a fresh one: "
             "an earlier configuration damaged what this one reads, or the worker was ended from "
             "outside; the first measurement said: %s",
             failure_words(m->status), before, before == 1 ? "" : "s", last,
             measurement_status_name(again.status), first);
    s->stats.damaged++;
    notice(s, "%s", text);
    /* Both measurements' device time was spent on this configuration. */
    again.build_s += m->build_s;
    again.verify_s += m->verify_s;
    again.bench_s += m->bench_s;
    measurement_clear(m);
    *m = again;
    if (!m->message && measurement_set_message(m, text) != 0) return err_set(err, "out of memory");
    return 0;
}

static int evaluate_in_flight(supervisor *s, const uint16_t *idx, measurement *m,
                              skytune_error *err);

/* The configuration is in flight from here until its measurement is back:
 * the watcher hears of it at once and then as evaluation_activity says. */
static int supervised_evaluate(void *ctx, const uint16_t *idx, measurement *m, skytune_error *err)
{
    supervisor *s = ctx;
    s->in_flight = true;
    s->flight_started = clock_monotonic_s();
    s->flight_stage = STAGE_NONE;
    report_activity(s);
    int rc = evaluate_in_flight(s, idx, m, err);
    s->in_flight = false;
    return rc;
}

static void supervised_watch(void *ctx, void (*on_activity)(void *, const evaluation_activity *),
                             void *watch_ctx)
{
    supervisor *s = ctx;
    s->on_activity = on_activity;
    s->activity_ctx = watch_ctx;
}

/* A first launch that ran to its end (verified, right or wrong) tells how
 * long the driver's code generation takes (first_launch_allowance). */
static void learn_first_launch(supervisor *s, const measurement *m)
{
    if (m->status != MEAS_OK && m->status != MEAS_WRONG_RESULT) return;
    if (m->first_launch_extra_s > s->first_launch_extra_s)
        s->first_launch_extra_s = m->first_launch_extra_s;
}

/* A compile worker's build of the configuration ran into the compile
 * limit and was killed: recorded as the build's timeout without building
 * it again in the measuring worker, which would wait as long again. The
 * measuring worker did nothing and stays as it is. */
static int record_compile_worker_timeout(supervisor *s, uint64_t rank, measurement *m,
                                         double spent_s, skytune_error *err)
{
    measurement_init(m);
    m->status = MEAS_TIMEOUT;
    m->stage = STAGE_BUILD;
    m->build_s = spent_s;
    m->degraded = s->degraded;
    s->stats.timeouts++;
    char text[256];
    snprintf(text, sizeof text,
             "timed out in stage build: no answer within the compile limit of %.3g s in a "
             "compile worker, which was killed; not built again",
             s->o.limits.compile_s);
    if (measurement_set_message(m, text) != 0) return err_set(err, "out of memory");
    notice(s, "%s", text);
    return attach_worker_output(s, rank, m, NULL, err);
}

static int evaluate_in_flight(supervisor *s, const uint16_t *idx, measurement *m,
                              skytune_error *err)
{
    if ((s->check_due || (s->degraded && s->since_check >= s->o.health.every)) &&
        !stop_requested(s)) {
        /* The check needs a worker; a fault leaves none. */
        int ready = ensure_worker(s, err);
        if (ready < 0) return -1;
        if (ready > 0 && check_health(s, err) != 0) return -1;
    }
    /* Being built ahead: the measuring worker then finds it in the cache.
     * The wait is the rest of this configuration's build, so it counts as
     * build time, not as the engine's. */
    double waited_for_build = 0;
    uint64_t rank = s->pool ? configuration_rank(s, idx) : UINT64_MAX;
    if (rank != UINT64_MAX) {
        if (compile_pool_building(s->pool, rank)) {
            double started = clock_monotonic_s(), until = started + s->o.limits.compile_s;
            set_stage(s, STAGE_BUILD);
            while (compile_pool_building(s->pool, rank) && clock_monotonic_s() < until &&
                   !stop_requested(s))
                wait_for_worker(s, clock_monotonic_s() + STOP_POLL_S);
            waited_for_build = clock_monotonic_s() - started;
            trace_span(s->o.trace, "wait for a compile worker", "engine", started,
                       clock_monotonic_s(), NULL);
        }
        double spent = compile_pool_timed_out_s(s->pool, rank);
        if (spent > 0) return record_compile_worker_timeout(s, rank, m, spent, err);
    }
    s->waited_for_build_s = waited_for_build;
    int measured = run_request(s, idx, m, err);
    s->waited_for_build_s = 0;
    if (measured != 0) return -1;
    learn_first_launch(s, m);
    s->worker_measured++;
    if (confirm_failure(s, idx, m, err) != 0) return -1;
    space_config_text(s->space, idx, s->worker_last, sizeof s->worker_last);
    retire_worker_after(s, m);
    m->build_s += waited_for_build;
    m->degraded = s->degraded;
    if (s->degraded) s->since_check++;
    if (m->status == MEAS_OK) {
        double spent = m->verify_s + m->bench_s;
        if (spent > s->slowest_ok_s) s->slowest_ok_s = spent;
        consider_reference(s, idx, m);
    }
    return 0;
}

static void supervised_prefetch(void *ctx, uint64_t next, const uint64_t *ranks, size_t n)
{
    supervisor *s = ctx;
    if (s->pool) compile_pool_hint(s->pool, ranks, n);
    if (!s->ahead) return;
    /* The spares keep `next` too: one may hold it already. */
    if (n + 1 > s->hint_cap) {
        uint64_t *grown = realloc(s->hint, (n + 1) * sizeof *grown);
        uint64_t *spares = grown ? realloc(s->spare_hint, (n + 1) * sizeof *spares) : NULL;
        if (grown) s->hint = grown;
        if (!grown || !spares) return;
        s->spare_hint = spares;
        s->hint_cap = n + 1;
    }
    s->hint[0] = next;
    if (n) memcpy(s->hint + 1, ranks, n * sizeof *ranks);
    s->hint_count = n + 1;
    hint_spares(s, false);
}

/* The spares are given the configurations the compile workers are done
 * with (all of them without compile workers): a spare that compiled one
 * itself would do the pool's work a second time on the same cores
 * (dedispersion on the H200 spent twice the compiler's time with one spare
 * before this). The one in flight stays in the list while a spare may hold
 * it; once the measuring worker has it (`taken`), a spare given it would
 * only hold a copy. */
static void hint_spares(supervisor *s, bool taken)
{
    if (!s->ahead || s->hint_count == 0) return;
    size_t n = 0;
    for (size_t k = taken ? 1 : 0; k < s->hint_count; k++)
        /* Not a build the compile limit ended: it is recorded as such. */
        if (!s->pool || (compile_pool_done(s->pool, s->hint[k]) &&
                         compile_pool_timed_out_s(s->pool, s->hint[k]) == 0))
            s->spare_hint[n++] = s->hint[k];
    measure_ahead_hint(s->ahead, s->spare_hint, n, s->race_limit_ns);
}

static void supervised_learn(void *ctx, const uint16_t *idx, const measurement *m)
{
    consider_reference(ctx, idx, m);
}

static void supervised_race(void *ctx, double limit_ns)
{
    supervisor *s = ctx;
    s->race_limit_ns = limit_ns;
}

evaluator supervisor_evaluator(supervisor *s)
{
    return (evaluator){
        .ctx = s,
        .evaluate = supervised_evaluate,
        .prefetch_depth = s->pool || s->ahead
                              ? 2 * (size_t)s->o.compile_jobs + s->o.measure_ahead + 2
                              : 0,
        .prefetch = s->pool || s->ahead ? supervised_prefetch : NULL,
        .learn = supervised_learn,
        .race = supervised_race,
        .watch = supervised_watch,
    };
}

/* A private folder for the campaign's shared CPU reference
 * (shared_reference.h). Without one (no room in $TMPDIR), each worker
 * computes its own, as it always could. */
static void make_reference_folder(supervisor *s)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(s->reference_dir, sizeof s->reference_dir, "%s/skytune-reference-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(s->reference_dir)) {
        s->reference_dir[0] = '\0';
        return;
    }
    snprintf(s->reference_file, sizeof s->reference_file, "%s/reference", s->reference_dir);
    s->o.setup.reference_file = s->reference_file;
}

static void remove_reference_folder(supervisor *s)
{
    if (!s->reference_dir[0]) return;
    /* The file, and what a worker killed while writing it left. */
    DIR *dir = opendir(s->reference_dir);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.') continue;
        char path[sizeof s->reference_dir + 300];
        snprintf(path, sizeof path, "%s/%s", s->reference_dir, e->d_name);
        unlink(path);
    }
    if (dir) closedir(dir);
    rmdir(s->reference_dir);
}

int supervisor_open(const supervisor_options *o, const space *sp, supervisor **out,
                    skytune_error *err)
{
    supervisor *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->o = *o;
    /* The supervisor hands the device out: every measuring worker waits at
     * the gate for it. */
    s->o.setup.wait_for_go = true;
    s->space = sp;
    make_reference_folder(s);
    s->n_params = space_param_count(sp);
    worker_process_clear(&s->worker);
    s->first_launch_extra_s = -1;
    s->values = calloc(s->n_params + 1, sizeof *s->values);
    s->reference_idx = calloc(s->n_params + 1, sizeof *s->reference_idx);
    if (!s->values || !s->reference_idx) {
        supervisor_close(s);
        return err_set(err, "out of memory");
    }
    /* The measuring worker first, alone: its driver, the plugin's set-up and
     * the CPU reference are the campaign's critical path, and GPU contexts
     * created at once slow each other down (on the H200 host 1.6-1.7 s for
     * the measuring worker's beside 14 compile workers' against 0.45 s
     * alone). It computes the reference and leaves it in the campaign's
     * private folder; the spares, and every worker started after a fault,
     * copy it from there. The pools start once it is ready: their set-up
     * overlaps the first configurations. */
    int ready = ensure_worker(s, err);
    if (ready <= 0) {
        if (ready == 0) err_set(err, "interrupted while the measuring worker was starting");
        supervisor_close(s);
        return -1;
    }
    if (o->compile_jobs > 0) {
        compile_pool_options po = {
            .worker_exe = o->worker_exe,
            .setup = s->o.setup,
            .jobs = o->compile_jobs,
            .compile_timeout_s = o->limits.compile_s,
            .setup_timeout_s = o->limits.cap_s,
            .on_notice = o->on_notice,
            .notice_ctx = o->notice_ctx,
            .on_entry = count_ahead_entry,
            .entry_ctx = s,
        };
        if (compile_pool_open(&po, sp, &s->pool, err) != 0) {
            supervisor_close(s);
            return -1;
        }
    }
    if (o->measure_ahead > 0) {
        measure_ahead_options ao = {
            .worker_exe = o->worker_exe,
            .setup = s->o.setup,
            .workers = o->measure_ahead,
            .compile_timeout_s = o->limits.compile_s,
            .setup_timeout_s = o->limits.cap_s,
            .on_notice = o->on_notice,
            .notice_ctx = o->notice_ctx,
            .on_entry = count_measuring_entry,
            .entry_ctx = s,
        };
        if (measure_ahead_open(&ao, sp, &s->ahead, err) != 0) {
            supervisor_close(s);
            return -1;
        }
    }
    *out = s;
    return 0;
}

void supervisor_close(supervisor *s)
{
    if (!s) return;
    if (s->worker.pid > 0) {
        /* A clean goodbye lets the plugin tear down; a worker that does not
         * go within a second is killed. It tears down while the pools'
         * workers are ended, and the engine does not wait for it. */
        worker_message quit;
        worker_message_init(&quit, WORKER_MSG_QUIT);
        skytune_error ignored;
        worker_process_send(&s->worker, &quit, &ignored);
        worker_message_free(&quit);
    }
    double since = clock_monotonic_s();
    compile_pool_close(s->pool);
    trace_span(s->o.trace, "end the compile workers", "engine", since, clock_monotonic_s(), NULL);
    since = clock_monotonic_s();
    measure_ahead_close(s->ahead);
    trace_span(s->o.trace, "end the spares", "engine", since, clock_monotonic_s(), NULL);
    since = clock_monotonic_s();
    if (s->worker.pid > 0) {
        char *output = NULL;
        worker_process_let_go(&s->worker, 1.0, &output);
        notice_output(s, "the measuring worker", output);
    }
    trace_span(s->o.trace, "end the measuring worker", "engine", since, clock_monotonic_s(),
               NULL);
    remove_reference_folder(s);
    free(s->hint);
    free(s->spare_hint);
    free(s->values);
    free(s->reference_idx);
    free(s);
}

void supervisor_get_stats(const supervisor *s, supervisor_stats *out)
{
    *out = s->stats;
    if (s->pool) {
        compile_pool_stats ps;
        compile_pool_get_stats(s->pool, &ps);
        out->compiled_ahead = ps.built;
    }
}
