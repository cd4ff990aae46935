/* skytune: an offline auto-tuner for OpenCL kernels. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "quote.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"devices", cmd_devices, "list the OpenCL devices"},
    {"plugins", cmd_plugins, "list kernel plugins; `plugins show NAME` describes one"},
    {"run", cmd_run, "tune a kernel: search its space, measure, record in a database"},
    {"best", cmd_best, "the best configuration of each campaign in a database"},
    {"export", cmd_export, "write measurements as CSV, or the best configurations as JSON, a C header or T4"},
    {"report", cmd_report, "write an HTML report (and CSV data) of a result database"},
    {"publish", cmd_publish, "upload a campaign's T4 results or HTML report to a web server"},
    {"query", cmd_query, "run one of the report's named queries: table, CSV or JSON"},
    {"bench-strategies", cmd_bench_strategies, "judge search strategies on recorded search spaces (replay)"},
    {"campaign", cmd_campaign, "run a campaign file (a sweep of problems, devices, shards); its status; SLURM scripts"},
    {"merge", cmd_merge, "merge result databases (a campaign's shards) into one"},
    {"cache", cmd_cache, "the on-disk cache of compiled programs: its size; `cache clear` empties it"},
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
               "  130  interrupted by Ctrl-C; the database is consistent and the same\n"
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
        if (strcmp(argv[1], commands[k].name) == 0) return commands[k].run(argc - 2, argv + 2);
    /* Not listed: the engine starts its own worker processes this way. */
    if (strcmp(argv[1], "worker") == 0) return cmd_worker(argc - 2, argv + 2);
    char shown[QUOTE_TEXT];
    cli_error("unknown command '%s'", quote_text(argv[1], shown, sizeof shown));
    usage(stderr);
    return EXIT_USAGE;
}
