/* Exports of databases the report fixture does not cover: a real campaign
 * of a plugin without problem parameters (its problem is the empty text),
 * and a C header whose tuning parameters are named after every C11 keyword,
 * compiled with the system C compiler; and the CSV export's columns, on the
 * report fixtures (report_fixture.h). */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "csv.h"
#include "measurement.h"
#include "report_fixture.h"
#include "store.h"

static char *scratch;

static void make_scratch(void)
{
    scratch = cli_make_temp_dir();
}

static void remove_scratch(void)
{
    cli_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

TestSuite(export, .init = make_scratch, .fini = remove_scratch);

/* Compile main_source with wisdom.h beside it under each C dialect and run
 * it with argument; fails the test with the compiler's or the program's
 * output otherwise. */
static void compile_and_run(const char *main_source, const char *argument)
{
    char *main_c = cli_path(scratch, "main.c");
    char *exe = cli_path(scratch, "lookup");
    char *log = cli_path(scratch, "cc.log");
    cli_write_file(main_c, main_source, strlen(main_source));
    static const char *const dialects[] = {"-std=c11 -pedantic", "-std=gnu11", "-std=c2x"};
    for (size_t k = 0; k < sizeof dialects / sizeof dialects[0]; k++) {
        char command[8192];
        snprintf(command, sizeof command,
                 "cc %s -Wall -Wextra -Werror -I'%s' '%s' -o '%s' -lm >'%s' 2>&1 && '%s' '%s' "
                 ">>'%s' 2>&1",
                 dialects[k], scratch, main_c, exe, log, exe, argument, log);
        int rc = system(command);
        size_t len;
        char *out = (char *)cli_read_file(log, &len);
        cr_assert_eq(rc, 0, "with %s the header does not compile, or the program failed (%d):\n%s",
                     dialects[k], rc, out ? out : "");
        free(out);
    }
    free(log);
    free(exe);
    free(main_c);
}

/* ------------------------------------------------------------ no problem parameters */

/* The trivial test plugin (tests/trivial_plugin.c, built as trivial.so):
 * tuning parameters only. Four configurations that all pass. */
static char *trivial_module(void)
{
    const char *build = getenv("SKYTUNE_BUILD_DIR");
    cr_assert(build, "SKYTUNE_BUILD_DIR is not set: run the tests through `meson test`");
    return cli_path(build, "trivial.so");
}

static const char no_problem_main[] =
    "#include <string.h>\n#include \"wisdom.h\"\n"
    "int main(int argc, char **argv)\n{\n"
    "    if (argc != 2 || SKYTUNE_SCALE_N_ENTRIES != 1 || SKYTUNE_SCALE_N_PROBLEM_VALUES != 0)\n"
    "        return 1;\n"
    "    const skytune_scale_entry *e = skytune_scale_lookup(argv[1], NULL);\n"
    "    if (!e || strcmp(e->problem, \"\") != 0) return 2;\n"
    "    if (e->config.wg != 64 || e->config.mode != 0 || e->config.variant < 0 ||\n"
    "        e->config.variant > 3 || e->config.variant != SKYTUNE_SCALE_VARIANT) return 3;\n"
    "    return skytune_scale_lookup(\"no such device\", NULL) == NULL ? 0 : 4;\n"
    "}\n";

Test(export, a_plugin_without_problem_parameters_exports_its_best_configuration)
{
    char *module = trivial_module();
    char *db = cli_path(scratch, "scale.db");
    /* A watchdog floor far above any load, or valgrind (make test-valgrind),
     * could make the trivial kernel take: every configuration must pass. */
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", module, "--only", "MODE=0", "--only",
                                    "wg=64", "--only", "variant=0,1,2,3", "--strategy",
                                    "exhaustive", "--runs", "2", "--timeout-floor", "10m",
                                    "--quiet", "--db", db));
    cr_assert_eq(r.status, 0, "skytune run: %s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cli_result_free(&r);
    long long ok = cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status = 'ok'");
    if (ok != 4) {
        char *statuses = cli_db_text(db, "SELECT group_concat(status || ': ' || "
                                         "COALESCE(message, ''), char(10)) FROM measurements");
        cr_assert_fail("%lld of 4 configurations ok:\n%s", ok, statuses);
    }
    char *best = cli_db_text(db, "SELECT c.text FROM measurements m JOIN configurations c "
                                 "ON c.id = m.configuration_id WHERE m.status = 'ok' "
                                 "ORDER BY m.median_ns, m.id LIMIT 1");
    char *device = cli_db_text(db, "SELECT name FROM devices");

    /* The wisdom query: one row, the best configuration, no problem values. */
    r = cli_run(CLI_ARGS("query", "--db", db, "wisdom", "--format", "json"));
    cr_assert_eq(r.status, 0, "skytune query wisdom: %s\n%s", cli_status_text(r.status), r.err);
    json_error_t error;
    json_t *rows = json_loads(r.out, 0, &error);
    cr_assert(json_is_array(rows), "not JSON: %s\n%s", error.text, r.out);
    cr_assert_eq(json_array_size(rows), 1, "wisdom rows:\n%s", r.out);
    json_t *row = json_array_get(rows, 0);
    cr_assert_str_eq(json_string_value(json_object_get(row, "configuration")), best);
    cr_assert_str_eq(json_string_value(json_object_get(row, "problem")), "");
    cr_assert_str_eq(json_string_value(json_object_get(row, "problem_values")), "{}");
    json_decref(rows);
    cli_result_free(&r);

    /* JSON wisdom: one entry, an empty problem object. */
    char *json_path = cli_path(scratch, "wisdom.json");
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "json", "--out", json_path));
    cr_assert_eq(r.status, 0, "skytune export --format json: %s\n%s", cli_status_text(r.status),
                 r.err);
    cli_result_free(&r);
    json_t *wisdom = json_load_file(json_path, 0, &error);
    cr_assert(json_is_array(wisdom) && json_array_size(wisdom) == 1, "%s: %s", json_path,
              error.text);
    json_t *entry = json_array_get(wisdom, 0);
    cr_assert_str_eq(json_string_value(json_object_get(entry, "plugin")), "scale");
    cr_assert_str_eq(json_string_value(json_object_get(entry, "device")), device);
    json_t *problem = json_object_get(entry, "problem");
    cr_assert(json_is_object(problem) && json_object_size(problem) == 0,
              "the problem is not an empty object");
    json_t *config = json_object_get(entry, "configuration");
    char text[128];
    snprintf(text, sizeof text, "wg=%lld,MODE=%lld,variant=%lld",
             (long long)json_integer_value(json_object_get(config, "wg")),
             (long long)json_integer_value(json_object_get(config, "MODE")),
             (long long)json_integer_value(json_object_get(config, "variant")));
    cr_assert_str_eq(text, best);
    json_decref(wisdom);

    /* The C header: compiles, and its lookup finds the entry by device. */
    if (cli_have_compiler()) {
        char *header = cli_path(scratch, "wisdom.h");
        r = cli_run(CLI_ARGS("export", "--db", db, "--format", "header", "--out", header));
        cr_assert_eq(r.status, 0, "skytune export --format header: %s\n%s",
                     cli_status_text(r.status), r.err);
        cli_result_free(&r);
        compile_and_run(no_problem_main, device);
        free(header);
    } else {
        fprintf(stderr, "SKIP: no C compiler (cc): the header was not compiled\n");
    }
    free(json_path);
    free(device);
    free(best);
    free(db);
    free(module);
}

