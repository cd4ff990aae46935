/* Recorded files that replay must refuse, end to end through `skytune run
 * --replay`: times that are not positive finite numbers in any reader
 * (Kernel Tuner cache, T4, skytune database), a gzip file that inflates
 * past the input limit, a database campaign selector that is not one, and
 * control characters in what the messages quote. Each is refused with exit
 * status 1 and a message naming the file and the entry, the message carries
 * no control character to the terminal, and the result database is as it
 * was (absent, or every byte unchanged). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <sqlite3.h>
#include <zlib.h>

#include "cli_harness.h"
#include "dataset_file.h"

/* ------------------------------------------------------------ fixtures */

static char *scratch;
static char *existing_db; /* a result database with one replayed campaign */

/* A small, valid Kernel Tuner cache: two parameters, four entries. */
static const char good_cache[] =
    "{\"tune_params_keys\": [\"wg\", \"mode\"],"
    " \"tune_params\": {\"wg\": [16, 32], \"mode\": [\"naive\", \"tiled\"]},"
    " \"cache\": {"
    "\"16,naive\": {\"wg\": 16, \"mode\": \"naive\", \"time\": 1.5},"
    "\"32,naive\": {\"wg\": 32, \"mode\": \"naive\", \"time\": 1.25},"
    "\"16,tiled\": {\"wg\": 16, \"mode\": \"tiled\", \"time\": 0.75},"
    "\"32,tiled\": {\"wg\": 32, \"mode\": \"tiled\", \"time\": \"CompilationFailedConfig\"}}}";

static char *write_text(const char *name, const char *text)
{
    char *path = cli_path(scratch, name);
    cli_write_file(path, text, strlen(text));
    return path;
}

static void setup(void)
{
    scratch = cli_make_temp_dir();
    char *cache = write_text("good.cache.json", good_cache);
    existing_db = cli_path(scratch, "existing.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", cache, "--db", existing_db, "--strategy",
                                    "exhaustive", "--quiet"));
    cr_assert_eq(r.status, 0, "making the existing database: %s\n%s", cli_status_text(r.status),
                 r.err);
    cli_result_free(&r);
    free(cache);
}

static void teardown(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    free(existing_db);
    scratch = existing_db = NULL;
}

TestSuite(replay_refusals, .init = setup, .fini = teardown, .timeout = 300);

/* No byte of the message may steer the terminal. */
static void assert_no_control_characters(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        cr_assert(*c == '\n' || (*c >= 0x20 && *c != 0x7F),
                  "control character 0x%02x at offset %zu of the message:\n%s", *c,
                  (size_t)(c - (const unsigned char *)text), text);
}

/* `skytune run --replay DATASET [extra...]` with --db FILE, where FILE does
 * not exist and where it is the existing database: exit status 1, every
 * needle on stderr, and FILE as it was. */
static void assert_replay_refused(const char *dataset, const char *const *extra,
                                  const char *const *needles)
{
    char *missing = cli_path(scratch, "never-created.db");
    const char *dbs[] = {missing, existing_db};
    for (size_t k = 0; k < 2; k++) {
        const char *args[32] = {"run", "--replay", dataset, "--db", dbs[k], "--strategy",
                                "exhaustive"};
        size_t n = 7;
        for (size_t j = 0; extra && extra[j]; j++) args[n++] = extra[j];
        args[n] = NULL;
        cli_snapshot before = cli_snapshot_take(dbs[k]);
        cli_result r = cli_run(args);
        cli_assert_refusal(&r, 1, needles, &before, dataset);
        assert_no_control_characters(r.err);
        cr_assert(!cli_wal_exists(dbs[k]), "%s was opened: its -wal file exists", dbs[k]);
        cli_snapshot_free(&before);
        cli_result_free(&r);
    }
    free(missing);
}

/* ------------------------------------------------------------ times: T4 */

/* T4 results of one correct configuration with the given "times" and
 * "measurements" members. */
