/* The compile pool with real worker processes (the skytune executable) on
 * the default OpenCL device (PoCL here), building the trivial plugin
 * module: it builds what it is told, never twice, tells what became of
 * each build's cache entry (stored, or not and why), replaces a worker
 * killed in the middle of a build, and stops and resumes its workers. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cl_device.h"
#include "compile_pool.h"
#include "plugin_space.h"
#include "trivial_plugin.h"

static cl_device_entry *devices;
static size_t chosen;
static space *sp;
static char cache_dir[] = "/tmp/skytune-pool-test-XXXXXX";
static char module_path[4096];
static skytune_values no_problem;

static void set_up(void)
{
    size_t n;
    skytune_error err;
    /* The pool's builds store program binaries, as on a GPU; on PoCL's CPU
     * device only with PoCL's kernel cache off (binary_keeping.h). The
     * workers inherit it. */
    cr_assert_eq(setenv("POCL_KERNEL_CACHE", "0", 1), 0);
    cr_assert_eq(cl_devices_list(&devices, &n, &err), 0, "%s", err.message);
    cr_assert_eq(cl_device_select(devices, n, NULL, &chosen, &err), 0, "%s", err.message);
    const char *only[] = {"MODE=0", "wg=64"};
    const char *restricts[] = {"variant < 40"};
    plugin_space_request rq = {.plugin = &trivial_plugin, .problem = &no_problem,
                               .device = &devices[chosen].info, .restricts = restricts,
                               .n_restricts = 1, .only = only, .n_only = 2};
    cr_assert_eq(plugin_space_build(&rq, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(sp), 40);
    cr_assert_not_null(mkdtemp(cache_dir));
    snprintf(module_path, sizeof module_path, "%s/trivial.so", getenv("SKYTUNE_BUILD_DIR"));
}

static void tear_down(void)
{
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
    cr_assert_eq(system(command), 0);
    space_free(sp);
    free(devices);
}

TestSuite(compile_pool, .init = set_up, .fini = tear_down, .timeout = 300);

/* What the pool told of its builds' cache entries (each test is a process
 * of its own). */
static cache_entries told;

static void count_told(void *ctx, cache_entry_outcome outcome, const char *reason)
{
    (void)ctx;
    cache_entries_count(&told, outcome, reason);
}

/* A pool whose workers store into `dir`, with this compile limit. */
static compile_pool *open_pool_limited(unsigned jobs, const char *dir, double compile_timeout_s)
{
    compile_pool_options o = {
        .worker_exe = getenv("SKYTUNE_EXE"),
        .setup = {.plugin_path = module_path,
                  .platform_index = devices[chosen].platform_index,
                  .device_index = devices[chosen].device_index,
                  .device_name = devices[chosen].info.name,
                  .problem = &no_problem,
                  .runs = 1,
                  .seed = 1,
                  .cache_dir = dir},
        .jobs = jobs,
        .compile_timeout_s = compile_timeout_s,
        .setup_timeout_s = 120,
        .on_entry = count_told,
    };
    compile_pool *p;
    skytune_error err;
    cr_assert_eq(compile_pool_open(&o, sp, &p, &err), 0, "%s", err.message);
    return p;
}

/* A pool whose workers store into `dir`. */
static compile_pool *open_pool_on(unsigned jobs, const char *dir)
{
    return open_pool_limited(jobs, dir, 120);
}

static compile_pool *open_pool(unsigned jobs)
{
    return open_pool_on(jobs, cache_dir);
}


static void serve_for(compile_pool *p, double seconds)
{
    double until = clock_monotonic_s() + seconds;
    while (clock_monotonic_s() < until) {
        struct pollfd fds[64];
        size_t n = compile_pool_pollfds(p, fds, 64);
        int r = poll(fds, n, 20);
        compile_pool_service(p, fds, r > 0 ? n : 0);
    }
}

/* Serve until `finished` builds or failures are counted, or a minute. */
static compile_pool_stats serve_until(compile_pool *p, uint64_t finished)
{
    compile_pool_stats st;
    double until = clock_monotonic_s() + 120;
    do {
        serve_for(p, 0.05);
        compile_pool_get_stats(p, &st);
    } while (st.built + st.failed < finished && clock_monotonic_s() < until);
    return st;
}