/* ------------------------------------------------------------ C keywords as names */

static const char *const c11_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
    "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
};
#define N_KEYWORDS (sizeof c11_keywords / sizeof c11_keywords[0])
/* Besides the keywords, a parameter already named like the field a keyword
 * would become: it keeps its name, and `default` moves on to default__. */
#define N_PARAMS (N_KEYWORDS + 1)

/* A database with one ok measurement of plugin "keywords" on problem n=1:
 * the parameter named c11_keywords[k] has the value k + 1, default_ 100. */
static void create_keyword_db(const char *path)
{
    const char *names[N_PARAMS];
    char values_text[N_PARAMS][16];
    const char *values[N_PARAMS];
    char config[2048] = "";
    size_t used = 0;
    for (size_t k = 0; k < N_PARAMS; k++) {
        names[k] = k < N_KEYWORDS ? c11_keywords[k] : "default_";
        snprintf(values_text[k], sizeof values_text[k], "%zu", k < N_KEYWORDS ? k + 1 : 100);
        values[k] = values_text[k];
        used += (size_t)snprintf(config + used, sizeof config - used, "%s%s=%s", k ? "," : "",
                                 names[k], values[k]);
    }
    store *st;
    skytune_error err = {0};
    cr_assert_eq(store_open(path, true, STORE_BUSY_TIMEOUT_S, &st, &err), 0, "%s", err.message);
    skytune_device_info device = {.name = "Keyword GPU", .platform = "Keyword Platform",
                                  .driver_version = "1"};
    int64_t device_id, plugin_id, problem_id, campaign_id, measurement_id;
    bool resumed;
    cr_assert_eq(store_device_id(st, &device, &device_id, &err), 0, "%s", err.message);
    cr_assert_eq(store_plugin_id(st, "keywords", "1", "hash",
                                 &(store_param_names){.tuning = names, .n_tuning = N_PARAMS},
                                 &plugin_id, &err),
                 0, "%s", err.message);
    cr_assert_eq(store_problem_id(st, plugin_id, "n=1", &problem_id, &err), 0, "%s",
                 err.message);
    store_campaign_spec spec = {.plugin_id = plugin_id, .device_id = device_id,
                                .problem_id = problem_id, .strategy = "exhaustive",
                                .settings = "runs=3", .seed = 1, .command = "test",
                                .host = "test"};
    cr_assert_eq(store_campaign_open(st, &spec, &campaign_id, &resumed, &err), 0, "%s",
                 err.message);
    measurement m;
    measurement_init(&m);
    m.status = MEAS_OK;
    const double samples[3] = {1000, 1100, 1200};
    cr_assert_eq(measurement_set_samples(&m, samples, 3), 0);
    cr_assert_eq(store_record_measurement(st, campaign_id, 0, config, 0x5eed, names, values,
                                          N_PARAMS, &m, &measurement_id, &err),
                 0, "%s", err.message);
    measurement_clear(&m);
    cr_assert_eq(store_campaign_close(st, campaign_id, "done", &err), 0, "%s", err.message);
    store_close(st);
}

