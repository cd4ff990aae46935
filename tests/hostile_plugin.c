/*
 * hostile — a test plugin that misbehaves on purpose, on the configurations
 * it is told to, in the callback it is told to.
 *
 * The kernel is trivial (out[i] = 2 * in[i]) and correct, so every
 * configuration that is not chosen to misbehave passes verification. The
 * end-to-end isolation tests use it to show that no plugin callback and no
 * kernel can end a campaign: whatever a configuration does, the engine
 * records it and goes on.
 *
 * Built twice: hostile.so, whose verify reads the outputs back and compares
 * them, and hostile_split.so (HOSTILE_READ_BACK), whose read_back reads them
 * right after the verification run and whose verify compares them after
 * the timed runs and the release, as the correlator's does.
 *
 * Problem parameters choose the misbehaviour:
 *   fault   none | segv | abort | exit | stack | oob | near | loop | corrupt | wrong |
 *           compile | biglog | kprintf | hang | print | print_segv | damage |
 *           device_fault | overstate | slow
 *   where   the callback that misbehaves (host faults): defines, prepare,
 *           clear_outputs, enqueue, verify, release, flops, device_outputs
 *   bad     the value of x that misbehaves
 *   bad2    a second value of x that misbehaves (-1: none)
 *   nth     which enqueue of the configuration misbehaves (1 is the
 *           verification run, 2 and on the timed runs, or with --warm-up 1
 *           2 the warm-up and 3 and on the timed runs); it
 *           applies to where=enqueue and to the kernel faults
 *   values  how many configurations: x takes 0 .. values-1
 *   n       elements the kernel doubles
 *   hold    a file ("none": no file): while it exists, the configurations
 *           a worker measures take turns, the k-th not before k * 5 s after
 *           the worker set the problem up (each waits for its turn in
 *           prepare, sleeping; one that comes late waits for nothing). A
 *           campaign of N configurations then lasts over (N - 1) * 5 s
 *           however fast the machine, without spending the CPU, and one
 *           slowed by a loaded machine (the first build is the slowest)
 *           catches up instead of falling further behind; once the file is
 *           gone, a wait ends and the campaign goes on at full speed.
 *           Tests that stop a campaign from outside (SLURM's requeue,
 *           cancel and time limit) hold it mid-run this way.
 *
 * Host faults happen in the callback `where` names, on its first call for
 * a bad configuration (for enqueue, its nth call):
 *   segv    a write through an invalid pointer
 *   abort   abort()
 *   exit    exit(3)
 *   stack   unbounded recursion, each frame holding a volatile array
 *   hang    the callback never returns
 *   print   writes a line to standard output and one to standard error
 *           (with an escape sequence, as a driver's coloured message
 *           would), and goes on
 *   print_segv  writes those lines, then segfaults
 *   damage  leaves the worker's plugin state damaged, as a kernel that
 *           wrote into a CPU device's heap would: the bad configuration
 *           itself passes (`where` is ignored: its release does the damage),
 *           and the next configuration the same worker prepares segfaults
 * Kernel faults ignore `where` and happen in the kernel itself on its nth
 * run for a bad configuration:
 *   oob     one work-item writes 2^40 elements past the output buffer
 *   near    the first 64 work-items write their outputs right, then write
 *           -1 to the 64 floats just past the output buffer (memory the
 *           driver may have given another buffer)
 *   loop    one work-item loops forever, writing to global memory
 *   corrupt every work-item writes its output right, then overwrites the
 *           input element it read: the configuration's own result is
 *           right, and whatever reads the input after it is not (the
 *           input is uploaded once per problem, at set-up)
 *   wrong   every work-item writes three times its input: the
 *           configuration's own wrong result
 *   kprintf work-item 0 calls printf, then writes its output right
 *   slow    every work-item writes its output right 20,000 times, on every
 *           run (`nth` is ignored): a correct configuration hundreds of
 *           times slower than the others however loaded the machine is,
 *           for the tests of racing
 *   device_fault  the run's event reports that the kernel failed on the
 *           device (CL_OUT_OF_RESOURCES), as NVIDIA's events do after an
 *           illegal address: a user event in place of the kernel's
 * a fault of the comparison on the device (`skytune run --compare device`):
 *   overstate  device_outputs names one element more than the output
 *           buffer holds
 * and two faults of the build, for bad configurations on every run:
 *   compile the kernel does not compile (a syntax error)
 *   biglog  the compiler writes a log of some megabytes (thousands of
 *           #pragma messages), then fails on an #error
 *
 * The plugin is built by tests/meson.build, never installed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <skytune/plugin.h>
#include <skytune/plugin_checks.h>

/* The engine builds the kernel with -D for every parameter, strings as bare
 * tokens: -D fault=loop -D bad=2 -D x=2 ... The kernel faults are chosen in
 * the preprocessor: pasting the `fault` token onto a prefix yields a macro
 * that is defined only for the kernel and build faults, and every other fault
 * name pastes into an undefined identifier, which #if reads as 0. The far
 * index is a ulong, so it is not truncated to 32 bits, and the loop writes
 * through a volatile pointer, so the compiler can remove neither. `call`
 * counts the enqueues of the configuration from 1, which picks the run. */
