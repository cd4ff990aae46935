/* A real SLURM on localhost: the test starts munge, a SLURM controller and
 * one node of its own (in a scratch folder, on free ports, as root, with a
 * configuration of its own: nothing of the machine's is used or changed),
 * writes a campaign's job array with `skytune campaign slurm`, submits it
 * with the generated submit.sh, waits for the array and the dependent merge
 * job, checks the merged database, and stops every daemon it started.
 *
 * Skipped, saying why, where SLURM or munge is not installed
 * (tools/install-deps.sh installs them) or the test does not run as root
 * (slurmd must). */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostile_harness.h"

static char *scratch;      /* the hostile harness's folder: binary cache, campaign */
static char *slurm_dir;    /* the daemons' folder */

/* A daemon's pid from its pid file; 0 when there is none. */
static pid_t pid_from(const char *name)
{
    char *path = cli_path(slurm_dir, name);
    size_t len;
    unsigned char *text = cli_read_file(path, &len);
    free(path);
    if (!text) return 0;
    pid_t pid = (pid_t)atol((const char *)text);
    free(text);
    return pid;
}

/* Stop every daemon the test started, whatever happened to the test. */
static void stop_daemons(void)
{
    if (!slurm_dir) return;
    if (system("scontrol shutdown >/dev/null 2>&1")) { /* the daemons may be gone */ }
    const char *pid_files[] = {"slurmctld.pid", "slurmd.pid", "munged.pid"};
    for (int round = 0; round < 50; round++) {
        bool alive = false;
        for (size_t k = 0; k < 3; k++) {
            pid_t pid = pid_from(pid_files[k]);
            if (pid > 0 && kill(pid, 0) == 0) {
                alive = true;
                kill(pid, round < 30 ? SIGTERM : SIGKILL);
            }
        }
        if (!alive) break;
        usleep(100000);
    }
}

static void set_up(void)
{
    scratch = hostile_scratch_open();
    slurm_dir = cli_path(scratch, "slurm");
    mkdir(slurm_dir, 0700);
}

static void tear_down(void)
{
    stop_daemons();
    free(slurm_dir);
    slurm_dir = NULL;
    hostile_scratch_close(scratch);
}

TestSuite(slurm, .init = set_up, .fini = tear_down, .timeout = 590);

static bool on_path(const char *program)
{
    char command[256];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", program);
    return system(command) == 0;
}

/* A TCP port nothing listens on now. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
              getsockname(fd, (struct sockaddr *)&addr, &len) == 0);
    int port = ntohs(addr.sin_port);
    close(fd);
    return port;
}

static char *file_text(const char *name)
{
    char *path = cli_path(slurm_dir, name);
    char *text = hostile_read_text(path);
    free(path);
    return text;
}

static void start_munge(void)
{
    cr_assert_eq(cli_shell("dd if=/dev/urandom of=%s/munge.key bs=1024 count=1 2>/dev/null && "
                       "chmod 400 %s/munge.key",
                       slurm_dir, slurm_dir),
                 0);
    cr_assert_eq(cli_shell("munged --force --socket=%s/munge.sock --key-file=%s/munge.key "
                       "--pid-file=%s/munged.pid --log-file=%s/munged.log --seed-file=%s/munge.seed",
                       slurm_dir, slurm_dir, slurm_dir, slurm_dir, slurm_dir),
                 0, "munged did not start:\n%s", file_text("munged.log"));
}

static void write_config(void)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char *dot = strchr(host, '.');
    if (dot) *dot = '\0';
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long memory_mb = sysconf(_SC_PHYS_PAGES) / 1024 * sysconf(_SC_PAGE_SIZE) / 1024 / 2;
    char text[4096];
    snprintf(text, sizeof text,
             "ClusterName=skytune-test\n"
             "SlurmctldHost=%s(127.0.0.1)\n"
             "SlurmctldPort=%d\n"
             "SlurmdPort=%d\n"
             "AuthType=auth/munge\n"
             "CredType=cred/munge\n"
             "AuthInfo=socket=%s/munge.sock\n"
             "SlurmUser=root\n"
             "SlurmdUser=root\n"
             "StateSaveLocation=%s/state\n"
             "SlurmdSpoolDir=%s/spool\n"
             "SlurmctldPidFile=%s/slurmctld.pid\n"
             "SlurmdPidFile=%s/slurmd.pid\n"
             "SlurmctldLogFile=%s/slurmctld.log\n"
             "SlurmdLogFile=%s/slurmd.log\n"
             "ProctrackType=proctrack/linuxproc\n"
             "TaskPlugin=task/none\n"
             "JobAcctGatherType=jobacct_gather/none\n"
             "AccountingStorageType=accounting_storage/none\n"
             "SchedulerType=sched/builtin\n"
             "SelectType=select/cons_tres\n"
             "SelectTypeParameters=CR_Core\n"
             "ReturnToService=2\n"
             "MpiDefault=none\n"
             "NodeName=%s NodeAddr=127.0.0.1 CPUs=%ld RealMemory=%ld State=UNKNOWN\n"
             "PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP\n",
             host, free_port(), free_port(), slurm_dir, slurm_dir, slurm_dir, slurm_dir,
             slurm_dir, slurm_dir, slurm_dir, host, cpus, memory_mb > 0 ? memory_mb : 1024, host);
    char *conf = cli_path(slurm_dir, "slurm.conf");
    cli_write_file(conf, text, strlen(text));
    setenv("SLURM_CONF", conf, 1);
    free(conf);
    char *state = cli_path(slurm_dir, "state"), *spool = cli_path(slurm_dir, "spool");
    mkdir(state, 0700);
    mkdir(spool, 0700);
    free(state);
    free(spool);
}

/* The node idle, or the test fails with the daemons' logs. */
static void start_slurm(void)
{
    cr_assert_eq(cli_shell("slurmctld -i"), 0, "slurmctld did not start:\n%s",
                 file_text("slurmctld.log"));
    cr_assert_eq(cli_shell("slurmd"), 0, "slurmd did not start:\n%s", file_text("slurmd.log"));
    for (int k = 0; k < 300; k++) {
        if (cli_shell("sinfo -h -o %%T 2>/dev/null | grep -q '^idle'") == 0) return;
        usleep(100000);
    }
    cr_assert_fail("the node never became idle\nslurmctld:\n%s\nslurmd:\n%s",
                   file_text("slurmctld.log"), file_text("slurmd.log"));
}