/* The field docs/reports.md promises for a parameter name: lower-cased, and
 * a trailing underscore for a keyword (two for default, whose one-underscore
 * form is another parameter's name). */
static void expected_field(const char *name, char *field, size_t len)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < len; p++)
        field[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    field[n] = '\0';
    if (name[0] != '_') strncat(field, "_", len - strlen(field) - 1);
    if (strcmp(name, "default") == 0) strncat(field, "_", len - strlen(field) - 1);
}

Test(export, a_header_compiles_with_every_c11_keyword_as_a_parameter_name)
{
    if (!cli_have_compiler()) cr_skip_test("no C compiler (cc) to compile the header");
    char *db = cli_path(scratch, "keywords.db");
    create_keyword_db(db);
    char *header = cli_path(scratch, "wisdom.h");
    cli_result r = cli_run(CLI_ARGS("export", "--db", db, "--format", "header", "--out", header));
    cr_assert_eq(r.status, 0, "skytune export --format header: %s\n%s", cli_status_text(r.status),
                 r.err);
    cli_result_free(&r);

    /* Every field and every macro holds its parameter's value. */
    size_t size = 65536, used = 0;
    char *source = malloc(size);
    cr_assert(source, "out of memory");
    used += (size_t)snprintf(source + used, size - used,
                             "#include \"wisdom.h\"\n"
                             "int main(int argc, char **argv)\n{\n"
                             "    (void)argc;\n"
                             "    const double problem[1] = {1};\n"
                             "    const skytune_keywords_entry *e = "
                             "skytune_keywords_lookup(argv[1], problem);\n"
                             "    if (!e) return 1;\n");
    for (size_t k = 0; k < N_KEYWORDS; k++) {
        char field[64], macro[64];
        expected_field(c11_keywords[k], field, sizeof field);
        size_t n = 0;
        for (const char *p = c11_keywords[k]; *p; p++)
            macro[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        macro[n] = '\0';
        used += (size_t)snprintf(source + used, size - used,
                                 "    if (e->config.%s != %zu || SKYTUNE_KEYWORDS_%s != %zu) "
                                 "return %zu;\n",
                                 field, k + 1, macro, k + 1, k + 2);
    }
    used += (size_t)snprintf(source + used, size - used,
                             "    if (e->config.default_ != 100 || SKYTUNE_KEYWORDS_DEFAULT_ != "
                             "100) return 99;\n"
                             "    return 0;\n}\n");
    cr_assert_lt(used, size);
    compile_and_run(source, "Keyword GPU");
    free(source);
    free(header);
    free(db);
}

/* ------------------------------------------------------------ csv */

/* `skytune export --db DB` with more arguments; its standard output. */
static char *export_csv(const char *db, const char *campaign)
{
    cli_result r = campaign ? cli_run(CLI_ARGS("export", "--db", db, "--campaign", campaign))
                            : cli_run(CLI_ARGS("export", "--db", db));
    cr_assert_eq(r.status, 0, "skytune export: %s\n%s", cli_status_text(r.status), r.err);
    char *out = r.out;
    r.out = NULL;
    free(r.err);
    return out;
}

static void expect_cell(const char *csv, size_t row, const char *column, const char *want)
{
    char *got = cli_csv_cell(csv, row, column);
    cr_expect_str_eq(got, want, "row %zu, column %s", row, column);
    free(got);
}

Test(export, csv_has_a_column_per_parameter_and_spreads_problems_only_when_rows_span_them)
{
    char *db = cli_path(scratch, "fixture.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create(db, true, &err), 0, "%s", err.message);
    char *csv = export_csv(db, NULL);
    /* Campaigns 1 and 2 are on two problems: n varies, batch does not. */
    static const char wide[] = "campaign,seq,plugin,device,problem,n,batch,wg,mode,status,";
    cr_expect(strncmp(csv, wide, strlen(wide)) == 0, "%.120s", csv);
    cr_expect(!cli_csv_has_column(csv, "configuration"), "the text column is still there");
    /* Campaign 1's first evaluation is c1 (wg=32, plain) on A. */
    expect_cell(csv, 0, "problem", REPORT_FIXTURE_PROBLEM_A);
    expect_cell(csv, 0, "n", "1000");
    expect_cell(csv, 0, "batch", "2");
    expect_cell(csv, 0, "wg", "32");
    expect_cell(csv, 0, "mode", "plain");
    /* Its second, c4, holds the value made of markup, as it is. */
    expect_cell(csv, 1, "mode", REPORT_FIXTURE_HOSTILE);
    /* Campaign 2's first is c3 (wg=128) on B. */
    expect_cell(csv, 6, "n", "4000");
    expect_cell(csv, 6, "wg", "128");
    free(csv);

    /* One campaign, one problem: its text says it all. */
    csv = export_csv(db, "1");
    static const char narrow[] = "campaign,seq,plugin,device,problem,wg,mode,status,";
    cr_expect(strncmp(csv, narrow, strlen(narrow)) == 0, "%.120s", csv);
    cr_expect(!cli_csv_has_column(csv, "n"), "one problem, yet its parameters are columns");
    free(csv);
    free(db);
}

Test(export, csv_flags_noisy_configurations)
{
    char *db = cli_path(scratch, "noisy.db");
    skytune_error err = {0};
    cr_assert_eq(report_fixture_create_noisy(db, &err), 0, "%s", err.message);
    char *csv = export_csv(db, NULL);
    /* sd / median: 58.8 %, 0.9 %, 9.5 %, 10.5 % (report_fixture.h). */
    static const char *const want[] = {"1", "0", "0", "1"};
    for (size_t k = 0; k < 4; k++) expect_cell(csv, k, "noisy", want[k]);
    free(csv);
    free(db);
}

/* A text a spreadsheet would run as a formula is written as text; numbers,
 * negative ones too, stay numbers; commas and quotes are quoted as ever. */
Test(export, csv_cells_never_read_as_formulas)
{
    const char *cells[] = {"=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx",
                           "-1.5", "+3e8", "-inf", "plain", "a,b", "", "-"};
    const char *written[] = {"\"'=HYPERLINK(\"\"http://x\"\")\"", "\"'+1+1\"", "\"'-2+3\"",
                             "\"'@SUM(A1)\"", "\"'\tx\"", "-1.5", "+3e8", "-inf", "plain",
                             "\"a,b\"", "", "\"'-\""};
    for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cr_assert_not_null(f);
        csv_write_field(f, cells[k]);
        fclose(f);
        cr_expect_str_eq(text, written[k], "cell %zu", k);
        free(text);
    }
}

/* ------------------------------------------------------------ Kernel Tuner cache */

/* Kernel Tuner and what its simulation mode imports, without the rest of
 * its dependencies (pandas, scikit-learn, pymoo: half a gigabyte its
 * strategies and plots use), into `folder`. 0, or the reason it could
 * not be installed in `why`. */
static int install_kernel_tuner(const char *python, const char *folder, char *why, size_t len)
{
    char *log = cli_path(scratch, "pip.log");
    int rc = cli_shell("timeout 600 '%s' -m pip install --quiet --disable-pip-version-check "
                       "--no-deps --target '%s' kernel_tuner numpy scipy python-constraint2 "
                       "jsonschema jsonschema-specifications referencing rpds-py attrs packaging "
                       "xmltodict typing_extensions >'%s' 2>&1",
                       python, folder, log);
    if (rc != 0) {
        size_t n;
        char *out = (char *)cli_read_file(log, &n);
        snprintf(why, len, "pip install kernel_tuner failed (%d): %.400s", rc, out ? out : "");
        free(out);
    }
    free(log);
    return rc;
}

/* "64,0,0": the cache key of configuration text "wg=64,MODE=0,variant=0"
 * (values without commas). */
static void key_of(const char *text, char *key, size_t len)
{
    size_t used = 0;
    key[0] = '\0';
    for (const char *at = text; at && *at;) {
        const char *value = strchr(at, '=') + 1;
        size_t n = strcspn(value, ",");
        used += (size_t)snprintf(key + used, len - used, "%s%.*s", used ? "," : "", (int)n, value);
        at = value[n] ? value + n + 1 : NULL;
    }
}

/* The trivial plugin's 12 configurations with variant 0: MODE 1 does not
 * compile, MODE 3 and 4 give wrong results, wg 3 does not divide the work
 * (launch), the rest pass. Exported as a Kernel Tuner cache, each failure
 * is written as Kernel Tuner records its own, and both Kernel Tuner's
 * simulation mode and skytune's --replay find the campaign's best in it. */
Test(export, a_kernel_tuner_cache_reads_back_to_the_same_best_in_kernel_tuner_and_replay)
{
    char *module = trivial_module();
    char *db = cli_path(scratch, "kt.db");
    cli_result r = cli_run(CLI_ARGS("run", "--plugin", module, "--only", "variant=0", "--strategy",
                                    "exhaustive", "--runs", "2", "--timeout-floor", "10m",
                                    "--quiet", "--db", db));
    cr_assert_eq(r.status, 0, "skytune run: %s\n%s%s", cli_status_text(r.status), r.out, r.err);
    cli_result_free(&r);
    char *best = cli_db_text(db, "SELECT c.text FROM measurements m JOIN configurations c "
                                 "ON c.id = m.configuration_id WHERE m.status = 'ok' "
                                 "ORDER BY m.median_ns, m.id LIMIT 1");
    cr_assert(best, "no configuration passed");
    char best_key[128];
    key_of(best, best_key, sizeof best_key);

    char *path = cli_path(scratch, "kt.json");
    r = cli_run(CLI_ARGS("export", "--db", db, "--format", "kernel_tuner", "--out", path));
    cr_assert_eq(r.status, 0, "skytune export --format kernel_tuner: %s\n%s",
                 cli_status_text(r.status), r.err);
    cr_assert(strstr(r.out, "wrote 12 configurations to "), "%s", r.out);
    cli_result_free(&r);

    /* The header Kernel Tuner checks, and every entry as it records them. */
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    cr_assert(json_is_object(root), "%s: %s", path, error.text);
    char *device = cli_db_text(db, "SELECT name FROM devices");
    cr_assert_str_eq(json_string_value(json_object_get(root, "device_name")), device);
    cr_assert_str_eq(json_string_value(json_object_get(root, "kernel_name")), "scale");
    cr_assert_str_eq(json_string_value(json_object_get(root, "objective")), "time");
    json_t *keys = json_pack("[sss]", "wg", "MODE", "variant");
    json_t *wg = json_pack("[iii]", 1, 3, 64);
    cr_assert(json_equal(json_object_get(root, "tune_params_keys"), keys),
              "tune_params_keys are not the parameters in order");
    cr_assert(json_equal(json_object_get(json_object_get(root, "tune_params"), "wg"), wg),
              "tune_params.wg is not the values evaluated, in order");
    json_decref(keys);
    json_decref(wg);
    json_t *cache = json_object_get(root, "cache");
    cr_assert_eq(json_object_size(cache), 12);
    char *rows = cli_db_text(db, "SELECT group_concat(c.text || ' ' || m.status || ' ' || "
                                 "COALESCE(m.median_ns, 0), char(10)) FROM measurements m "
                                 "JOIN configurations c ON c.id = m.configuration_id");
    size_t statuses[4] = {0};
    for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n")) {
        char text[128], status[32], key[128];
        double median_ns;
        cr_assert_eq(sscanf(line, "%127s %31s %lf", text, status, &median_ns), 3, "%s", line);
        key_of(text, key, sizeof key);
        json_t *entry = json_object_get(cache, key);
        cr_assert(entry, "no cache entry \"%s\" for %s", key, text);
        json_t *time = json_object_get(entry, "time");
        const char *error_name = json_string_value(json_object_get(entry, "__error__"));
        if (strcmp(status, "ok") == 0) {
            statuses[0]++;
            cr_assert(json_is_real(time) && !error_name, "%s: an ok configuration without a time",
                      key);
            cr_assert_float_eq(json_real_value(time), median_ns / 1e6, 1e-9, "%s", key);
            cr_assert_eq(json_array_size(json_object_get(entry, "times")), 2, "%s", key);
        } else {
            const char *expected = strcmp(status, "compile") == 0 ? "CompilationFailedConfig"
                                                                  : "RuntimeFailedConfig";
            statuses[strcmp(status, "compile") == 0 ? 1 : strcmp(status, "launch") == 0 ? 2 : 3]++;
            cr_assert_str_eq(json_string_value(time), expected, "%s (%s)", key, status);
            cr_assert_str_eq(error_name, expected, "%s (%s)", key, status);
        }
        cr_assert(json_is_number(json_object_get(entry, "compile_time")), "%s", key);
    }
    /* Every kind of failure is there to be written. */
    cr_assert(statuses[0] && statuses[1] && statuses[2] && statuses[3],
              "ok %zu, compile %zu, launch %zu, wrong_result %zu", statuses[0], statuses[1],
              statuses[2], statuses[3]);
    free(rows);
    json_decref(root);

    /* skytune reads it back as a recorded dataset. */
    char *replay_db = cli_path(scratch, "replay.db");
    r = cli_run(CLI_ARGS("run", "--replay", path, "--space", "recorded", "--strategy",
                         "exhaustive", "--quiet", "--db", replay_db));
    cr_assert_eq(r.status, 0, "skytune run --replay: %s\n%s%s", cli_status_text(r.status), r.out,
                 r.err);
    cli_result_free(&r);
    char *replayed = cli_db_text(replay_db, "SELECT c.text FROM measurements m JOIN "
                                            "configurations c ON c.id = m.configuration_id "
                                            "WHERE m.status = 'ok' ORDER BY m.median_ns, m.id "
                                            "LIMIT 1");
    cr_assert_str_eq(replayed, best, "--replay of the export finds another best");
    cr_assert_eq(cli_db_int(replay_db, "SELECT COUNT(*) FROM measurements WHERE status = "
                                       "'compile'"),
                 (long long)statuses[1]);

    /* And so does Kernel Tuner, in its simulation mode. */
    const char *python = getenv("SKYTUNE_PYTHON");
    char *folder = cli_path(scratch, "kernel_tuner");
    char why[600] = "";
    if (!python || !*python)
        snprintf(why, sizeof why, "SKYTUNE_PYTHON is not set");
    else
        install_kernel_tuner(python, folder, why, sizeof why);
    if (why[0]) {
        fprintf(stderr, "SKIP (the Kernel Tuner half of this test): %s\n", why);
    } else {
        char *out = cli_path(scratch, "kt.out");
        int rc = cli_shell("cd '%s' && PYTHONPATH='%s' timeout 300 '%s' '%s/tests/kernel_tuner_best.py' "
                           "'%s' >'%s' 2>&1",
                           scratch, folder, python, cli_source_dir(), path, out);
        size_t n;
        char *said = (char *)cli_read_file(out, &n);
        cr_assert_eq(rc, 0, "Kernel Tuner could not read the cache:\n%s", said ? said : "");
        char first[128] = "";
        sscanf(said, "%127s", first);
        cr_assert_str_eq(first, best_key, "Kernel Tuner finds another best:\n%s", said);
        free(said);
        free(out);
    }
    free(folder);
    free(replayed);
    free(replay_db);
    free(device);
    free(path);
    free(best);
    free(db);
    free(module);
}