/* The compile workers of this process, by their command line. */
static size_t compile_workers(pid_t *pids, size_t cap)
{
    size_t n = 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc)) && n < cap) {
        char path[300], stat[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t got = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[got] = '\0';
        const char *close_paren = strrchr(stat, ')');
        int ppid = 0;
        char state = 0;
        if (!close_paren || sscanf(close_paren + 2, "%c %d", &state, &ppid) != 2) continue;
        if (ppid != getpid()) continue;
        char cmd[256] = "";
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "r");
        if (!f) continue;
        got = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        for (size_t k = 0; k < got; k++)
            if (cmd[k] == '\0') cmd[k] = ' ';
        cmd[got] = '\0';
        if (strstr(cmd, "worker compile")) pids[n++] = (pid_t)atoi(e->d_name);
    }
    if (proc) closedir(proc);
    return n;
}

/* The pool kills its workers on closing and leaves them to a thread to
 * reap (compile_pool_close): a process killed takes a moment to go, the
 * longer the more memory it had mapped, so they are given five seconds. */
static size_t compile_workers_left(pid_t *pids, size_t cap)
{
    size_t n = compile_workers(pids, cap);
    for (int k = 0; k < 500 && n > 0; k++) {
        usleep(10000);
        n = compile_workers(pids, cap);
    }
    return n;
}

static char process_state_now(pid_t pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    size_t got = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[got] = '\0';
    const char *close_paren = strrchr(stat, ')');
    return close_paren ? close_paren[2] : '?';
}

/* A signal's effect on a process's state shows a moment later. */
static char process_state(pid_t pid, char expected)
{
    char state = process_state_now(pid);
    for (int k = 0; k < 100 && state != expected; k++) {
        usleep(10000);
        state = process_state_now(pid);
    }
    return state;
}

Test(compile_pool, builds_what_it_is_told_and_nothing_twice)
{
    compile_pool *p = open_pool(2);
    uint64_t ranks[6] = {0, 1, 2, 3, 4, 5};
    compile_pool_hint(p, ranks, 6);
    compile_pool_stats st = serve_until(p, 6);
    cr_assert_eq(st.built, 6, "built %llu of 6", (unsigned long long)st.built);
    cr_assert_eq(st.failed, 0);
    cr_assert_eq(told.stored, 6, "%llu entries stored of 6", (unsigned long long)told.stored);
    /* The same hint again, and one more configuration. */
    uint64_t again[7] = {5, 4, 3, 2, 1, 0, 6};
    compile_pool_hint(p, again, 7);
    st = serve_until(p, 7);
    serve_for(p, 0.3);
    compile_pool_get_stats(p, &st);
    cr_assert_eq(st.built, 7, "a configuration built before is not built again");
    cr_assert_eq(told.stored, 7);
    cr_assert_eq(told.not_stored + told.found, 0);
    for (uint64_t r = 0; r < 7; r++) cr_assert_not(compile_pool_building(p, r));
    compile_pool_close(p);
    pid_t left[8];
    cr_assert_eq(compile_workers_left(left, 8), 0, "closing the pool ends its workers");
}

/* A build whose entry cannot be written (the folder lies under a file,
 * which stops root too) is a build all the same: the worker goes on, and
 * the pool tells that the entry was not stored and why, which nothing
 * else would show: the measuring worker just compiles it again. */
Test(compile_pool, an_entry_that_cannot_be_stored_is_told)
{
    char file[sizeof cache_dir + 16], below[sizeof cache_dir + 32];
    snprintf(file, sizeof file, "%s/plain", cache_dir);
    snprintf(below, sizeof below, "%s/binaries", file);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    compile_pool *p = open_pool_on(2, below);
    uint64_t ranks[4] = {0, 1, 2, 3};
    compile_pool_hint(p, ranks, 4);
    compile_pool_stats st = serve_until(p, 4);
    cr_assert_eq(st.built, 4, "built %llu of 4", (unsigned long long)st.built);
    cr_assert_eq(st.failed + st.restarts, 0, "a store that fails is no worker's failure");
    cr_assert_eq(told.not_stored, 4, "%llu of 4 told as not stored",
                 (unsigned long long)told.not_stored);
    cr_assert_eq(told.stored + told.found, 0);
    cr_assert_str_eq(told.first_reason, strerror(ENOTDIR));
    compile_pool_close(p);
}

