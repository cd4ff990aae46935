#include "worker_protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "value.h"

#define HEADER_SIZE 12

void worker_message_init(worker_message *msg, worker_message_type type)
{
    memset(msg, 0, sizeof *msg);
    msg->type = (uint32_t)type;
}

void worker_message_free(worker_message *msg)
{
    free(msg->data);
    memset(msg, 0, sizeof *msg);
}

static void put_bytes(worker_message *msg, const void *bytes, size_t n)
{
    if (msg->bad) return;
    if (msg->size + n > msg->capacity) {
        size_t capacity = msg->capacity ? msg->capacity : 256;
        while (capacity < msg->size + n) capacity *= 2;
        unsigned char *grown = realloc(msg->data, capacity);
        if (!grown) {
            msg->bad = true;
            return;
        }
        msg->data = grown;
        msg->capacity = capacity;
    }
    memcpy(msg->data + msg->size, bytes, n);
    msg->size += n;
}

static bool get_bytes(worker_message *msg, void *bytes, size_t n)
{
    if (msg->bad || msg->size - msg->read_pos < n) {
        msg->bad = true;
        memset(bytes, 0, n);
        return false;
    }
    memcpy(bytes, msg->data + msg->read_pos, n);
    msg->read_pos += n;
    return true;
}

void worker_put_u32(worker_message *msg, uint32_t v) { put_bytes(msg, &v, sizeof v); }
void worker_put_u64(worker_message *msg, uint64_t v) { put_bytes(msg, &v, sizeof v); }
void worker_put_f64(worker_message *msg, double v) { put_bytes(msg, &v, sizeof v); }

void worker_put_str(worker_message *msg, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    worker_put_u32(msg, (uint32_t)n);
    if (n) put_bytes(msg, s, n);
}

uint32_t worker_get_u32(worker_message *msg)
{
    uint32_t v;
    get_bytes(msg, &v, sizeof v);
    return v;
}

uint64_t worker_get_u64(worker_message *msg)
{
    uint64_t v;
    get_bytes(msg, &v, sizeof v);
    return v;
}

double worker_get_f64(worker_message *msg)
{
    double v;
    get_bytes(msg, &v, sizeof v);
    return v;
}

char *worker_get_str(worker_message *msg)
{
    uint32_t n = worker_get_u32(msg);
    if (msg->bad || msg->size - msg->read_pos < n) {
        msg->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        msg->bad = true;
        return NULL;
    }
    memcpy(s, msg->data + msg->read_pos, n);
    s[n] = '\0';
    msg->read_pos += n;
    return s;
}

void worker_put_values(worker_message *msg, const skytune_named_value *items, size_t count)
{
    worker_put_u32(msg, (uint32_t)count);
    for (size_t k = 0; k < count; k++) {
        char text[512];
        value_format(&items[k].value, text, sizeof text);
        worker_put_str(msg, items[k].name);
        worker_put_u32(msg, (uint32_t)items[k].value.type);
        worker_put_str(msg, text);
    }
}

void worker_values_free(skytune_named_value *items, size_t count)
{
    for (size_t k = 0; items && k < count; k++) {
        free((char *)items[k].name);
        value_clear(&items[k].value);
    }
    free(items);
}

int worker_get_values(worker_message *msg, skytune_named_value **out, size_t *count,
                      skytune_error *err)
{
    uint32_t n = worker_get_u32(msg);
    if (msg->bad || n > 4096) return err_set(err, "malformed value list from the engine");
    skytune_named_value *items = calloc((size_t)n + 1, sizeof *items);
    if (!items) return err_set(err, "out of memory");
    for (uint32_t k = 0; k < n; k++) {
        char *name = worker_get_str(msg);
        uint32_t type = worker_get_u32(msg);
        char *text = worker_get_str(msg);
        items[k].name = name;
        int rc = msg->bad || !name || !text || type > SKYTUNE_STRING
                     ? err_set(err, "malformed value list from the engine")
                     : value_parse(text, (skytune_type)type, &items[k].value, err);
        free(text);
        if (rc != 0) {
            worker_values_free(items, k + 1);
            return -1;
        }
    }
    *out = items;
    *count = n;
    return 0;
}

void worker_put_measure_request(worker_message *msg, uint64_t request,
                                const skytune_named_value *items, size_t count,
                                double race_limit_ns)
{
    worker_put_u64(msg, request);
    worker_put_values(msg, items, count);
    worker_put_f64(msg, race_limit_ns);
}

