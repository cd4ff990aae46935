/* Campaign files: what `skytune campaign run FILE` runs, read from YAML.
 *
 * A campaign file names a plugin, its problem parameters (fixed values and
 * sweeps: lists, progressions written with "...", and ranges), the search
 * (strategy, options, budget, runs, seed, restrictions), the devices, the
 * database, limits for the whole campaign, notifications, an optional
 * cross-measurement step and the settings of a SLURM job array. docs/
 * campaigns.md describes every key.
 *
 * Every value keeps the line it was written on, so that a later check (an
 * unknown plugin parameter, a value outside the space) can name the file,
 * the line and the key. Reading checks the file's shape and the syntax of
 * each value; what needs the plugin is checked by campaign_sweep_check. */
#ifndef SKYTUNE_CAMPAIGN_FILE_H
#define SKYTUNE_CAMPAIGN_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "sweep_values.h"

/* A problem parameter: one value, or a sweep of several. */
typedef struct sweep_param {
    char *name;
    int line;                  /* of the key */
    located_text *values;      /* expanded: a progression is every term */
    size_t count;
    bool swept;                /* given as a list or range, even of one value */
} sweep_param;

/* A tuning parameter's values kept by `only`. */
typedef struct only_param {
    char *name;
    int line;
    char *values;              /* "v1,v2,..." as --only takes them */
} only_param;

typedef struct slurm_settings {
    char *partition;           /* NULL: the cluster's default */
    char *gres;                /* default "gpu:1"; "none": no --gres line */
    char *time;                /* wall time per task, SLURM's syntax; NULL: none asked */
    char *account;
    unsigned cpus_per_task;    /* 0: not asked */
    located_text *sbatch_options; /* further "#SBATCH" lines, verbatim */
    size_t n_sbatch_options;
} slurm_settings;

/* Where a device entry's shards run on a cluster: its own #SBATCH
 * placement lines, over the file's `slurm` settings. NULL: the file's. */
typedef struct slurm_placement {
    char *constraint;          /* --constraint: node features, e.g. "h100" */
    char *partition;           /* --partition */
    char *gres;                /* --gres; "none": no --gres line */
    int line;                  /* of the entry's `slurm` key; 0: none given */
} slurm_placement;

typedef struct campaign_file {
    char *path;                /* as given */
    char *name;                /* as messages name it: quoted (quote.h) */
    char *dir;                 /* its directory: relative paths resolve against it */
    located_text plugin;
    located_text preset;       /* text NULL: none */
    sweep_param *params;       /* in file order */
    size_t n_params;
    int problem_line;          /* of the `problem` key, 0 when absent */
    located_text strategy;     /* text NULL: the default */
    located_text *strategy_opts; /* "key=value" */
    size_t n_strategy_opts;
    located_text *restricts;
    size_t n_restricts;
    only_param *only;
    size_t n_only;
    /* Per instance. */
    uint64_t budget;           /* 0: no limit */
    double time_limit_s;       /* 0: no limit */
    double target_ns, target_gflops;
    unsigned runs;             /* default 10 */
    uint64_t seed;             /* default 1 */
    double gain_below;         /* stop_when_gain_below, a fraction; 0: no such stop */
    bool transfers;            /* time the plugin's host-device copies too */
    int transfers_line;        /* of the `transfers` key, 0 when absent */
    /* The whole campaign. */
    uint64_t campaign_budget;
    double campaign_time_limit_s;
    located_text *devices;     /* selectors, or one "all"; none: the default device */
    size_t n_devices;
    slurm_placement *placements; /* n_devices: each entry's SLURM placement */
    char *database;            /* resolved against dir; default: the file's name with .db */
    int database_line;
    located_text notify_url;   /* text NULL: no notifications */
    char *notify_format;       /* json (default), slack, matrix */
    char *notify_ca;           /* resolved against dir */
    unsigned cross_top;        /* 0: no cross-measurement step */
    int cross_line;
    slurm_settings slurm;
} campaign_file;

/* Reads and checks the shape of FILE. Messages start "FILE:LINE: key 'K':". */
int campaign_file_read(const char *path, campaign_file *out, skytune_error *err);
void campaign_file_free(campaign_file *f);

/* "FILE:LINE: " in front of an error about the value at that line. */
/* Whether two placements ask for the same nodes (the same three lines). */
bool slurm_placement_same(const slurm_placement *a, const slurm_placement *b);

int campaign_file_err(const campaign_file *f, int line, skytune_error *err, const char *fmt, ...)
    SKYTUNE_PRINTF(4, 5);

#endif