static const char hostile_kernel_source[] =
    "#define HOSTILE_PASTE_(a, b) a##b\n"
    "#define HOSTILE_PASTE(a, b) HOSTILE_PASTE_(a, b)\n"
    "#define HOSTILE_KERNEL_FAULT_oob 1\n"
    "#define HOSTILE_KERNEL_FAULT_loop 2\n"
    "#define HOSTILE_KERNEL_FAULT_corrupt 3\n"
    "#define HOSTILE_KERNEL_FAULT_near 4\n"
    "#define HOSTILE_KERNEL_FAULT_wrong 5\n"
    "#define HOSTILE_KERNEL_FAULT_kprintf 6\n"
    "#define HOSTILE_KERNEL_FAULT_compile 7\n"
    "#define HOSTILE_KERNEL_FAULT_biglog 8\n"
    "#define HOSTILE_KERNEL_FAULT_slow 9\n"
    "#define HOSTILE_KERNEL_FAULT HOSTILE_PASTE(HOSTILE_KERNEL_FAULT_, fault)\n"
    "#define HOSTILE_BAD (x == bad || x == bad2)\n"
    "\n"
    "#if HOSTILE_KERNEL_FAULT == 7 && HOSTILE_BAD\n"
    "this is not OpenCL C;\n"
    "#elif HOSTILE_KERNEL_FAULT == 8 && HOSTILE_BAD\n"
    "#define HOSTILE_SAY _Pragma(\"message(\\\"hostile build log: a line of the long log that a "
    "broken kernel generator can make a compiler write, padded to some length .............\\\")\")\n"
    "#define HOSTILE_SAY8 HOSTILE_SAY HOSTILE_SAY HOSTILE_SAY HOSTILE_SAY HOSTILE_SAY HOSTILE_SAY "
    "HOSTILE_SAY HOSTILE_SAY\n"
    "#define HOSTILE_SAY64 HOSTILE_SAY8 HOSTILE_SAY8 HOSTILE_SAY8 HOSTILE_SAY8 HOSTILE_SAY8 "
    "HOSTILE_SAY8 HOSTILE_SAY8 HOSTILE_SAY8\n"
    "#define HOSTILE_SAY512 HOSTILE_SAY64 HOSTILE_SAY64 HOSTILE_SAY64 HOSTILE_SAY64 HOSTILE_SAY64 "
    "HOSTILE_SAY64 HOSTILE_SAY64 HOSTILE_SAY64\n"
    "HOSTILE_SAY512 HOSTILE_SAY512 HOSTILE_SAY512 HOSTILE_SAY512\n"
    "HOSTILE_SAY512 HOSTILE_SAY512 HOSTILE_SAY512 HOSTILE_SAY512\n"
    "#error hostile: the build fails after its long log\n"
    "#endif\n"
    "\n"
    "__kernel void twice(__global float *in, __global float *out, const uint call)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "#if HOSTILE_KERNEL_FAULT == 1 && HOSTILE_BAD\n"
    "    if (i == 0 && call == nth) {\n"
    "        const ulong far = (ulong)i + ((ulong)1 << 40);\n"
    "        out[far] = 1.0f;\n"
    "    }\n"
    "#elif HOSTILE_KERNEL_FAULT == 2 && HOSTILE_BAD\n"
    "    if (i == 0 && call == nth) {\n"
    "        volatile __global float *spin = out;\n"
    "        for (uint k = 0;; k++) spin[0] = (float)k;\n"
    "    }\n"
    "#elif HOSTILE_KERNEL_FAULT == 3 && HOSTILE_BAD\n"
    "    if (call == nth && i < n) {\n"
    "        out[i] = 2.0f * in[i];\n"
    "        in[i] = -7.0f;\n"
    "        return;\n"
    "    }\n"
    "#elif HOSTILE_KERNEL_FAULT == 4 && HOSTILE_BAD\n"
    "    if (call == nth && i < 64) {\n"
    "        out[i] = 2.0f * in[i];\n"
    "        out[n + i] = -1.0f;\n"
    "        return;\n"
    "    }\n"
    "#elif HOSTILE_KERNEL_FAULT == 5 && HOSTILE_BAD\n"
    "    if (i < n) out[i] = 3.0f * in[i];\n"
    "    return;\n"
    "#elif HOSTILE_KERNEL_FAULT == 6 && HOSTILE_BAD\n"
    "    if (i == 0) printf(\"hostile kernel says x=%d\\n\", (int)x);\n"
    "#elif HOSTILE_KERNEL_FAULT == 9 && HOSTILE_BAD\n"
    "    if (i < n) {\n"
    "        volatile __global float *slow = out;\n"
    "        for (uint k = 0; k < 20000u; k++) slow[i] = 2.0f * in[i];\n"
    "    }\n"
    "    return;\n"
    "#endif\n"
    "    if (i < n) out[i] = 2.0f * in[i];\n"
    "}\n";