static char *t4_file(const char *name, const char *times, const char *measurements)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schema_version\": \"1.0.0\", \"metadata\": {\"timeunit\": \"milliseconds\"},"
             " \"results\": ["
             "{\"configuration\": {\"wg\": 16}, \"invalidity\": \"correct\", \"correctness\": 1,"
             " \"times\": {\"runtimes\": [1.0, 1.1]}, \"measurements\": []},"
             "{\"configuration\": {\"wg\": 32}, \"invalidity\": \"correct\", \"correctness\": 1,"
             " \"times\": %s, \"measurements\": %s}]}",
             times, measurements);
    return write_text(name, text);
}

Test(replay_refusals, t4_runtimes_that_are_not_numbers)
{
    char *f = t4_file("words.t4.json", "{\"runtimes\": [\"fast\", \"slow\"]}", "[]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", "runtime 1 is \"fast\"",
                                            "positive, finite number"));
    free(f);
}

Test(replay_refusals, t4_negative_runtimes)
{
    char *f = t4_file("negative.t4.json", "{\"runtimes\": [-5, -5, -5]}", "[]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", "runtime 1 is -5"));
    free(f);
}

Test(replay_refusals, t4_runtimes_past_any_time)
{
    /* 1e308 ms is finite, but not in nanoseconds. */
    char *f = t4_file("huge.t4.json", "{\"runtimes\": [1e308, 1e308]}", "[]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", "runtime 1 is 1e308"));
    free(f);
}

Test(replay_refusals, t4_time_measurement_that_is_not_positive)
{
    const char *values[] = {"-5", "0"};
    for (size_t k = 0; k < 2; k++) {
        char measurements[128], needle[64];
        snprintf(measurements, sizeof measurements,
                 "[{\"name\": \"time\", \"value\": %s, \"unit\": \"ms\"}]", values[k]);
        snprintf(needle, sizeof needle, "the \"time\" measurement is %s ms", values[k]);
        char *f = t4_file("time.t4.json", "{\"runtimes\": [1.0]}", measurements);
        assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", needle));
        free(f);
    }
}

Test(replay_refusals, t4_negative_compile_time)
{
    char *f = t4_file("compile.t4.json", "{\"compilation\": -3, \"runtimes\": [1.0]}", "[]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", "\"compilation\" is -3"));
    free(f);
}

/* ------------------------------------------------------------ times: Kernel Tuner */

static char *cache_with_entry(const char *name, const char *fields)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"tune_params_keys\": [\"wg\"], \"tune_params\": {\"wg\": [16, 32]},"
             " \"cache\": {\"16\": {\"wg\": 16, \"time\": 1.5}, \"32\": {\"wg\": 32, %s}}}",
             fields);
    return write_text(name, text);
}

Test(replay_refusals, kernel_tuner_times_that_are_not_positive_finite_numbers)
{
    const char *fields[] = {"\"time\": -5", "\"time\": 0", "\"time\": 1e308"};
    const char *needles[] = {"\"time\" is -5 ms", "\"time\" is 0 ms", "\"time\" is 1e+308 ms"};
    for (size_t k = 0; k < 3; k++) {
        char *f = cache_with_entry("times.cache.json", fields[k]);
        assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"32\"", needles[k],
                                                "positive, finite number of milliseconds"));
        free(f);
    }
}

/* Recorded data is not taken at its word: a time below a nanosecond (a
 * denormal once became the best configuration, "0 ns"), a configuration
 * recorded twice (the first or the last silently won), and a key that names
 * another configuration than its entry holds are each refused naming the
 * file and the entry. */
Test(replay_refusals, times_below_a_nanosecond)
{
    char *f = cache_with_entry("denormal.cache.json", "\"time\": 5e-324");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"32\"", "at least 1 ns"));
    free(f);
    f = t4_file("denormal.t4.json", "{\"runtimes\": [1e-9]}", "[]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "result 2", "at least 1 ns"));
    free(f);
}

