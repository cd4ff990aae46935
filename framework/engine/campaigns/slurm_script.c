#include "slurm_script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign_plan.h"
#include "quote.h"

/* A shell word: single-quoted, each ' written as '\''. */
static void put_word(FILE *out, const char *text)
{
    fputc('\'', out);
    for (const char *c = text; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", out);
        else
            fputc(*c, out);
    }
    fputc('\'', out);
}

/* The job's name: the campaign file's name without its extension, kept to
 * characters every shell and SLURM accept. */
static void job_name(const char *campaign, char *buf, size_t len)
{
    const char *base = strrchr(campaign, '/');
    base = base ? base + 1 : campaign;
    size_t k = 0;
    for (const char *c = base; *c && *c != '.' && k + 1 < len; c++)
        buf[k++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'
                              ? *c
                              : '_');
    buf[k] = '\0';
}

static const slurm_placement no_placement = {0};

/* The #SBATCH lines of a job: the file's settings under the device entry's
 * placement (NULL: none). gpu: whether it needs the node's device. */
static void put_common_options(FILE *out, const campaign_file *f, const slurm_placement *where,
                               bool gpu)
{
    const slurm_settings *s = &f->slurm;
    if (!where) where = &no_placement;
    const char *gres = where->gres ? where->gres : s->gres;
    const char *partition = where->partition ? where->partition : s->partition;
    /* "none": a node's OpenCL device needs no generic resource (a CPU). */
    if (gpu && !(gres && strcmp(gres, "none") == 0))
        fprintf(out, "#SBATCH --gres=%s\n", gres ? gres : "gpu:1");
    if (gpu && where->constraint) fprintf(out, "#SBATCH --constraint=%s\n", where->constraint);
    if (partition) fprintf(out, "#SBATCH --partition=%s\n", partition);
    if (s->account) fprintf(out, "#SBATCH --account=%s\n", s->account);
    if (s->time) fprintf(out, "#SBATCH --time=%s\n", s->time);
    if (s->cpus_per_task) fprintf(out, "#SBATCH --cpus-per-task=%u\n", s->cpus_per_task);
    for (size_t k = 0; k < s->n_sbatch_options; k++)
        fprintf(out, "#SBATCH %s\n", s->sbatch_options[k].text);
}

static FILE *open_script(const slurm_job *job, const char *name, char *path, size_t len,
                         skytune_error *err)
{
    snprintf(path, len, "%s/%s", job->out_dir, name);
    FILE *out = fopen(path, "w");
    char shown[QUOTE_PATH];
    if (!out)
        err_set(err, "cannot write %s: %s", quote_text(path, shown, sizeof shown), strerror(errno));
    return out;
}

static int close_script(FILE *out, const char *path, skytune_error *err)
{
    int bad = ferror(out);
    char shown[QUOTE_PATH];
    quote_text(path, shown, sizeof shown);
    if (fclose(out) != 0 || bad) return err_set(err, "cannot write %s: %s", shown, strerror(errno));
    if (chmod(path, 0755) != 0)
        return err_set(err, "cannot make %s executable: %s", shown, strerror(errno));
    return 0;
}

/* The placement a unit's shard needs: its device entry's, or NULL for the
 * file's settings alone. */
static const slurm_placement *unit_placement(const campaign_file *f, const campaign_unit *u)
{
    if (!f->n_devices || !f->placements || !f->placements[u->device_entry].line) return NULL;
    return &f->placements[u->device_entry];
}

static bool same_placement(const slurm_placement *a, const slurm_placement *b)
{
    return slurm_placement_same(a ? a : &no_placement, b ? b : &no_placement);
}

