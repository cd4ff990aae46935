#include "measure_ahead.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* A spare worker that fails to start this many times in a row is not
 * started again: measuring goes on without it. */
#define MAX_START_FAILURES 3

typedef enum ahead_state {
    AHEAD_NONE = 0,      /* no process */
    AHEAD_STARTING,      /* SETUP sent, waiting for READY */
    AHEAD_IDLE,
    AHEAD_BUILDING,      /* MEASURE sent, not at the gate yet */
    AHEAD_WAITING,       /* at the gate */
    AHEAD_FINISHED,      /* ended (before the gate, or after an early run): result kept */
    AHEAD_CANCELLING,    /* CANCEL sent at the gate, its RESULT to come */
    AHEAD_RUNNING        /* let through the gate early (measure_ahead_go_early) */
} ahead_state;

typedef struct ahead_slot {
    worker_process proc;
    ahead_state state;
    uint64_t rank, request;
    double started, build_end, deadline;
    double go_at;        /* AHEAD_RUNNING: when it was let through */
    measure_stage stage; /* AHEAD_RUNNING: the stage it reported last */
    bool unwanted;       /* building or running something no longer predicted */
    measurement result;
} ahead_slot;

struct measure_ahead {
    measure_ahead_options o;
    const space *space;
    skytune_named_value *values;
    uint16_t *idx;
    ahead_slot *slots;
    unsigned start_failures;
    uint64_t next_request;
};

static void start_slot(measure_ahead *a, ahead_slot *slot)
{
    skytune_error err;
    measurement_clear(&slot->result);
    memset(slot, 0, sizeof *slot);
    worker_process_clear(&slot->proc);
    if (a->start_failures >= MAX_START_FAILURES) return;
    if (worker_process_start(a->o.worker_exe, WORKER_ROLE_MEASURE, &a->o.setup, &slot->proc,
                             &err) != 0) {
        a->start_failures++;
        return;
    }
    slot->state = AHEAD_STARTING;
    slot->deadline = clock_monotonic_s() + a->o.setup_timeout_s;
}

/* Gone, hung or confused: end it; a new one starts at the next hint. */
static void drop_slot(measure_ahead *a, ahead_slot *slot)
{
    if (slot->state == AHEAD_STARTING) a->start_failures++;
    worker_process_end(&slot->proc, 0, NULL, 0);
    measurement_clear(&slot->result);
    memset(slot, 0, sizeof *slot);
    worker_process_clear(&slot->proc);
}

int measure_ahead_open(const measure_ahead_options *o, const space *sp, measure_ahead **out,
                       skytune_error *err)
{
    if (o->workers < 1) return err_set(err, "measuring ahead needs at least one worker");
    measure_ahead *a = calloc(1, sizeof *a);
    if (!a) return err_set(err, "out of memory");
    a->o = *o;
    a->space = sp;
    a->values = calloc(space_param_count(sp) + 1, sizeof *a->values);
    a->idx = calloc(space_param_count(sp) + 1, sizeof *a->idx);
    a->slots = calloc(o->workers, sizeof *a->slots);
    if (!a->values || !a->idx || !a->slots) {
        measure_ahead_close(a);
        return err_set(err, "out of memory");
    }
    for (unsigned k = 0; k < o->workers; k++) start_slot(a, &a->slots[k]);
    *out = a;
    return 0;
}

void measure_ahead_close(measure_ahead *a)
{
    if (!a) return;
    /* Whatever a spare holds is no configuration's result yet: killed and
     * not waited for (worker_process_abandon). */
    for (unsigned k = 0; a->slots && k < a->o.workers; k++) {
        worker_process_abandon(&a->slots[k].proc, NULL);
        measurement_clear(&a->slots[k].result);
    }
    free(a->slots);
    free(a->values);
    free(a->idx);
    free(a);
}

static bool send_simple(ahead_slot *slot, worker_message_type type)
{
    worker_message msg;
    worker_message_init(&msg, type);
    skytune_error err;
    int rc = worker_process_send(&slot->proc, &msg, &err);
    worker_message_free(&msg);
    return rc == 0;
}

static bool in_list(const uint64_t *ranks, size_t n, uint64_t rank)
{
    for (size_t k = 0; k < n; k++)
        if (ranks[k] == rank) return true;
    return false;
}

static bool held(const measure_ahead *a, uint64_t rank)
{
    for (unsigned k = 0; k < a->o.workers; k++) {
        const ahead_slot *slot = &a->slots[k];
        if ((slot->state == AHEAD_BUILDING || slot->state == AHEAD_WAITING ||
             slot->state == AHEAD_FINISHED || slot->state == AHEAD_RUNNING) &&
            !slot->unwanted && slot->rank == rank)
            return true;
    }
    return false;
}