static bool queue_empty(void)
{
    return cli_shell("test -z \"$(squeue -h 2>/dev/null)\" && squeue >/dev/null 2>&1") == 0;
}

Test(slurm, generated_job_array_runs_the_shards_and_merges_them)
{
    const char *needed[] = {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"};
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
        if (!on_path(needed[k]))
            cr_skip_test("%s is not installed (tools/install-deps.sh installs slurm-wlm and "
                         "munge): the real SLURM test cannot run here",
                         needed[k]);
    if (geteuid() != 0)
        cr_skip_test("not root: slurmd must run as root to start jobs, so the real SLURM test "
                     "cannot run here");

    start_munge();
    write_config();
    start_slurm();

    char text[2048];
    snprintf(text, sizeof text,
             "plugin: %s\n"
             "problem:\n  values: [4, 6]\n  n: [1024, 2048]\n"
             "strategy: exhaustive\nruns: 2\n"
             "slurm:\n  gres: none\n",
             hostile_plugin_path());
    char *file = cli_path(scratch, "sweep.yaml");
    cli_write_file(file, text, strlen(text));
    char *jobs = cli_path(scratch, "jobs");
    cli_result r = cli_run(CLI_ARGS("campaign", "slurm", file, "--shards", "3", "--out", jobs));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    /* The array's tasks start skytune with the compile workers a CPU device
     * gets; one core each is enough for this campaign. */
    cr_assert_eq(cli_shell("sh %s/submit.sh > %s/submitted.txt 2>&1", jobs, slurm_dir), 0,
                 "submit.sh failed:\n%s", file_text("submitted.txt"));
    char *submitted = file_text("submitted.txt");
    cr_expect(strstr(submitted, "array job") && strstr(submitted, "merge job"), "%s", submitted);

    char *db = cli_path(scratch, "sweep.db");
    bool done = false;
    for (int k = 0; k < 3000 && !done; k++) {
        usleep(100000);
        done = queue_empty();
    }
    char *merge_log_path = cli_path(jobs, "logs/merge.out");
    char *merge_log = hostile_read_text(merge_log_path);
    char *shard_log_path = cli_path(jobs, "logs/shard-0.out");
    char *shard_log = hostile_read_text(shard_log_path);
    cr_assert(done, "the jobs did not finish in 300 s\nsqueue:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
    cr_assert(cli_file_exists(db), "the merge job wrote no database\nmerge log:\n%s\nshard 0:\n%s",
              merge_log, shard_log);
    cr_expect(strstr(merge_log, "campaign"), "the merge job says what it merged:\n%s", merge_log);
    /* Every configuration of every instance, once, from three shards. */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 20, "%s\n%s", merge_log,
                 shard_log);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM merges WHERE measurements > 0"), 3);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(DISTINCT problem_id) FROM measurements"), 4);
    hostile_assert_database_sound(db);
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "sweep.shard-%d-of-3.db", i);
        char *shard = cli_path(scratch, name);
        cr_expect(cli_file_exists(shard), "shard %d wrote no database", i);
        free(shard);
    }
    free(merge_log_path);
    free(merge_log);
    free(shard_log_path);
    free(shard_log);
    free(submitted);
    free(db);
    free(jobs);
    free(file);
}