void worker_put_measurement(worker_message *msg, const measurement *m)
{
    worker_put_u32(msg, (uint32_t)m->status);
    worker_put_u32(msg, (uint32_t)m->stage);
    worker_put_u32(msg, m->abandoned);
    worker_put_u32(msg, m->raced);
    worker_put_u32(msg, m->compared_on_device);
    worker_put_f64(msg, m->gflops);
    worker_put_f64(msg, m->gbs);
    worker_put_f64(msg, m->build_s);
    worker_put_f64(msg, m->verify_s);
    worker_put_f64(msg, m->bench_s);
    worker_put_f64(msg, m->first_launch_extra_s);
    worker_put_f64(msg, m->max_abs_error);
    worker_put_f64(msg, m->max_rel_error);
    worker_put_u64(msg, (uint64_t)m->first_mismatch);
    worker_put_str(msg, m->message);
    worker_put_u32(msg, m->message != NULL);
    /* The statistics are recomputed from the samples on the other side. */
    worker_put_u64(msg, m->n_samples);
    for (size_t k = 0; k < m->n_samples; k++) worker_put_f64(msg, m->samples_ns[k]);
    worker_put_u32(msg, (uint32_t)m->n_parts);
    for (size_t k = 0; k < m->n_parts; k++) {
        worker_put_str(msg, m->parts[k].label);
        worker_put_f64(msg, m->parts[k].median_ns);
    }
}

int worker_get_measurement(worker_message *msg, measurement *m, skytune_error *err)
{
    measurement_init(m);
    uint32_t status = worker_get_u32(msg);
    uint32_t stage = worker_get_u32(msg);
    bool abandoned = worker_get_u32(msg) != 0;
    bool raced = worker_get_u32(msg) != 0;
    bool compared_on_device = worker_get_u32(msg) != 0;
    m->gflops = worker_get_f64(msg);
    m->gbs = worker_get_f64(msg);
    m->build_s = worker_get_f64(msg);
    m->verify_s = worker_get_f64(msg);
    m->bench_s = worker_get_f64(msg);
    m->first_launch_extra_s = worker_get_f64(msg);
    m->max_abs_error = worker_get_f64(msg);
    m->max_rel_error = worker_get_f64(msg);
    m->first_mismatch = (int64_t)worker_get_u64(msg);
    char *message = worker_get_str(msg);
    bool has_message = worker_get_u32(msg) != 0;
    uint64_t n_samples = worker_get_u64(msg);
    if (msg->bad || status >= MEAS_STATUS_COUNT || stage >= STAGE_COUNT ||
        n_samples > (msg->size - msg->read_pos) / sizeof(double)) {
        free(message);
        return err_set(err, "malformed measurement from the worker");
    }
    m->status = (measurement_status)status;
    m->stage = (measure_stage)stage;
    m->abandoned = abandoned;
    m->raced = raced;
    m->compared_on_device = compared_on_device;
    if (has_message) m->message = message;
    else free(message);
    double *samples = NULL;
    if (n_samples) {
        samples = malloc(n_samples * sizeof *samples);
        if (!samples) {
            measurement_clear(m);
            return err_set(err, "out of memory");
        }
        for (uint64_t k = 0; k < n_samples; k++) samples[k] = worker_get_f64(msg);
    }
    /* A measurement with samples gets its statistics the one way every
     * measurement does. */
    double gflops = m->gflops, gbs = m->gbs;
    int rc = n_samples ? measurement_set_samples(m, samples, n_samples) : 0;
    free(samples);
    m->gflops = gflops;
    m->gbs = gbs;
    uint32_t n_parts = worker_get_u32(msg);
    if (rc != 0 || msg->bad || n_parts > MEAS_MAX_PARTS) {
        measurement_clear(m);
        return err_set(err, "malformed measurement from the worker");
    }
    for (uint32_t k = 0; k < n_parts; k++) {
        char *label = worker_get_str(msg);
        snprintf(m->parts[k].label, sizeof m->parts[k].label, "%s", label ? label : "");
        free(label);
        m->parts[k].median_ns = worker_get_f64(msg);
    }
    m->n_parts = n_parts;
    if (msg->bad) {
        measurement_clear(m);
        return err_set(err, "malformed measurement from the worker");
    }
    return 0;
}

void worker_put_result(worker_message *msg, const worker_result *r)
{
    worker_put_u64(msg, r->request);
    worker_put_measurement(msg, &r->m);
    worker_put_u32(msg, r->context_lost);
    worker_put_u32(msg, (uint32_t)r->entry);
    worker_put_str(msg, r->entry_reason);
}