int slurm_shard_placements(const campaign_file *f, const campaign_plan *p,
                           const slurm_placement **out, skytune_error *err)
{
    bool *seen = calloc(p->shards, sizeof *seen);
    if (!seen) return err_set(err, "out of memory");
    int rc = 0;
    for (size_t u = 0; u < p->n_units && rc == 0; u++) {
        unsigned shard = (unsigned)(u % p->shards);
        const slurm_placement *where = unit_placement(f, &p->units[u]);
        if (!seen[shard]) {
            seen[shard] = true;
            out[shard] = where;
        } else if (!same_placement(out[shard], where)) {
            const campaign_unit *first = &p->units[shard];
            size_t pairs = p->n_instances * f->n_devices;
            size_t fit = (p->shards < pairs ? p->shards : pairs) / f->n_devices * f->n_devices;
            rc = campaign_file_err(
                f, where ? where->line : out[shard] ? out[shard]->line : 0, err,
                "key 'devices': with %u shards, shard %u runs on device entries '%s' and '%s', "
                "which ask for different SLURM placement (devices: slurm); a job runs on one "
                "node, so each shard must keep to one placement: give --shards a multiple of "
                "the %zu device entries, at most %zu (e.g. --shards %zu)",
                p->shards, shard, f->devices[first->device_entry].text,
                f->devices[p->units[u].device_entry].text, f->n_devices, pairs,
                fit ? fit : f->n_devices);
        }
    }
    free(seen);
    return rc;
}

static int write_array(const campaign_file *f, const slurm_job *job, const char *name,
                       const char *script, const slurm_placement *where,
                       const slurm_placement **placements, skytune_error *err)
{
    char path[4096];
    FILE *out = open_script(job, script, path, sizeof path, err);
    if (!out) return -1;
    fprintf(out, "#!/bin/sh\n"
                 "# One shard of the campaign per array task: task i runs shard i/%u into its "
                 "own\n# database (SQLite on a network file system is not safe for several "
                 "writers).\n# Written by `skytune campaign slurm`; submit with submit.sh.\n"
                 "# USR1 two minutes before the time limit asks skytune to stop cleanly; a\n"
                 "# requeued task (preemption, scontrol requeue) resumes from its database.\n",
            job->shards);
    fprintf(out, "#SBATCH --job-name=skytune-%s\n", name);
    /* The tasks of this placement, by shard number: "0-2" or "0,3,6". */
    fputs("#SBATCH --array=", out);
    unsigned listed = 0;
    for (unsigned i = 0; i < job->shards; i++)
        if (same_placement(placements[i], where)) listed++;
    if (listed == job->shards) {
        fprintf(out, "0-%u", job->shards - 1);
    } else {
        bool first = true;
        for (unsigned i = 0; i < job->shards; i++)
            if (same_placement(placements[i], where)) {
                fprintf(out, "%s%u", first ? "" : ",", i);
                first = false;
            }
    }
    fputc('\n', out);
    fprintf(out, "#SBATCH --output=%s/logs/shard-%%a.out\n", job->out_dir);
    fputs("#SBATCH --open-mode=append\n"
          "#SBATCH --signal=B:USR1@120\n"
          "#SBATCH --requeue\n",
          out);
    put_common_options(out, f, where, true);
    fputs("set -eu\n"
          "echo \"== shard $SLURM_ARRAY_TASK_ID on $(hostname), job ${SLURM_JOB_ID:-?}, "
          "restart ${SLURM_RESTART_COUNT:-0}\"\n"
          "exec ",
          out);
    put_word(out, job->skytune);
    fputs(" campaign run ", out);
    put_word(out, job->campaign);
    fprintf(out, " --shard \"$SLURM_ARRAY_TASK_ID/%u\" --quiet\n", job->shards);
    return close_script(out, path, err);
}

