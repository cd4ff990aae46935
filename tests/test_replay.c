/* Replay: the shared convolution datasets (six Kernel Tuner caches, two T4
 * results files, the T1 space) loaded and replayed, a skytune database
 * replayed, and malformed input refused with clear messages.
 *
 * Expected numbers were computed once from the files with Python's json
 * module (counts, minimum times) and a brute force over the T1 space with
 * Python's own evaluation of the conditions; the files are fixed. */
#include <criterion/criterion.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "clock.h"
#include "measurement.h"
#include "replay_evaluator.h"
#include "replay_fixtures.h"
#include "replay_load.h"
#include "replay_recorded.h"
#include "space.h"
#include "store.h"
#include "strategy.h"
#include "t1.h"

TestSuite(replay, .init = replay_make_tmp_dir, .fini = replay_remove_tmp_dir);

static const char *const convolution_params[] = {
    "block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only",
    "use_padding",  "use_shmem",    "use_cmem",    "filter_height", "filter_width",
};
#define N_CONVOLUTION_PARAMS (sizeof convolution_params / sizeof convolution_params[0])

/* Every dataset holds all 4362 configurations of the T1 space. */
#define CONVOLUTION_ENTRIES 4362
#define CONVOLUTION_CARTESIAN 10240

/* The A100's fastest configuration and its time (ms). */
#define A100_BEST_MS 0.5536000076681376
#define A100_BEST_TEXT                                                                            \
    "block_size_x=32,block_size_y=4,tile_size_x=1,tile_size_y=3,read_only=1,use_padding=0,"      \
    "use_shmem=1,use_cmem=1,filter_height=15,filter_width=15"

typedef struct expected_dataset {
    const char *file;
    const char *name;
    replay_format format;
    size_t ok, compile, launch;
    double best_ms;         /* minimum over the numeric times */
} expected_dataset;

static void assert_close(double actual, double expected, const char *what)
{
    cr_assert(fabs(actual - expected) <= 1e-12 * fabs(expected), "%s: %.17g, expected %.17g", what,
              actual, expected);
}

static void check_dataset(const expected_dataset *x)
{
    replay_dataset *d = load_dataset(shared_dataset(x->file));
    cr_assert_str_eq(d->name, x->name);
    cr_assert_eq(d->format, x->format);
    cr_assert_eq(d->n_params, N_CONVOLUTION_PARAMS);
    for (size_t k = 0; k < N_CONVOLUTION_PARAMS; k++) {
        cr_assert_str_eq(d->params[k].name, convolution_params[k]);
        cr_assert_eq(d->params[k].type, SKYTUNE_INT, "%s", d->params[k].name);
    }
    cr_assert_eq(d->params[0].count, 16);
    cr_assert_eq(d->params[0].values[0].i, 16);
    cr_assert_eq(d->params[0].values[15].i, 256);
    cr_assert_eq(d->n_entries, CONVOLUTION_ENTRIES);
    size_t by_status[MEAS_STATUS_COUNT] = {0};
    double best = INFINITY;
    for (size_t e = 0; e < d->n_entries; e++) {
        const replay_entry *entry = &d->entries[e];
        by_status[entry->status]++;
        if (entry->status == MEAS_OK && entry->time_ns < best) best = entry->time_ns;
        if (entry->status != MEAS_OK) cr_assert_eq(entry->time_ns, 0.0);
    }
    cr_assert_eq(by_status[MEAS_OK], x->ok, "%s: %zu ok", x->file, by_status[MEAS_OK]);
    cr_assert_eq(by_status[MEAS_COMPILE], x->compile, "%s: %zu compile", x->file,
                 by_status[MEAS_COMPILE]);
    cr_assert_eq(by_status[MEAS_LAUNCH], x->launch, "%s: %zu launch", x->file,
                 by_status[MEAS_LAUNCH]);
    assert_close(best, x->best_ms * 1e6, x->file);
    replay_free(d);
}

/* ------------------------------------------------------------ Kernel Tuner caches */

Test(replay, kernel_tuner_cache_a100)
{
    check_dataset(&(expected_dataset){"A100.cache.json.gz", "A100", REPLAY_KERNEL_TUNER, 4201, 6,
                                      155, A100_BEST_MS});
}

Test(replay, kernel_tuner_cache_a4000)
{
    check_dataset(&(expected_dataset){"A4000.cache.json.gz", "A4000", REPLAY_KERNEL_TUNER, 4201,
                                      6, 155, 1.021171996369958});
}

Test(replay, kernel_tuner_cache_a6000)
{
    check_dataset(&(expected_dataset){"A6000.cache.json.gz", "A6000", REPLAY_KERNEL_TUNER, 3889,
                                      252, 221, 0.6030377962291835});
}

Test(replay, kernel_tuner_cache_mi250x)
{
    check_dataset(&(expected_dataset){"MI250X.cache.json.gz", "MI250X", REPLAY_KERNEL_TUNER, 4362,
                                      0, 0, 0.6587962452322245});
}

Test(replay, kernel_tuner_cache_w6600)
{
    check_dataset(&(expected_dataset){"W6600.cache.json.gz", "W6600", REPLAY_KERNEL_TUNER, 4362,
                                      0, 0, 1.7276193872094154});
}

Test(replay, kernel_tuner_cache_w7800)
{
    check_dataset(&(expected_dataset){"W7800.cache.json.gz", "W7800", REPLAY_KERNEL_TUNER, 4246,
                                      116, 0, 0.8161421902477741});
}

