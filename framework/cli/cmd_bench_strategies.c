#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "input_limits.h"
#include "quote.h"
#include "replay_evaluator.h"
#include "replay_load.h"
#include "replay_recorded.h"
#include "strategy.h"
#include "strategy_bench.h"
#include "t1.h"
#include "terminal_text.h"
#include "warm_start.h"

static const cli_option options[] = {
    {"replay", "FILE", true, "recorded dataset: Kernel Tuner cache, T4 results (.gz or plain) or skytune database[:CAMPAIGN] (required)"},
    {"space", "FILE", false, "T1 file with the search space, or 'recorded': each dataset's configurations (default: each dataset's own parameter lists)"},
    {"strategy", "LIST", false, "all (default), default, or a comma-separated list of strategies"},
    {"budget", "LIST", false, "comma-separated budgets (default 20,50,100,200)"},
    {"budget-unit", "UNIT", false, "evaluations (default) or seconds of recorded compile + benchmark time"},
    {"runs", "N", false, "seeded runs per cell (default 100)"},
    {"seed", "N", false, "first seed (default 1); run r uses seed + r"},
    {"strategy-opt", "KEY=VALUE", true, "option given to every strategy judged (see skytune run --help)"},
    {"warm-start", "FILE|others", true, "warm-start every run from this recording of the space on another device; 'others': from the other --replay datasets, leaving out the one judged (leave one device out)"},
    {"jobs", "N", false, "runs in parallel (default: one per online CPU); the figures do not depend on it"},
    {"csv", "FILE", false, "also write one row per dataset, strategy and budget"},
    INPUT_LIMIT_OPTIONS,
};

#define MAX_ITEMS 64

/* Split "a,b,c" in place. */
static size_t split_list(char *text, char **items)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(text, ",", &save); t && n < MAX_ITEMS; t = strtok_r(NULL, ",", &save))
        items[n++] = t;
    return n;
}

static int resolve_strategies(char *text, const char **out, size_t *n)
{
    *n = 0;
    if (strcmp(text, "all") == 0) {
        size_t count;
        const strategy_ops *const *all = strategy_registry(&count);
        for (size_t k = 0; k < count && k < MAX_ITEMS; k++) out[(*n)++] = all[k]->name;
        return 0;
    }
    char *items[MAX_ITEMS];
    size_t count = split_list(text, items);
    for (size_t k = 0; k < count; k++) {
        const char *name = strcmp(items[k], "default") == 0 ? strategy_default_name() : items[k];
        if (!strategy_find(name)) {
            char shown[QUOTE_TEXT], hint[96];
            cli_error("--strategy: unknown strategy '%s'%s; valid: all, default, or names from "
                      "skytune run --help",
                      quote_text(items[k], shown, sizeof shown),
                      strategy_nearest_hint(items[k], hint, sizeof hint));
            return -1;
        }
        out[(*n)++] = name;
    }
    return *n ? 0 : -1;
}

static void print_table_header(void)
{
    printf("  %-14s %8s %9s %7s %7s %8s %7s %9s\n", "strategy", "budget", "fraction", "sd", "min",
           "optimum", "score", "evals");
}

static void print_cell(const bench_cell *c)
{
    printf("  %-14s %8g %9.4f %7.4f %7.4f %7.0f%% %7.3f %9.1f\n", c->strategy, c->budget,
           c->mean_fraction, c->sd_fraction, c->min_fraction, 100.0 * c->found_optimum, c->score,
           c->mean_evaluations);
}

static const char csv_header[] =
    "dataset,strategy,default,budget,runs,mean_fraction,sd_fraction,min_fraction,"
    "found_optimum,mean_evaluations,expected_random_ns,optimum_ns,score\n";

/* Rows of `mean` cells have no single optimum or random expectation: those
 * fields are left empty. */
static void write_csv_rows(FILE *f, const bench_cell *cells, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const bench_cell *c = &cells[k];
        csv_write_field(f, c->dataset);
        fputc(',', f);
        csv_write_field(f, c->strategy);
        fprintf(f, ",%d,%g,%u,%.6f,%.6f,%.6f,%.4f,%.2f,", strcmp(c->strategy, strategy_default_name()) == 0,
                c->budget, c->runs, c->mean_fraction, c->sd_fraction, c->min_fraction,
                c->found_optimum, c->mean_evaluations);
        if (!isnan(c->expected_random)) fprintf(f, "%.6g", c->expected_random);
        fputc(',', f);
        if (!isnan(c->optimum_ns)) fprintf(f, "%.6g", c->optimum_ns);
        fprintf(f, ",%.6f\n", c->score);
    }
}