typedef enum hostile_fault {
    FAULT_NONE,
    FAULT_SEGV,
    FAULT_ABORT,
    FAULT_EXIT,
    FAULT_STACK,
    FAULT_OOB,
    FAULT_LOOP,
    FAULT_HANG,
    FAULT_PRINT,
    FAULT_PRINT_SEGV,
    FAULT_CORRUPT,
    FAULT_NEAR,
    FAULT_WRONG,
    FAULT_KPRINTF,
    FAULT_COMPILE,
    FAULT_BIGLOG,
    FAULT_DAMAGE,
    FAULT_DEVICE_FAULT,
    FAULT_OVERSTATE,
    FAULT_SLOW
} hostile_fault;

typedef enum hostile_callback {
    AT_DEFINES,
    AT_PREPARE,
    AT_CLEAR_OUTPUTS,
    AT_ENQUEUE,
    AT_VERIFY,
    AT_RELEASE,
    AT_FLOPS,
    AT_DEVICE_OUTPUTS
} hostile_callback;

static const char *const fault_names[] = {
    "none", "segv",    "abort", "exit",  "stack",   "oob",     "loop",  "hang",
    "print", "print_segv", "corrupt", "near", "wrong", "kprintf", "compile", "biglog", "damage", "device_fault", "overstate", "slow"};
static const char *const callback_names[] = {"defines", "prepare", "clear_outputs", "enqueue",
                                             "verify",  "release", "flops", "device_outputs"};

/* -1 when the name is not in the list; the problem checks make that
 * impossible for a problem the engine accepted. */
static int index_of(const char *name, const char *const *names, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (strcmp(name, names[k]) == 0) return (int)k;
    return -1;
}