Test(replay, kernel_tuner_entries_keep_status_and_phases)
{
    replay_dataset *d = load_dataset(shared_dataset("A100.cache.json.gz"));
    const replay_entry *ok = find_entry(d, "16,1,1,1,0,0,0,1,15,15");
    cr_assert_not_null(ok);
    cr_assert_eq(ok->status, MEAS_OK);
    assert_close(ok->time_ns, 3.8753279224038124e6, "time");
    assert_close(ok->compile_s, 0.9185990339610726, "compile_s");
    assert_close(ok->bench_s, 0.1263829180970788, "bench_s");

    const replay_entry *compile = find_entry(d, "80,8,3,4,0,1,1,1,15,15");
    cr_assert_not_null(compile);
    cr_assert_eq(compile->status, MEAS_COMPILE, "CompilationFailedConfig is a compile failure");
    assert_close(compile->compile_s, 7.281776526011527, "compile_s of a failure");

    const replay_entry *runtime = find_entry(d, "32,16,2,4,1,0,0,1,15,15");
    cr_assert_not_null(runtime);
    cr_assert_eq(runtime->status, MEAS_LAUNCH, "RuntimeFailedConfig is a launch failure");
    replay_free(d);
}

/* ------------------------------------------------------------ T4 */

Test(replay, t4_results_a100)
{
    check_dataset(&(expected_dataset){"A100.t4.json.gz", "A100", REPLAY_T4, 4201, 6, 155,
                                      A100_BEST_MS});
}

Test(replay, t4_results_mi250x)
{
    check_dataset(&(expected_dataset){"MI250X.t4.json.gz", "MI250X", REPLAY_T4, 4362, 0, 0,
                                      0.6587962452322245});
}

Test(replay, t4_entry_times)
{
    replay_dataset *d = load_dataset(shared_dataset("A100.t4.json.gz"));
    const replay_entry *ok = find_entry(d, "16,1,1,1,0,0,0,1,15,15");
    cr_assert_not_null(ok);
    assert_close(ok->time_ns, 3.8753279224038124e6, "time");
    assert_close(ok->compile_s, 0.9185990339610726, "compile_s");
    cr_assert(ok->bench_s > 0.12 && ok->bench_s < 0.13, "bench_s %g: the 32 runtimes", ok->bench_s);
    const replay_entry *compile = find_entry(d, "80,8,3,4,0,1,1,1,15,15");
    cr_assert_not_null(compile);
    cr_assert_eq(compile->status, MEAS_COMPILE);
    replay_free(d);
}

/* The same measurements in both formats replay the same. */
Test(replay, a100_cache_and_t4_agree)
{
    replay_dataset *cache = load_dataset(shared_dataset("A100.cache.json.gz"));
    replay_dataset *t4 = load_dataset(shared_dataset("A100.t4.json.gz"));
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_dataset_space(cache, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(sp), CONVOLUTION_CARTESIAN);
    replay_evaluator *from_cache = NULL, *from_t4 = NULL;
    cr_assert_eq(replay_evaluator_new(cache, sp, &from_cache, &err), 0, "%s", err.message);
    cr_assert_eq(replay_evaluator_new(t4, sp, &from_t4, &err), 0, "%s", err.message);
    double best_cache = 0, best_t4 = 0;
    cr_assert(replay_optimum(from_cache, &best_cache));
    cr_assert(replay_optimum(from_t4, &best_t4));
    assert_close(best_cache, A100_BEST_MS * 1e6, "cache optimum");
    assert_close(best_t4, best_cache, "T4 optimum");
    size_t finite = 0;
    for (uint64_t r = 0; r < space_count(sp); r++) {
        double a = replay_objective(from_cache, r), b = replay_objective(from_t4, r);
        if (isinf(a)) {
            cr_assert(isinf(b), "rank %llu", (unsigned long long)r);
            continue;
        }
        finite++;
        assert_close(b, a, "objective");
    }
    cr_assert_eq(finite, 4201);
    replay_evaluator_free(from_cache);
    replay_evaluator_free(from_t4);
    space_free(sp);
    replay_free(cache);
    replay_free(t4);
}

/* ------------------------------------------------------------ T1 */

static space *load_t1(const char *path)
{
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_eq(t1_load_space(path, 0, NULL, &sp, &err), 0, "%s", err.message);
    cr_assert_not_null(sp);
    return sp;
}

Test(replay, t1_space_of_the_convolution)
{
    space *sp = load_t1(shared_dataset("space.t1.json"));
    cr_assert_eq(space_param_count(sp), N_CONVOLUTION_PARAMS);
    for (size_t k = 0; k < N_CONVOLUTION_PARAMS; k++)
        cr_assert_str_eq(space_param(sp, k)->name, convolution_params[k]);
    cr_assert_eq(space_param(sp, 0)->count, 16);
    cr_assert_eq(space_param(sp, 0)->values[15].i, 256);
    /* Python: itertools.product over the Values, eval() of every condition. */
    cr_assert_eq(space_count(sp), 4362, "%llu", (unsigned long long)space_count(sp));
    cr_assert_eq(space_cartesian_count(sp), CONVOLUTION_CARTESIAN);
    space_free(sp);
}

/* An exhaustive campaign over the T1 space replayed from the A100 cache
 * meets every configuration, finds the known optimum, and sees the recorded
 * failures as failures. */
