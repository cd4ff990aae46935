/* What building a search space may cost, and stopping it.
 *
 * A constraint that names many parameters can be checked only once all of
 * them are bound, so the enumeration can check far more combinations than
 * the space has valid configurations: 20 parameters of 100 values with one
 * condition over all 20 would check 10^40. The enumeration counts the
 * combinations it checks, refuses past a work limit naming the constraint
 * that prunes too little, reports its progress to a hook that can stop it,
 * and is narrowed (--only, --restrict) before it is enumerated so that the
 * narrowing the refusal suggests does cut the work. End to end: the limit is
 * an option of `skytune run` documented with its default, progress shows on
 * a terminal after a second, one Ctrl-C stops the build at once, and the
 * database is never touched. */
#include <criterion/criterion.h>

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cli_harness.h"
#include "params.h"
#include "space.h"

/* ------------------------------------------------------------ fixtures */

static char *scratch;

static void make_scratch(void) { scratch = cli_make_temp_dir(); }

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

TestSuite(space_work, .init = make_scratch, .fini = remove_scratch, .timeout = 300);

#define WIDE_PARAMS 20
#define WIDE_VALUES 100

/* "p0 + p1 + ... + p19 < 50": one constraint over every parameter. */
static const char *sum_constraint(void)
{
    static char text[512];
    size_t used = 0;
    for (int k = 0; k < WIDE_PARAMS; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%sp%d", k ? " + " : "", k);
    snprintf(text + used, sizeof text - used, " < 50");
    return text;
}

/* n parameters p0.. of values 0..values-1. */
static param_def *int_params(size_t n, size_t values)
{
    param_def *params = calloc(n, sizeof *params);
    cr_assert_not_null(params);
    char list[1024];
    size_t used = 0;
    for (size_t v = 0; v < values; v++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%zu", v ? "," : "", v);
    for (size_t k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "p%zu", k);
        skytune_tuning_param spec = {name, SKYTUNE_LIST, list, 0, 0, 0, NULL};
        skytune_error err = {0};
        cr_assert_eq(param_expand(&spec, &params[k], &err), 0, "%s", err.message);
    }
    return params;
}

static void free_params(param_def *params, size_t n)
{
    for (size_t k = 0; k < n; k++) param_free(&params[k]);
    free(params);
}

/* ------------------------------------------------------------ the core */

Test(space_work, limit_refuses_naming_the_constraint_that_prunes_too_little)
{
    param_def *params = int_params(WIDE_PARAMS, WIDE_VALUES);
    const char *constraints[] = {"p0 <= 99", sum_constraint()};
    space_control control = {.work_limit = 1000000};
    space_spec spec = {.params = params, .n_params = WIDE_PARAMS, .constraints = constraints,
                       .n_constraints = 2, .control = &control};
    space *s = NULL;
    skytune_error err = {0};
    cr_assert_neq(space_build(&spec, &s, &err), 0, "a space of 10^40 combinations was built");
    cr_assert_null(s);
    const char *needles[] = {"more than 1000000 combinations checked", "work limit",
                             "constraint 2 ('p0 + p1", "names 20 parameters", "prunes too little",
                             "--only", "--restrict", "--space-work-limit"};
    for (size_t k = 0; k < sizeof needles / sizeof needles[0]; k++)
        cr_assert(strstr(err.message, needles[k]), "expected \"%s\" in: %s", needles[k],
                  err.message);
    free_params(params, WIDE_PARAMS);
}

/* The limit counts combinations checked, not valid ones: a space with no
 * valid configuration at all still costs its checks. */
Test(space_work, limit_counts_combinations_checked_not_valid_ones)
{
    param_def *params = int_params(3, WIDE_VALUES);
    const char *constraints[] = {"p0 + p1 + p2 < 0"};
    /* 100 + 100^2 + 100^3 checks, no valid configuration. */
    space_control tight = {.work_limit = 1000000};
    space_spec spec = {.params = params, .n_params = 3, .constraints = constraints,
                       .n_constraints = 1, .control = &tight};
    space *s = NULL;
    skytune_error err = {0};
    cr_assert_neq(space_build(&spec, &s, &err), 0, "1010100 checks passed a limit of 10^6");
    cr_assert(strstr(err.message, "constraint 1 ('p0 + p1 + p2 < 0')"), "%s", err.message);
    space_control enough = {.work_limit = 1010100};
    spec.control = &enough;
    cr_assert_eq(space_build(&spec, &s, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(s), 0);
    space_free(s);
    free_params(params, 3);
}

typedef struct watched {
    size_t calls, stop_at;
    uint64_t last_checked;
    double last_fraction;
} watched;

static int watch(void *ctx, const space_progress *p)
{
    watched *w = ctx;
    w->calls++;
    cr_assert_gt(p->checked, w->last_checked, "checked must grow");
    cr_assert_eq(p->checked % SPACE_PROGRESS_INTERVAL, 0);
    cr_assert_eq(p->work_limit, SPACE_DEFAULT_WORK_LIMIT, "the default limit is reported");
    cr_assert(p->fraction >= w->last_fraction && p->fraction <= 1.0, "fraction %g after %g",
              p->fraction, w->last_fraction);
    cr_assert_eq(p->group, 0);
    cr_assert_eq(p->n_groups, 1);
    w->last_checked = p->checked;
    w->last_fraction = p->fraction;
    return w->calls == w->stop_at;
}

Test(space_work, progress_is_reported_and_a_nonzero_answer_stops_the_build)
{
    param_def *params = int_params(WIDE_PARAMS, WIDE_VALUES);
    const char *constraints[] = {sum_constraint()};
    watched w = {.stop_at = 5};
    space_control control = {.on_progress = watch, .ctx = &w};
    space_spec spec = {.params = params, .n_params = WIDE_PARAMS, .constraints = constraints,
                       .n_constraints = 1, .control = &control};
    space *s = NULL;
    skytune_error err = {0};
    cr_assert_neq(space_build(&spec, &s, &err), 0);
    cr_assert_eq(w.calls, 5, "the build went on after the hook asked to stop");
    cr_assert_eq(w.last_checked, 5 * SPACE_PROGRESS_INTERVAL);
    char expected[128];
    snprintf(expected, sizeof expected, "stopped after %llu combinations checked",
             (unsigned long long)(5 * SPACE_PROGRESS_INTERVAL));
    cr_assert(strstr(err.message, expected), "%s", err.message);
    free_params(params, WIDE_PARAMS);
}

/* Narrowing a definition enumerates only what is left: the 10^40
 * combinations become 100^3 once 17 parameters keep one value. */
Test(space_work, narrowing_a_definition_cuts_the_work)
{
    param_def *params = int_params(WIDE_PARAMS, WIDE_VALUES);
    const char *constraints[] = {sum_constraint()};
    space_spec spec = {.params = params, .n_params = WIDE_PARAMS, .constraints = constraints,
                       .n_constraints = 1};
    space *definition = NULL, *s = NULL;
    skytune_error err = {0};
    cr_assert_eq(space_define(&spec, &definition, &err), 0, "%s", err.message);
    cr_assert(space_is_definition(definition));
    cr_assert_eq(space_param_count(definition), WIDE_PARAMS);
    char only[17][16];
    const char *only_items[17];
    for (int k = 0; k < 17; k++) {
        snprintf(only[k], sizeof only[k], "p%d=1", k);
        only_items[k] = only[k];
    }
    const char *restricts[] = {"p19 < 10"};
    space_control control = {.work_limit = 2000000};
    cr_assert_eq(space_narrow(definition, restricts, 1, only_items, 17, &control, &s, &err), 0,
                 "%s", err.message);
    cr_assert_not(space_is_definition(s));
    /* p17 + p18 + p19 < 33 with p19 < 10, counted by hand. */
    uint64_t expected = 0;
    for (int a = 0; a < WIDE_VALUES; a++)
        for (int b = 0; b < WIDE_VALUES; b++)
            for (int c = 0; c < 10; c++) expected += a + b + c < 33;
    cr_assert_eq(space_count(s), expected);
    space_free(s);
    space_free(definition);
    free_params(params, WIDE_PARAMS);
}

/* ------------------------------------------------------------ end to end */

/* A T1 file of the wide space and a Kernel Tuner cache of its parameters
 * (one entry), the replay that stands in for a device. */
static void write_wide_inputs(char **t1_path, char **cache_path)
{
    *t1_path = cli_path(scratch, "wide.t1.json");
    *cache_path = cli_path(scratch, "wide.cache.json");
    char values[512];
    size_t used = 0;
    for (int v = 0; v < WIDE_VALUES; v++)
        used += (size_t)snprintf(values + used, sizeof values - used, "%s%d", v ? ", " : "", v);
    size_t cap = 64 * 1024;
    char *t1 = malloc(cap), *cache = malloc(cap);
    cr_assert(t1 && cache);
    size_t t = (size_t)snprintf(t1, cap, "{\"ConfigurationSpace\": {\"TuningParameters\": [");
    size_t c = (size_t)snprintf(cache, cap, "{\"tune_params_keys\": [");
    for (int k = 0; k < WIDE_PARAMS; k++) {
        t += (size_t)snprintf(t1 + t, cap - t, "%s{\"Name\": \"p%d\", \"Type\": \"int\", "
                              "\"Values\": [%s]}", k ? ", " : "", k, values);
        c += (size_t)snprintf(cache + c, cap - c, "%s\"p%d\"", k ? ", " : "", k);
    }
    t += (size_t)snprintf(t1 + t, cap - t, "], \"Conditions\": [\"%s\"]}}", sum_constraint());
    c += (size_t)snprintf(cache + c, cap - c, "], \"tune_params\": {");
    for (int k = 0; k < WIDE_PARAMS; k++)
        c += (size_t)snprintf(cache + c, cap - c, "%s\"p%d\": [%s]", k ? ", " : "", k, values);
    c += (size_t)snprintf(cache + c, cap - c, "}, \"cache\": {\"");
    for (int k = 0; k < WIDE_PARAMS; k++) c += (size_t)snprintf(cache + c, cap - c, "%s0", k ? "," : "");
    c += (size_t)snprintf(cache + c, cap - c, "\": {\"time\": 1.5}}}");
    cli_write_file(*t1_path, t1, t);
    cli_write_file(*cache_path, cache, c);
    free(t1);
    free(cache);
}

Test(space_work, run_refuses_past_the_work_limit_and_leaves_the_database_alone)
{
    char *t1, *cache;
    write_wide_inputs(&t1, &cache);
    char *db = cli_path(scratch, "results.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", cache, "--space", t1, "--db", db,
                                    "--space-work-limit", "3000000"));
    cr_assert_eq(r.status, 1, "%s\nstdout:\n%s\nstderr:\n%s", cli_status_text(r.status), r.out,
                 r.err);
    cr_assert(strstr(r.err, "more than 3000000 combinations checked") &&
                  strstr(r.err, "constraint 1 ('p0 + p1") && strstr(r.err, "--only") &&
                  strstr(r.err, "--space-work-limit"),
              "%s", r.err);
    cr_assert_not(strstr(r.out, "building the search space"),
                  "progress is for terminals, not pipes:\n%s", r.out);
    cr_assert_not(cli_file_exists(db), "the refused run created %s", db);
    cli_result_free(&r);

    /* The narrowing the message suggests makes the same limit enough. */
    const char *args[64] = {"run", "--replay", cache, "--space", t1, "--db", db,
                            "--space-work-limit", "3000000", "--strategy", "random", "--budget",
                            "2", "--quiet"};
    size_t n = 14;
    char only[17][16];
    for (int k = 0; k < 17; k++) {
        snprintf(only[k], sizeof only[k], "p%d=0", k);
        args[n++] = "--only";
        args[n++] = only[k];
    }
    args[n] = NULL;
    r = cli_run(args);
    cr_assert_eq(r.status, 0, "%s\nstdout:\n%s\nstderr:\n%s", cli_status_text(r.status), r.out,
                 r.err);
    cli_result_free(&r);
    free(t1);
    free(cache);
    free(db);
}

/* ------------------------------------------------------------ on a terminal */


/* What the child wrote to its terminal, collected from the pty's master. */
typedef struct terminal_output {
    char text[65536];
    size_t len;
    bool closed;
} terminal_output;

/* Read until `needle` appears (true) or the terminal closes or timeout_s
 * passes (false); needle NULL reads until it closes. */
static bool read_terminal(int master, terminal_output *o, const char *needle, double timeout_s)
{
    double deadline = clock_monotonic_s() + timeout_s;
    while (!o->closed) {
        if (needle && strstr(o->text, needle)) return true;
        double left = deadline - clock_monotonic_s();
        if (left <= 0) return false;
        struct pollfd p = {.fd = master, .events = POLLIN};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        char buf[4096];
        ssize_t got = read(master, buf, sizeof buf);
        if (got <= 0) {
            /* EIO: every process holding the terminal's other side is gone. */
            o->closed = true;
            break;
        }
        size_t room = sizeof o->text - 1 - o->len;
        size_t keep = (size_t)got < room ? (size_t)got : room;
        memcpy(o->text + o->len, buf, keep);
        o->len += keep;
        o->text[o->len] = '\0';
    }
    return needle ? strstr(o->text, needle) != NULL : true;
}

Test(space_work, on_a_terminal_progress_shows_and_one_ctrl_c_stops_the_build)
{
    char *t1, *cache;
    write_wide_inputs(&t1, &cache);
    char *db = cli_path(scratch, "results.db");
    /* The default work limit: without Ctrl-C this would take a minute. The
     * arguments are made before the fork, since the child only execs. */
    char *argv[] = {(char *)cli_exe(), "run", "--replay", cache, "--space", t1, "--db", db, NULL};
    int master = -1;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    terminal_output *o = calloc(1, sizeof *o);
    cr_assert_not_null(o);
    bool shown = read_terminal(master, o, "building the search space", 120);
    if (!shown) kill(pid, SIGKILL);
    cr_assert(shown, "no progress on the terminal while building the space:\n%s", o->text);
    cr_assert(strstr(o->text, "combinations checked"), "%s", o->text);
    cr_assert_eq(kill(pid, SIGINT), 0);
    read_terminal(master, o, NULL, 60);
    int status = cli_wait(pid, 60);
    cr_assert_eq(status, 130, "one Ctrl-C while building the space: %s, expected exit status "
                 "130\n%s", cli_status_text(status), o->text);
    cr_assert(strstr(o->text, "stopped after"), "%s", o->text);
    cr_assert_not(cli_file_exists(db), "the interrupted run created %s", db);
    close(master);
    free(o);
    free(t1);
    free(cache);
    free(db);
}

Test(space_work, help_documents_the_limit_and_its_default)
{
    char expected[64];
    snprintf(expected, sizeof expected, "default %llu",
             (unsigned long long)SPACE_DEFAULT_WORK_LIMIT);
    const char *const *commands[] = {CLI_ARGS("run", "--help"),
                                     CLI_ARGS("bench-strategies", "--help"),
                                     CLI_ARGS("campaign", "--help")};
    for (size_t k = 0; k < 3; k++) {
        cli_result r = cli_run(commands[k]);
        cr_assert_eq(r.status, 0);
        cr_assert(strstr(r.out, "--space-work-limit N") && strstr(r.out, expected),
                  "skytune %s --help does not document the limit and \"%s\":\n%s",
                  commands[k][0], expected, r.out);
        cli_result_free(&r);
    }
}

/* A device run narrowed by a T1 file and --restrict at once: the T1's
 * values and conditions and the restriction all apply before the plugin's
 * space is enumerated. */
Test(space_work, device_run_narrowed_by_a_t1_file_and_a_restriction)
{
    char *t1 = cli_path(scratch, "narrow.t1.json");
    static const char text[] =
        "{\"ConfigurationSpace\": {\"TuningParameters\": ["
        "{\"Name\": \"wg_size\", \"Type\": \"int\", \"Values\": [32, 64, 128, 256]},"
        "{\"Name\": \"per_item\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\"}],"
        " \"Conditions\": [\"wg_size * per_item <= 256\"]}}";
    cli_write_file(t1, text, sizeof text - 1);
    char *db = cli_path(scratch, "narrowed.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", "vector_add", "--plugin-dir",
                                    cli_plugin_dir(), "--preset", "small", "--space", t1,
                                    "--restrict", "per_item != 2", "--strategy", "exhaustive",
                                    "--runs", "1", "--db", db));
    cr_assert_eq(r.status, 0, "%s\n%s\n%s", cli_status_text(r.status), r.out, r.err);
    /* wg_size x per_item in {32, 64, 128, 256} x {1, 4} with a product of
     * at most 256: six. */
    cr_assert(strstr(r.out, "over 6 valid configurations"), "%s", r.out);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM evaluations"), 6);
    cr_assert_eq(cli_db_int(db, "SELECT COUNT(*) FROM configurations WHERE text LIKE "
                                "'%%per_item=2%%' OR text LIKE '%%wg_size=16,%%'"),
                 0);
    cli_result_free(&r);
    free(db);
    free(t1);
}