Test(replay_refusals, a_configuration_recorded_twice)
{
    char *f = write_text("twice.cache.json",
                         "{\"tune_params_keys\": [\"wg\"], \"tune_params\": {\"wg\": [16, 32]},"
                         " \"cache\": {\"16\": {\"wg\": 16, \"time\": 1.5},"
                         " \"16\": {\"wg\": 16, \"time\": 0.5}}}");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "duplicate object key"));
    free(f);
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema_version\": \"1.0.0\", \"metadata\": {\"timeunit\": \"milliseconds\"},"
             " \"results\": ["
             "{\"configuration\": {\"wg\": 16}, \"invalidity\": \"correct\", \"correctness\": 1,"
             " \"times\": {\"runtimes\": [1.0]}, \"measurements\": []},"
             "{\"configuration\": {\"wg\": 16}, \"invalidity\": \"correct\", \"correctness\": 1,"
             " \"times\": {\"runtimes\": [0.5]}, \"measurements\": []}]}");
    f = write_text("twice.t4.json", text);
    assert_replay_refused(f, NULL, CLI_ARGS("the configuration wg=16 is recorded twice (entry 2"));
    free(f);
}

Test(replay_refusals, a_key_that_names_another_configuration)
{
    char *f = write_text("liar.cache.json",
                         "{\"tune_params_keys\": [\"wg\"], \"tune_params\": {\"wg\": [16, 32]},"
                         " \"cache\": {\"16\": {\"wg\": 16, \"time\": 1.5},"
                         " \"32\": {\"wg\": 16, \"time\": 0.5}}}");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"32\"", "the key says wg=32",
                                            "the entry holds wg=16"));
    free(f);
}

Test(replay_refusals, kernel_tuner_phase_times_that_are_not_times)
{
    char *f = cache_with_entry("phases.cache.json", "\"time\": 2.0, \"compile_time\": -1");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"32\"", "\"compile_time\" is -1"));
    free(f);
    f = cache_with_entry("phases.cache.json", "\"time\": 2.0, \"benchmark_time\": \"long\"");
    assert_replay_refused(f, NULL,
                          CLI_ARGS(f, "cache entry \"32\"", "\"benchmark_time\" is \"long\""));
    free(f);
}

/* ------------------------------------------------------------ times: skytune database */

/* A copy of the existing database with one row changed by `sql` (its last
 * statement an UPDATE or INSERT), through the sqlite3 library. */
static char *changed_database(const char *name, const char *sql)
{
    char *path = cli_path(scratch, name);
    size_t len = 0;
    unsigned char *bytes = cli_read_file(existing_db, &len);
    cr_assert_not_null(bytes);
    cli_write_file(path, bytes, len);
    free(bytes);
    char error[256];
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *message = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &message);
    snprintf(error, sizeof error, "%s", message ? message : "");
    sqlite3_free(message);
    cr_assert_eq(sqlite3_changes(db), 1, "%s: %s", sql, error);
    sqlite3_close(db);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, error);
    return path;
}

/* A copy of the existing database with one measurement's column set by
 * `assignment` (SQL). */
static char *tampered_database(const char *name, const char *assignment)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "UPDATE measurements SET %s WHERE id = (SELECT m.id FROM measurements m JOIN "
             "configurations c ON c.id = m.configuration_id WHERE c.text = 'wg=32,mode=naive')",
             assignment);
    return changed_database(name, sql);
}

Test(replay_refusals, database_times_that_are_not_positive_finite_numbers)
{
    const char *assignments[] = {"median_ns = -5000000", "median_ns = 'abc'", "median_ns = NULL",
                                 "build_s = -1"};
    const char *needles[] = {"median_ns is '-5000000.0'", "median_ns is 'abc'", "median_ns is NULL",
                             "build_s is '-1.0'"};
    for (size_t k = 0; k < 4; k++) {
        char *db = tampered_database("tampered.db", assignments[k]);
        cli_snapshot replayed = cli_snapshot_take(db);
        assert_replay_refused(db, NULL,
                              CLI_ARGS(db, "configuration \"wg=32,mode=naive\" (ok)", needles[k]));
        const char *difference = cli_snapshot_difference(&replayed);
        cr_assert(!difference, "the replayed database %s: %s", db, difference);
        cli_snapshot_free(&replayed);
        free(db);
    }
}