Test(replay, exhaustive_walk_over_t1_space_finds_the_optimum)
{
    space *sp = load_t1(shared_dataset("space.t1.json"));
    replay_dataset *d = load_dataset(shared_dataset("A100.cache.json.gz"));
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_evaluator_new(d, sp, &re, &err), 0, "%s", err.message);
    evaluator ev = replay_evaluator_as_evaluator(re);

    history *h = history_new();
    cr_assert_not_null(h);
    strategy *st = NULL;
    strategy_setup setup = {.space = sp, .history = h, .seed = 1};
    cr_assert_eq(strategy_create("exhaustive", &setup, NULL, 0, &st, &err), 0, "%s", err.message);
    uint16_t idx[N_CONVOLUTION_PARAMS];
    size_t by_status[MEAS_STATUS_COUNT] = {0};
    uint64_t rank, best_rank = 0, evaluated = 0;
    double best = INFINITY;
    while (strategy_ask(st, &rank) == STRATEGY_PROPOSE) {
        space_unrank(sp, rank, idx);
        measurement m;
        measurement_init(&m);
        cr_assert_eq(ev.evaluate(ev.ctx, idx, &m, &err), 0, "%s", err.message);
        cr_assert(m.replayed);
        double objective = measurement_objective(&m);
        by_status[m.status]++;
        if (m.status == MEAS_OK) {
            cr_assert_eq(m.n_samples, 1);
            cr_assert_eq(m.median_ns, m.min_ns);
            cr_assert_eq(m.median_ns, replay_objective(re, rank));
        } else {
            cr_assert(isinf(objective));
            cr_assert_not_null(m.message);
            cr_assert_str_neq(m.message, "not in the dataset", "rank %llu is in the dataset",
                              (unsigned long long)rank);
        }
        if (objective < best) {
            best = objective;
            best_rank = rank;
        }
        cr_assert_eq(history_add(h, rank, objective), 0);
        strategy_tell(st, rank, objective);
        measurement_clear(&m);
        evaluated++;
    }
    cr_assert_eq(evaluated, 4362);
    cr_assert_eq(by_status[MEAS_OK], 4201);
    cr_assert_eq(by_status[MEAS_COMPILE], 6);
    cr_assert_eq(by_status[MEAS_LAUNCH], 155);
    double optimum = 0;
    cr_assert(replay_optimum(re, &optimum));
    assert_close(best, A100_BEST_MS * 1e6, "best found");
    cr_assert_eq(best, optimum);
    char text[512];
    space_unrank(sp, best_rank, idx);
    space_config_text(sp, idx, text, sizeof text);
    cr_assert_str_eq(text, A100_BEST_TEXT);

    strategy_free(st);
    history_free(h);
    replay_evaluator_free(re);
    replay_free(d);
    space_free(sp);
}

/* The dataset's own space is every combination of its values; the ones the
 * dataset does not hold are failed evaluations. */
