/* skytune: an offline auto-tuner for OpenCL kernels. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nearest.h"
#include "quote.h"
#include "stop_signals.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    /* Runs campaigns: the stop signals are blocked before it starts (see
     * stop_signals.h). */
    bool runs_campaigns;
} commands[] = {
    {"devices", cmd_devices, "list the OpenCL devices", false},
    {"plugins", cmd_plugins, "list kernel plugins; `plugins show NAME` describes one", false},
    {"run", cmd_run, "tune a kernel: search its space, measure, record in a database", true},
    {"best", cmd_best, "the best configuration of each campaign in a database", false},
    {"confirm", cmd_confirm, "time a campaign's best configurations again, interleaved, to confirm its winner", true},
    {"export", cmd_export, "write measurements as CSV, or the best configurations as JSON, a C header or T4", false},
    {"report", cmd_report, "write an HTML report (and CSV data) of a result database", false},
    {"publish", cmd_publish, "upload a campaign's T4 results or HTML report to a web server", false},
    {"query", cmd_query, "run one of the report's named queries: table, CSV or JSON", false},
    {"bench-strategies", cmd_bench_strategies, "judge search strategies on recorded search spaces (replay)", false},
    {"campaign", cmd_campaign, "run a campaign file (a sweep of problems, devices, shards); its status; SLURM scripts", true},
    {"merge", cmd_merge, "merge result databases (a campaign's shards) into one", false},
    {"cache", cmd_cache, "the on-disk cache of compiled programs: its size; `cache clear` empties it", false},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: skytune COMMAND [options]   (skytune COMMAND --help for its options)\n\n"
               "commands:\n");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        fprintf(f, "  %-10s %s\n", commands[k].name, commands[k].summary);
    fprintf(f, "\nexit codes:\n"
               "  0    success\n"
               "  1    the command failed (bad input or a runtime error; the message says which)\n"
               "  2    usage error (unknown option, missing value)\n"
               "  130  stopped by Ctrl-C (SIGINT), 143 by SIGTERM, 138 by SIGUSR1 (a batch\n"
               "       system's warning before its time limit): the configuration in flight\n"
               "       finished or was released, the database is consistent and the same\n"
               "       command continues the run\n");
}

int main(int argc, char **argv)
{
    /* A file size limit (ulimit -f) must fail a write with EFBIG, which the
     * binary cache and the database report, not end the process: a worker
     * ended while storing a program would have the configuration recorded
     * as a crash. The workers inherit it: an ignored signal stays ignored
     * across exec. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[1], commands[k].name) == 0) {
            /* First, before anything can start a thread: OpenCL platforms,
             * libcurl and the notification sender start their own, and a
             * stop signal the kernel hands to a thread that does not block
             * it kills the process. */
            if (commands[k].runs_campaigns) stop_signals_block();
            return commands[k].run(argc - 2, argv + 2);
        }
    /* Not listed: the engine starts its own worker processes this way. A
     * worker inherits the blocked stop signals from the engine and keeps
     * them blocked whoever started it: a Ctrl-C at a terminal or a batch
     * system's signal reaches every process of the run, and the engine,
     * not the signal, decides what happens to the configuration in flight. */
    if (strcmp(argv[1], "worker") == 0) {
        stop_signals_block();
        return cmd_worker(argc - 2, argv + 2);
    }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) names[k] = commands[k].name;
    char shown[QUOTE_TEXT], hint[64];
    cli_error("unknown command '%s'%s", quote_text(argv[1], shown, sizeof shown),
              nearest_hint(argv[1], names, sizeof names / sizeof names[0], NULL, hint,
                           sizeof hint));
    usage(stderr);
    return EXIT_USAGE;
}
