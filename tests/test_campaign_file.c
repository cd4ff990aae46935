/* Campaign files: reading YAML into a campaign, sweeps (lists, progressions
 * with "...", ranges), the messages for bad files (file, line, key), and the
 * shard arithmetic that splits a campaign's units between array tasks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_check.h"
#include "campaign_file.h"
#include "campaign_plan.h"
#include "cli_harness.h"
#include "sweep_values.h"

static char *scratch;

static void set_up(void)
{
    scratch = cli_make_temp_dir();
}

static void tear_down(void)
{
    cli_remove_tree(scratch);
    free(scratch);
}

TestSuite(campaign_file, .init = set_up, .fini = tear_down);

static char *write_campaign(const char *name, const char *text)
{
    char *path = cli_path(scratch, name);
    cli_write_file(path, text, strlen(text));
    return path;
}

/* Reads a file that must be refused; returns the message. */
static char *refused(const char *text)
{
    char *path = write_campaign("bad.yaml", text);
    campaign_file f;
    skytune_error err = {0};
    int rc = campaign_file_read(path, &f, &err);
    cr_assert_neq(rc, 0, "the file was accepted:\n%s", text);
    free(path);
    return strdup(err.message);
}

static void expect_values(const sweep_param *p, const char *const *want, size_t n)
{
    cr_assert_eq(p->count, n, "%s: %zu values, expected %zu", p->name, p->count, n);
    for (size_t k = 0; k < n; k++)
        cr_expect_str_eq(p->values[k].text, want[k], "%s[%zu]", p->name, k);
}

Test(campaign_file, reads_every_key)
{
    char *path = write_campaign("all.yaml",
                                "# every key\n"
                                "plugin: dedispersion\n"
                                "preset: apertif\n"
                                "problem:\n"
                                "  dms: [2, 4, 8, ..., 64]\n"
                                "  channels: 1024\n"
                                "  samples: {from: 1000, to: 4000, step: 1000}\n"
                                "strategy: random\n"
                                "strategy_options: {}\n"
                                "restrict: 'wi_samples * wi_dms <= 256'\n"
                                "only:\n"
                                "  unroll: [1, 4]\n"
                                "budget: 200\n"
                                "time_limit: 30m\n"
                                "target: 2.5ms\n"
                                "runs: 5\n"
                                "seed: 7\n"
                                "stop_when_gain_below: 1%\n"
                                "transfers: true\n"
                                "campaign_budget: 5000\n"
                                "campaign_time_limit: 8h\n"
                                "devices: [NVIDIA, '1:0']\n"
                                "database: out/sweep.db\n"
                                "notify: {url: 'https://example.org/hook', format: slack}\n"
                                "cross: {top: 5}\n"
                                "slurm:\n"
                                "  partition: gpu\n"
                                "  gres: 'gpu:a100:1'\n"
                                "  time: '08:00:00'\n"
                                "  sbatch: ['--exclusive']\n");
    campaign_file f;
    skytune_error err = {0};
    cr_assert_eq(campaign_file_read(path, &f, &err), 0, "%s", err.message);
    cr_expect_str_eq(f.plugin.text, "dedispersion");
    cr_expect_eq(f.plugin.line, 2);
    cr_expect_str_eq(f.preset.text, "apertif");
    cr_assert_eq(f.n_params, 3);
    expect_values(&f.params[0], (const char *const[]){"2", "4", "8", "16", "32", "64"}, 6);
    cr_expect(f.params[0].swept);
    expect_values(&f.params[1], (const char *const[]){"1024"}, 1);
    cr_expect(!f.params[1].swept, "a single value is not a sweep");
    expect_values(&f.params[2], (const char *const[]){"1000", "2000", "3000", "4000"}, 4);
    cr_expect_eq(f.params[0].values[3].line, 5, "a generated term carries the list's line");
    cr_expect_str_eq(f.strategy.text, "random");
    cr_expect_eq(f.n_restricts, 1);
    cr_assert_eq(f.n_only, 1);
    cr_expect_str_eq(f.only[0].values, "unroll=1,4");
    cr_expect_eq(f.budget, 200);
    cr_expect_float_eq(f.time_limit_s, 1800.0, 1e-9);
    cr_expect_float_eq(f.target_ns, 2.5e6, 1e-3);
    cr_expect_eq(f.runs, 5);
    cr_expect_eq(f.seed, 7);
    cr_expect_float_eq(f.gain_below, 0.01, 1e-12);
    cr_expect(f.transfers);
    cr_expect_eq(f.transfers_line, 19);
    cr_expect_eq(f.campaign_budget, 5000);
    cr_expect_float_eq(f.campaign_time_limit_s, 8 * 3600.0, 1e-9);
    cr_assert_eq(f.n_devices, 2);
    cr_expect_str_eq(f.devices[1].text, "1:0");
    char *db = cli_path(scratch, "out/sweep.db");
    cr_expect_str_eq(f.database, db, "a relative database is the campaign file's folder's");
    cr_expect_str_eq(f.notify_url.text, "https://example.org/hook");
    cr_expect_str_eq(f.notify_format, "slack");
    cr_expect_eq(f.cross_top, 5);
    cr_expect_str_eq(f.slurm.gres, "gpu:a100:1");
    cr_expect_str_eq(f.slurm.sbatch_options[0].text, "--exclusive");
    campaign_file_free(&f);
    free(db);
    free(path);
}