/* Averages over datasets, one cell per strategy and budget, named "mean". */
static size_t average_cells(const bench_cell *cells, size_t n, bench_cell *out)
{
    size_t n_out = 0;
    for (size_t k = 0; k < n; k++) {
        size_t j = 0;
        while (j < n_out && !(strcmp(out[j].strategy, cells[k].strategy) == 0 &&
                              out[j].budget == cells[k].budget))
            j++;
        if (j == n_out) {
            out[n_out] = cells[k];
            out[n_out].dataset = "mean";
            out[n_out].mean_fraction = out[n_out].sd_fraction = out[n_out].score = 0;
            out[n_out].found_optimum = out[n_out].mean_evaluations = 0;
            out[n_out].min_fraction = INFINITY;
            out[n_out].expected_random = out[n_out].optimum_ns = NAN;
            out[n_out].runs = 0;
            n_out++;
        }
        bench_cell *a = &out[j];
        a->runs++; /* datasets averaged */
        a->mean_fraction += cells[k].mean_fraction;
        a->sd_fraction += cells[k].sd_fraction;
        a->score += cells[k].score;
        a->found_optimum += cells[k].found_optimum;
        a->mean_evaluations += cells[k].mean_evaluations;
        if (cells[k].min_fraction < a->min_fraction) a->min_fraction = cells[k].min_fraction;
    }
    for (size_t j = 0; j < n_out; j++) {
        double d = out[j].runs;
        out[j].mean_fraction /= d;
        out[j].sd_fraction /= d;
        out[j].score /= d;
        out[j].found_optimum /= d;
        out[j].mean_evaluations /= d;
        out[j].runs = cells[0].runs;
    }
    return n_out;
}

/* The budgets of --budget, split in place from `text`, and their unit
 * (--budget-unit): EXIT_OK or EXIT_USAGE. */
