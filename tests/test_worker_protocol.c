/* The messages between the engine and its workers: what is written is read
 * back exactly, and a stream that is cut, foreign, of another version or
 * absurdly large is refused rather than misread. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "worker_protocol.h"

static void socket_pair(int fds[2])
{
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
}

Test(worker_protocol, values_round_trip_with_their_types)
{
    skytune_named_value items[] = {
        {"wg", {.type = SKYTUNE_INT, .i = -64}},
        {"freq", {.type = SKYTUNE_FLOAT, .f = 0.1}},
        {"unroll", {.type = SKYTUNE_BOOL, .i = 1}},
        {"layout", {.type = SKYTUNE_STRING, .s = "TCSP"}},
    };
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_MEASURE);
    worker_put_values(&msg, items, 4);
    skytune_named_value *back;
    size_t n;
    skytune_error err;
    cr_assert_eq(worker_get_values(&msg, &back, &n, &err), 0, "%s", err.message);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(back[0].name, "wg");
    cr_assert_eq(back[0].value.type, SKYTUNE_INT);
    cr_assert_eq(back[0].value.i, -64);
    cr_assert_eq(back[1].value.type, SKYTUNE_FLOAT);
    cr_assert_eq(back[1].value.f, 0.1, "a double survives exactly");
    cr_assert_eq(back[2].value.type, SKYTUNE_BOOL);
    cr_assert_eq(back[2].value.i, 1);
    cr_assert_str_eq(back[3].value.s, "TCSP");
    worker_values_free(back, n);
    worker_message_free(&msg);
}

Test(worker_protocol, a_measurement_survives_the_pipe)
{
    measurement m;
    measurement_init(&m);
    double samples[] = {5.0, 3.0, 4.0, 10.0};
    cr_assert_eq(measurement_set_samples(&m, samples, 4), 0);
    m.gflops = 12.5;
    m.build_s = 0.25;
    m.verify_s = 0.01;
    m.bench_s = 0.02;
    m.n_parts = 2;
    strcpy(m.parts[0].label, "fir");
    m.parts[0].median_ns = 1.5;
    strcpy(m.parts[1].label, "fft");
    m.parts[1].median_ns = 2.5;
    measurement_set_message(&m, "a message\nwith two lines");
    m.raced = true;

    int fds[2];
    socket_pair(fds);
    worker_message out;
    worker_message_init(&out, WORKER_MSG_RESULT);
    worker_put_u64(&out, 42);
    worker_put_measurement(&out, &m);
    skytune_error err;
    cr_assert_eq(worker_send(fds[0], &out, &err), 0, "%s", err.message);
    worker_message in;
    cr_assert_eq(worker_receive(fds[1], &in, &err), 1, "%s", err.message);
    cr_assert_eq(in.type, WORKER_MSG_RESULT);
    cr_assert_eq(worker_get_u64(&in), 42);
    measurement back;
    cr_assert_eq(worker_get_measurement(&in, &back, &err), 0, "%s", err.message);
    cr_assert_eq(back.status, MEAS_OK);
    cr_assert_eq(back.n_samples, 4);
    cr_assert_eq(back.median_ns, m.median_ns, "statistics recomputed from the samples");
    cr_assert_eq(back.min_ns, 3.0);
    cr_assert_eq(back.max_ns, 10.0);
    cr_assert_eq(back.gflops, 12.5);
    cr_assert_eq(back.build_s, 0.25);
    cr_assert_eq(back.n_parts, 2);
    cr_assert_str_eq(back.parts[1].label, "fft");
    cr_assert_str_eq(back.message, "a message\nwith two lines");
    cr_assert(back.raced);
    measurement_clear(&back);
    measurement_clear(&m);
    worker_message_free(&in);
    worker_message_free(&out);
    close(fds[0]);
    close(fds[1]);
}

Test(worker_protocol, a_measure_request_carries_its_race_limit_after_the_values)
{
    skytune_named_value items[2] = {
        {"wg", {.type = SKYTUNE_INT, .i = 64}},
        {"layout", {.type = SKYTUNE_STRING, .s = "tiled"}},
    };
    worker_message out;
    worker_message_init(&out, WORKER_MSG_MEASURE);
    worker_put_measure_request(&out, 7, items, 2, 1234.5);
    int fds[2];
    socket_pair(fds);
    skytune_error err;
    cr_assert_eq(worker_send(fds[0], &out, &err), 0, "%s", err.message);
    worker_message in;
    cr_assert_eq(worker_receive(fds[1], &in, &err), 1, "%s", err.message);
    cr_assert_eq(in.type, WORKER_MSG_MEASURE);
    cr_assert_eq(worker_get_u64(&in), 7);
    skytune_named_value *back = NULL;
    size_t count = 0;
    cr_assert_eq(worker_get_values(&in, &back, &count, &err), 0, "%s", err.message);
    cr_assert_eq(count, 2);
    cr_assert_str_eq(back[1].value.s, "tiled");
    cr_assert_eq(worker_get_f64(&in), 1234.5);
    cr_assert_not(in.bad);
    worker_values_free(back, count);
    worker_message_free(&in);
    worker_message_free(&out);
    close(fds[0]);
    close(fds[1]);
}

Test(worker_protocol, a_crash_keeps_its_stage_and_no_message_stays_none)
{
    measurement m;
    measurement_init(&m);
    m.status = MEAS_CRASH;
    m.stage = STAGE_VERIFY;
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_RESULT);
    worker_put_measurement(&msg, &m);
    measurement back;
    skytune_error err;
    cr_assert_eq(worker_get_measurement(&msg, &back, &err), 0, "%s", err.message);
    cr_assert_eq(back.status, MEAS_CRASH);
    cr_assert_eq(back.stage, STAGE_VERIFY);
    cr_assert_null(back.message);
    cr_assert_eq(back.first_mismatch, -1);
    measurement_clear(&back);
    worker_message_free(&msg);
}

Test(worker_protocol, a_truncated_payload_is_refused)
{
    measurement m;
    measurement_init(&m);
    double samples[] = {1, 2, 3};
    measurement_set_samples(&m, samples, 3);
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_RESULT);
    worker_put_measurement(&msg, &m);
    for (size_t cut = 0; cut < msg.size; cut += 7) {
        worker_message shorter = msg;
        shorter.size = cut;
        shorter.read_pos = 0;
        shorter.bad = false;
        measurement back;
        skytune_error err;
        cr_assert_eq(worker_get_measurement(&shorter, &back, &err), -1, "cut at %zu", cut);
    }
    measurement_clear(&m);
    worker_message_free(&msg);
}

/* A result carries what became of the build's cache entry, and why it was
 * not stored: the engine has no other way to learn it. A cut result, or an
 * outcome that is none, is refused. */
