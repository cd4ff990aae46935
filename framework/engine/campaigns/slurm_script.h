/* SLURM job scripts for a campaign file: skytune does not schedule, the
 * cluster's SLURM does. `skytune campaign slurm FILE --shards N` writes
 *
 *   array.sbatch  a job array of N tasks, task i running shard i/N into
 *                 its own database (SQLite on a network file system is not
 *                 safe for several writers), with the file's GPU request
 *   merge.sbatch  merges the shards' databases into the file's database
 *                 and, when the file asks for it, runs the cross step
 *   submit.sh     submits the array, then the merge job depending on it
 *                 (afterok: it runs only when every shard succeeded)
 *
 * for the user to read and submit (contrib/slurm/README.md). */
#ifndef SKYTUNE_SLURM_SCRIPT_H
#define SKYTUNE_SLURM_SCRIPT_H

#include "campaign_file.h"

typedef struct slurm_job {
    const char *skytune;       /* absolute path of the skytune executable */
    const char *campaign;      /* absolute path of the campaign file */
    const char *database;      /* absolute path of the merged database */
    const char *out_dir;       /* where the scripts and logs/ go */
    unsigned shards;
} slurm_job;

/* Writes the three scripts into job->out_dir (which must exist). */
int slurm_write_scripts(const campaign_file *f, const slurm_job *job, skytune_error *err);

#endif