static int write_merge(const campaign_file *f, const slurm_job *job, const char *name,
                       skytune_error *err)
{
    char path[4096];
    FILE *out = open_script(job, "merge.sbatch", path, sizeof path, err);
    if (!out) return -1;
    fprintf(out, "#!/bin/sh\n"
                 "# Checks that every one of the %u shards finished, then merges their\n"
                 "# databases into the campaign's database%s.\n"
                 "# Written by `skytune campaign slurm`; submit.sh runs it after the array.\n",
            job->shards, f->cross_top ? ", then runs\n# the cross-measurement step" : "");
    fprintf(out, "#SBATCH --job-name=skytune-%s-merge\n", name);
    fprintf(out, "#SBATCH --output=%s/logs/merge.out\n", job->out_dir);
    put_common_options(out, f, NULL, f->cross_top != 0);
    fputs("set -eu\n", out);
    put_word(out, job->skytune);
    fputs(" campaign merge ", out);
    put_word(out, job->campaign);
    fprintf(out, " --shards %u --db ", job->shards);
    put_word(out, job->database);
    fputc('\n', out);
    if (f->cross_top) {
        put_word(out, job->skytune);
        fputs(" campaign cross ", out);
        put_word(out, job->campaign);
        fputs(" --db ", out);
        put_word(out, job->database);
        fputs(" --quiet\n", out);
    }
    return close_script(out, path, err);
}

static int write_submit(const slurm_job *job, char (*scripts)[32], size_t n_scripts,
                        skytune_error *err)
{
    char path[4096];
    FILE *out = open_script(job, "submit.sh", path, sizeof path, err);
    if (!out) return -1;
    fputs("#!/bin/sh\n"
          "# Submits the shards as job arrays (one per SLURM placement), then the\n"
          "# merge job, which runs once every array has ended however it ended\n"
          "# (afterany) and checks that every shard finished. Prints the job ids.\n"
          "set -eu\n"
          "cd \"$(dirname \"$0\")\"\n"
          "mkdir -p logs\n"
          "arrays=\"\"\nids=\"\"\n",
          out);
    for (size_t k = 0; k < n_scripts; k++)
        fprintf(out,
                "array=$(sbatch --parsable %s)\n"
                "array=${array%%%%;*}\n"
                "arrays=\"$arrays:$array\"\n"
                "ids=\"$ids${ids:+ }$array\"\n",
                scripts[k]);
    fputs("merge=$(sbatch --parsable --dependency=afterany$arrays merge.sbatch)\n"
          "echo \"array job $ids, merge job ${merge%%;*}\"\n",
          out);
    return close_script(out, path, err);
}

int slurm_write_scripts(const campaign_file *f, const slurm_job *job, skytune_error *err)
{
    char name[128];
    job_name(job->campaign, name, sizeof name);
    char logs[4096];
    snprintf(logs, sizeof logs, "%s/logs", job->out_dir);
    if (mkdir(logs, 0755) != 0 && errno != EEXIST)
        return err_set(err, "cannot create %s: %s", logs, strerror(errno));
    const slurm_placement **placements = calloc(job->shards, sizeof *placements);
    const slurm_placement **groups = calloc(job->shards, sizeof *groups);
    char(*scripts)[32] = calloc(job->shards, sizeof *scripts);
    int rc = -1;
    if (!placements || !groups || !scripts) {
        err_set(err, "out of memory");
        goto done;
    }
    if (slurm_shard_placements(f, job->plan, placements, err) != 0) goto done;
    size_t n_groups = 0;
    for (unsigned i = 0; i < job->shards; i++) {
        size_t g = 0;
        while (g < n_groups && !same_placement(groups[g], placements[i])) g++;
        if (g == n_groups) groups[n_groups++] = placements[i];
    }
    for (size_t g = 0; g < n_groups; g++) {
        if (n_groups == 1)
            snprintf(scripts[g], sizeof scripts[g], "array.sbatch");
        else
            snprintf(scripts[g], sizeof scripts[g], "array-%zu.sbatch", g + 1);
        if (write_array(f, job, name, scripts[g], groups[g], placements, err) != 0) goto done;
    }
    if (write_merge(f, job, name, err) != 0 || write_submit(job, scripts, n_groups, err) != 0)
        goto done;
    rc = (int)n_groups;
done:
    free(placements);
    free(groups);
    free(scripts);
    return rc;
}