Test(worker_protocol, a_result_tells_what_became_of_the_cache_entry)
{
    worker_result r = {.request = 7, .context_lost = true, .entry = CACHE_ENTRY_NOT_STORED};
    measurement_init(&r.m);
    r.m.status = MEAS_COMPILE;
    measurement_set_message(&r.m, "CL_BUILD_PROGRAM_FAILURE");
    snprintf(r.entry_reason, sizeof r.entry_reason, "No space left on device");
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_RESULT);
    worker_put_result(&msg, &r);
    worker_result back;
    skytune_error err;
    cr_assert_eq(worker_get_result(&msg, &back, &err), 0, "%s", err.message);
    cr_assert_eq(back.request, 7);
    cr_assert(back.context_lost);
    cr_assert_eq(back.m.status, MEAS_COMPILE);
    cr_assert_str_eq(back.m.message, "CL_BUILD_PROGRAM_FAILURE");
    cr_assert_eq(back.entry, CACHE_ENTRY_NOT_STORED);
    cr_assert_str_eq(back.entry_reason, "No space left on device");
    measurement_clear(&back.m);
    for (size_t cut = 0; cut < msg.size; cut++) {
        worker_message shorter = msg;
        shorter.size = cut;
        shorter.read_pos = 0;
        shorter.bad = false;
        cr_assert_eq(worker_get_result(&shorter, &back, &err), -1, "cut at %zu", cut);
    }
    measurement_clear(&r.m);
    worker_message_free(&msg);

    r = (worker_result){.entry = CACHE_ENTRY_OUTCOMES};
    measurement_init(&r.m);
    worker_message_init(&msg, WORKER_MSG_RESULT);
    worker_put_result(&msg, &r);
    cr_assert_eq(worker_get_result(&msg, &back, &err), -1, "an outcome that is none");
    worker_message_free(&msg);
}

static void write_raw(int fd, uint32_t magic, uint32_t version_type, uint32_t size)
{
    uint32_t header[3] = {magic, version_type, size};
    cr_assert_eq(write(fd, header, sizeof header), (ssize_t)sizeof header);
}

Test(worker_protocol, foreign_other_version_oversize_and_cut_streams_are_refused)
{
    int fds[2];
    worker_message in;
    skytune_error err;

    socket_pair(fds);
    write_raw(fds[0], 0x12345678u, (WORKER_PROTOCOL_VERSION << 16) | WORKER_MSG_READY, 0);
    cr_assert_eq(worker_receive(fds[1], &in, &err), -1);
    cr_assert(strstr(err.message, "not a skytune worker message"), "%s", err.message);
    close(fds[0]);
    close(fds[1]);

    socket_pair(fds);
    write_raw(fds[0], WORKER_PROTOCOL_MAGIC, ((WORKER_PROTOCOL_VERSION + 1) << 16) | 16, 0);
    cr_assert_eq(worker_receive(fds[1], &in, &err), -1);
    cr_assert(strstr(err.message, "version"), "%s", err.message);
    close(fds[0]);
    close(fds[1]);

    socket_pair(fds);
    write_raw(fds[0], WORKER_PROTOCOL_MAGIC, (WORKER_PROTOCOL_VERSION << 16) | 16,
              WORKER_MESSAGE_LIMIT + 1);
    cr_assert_eq(worker_receive(fds[1], &in, &err), -1);
    cr_assert(strstr(err.message, "limit"), "%s", err.message);
    close(fds[0]);
    close(fds[1]);

    /* A header promising a payload that never comes: the peer died. */
    socket_pair(fds);
    write_raw(fds[0], WORKER_PROTOCOL_MAGIC, (WORKER_PROTOCOL_VERSION << 16) | 16, 100);
    close(fds[0]);
    cr_assert_eq(worker_receive(fds[1], &in, &err), -1);
    close(fds[1]);

    /* A clean end of stream is not an error. */
    socket_pair(fds);
    close(fds[0]);
    cr_assert_eq(worker_receive(fds[1], &in, &err), 0);
    close(fds[1]);
}

Test(worker_protocol, sending_to_a_dead_peer_is_an_error_not_a_signal)
{
    int fds[2];
    socket_pair(fds);
    close(fds[1]);
    worker_message msg;
    worker_message_init(&msg, WORKER_MSG_QUIT);
    skytune_error err;
    /* Without MSG_NOSIGNAL this would end the test process with SIGPIPE. */
    cr_assert_eq(worker_send(fds[0], &msg, &err), -1);
    worker_message_free(&msg);
    close(fds[0]);
}