static int parse_budgets(const cli_args *args, char *text, double *budgets, size_t *n_budgets,
                         bench_budget_unit *unit, const char **unit_text)
{
    char *items[MAX_ITEMS];
    *n_budgets = split_list(text, items);
    if (*n_budgets == 0) {
        cli_error("--budget: no budget given; expected a comma-separated list such as 20,50,100,200");
        return EXIT_USAGE;
    }
    for (size_t k = 0; k < *n_budgets; k++) {
        char *end;
        budgets[k] = strtod(items[k], &end);
        if (*end || !(budgets[k] > 0)) {
            char shown[QUOTE_TEXT];
            cli_error("--budget: '%s' is not a positive number",
                      quote_text(items[k], shown, sizeof shown));
            return EXIT_USAGE;
        }
    }
    *unit_text = cli_get(args, "budget-unit") ? cli_get(args, "budget-unit") : "evaluations";
    if (strcmp(*unit_text, "evaluations") == 0)
        *unit = BENCH_EVALUATIONS;
    else if (strcmp(*unit_text, "seconds") == 0)
        *unit = BENCH_SECONDS;
    else {
        static const char *const units[] = {"evaluations", "seconds"};
        cli_check_choice("--budget-unit", *unit_text, units, 2);
        return EXIT_USAGE;
    }
    for (size_t k = 0; k < *n_budgets && *unit == BENCH_EVALUATIONS; k++)
        if (budgets[k] != floor(budgets[k]) || budgets[k] > 1e15) {
            cli_error("--budget: '%s' is not a whole number of evaluations from 1 to 10^15 (a "
                      "budget in recorded seconds takes --budget-unit seconds)", items[k]);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

/* --runs, --seed and --jobs: EXIT_OK or EXIT_USAGE. */
static int parse_counts(const cli_args *args, unsigned long long *runs, unsigned long long *seed,
                        unsigned long long *jobs)
{
    *runs = 100;
    *seed = 1;
    *jobs = 0;
    if (cli_get(args, "runs") &&
        (cli_parse_u64("runs", cli_get(args, "runs"), runs) != 0 || *runs == 0))
        return EXIT_USAGE;
    if (cli_get(args, "seed") && cli_parse_u64("seed", cli_get(args, "seed"), seed) != 0)
        return EXIT_USAGE;
    if (cli_get(args, "jobs")) {
        if (cli_parse_u64("jobs", cli_get(args, "jobs"), jobs) != 0) return EXIT_USAGE;
        if (*jobs == 0 || *jobs > 4096) {
            cli_error("--jobs %llu: expected a number of threads from 1 to 4096", *jobs);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* What every dataset is judged with. */
typedef struct bench_setup {
    bench_plan plan;
    unsigned long long runs;   /* as given, for the tables' headings */
    const char *unit_text;
    /* The configurations judged: the --space T1 file's for every dataset,
     * or with --space recorded each dataset's recorded ones; else each
     * dataset's own parameter lists. */
    space *t1;
    bool recorded;
    space_control control;
    uint64_t max_json_bytes;
    /* Warm start: the --warm-start files' datasets, and whether the other
     * --replay datasets join them ("others"). */
    replay_dataset **warm_files;
    size_t n_warm_files;
    bool warm_others;
} bench_setup;

/* The warm start for dataset `judged` of `all`: the --warm-start files,
 * and with "others" every other --replay dataset. 0 with nothing to give
 * (w left empty). */
static int bench_warm_start(const bench_setup *b, replay_dataset *const *all, size_t n_all,
                            size_t judged, const space *sp, warm_start *w, skytune_error *err)
{
    *w = (warm_start){0};
    const replay_dataset *sources[2 * MAX_ITEMS];
    size_t n = 0;
    for (size_t k = 0; k < b->n_warm_files; k++) sources[n++] = b->warm_files[k];
    for (size_t k = 0; b->warm_others && k < n_all; k++)
        if (k != judged) sources[n++] = all[k];
    return n ? warm_start_build(sources, n, sp, w, err) : 0;
}

/* Dataset `judged` of `all` judged, its table printed and its cells added
 * to *cells. */
static int bench_file(const char *file, replay_dataset *const *all, size_t n_all, size_t judged,
                      const bench_setup *b, bench_cell **cells, size_t *n_cells)
{
    skytune_error err = {0};
    replay_dataset *data = all[judged];
    space *own_space = NULL, *recorded_definition = NULL;
    replay_evaluator *re = NULL;
    warm_start warm = {0};
    int rc = EXIT_OK;
    if ((!b->t1 &&
         (b->recorded ? replay_recorded_definition(data, &recorded_definition, &err) != 0 ||
                            space_from_definition(recorded_definition, &b->control, &own_space,
                                                  &err) != 0
                      : replay_dataset_space(data, &own_space, &err) != 0)) ||
        replay_evaluator_new(data, b->t1 ? b->t1 : own_space, &re, &err) != 0 ||
        bench_warm_start(b, all, n_all, judged, b->t1 ? b->t1 : own_space, &warm, &err) != 0) {
        cli_error("%s", err.message);
        rc = EXIT_FAILED;
    } else {
        bench_dataset d = {data->name, b->t1 ? b->t1 : own_space, re,
                           warm.recordings ? &warm.prior : NULL};
        size_t first = *n_cells;
        if (strategy_bench_dataset(&d, &b->plan, cells, n_cells, &err) != 0) {
            char shown[QUOTE_PATH];
            cli_error("%s: %s", quote_text(file, shown, sizeof shown), err.message);
            rc = EXIT_FAILED;
        } else {
            /* The dataset's name is the file's or what the file says. */
            terminal_printf("%s: %llu configurations, optimum %.6g ms, %llu runs per cell, "
                            "budget in %s",
                            data->name, (unsigned long long)space_count(d.space),
                            (*cells)[first].optimum_ns / 1e6, b->runs, b->unit_text);
            if (warm.recordings)
                printf(", warm start from %zu recording%s (%zu configurations)",
                       warm.recordings, warm.recordings == 1 ? "" : "s", warm.prior.count);
            printf("\n");
            print_table_header();
            for (size_t k = first; k < *n_cells; k++) print_cell(&(*cells)[k]);
            printf("\n");
        }
    }
    warm_start_free(&warm);
    replay_evaluator_free(re);
    space_free(own_space);
    space_free(recorded_definition);
    return rc;
}

/* The --warm-start arguments: files loaded into b->warm_files, "others"
 * noted. EXIT_OK or EXIT_FAILED. */
static int load_warm_files(const cli_args *args, bench_setup *b)
{
    const char *const *items;
    size_t n = cli_all(args, "warm-start", &items);
    b->warm_files = calloc(n ? n : 1, sizeof *b->warm_files);
    if (!b->warm_files) {
        cli_error("out of memory");
        return EXIT_FAILED;
    }
    for (size_t k = 0; k < n; k++) {
        if (strcmp(items[k], "others") == 0) {
            b->warm_others = true;
            continue;
        }
        skytune_error err = {0};
        if (b->n_warm_files >= MAX_ITEMS ||
            replay_load(items[k], b->max_json_bytes, &b->warm_files[b->n_warm_files], &err) != 0) {
            cli_error("--warm-start: %s", b->n_warm_files >= MAX_ITEMS
                                              ? "at most 64 files"
                                              : err.message);
            return EXIT_FAILED;
        }
        b->n_warm_files++;
    }
    return EXIT_OK;
}

static int write_csv(const char *path, const bench_cell *cells, size_t n_cells,
                     const bench_cell *means, size_t n_means)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        char shown[QUOTE_PATH];
        cli_error("bench-strategies: cannot write %s", quote_text(path, shown, sizeof shown));
        return EXIT_FAILED;
    }
    fputs(csv_header, out);
    write_csv_rows(out, cells, n_cells);
    write_csv_rows(out, means, n_means);
    return fclose(out) != 0 ? EXIT_FAILED : EXIT_OK;
}

int cmd_bench_strategies(int argc, char **argv)
{
    cli_args args;
    int rc = cli_parse("bench-strategies",
                       "Judge search strategies on recorded search spaces: for each dataset, "
                       "strategy and budget, run the strategy many times against the replayed "
                       "measurements and report the mean fraction of the optimum it reaches "
                       "(t_optimum / t_best, 1 = found it), its spread, the share of runs that "
                       "found the optimum, and a score against random search: (E[t_random_best] "
                       "- t_best) / (E[t_random_best] - t_optimum), 0 = no better than random, "
                       "1 = always optimal.",
                       options, sizeof options / sizeof options[0], 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *const *files;
    size_t n_files = cli_all(&args, "replay", &files);
    if (n_files == 0) {
        cli_error("bench-strategies: at least one --replay FILE is required");
        return EXIT_USAGE;
    }
    char strategy_text[1024], budget_text[1024];
    snprintf(strategy_text, sizeof strategy_text, "%s",
             cli_get(&args, "strategy") ? cli_get(&args, "strategy") : "all");
    snprintf(budget_text, sizeof budget_text, "%s",
             cli_get(&args, "budget") ? cli_get(&args, "budget") : "20,50,100,200");
    const char *strategies[MAX_ITEMS];
    size_t n_strategies;
    if (resolve_strategies(strategy_text, strategies, &n_strategies) != 0) return EXIT_USAGE;
    double budgets[MAX_ITEMS];
    bench_setup b = {.plan = {.strategies = strategies, .n_strategies = n_strategies,
                              .budgets = budgets}};
    unsigned long long seed, jobs;
    if (parse_budgets(&args, budget_text, budgets, &b.plan.n_budgets, &b.plan.unit,
                      &b.unit_text) != EXIT_OK ||
        parse_counts(&args, &b.runs, &seed, &jobs) != EXIT_OK)
        return EXIT_USAGE;
    input_limits limits;
    if (input_limits_parse(&args, &limits) != 0) return EXIT_USAGE;
    b.control = (space_control){.work_limit = limits.space_work_limit};
    b.max_json_bytes = limits.max_json_bytes;

    skytune_error err = {0};
    const char *space_path = cli_get(&args, "space");
    b.recorded = space_path && strcmp(space_path, REPLAY_RECORDED_SPACE) == 0;
    if (space_path && !b.recorded &&
        t1_load_space(space_path, limits.max_json_bytes, &b.control, &b.t1, &err) != 0) {
        cli_error("%s", err.message);
        return EXIT_FAILED;
    }
    bench_settings settings;
    settings.count = cli_all(&args, "strategy-opt", &settings.items);
    b.plan.runs = (unsigned)b.runs;
    b.plan.seed_base = seed;
    b.plan.settings = &settings;
    b.plan.threads = (unsigned)jobs;

    bench_cell *cells = NULL;
    size_t n_cells = 0;
    replay_dataset *datasets[MAX_ITEMS] = {NULL};
    rc = load_warm_files(&args, &b);
    if (rc == EXIT_OK && n_files > MAX_ITEMS) {
        cli_error("bench-strategies: at most %d --replay files", MAX_ITEMS);
        rc = EXIT_USAGE;
    }
    /* Every dataset is loaded first: with "others", each one warm-starts
     * the judging of the rest. */
    for (size_t f = 0; f < n_files && rc == EXIT_OK; f++) {
        if (replay_load(files[f], limits.max_json_bytes, &datasets[f], &err) != 0) {
            cli_error("%s", err.message);
            rc = EXIT_FAILED;
        }
    }
    for (size_t f = 0; f < n_files && rc == EXIT_OK; f++)
        rc = bench_file(files[f], datasets, n_files, f, &b, &cells, &n_cells);
    bench_cell *means = rc == EXIT_OK && n_files > 1 ? malloc(n_cells * sizeof *means) : NULL;
    size_t n_means = means ? average_cells(cells, n_cells, means) : 0;
    if (n_means) {
        printf("mean over %zu datasets\n", n_files);
        print_table_header();
        for (size_t k = 0; k < n_means; k++) print_cell(&means[k]);
    }
    const char *csv_path = cli_get(&args, "csv");
    if (rc == EXIT_OK && csv_path) rc = write_csv(csv_path, cells, n_cells, means, n_means);
    free(means);
    for (size_t f = 0; f < MAX_ITEMS; f++) replay_free(datasets[f]);
    for (size_t f = 0; f < b.n_warm_files; f++) replay_free(b.warm_files[f]);
    free(b.warm_files);
    free(cells);
    space_free(b.t1);
    return rc;
}
