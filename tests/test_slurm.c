/* A real SLURM on localhost: each test starts munge, a SLURM controller and
 * one node of its own (in a scratch folder, on free ports, as root, with a
 * configuration of its own: nothing of the machine's is used or changed),
 * writes a campaign's job array with `skytune campaign slurm`, submits it
 * with the generated submit.sh, waits for the array and the dependent merge
 * job (afterany), checks what the merge did, and stops every daemon it
 * started. Beyond the plain run: a shard that fails (the merge still runs,
 * fails and names it), a shard requeued mid-run (it runs again and
 * resumes), a shard cancelled mid-run (the merge names it; resubmitted,
 * it completes and the merge succeeds) and shards stopped by SLURM at their
 * time limit (they stop cleanly; resubmitted with a longer limit, they
 * complete).
 *
 * The shards that must be caught mid-run are held there: while a file of
 * the test exists, the hostile plugin's `hold` makes their configurations
 * take turns, one every 5 s (sleeping), so a requeue, a cancel or a time
 * limit finds them running however fast or loaded the machine is; once
 * the test removes the file they finish at full speed. The four tests run
 * at once (tests/meson.build): each has a cluster of its own, and they
 * wait on SLURM more than they compute.
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
static char *hold;         /* the hostile plugin's hold file (see above) */

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
    hold = cli_path(scratch, "hold");
}