/* What the problem asks for, read once per problem (and by flops, which
 * sees only the problem and the configuration). */
typedef struct hostile_plan {
    int fault;              /* hostile_fault */
    int where;              /* hostile_callback */
    int64_t bad, bad2, nth;
} hostile_plan;

static hostile_plan read_plan(const skytune_values *problem)
{
    hostile_plan plan = {
        .fault = index_of(skytune_string(problem, "fault"), fault_names,
                          sizeof fault_names / sizeof fault_names[0]),
        .where = index_of(skytune_string(problem, "where"), callback_names,
                          sizeof callback_names / sizeof callback_names[0]),
        .bad = skytune_int(problem, "bad"),
        .bad2 = skytune_int(problem, "bad2"),
        .nth = skytune_int(problem, "nth"),
    };
    return plan;
}

static int plan_targets(const hostile_plan *plan, const skytune_values *config)
{
    const int64_t x = skytune_int(config, "x");
    return x == plan->bad || x == plan->bad2;
}

/* ------------------------------------------------------------ misbehaving */

/* Each frame keeps a volatile array alive across the recursive call, and
 * the call's result is used after it returns, so the recursion can be
 * neither turned into a loop nor given a smaller frame. The exit test reads
 * the volatile array, which the compiler cannot know, so the function has a
 * way out on paper and no way out in practice. */
__attribute__((noinline)) static int overflow_stack(int depth)
{
    volatile unsigned char frame[4096];
    frame[0] = 0;
    frame[sizeof frame - 1] = (unsigned char)depth;
    if (frame[0] != 0) return depth;
    return overflow_stack(depth + 1) + frame[(unsigned)depth % sizeof frame];
}

/* Host faults; the kernel and build faults do nothing here. */
static void misbehave(int fault)
{
    if (fault == FAULT_PRINT || fault == FAULT_PRINT_SEGV) {
        printf("hostile says on stdout\n");
        fflush(stdout);
        fprintf(stderr, "\033[31mhostile says on stderr\033[0m\n");
        if (fault == FAULT_PRINT) return;
    }
    switch (fault) {
    case FAULT_PRINT_SEGV:
    case FAULT_SEGV: {
        /* The address is read from a volatile object, so the compiler cannot
         * see that it is invalid and must emit the store as written. */
        volatile int *volatile target = (volatile int *)(uintptr_t)16;
        *target = 1;
        break;
    }
    case FAULT_ABORT:
        abort();
    case FAULT_EXIT:
        exit(3);
    case FAULT_STACK:
        overflow_stack(1);
        break;
    case FAULT_HANG:
        for (;;) pause();
    default:
        break;
    }
}

/* ------------------------------------------------------------ state */

typedef struct hostile_state {
    hostile_plan plan;
    int64_t n;
    char *hold;             /* the hold file, NULL for none */
    struct timespec next_turn; /* of the next configuration held */
    int current_is_bad;     /* the configuration between prepare and release */
    int compared_is_bad;    /* HOSTILE_READ_BACK: the one read back, compared after release */
    int damaged;            /* fault=damage: a bad configuration was released */
    float *input, *expected, *result;
    cl_mem in_buf, out_buf;
} hostile_state;

typedef struct hostile_launch {
    hostile_state *state;
    cl_kernel kernel;
    int is_bad;
    cl_uint enqueues;       /* of this configuration so far */
    size_t global_size;
} hostile_launch;

static void hostile_teardown(void *opaque);