static void cancel_at_gate(measure_ahead *a, ahead_slot *slot)
{
    if (send_simple(slot, WORKER_MSG_CANCEL))
        slot->state = AHEAD_CANCELLING;
    else
        drop_slot(a, slot);
}

void measure_ahead_hint(measure_ahead *a, const uint64_t *ranks, size_t n, double race_limit_ns)
{
    /* As many as there are workers: predictions further out change
     * before their turn comes. */
    size_t wanted = n < a->o.workers ? n : a->o.workers;
    for (unsigned k = 0; k < a->o.workers; k++) {
        ahead_slot *slot = &a->slots[k];
        if (slot->state == AHEAD_NONE) start_slot(a, slot);
        bool keep = in_list(ranks, wanted, slot->rank);
        if (slot->state == AHEAD_WAITING && !keep) cancel_at_gate(a, slot);
        else if (slot->state == AHEAD_BUILDING || slot->state == AHEAD_RUNNING)
            slot->unwanted = !keep;
        else if (slot->state == AHEAD_FINISHED && !keep) {
            measurement_clear(&slot->result);
            slot->state = AHEAD_IDLE;
        }
    }
    for (size_t r = 0; r < wanted; r++) {
        if (held(a, ranks[r])) continue;
        ahead_slot *slot = NULL;
        for (unsigned k = 0; k < a->o.workers && !slot; k++)
            if (a->slots[k].state == AHEAD_IDLE) slot = &a->slots[k];
        if (!slot) return;
        space_unrank(a->space, ranks[r], a->idx);
        space_config_values(a->space, a->idx, a->values);
        /* What it wrote for a configuration it gave up is not this one's. */
        worker_process_discard_output(&slot->proc);
        worker_message msg;
        worker_message_init(&msg, WORKER_MSG_MEASURE);
        uint64_t request = ++a->next_request;
        worker_put_measure_request(&msg, request, a->values, space_param_count(a->space),
                                   race_limit_ns);
        skytune_error err;
        int rc = worker_process_send(&slot->proc, &msg, &err);
        worker_message_free(&msg);
        if (rc != 0) {
            drop_slot(a, slot);
            continue;
        }
        slot->state = AHEAD_BUILDING;
        slot->rank = ranks[r];
        slot->request = request;
        slot->unwanted = false;
        slot->started = clock_monotonic_s();
        slot->build_end = 0;
        slot->deadline = slot->started + a->o.compile_timeout_s;
    }
}

size_t measure_ahead_pollfds(const measure_ahead *a, struct pollfd *fds, size_t cap)
{
    size_t n = 0;
    for (unsigned k = 0; k < a->o.workers && n < cap; k++) {
        ahead_state st = a->slots[k].state;
        if (st == AHEAD_STARTING || st == AHEAD_BUILDING || st == AHEAD_WAITING ||
            st == AHEAD_CANCELLING || st == AHEAD_RUNNING)
            fds[n++] = (struct pollfd){.fd = a->slots[k].proc.fd, .events = POLLIN};
    }
    return n;
}

double measure_ahead_deadline(const measure_ahead *a)
{
    double soonest = INFINITY;
    for (unsigned k = 0; k < a->o.workers; k++) {
        const ahead_slot *slot = &a->slots[k];
        if ((slot->state == AHEAD_STARTING || slot->state == AHEAD_BUILDING ||
             slot->state == AHEAD_RUNNING) &&
            slot->deadline < soonest)
            soonest = slot->deadline;
    }
    return soonest;
}

