#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db_open.h"
#include "query.h"
#include "quote.h"
#include "run_common.h"
#include "stop_signals.h"
#include "store_confirmations.h"
#include "terminal_text.h"
#include "tuning_run.h"

static const cli_option own_options[] = {
    {"db", "FILE", false, "result database (required); the confirmation is recorded in it"},
    {"campaign", "ID", false, "only this campaign (default: every campaign measured on a device)"},
    {"top", "K", false, "how many of the campaign's best to confirm (default 5; at least 2)"},
    {"rounds", "R", false, "interleaved rounds: visits of each configuration (default 5)"},
    {"runs", "N", false, "timed runs of each visit (default 10)"},
    {"device", "SEL", false, "OpenCL device, as skytune run takes it (default: the campaign's device, by its name)"},
    {"plugin-dir", "DIR", true, "search DIR for plugins first"},
};

/* The supervision options of `run`, less its own --confirm options: here
 * --top and --rounds say the same. */
static size_t confirm_options(cli_option *out)
{
    size_t k = 0;
    for (size_t j = 0; j < sizeof own_options / sizeof own_options[0]; j++) out[k++] = own_options[j];
    for (size_t j = 0; j < run_supervision_option_count && k < CLI_MAX_OPTIONS; j++)
        if (!strstr(run_supervision_options[j].name, "confirm"))
            out[k++] = run_supervision_options[j];
    return k;
}

static int parse_unsigned(const cli_args *args, const char *option, unsigned low, unsigned high,
                          unsigned *out)
{
    const char *text = cli_get(args, option);
    if (!text) return 0;
    unsigned long long number;
    if (cli_parse_u64(option, text, &number) != 0) return -1;
    if (number < low || number > high) {
        cli_error("confirm: --%s must be between %u and %u, got %llu", option, low, high, number);
        return -1;
    }
    *out = (unsigned)number;
    return 0;
}

/* The campaigns to confirm: the one asked for, or every one. */
static int campaign_list(store *st, const char *path, const char *campaign, int64_t **ids,
                         size_t *n)
{
    query_table t;
    skytune_error err;
    const char *params[2] = {campaign, NULL};
    char shown[QUOTE_PATH];
    if (query_run_named(store_handle(st), "campaigns", params, 2, &t, &err) != 0) {
        cli_error("%s: %s", quote_text(path, shown, sizeof shown), err.message);
        return -1;
    }
    *n = 0;
    *ids = calloc(t.n_rows + 1, sizeof **ids);
    if (!*ids) {
        query_table_free(&t);
        cli_error("confirm: out of memory");
        return -1;
    }
    for (size_t r = 0; r < t.n_rows; r++) {
        const char *id = query_cell(&t, r, "campaign");
        if (id) (*ids)[(*n)++] = strtoll(id, NULL, 10);
    }
    query_table_free(&t);
    if (campaign && *n == 0) {
        cli_error("confirm: %s has no campaign %s (skytune best --db %s lists them)",
                  quote_text(path, shown, sizeof shown), campaign, shown);
        return -1;
    }
    return 0;
}

/* One campaign confirmed: EXIT_OK, or EXIT_FAILED with the error said. */
static int confirm_one(tuning_request *rq, const char *device, int64_t id)
{
    store *st = cli_open_existing_db(rq->db_path, rq->busy_timeout_s);
    if (!st) return EXIT_FAILED;
    store_campaign_origin origin;
    skytune_error err;
    int read = store_campaign_origin_of(st, id, &origin, &err);
    store_close(st);
    if (read != 0) {
        cli_error("confirm: campaign %lld: %s", (long long)id, err.message);
        return EXIT_FAILED;
    }
    terminal_printf("campaign %lld: %s on %s, %s\n", (long long)id, origin.plugin, origin.device,
                    origin.problem_text);
    int rc = EXIT_OK;
    if (origin.replayed) {
        printf("confirmed: no (replayed times are recorded ones: nothing to confirm)\n");
    } else {
        rq->plugin = origin.plugin;
        rq->sets = (const char *const *)origin.problem_sets;
        rq->n_sets = origin.n_problem_sets;
        rq->device = device ? device : origin.device;
        confirmation_outcome out;
        if (tuning_confirm(rq, id, &out, &err) != 0) {
            cli_error("confirm: campaign %lld: %s", (long long)id, err.message);
            rc = EXIT_FAILED;
        } else {
            run_print_confirmation(&out);
        }
    }
    printf("\n");
    store_campaign_origin_free(&origin);
    return rc;
}

