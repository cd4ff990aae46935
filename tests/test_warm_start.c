/* Warm start (--warm-start) and bayes's candidates by the space's size:
 * recordings of another device become normalised ranks of the space's
 * configurations; a recording of another space is refused naming the
 * parameter that differs; a replayed campaign warm-started from another
 * device measures that device's fastest configuration first; a strategy
 * that reads no warm start refuses one; and the pool bayes scores is the
 * whole space up to its limit, a sample with local slots beyond it. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bayes_pool.h"
#include "cli_harness.h"
#include "replay_load.h"
#include "strategy.h"
#include "warm_start.h"

static char *scratch;

static void setup(void)
{
    scratch = cli_make_temp_dir();
}

static void teardown(void)
{
    cli_remove_tree(scratch);
    free(scratch);
}

TestSuite(warm_start, .init = setup, .fini = teardown);

/* A Kernel Tuner cache of a 6 x 6 x 6 space (216 configurations) whose time
 * is a bowl around (best_x, best_y, best_z), times `scale`; the parameter
 * names and the value list of x can be changed to make another space. */
static char *write_cache(const char *name, const char *x_name, const int *x_values, int best_x,
                         int best_y, int best_z, double scale)
{
    static const int yz[6] = {1, 2, 3, 4, 5, 6};
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    used += (size_t)snprintf(text + used, cap - used,
                             "{\"tune_params_keys\": [\"%s\", \"y\", \"z\"], \"tune_params\": "
                             "{\"%s\": [%d, %d, %d, %d, %d, %d], \"y\": [1, 2, 3, 4, 5, 6], "
                             "\"z\": [1, 2, 3, 4, 5, 6]}, \"cache\": {",
                             x_name, x_name, x_values[0], x_values[1], x_values[2], x_values[3],
                             x_values[4], x_values[5]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 6; k++) {
                double t = scale * (1.0 + (i - best_x) * (i - best_x) +
                                    0.5 * (j - best_y) * (j - best_y) +
                                    0.25 * (k - best_z) * (k - best_z));
                used += (size_t)snprintf(text + used, cap - used,
                                         "%s\"%d,%d,%d\": {\"%s\": %d, \"y\": %d, \"z\": %d, "
                                         "\"time\": %.6f}",
                                         i || j || k ? ", " : "", x_values[i], yz[j], yz[k],
                                         x_name, x_values[i], yz[j], yz[k], t);
            }
    used += (size_t)snprintf(text + used, cap - used, "}}");
    cr_assert_lt(used, cap);
    char *path = cli_path(scratch, name);
    cli_write_file(path, text, used);
    free(text);
    return path;
}

static const int x_values[6] = {8, 16, 32, 64, 128, 256};

static replay_dataset *load(const char *path)
{
    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_load(path, 0, &d, &err), 0, "%s", err.message);
    return d;
}

Test(warm_start, pool_follows_the_space_size)
{
    bayes_pool p = bayes_pool_size(4362, 0);
    cr_assert(p.whole_space, "the convolution space is scored whole");
    cr_assert_eq(p.pool, 4362);
    cr_assert_eq(p.local, 0, "no local slots when every configuration is a candidate");
    cr_assert_eq(p.climb, 0, "and no acquisition search: every configuration is scored");
    p = bayes_pool_size(BAYES_WHOLE_SPACE_LIMIT, 0);
    cr_assert(p.whole_space && p.pool == BAYES_WHOLE_SPACE_LIMIT, "the limit itself is whole");
    p = bayes_pool_size(100000, 0);
    cr_assert(!p.whole_space, "a space of 10^5 is sampled");
    cr_assert_eq(p.pool, BAYES_WHOLE_SPACE_LIMIT);
    cr_assert_eq(p.local, BAYES_LOCAL_SLOTS, "with the best's neighbours beside the sample");
    cr_assert_eq(p.climb, BAYES_CLIMB_SLOTS, "and room for what the acquisition search steps to");
    p = bayes_pool_size(5000, 4096);
    cr_assert(!p.whole_space && p.pool == 4096 && p.local == BAYES_LOCAL_SLOTS,
              "candidates=4096 samples a space of 5,000");
    p = bayes_pool_size(4096, 4096);
    cr_assert(p.whole_space && p.local == 0, "candidates=N scores a space of N whole");
}