Test(campaign_file, a_device_entry_carries_its_slurm_placement)
{
    char *path = write_campaign("placed.yaml",
                                "plugin: p\n"
                                "devices:\n"
                                "  - {device: NVIDIA, slurm: {constraint: h100, gres: 'gpu:1'}}\n"
                                "  - device: AMD\n"
                                "    slurm:\n"
                                "      partition: mi\n"
                                "  - pthread\n");
    campaign_file f;
    skytune_error err = {0};
    cr_assert_eq(campaign_file_read(path, &f, &err), 0, "%s", err.message);
    cr_assert_eq(f.n_devices, 3);
    cr_expect_str_eq(f.devices[0].text, "NVIDIA");
    cr_expect_str_eq(f.placements[0].constraint, "h100");
    cr_expect_str_eq(f.placements[0].gres, "gpu:1");
    cr_expect_null(f.placements[0].partition);
    cr_expect_eq(f.placements[0].line, 3);
    cr_expect_str_eq(f.devices[1].text, "AMD");
    cr_expect_str_eq(f.placements[1].partition, "mi");
    cr_expect_eq(f.placements[1].line, 6);
    cr_expect_str_eq(f.devices[2].text, "pthread");
    cr_expect_eq(f.placements[2].line, 0, "a plain selector: the file's slurm settings");
    cr_expect(!slurm_placement_same(&f.placements[0], &f.placements[1]));
    cr_expect(slurm_placement_same(&f.placements[2], &(slurm_placement){0}));
    campaign_file_free(&f);
    free(path);
}

Test(campaign_file, defaults_and_the_database_beside_the_file)
{
    char *path = write_campaign("night.yaml", "plugin: vector_add\n");
    campaign_file f;
    skytune_error err = {0};
    cr_assert_eq(campaign_file_read(path, &f, &err), 0, "%s", err.message);
    cr_expect_eq(f.runs, 10);
    cr_expect_eq(f.seed, 1);
    cr_expect_eq(f.gain_below, 0.0, "no stop on the expected gain unless asked");
    cr_expect(!f.transfers, "the kernels alone unless asked");
    cr_expect_eq(f.n_params, 0);
    char *db = cli_path(scratch, "night.db");
    cr_expect_str_eq(f.database, db);
    campaign_file_free(&f);
    free(db);
    free(path);
}

/* The refusals name the file, the line and the key. */
Test(campaign_file, unknown_key_names_file_line_and_the_valid_keys)
{
    char *msg = refused("plugin: vector_add\nstrategy: random\nbugdet: 10\n");
    cr_expect(strstr(msg, "bad.yaml:3: key 'bugdet': unknown key (did you mean 'budget'?); "
                          "valid keys are plugin, "),
              "%s", msg);
    free(msg);
    msg = refused("plugin: vector_add\nnotify:\n  url: 'http://x'\n  formt: slack\n");
    cr_expect(strstr(msg, ":4: key 'notify.formt': unknown key (did you mean 'format'?)"), "%s",
              msg);
    free(msg);
}