static int hostile_setup(const skytune_setup_context *ctx, void **state_out, skytune_error *err)
{
    const int64_t n = skytune_int(ctx->problem, "n");
    const size_t bytes = (size_t)n * sizeof(float);
    hostile_state *s = calloc(1, sizeof *s);
    if (!s) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the state");
    s->plan = read_plan(ctx->problem);
    s->n = n;
    const char *hold = skytune_string(ctx->problem, "hold");
    if (strcmp(hold, "none") != 0 && !(s->hold = strdup(hold))) {
        hostile_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the hold");
    }
    clock_gettime(CLOCK_MONOTONIC, &s->next_turn);
    if (s->plan.fault < 0 || s->plan.where < 0) {
        hostile_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "unknown fault '%s' or where '%s'",
                                 skytune_string(ctx->problem, "fault"),
                                 skytune_string(ctx->problem, "where"));
    }
    s->input = malloc(bytes);
    s->expected = malloc(bytes);
    s->result = malloc(bytes);
    if (!s->input || !s->expected || !s->result) {
        hostile_teardown(s);
        return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for %lld floats",
                                 (long long)n);
    }
    /* Inputs vary with the seed so that a stale output cannot pass. */
    for (int64_t i = 0; i < n; i++)
        s->input[i] = (float)((uint64_t)i * 2654435761u % 1000u + ctx->seed % 7u) * 0.25f;

    cl_int status = CL_SUCCESS;
    s->in_buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                               s->input, &status);
    if (status == CL_SUCCESS)
        s->out_buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &status);
    if (status != CL_SUCCESS) {
        hostile_teardown(s);
        return skytune_opencl_failure(err, SKYTUNE_ERR_SETUP, status, "clCreateBuffer (in, out)");
    }
    *state_out = s;
    return SKYTUNE_OK;
}

static int hostile_reference(void *opaque, skytune_error *err)
{
    (void)err;
    hostile_state *s = opaque;
    for (int64_t i = 0; i < s->n; i++) s->expected[i] = 2.0f * s->input[i];
    return SKYTUNE_OK;
}

/* The expected outputs, for the engine to compute them once per campaign. */
static int hostile_reference_data(void *opaque, skytune_region *regions, size_t max,
                                  size_t *count, skytune_error *err)
{
    (void)max;
    (void)err;
    hostile_state *s = opaque;
    regions[0] = (skytune_region){s->expected, (size_t)s->n * sizeof(float)};
    *count = 1;
    return SKYTUNE_OK;
}

static int hostile_defines(void *opaque, const skytune_values *config, char *buf, size_t len,
                           skytune_error *err)
{
    (void)err;
    hostile_state *s = opaque;
    if (s->plan.where == AT_DEFINES && plan_targets(&s->plan, config)) misbehave(s->plan.fault);
    /* The parameters' own -D defines are all the kernel needs. */
    if (len > 0) buf[0] = '\0';
    return 0;
}

/* The turns of held configurations. A configuration waits at most one
 * turn, well under the engine's watchdog floor (10 s), so that a held
 * configuration is never taken for a hung one. The file is looked at every
 * HOLD_POLL_MS, so that its removal ends a wait at once (a test that stops
 * the campaign removes it, and the configuration in flight finishes within
 * the stop grace). */
#define HOLD_TURN_MS 5000
#define HOLD_POLL_MS 50