Test(replay, configuration_absent_from_the_dataset_fails)
{
    replay_dataset *d = load_dataset(shared_dataset("A100.cache.json.gz"));
    space *sp = NULL;
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_dataset_space(d, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(replay_evaluator_new(d, sp, &re, &err), 0, "%s", err.message);
    uint16_t idx[N_CONVOLUTION_PARAMS];
    /* 256 x 16 threads: more than a block may hold, so never measured. */
    cr_assert_eq(space_parse_config(sp,
                                    "block_size_x=256,block_size_y=16,tile_size_x=1,tile_size_y=1,"
                                    "read_only=0,use_padding=0,use_shmem=0,use_cmem=1,"
                                    "filter_height=15,filter_width=15",
                                    idx, &err),
                 0, "%s", err.message);
    evaluator ev = replay_evaluator_as_evaluator(re);
    measurement m;
    measurement_init(&m);
    cr_assert_eq(ev.evaluate(ev.ctx, idx, &m, &err), 0, "%s", err.message);
    cr_assert_eq(m.status, MEAS_LAUNCH);
    cr_assert(m.replayed);
    cr_assert_str_eq(m.message, "not in the dataset");
    cr_assert(isinf(measurement_objective(&m)));
    uint64_t rank;
    cr_assert_eq(space_rank(sp, idx, &rank), 0);
    cr_assert(isinf(replay_objective(re, rank)));
    measurement_clear(&m);

    size_t finite = 0;
    for (uint64_t r = 0; r < space_count(sp); r++) finite += isfinite(replay_objective(re, r));
    cr_assert_eq(finite, 4201);
    replay_evaluator_free(re);
    space_free(sp);
    replay_free(d);
}

Test(replay, space_parameter_missing_from_the_dataset_is_refused)
{
    replay_dataset *d = load_dataset(shared_dataset("A100.cache.json.gz"));
    const char *path = replay_tmp_path("extra.t1.json");
    replay_write_text(path, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                            "{\"Name\": \"block_size_x\", \"Type\": \"int\","
                            " \"Values\": \"[16, 32]\"},"
                            "{\"Name\": \"unroll\", \"Type\": \"int\", \"Values\": \"[1, 2]\"}],"
                            "\"Conditions\": []}}");
    space *sp = load_t1(path);
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    cr_assert_neq(replay_evaluator_new(d, sp, &re, &err), 0);
    cr_assert_null(re);
    cr_assert(strstr(err.message, "no parameter 'unroll'"), "%s", err.message);
    space_free(sp);
    replay_free(d);
}

/* ------------------------------------------------------------ small files */

static const char small_cache[] =
    "{\"device_name\": \"Test\", \"tune_params_keys\": [\"wg\", \"mode\", \"scale\"],\n"
    "\"tune_params\": {\"wg\": [16, 32], \"mode\": [\"naive\", \"tiled\"], \"scale\": [0.5, 1]},\n"
    "\"objective\": \"time\",\n"
    "\"cache\": {\n"
    "\"16,naive,0.5\": {\"wg\": 16, \"mode\": \"naive\", \"scale\": 0.5, \"time\": 1.5,"
    " \"compile_time\": 200, \"benchmark_time\": 30},\n"
    "\"32,naive,0.5\": {\"wg\": 32, \"mode\": \"naive\", \"scale\": 0.5,"
    " \"time\": \"InvalidConfig\"},\n"
    "\"16,tiled,1\": {\"time\": 0.75},\n"
    "\"32,tiled,1\": {\"wg\": 32, \"mode\": \"tiled\", \"scale\": 1,"
    " \"time\": \"CompilationFailedConfig\"},";

Test(replay, small_kernel_tuner_cache_types_and_units)
{
    const char *path = replay_tmp_path("small.cache.json");
    char text[sizeof small_cache + 8];
    /* Drop the trailing comma and close it as Kernel Tuner does at the end. */
    snprintf(text, sizeof text, "%.*s\n}\n}", (int)(sizeof small_cache - 2), small_cache);
    replay_write_text(path, text);
    replay_dataset *d = load_dataset(path);
    cr_assert_str_eq(d->name, "small");
    cr_assert_eq(d->n_params, 3);
    cr_assert_eq(d->params[0].type, SKYTUNE_INT);
    cr_assert_eq(d->params[1].type, SKYTUNE_STRING);
    cr_assert_eq(d->params[2].type, SKYTUNE_FLOAT, "a real among the values makes a float");
    cr_assert_eq(d->n_entries, 4);
    const replay_entry *first = find_entry(d, "16,naive,0.5");
    cr_assert_not_null(first);
    cr_assert_eq(first->status, MEAS_OK);
    assert_close(first->time_ns, 1.5e6, "ms to ns");
    assert_close(first->compile_s, 0.2, "compile ms to s");
    assert_close(first->bench_s, 0.03, "benchmark ms to s");
    const replay_entry *invalid = find_entry(d, "32,naive,0.5");
    cr_assert_not_null(invalid);
    cr_assert_eq(invalid->status, MEAS_LAUNCH, "InvalidConfig replays as a failed launch");
    const replay_entry *from_key = find_entry(d, "16,tiled,1");
    cr_assert_not_null(from_key, "values read from the key when the entry does not name them");
    assert_close(from_key->time_ns, 0.75e6, "time");
    cr_assert_eq(find_entry(d, "32,tiled,1")->status, MEAS_COMPILE);
    replay_free(d);
}

/* A killed Kernel Tuner run leaves its cache without the closing braces;
 * Kernel Tuner reads it anyway, and so does replay. */
Test(replay, unterminated_kernel_tuner_cache)
{
    const char *path = replay_tmp_path("killed.cache.json");
    replay_write_text(path, small_cache);
    replay_dataset *d = load_dataset(path);
    cr_assert_eq(d->format, REPLAY_KERNEL_TUNER);
    cr_assert_eq(d->n_entries, 4);
    replay_free(d);
}

Test(replay, small_t4_results)
{
    const char *path = replay_tmp_path("small.t4.json");
    replay_write_text(path,
        "{\"schema_version\": \"1.0.0\", \"metadata\": {\"timeunit\": \"microseconds\"},\n"
        "\"results\": [\n"
        "{\"configuration\": {\"wg\": 64, \"mode\": \"tiled\"}, \"invalidity\": \"correct\","
        " \"correctness\": 1, \"times\": {\"compilation\": 1000, \"runtimes\": [10, 12, 11]},"
        " \"measurements\": [{\"name\": \"time\", \"value\": 11, \"unit\": \"\"}],"
        " \"objectives\": [\"time\"]},\n"
        "{\"configuration\": {\"wg\": 16, \"mode\": \"naive\"}, \"invalidity\": \"correct\","
        " \"correctness\": 1, \"times\": {\"runtimes\": [7, 9, 8]}, \"measurements\": [],"
        " \"objectives\": [\"time\"]},\n"
        "{\"configuration\": {\"wg\": 32, \"mode\": \"naive\"}, \"invalidity\": \"timeout\","
        " \"correctness\": 0, \"times\": {}},\n"
        "{\"configuration\": {\"wg\": 4096, \"mode\": \"naive\"}, \"invalidity\": \"constraints\","
        " \"correctness\": 0, \"times\": {}}\n"
        "]}");
    replay_dataset *d = load_dataset(path);
    cr_assert_eq(d->format, REPLAY_T4);
    cr_assert_eq(d->n_entries, 3, "a result that breaks the constraints is not in the space");
    cr_assert_str_eq(d->params[0].name, "wg");
    cr_assert_eq(d->params[0].count, 3);
    cr_assert_eq(d->params[0].values[0].i, 16, "numbers in ascending order");
    cr_assert_eq(d->params[0].values[2].i, 64);
    cr_assert_str_eq(d->params[1].values[0].s, "tiled", "strings in order of appearance");
    const replay_entry *timed = find_entry(d, "64,tiled");
    assert_close(timed->time_ns, 11e3, "us to ns");
    assert_close(timed->compile_s, 1e-3, "compile");
    assert_close(timed->bench_s, 33e-6, "runs");
    assert_close(find_entry(d, "16,naive")->time_ns, 8e3, "median of the runtimes");
    cr_assert_eq(find_entry(d, "32,naive")->status, MEAS_TIMEOUT);
    replay_free(d);
}

Test(replay, t1_values_in_every_form)
{
    const char *path = replay_tmp_path("forms.t1.json");
    replay_write_text(path,
        "{\"ConfigurationSpace\": {\"TuningParameters\": [\n"
        "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [1, 2, 4]},\n"
        "{\"Name\": \"b\", \"Type\": \"float\", \"Values\": \"[0.5, 1.0, 2e-1]\"},\n"
        "{\"Name\": \"c\", \"Type\": \"string\", \"Values\": \"['x', \\\"y z\\\".strip()]\"}\n"
        "], \"Conditions\": []}}");
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0, "a Python expression is not a literal");
    cr_assert(strstr(err.message, "tuning parameter 'c'") && strstr(err.message, "column"),
              "%s", err.message);

    replay_write_text(path,
        "{\"ConfigurationSpace\": {\"TuningParameters\": [\n"
        "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [1, 2, 4]},\n"
        "{\"Name\": \"b\", \"Type\": \"float\", \"Values\": \"[0.5, 1.0, 2e-1]\"},\n"
        "{\"Name\": \"c\", \"Type\": \"string\", \"Values\": \"['x', \\\"y\\\", 'z',]\"},\n"
        "{\"Name\": \"d\", \"Type\": \"bool\", \"Values\": \"[True, False]\"},\n"
        "{\"Name\": \"e\", \"Values\": \"[-3, 7]\"}\n"
        "], \"Conditions\": [\"a * b >= 1\", {\"Expression\": \"c != 'z' or d\"}]}}");
    sp = load_t1(path);
    cr_assert_eq(space_param_count(sp), 5);
    cr_assert_eq(space_param(sp, 1)->type, SKYTUNE_FLOAT);
    cr_assert_eq(space_param(sp, 1)->values[2].f, 0.2);
    cr_assert_str_eq(space_param(sp, 2)->values[1].s, "y");
    cr_assert_eq(space_param(sp, 3)->type, SKYTUNE_INT, "booleans index as integers");
    cr_assert_eq(space_param(sp, 3)->values[0].i, 1);
    cr_assert_eq(space_param(sp, 4)->values[0].i, -3);
    /* a*b >= 1: (1,1) (2,0.5) (2,1) (4,0.5) (4,1) = 5 pairs; c,d: 3*2 - ('z',False) = 5;
     * e: 2. */
    cr_assert_eq(space_count(sp), 5 * 5 * 2, "%llu", (unsigned long long)space_count(sp));
    space_free(sp);
}