int cmd_confirm(int argc, char **argv)
{
    cli_args args;
    cli_option options[CLI_MAX_OPTIONS];
    size_t n_options = confirm_options(options);
    int rc = cli_parse("confirm",
                       "Confirm the winners of campaigns already measured: each campaign's best "
                       "configurations are timed again on its device, interleaved (A B C … A B "
                       "C …, each visit with its warm-up) in one supervised measuring worker, "
                       "and the winner is decided on those rounds. The confirmation is recorded "
                       "in the database (its confirmations table) and shown by best and report. "
                       "Plugin and problem come from the database.",
                       options, n_options, 0, NULL, argc, argv, &args);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    const char *path = cli_get(&args, "db"), *campaign = cli_get(&args, "campaign");
    if (!path) {
        cli_error("confirm: --db FILE is required");
        return EXIT_USAGE;
    }
    tuning_request rq = {0};
    if (cli_campaign_arg(campaign) != 0 || run_parse_supervision(&args, &rq) != 0)
        return EXIT_USAGE;
    rq.confirm_top = CONFIRM_DEFAULT_TOP;
    rq.confirm_rounds = CONFIRM_DEFAULT_ROUNDS;
    rq.runs = 10;
    rq.seed = 1;
    if (parse_unsigned(&args, "top", 2, CONFIRM_MAX_TOP, &rq.confirm_top) != 0 ||
        parse_unsigned(&args, "rounds", 1, CONFIRM_MAX_ROUNDS, &rq.confirm_rounds) != 0 ||
        parse_unsigned(&args, "runs", 1, 100000, &rq.runs) != 0)
        return EXIT_USAGE;
    rq.db_path = path;
    rq.search.n_dirs = cli_all(&args, "plugin-dir", &rq.search.dirs);
    /* One configuration at a time: nothing to build ahead. */
    rq.compile_jobs = 0;
    rq.measure_ahead = 0;
    char *worker_exe = NULL;
    if (!cli_flag(&args, "no-isolation")) {
        worker_exe = run_own_executable();
        if (!worker_exe) {
            cli_error("confirm: cannot find this executable to start workers (/proc/self/exe); "
                      "--no-isolation measures in this process");
            return EXIT_FAILED;
        }
    }
    rq.worker_exe = worker_exe;
    store *st = cli_open_existing_db(path, rq.busy_timeout_s);
    if (!st) {
        free(worker_exe);
        return EXIT_FAILED;
    }
    int64_t *ids = NULL;
    size_t n = 0;
    int listed = campaign_list(st, path, campaign, &ids, &n);
    store_close(st);
    if (listed != 0) {
        free(worker_exe);
        return EXIT_FAILED;
    }
    rq.stop_requested = stop_signals_receive("confirm", rq.watchdog.stop_grace_s);
    int status = EXIT_FAILED;
    if (rq.stop_requested) {
        /* A campaign that cannot be confirmed (its plugin gone) is said,
         * and the others are still confirmed. */
        status = EXIT_OK;
        for (size_t k = 0; k < n && !*rq.stop_requested; k++)
            if (confirm_one(&rq, cli_get(&args, "device"), ids[k]) != EXIT_OK) status = EXIT_FAILED;
        if (*rq.stop_requested && status == EXIT_OK) status = stop_signals_exit_status();
        stop_signals_release();
    }
    free(ids);
    free(worker_exe);
    return status;
}