static void tear_down(void)
{
    stop_daemons();
    free(slurm_dir);
    slurm_dir = NULL;
    free(hold);
    hold = NULL;
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
    /* A test cluster that starts jobs as soon as it can. batch_sched_delay=0:
     * a submitted batch job, and the merge job once the array has ended,
     * start at the controller's next pass (each second) rather than up to
     * 3 s later. sched_interval=1: its full pass, the only one that starts a
     * requeued job once it may start again, comes each second rather than
     * each minute. cred_expire=5 (SLURM's least): a requeued job may start
     * again 6 s after its requeue rather than 121 s. */
    char text[4096];
    snprintf(text, sizeof text,
             "ClusterName=skytune-test\n"
             "SlurmctldHost=%s(127.0.0.1)\n"
             "SlurmctldPort=%d\n"
             "SlurmdPort=%d\n"
             "AuthType=auth/munge\n"
             "CredType=cred/munge\n"
             "AuthInfo=socket=%s/munge.sock,cred_expire=5\n"
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
             "SchedulerParameters=batch_sched_delay=0,sched_interval=1\n"
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

/* squeue answered, with no job: a failed squeue is not an empty queue. */
static bool queue_empty(void)
{
    return cli_shell("q=$(squeue -h -o %%i 2>/dev/null) && test -z \"$q\"") == 0;
}

/* Checks what the test needs, or skips saying loudly why; then munge, the
 * controller and the node, idle. */
static void start_cluster(void)
{
    const char *needed[] = {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol",
                            "scancel"};
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++)
        if (!on_path(needed[k])) {
            fprintf(stderr, "SKIPPED: the real SLURM test: %s is not installed\n", needed[k]);
            cr_skip_test("%s is not installed (tools/install-deps.sh installs slurm-wlm and "
                         "munge): the real SLURM test cannot run here",
                         needed[k]);
        }
    if (geteuid() != 0) {
        fprintf(stderr, "SKIPPED: the real SLURM test: not root\n");
        cr_skip_test("not root: slurmd must run as root to start jobs, so the real SLURM test "
                     "cannot run here");
    }
    start_munge();
    write_config();
    start_slurm();
}

/* A file's text, or "" when it is not there (yet). */
static char *maybe_text(const char *dir, const char *name)
{
    char *path = cli_path(dir, name);
    size_t len;
    char *text = (char *)cli_read_file(path, &len);
    free(path);
    return text ? text : strdup("");
}

/* Waits up to `seconds` for an empty queue; false if it never empties.
 * Four looks a second: each is an squeue, some 8 ms of CPU with the
 * controller's share, and four tests look at once on two cores. */
static bool wait_queue_empty(int seconds)
{
    for (int k = 0; k < seconds * 4; k++) {
        if (queue_empty()) return true;
        usleep(250000);
    }
    return false;
}

/* The hold file exists: every configuration of a campaign whose problem
 * names it (hold: [FILE]) waits. */
static void hold_campaigns(void)
{
    cli_write_file(hold, "", 0);
}

/* The held campaigns go on at full speed. */
static void release_campaigns(void)
{
    cr_assert(unlink(hold) == 0 || !cli_file_exists(hold), "cannot remove %s", hold);
}

/* The job's state ("COMPLETED", "FAILED", ...) and exit code from
 * scontrol, which keeps finished jobs for MinJobAge (300 s). */
static char *job_field(const char *job, const char *field)
{
    cli_shell("scontrol -o show job %s 2>&1 | tr ' ' '\\n' | sed -n 's/^%s=//p' | head -1 "
              "> %s/field.txt",
              job, field, slurm_dir);
    char *text = file_text("field.txt");
    text[strcspn(text, "\n")] = '\0';
    return text;
}

/* "array job A, merge job M" from submit.sh's output. */
static void submitted_ids(const char *submitted, char *array, char *merge)
{
    cr_assert_eq(sscanf(submitted, "array job %31[0-9], merge job %31[0-9]", array, merge), 2,
                 "%s", submitted);
}

/* Waits until shard `task` of the array runs, has started skytune (its
 * log's first line) and skytune has opened the shard's database `db`:
 * mid-run, its campaign begun. */
static void wait_task_running(const char *jobs, const char *array, int task, const char *restart,
                              const char *db)
{
    char log[64], line[64];
    snprintf(log, sizeof log, "logs/shard-%d.out", task);
    snprintf(line, sizeof line, "== shard %d on", task);
    char *db_path = cli_path(scratch, db);
    for (int k = 0; k < 2400; k++) {
        char *text = maybe_text(jobs, log);
        bool started = strstr(text, line) && strstr(text, restart) && cli_file_exists(db_path);
        free(text);
        if (started &&
            cli_shell("squeue -h -t R -o %%i | grep -qx '%s_%d'", array, task) == 0) {
            free(db_path);
            return;
        }
        usleep(100000);
    }
    cr_assert_fail("shard %d never ran\nsqueue:\n%s", task,
                   (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
}

static char *write_campaign(const char *name, const char *problem, unsigned runs)
{
    char text[2048];
    snprintf(text, sizeof text,
             "plugin: %s\n"
             "problem:\n%s"
             "strategy: exhaustive\nruns: %u\n"
             "slurm:\n  gres: none\n",
             hostile_plugin_path(), problem, runs);
    char *file = cli_path(scratch, name);
    cli_write_file(file, text, strlen(text));
    return file;
}

Test(slurm, a_failed_shard_is_named_by_the_merge_which_does_not_stay_pending)
{
    start_cluster();
    char *file = write_campaign("broken.yaml", "  values: [1, 2]\n  n: [1024]\n", 2);
    char *jobs = cli_path(scratch, "broken-jobs");
    cli_result r = cli_run(CLI_ARGS("campaign", "slurm", file, "--shards", "2", "--out", jobs));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    /* Shard 1 cannot write its database: a folder stands where it goes. */
    char *blocked = cli_path(scratch, "broken.shard-1-of-2.db");
    cr_assert_eq(mkdir(blocked, 0700), 0);
    cr_assert_eq(cli_shell("sh %s/submit.sh > %s/submitted.txt 2>&1", jobs, slurm_dir), 0,
                 "submit.sh failed:\n%s", file_text("submitted.txt"));
    char *submitted = file_text("submitted.txt"), array[32], merge[32];
    submitted_ids(submitted, array, merge);
    /* afterany: the merge runs although a shard failed, and ends. */
    bool done = wait_queue_empty(300);
    char *merge_log = maybe_text(jobs, "logs/merge.out");
    char *shard_log = maybe_text(jobs, "logs/shard-1.out");
    cr_assert(done, "the jobs did not end in 300 s (the merge left pending?)\nsqueue:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
    char *state = job_field(merge, "JobState"), *exit_code = job_field(merge, "ExitCode");
    cr_expect_str_eq(state, "FAILED", "the merge job must fail: %s\n%s", exit_code, merge_log);
    cr_expect_str_neq(exit_code, "0:0");
    cr_expect(strstr(merge_log, "1 of 2 shards missing, unfinished") &&
                  strstr(merge_log, "shard 1: ") && !strstr(merge_log, "shard 0: "),
              "the merge names the failed shard, and only it:\n%s\nshard 1:\n%s", merge_log,
              shard_log);
    char *db = cli_path(scratch, "broken.db");
    cr_expect(!cli_file_exists(db), "an incomplete merge merges nothing");
    free(db);
    free(state);
    free(exit_code);
    free(merge_log);
    free(shard_log);
    free(submitted);
    free(blocked);
    free(jobs);
    free(file);
}

Test(slurm, a_requeued_shard_and_a_cancelled_then_resubmitted_shard_complete)
{
    start_cluster();
    /* One instance a shard: shard 0 measures 3 configurations, shard 1 one
     * and shard 2 two. Held until shard 0 is requeued and shard 2
     * cancelled, shard 0 lasts over 10 s and shard 2 over 5 s from their
     * set-up, and each is caught as soon as its campaign has begun. */
    hold_campaigns();
    char problem[512];
    snprintf(problem, sizeof problem, "  values: [3, 1, 2]\n  n: [1024]\n  hold: [%s]\n", hold);
    char *file = write_campaign("requeue.yaml", problem, 3);
    char *jobs = cli_path(scratch, "requeue-jobs");
    cli_result r = cli_run(CLI_ARGS("campaign", "slurm", file, "--shards", "3", "--out", jobs));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    cr_assert_eq(cli_shell("sh %s/submit.sh > %s/submitted.txt 2>&1", jobs, slurm_dir), 0,
                 "submit.sh failed:\n%s", file_text("submitted.txt"));
    char *submitted = file_text("submitted.txt"), array[32], merge[32];
    submitted_ids(submitted, array, merge);
    /* Shard 0 requeued mid-run (as on preemption): it starts again and
     * resumes from its database. */
    wait_task_running(jobs, array, 0, "restart 0", "requeue.shard-0-of-3.db");
    cr_assert_eq(cli_shell("scontrol requeue %s_0", array), 0);
    /* Shard 2 cancelled mid-run. */
    wait_task_running(jobs, array, 2, "restart 0", "requeue.shard-2-of-3.db");
    cr_assert_eq(cli_shell("scancel %s_2", array), 0);
    release_campaigns();
    bool done = wait_queue_empty(400);
    char *merge_log = maybe_text(jobs, "logs/merge.out");
    char *shard0_log = maybe_text(jobs, "logs/shard-0.out");
    char *shard2_log = maybe_text(jobs, "logs/shard-2.out");
    cr_assert(done, "the jobs did not end in 400 s\nsqueue:\n%s\nshard 0:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")),
              shard0_log);
    cr_expect(strstr(shard0_log, "== shard 0 on") && strstr(shard0_log, "restart 1"),
              "the requeued shard ran again:\n%s", shard0_log);
    char *state = job_field(merge, "JobState");
    cr_expect_str_eq(state, "FAILED", "the cancelled shard is missing:\n%s", merge_log);
    cr_expect(strstr(merge_log, "shard 2: ") && !strstr(merge_log, "shard 0: ") &&
                  !strstr(merge_log, "shard 1: "),
              "only the cancelled shard is named:\n%s\nshard 0:\n%s\nshard 2:\n%s", merge_log,
              shard0_log, shard2_log);
    /* Shard 2 again, and the merge after it: it resumes and completes. */
    cr_assert_eq(cli_shell("cd %s && a=$(sbatch --parsable --array=2 array.sbatch) && "
                           "sbatch --parsable --dependency=afterany:${a%%%%;*} merge.sbatch "
                           "> %s/resubmitted.txt 2>&1",
                           jobs, slurm_dir),
                 0, "%s", file_text("resubmitted.txt"));
    done = wait_queue_empty(300);
    free(merge_log);
    merge_log = maybe_text(jobs, "logs/merge.out");
    cr_assert(done, "the resubmitted shard did not end in 300 s");
    char *db = cli_path(scratch, "requeue.db");
    cr_assert(cli_file_exists(db), "the second merge wrote no database:\n%s", merge_log);
    cr_expect(strstr(merge_log, "3 shards complete"), "%s", merge_log);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 6, "%s", merge_log);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status <> 'done'"), 0);
    hostile_assert_database_sound(db);
    free(db);
    free(state);
    free(merge_log);
    free(shard0_log);
    free(shard2_log);
    free(submitted);
    free(jobs);
    free(file);
}

Test(slurm, generated_job_array_runs_the_shards_and_merges_them)
{
    start_cluster();

    char text[2048];
    snprintf(text, sizeof text,
             "plugin: %s\n"
             "problem:\n  values: [1, 2]\n  n: [1024, 2048]\n"
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
    bool done = wait_queue_empty(300);
    char *merge_log_path = cli_path(jobs, "logs/merge.out");
    char *merge_log = hostile_read_text(merge_log_path);
    char *shard_log_path = cli_path(jobs, "logs/shard-0.out");
    char *shard_log = hostile_read_text(shard_log_path);
    cr_assert(done, "the jobs did not finish in 300 s\nsqueue:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
    cr_assert(cli_file_exists(db), "the merge job wrote no database\nmerge log:\n%s\nshard 0:\n%s",
              merge_log, shard_log);
    cr_expect(strstr(merge_log, "3 shards complete, merged into"),
              "the merge job says what it merged:\n%s", merge_log);
    /* Every configuration of every instance, once, from three shards. */
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 6, "%s\n%s", merge_log,
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

/* What a stopped shard leaves: its task ended with skytune's own exit
 * status for the signal (138 for USR1, 143 for TERM) after saying it stops;
 * its database has no campaign left running, no claim, and every
 * configuration it measured whole (ok, with all its runs, or those it made
 * before racing stopped it). Returns how many
 * configurations it measured. */
static long long assert_shard_stopped(const char *jobs, const char *array, int task,
                                      unsigned runs)
{
    char job[64], log[64];
    snprintf(job, sizeof job, "%s_%d", array, task);
    snprintf(log, sizeof log, "logs/shard-%d.out", task);
    char *text = maybe_text(jobs, log);
    char *exit_code = job_field(job, "ExitCode"), *state = job_field(job, "JobState");
    cr_expect(strcmp(exit_code, "138:0") == 0 || strcmp(exit_code, "143:0") == 0,
              "shard %d did not end with skytune's stop status (138 USR1, 143 TERM): %s %s\n%s",
              task, state, exit_code, text);
    cr_expect(strstr(text, "skytune: stopping (SIGUSR1)") ||
                  strstr(text, "skytune: stopping (SIGTERM)"),
              "shard %d never said it stops (%s %s):\n%s", task, state, exit_code, text);
    char name[64];
    snprintf(name, sizeof name, "limit.shard-%d-of-2.db", task);
    char *db = cli_path(scratch, name);
    long long measured = 0;
    if (cli_file_exists(db)) {
        hostile_assert_database_sound(db);
        cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status = 'running'"),
                     0, "shard %d left its campaign running: %s", task,
                     cli_db_text(db, "SELECT group_concat(status) FROM campaigns"));
        /* Interrupted, unless the signal came while skytune was starting
         * (before its campaign began: nothing is begun then). */
        cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status <> "
                                    "'interrupted'"),
                     0, "shard %d's campaign is not marked interrupted: %s", task,
                     cli_db_text(db, "SELECT group_concat(status) FROM campaigns"));
        cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM claims"), 0,
                     "shard %d left claims", task);
        measured = cli_db_int(db, "SELECT COUNT(*) FROM measurements");
        cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"),
                     0, "the stop made a measurement of shard %d fail", task);
        char query[256];
        snprintf(query, sizeof query,
                 "SELECT COUNT(*) FROM measurements m WHERE (n_samples <> %u AND NOT raced) OR "
                 "(SELECT COUNT(*) FROM samples s WHERE s.measurement_id = m.id) <> n_samples",
                 runs);
        cr_expect_eq(cli_db_int(db, query), 0, "shard %d holds a measurement without its %u runs",
                     task, runs);
        cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM (SELECT DISTINCT problem_id, "
                                    "configuration_id FROM measurements)"),
                     measured, "shard %d measured a configuration twice", task);
    }
    fprintf(stderr, "time limit: shard %d ended %s, exit %s, by %s, after %lld configurations\n",
            task, state, exit_code,
            strstr(text, "stopping (SIGUSR1)")   ? "USR1"
            : strstr(text, "stopping (SIGTERM)") ? "TERM"
                                                 : "?",
            measured);
    free(db);
    free(text);
    free(exit_code);
    free(state);
    return measured;
}