Test(compile_pool, a_worker_killed_while_building_is_replaced)
{
    compile_pool *p = open_pool(2);
    uint64_t ranks[40];
    for (uint64_t r = 0; r < 40; r++) ranks[r] = r;
    compile_pool_hint(p, ranks, 40);
    /* Wait until some build is under way, then kill every worker. */
    double until = clock_monotonic_s() + 120;
    bool building = false;
    while (!building && clock_monotonic_s() < until) {
        serve_for(p, 0.02);
        for (uint64_t r = 0; r < 40 && !building; r++) building = compile_pool_building(p, r);
    }
    cr_assert(building, "no build started");
    pid_t pids[8];
    size_t n = compile_workers(pids, 8);
    cr_assert_eq(n, 2);
    for (size_t k = 0; k < n; k++) kill(pids[k], SIGKILL);
    compile_pool_stats st = serve_until(p, 40);
    cr_assert_eq(st.built + st.failed, 40, "every configuration built or given up");
    cr_assert_geq(st.failed, 1, "the builds killed are given up, left to the measuring worker");
    cr_assert_geq(st.restarts, 2);
    cr_assert_geq(st.built, 30, "the replacements go on building");
    /* Killed, not out of time: the measuring worker builds them again. */
    for (uint64_t r = 0; r < 40; r++)
        cr_assert_eq(compile_pool_timed_out_s(p, r), 0, "rank %llu told as timed out",
                     (unsigned long long)r);
    compile_pool_close(p);
}

/* A build that outlasts the compile limit (its worker stopped, so it never
 * answers) is given up, its worker replaced, and the seconds spent on it
 * told: the measuring worker records it as the build's timeout instead of
 * waiting for a build of its own as long again. */
Test(compile_pool, a_build_past_the_compile_limit_is_told_with_its_time)
{
    /* A limit far above a build of the trivial kernel (tenths of a second),
     * a few seconds for the stopped worker's to run out. */
    const double limit = 5.0;
    compile_pool *p = open_pool_limited(1, cache_dir, limit);
    /* A build first, so that the worker is idle, waiting for the next; on
     * a machine so loaded that one outlasts the limit, the next is tried. */
    uint64_t first = 5, hung = 0;
    compile_pool_stats st = {0};
    for (; first < 10 && st.built == 0; first++) {
        compile_pool_hint(p, &first, 1);
        st = serve_until(p, st.failed + 1);
    }
    first--;
    cr_assert_eq(st.built, 1, "no build finished within %.0f s", limit);
    /* The worker that built it, idle. */
    pid_t pids[8];
    cr_assert_eq(compile_workers(pids, 8), 1);
    cr_assert_eq(kill(pids[0], SIGSTOP), 0);
    uint64_t failed_before = st.failed, restarts_before = st.restarts;
    compile_pool_hint(p, &hung, 1);
    cr_assert(compile_pool_building(p, hung), "the build was not handed out");
    st = serve_until(p, st.built + st.failed + 1);
    cr_assert_eq(st.failed, failed_before + 1, "the build past the limit was not given up");
    cr_assert_eq(st.restarts, restarts_before + 1, "the stopped worker was not replaced");
    double spent = compile_pool_timed_out_s(p, hung);
    cr_assert(spent >= limit && spent < limit + 60, "told %.3f s for a build ended at the %.0f s "
              "limit", spent, limit);
    cr_assert(compile_pool_done(p, hung), "the build given up is not done with");
    cr_assert_eq(compile_pool_timed_out_s(p, first), 0, "the finished build told as timed out");
    compile_pool_close(p);
}

Test(compile_pool, pausing_stops_every_worker)
{
    compile_pool *p = open_pool(2);
    serve_for(p, 0.2);
    pid_t pids[8];
    size_t n = compile_workers(pids, 8);
    cr_assert_eq(n, 2);
    compile_pool_pause(p);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(process_state(pids[k], 'T'), 'T', "worker %d is not stopped", (int)pids[k]);
    compile_pool_resume(p);
    for (size_t k = 0; k < n; k++) cr_assert_neq(process_state(pids[k], 'S'), 'T');
    /* Still able to build after a pause. */
    uint64_t ranks[2] = {10, 11};
    compile_pool_hint(p, ranks, 2);
    compile_pool_stats st = serve_until(p, 2);
    cr_assert_eq(st.built, 2);
    compile_pool_close(p);
}