static void read_slot(measure_ahead *a, ahead_slot *slot)
{
    worker_message msg;
    skytune_error err;
    if (worker_process_receive(&slot->proc, 0, &msg, &err) != 1) {
        drop_slot(a, slot);
        return;
    }
    bool bad = false;
    if (msg.type == WORKER_MSG_READY && slot->state == AHEAD_STARTING) {
        slot->state = AHEAD_IDLE;
        a->start_failures = 0;
        worker_output_notice(worker_process_take_output(&slot->proc),
                             "a spare measuring worker's set-up", a->o.on_notice, a->o.notice_ctx);
    } else if (msg.type == WORKER_MSG_STAGE && slot->state == AHEAD_BUILDING) {
        uint64_t id = worker_get_u64(&msg);
        uint32_t stage = worker_get_u32(&msg);
        bad = id != slot->request;
        if (!bad && stage == STAGE_PREPARE) {
            slot->build_end = clock_monotonic_s();
            slot->state = AHEAD_WAITING;
            if (slot->unwanted) cancel_at_gate(a, slot);
        }
    } else if (msg.type == WORKER_MSG_STAGE && slot->state == AHEAD_RUNNING) {
        uint64_t id = worker_get_u64(&msg);
        uint32_t stage = worker_get_u32(&msg);
        bad = id != slot->request || stage >= STAGE_COUNT || stage < (uint32_t)slot->stage;
        if (!bad) slot->stage = (measure_stage)stage;
    } else if (msg.type == WORKER_MSG_RESULT &&
               (slot->state == AHEAD_BUILDING || slot->state == AHEAD_CANCELLING ||
                slot->state == AHEAD_RUNNING)) {
        worker_result r;
        bad = worker_get_result(&msg, &r, &err) != 0;
        if (!bad && r.request != slot->request) {
            measurement_clear(&r.m);
            bad = true;
        }
        if (!bad) {
            /* Built whether or not it is still wanted: its entry counts. */
            if (a->o.on_entry) a->o.on_entry(a->o.entry_ctx, r.entry, r.entry_reason);
            if (slot->state == AHEAD_CANCELLING || slot->unwanted || r.m.abandoned) {
                measurement_clear(&r.m);
                slot->state = AHEAD_IDLE;
            } else {
                slot->result = r.m;
                slot->build_end = clock_monotonic_s();
                slot->state = AHEAD_FINISHED;
            }
            if (r.context_lost) bad = true;
        }
    } else {
        bad = true;
    }
    worker_message_free(&msg);
    if (bad) drop_slot(a, slot);
}

void measure_ahead_service(measure_ahead *a, const struct pollfd *fds, size_t n)
{
    for (size_t f = 0; f < n; f++) {
        if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        for (unsigned k = 0; k < a->o.workers; k++)
            if (a->slots[k].proc.fd == fds[f].fd && a->slots[k].state != AHEAD_NONE &&
                a->slots[k].state != AHEAD_IDLE && a->slots[k].state != AHEAD_FINISHED) {
                read_slot(a, &a->slots[k]);
                break;
            }
    }
    double now = clock_monotonic_s();
    for (unsigned k = 0; k < a->o.workers; k++) {
        ahead_slot *slot = &a->slots[k];
        /* A run let through early that overstays the kernel's limit is
         * ended unrecorded: measured again in its turn, its fault is
         * recorded then. */
        if ((slot->state == AHEAD_STARTING || slot->state == AHEAD_BUILDING ||
             slot->state == AHEAD_RUNNING) &&
            now >= slot->deadline)
            drop_slot(a, slot);
    }
}

bool measure_ahead_go_early(measure_ahead *a, uint64_t rank, double limit_s)
{
    for (unsigned k = 0; k < a->o.workers; k++) {
        ahead_slot *slot = &a->slots[k];
        if (slot->state != AHEAD_WAITING || slot->unwanted || slot->rank != rank) continue;
        if (!send_simple(slot, WORKER_MSG_GO)) {
            drop_slot(a, slot);
            return false;
        }
        slot->state = AHEAD_RUNNING;
        slot->stage = STAGE_PREPARE;
        slot->go_at = clock_monotonic_s();
        slot->deadline = slot->go_at + limit_s;
        return true;
    }
    return false;
}

bool measure_ahead_device_busy(const measure_ahead *a)
{
    for (unsigned k = 0; k < a->o.workers; k++)
        if (a->slots[k].state == AHEAD_RUNNING && a->slots[k].stage < STAGE_RELEASE) return true;
    return false;
}

bool measure_ahead_take(measure_ahead *a, uint64_t rank, const worker_process *spare,
                        ahead_handover *out)
{
    for (unsigned k = 0; k < a->o.workers; k++) {
        ahead_slot *slot = &a->slots[k];
        if (slot->unwanted || slot->rank != rank ||
            (slot->state != AHEAD_BUILDING && slot->state != AHEAD_WAITING &&
             slot->state != AHEAD_FINISHED && slot->state != AHEAD_RUNNING))
            continue;
        memset(out, 0, sizeof *out);
        out->proc = slot->proc;
        out->request = slot->request;
        out->stage = slot->state == AHEAD_BUILDING  ? STAGE_BUILD
                     : slot->state == AHEAD_RUNNING ? slot->stage
                                                    : STAGE_PREPARE;
        out->running = slot->state == AHEAD_RUNNING;
        out->go_at = slot->go_at;
        out->started = slot->started;
        out->build_end = slot->build_end;
        out->finished = slot->state == AHEAD_FINISHED;
        out->result = slot->result;
        memset(slot, 0, sizeof *slot);
        slot->proc = *spare;
        slot->state = spare->pid > 0 ? AHEAD_IDLE : AHEAD_NONE;
        if (spare->pid <= 0) worker_process_clear(&slot->proc);
        return true;
    }
    return false;
}