/* Waits up to `seconds` until the logs of shards 0 and 1 both say that
 * skytune stops, or the queue is empty (a shard that ended otherwise). */
static void wait_both_stopping(const char *jobs, int seconds)
{
    for (int k = 0; k < seconds * 5; k++) {
        int stopping = 0;
        for (int task = 0; task < 2; task++) {
            char log[64];
            snprintf(log, sizeof log, "logs/shard-%d.out", task);
            char *text = maybe_text(jobs, log);
            if (strstr(text, "skytune: stopping")) stopping++;
            free(text);
        }
        if (stopping == 2 || (k % 5 == 4 && queue_empty())) return;
        usleep(200000);
    }
}

Test(slurm, a_shard_killed_at_its_time_limit_stops_cleanly_and_completes_when_resubmitted)
{
    start_cluster();
    /* A time limit of one minute: the USR1 that array.sbatch asks for 120 s
     * before the limit is due at once, and slurmctld sends it at its next
     * time-limit check (every 30 s from its start: some 27 s after the
     * shards start, never over 31 s); SIGTERM at the limit itself if not.
     * Each shard (one instance of 9 configurations, 20 runs each) is held:
     * its configurations take turns, one every 5 s, so it lasts over 40 s,
     * longer than that, and stops a few configurations short. */
    const unsigned runs = 20, per_shard = 9;
    hold_campaigns();
    char text[2048];
    snprintf(text, sizeof text,
             "plugin: %s\n"
             "problem:\n  values: [%u]\n  n: [1024, 1025]\n  hold: [%s]\n"
             "strategy: exhaustive\nruns: %u\n"
             "slurm:\n  gres: none\n  time: \"1\"\n",
             hostile_plugin_path(), per_shard, hold, runs);
    char *file = cli_path(scratch, "limit.yaml");
    cli_write_file(file, text, strlen(text));
    char *jobs = cli_path(scratch, "limit-jobs");
    cli_result r = cli_run(CLI_ARGS("campaign", "slurm", file, "--shards", "2", "--out", jobs));
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_result_free(&r);
    char *script = maybe_text(jobs, "array.sbatch");
    cr_assert(strstr(script, "#SBATCH --time=1\n") && strstr(script, "--signal=B:USR1@120"),
              "%s", script);
    free(script);
    cr_assert_eq(cli_shell("sh %s/submit.sh > %s/submitted.txt 2>&1", jobs, slurm_dir), 0,
                 "submit.sh failed:\n%s", file_text("submitted.txt"));
    char *submitted = file_text("submitted.txt"), array[32], merge[32];
    submitted_ids(submitted, array, merge);
    /* Once both shards say they stop, the hold goes: the configuration each
     * has in flight finishes within skytune's stop grace (3 s), as an
     * unheld one would. */
    wait_both_stopping(jobs, 300);
    release_campaigns();
    bool done = wait_queue_empty(300);
    char *merge_log = maybe_text(jobs, "logs/merge.out");
    cr_assert(done, "the jobs did not end in 300 s\nsqueue:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
    long long before[2];
    for (int task = 0; task < 2; task++) {
        before[task] = assert_shard_stopped(jobs, array, task, runs);
        cr_expect_lt(before[task], per_shard, "shard %d finished within its time limit", task);
    }
    /* afterany: the merge runs, fails and names both shards as unfinished. */
    char *state = job_field(merge, "JobState");
    cr_expect_str_eq(state, "FAILED", "the merge must fail:\n%s", merge_log);
    cr_expect(strstr(merge_log, "2 of 2 shards missing, unfinished") &&
                  strstr(merge_log, "shard 0: ") && strstr(merge_log, "shard 1: "),
              "the merge names both stopped shards:\n%s", merge_log);
    char *db = cli_path(scratch, "limit.db");
    cr_expect(!cli_file_exists(db), "an incomplete merge merges nothing");
    /* Both shards again, with a longer limit (sbatch's own option wins over
     * the script's), and the merge after them: they resume and complete,
     * no longer held. */
    cr_assert_eq(cli_shell("cd %s && a=$(sbatch --parsable --time=10 --array=0-1 array.sbatch) "
                           "&& sbatch --parsable --dependency=afterany:${a%%%%;*} merge.sbatch "
                           "> %s/resubmitted.txt 2>&1",
                           jobs, slurm_dir),
                 0, "%s", file_text("resubmitted.txt"));
    done = wait_queue_empty(300);
    free(merge_log);
    merge_log = maybe_text(jobs, "logs/merge.out");
    cr_assert(done, "the resubmitted shards did not end in 300 s\nsqueue:\n%s",
              (cli_shell("squeue > %s/squeue.txt 2>&1", slurm_dir), file_text("squeue.txt")));
    cr_assert(cli_file_exists(db), "the second merge wrote no database:\n%s", merge_log);
    cr_expect(strstr(merge_log, "2 shards complete"), "%s", merge_log);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements"), 2 * per_shard, "%s",
                 merge_log);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM (SELECT DISTINCT problem_id, "
                                "configuration_id FROM measurements)"),
                 2 * per_shard, "a configuration was measured twice");
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM measurements WHERE status <> 'ok'"), 0);
    cr_expect_eq(cli_db_int(db, "SELECT COUNT(*) FROM campaigns WHERE status <> 'done'"), 0);
    hostile_assert_database_sound(db);
    fprintf(stderr, "time limit: shards stopped after %lld and %lld of %u configurations\n",
            before[0], before[1], per_shard);
    free(db);
    free(state);
    free(merge_log);
    free(submitted);
    free(jobs);
    free(file);
}
