#include "compile_pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "worker_process.h"

/* A worker whose set-up fails this many times in a row is not replaced
 * again: the pool shrinks rather than spin on a broken setup. */
#define MAX_SETUP_FAILURES 3

typedef enum slot_state {
    SLOT_EMPTY = 0,     /* no process */
    SLOT_STARTING,      /* SETUP sent, waiting for READY */
    SLOT_IDLE,
    SLOT_BUILDING
} slot_state;

typedef struct pool_slot {
    worker_process proc;
    slot_state state;
    uint64_t rank;          /* SLOT_BUILDING: the configuration */
    double deadline;        /* monotonic seconds */
    double started;
} pool_slot;

/* What a worker wrote while building a configuration, until the
 * supervisor measures it. */
typedef struct build_output {
    uint64_t rank;
    char *text;             /* NULL: the entry is free */
} build_output;

/* A build the compile limit ended: its configuration and the seconds
 * spent on it. */
typedef struct build_timeout {
    uint64_t rank;
    double spent_s;         /* 0: the entry is free */
} build_timeout;

/* Ranks the pool has built or given up on, so none is built twice. */
typedef struct rank_set {
    uint64_t *keys;         /* open addressing; UINT64_MAX = empty */
    size_t capacity, count;
} rank_set;

struct compile_pool {
    compile_pool_options o;
    const space *space;
    skytune_named_value *values;
    uint16_t *idx;
    pool_slot *slots;
    unsigned setup_failures;
    uint64_t *wanted;       /* the latest hint */
    size_t n_wanted, wanted_cap, next_wanted;
    rank_set done;
    build_output outputs[COMPILE_POOL_OUTPUTS];
    size_t next_output;     /* the entry the next output replaces */
    build_timeout timeouts[COMPILE_POOL_OUTPUTS];
    size_t next_timeout;    /* the entry the next timeout replaces */
    bool paused;
    double paused_at;
    uint64_t next_request;
    compile_pool_stats stats;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static bool rank_set_has(const rank_set *s, uint64_t rank)
{
    if (!s->capacity) return false;
    for (size_t k = mix(rank) & (s->capacity - 1);; k = (k + 1) & (s->capacity - 1)) {
        if (s->keys[k] == rank) return true;
        if (s->keys[k] == UINT64_MAX) return false;
    }
}

static void rank_set_add(rank_set *s, uint64_t rank)
{
    if (rank_set_has(s, rank)) return;
    if ((s->count + 1) * 2 > s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 1024;
        uint64_t *keys = malloc(capacity * sizeof *keys);
        if (!keys) return; /* only costs a second build of the same configuration */
        memset(keys, 0xff, capacity * sizeof *keys);
        for (size_t k = 0; k < s->capacity; k++) {
            if (s->keys[k] == UINT64_MAX) continue;
            size_t j = mix(s->keys[k]) & (capacity - 1);
            while (keys[j] != UINT64_MAX) j = (j + 1) & (capacity - 1);
            keys[j] = s->keys[k];
        }
        free(s->keys);
        s->keys = keys;
        s->capacity = capacity;
    }
    size_t j = mix(rank) & (s->capacity - 1);
    while (s->keys[j] != UINT64_MAX) j = (j + 1) & (s->capacity - 1);
    s->keys[j] = rank;
    s->count++;
}

/* Keep a build's output for its configuration; the oldest goes first. */
static void keep_output(compile_pool *p, uint64_t rank, char *text)
{
    if (!text) return;
    build_output *o = &p->outputs[p->next_output];
    free(o->text);
    *o = (build_output){.rank = rank, .text = text};
    p->next_output = (p->next_output + 1) % COMPILE_POOL_OUTPUTS;
}

double compile_pool_timed_out_s(const compile_pool *p, uint64_t rank)
{
    for (size_t k = 0; k < COMPILE_POOL_OUTPUTS; k++)
        if (p->timeouts[k].spent_s > 0 && p->timeouts[k].rank == rank)
            return p->timeouts[k].spent_s;
    return 0;
}

char *compile_pool_take_output(compile_pool *p, uint64_t rank)
{
    for (size_t k = 0; k < COMPILE_POOL_OUTPUTS; k++) {
        build_output *o = &p->outputs[k];
        if (o->text && o->rank == rank) {
            char *text = o->text;
            o->text = NULL;
            return text;
        }
    }
    return NULL;
}

/* Output of no build: a line for the log. Frees it. */
static void notice_output(compile_pool *p, char *text)
{
    worker_output_notice(text, "a compile worker", p->o.on_notice, p->o.notice_ctx);
}

static void start_slot(compile_pool *p, pool_slot *slot)
{
    skytune_error err;
    memset(slot, 0, sizeof *slot);
    worker_process_clear(&slot->proc);
    if (p->setup_failures >= MAX_SETUP_FAILURES) return;
    if (worker_process_start(p->o.worker_exe, WORKER_ROLE_COMPILE, &p->o.setup, &slot->proc,
                             &err) != 0) {
        p->setup_failures++;
        return;
    }
    if (p->paused) worker_process_pause(&slot->proc);
    slot->state = SLOT_STARTING;
    slot->deadline = clock_monotonic_s() + p->o.setup_timeout_s;
}

/* The worker is gone or hung: kill it and start another. */
static void replace_slot(compile_pool *p, pool_slot *slot)
{
    if (slot->state == SLOT_BUILDING) {
        /* Left to the measuring worker, which records what the build does. */
        rank_set_add(&p->done, slot->rank);
        p->stats.failed++;
    }
    if (slot->state == SLOT_STARTING) p->setup_failures++;
    char *output = NULL;
    worker_process_end_with_output(&slot->proc, 0, NULL, 0, &output);
    if (slot->state == SLOT_BUILDING)
        keep_output(p, slot->rank, output);
    else
        notice_output(p, output);
    p->stats.restarts++;
    start_slot(p, slot);
}

int compile_pool_open(const compile_pool_options *o, const space *sp, compile_pool **out,
                      skytune_error *err)
{
    if (o->jobs < 1) return err_set(err, "a compile pool needs at least one job");
    if (!o->setup.cache_dir)
        return err_set(err, "compile workers need the binary cache to hand their builds over");
    compile_pool *p = calloc(1, sizeof *p);
    if (!p) return err_set(err, "out of memory");
    p->o = *o;
    p->space = sp;
    p->values = calloc(space_param_count(sp) + 1, sizeof *p->values);
    p->idx = calloc(space_param_count(sp) + 1, sizeof *p->idx);
    p->slots = calloc(o->jobs, sizeof *p->slots);
    if (!p->values || !p->idx || !p->slots) {
        compile_pool_close(p);
        return err_set(err, "out of memory");
    }
    for (unsigned k = 0; k < o->jobs; k++) start_slot(p, &p->slots[k]);
    *out = p;
    return 0;
}

void compile_pool_close(compile_pool *p)
{
    if (!p) return;
    /* Nothing a compile worker does at its end matters: what it built is in
     * the cache whole or not at all (binary_cache.h), so it is killed and
     * not waited for. */
    for (unsigned k = 0; p->slots && k < p->o.jobs; k++)
        if (p->slots[k].proc.pid > 0) {
            worker_process_resume(&p->slots[k].proc);
            char *output = NULL;
            worker_process_abandon(&p->slots[k].proc, &output);
            /* A build cut short says nothing worth keeping. */
            if (p->slots[k].state == SLOT_BUILDING)
                free(output);
            else
                notice_output(p, output);
        }
    for (size_t k = 0; k < COMPILE_POOL_OUTPUTS; k++) free(p->outputs[k].text);
    free(p->slots);
    free(p->values);
    free(p->idx);
    free(p->wanted);
    free(p->done.keys);
    free(p);
}

static bool building_elsewhere(const compile_pool *p, uint64_t rank)
{
    for (unsigned k = 0; k < p->o.jobs; k++)
        if (p->slots[k].state == SLOT_BUILDING && p->slots[k].rank == rank) return true;
    return false;
}

/* The next hinted configuration nobody has built or is building. */
static bool next_job(compile_pool *p, uint64_t *rank)
{
    while (p->next_wanted < p->n_wanted) {
        uint64_t r = p->wanted[p->next_wanted++];
        if (!rank_set_has(&p->done, r) && !building_elsewhere(p, r)) {
            *rank = r;
            return true;
        }
    }
    return false;
}

static void dispatch(compile_pool *p)
{
    if (p->paused) return;
    for (unsigned k = 0; k < p->o.jobs; k++) {
        pool_slot *slot = &p->slots[k];
        if (slot->state != SLOT_IDLE) continue;
        uint64_t rank;
        if (!next_job(p, &rank)) return;
        space_unrank(p->space, rank, p->idx);
        space_config_values(p->space, p->idx, p->values);
        worker_message msg;
        worker_message_init(&msg, WORKER_MSG_COMPILE);
        worker_put_u64(&msg, ++p->next_request);
        worker_put_values(&msg, p->values, space_param_count(p->space));
        skytune_error err;
        int rc = worker_process_send(&slot->proc, &msg, &err);
        worker_message_free(&msg);
        if (rc != 0) {
            replace_slot(p, slot);
            continue;
        }
        slot->state = SLOT_BUILDING;
        slot->rank = rank;
        slot->started = clock_monotonic_s();
        slot->deadline = slot->started + p->o.compile_timeout_s;
    }
}

void compile_pool_hint(compile_pool *p, const uint64_t *ranks, size_t n)
{
    if (n > p->wanted_cap) {
        uint64_t *grown = realloc(p->wanted, n * sizeof *grown);
        if (!grown) return;
        p->wanted = grown;
        p->wanted_cap = n;
    }
    if (n) memcpy(p->wanted, ranks, n * sizeof *ranks);
    p->n_wanted = n;
    p->next_wanted = 0;
    dispatch(p);
}

bool compile_pool_building(const compile_pool *p, uint64_t rank)
{
    return building_elsewhere(p, rank);
}

bool compile_pool_done(const compile_pool *p, uint64_t rank)
{
    return rank_set_has(&p->done, rank);
}

size_t compile_pool_pollfds(const compile_pool *p, struct pollfd *fds, size_t cap)
{
    size_t n = 0;
    /* A stopped worker's messages wait in its pipe until it goes on. */
    if (p->paused) return 0;
    for (unsigned k = 0; k < p->o.jobs && n < cap; k++) {
        const pool_slot *slot = &p->slots[k];
        if (slot->state == SLOT_STARTING || slot->state == SLOT_BUILDING)
            fds[n++] = (struct pollfd){.fd = slot->proc.fd, .events = POLLIN};
    }
    return n;
}

double compile_pool_deadline(const compile_pool *p)
{
    double soonest = INFINITY;
    if (p->paused) return soonest;
    for (unsigned k = 0; k < p->o.jobs; k++) {
        const pool_slot *slot = &p->slots[k];
        if ((slot->state == SLOT_STARTING || slot->state == SLOT_BUILDING) &&
            slot->deadline < soonest)
            soonest = slot->deadline;
    }
    return soonest;
}

static void read_slot(compile_pool *p, pool_slot *slot)
{
    worker_message msg;
    skytune_error err;
    if (worker_process_receive(&slot->proc, 0, &msg, &err) != 1) {
        replace_slot(p, slot);
        return;
    }
    if (slot->state == SLOT_STARTING && msg.type == WORKER_MSG_READY) {
        slot->state = SLOT_IDLE;
        p->setup_failures = 0;
        notice_output(p, worker_process_take_output(&slot->proc));
    } else if (slot->state == SLOT_BUILDING && msg.type == WORKER_MSG_RESULT) {
        /* The measurement is the measuring worker's to make; what became
         * of the entry is told only here. */
        worker_result r;
        if (worker_get_result(&msg, &r, &err) != 0) {
            worker_message_free(&msg);
            replace_slot(p, slot);
            return;
        }
        measurement_clear(&r.m);
        if (p->o.on_entry) p->o.on_entry(p->o.entry_ctx, r.entry, r.entry_reason);
        keep_output(p, slot->rank, worker_process_take_output(&slot->proc));
        rank_set_add(&p->done, slot->rank);
        p->stats.built++;
        p->stats.busy_s += clock_monotonic_s() - slot->started;
        slot->state = SLOT_IDLE;
    } else if (msg.type != WORKER_MSG_STAGE) {
        /* FAILED, or a message out of turn: this worker is of no use. */
        worker_message_free(&msg);
        replace_slot(p, slot);
        return;
    }
    worker_message_free(&msg);
}

void compile_pool_service(compile_pool *p, const struct pollfd *fds, size_t n)
{
    if (p->paused) return;
    for (size_t f = 0; f < n; f++) {
        if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        for (unsigned k = 0; k < p->o.jobs; k++)
            if (p->slots[k].proc.fd == fds[f].fd &&
                (p->slots[k].state == SLOT_STARTING || p->slots[k].state == SLOT_BUILDING))
                read_slot(p, &p->slots[k]);
    }
    double now = clock_monotonic_s();
    for (unsigned k = 0; k < p->o.jobs; k++) {
        pool_slot *slot = &p->slots[k];
        if ((slot->state == SLOT_STARTING || slot->state == SLOT_BUILDING) &&
            now >= slot->deadline) {
            if (slot->state == SLOT_BUILDING) {
                p->timeouts[p->next_timeout] =
                    (build_timeout){.rank = slot->rank, .spent_s = now - slot->started};
                p->next_timeout = (p->next_timeout + 1) % COMPILE_POOL_OUTPUTS;
            }
            replace_slot(p, slot);
        }
    }
    dispatch(p);
}

void compile_pool_pause(compile_pool *p)
{
    if (p->paused) return;
    p->paused = true;
    p->paused_at = clock_monotonic_s();
    for (unsigned k = 0; k < p->o.jobs; k++) worker_process_pause(&p->slots[k].proc);
}

void compile_pool_resume(compile_pool *p)
{
    if (!p->paused) return;
    double paused_for = clock_monotonic_s() - p->paused_at;
    p->paused = false;
    for (unsigned k = 0; k < p->o.jobs; k++) {
        worker_process_resume(&p->slots[k].proc);
        p->slots[k].deadline += paused_for;
        p->slots[k].started += paused_for;
    }
    dispatch(p);
}

void compile_pool_get_stats(const compile_pool *p, compile_pool_stats *out)
{
    *out = p->stats;
}