Test(warm_start, ranks_not_times)
{
    char *a = write_cache("a.json", "x", x_values, 1, 2, 3, 1.0);
    char *b = write_cache("b.json", "x", x_values, 1, 2, 3, 40.0);
    replay_dataset *da = load(a), *db = load(b);
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_dataset_space(da, &sp, &err), 0, "%s", err.message);
    warm_start one = {0}, two = {0};
    const replay_dataset *only_a[] = {da}, *both[] = {da, db};
    cr_assert_eq(warm_start_build(only_a, 1, sp, &one, &err), 0, "%s", err.message);
    cr_assert_eq(warm_start_build(both, 2, sp, &two, &err), 0, "%s", err.message);
    cr_assert_eq(one.prior.count, 216, "every recorded configuration has a rank");
    cr_assert_eq(two.prior.count, 216, "a configuration both hold is one entry");
    /* A device 40 times slower in every configuration ranks them alike:
     * the positions do not move. */
    for (size_t k = 0; k < one.prior.count; k++)
        cr_assert_float_eq(one.prior.position[k], two.prior.position[k], 1e-12,
                           "rank %zu", (size_t)one.prior.ranks[k]);
    /* The fastest, (16, 3, 4), is first: position 1 / 217. */
    uint16_t idx[3] = {1, 2, 3};
    uint64_t best;
    cr_assert_eq(space_rank(sp, idx, &best), 0);
    double position;
    cr_assert(strategy_prior_lookup(&one.prior, best, &position));
    cr_assert_float_eq(position, 1.0 / 217.0, 1e-12);
    for (size_t k = 1; k < one.prior.count; k++)
        cr_assert_lt(one.prior.ranks[k - 1], one.prior.ranks[k], "sorted by rank, each once");
    warm_start_free(&one);
    warm_start_free(&two);
    space_free(sp);
    replay_free(da);
    replay_free(db);
    free(a);
    free(b);
}

Test(warm_start, refuses_a_recording_of_another_space)
{
    static const int other_values[6] = {8, 16, 32, 64, 128, 512};
    char *target = write_cache("target.json", "x", x_values, 1, 2, 3, 1.0);
    char *values = write_cache("values.json", "x", other_values, 1, 2, 3, 1.0);
    char *renamed = write_cache("renamed.json", "wg", x_values, 1, 2, 3, 1.0);
    char *db = cli_path(scratch, "refused.db");

    cli_result r = cli_run(CLI_ARGS("run", "--replay", target, "--warm-start", values, "--budget",
                                    "5", "--db", db, "--quiet"));
    cr_assert_eq(r.status, 1, "%s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.err, "parameter 'x'") && strstr(r.err, "512") &&
                  strstr(r.err, "another space"),
              "the message names the parameter and the value: %s", r.err);
    cli_result_free(&r);

    r = cli_run(CLI_ARGS("run", "--replay", target, "--warm-start", renamed, "--budget", "5",
                         "--db", db, "--quiet"));
    cr_assert_eq(r.status, 1, "%s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.err, "--warm-start") && strstr(r.err, "no parameter 'x'"),
              "the message names the missing parameter: %s", r.err);
    cli_result_free(&r);
    cr_assert(!cli_file_exists(db), "a refused run leaves no database");
    free(target);
    free(values);
    free(renamed);
    free(db);
}

Test(warm_start, replay_measures_the_recorded_best_first)
{
    /* The other device's fastest is (32, 4, 5); this one's (16, 3, 4). */
    char *target = write_cache("target.json", "x", x_values, 1, 2, 3, 1.0);
    char *other = write_cache("other.json", "x", x_values, 2, 3, 4, 7.0);
    char *db = cli_path(scratch, "warm.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", target, "--warm-start", other, "--budget",
                                    "30", "--db", db, "--quiet"));
    cr_assert_eq(r.status, 0, "%s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    char *first = cli_db_text(db, "SELECT configuration FROM results WHERE seq = 0");
    cr_assert_str_eq(first, "x=32,y=4,z=5", "the recording's fastest comes first");
    free(first);
    /* Its neighbourhood, where this device's optimum is, is found early. */
    long long found = cli_db_int(db, "SELECT min(seq) FROM results WHERE configuration = "
                                     "'x=16,y=3,z=4'");
    cr_assert_lt(found, 30, "this device's optimum within the budget (at %lld)", found);
    free(target);
    free(other);
    free(db);
}

Test(warm_start, a_strategy_without_a_model_refuses_it)
{
    char *target = write_cache("target.json", "x", x_values, 1, 2, 3, 1.0);
    char *other = write_cache("other.json", "x", x_values, 2, 3, 4, 7.0);
    char *db = cli_path(scratch, "random.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", target, "--warm-start", other,
                                    "--strategy", "random", "--budget", "5", "--db", db,
                                    "--quiet"));
    cr_assert_eq(r.status, 1, "%s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.err, "random makes no use of a warm start"), "%s", r.err);
    cli_result_free(&r);
    free(target);
    free(other);
    free(db);
}

Test(warm_start, bench_leaves_one_device_out)
{
    char *a = write_cache("devA.json", "x", x_values, 1, 2, 3, 1.0);
    char *b = write_cache("devB.json", "x", x_values, 2, 3, 4, 3.0);
    cli_result r = cli_run(CLI_ARGS("bench-strategies", "--replay", a, "--replay", b,
                                    "--strategy", "bayes", "--budget", "1", "--runs", "3",
                                    "--warm-start", "others", "--jobs", "1"));
    cr_assert_eq(r.status, 0, "%s\n%s", cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "warm start from 1 recording (216 configurations)"),
              "each dataset is warm-started from the other: %s", r.out);
    /* One evaluation: the other device's fastest, which is not this
     * one's; the same for every seed. */
    cr_assert(strstr(r.out, "bayes                 1    0.3636  0.0000  0.3636"),
              "devA's first evaluation is devB's best, (32, 4, 5), 2.75 times its optimum: %s", r.out);
    cli_result_free(&r);
    free(a);
    free(b);
}