Test(replay, t1_file_gzipped)
{
    const char *path = replay_tmp_path("space.t1.json.gz");
    gzFile gz = gzopen(path, "wb");
    cr_assert_not_null(gz);
    const char *text = "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                       "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"[1, 2, 3]\"}],"
                       "\"Conditions\": [\"a != 2\"]}}";
    cr_assert_eq(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
    cr_assert_eq(gzclose(gz), Z_OK);
    space *sp = load_t1(path);
    cr_assert_eq(space_count(sp), 2);
    space_free(sp);
}

/* ------------------------------------------------------------ skytune databases */

static skytune_device_info test_device(void)
{
    skytune_device_info d = {0};
    snprintf(d.platform, sizeof d.platform, "Test Platform");
    snprintf(d.name, sizeof d.name, "Test GPU 9000");
    snprintf(d.vendor, sizeof d.vendor, "Test Vendor");
    snprintf(d.driver_version, sizeof d.driver_version, "1.0");
    snprintf(d.opencl_version, sizeof d.opencl_version, "OpenCL 3.0");
    d.is_gpu = 1;
    d.compute_units = 64;
    d.max_clock_mhz = 1500;
    d.global_mem_size = INT64_C(8589934592);
    d.local_mem_size = 65536;
    d.max_constant_size = 65536;
    d.max_mem_alloc_size = INT64_C(2147483648);
    d.max_work_group_size = 1024;
    d.max_work_item_sizes[0] = 1024;
    d.max_work_item_sizes[1] = 1024;
    d.max_work_item_sizes[2] = 64;
    return d;
}

static const char *const db_param_names[] = {"wg", "mode", "scale"};

typedef struct db_row {
    const char *wg, *mode, *scale;
    measurement_status status;
    double samples[3];
    size_t n_samples;
} db_row;

/* One campaign with the rows measured in order; returns its id. */
static int64_t record_campaign(store *st, uint64_t seed, const db_row *rows, size_t n_rows)
{
    skytune_error err = {0};
    skytune_device_info dev = test_device();
    int64_t device_id, plugin_id, problem_id, campaign_id;
    bool resumed = false;
    cr_assert_eq(store_device_id(st, &dev, &device_id, &err), 0, "%s", err.message);
    cr_assert_eq(store_plugin_id(st, "conv", "1.0", "abc",
                                 &(store_param_names){.tuning = db_param_names, .n_tuning = 3},
                                 &plugin_id, &err), 0,
                 "%s", err.message);
    cr_assert_eq(store_problem_id(st, plugin_id, "n=1024", &problem_id, &err), 0, "%s",
                 err.message);
    store_campaign_spec spec = {.plugin_id = plugin_id, .device_id = device_id,
                                .problem_id = problem_id, .strategy = "random",
                                .settings = "runs=3", .seed = seed};
    cr_assert_eq(store_campaign_open(st, &spec, &campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    for (size_t k = 0; k < n_rows; k++) {
        char text[256];
        snprintf(text, sizeof text, "wg=%s,mode=%s,scale=%s", rows[k].wg, rows[k].mode,
                 rows[k].scale);
        const char *values[] = {rows[k].wg, rows[k].mode, rows[k].scale};
        measurement m;
        measurement_init(&m);
        m.status = rows[k].status;
        m.build_s = 0.25;
        m.bench_s = 0.5;
        if (rows[k].n_samples)
            cr_assert_eq(measurement_set_samples(&m, rows[k].samples, rows[k].n_samples), 0);
        else
            cr_assert_eq(measurement_set_message(&m, "build log"), 0);
        cr_assert_eq(store_record_measurement(st, campaign_id, (int64_t)k, text,
                                              space_text_hash(text), db_param_names, values, 3, &m,
                                              NULL, &err),
                     0, "%s", err.message);
        measurement_clear(&m);
    }
    cr_assert_eq(store_campaign_close(st, campaign_id, "done", &err), 0, "%s", err.message);
    return campaign_id;
}

static const db_row first_campaign[] = {
    {"16", "naive", "0.5", MEAS_OK, {100, 120, 110}, 3},
    {"32", "naive", "0.5", MEAS_OK, {90, 95}, 2},
    {"64", "tiled", "1.5", MEAS_COMPILE, {0}, 0},
    {"32", "tiled", "1.5", MEAS_OK, {80}, 1},
};

Test(replay, skytune_database_campaign)
{
    const char *path = replay_tmp_path("results.db");
    store *st = NULL;
    skytune_error err = {0};
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    int64_t campaign = record_campaign(st, 1, first_campaign, 4);
    store_close(st);
    size_t files = replay_tmp_file_count();
    size_t before_len = 0;
    unsigned char *before = replay_read_bytes(path, &before_len);

    replay_dataset *d = load_dataset(path);
    cr_assert_eq(d->format, REPLAY_SKYTUNE);
    cr_assert_str_eq(d->name, "Test GPU 9000");
    cr_assert_eq(d->n_params, 3);
    cr_assert_str_eq(d->params[0].name, "wg");
    cr_assert_eq(d->params[0].type, SKYTUNE_INT);
    cr_assert_eq(d->params[0].count, 3);
    cr_assert_eq(d->params[1].type, SKYTUNE_STRING);
    cr_assert_eq(d->params[2].type, SKYTUNE_FLOAT);
    cr_assert_eq(d->n_entries, 4);
    const replay_entry *median = find_entry(d, "16,naive,0.5");
    cr_assert_not_null(median);
    assert_close(median->time_ns, 110, "the recorded median");
    assert_close(median->compile_s, 0.25, "build_s");
    assert_close(median->bench_s, 0.5, "bench_s");
    cr_assert_eq(find_entry(d, "64,tiled,1.5")->status, MEAS_COMPILE);

    space *sp = NULL;
    replay_evaluator *re = NULL;
    cr_assert_eq(replay_dataset_space(d, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(space_count(sp), 3 * 2 * 2);
    cr_assert_eq(replay_evaluator_new(d, sp, &re, &err), 0, "%s", err.message);
    double best = 0;
    cr_assert(replay_optimum(re, &best));
    assert_close(best, 80, "optimum");
    replay_evaluator_free(re);
    space_free(sp);
    replay_free(d);

    char with_id[600];
    snprintf(with_id, sizeof with_id, "%s:%lld", path, (long long)campaign);
    d = load_dataset(with_id);
    cr_assert_eq(d->n_entries, 4);
    replay_free(d);
    snprintf(with_id, sizeof with_id, "%s:7", path);
    d = NULL;
    cr_assert_neq(replay_load(with_id, 0, &d, &err), 0);
    cr_assert_null(d);
    cr_assert(strstr(err.message, "no campaign 7") && strstr(err.message, "1 (conv on Test GPU"),
              "%s", err.message);

    /* Replaying only reads: the file is as it was, and nothing was left beside it. */
    size_t after_len = 0;
    unsigned char *after = replay_read_bytes(path, &after_len);
    cr_assert_eq(after_len, before_len);
    cr_assert_eq(memcmp(before, after, before_len), 0, "replay changed the database");
    cr_assert_eq(replay_tmp_file_count(), files, "replay left files beside the database");
    free(before);
    free(after);
}

/* The recorded space holds the four configurations the campaign measured
 * (the failed one included), not the twelve combinations of their values;
 * each of them is what a strategy can be offered, and each replays as
 * recorded. */
Test(replay, recorded_space_of_a_database_is_its_configurations)
{
    const char *path = replay_tmp_path("recorded.db");
    store *st = NULL;
    skytune_error err = {0};
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    record_campaign(st, 1, first_campaign, 4);
    store_close(st);

    replay_dataset *d = load_dataset(path);
    space *definition = NULL, *sp = NULL;
    cr_assert_eq(replay_recorded_definition(d, &definition, &err), 0, "%s", err.message);
    cr_assert(space_is_definition(definition));
    cr_assert_eq(space_from_definition(definition, NULL, &sp, &err), 0, "%s", err.message);
    space_free(definition);
    cr_assert_eq(space_count(sp), 4);
    replay_evaluator *re = NULL;
    cr_assert_eq(replay_evaluator_new(d, sp, &re, &err), 0, "%s", err.message);
    size_t n = space_param_count(sp), failed = 0;
    uint16_t idx[3];
    char text[256];
    for (uint64_t r = 0; r < space_count(sp); r++) {
        space_unrank(sp, r, idx);
        space_config_text(sp, idx, text, sizeof text);
        double t = replay_objective(re, r);
        if (isinf(t)) {
            failed++;
            cr_assert_str_eq(text, "wg=64,mode=tiled,scale=1.5", "only the compile failure fails");
        }
    }
    cr_assert_eq(n, 3);
    cr_assert_eq(failed, 1);
    /* Combinations the campaign never measured are not in the space. */
    idx[0] = 0; /* wg=16 */
    idx[1] = 1; /* mode=tiled */
    idx[2] = 1; /* scale=1.5 */
    cr_assert_not(space_is_valid(sp, idx));
    replay_evaluator_free(re);
    space_free(sp);
    replay_free(d);
}

Test(replay, skytune_database_with_two_campaigns_needs_an_id)
{
    const char *path = replay_tmp_path("two.db");
    store *st = NULL;
    skytune_error err = {0};
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    record_campaign(st, 1, first_campaign, 2);
    int64_t second = record_campaign(st, 2, first_campaign + 2, 2);
    store_close(st);

    replay_dataset *d = NULL;
    cr_assert_neq(replay_load(path, 0, &d, &err), 0);
    cr_assert(strstr(err.message, "holds 2 campaigns") && strstr(err.message, ":ID") &&
              strstr(err.message, "2 (conv on Test GPU 9000, random)"), "%s", err.message);
    char with_id[600];
    snprintf(with_id, sizeof with_id, "%s:%lld", path, (long long)second);
    d = load_dataset(with_id);
    cr_assert_eq(d->n_entries, 2);
    cr_assert_eq(d->entries[0].status, MEAS_COMPILE, "in evaluation order");
    replay_free(d);
}

Test(replay, sqlite_database_of_another_application)
{
    const char *path = replay_tmp_path("other.db");
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(
        sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_neq(replay_load(path, 0, &d, &err), 0);
    cr_assert(strstr(err.message, "not a skytune result database"), "%s", err.message);
}

/* ------------------------------------------------------------ malformed input */

/* Loading `path` fails with a message that names it and contains `needle`,
 * and leaves the folder as it was. */
static void assert_load_fails(const char *path, const char *needle)
{
    size_t files = replay_tmp_file_count();
    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_neq(replay_load(path, 0, &d, &err), 0, "%s loaded", path);
    cr_assert_null(d);
    cr_assert(strncmp(err.message, path, strlen(path)) == 0, "message does not name the file: %s",
              err.message);
    cr_assert(strstr(err.message, needle), "expected \"%s\" in: %s", needle, err.message);
    cr_assert_eq(replay_tmp_file_count(), files, "a failed load created files");
}

Test(replay, truncated_gzip)
{
    size_t len = 0;
    unsigned char *data = replay_read_bytes(shared_dataset("A100.cache.json.gz"), &len);
    const char *path = replay_tmp_path("half.cache.json.gz");
    replay_write_file(path, data, len / 2);
    free(data);
    assert_load_fails(path, ": truncated or corrupt gzip data");
}

Test(replay, not_json)
{
    const char *path = replay_tmp_path("broken.json");
    replay_write_text(path, "{\"cache\": {\n  \"1\": oops\n}}");
    assert_load_fails(path, ": not JSON: ");
    replay_dataset *d = NULL;
    skytune_error err = {0};
    cr_assert_neq(replay_load(path, 0, &d, &err), 0);
    cr_assert(strstr(err.message, "line 2"), "the message gives the line: %s", err.message);
}

Test(replay, json_of_the_wrong_shape)
{
    const char *path = replay_tmp_path("shape.json");
    replay_write_text(path, "{\"results\": {\"a\": 1}, \"caches\": {}}");
    assert_load_fails(path, ": neither a Kernel Tuner cache (no \"cache\" object) nor T4 results "
                            "(no \"results\" array)");
}

Test(replay, missing_and_empty_files)
{
    assert_load_fails(replay_tmp_path("absent.json"), ": cannot open: ");
    const char *path = replay_tmp_path("empty.json");
    replay_write_text(path, "");
    assert_load_fails(path, ": not JSON: ");
}

Test(replay, kernel_tuner_entry_without_time)
{
    const char *path = replay_tmp_path("notime.json");
    replay_write_text(path, "{\"tune_params_keys\": [\"a\", \"b\"],"
                            " \"tune_params\": {\"a\": [1, 2], \"b\": [3]},"
                            " \"cache\": {\"1,3\": {\"a\": 1, \"b\": 3, \"time\": 2.0},"
                            " \"2,3\": {\"a\": 2, \"b\": 3, \"compile_time\": 5}}}");
    assert_load_fails(path, ": cache entry \"2,3\": no \"time\"");
}

Test(replay, kernel_tuner_entry_with_wrong_number_of_values)
{
    const char *path = replay_tmp_path("short.json");
    replay_write_text(path, "{\"tune_params_keys\": [\"a\", \"b\"],"
                            " \"tune_params\": {\"a\": [1, 2], \"b\": [3]},"
                            " \"cache\": {\"1\": {\"time\": 2.0}}}");
    assert_load_fails(path, ": cache entry \"1\": the key has 1 values for 2 parameters");
}

Test(replay, kernel_tuner_value_of_the_wrong_type)
{
    const char *path = replay_tmp_path("type.json");
    replay_write_text(path, "{\"tune_params_keys\": [\"a\"], \"tune_params\": {\"a\": [1, 2]},"
                            " \"cache\": {\"x\": {\"a\": \"x\", \"time\": 2.0}}}");
    assert_load_fails(path, ": cache entry \"x\": parameter 'a' is \"x\", not a int");
}

Test(replay, t4_unknown_invalidity)
{
    const char *path = replay_tmp_path("bad.t4.json");
    replay_write_text(path, "{\"results\": [{\"configuration\": {\"a\": 1}, \"times\": {},"
                            " \"invalidity\": \"exploded\", \"correctness\": 0}]}");
    assert_load_fails(path, ": result 1: unknown invalidity \"exploded\"");
}

Test(replay, t1_condition_with_an_unknown_parameter)
{
    const char *path = replay_tmp_path("unknown.t1.json");
    replay_write_text(path, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                            "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\"}],"
                            " \"Conditions\": [{\"Expression\": \"a < 4\"},"
                            " {\"Expression\": \"a * bogus > 2\", \"Parameters\": [\"a\"]}]}}");
    size_t files = replay_tmp_file_count();
    space *sp = NULL;
    skytune_error err = {0};
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0);
    cr_assert_null(sp);
    char expected[700];
    snprintf(expected, sizeof expected, "%s: condition 2: column 5: unknown name 'bogus'", path);
    cr_assert_str_eq(err.message, expected);
    cr_assert_eq(replay_tmp_file_count(), files);
}

Test(replay, t1_of_the_wrong_shape)
{
    const char *path = replay_tmp_path("shape.t1.json");
    space *sp = NULL;
    skytune_error err = {0};
    replay_write_text(path, "{\"General\": {}}");
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0);
    cr_assert(strstr(err.message, "no \"ConfigurationSpace\" object"), "%s", err.message);
    replay_write_text(path, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                            "{\"Name\": \"a\", \"Type\": \"int\","
                            " \"Values\": \"[32 * i for i in sorted(range(1, 4))]\"}]}}");
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0);
    cr_assert(strstr(err.message, "tuning parameter 'a': Values") &&
              strstr(err.message, "column 18") && strstr(err.message, "'sorted'"),
              "%s", err.message);
    replay_write_text(path, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                            "{\"Name\": \"a\", \"Type\": \"complex\", \"Values\": [1]}]}}");
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0);
    cr_assert(strstr(err.message, "unknown Type \"complex\""), "%s", err.message);
    replay_write_text(path, "{\"ConfigurationSpace\": {\"TuningParameters\": ["
                            "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [1]},"
                            "{\"Name\": \"a\", \"Type\": \"int\", \"Values\": [2]}]}}");
    cr_assert_neq(t1_load_space(path, 0, NULL, &sp, &err), 0);
    cr_assert(strstr(err.message, "'a' is declared twice with different values"), "%s",
              err.message);
    cr_assert_eq(replay_tmp_file_count(), 1);
}

/* ------------------------------------------------------------ speed */

static double now_ns(void)
{
    return clock_monotonic_s() * 1e9;
}

/* Printed, not asserted: machines differ, and sanitizers slow everything. */
Test(replay, speed_of_a_replayed_evaluation)
{
    replay_dataset *d = load_dataset(shared_dataset("A100.cache.json.gz"));
    space *sp = NULL;
    replay_evaluator *re = NULL;
    skytune_error err = {0};
    cr_assert_eq(replay_dataset_space(d, &sp, &err), 0, "%s", err.message);
    cr_assert_eq(replay_evaluator_new(d, sp, &re, &err), 0, "%s", err.message);
    evaluator ev = replay_evaluator_as_evaluator(re);
    uint64_t count = space_count(sp);
    size_t n = space_param_count(sp);
    uint16_t *configs = malloc(count * n * sizeof *configs);
    cr_assert_not_null(configs);
    for (uint64_t r = 0; r < count; r++) space_unrank(sp, r, configs + r * n);

    const size_t calls = 1000000;
    double checksum = 0.0;
    double start = now_ns();
    for (size_t k = 0; k < calls; k++) {
        measurement m;
        cr_assert_eq(ev.evaluate(ev.ctx, configs + (k % count) * n, &m, &err), 0);
        checksum += m.median_ns;
        measurement_clear(&m);
    }
    double evaluate_ns = (now_ns() - start) / (double)calls;

    /* A whole campaign step: the random strategy proposes, the
     * configuration is unranked and replayed, the history and the strategy
     * learn the result. */
    uint16_t idx[64];
    cr_assert_leq(n, 64);
    size_t steps = 0;
    start = now_ns();
    for (uint64_t seed = 1; steps < calls; seed++) {
        history *h = history_new();
        strategy *st = NULL;
        strategy_setup setup = {.space = sp, .history = h, .seed = seed};
        cr_assert_eq(strategy_create("random", &setup, NULL, 0, &st, &err), 0, "%s", err.message);
        uint64_t rank;
        while (steps < calls && strategy_ask(st, &rank) == STRATEGY_PROPOSE) {
            space_unrank(sp, rank, idx);
            measurement m;
            cr_assert_eq(ev.evaluate(ev.ctx, idx, &m, &err), 0);
            double objective = measurement_objective(&m);
            cr_assert_eq(history_add(h, rank, objective), 0);
            strategy_tell(st, rank, objective);
            measurement_clear(&m);
            steps++;
        }
        strategy_free(st);
        history_free(h);
    }
    double step_ns = (now_ns() - start) / (double)steps;
    fprintf(stderr,
            "replay speed on a %llu-configuration space: %.0f ns per replay_evaluate "
            "(%zu calls), %.0f ns per random-strategy step with replay (%zu steps) "
            "[checksum %.3g]\n",
            (unsigned long long)count, evaluate_ns, calls, step_ns, steps, checksum);
    free(configs);
    replay_evaluator_free(re);
    space_free(sp);
    replay_free(d);
}