Test(campaign_file, bad_sweep_syntax_is_refused_at_its_line)
{
    struct {
        const char *yaml, *expect;
    } cases[] = {
        {"plugin: p\nproblem:\n  dms: [2, ..., 64]\n", ":3: key 'problem.dms': '...' needs at least two"},
        {"plugin: p\nproblem:\n  dms: [2, 4, 8, ..., 100]\n", "100 is not a term of 2, 4, 8, ..."},
        {"plugin: p\nproblem:\n  dms: [1024, 2048, ..., 8192]\n",
         ":3: key 'problem.dms': 1024, 2048, ..., 8192 reads two ways"},
        {"plugin: p\nproblem:\n  dms: [2, 4, ...]\n", "cannot end with '...'"},
        {"plugin: p\nproblem:\n  dms: [1, 2, 4, 7, ..., 20]\n", "20 is not a term of 4, 7, ..."},
        {"plugin: p\nproblem:\n  dms: [a, b, ..., z]\n", "is not a number"},
        {"plugin: p\nproblem:\n  dms: [4, 4]\n", "'4' is swept twice"},
        {"plugin: p\nproblem:\n  dms: []\n", "an empty list sweeps nothing"},
        {"plugin: p\nproblem:\n  dms: {from: 1, to: 8}\n", "a range needs from, to, and one of step"},
        {"plugin: p\nproblem:\n  dms: {from: 8, to: 1, step: 1}\n", "holds no value"},
        {"plugin: p\nproblem:\n  dms: {from: 1, to: 8, times: 1}\n", "times must be larger than 1"},
        {"plugin: p\nproblem:\n  dms: [[1, 2]]\n", "expected a value in the list, got a list"},
        {"plugin: p\nproblem:\n  dms: 1\n  dms: 2\n", ":4: key 'dms': problem parameter given twice"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *msg = refused(cases[k].yaml);
        cr_expect(strstr(msg, cases[k].expect), "case %zu: '%s' not in: %s", k, cases[k].expect,
                  msg);
        cr_expect(strstr(msg, "bad.yaml:"), "case %zu names no file: %s", k, msg);
        free(msg);
    }
}

Test(campaign_file, bad_values_and_shapes_are_refused)
{
    struct {
        const char *yaml, *expect;
    } cases[] = {
        {"strategy: random\n", ":1: key 'plugin' is missing"},
        {"plugin: [a, b]\n", ":1: key 'plugin': expected a text, got a list"},
        {"plugin: p\nbudget: 0\n", ":2: key 'budget': '0' is not a whole number from 1"},
        {"plugin: p\nruns: many\n", "key 'runs': 'many' is not a whole number"},
        {"plugin: p\ntime_limit: 0\n", "key 'time_limit': '0' is not a duration"},
        {"plugin: p\ntarget: fast\n", "key 'target': 'fast' is not a time"},
        {"plugin: p\nstop_when_gain_below: 2\n",
         ":2: key 'stop_when_gain_below': '2' is not a fraction between 0 and 1 (e.g. 0.01, or "
         "1%)"},
        {"plugin: p\nstop_when_gain_below: 0\n", "key 'stop_when_gain_below': '0' is not a fraction"},
        {"plugin: p\nstop_when_gain_below: 100%\n",
         "key 'stop_when_gain_below': '100%' is not a fraction"},
        {"plugin: p\nstop_when_gain_below: 1 %\n",
         "key 'stop_when_gain_below': '1 %' is not a fraction"},
        {"plugin: p\nstop_when_gain_below: [0.01]\n",
         "key 'stop_when_gain_below': expected a fraction between 0 and 1 (e.g. 0.01, or 1%), got "
         "a list"},
        {"plugin: p\ntransfers: maybe\n", ":2: key 'transfers': 'maybe' is not true or false"},
        {"plugin: p\ntransfers: {on: 1}\n",
         "key 'transfers': expected true or false, got a mapping"},
        {"plugin: p\nnotify: ftp://x\n", "key 'notify.url': 'ftp://x' is not an http"},
        {"plugin: p\ndevices: [all, NVIDIA]\n", "'all' already names every device"},
        {"plugin: p\ndevices: all\ncross: {top: 2}\n", "key 'cross': the cross-measurement"},
        {"plugin: p\nslurm: {time: \"1:00\\n#SBATCH --x\"}\n", "one line of printable text"},
        {"plugin: p\nslurm: {sbatch: [exclusive]}\n", "is not an sbatch option"},
        {"plugin: p\ndevices: [{slurm: {gres: 'gpu:1'}}]\n",
         ":2: key 'devices': an entry written as a mapping needs its 'device'"},
        {"plugin: p\ndevices: [{device: A, slurm: {node: x}}]\n",
         "key 'devices.slurm.node': unknown key; valid keys of devices.slurm are constraint, "
         "partition, gres"},
        {"plugin: p\ndevices: [{device: A, place: x}]\n",
         "key 'devices.place': unknown key; valid keys of devices are device, slurm"},
        {"plugin: p\ndevices: [{device: A, slurm: {}}]\n",
         "key 'devices.slurm': is empty: give constraint, partition or gres"},
        {"plugin: p\ndevices: [{device: A, slurm: {constraint: \"a\\n#SBATCH --x\"}}]\n",
         "key 'devices.slurm.constraint': must be one line of printable text"},
        {"plugin: p\ndevices: [[A]]\n", "key 'devices': each entry is a device selector or a "
                                          "mapping {device: SELECTOR, slurm:"},
        {"plugin: p\n---\nplugin: q\n", "a second YAML document"},
        {"plugin: p\n  bad indent: [\n", "not valid YAML"},
        {"- plugin\n", "expected a mapping"},
        {"", "the file is empty"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *msg = refused(cases[k].yaml);
        cr_expect(strstr(msg, cases[k].expect), "case %zu: '%s' not in: %s", k, cases[k].expect,
                  msg);
        free(msg);
    }
}

Test(campaign_file, missing_file_is_named)
{
    char *path = cli_path(scratch, "nowhere.yaml");
    campaign_file f;
    skytune_error err = {0};
    cr_assert_neq(campaign_file_read(path, &f, &err), 0);
    cr_expect(strstr(err.message, "nowhere.yaml") && strstr(err.message, "No such file"), "%s",
              err.message);
    free(path);
}

/* ----------------------------------------------------------- sweep terms */

static char *sweep_error(const char *const *items, size_t n)
{
    sweep_builder b;
    sweep_builder_init(&b);
    skytune_error err = {0};
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        rc = strcmp(items[k], "...") == 0 ? sweep_builder_ellipsis(&b, 1, &err)
                                          : sweep_builder_add(&b, items[k], 1, &err);
    if (rc == 0) rc = sweep_builder_finish(&b, &err);
    sweep_builder_free(&b);
    return rc == 0 ? NULL : strdup(err.message);
}

static void expect_terms(const char *const *items, size_t n, const char *const *want, size_t m)
{
    sweep_builder b;
    sweep_builder_init(&b);
    skytune_error err = {0};
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(strcmp(items[k], "...") == 0 ? sweep_builder_ellipsis(&b, 1, &err)
                                                  : sweep_builder_add(&b, items[k], 1, &err),
                     0, "%s", err.message);
    cr_assert_eq(sweep_builder_finish(&b, &err), 0, "%s", err.message);
    size_t count;
    located_text *v = sweep_builder_take(&b, &count);
    cr_assert_eq(count, m, "%zu terms, expected %zu", count, m);
    for (size_t k = 0; k < m; k++) cr_expect_str_eq(v[k].text, want[k], "term %zu", k);
    for (size_t k = 0; k < count; k++) free(v[k].text);
    free(v);
    sweep_builder_free(&b);
}

#define ITEMS(...) (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)

Test(campaign_file, progressions)
{
    /* Three terms decide: ratios agree, so geometric. */
    expect_terms(ITEMS("2", "4", "8", "...", "4096"),
                 ITEMS("2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "2048",
                       "4096"));
    /* Otherwise arithmetic, from the last two terms. */
    expect_terms(ITEMS("1", "2", "4", "7", "...", "13"), ITEMS("1", "2", "4", "7", "10", "13"));
    expect_terms(ITEMS("1", "2", "...", "5"), ITEMS("1", "2", "3", "4", "5"));
    /* Downwards, and values before and after a progression. */
    expect_terms(ITEMS("100", "10", "8", "...", "2", "1"), ITEMS("100", "10", "8", "6", "4", "2", "1"));
    /* Reals. */
    expect_terms(ITEMS("0.5", "1.0", "...", "2.5"), ITEMS("0.5", "1.0", "1.5", "2", "2.5"));
    /* Two progressions in one list. */
    expect_terms(ITEMS("1", "2", "...", "3", "10", "20", "...", "50"),
                 ITEMS("1", "2", "3", "10", "20", "30", "40", "50"));
    char *msg = sweep_error(ITEMS("1", "2", "...", "2.5"));
    cr_expect(msg && strstr(msg, "2.5 is not a term"), "%s", msg ? msg : "accepted");
    free(msg);
    msg = sweep_error(ITEMS("9223372036854775800", "9223372036854775807", "...",
                            "9223372036854775807"));
    cr_expect(msg == NULL, "a progression ending at INT64_MAX: %s", msg ? msg : "");
    free(msg);
    msg = sweep_error(ITEMS("1", "3", "9", "...", "9223372036854775807"));
    cr_expect(msg && (strstr(msg, "overflows") || strstr(msg, "not a term")), "%s",
              msg ? msg : "accepted");
    free(msg);
}

/* Two terms say a step and a ratio alike: the last value decides when it
 * is a term of one reading only, and the sweep is refused, naming both
 * readings and their explicit forms, when it is a term of both. */
Test(campaign_file, two_terms_follow_the_reading_the_last_value_fits)
{
    /* Not a multiple of the step from the first, a power of the ratio. */
    expect_terms(ITEMS("1", "1.5", "...", "2.25"), ITEMS("1", "1.5", "2.25"));
    expect_terms(ITEMS("2", "3", "...", "4.5"), ITEMS("2", "3", "4.5"));
    expect_terms(ITEMS("0.4", "1", "...", "6.25"), ITEMS("0.4", "1", "2.5", "6.25"));
    /* A multiple of the step, no power of the ratio. */
    expect_terms(ITEMS("2", "4", "...", "6"), ITEMS("2", "4", "6"));
    expect_terms(ITEMS("3", "6", "...", "15"), ITEMS("3", "6", "9", "12", "15"));
    /* A third term decides, whatever the last value. */
    expect_terms(ITEMS("1", "2", "3", "...", "8"), ITEMS("1", "2", "3", "4", "5", "6", "7", "8"));
    expect_terms(ITEMS("1024", "2048", "4096", "...", "8192"), ITEMS("1024", "2048", "4096", "8192"));
    /* Both: refused. */
    char *msg = sweep_error(ITEMS("1", "2", "...", "8"));
    cr_expect(msg && strstr(msg, "1, 2, ..., 8 reads two ways: adding 1 (8 values) or "
                                 "multiplying by 2 (4 values); write {from: 1, to: 8, step: 1} "
                                 "or {from: 1, to: 8, times: 2}"),
              "%s", msg ? msg : "accepted");
    free(msg);
    msg = sweep_error(ITEMS("1024", "2048", "...", "8192"));
    cr_expect(msg && strstr(msg, "1024, 2048, ..., 8192 reads two ways: adding 1024 (8 values) "
                                 "or multiplying by 2 (4 values)"),
              "%s", msg ? msg : "accepted");
    free(msg);
    msg = sweep_error(ITEMS("3", "6", "...", "12"));
    cr_expect(msg && strstr(msg, "{from: 3, to: 12, step: 3} or {from: 3, to: 12, times: 2}"),
              "%s", msg ? msg : "accepted");
    free(msg);
    /* The explicit forms say which. */
    sweep_builder b;
    sweep_builder_init(&b);
    skytune_error err = {0};
    cr_assert_eq(sweep_builder_range(&b, "1", "8", "2", true, 1, &err), 0, "%s", err.message);
    cr_assert_eq(sweep_builder_range(&b, "10", "13", "1", false, 1, &err), 0, "%s", err.message);
    size_t n;
    located_text *v = sweep_builder_take(&b, &n);
    const char *want[] = {"1", "2", "4", "8", "10", "11", "12", "13"};
    cr_assert_eq(n, 8);
    for (size_t k = 0; k < n; k++) {
        cr_expect_str_eq(v[k].text, want[k]);
        free(v[k].text);
    }
    free(v);
    sweep_builder_free(&b);
}

/* The longest sweep the format allows, 1,000,000 values, is built with
 * every value checked against the others (once a scan of all earlier ones:
 * about 20 minutes), and a repeat among them is still refused. */
Test(campaign_file, the_longest_sweep_is_built_and_its_repeats_refused)
{
    cr_expect_null(sweep_error(ITEMS("1", "2", "...", "1000000")));
    char *msg = sweep_error(ITEMS("1", "2", "...", "999999", "17"));
    cr_expect(msg && strstr(msg, "'17' is swept twice"), "%s", msg ? msg : "accepted");
    free(msg);
    msg = sweep_error(ITEMS("1", "2", "...", "1000000", "1000001"));
    cr_expect(msg && strstr(msg, "more than 1000000 values"), "%s", msg ? msg : "accepted");
    free(msg);
}

Test(campaign_file, ranges)
{
    sweep_builder b;
    sweep_builder_init(&b);
    skytune_error err = {0};
    cr_assert_eq(sweep_builder_range(&b, "2", "100", "3", true, 1, &err), 0, "%s", err.message);
    size_t n;
    located_text *v = sweep_builder_take(&b, &n);
    const char *want[] = {"2", "6", "18", "54"};
    cr_assert_eq(n, 4, "the range stops at the last term not past `to`");
    for (size_t k = 0; k < n; k++) {
        cr_expect_str_eq(v[k].text, want[k]);
        free(v[k].text);
    }
    free(v);
    sweep_builder_free(&b);
}

/* --------------------------------------------------------- instances, shards */

static campaign_file read_ok(const char *text)
{
    char *path = write_campaign("plan.yaml", text);
    campaign_file f;
    skytune_error err = {0};
    cr_assert_eq(campaign_file_read(path, &f, &err), 0, "%s", err.message);
    free(path);
    return f;
}

Test(campaign_file, instances_are_the_product_of_the_sweeps_first_varying_slowest)
{
    campaign_file f = read_ok("plugin: p\nproblem:\n  a: [1, 2]\n  fixed: 7\n  b: [x, y, z]\n");
    campaign_plan p;
    skytune_error err = {0};
    cr_assert_eq(campaign_plan_build(&f, 1, &p, &err), 0, "%s", err.message);
    cr_assert_eq(p.n_instances, 6);
    const char *labels[] = {"a=1,b=x", "a=1,b=y", "a=1,b=z", "a=2,b=x", "a=2,b=y", "a=2,b=z"};
    for (size_t i = 0; i < 6; i++) {
        cr_expect_str_eq(p.instances[i].label, labels[i], "instance %zu", i);
        cr_assert_eq(p.instances[i].n_sets, 3);
        cr_expect_str_eq(p.instances[i].sets[1], "fixed=7");
    }
    cr_expect_eq(p.n_units, 6, "one device entry: a unit per instance");
    campaign_plan_free(&p);
    campaign_file_free(&f);
}

/* The stopping rule and the transfers reach every unit's run, as
 * --stop-when-gain-below and --transfers would. */
Test(campaign_file, every_unit_runs_with_the_files_stop_and_transfers)
{
    const char *spellings[][2] = {{"0.005", "yes"}, {"0.5%", "True"}, {"0.25", "off"}};
    const double fractions[] = {0.005, 0.005, 0.25};
    const bool transfers[] = {true, true, false};
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "plugin: p\nproblem:\n  a: [1, 2]\nstop_when_gain_below: %s\ntransfers: %s\n",
                 spellings[k][0], spellings[k][1]);
        campaign_file f = read_ok(text);
        campaign_plan p;
        skytune_error err = {0};
        cr_assert_eq(campaign_plan_build(&f, 1, &p, &err), 0, "%s", err.message);
        cr_assert_eq(p.n_units, 2);
        for (size_t u = 0; u < p.n_units; u++) {
            tuning_request base = {0}, rq;
            campaign_unit_request(&f, &p, u, &base, &rq);
            cr_expect_float_eq(rq.limits.gain_below, fractions[k], 1e-12, "%s, unit %zu",
                               spellings[k][0], u);
            cr_expect_eq(rq.transfers, transfers[k], "%s, unit %zu", spellings[k][1], u);
        }
        campaign_plan_free(&p);
        campaign_file_free(&f);
    }
    /* Without the keys: no stop on the expected gain, the kernels alone. */
    campaign_file f = read_ok("plugin: p\n");
    campaign_plan p;
    skytune_error err = {0};
    cr_assert_eq(campaign_plan_build(&f, 1, &p, &err), 0, "%s", err.message);
    tuning_request base = {0}, rq;
    campaign_unit_request(&f, &p, 0, &base, &rq);
    cr_expect_eq(rq.limits.gain_below, 0.0);
    cr_expect(!rq.transfers);
    campaign_plan_free(&p);
    campaign_file_free(&f);
}