static long long ms_until(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static void wait_for_turn(hostile_state *s)
{
    if (!s->hold || access(s->hold, F_OK) != 0) return;
    for (long long left; (left = ms_until(&s->next_turn)) > 0 && access(s->hold, F_OK) == 0;) {
        long long nap = left < HOLD_POLL_MS ? left : HOLD_POLL_MS;
        nanosleep(&(struct timespec){0, nap * 1000000L}, NULL);
    }
    s->next_turn.tv_sec += HOLD_TURN_MS / 1000;
    s->next_turn.tv_nsec += (HOLD_TURN_MS % 1000) * 1000000L;
    if (s->next_turn.tv_nsec >= 1000000000L) {
        s->next_turn.tv_sec++;
        s->next_turn.tv_nsec -= 1000000000L;
    }
}

static int hostile_prepare(void *opaque, cl_program program, const skytune_values *config,
                           void **launch_out, skytune_error *err)
{
    hostile_state *s = opaque;
    wait_for_turn(s);
    s->current_is_bad = plan_targets(&s->plan, config);
    if (s->damaged) misbehave(FAULT_SEGV);
    if (s->plan.where == AT_PREPARE && s->current_is_bad) misbehave(s->plan.fault);

    hostile_launch *l = calloc(1, sizeof *l);
    if (!l) return skytune_error_set(err, SKYTUNE_ERR_MEMORY, "out of memory for the launch");
    l->state = s;
    l->is_bad = s->current_is_bad;
    cl_int status = CL_SUCCESS;
    l->kernel = clCreateKernel(program, "twice", &status);
    if (status != CL_SUCCESS) {
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateKernel(twice)");
    }
    status = clSetKernelArg(l->kernel, 0, sizeof(cl_mem), &s->in_buf);
    if (status == CL_SUCCESS) status = clSetKernelArg(l->kernel, 1, sizeof(cl_mem), &s->out_buf);
    if (status != CL_SUCCESS) {
        clReleaseKernel(l->kernel);
        free(l);
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg");
    }
    l->global_size = (size_t)s->n;
    *launch_out = l;
    return SKYTUNE_OK;
}

static int hostile_clear_outputs(void *opaque, cl_command_queue queue, skytune_error *err)
{
    hostile_state *s = opaque;
    if (s->plan.where == AT_CLEAR_OUTPUTS && s->current_is_bad) misbehave(s->plan.fault);
    const float poison = NAN;
    cl_int status = clEnqueueFillBuffer(queue, s->out_buf, &poison, sizeof poison, 0,
                                        (size_t)s->n * sizeof(float), 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueFillBuffer (NaN)");
    return SKYTUNE_OK;
}

static int hostile_enqueue(void *opaque, cl_command_queue queue, skytune_events *events,
                           skytune_error *err)
{
    hostile_launch *l = opaque;
    const hostile_plan *plan = &l->state->plan;
    l->enqueues++;
    if (plan->where == AT_ENQUEUE && l->is_bad && l->enqueues == (cl_uint)plan->nth)
        misbehave(plan->fault);
    cl_int status = clSetKernelArg(l->kernel, 2, sizeof(cl_uint), &l->enqueues);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clSetKernelArg (call)");
    cl_event done = NULL;
    if (plan->fault == FAULT_DEVICE_FAULT && l->is_bad && l->enqueues == (cl_uint)plan->nth) {
        cl_context context = NULL;
        status = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
        if (status == CL_SUCCESS) done = clCreateUserEvent(context, &status);
        if (status == CL_SUCCESS) status = clSetUserEventStatus(done, CL_OUT_OF_RESOURCES);
        if (status != CL_SUCCESS)
            return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clCreateUserEvent");
        if (skytune_events_add(events, done, "twice") != 0)
            return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
        return SKYTUNE_OK;
    }
    /* The implementation picks the work-group size: x changes nothing but
     * the configuration's identity. */
    status = clEnqueueNDRangeKernel(queue, l->kernel, 1, NULL, &l->global_size, NULL, 0, NULL,
                                    &done);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueNDRangeKernel");
    if (skytune_events_add(events, done, "twice") != 0)
        return skytune_error_set(err, SKYTUNE_ERR_LAUNCH, "too many events in one run");
    return SKYTUNE_OK;
}

static int read_outputs(hostile_state *s, cl_command_queue queue, skytune_error *err)
{
    cl_int status = clEnqueueReadBuffer(queue, s->out_buf, CL_TRUE, 0,
                                        (size_t)s->n * sizeof(float), s->result, 0, NULL, NULL);
    if (status != CL_SUCCESS)
        return skytune_opencl_failure(err, SKYTUNE_ERR_LAUNCH, status, "clEnqueueReadBuffer (out)");
    return SKYTUNE_OK;
}

#ifdef HOSTILE_READ_BACK
/* The split variant (hostile_split.so): the outputs read here, compared in
 * verify after the timed runs and the release. */
static int hostile_read_back(void *opaque, const skytune_values *config, cl_command_queue queue,
                             skytune_error *err)
{
    (void)config;
    hostile_state *s = opaque;
    s->compared_is_bad = s->current_is_bad;
    return read_outputs(s, queue, err);
}
#endif

static int hostile_verify(void *opaque, const skytune_values *config, cl_command_queue queue,
                          skytune_verify_report *report, skytune_error *err)
{
    (void)config;
    hostile_state *s = opaque;
#ifdef HOSTILE_READ_BACK
    (void)queue;
    (void)err;
    if (s->plan.where == AT_VERIFY && s->compared_is_bad) misbehave(s->plan.fault);
#else
    if (s->plan.where == AT_VERIFY && s->current_is_bad) misbehave(s->plan.fault);
    int rc = read_outputs(s, queue, err);
    if (rc != SKYTUNE_OK) return rc;
#endif
    /* Doubling is exact in binary floating point. */
    skytune_compare_floats(s->result, s->expected, (size_t)s->n, 0.0, 0.0, report);
    return SKYTUNE_OK;
}

/* The output for the engine to compare on the device, as verify would. */
static int hostile_device_outputs(void *opaque, const skytune_values *config,
                                  skytune_device_output *outputs, size_t max, size_t *count,
                                  skytune_error *err)
{
    (void)config;
    hostile_state *s = opaque;
    if (s->plan.where == AT_DEVICE_OUTPUTS && s->current_is_bad) misbehave(s->plan.fault);
    size_t n = (size_t)s->n;
    if (s->plan.fault == FAULT_OVERSTATE && s->current_is_bad) n++;
    *count = 0;
    if (skytune_device_output_add(outputs, max, count, "output", s->out_buf, n, s->expected, 0.0,
                                  0.0))
        return skytune_error_set(err, SKYTUNE_ERR_SETUP, "more outputs than %zu", max);
    return SKYTUNE_OK;
}

static void hostile_release(void *opaque)
{
    hostile_launch *l = opaque;
    if (!l) return;
    if (l->state->plan.where == AT_RELEASE && l->is_bad) misbehave(l->state->plan.fault);
    if (l->state->plan.fault == FAULT_DAMAGE && l->is_bad) l->state->damaged = 1;
    l->state->current_is_bad = 0;
    if (l->kernel) clReleaseKernel(l->kernel);
    free(l);
}

static void hostile_teardown(void *opaque)
{
    hostile_state *s = opaque;
    if (!s) return;
    if (s->in_buf) clReleaseMemObject(s->in_buf);
    if (s->out_buf) clReleaseMemObject(s->out_buf);
    free(s->hold);
    free(s->input);
    free(s->expected);
    free(s->result);
    free(s);
}

static double hostile_flops(const skytune_values *problem, const skytune_values *config)
{
    hostile_plan plan = read_plan(problem);
    if (plan.where == AT_FLOPS && plan_targets(&plan, config)) misbehave(plan.fault);
    return (double)skytune_int(problem, "n");
}

static double hostile_bytes(const skytune_values *problem, const skytune_values *config)
{
    (void)config;
    return 8.0 * (double)skytune_int(problem, "n");
}

/* ------------------------------------------------------------ description */

static const skytune_problem_param hostile_problem_params[] = {
    {"fault", SKYTUNE_STRING, "none",
     "none, segv, abort, exit, stack (host faults in the callback `where`), oob, near, loop, "
     "corrupt, wrong, kprintf (kernel faults), compile, biglog (build faults), hang (the callback "
     "`where` never returns), print, print_segv (lines on stdout and stderr, then going on or a "
     "segfault), damage (the next configuration in the same worker segfaults), "
     "overstate (device_outputs names more elements than the output holds), slow (a correct "
     "kernel hundreds of times slower than the others)"},
    {"where", SKYTUNE_STRING, "prepare",
     "the callback a host fault happens in: defines, prepare, clear_outputs, enqueue, verify, "
     "release, flops, device_outputs"},
    {"bad", SKYTUNE_INT, "2", "the value of x that misbehaves"},
    {"bad2", SKYTUNE_INT, "-1", "a second value of x that misbehaves (-1: none)"},
    {"nth", SKYTUNE_INT, "1",
     "which enqueue of a bad configuration misbehaves (where=enqueue and kernel faults): 1 "
     "verification, 2 and on timed runs (with --warm-up 1: 2 warm-up, 3 and on timed runs)"},
    {"values", SKYTUNE_INT, "6", "configurations in the space: x = 0 .. values-1"},
    {"n", SKYTUNE_INT, "1024", "elements the kernel doubles"},
    {"hold", SKYTUNE_STRING, "none",
     "a file: while it exists, the configurations a worker measures take turns, one every "
     "5 s from its set-up, sleeping (none: no file)"},
    {NULL, 0, NULL, NULL}
};

static const skytune_problem_check hostile_problem_checks[] = {
    {"fault == 'none' or fault == 'segv' or fault == 'abort' or fault == 'exit' or "
     "fault == 'stack' or fault == 'oob' or fault == 'loop' or fault == 'hang' or "
     "fault == 'print' or fault == 'print_segv' or fault == 'corrupt' or fault == 'near' or "
     "fault == 'wrong' or fault == 'kprintf' or fault == 'compile' or fault == 'biglog' or fault == 'damage' or "
     "fault == 'device_fault' or fault == 'overstate' or fault == 'slow'",
     "fault must be one of none, segv, abort, exit, stack, oob, loop, hang, print, print_segv, "
     "corrupt, near, wrong, kprintf, compile, biglog, damage, device_fault, overstate, slow"},
    {"where == 'defines' or where == 'prepare' or where == 'clear_outputs' or "
     "where == 'enqueue' or where == 'verify' or where == 'release' or where == 'flops' or "
     "where == 'device_outputs'",
     "where must be one of defines, prepare, clear_outputs, enqueue, verify, release, flops, "
     "device_outputs"},
    {"nth >= 1", "nth must be at least 1 (the first enqueue)"},
    {"1 <= values <= 4096", "values must be between 1 and 4096"},
    {"1 <= n <= 16777216", "n must be between 1 and 16777216"},
    {NULL, NULL}
};

static const skytune_tuning_param hostile_tuning_params[] = {
    {"x", SKYTUNE_RANGE, NULL, 0, 4095, 1, "identifies the configuration; changes nothing else"},
    {NULL, 0, NULL, 0, 0, 0, NULL}
};

static const char *const hostile_constraints[] = {"x < values", NULL};

#ifdef HOSTILE_READ_BACK
#define HOSTILE_NAME "hostile_split"
#else
#define HOSTILE_NAME "hostile"
#endif

static const skytune_plugin hostile_plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = HOSTILE_NAME,
    .version = "1",
    .description = "out = 2 * in, misbehaving on chosen configurations (a test plugin)",
    .problem_params = hostile_problem_params,
    .problem_checks = hostile_problem_checks,
    .tuning_params = hostile_tuning_params,
    .constraints = hostile_constraints,
    .kernel_source = hostile_kernel_source,
    .defines = hostile_defines,
    .setup = hostile_setup,
    .reference = hostile_reference,
    .reference_data = hostile_reference_data,
    .prepare = hostile_prepare,
    .clear_outputs = hostile_clear_outputs,
    .enqueue = hostile_enqueue,
#ifdef HOSTILE_READ_BACK
    .read_back = hostile_read_back,
#endif
    .verify = hostile_verify,
    .release = hostile_release,
    .teardown = hostile_teardown,
    .flops = hostile_flops,
    .bytes = hostile_bytes,
    .device_outputs = hostile_device_outputs,
};

SKYTUNE_DEFINE_PLUGIN(hostile_plugin)