/* ------------------------------------------------------------ decompression */

/* A gzip file of `mib` members, each one MiB of spaces: a JSON text of
 * that many MiB of whitespace, from about a KiB per member. */
static char *gzip_bomb(const char *name, size_t mib)
{
    static unsigned char spaces[1 << 20];
    memset(spaces, ' ', sizeof spaces);
    unsigned char member[1 << 14];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    cr_assert_eq(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = spaces;
    zs.avail_in = sizeof spaces;
    zs.next_out = member;
    zs.avail_out = sizeof member;
    cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t member_len = sizeof member - zs.avail_out;
    deflateEnd(&zs);
    char *path = cli_path(scratch, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    for (size_t k = 0; k < mib; k++) cr_assert_eq(fwrite(member, 1, member_len, f), member_len);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* The largest resident set of the children this test has waited for. */
static long children_max_rss_mib(void)
{
    struct rusage usage;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &usage), 0);
    return usage.ru_maxrss / 1024;
}

Test(replay_refusals, gzip_bomb_is_refused_at_the_default_input_limit)
{
    char *bomb = gzip_bomb("bomb.cache.json.gz", 1024);
    char needle[96];
    snprintf(needle, sizeof needle, "more than %llu MiB of JSON text after decompression",
             (unsigned long long)(REPLAY_DEFAULT_MAX_JSON_BYTES >> 20));
    assert_replay_refused(bomb, NULL, CLI_ARGS(bomb, needle, "--input-limit"));
    free(bomb);
}

Test(replay_refusals, input_limit_is_an_option_and_bounds_memory)
{
    char *bomb = gzip_bomb("bomb.cache.json.gz", 1024);
    assert_replay_refused(bomb, CLI_ARGS("--input-limit", "16M"),
                          CLI_ARGS(bomb, "more than 16 MiB of JSON text after decompression"));
    /* 1 GiB inflated took as much memory; refused at 16 MiB, a fraction. */
    long rss = children_max_rss_mib();
    cr_assert_lt(rss, 256, "skytune grew to %ld MiB refusing a 1 GiB bomb at 16 MiB", rss);

    /* The same limit for a T1 file, and for a plain file. */
    char *cache = write_text("good.cache.json", good_cache);
    assert_replay_refused(cache, CLI_ARGS("--space", bomb, "--input-limit", "16M"),
                          CLI_ARGS(bomb, "more than 16 MiB"));
    assert_replay_refused(cache, CLI_ARGS("--input-limit", "256"),
                          CLI_ARGS(cache, "more than 256 bytes of JSON text, the input limit"));
    /* A limit the file fits in replays it. */
    char *db = cli_path(scratch, "fits.db");
    cli_result r = cli_run(CLI_ARGS("run", "--replay", cache, "--input-limit", "2K", "--db", db,
                                    "--strategy", "exhaustive", "--quiet"));
    cr_assert_eq(r.status, 0, "%s\n%s", cli_status_text(r.status), r.err);
    cli_result_free(&r);
    free(db);
    free(cache);
    free(bomb);
}

Test(replay_refusals, help_documents_the_input_limit_and_its_default)
{
    char expected[64];
    snprintf(expected, sizeof expected, "default %lluM",
             (unsigned long long)(REPLAY_DEFAULT_MAX_JSON_BYTES >> 20));
    const char *const *commands[] = {CLI_ARGS("run", "--help"),
                                     CLI_ARGS("bench-strategies", "--help")};
    for (size_t k = 0; k < 2; k++) {
        cli_result r = cli_run(commands[k]);
        cr_assert_eq(r.status, 0);
        cr_assert(strstr(r.out, "--input-limit SIZE") && strstr(r.out, expected),
                  "skytune %s --help does not document --input-limit with \"%s\":\n%s",
                  commands[k][0], expected, r.out);
        cli_result_free(&r);
    }
}

/* ------------------------------------------------------------ messages */

Test(replay_refusals, database_campaign_selector_that_is_not_a_campaign)
{
    char dataset[4096];
    snprintf(dataset, sizeof dataset, "%s:abc", existing_db);
    char not_campaign[4200];
    snprintf(not_campaign, sizeof not_campaign, "'abc' is not a campaign of %s", existing_db);
    assert_replay_refused(dataset, NULL,
                          CLI_ARGS(not_campaign, ":ID, ID a positive number", "1 (replay on good"));

    char *missing = cli_path(scratch, "missing.db");
    snprintf(dataset, sizeof dataset, "%s:abc", missing);
    char nor[4200];
    snprintf(nor, sizeof nor, "nor can %s, as a database whose campaign is chosen with :ID",
             missing);
    assert_replay_refused(dataset, NULL, CLI_ARGS(dataset, nor));
    free(missing);
}

Test(replay_refusals, control_characters_are_escaped_with_the_right_reason)
{
    /* In a parameter's declared values. */
    char *f = write_text("escape.cache.json",
                         "{\"tune_params_keys\": [\"mode\"],"
                         " \"tune_params\": {\"mode\": [\"x\\u001b[2Jy\", \"z\"]},"
                         " \"cache\": {\"z\": {\"mode\": \"z\", \"time\": 1.0}}}");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "x\\x1b[2Jy", "contains a control character"));
    free(f);
    /* In an entry's value, not declared. */
    f = write_text("entry.cache.json",
                   "{\"tune_params_keys\": [\"mode\"], \"tune_params\": {\"mode\": [\"z\"]},"
                   " \"cache\": {\"q\": {\"mode\": \"q\\u0007\", \"time\": 1.0}}}");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"q\"", "q\\x07",
                                            "contains a control character"));
    free(f);
    /* In an entry's key. */
    f = write_text("key.cache.json",
                   "{\"tune_params_keys\": [\"wg\"], \"tune_params\": {\"wg\": [16]},"
                   " \"cache\": {\"16\\u001b]0;owned\\u0007\": {\"wg\": 16, \"time\": -1}}}");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "cache entry \"16\\x1b]0;owned\\x07\"", "is -1 ms"));
    free(f);
    /* In a T4 unit. */
    f = t4_file("unit.t4.json", "{\"runtimes\": [1.0]}",
                "[{\"name\": \"time\", \"value\": 1, \"unit\": \"\\u001b[31mms\"}]");
    assert_replay_refused(f, NULL, CLI_ARGS(f, "unknown time unit \"\\x1b[31mms\""));
    free(f);
    /* In a parameter name of a database's first configuration, which the
     * next configuration does not have (found by fuzz_database). */
    char *db = changed_database("name.db",
                                "UPDATE configurations SET text = 'wg=16,m' || char(27) || "
                                "'[2Jode=naive' WHERE id = (SELECT m.configuration_id FROM "
                                "evaluations e JOIN measurements m ON m.id = e.measurement_id "
                                "ORDER BY e.seq LIMIT 1)");
    assert_replay_refused(db, NULL, CLI_ARGS(db, "parameter 2 is not 'm\\x1b[2Jode'"));
    free(db);
    /* In SQLite's own message, which quotes a malformed schema's names and
     * text (found by fuzz_database). */
    db = changed_database("schema.db",
                          "PRAGMA writable_schema = ON; INSERT INTO sqlite_master VALUES ('view', "
                          "'v' || char(27) || '[2J', 'v' || char(27) || '[2J', 0, "
                          "'CREATE VIEW x AS SELECT ' || char(1))");
    assert_replay_refused(db, NULL,
                          CLI_ARGS(db, "malformed database schema (v\\x1b[2J)",
                                   "unrecognized token: \"\\x01\""));
    free(db);
}