/* Every unit is in exactly one shard, whatever N. */
static void expect_partition(const campaign_plan *p)
{
    for (size_t u = 0; u < p->n_units; u++) {
        int owners = 0;
        for (unsigned s = 0; s < p->shards; s++) owners += campaign_plan_in_shard(p, u, s);
        cr_expect_eq(owners, 1, "unit %zu is in %d shards of %u", u, owners, p->shards);
    }
}

Test(campaign_file, shards_split_units_disjointly_and_parts_need_exhaustive)
{
    campaign_file f = read_ok("plugin: p\nstrategy: exhaustive\nproblem:\n  a: [1, 2]\n"
                              "devices: [A, B]\n");
    for (unsigned n = 1; n <= 12; n++) {
        campaign_plan p;
        skytune_error err = {0};
        cr_assert_eq(campaign_plan_build(&f, n, &p, &err), 0, "%s", err.message);
        unsigned parts = n <= 4 ? 1 : (n + 3) / 4;
        cr_expect_eq(p.n_units, 4 * parts, "N=%u: %zu units", n, p.n_units);
        for (size_t u = 0; u < p.n_units; u++) cr_expect_eq(p.units[u].parts, parts);
        expect_partition(&p);
        /* Each shard has work. */
        for (unsigned s = 0; s < n; s++) {
            size_t mine = 0;
            for (size_t u = 0; u < p.n_units; u++) mine += campaign_plan_in_shard(&p, u, s);
            cr_expect_gt(mine, 0, "N=%u: shard %u has nothing to do", n, s);
        }
        campaign_plan_free(&p);
    }
    campaign_file_free(&f);

    f = read_ok("plugin: p\nstrategy: random\nproblem:\n  a: [1, 2]\n");
    campaign_plan p;
    skytune_error err = {0};
    cr_assert_neq(campaign_plan_build(&f, 3, &p, &err), 0);
    cr_expect(strstr(err.message, "at most 2 shards"), "%s", err.message);
    campaign_file_free(&f);
}

