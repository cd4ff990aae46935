/* SLURM job scripts for a campaign file: skytune does not schedule, the
 * cluster's SLURM does. `skytune campaign slurm FILE --shards N` writes
 *
 *   array.sbatch  a job array of N tasks, task i running shard i/N into
 *                 its own database (SQLite on a network file system is not
 *                 safe for several writers), with the file's GPU request,
 *                 USR1 before the time limit (skytune stops cleanly) and
 *                 --requeue (a requeued task resumes from its database);
 *                 where the file's device entries ask for different SLURM
 *                 placement (devices: - {device, slurm}), one array per
 *                 placement instead, array-1.sbatch, array-2.sbatch, ...,
 *                 each listing its shards (--array=0,2,4)
 *   merge.sbatch  `skytune campaign merge`: checks every shard finished and
 *                 belongs to the file, merges them into the file's database
 *                 and, when the file asks for it, runs the cross step
 *   submit.sh     submits the arrays, then the merge job depending on them
 *                 (afterany: it runs however they ended, and says which
 *                 shards are missing or unfinished)
 *
 * for the user to read and submit (contrib/slurm/README.md). */
#ifndef SKYTUNE_SLURM_SCRIPT_H
#define SKYTUNE_SLURM_SCRIPT_H

#include "campaign_file.h"
#include "campaign_plan.h"

typedef struct slurm_job {
    const char *skytune;       /* absolute path of the skytune executable */
    const char *campaign;      /* absolute path of the campaign file */
    const char *database;      /* absolute path of the merged database */
    const char *out_dir;       /* where the scripts and logs/ go */
    unsigned shards;
    const campaign_plan *plan; /* f planned for `shards` */
} slurm_job;

/* Each shard's placement (shards entries; NULL: the file's settings alone).
 * A shard whose units run on device entries of different placements is
 * refused, saying how many shards would keep to one placement each. */
int slurm_shard_placements(const campaign_file *f, const campaign_plan *p,
                           const slurm_placement **out, skytune_error *err);

/* Writes the scripts into job->out_dir (which must exist). Returns how many
 * job arrays (placements) it wrote, or -1. */
int slurm_write_scripts(const campaign_file *f, const slurm_job *job, skytune_error *err);

#endif