int worker_get_result(worker_message *msg, worker_result *r, skytune_error *err)
{
    memset(r, 0, sizeof *r);
    r->request = worker_get_u64(msg);
    if (worker_get_measurement(msg, &r->m, err) != 0) return -1;
    r->context_lost = worker_get_u32(msg) != 0;
    uint32_t entry = worker_get_u32(msg);
    char *reason = worker_get_str(msg);
    if (msg->bad || entry >= CACHE_ENTRY_OUTCOMES) {
        free(reason);
        measurement_clear(&r->m);
        return err_set(err, "malformed result from the worker");
    }
    r->entry = (cache_entry_outcome)entry;
    snprintf(r->entry_reason, sizeof r->entry_reason, "%s", reason);
    free(reason);
    return 0;
}

void worker_put_setup(worker_message *msg, uint32_t role, const worker_setup *setup)
{
    worker_put_u32(msg, role);
    worker_put_str(msg, setup->plugin_path);
    worker_put_u32(msg, setup->platform_index);
    worker_put_u32(msg, setup->device_index);
    worker_put_str(msg, setup->device_name);
    worker_put_values(msg, setup->problem->items, setup->problem->count);
    worker_put_u32(msg, setup->runs);
    worker_put_u32(msg, setup->warm_up_runs);
    worker_put_u32(msg, setup->transfers);
    worker_put_u32(msg, setup->compare);
    worker_put_u64(msg, setup->seed);
    worker_put_str(msg, setup->cache_dir);
    worker_put_u64(msg, setup->cache_max_bytes);
    worker_put_u32(msg, setup->wait_for_go);
    worker_put_str(msg, setup->trace_path);
    worker_put_str(msg, setup->reference_file);
}

static int write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        /* send() with MSG_NOSIGNAL: a peer that died must be an error here,
         * not a SIGPIPE that ends this process too. */
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK) w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1 when all n bytes were read, 0 at end of stream before any, -1 otherwise. */
static int read_all(int fd, void *data, size_t n)
{
    unsigned char *p = data;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

int worker_send(int fd, const worker_message *msg, skytune_error *err)
{
    if (msg->bad) return err_set(err, "out of memory composing a worker message");
    uint32_t header[3] = {WORKER_PROTOCOL_MAGIC, (WORKER_PROTOCOL_VERSION << 16) | msg->type,
                          (uint32_t)msg->size};
    /* Header and payload in one write: a compile worker may be stopped
     * (SIGSTOP) at any moment, and one stopped between the two would leave
     * the engine reading half a message from a process only it can wake. */
    unsigned char small[HEADER_SIZE + 256];
    unsigned char *whole = msg->size <= 256 ? small : malloc(HEADER_SIZE + msg->size);
    if (!whole) return err_set(err, "out of memory sending a worker message");
    memcpy(whole, header, HEADER_SIZE);
    if (msg->size) memcpy(whole + HEADER_SIZE, msg->data, msg->size);
    int rc = write_all(fd, whole, HEADER_SIZE + msg->size);
    if (whole != small) free(whole);
    if (rc != 0)
        return err_set(err, "the pipe to the other process is closed: %s", strerror(errno));
    return 0;
}

int worker_receive(int fd, worker_message *msg, skytune_error *err)
{
    memset(msg, 0, sizeof *msg);
    uint32_t header[3];
    int r = read_all(fd, header, sizeof header);
    if (r == 0) return 0;
    if (r < 0) return err_set(err, "the pipe closed in the middle of a message");
    if (header[0] != WORKER_PROTOCOL_MAGIC)
        return err_set(err, "not a skytune worker message (magic %08x)", header[0]);
    if ((header[1] >> 16) != WORKER_PROTOCOL_VERSION)
        return err_set(err, "worker protocol version %u, this build speaks %u", header[1] >> 16,
                       WORKER_PROTOCOL_VERSION);
    if (header[2] > WORKER_MESSAGE_LIMIT)
        return err_set(err, "a worker message of %u bytes is over the %u-byte limit", header[2],
                       WORKER_MESSAGE_LIMIT);
    msg->type = header[1] & 0xffffu;
    msg->size = msg->capacity = header[2];
    if (msg->size) {
        msg->data = malloc(msg->size);
        if (!msg->data) return err_set(err, "out of memory reading a worker message");
        if (read_all(fd, msg->data, msg->size) != 1) {
            worker_message_free(msg);
            return err_set(err, "the pipe closed in the middle of a message");
        }
    }
    return 1;
}
