/*
 * plugin_support — the OpenCL set-up and tear-down of a plugin, written
 * once. A plugin declares its device buffers (what each holds, whether it is
 * an output to poison) and its kernels (name, arguments in order, launch
 * geometry) as data; these functions create, fill, poison, read back,
 * enqueue and release them, and turn a failed OpenCL call into a
 * skytune_error that names the call and the buffer or kernel:
 *
 *     setup          s->buffers[A] = support_input("a", s->a, bytes); ...
 *                    support_buffers_create(s->buffers, BUFFERS, ...)
 *     prepare        support_kernel_spec k = {.name = ..., .args = {...}, ...};
 *                    support_kernel_create(&launch->kernel, program, &k, err)
 *     clear_outputs  support_buffers_poison(s->buffers, BUFFERS, queue, err)
 *     enqueue        support_kernel_enqueue(&launch->kernel, queue, events, err)
 *     verify         support_buffer_read(&s->buffers[C], queue, s->result, err)
 *     release        support_kernel_release(&launch->kernel)
 *     teardown       support_buffers_release(s->buffers, BUFFERS)
 *
 * It uses the plugin ABI (skytune/plugin.h) and OpenCL alone, so a plugin
 * built out of tree links it as it is: installed as a static library with
 * skytune-plugin-support.pc (docs/plugins.md). Its symbols stay hidden in
 * the module that links it.
 *
 * Functions return SKYTUNE_OK, or a skytune_result code with a message in
 * err. Release functions are safe on zeroed and partly created objects.
 */
#ifndef SKYTUNE_PLUGIN_SUPPORT_H
#define SKYTUNE_PLUGIN_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <skytune/plugin.h>

/* ---------------------------------------------------------------- buffers */

/* What clear_outputs writes over a buffer, so that a kernel that writes
 * nothing (or only part) cannot pass verification with an earlier
 * configuration's result. */
typedef enum support_poison {
    SUPPORT_KEEP = 0,     /* not an output: never overwritten */
    SUPPORT_POISON_NAN,   /* every float NaN, which equals no reference value */
    SUPPORT_POISON_ONES   /* every bit set: no count or integer sum a kernel makes */
} support_poison;

/* A device buffer: its declaration, then what support_buffers_create made
 * of it. A buffer of 0 bytes is one the problem does not need (the FFT's
 * output of a problem without the FFT): it is not created, stays NULL and is
 * skipped by the functions below. */
typedef struct support_buffer {
    const char *name;       /* static; names the buffer in messages */
    cl_mem_flags flags;     /* CL_MEM_COPY_HOST_PTR is added when there is `host` */
    size_t bytes;
    const void *host;       /* initial contents, copied at creation (then NULL); or NULL */
    support_poison poison;
    cl_mem mem;             /* NULL until created */
} support_buffer;

/* An input the kernels only read, uploaded from `host` at creation. */
static inline support_buffer support_input(const char *name, const void *host, size_t bytes)
{
    return (support_buffer){.name = name, .flags = CL_MEM_READ_ONLY, .bytes = bytes,
                            .host = host};
}

/* An output the plugin's kernels only write, poisoned with NaN. Created
 * read-write all the same: the engine's comparison on the device
 * (device_outputs) reads it with a kernel, which OpenCL does not allow for
 * a CL_MEM_WRITE_ONLY buffer. */
static inline support_buffer support_output(const char *name, size_t bytes)
{
    return (support_buffer){.name = name, .flags = CL_MEM_READ_WRITE, .bytes = bytes,
                            .poison = SUPPORT_POISON_NAN};
}

/* An output the kernels also read (atomic sums, a later pass's input),
 * poisoned with NaN. */
static inline support_buffer support_read_write(const char *name, size_t bytes)
{
    return (support_buffer){.name = name, .flags = CL_MEM_READ_WRITE, .bytes = bytes,
                            .poison = SUPPORT_POISON_NAN};
}

/* Create the `count` declared buffers in `context`. On failure those
 * created are released again and `code` is returned (SKYTUNE_ERR_SETUP from
 * setup, SKYTUNE_ERR_LAUNCH from prepare) with a message naming the
 * buffer. */
int support_buffers_create(support_buffer *buffers, size_t count, cl_context context, int code,
                           skytune_error *err);

/* Overwrite every created buffer declared with a poison: a plugin's
 * clear_outputs. */
int support_buffers_poison(const support_buffer *buffers, size_t count, cl_command_queue queue,
                           skytune_error *err);

/* Read the whole of `buffer` into `host` (blocking). */
int support_buffer_read(const support_buffer *buffer, cl_command_queue queue, void *host,
                        skytune_error *err);

void support_buffers_release(support_buffer *buffers, size_t count);

/* The context `program` was built in, where prepare creates the buffers of
 * one configuration. */
int support_program_context(cl_program program, cl_context *context, skytune_error *err);

/* ---------------------------------------------------------------- kernels */

/* One kernel argument: its size and where its value is, read when the
 * kernel is created. SUPPORT_ARG(x) takes an lvalue: a cl_mem, an int, a
 * cl_int4. */
typedef struct support_arg {
    size_t size;
    const void *value;
} support_arg;

#define SUPPORT_ARG(x) ((support_arg){sizeof(x), &(x)})

#define SUPPORT_MAX_ARGS 16

/* A kernel as prepare declares it. */
typedef struct support_kernel_spec {
    const char *name;                   /* the __kernel's name in the program */
    const char *label;                  /* static; labels its events (a part of the run) */
    support_arg args[SUPPORT_MAX_ARGS]; /* in parameter order; the first of size 0 ends them */
    cl_uint dims;                       /* 1 to 3 */
    size_t global[3], local[3];
    /* Refuse a work-group larger than the kernel runs on the device: a
     * kernel that needs many registers may run fewer work-items than the
     * device's limit, and saying so in prepare is clearer than the
     * launch's CL_INVALID_WORK_GROUP_SIZE. */
    bool check_work_group;
} support_kernel_spec;

/* A created kernel with its arguments set, ready to enqueue. */
typedef struct support_kernel {
    cl_kernel kernel;       /* NULL: not created (a pass with nothing to do) */
    const char *label;
    cl_uint dims;
    size_t global[3], local[3];
} support_kernel;

/* Create `spec`'s kernel from `program` and set its arguments. On failure
 * nothing is left to release. */
int support_kernel_create(support_kernel *k, cl_program program, const support_kernel_spec *spec,
                          skytune_error *err);

/* Enqueue `k` and add its event, labelled, to `events`; a kernel that was
 * not created is skipped. */
int support_kernel_enqueue(const support_kernel *k, cl_command_queue queue, skytune_events *events,
                           skytune_error *err);

void support_kernel_release(support_kernel *k);

/* skytune_events_add with the failure as an error: one more event than a
 * run may hold. */
int support_event_add(skytune_events *events, cl_event event, const char *label,
                      skytune_error *err);

/* A plugin whose run is one kernel needs no launch of its own: prepare
 * ends with support_kernel_new, and the description's enqueue and release
 * are support_kernel_run and support_kernel_free. */
int support_kernel_new(cl_program program, const support_kernel_spec *spec, void **launch,
                       skytune_error *err);
int support_kernel_run(void *launch, cl_command_queue queue, skytune_events *events,
                       skytune_error *err);
void support_kernel_free(void *launch);

#endif