Test(campaign_file, shard_option_and_database_names)
{
    unsigned i, n;
    skytune_error err = {0};
    cr_assert_eq(campaign_shard_parse("2/3", &i, &n, &err), 0, "%s", err.message);
    cr_expect(i == 2 && n == 3);
    const char *bad[] = {"3/3", "1", "-1/3", "a/b", "1/0", "/3", "1/"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cr_expect_neq(campaign_shard_parse(bad[k], &i, &n, &err), 0, "'%s' accepted", bad[k]);
        cr_expect(strstr(err.message, "--shard"), "%s", err.message);
    }
    char *db = campaign_shard_db("/data/sweep.db", 2, 3);
    cr_expect_str_eq(db, "/data/sweep.shard-2-of-3.db");
    free(db);
    db = campaign_shard_db("results", 0, 2);
    cr_expect_str_eq(db, "results.shard-0-of-2");
    free(db);
    db = campaign_shard_db("./a.b/sweep", 1, 2);
    cr_expect_str_eq(db, "./a.b/sweep.shard-1-of-2");
    free(db);
}

/* Every example in docs/campaigns/ reads, and passes the checks that need
 * its plugin (not those that need its devices: a GPU may be named). */
Test(campaign_file, the_documented_examples_are_valid)
{
    const char *names[] = {"vector_add", "dedispersion", "correlator", "beamformer", "ppf",
                           "gridding", "transpose", "lofar_pipeline",
                           "dedispersion-sweep-apertif", "dedispersion-sweep-lofar"};
    const char *dirs[] = {cli_plugin_dir()};
    plugin_search search = {.dirs = dirs, .n_dirs = 1};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/docs/campaigns/%s.yaml", cli_source_dir(), names[k]);
        campaign_file f;
        skytune_error err = {0};
        cr_assert_eq(campaign_file_read(path, &f, &err), 0, "%s", err.message);
        /* A file is named after its plugin, or its plugin and what it sweeps. */
        cr_expect(strncmp(names[k], f.plugin.text, strlen(f.plugin.text)) == 0, "%s: plugin %s",
                  names[k], f.plugin.text);
        cr_expect_eq(campaign_check_file(&f, &search, &err), 0, "%s", err.message);
        campaign_plan p;
        cr_expect_eq(campaign_plan_build(&f, 1, &p, &err), 0, "%s", err.message);
        cr_expect_gt(p.n_instances, 1, "%s sweeps nothing", names[k]);
        campaign_plan_free(&p);
        campaign_file_free(&f);
    }
}
