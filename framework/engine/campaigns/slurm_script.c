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

static void put_common_options(FILE *out, const campaign_file *f, bool gpu)
{
    const slurm_settings *s = &f->slurm;
    /* "none": a node's OpenCL device needs no generic resource (a CPU). */
    if (gpu && !(s->gres && strcmp(s->gres, "none") == 0))
        fprintf(out, "#SBATCH --gres=%s\n", s->gres ? s->gres : "gpu:1");
    if (s->partition) fprintf(out, "#SBATCH --partition=%s\n", s->partition);
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

static int write_array(const campaign_file *f, const slurm_job *job, const char *name,
                       skytune_error *err)
{
    char path[4096];
    FILE *out = open_script(job, "array.sbatch", path, sizeof path, err);
    if (!out) return -1;
    fprintf(out, "#!/bin/sh\n"
                 "# One shard of the campaign per array task: task i runs shard i/%u into its "
                 "own\n# database (SQLite on a network file system is not safe for several "
                 "writers).\n# Written by `skytune campaign slurm`; submit with submit.sh.\n",
            job->shards);
    fprintf(out, "#SBATCH --job-name=skytune-%s\n", name);
    fprintf(out, "#SBATCH --array=0-%u\n", job->shards - 1);
    fprintf(out, "#SBATCH --output=%s/logs/shard-%%a.out\n", job->out_dir);
    put_common_options(out, f, true);
    fputs("set -eu\nexec ", out);
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
                 "# Merges the %u shards' databases into the campaign's database%s.\n"
                 "# Written by `skytune campaign slurm`; submit.sh runs it after the array.\n",
            job->shards, f->cross_top ? ", then runs\n# the cross-measurement step" : "");
    fprintf(out, "#SBATCH --job-name=skytune-%s-merge\n", name);
    fprintf(out, "#SBATCH --output=%s/logs/merge.out\n", job->out_dir);
    put_common_options(out, f, f->cross_top != 0);
    fputs("set -eu\n", out);
    put_word(out, job->skytune);
    fputs(" merge ", out);
    put_word(out, job->database);
    for (unsigned i = 0; i < job->shards; i++) {
        char *shard_db = campaign_shard_db(job->database, i, job->shards);
        if (!shard_db) {
            fclose(out);
            return err_set(err, "out of memory");
        }
        fputs(" \\\n    ", out);
        put_word(out, shard_db);
        free(shard_db);
    }
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

static int write_submit(const slurm_job *job, skytune_error *err)
{
    char path[4096];
    FILE *out = open_script(job, "submit.sh", path, sizeof path, err);
    if (!out) return -1;
    fputs("#!/bin/sh\n"
          "# Submits the shards as a job array, then the merge job, which runs once\n"
          "# every shard has succeeded (afterok). Prints both job ids.\n"
          "set -eu\n"
          "cd \"$(dirname \"$0\")\"\n"
          "mkdir -p logs\n"
          "array=$(sbatch --parsable array.sbatch)\n"
          "array=${array%%;*}\n"
          "merge=$(sbatch --parsable --dependency=afterok:\"$array\" merge.sbatch)\n"
          "echo \"array job $array, merge job ${merge%%;*}\"\n",
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
    if (write_array(f, job, name, err) != 0 || write_merge(f, job, name, err) != 0 ||
        write_submit(job, err) != 0)
        return -1;
    return 0;
}
