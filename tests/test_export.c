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
