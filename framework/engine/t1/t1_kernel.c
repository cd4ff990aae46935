/* Reading a T1 file's KernelSpecification (t1_kernel.h).
 *
 * Where the T1 schema leaves a choice open, what is read here:
 *   - LocalSize X, Y, Z are work-items per work-group (Y and Z default 1).
 *   - GlobalSize counts work-items with GlobalSizeType "OpenCL" (the
 *     default), work-groups with "CUDA" or "Vulkan" (global = GlobalSize *
 *     LocalSize, as a CUDA grid times its blocks).
 *   - GridDivX (Y, Z), as Kernel Tuner's grid_div_x: the work-groups of
 *     that dimension are ceil(ProblemSize[d] / the product of its
 *     expressions), 1 for an empty list, and GlobalSize of that dimension
 *     is not used.
 *   - A ProblemSize entry is a whole number (a problem parameter) or an
 *     expression of the tuning parameters (Kernel Tuner's problem_size
 *     naming a parameter).
 *   - An argument's Size counts elements of its Type (a float4 element is
 *     four floats). An input Vector's Size may not read a tuning
 *     parameter's value (its data is made once per problem); an output's
 *     and a Local one's may.
 *   - A tuning parameter whose name is a word of OpenCL C reaches the
 *     kernel as a #define line at the top of the source (build_options.h).
 *   - The kernel source is compiled after a #line directive naming the
 *     KernelFile, so that the compiler's messages name the user's file.
 *   - A Scalar's FillValue is a number or an expression.
 *   - A Vector that is not ReadOnly (AccessType defaults to ReadWrite), or
 *     that says "Output", is an output: its data is reset to its fill before
 *     every run, so that no configuration sees another's results.
 */
#include "t1_kernel.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "build_options.h"
#include "cl_device.h"
#include "compiler_inputs.h"
#include "hash.h"
#include "quote.h"
#include "t1.h"
#include "t1_kernel_internal.h"
#include "value.h"

/* Device limits are names in Conditions; at most this many. */
#define MAX_DEVICE_NAMES 32

static const char *const dimension_keys[3] = {"X", "Y", "Z"};
static const char *const grid_div_keys[3] = {"GridDivX", "GridDivY", "GridDivZ"};

/* ------------------------------------------------------------ helpers */

/* A whole file, NUL-terminated; NULL with the reason in why when it cannot
 * be read. Only a regular file of at most `limit` bytes is read: a FIFO
 * would block the engine, and /dev/zero or a huge file would exhaust its
 * memory. */
static char *read_whole(const char *path, uint64_t limit, size_t *len, char *why, size_t why_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "not a regular file (a FIFO, a device or a folder is never read)");
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > limit) {
        snprintf(why, why_len, "%lld bytes, more than the %llu MiB such a file may hold",
                 (long long)st.st_size, (unsigned long long)(limit >> 20));
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size + 1);
    if (!data) {
        snprintf(why, why_len, "out of memory");
        close(fd);
        return NULL;
    }
    size_t used = 0;
    while (used < size) {
        ssize_t got = read(fd, data + used, size - used);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, why_len, "%s", strerror(errno));
            free(data);
            close(fd);
            return NULL;
        }
        if (got == 0) break; /* shrunk since fstat: what is there */
        used += (size_t)got;
    }
    close(fd);
    data[used] = '\0';
    *len = used;
    return data;
}

/* `name` relative to the T1 file's folder (absolute names as they are). */
static char *beside(const t1_kernel *s, const char *name)
{
    if (name[0] == '/') return strdup(name);
    const char *slash = strrchr(s->path, '/');
    size_t dir = slash ? (size_t)(slash - s->path) + 1 : 0;
    char *out = malloc(dir + strlen(name) + 1);
    if (!out) return NULL;
    memcpy(out, s->path, dir);
    strcpy(out + dir, name);
    return out;
}

/* ------------------------------------------------------------ the space */

/* Default, as the hub writes it: a value, or a list of one. */
static int find_default(const t1_kernel *s, const param_def *p, const json_t *d, int *index,
                        skytune_error *err)
{
    *index = -1;
    if (json_is_array(d) && json_array_size(d) == 1) d = json_array_get(d, 0);
    if (!d || json_is_null(d)) return 0;
    char text[256];
    if (json_is_string(d))
        snprintf(text, sizeof text, "%s", json_string_value(d));
    else if (json_is_boolean(d))
        snprintf(text, sizeof text, "%d", json_is_true(d) ? 1 : 0);
    else if (json_is_integer(d))
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(d));
    else if (json_is_real(d))
        snprintf(text, sizeof text, "%.17g", json_real_value(d));
    else
        return t1_kernel_fail(s, err, "tuning parameter '%s': Default must be one of its values", p->name);
    *index = param_index_of(p, text);
    return 0;
}

static int read_space(t1_kernel *s, const json_t *root, skytune_error *err)
{
    const json_t *cs = json_object_get(root, "ConfigurationSpace");
    const json_t *tuning = json_object_get(cs, "TuningParameters");
    if (!json_is_object(cs) || !json_is_array(tuning) || json_array_size(tuning) == 0)
        return t1_kernel_fail(s, err, "ConfigurationSpace.TuningParameters must be a non-empty array of "
                            "tuning parameters");
    size_t n = json_array_size(tuning);
    s->params = calloc(n, sizeof *s->params);
    s->default_index = calloc(n, sizeof *s->default_index);
    if (!s->params || !s->default_index) return t1_kernel_fail(s, err, "out of memory");
    for (size_t k = 0; k < n; k++) {
        const json_t *item = json_array_get(tuning, k);
        if (t1_read_parameter(s->path, k + 1, item, &s->params[k], err) != 0) return -1;
        s->n_params++;
        for (size_t j = 0; j < k; j++)
            if (strcmp(s->params[j].name, s->params[k].name) == 0)
                return t1_kernel_fail(s, err, "ConfigurationSpace.TuningParameters: '%s' is declared "
                                    "twice (items %zu and %zu)", s->params[k].name, j + 1, k + 1);
        if (find_default(s, &s->params[k], json_object_get(item, "Default"),
                         &s->default_index[k], err) != 0)
            return -1;
    }
    return 0;
}

static int push_constraint(t1_kernel *s, char *text, skytune_error *err)
{
    if (!text) return t1_kernel_fail(s, err, "out of memory");
    char **grown = realloc(s->constraints, (s->n_constraints + 1) * sizeof *grown);
    if (!grown) {
        free(text);
        return t1_kernel_fail(s, err, "out of memory");
    }
    s->constraints = grown;
    s->constraints[s->n_constraints++] = text;
    return 0;
}

static int read_conditions(t1_kernel *s, const json_t *root, skytune_error *err)
{
    const json_t *conditions = json_object_get(json_object_get(root, "ConfigurationSpace"),
                                               "Conditions");
    if (conditions && !json_is_array(conditions))
        return t1_kernel_fail(s, err, "ConfigurationSpace.Conditions must be an array");
    skytune_device_info none = {0};
    const char *device_names[MAX_DEVICE_NAMES];
    int64_t ignored[MAX_DEVICE_NAMES];
    name_scope scope = {.spec = s, .device_names = device_names};
    scope.n_device = cl_device_constants(&none, device_names, ignored, MAX_DEVICE_NAMES);
    for (size_t k = 0; k < json_array_size(conditions); k++) {
        const json_t *c = json_array_get(conditions, k);
        const char *text = json_string_value(c);
        if (!text && json_is_object(c)) text = json_string_value(json_object_get(c, "Expression"));
        char key[64];
        snprintf(key, sizeof key, "ConfigurationSpace.Conditions[%zu]", k);
        if (!text)
            return t1_kernel_fail(s, err, "%s: expected a string or an object with an \"Expression\" "
                                "string", key);
        char *rewritten;
        if (t1_rewrite(s, key, text, &rewritten, err) != 0) return -1;
        expr *e = NULL;
        if (t1_parse_expression(s, key, text, rewritten, &scope, &e, err) != 0) {
            free(rewritten);
            return -1;
        }
        expr_free(e);
        if (push_constraint(s, rewritten, err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the kernel */

/* The source after a #line directive naming the KernelFile as the T1 file
 * names it (relative to the current folder when the T1 file's path is):
 * the compiler's messages then name the user's file and its lines, not the
 * driver's temporary copy. The directive is part of the source, so the
 * binary cache's key covers it; the plugin's version hashes the file as
 * written. A name no C string can hold as it is (a control character) is
 * left out, and the messages name the driver's copy. */
static int name_the_file(t1_kernel *s, size_t len)
{
    size_t name_len = strlen(s->kernel_file);
    for (size_t k = 0; k < name_len; k++)
        if ((unsigned char)s->kernel_file[k] < 0x20 || s->kernel_file[k] == 0x7f) return 0;
    char *named = malloc(2 * name_len + len + 16);
    if (!named) return -1;
    size_t used = (size_t)sprintf(named, "#line 1 \"");
    for (size_t k = 0; k < name_len; k++) {
        if (s->kernel_file[k] == '"' || s->kernel_file[k] == '\\') named[used++] = '\\';
        named[used++] = s->kernel_file[k];
    }
    used += (size_t)sprintf(named + used, "\"\n");
    memcpy(named + used, s->kernel_source, len + 1);
    free(s->kernel_source);
    s->kernel_source = named;
    return 0;
}

static int read_kernel(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const char *language = json_string_value(json_object_get(ks, "Language"));
    if (!language)
        return t1_kernel_fail(s, err, "KernelSpecification.Language is missing; it must be \"OpenCL\"");
    if (strcmp(language, "OpenCL") != 0)
        return t1_kernel_fail(s, err, "KernelSpecification.Language is \"%s\": only OpenCL kernels run "
                            "here (skytune measures on OpenCL devices); a CUDA or Vulkan kernel "
                            "needs a tuner for that API",
                    language);
    const char *name = json_string_value(json_object_get(ks, "KernelName"));
    if (!name || !name_is_identifier(name))
        return t1_kernel_fail(s, err, "KernelSpecification.KernelName must be the name of the __kernel "
                            "function (an identifier)");
    s->kernel_name = strdup(name);
    const char *file = json_string_value(json_object_get(ks, "KernelFile"));
    if (!file || !*file)
        return t1_kernel_fail(s, err, "KernelSpecification.KernelFile must name the OpenCL source file, "
                            "relative to the T1 file's folder");
    s->kernel_file = beside(s, file);
    if (!s->kernel_name || !s->kernel_file) return t1_kernel_fail(s, err, "out of memory");
    size_t len;
    char why[160];
    s->kernel_source = read_whole(s->kernel_file, T1_MAX_KERNEL_BYTES, &len, why, sizeof why);
    char shown_file[QUOTE_PATH], shown_path[QUOTE_PATH];
    quote_text(file, shown_file, sizeof shown_file);
    if (!s->kernel_source)
        return t1_kernel_fail(s, err,
                              "KernelSpecification.KernelFile \"%s\": cannot read %s: %s; "
                              "KernelFile is the kernel's OpenCL source, relative to the T1 file's "
                              "folder",
                              shown_file, quote_text(s->kernel_file, shown_path, sizeof shown_path),
                              why);
    s->hash = hash_fnv1a(s->hash, s->kernel_source, len);
    if (name_the_file(s, len) != 0) return t1_kernel_fail(s, err, "out of memory");

    const json_t *options = json_object_get(ks, "CompilerOptions");
    if (options && !json_is_array(options))
        return t1_kernel_fail(s, err, "KernelSpecification.CompilerOptions must be an array of strings");
    size_t total = 1;
    for (size_t k = 0; k < json_array_size(options); k++) {
        const char *o = json_string_value(json_array_get(options, k));
        if (!o)
            return t1_kernel_fail(s, err, "KernelSpecification.CompilerOptions[%zu] is not a string", k);
        total += strlen(o) + 1;
    }
    s->compiler_options = calloc(total, 1);
    if (!s->compiler_options) return t1_kernel_fail(s, err, "out of memory");
    for (size_t k = 0; k < json_array_size(options); k++) {
        if (k) strcat(s->compiler_options, " ");
        strcat(s->compiler_options, json_string_value(json_array_get(options, k)));
    }
    /* What the kernel includes is part of the build too: a changed header
     * is a new plugin build, whose measurements are its own. */
    uint64_t includes;
    skytune_error include_err = {0};
    if (compiler_includes_digest(s->kernel_source, s->compiler_options, &includes, &include_err) != 0)
        return t1_kernel_fail(s, err, "KernelSpecification.KernelFile \"%s\": %s", shown_file,
                              include_err.message);
    if (includes) s->hash = hash_fnv1a(s->hash, &includes, sizeof includes);
    const json_t *shared = json_object_get(ks, "SharedMemory");
    if (json_is_integer(shared) && json_integer_value(shared) != 0)
        return t1_kernel_fail(s, err, "KernelSpecification.SharedMemory is CUDA's dynamic shared memory; "
                            "in OpenCL give a Local argument (MemoryType \"Local\") instead");
    return 0;
}

static int read_problem(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *ps = json_object_get(ks, "ProblemSize");
    if (!ps || json_is_null(ps)) return 0;
    size_t n = json_is_array(ps) ? json_array_size(ps) : 1;
    if (n > T1_MAX_PROBLEM)
        return t1_kernel_fail(s, err, "KernelSpecification.ProblemSize has %zu entries; at most %d "
                            "(X, Y, Z)", n, T1_MAX_PROBLEM);
    for (size_t k = 0; k < n; k++) {
        const json_t *v = json_is_array(ps) ? json_array_get(ps, k) : ps;
        if (json_is_string(v)) {
            s->problem_size[k] = 0; /* an expression, read with the tuning parameters */
            continue;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return t1_kernel_fail(s, err, "KernelSpecification.ProblemSize[%zu] must be a positive "
                                  "integer (a problem parameter) or an expression of the tuning "
                                  "parameters such as \"num_blocks\"", k);
        s->problem_size[k] = (int64_t)json_integer_value(v);
    }
    s->n_problem = n;
    return 0;
}

/* ProblemSize entries written as expressions, once the tuning parameters
 * are known. Each may read the tuning parameters and the entries before
 * it. */
static int read_problem_expressions(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *ps = json_object_get(ks, "ProblemSize");
    for (size_t k = 0; k < s->n_problem; k++) {
        const json_t *v = json_is_array(ps) ? json_array_get(ps, k) : ps;
        if (!json_is_string(v)) continue;
        char key[64];
        snprintf(key, sizeof key, "KernelSpecification.ProblemSize[%zu]", k);
        /* Until it is compiled, ProblemSize[k] names nothing: no entry reads
         * itself or a later one. */
        size_t n = s->n_problem;
        s->n_problem = k;
        int rc = t1_compile_expression(s, key, v, &s->problem_expr[k], err);
        s->n_problem = n;
        if (rc != 0) return -1;
    }
    return 0;
}

/* Defines (a T1 extension): names of the kernel's macros and their
 * expressions, each may read the tuning parameters, ProblemSize and the
 * Defines before it. */
static int read_defines(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *defines = json_object_get(ks, "Defines");
    if (!defines) return 0;
    if (!json_is_object(defines))
        return t1_kernel_fail(s, err, "KernelSpecification.Defines must be an object of macro names "
                              "and expressions, such as {\"N\": \"ProblemSize[0]\", "
                              "\"TILE\": \"block_size * 2\"}");
    s->defines = calloc(json_object_size(defines) + 1, sizeof *s->defines);
    if (!s->defines) return t1_kernel_fail(s, err, "out of memory");
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)defines, name, value) {
        char key[160];
        snprintf(key, sizeof key, "KernelSpecification.Defines.%.100s", name);
        if (!name_is_identifier(name))
            return t1_kernel_fail(s, err, "%s: a macro's name must be an identifier", key);
        if (build_options_opencl_word(name))
            return t1_kernel_fail(s, err, "%s: \"%s\" is a word of OpenCL C; as a macro it would "
                                  "change the kernel's own words; choose another name", key, name);
        for (size_t k = 0; k < s->n_params; k++)
            if (strcmp(s->params[k].name, name) == 0)
                return t1_kernel_fail(s, err, "%s: '%s' is a tuning parameter, which reaches the "
                                      "kernel as a macro already", key, name);
        for (size_t k = 0; k < s->n_problem; k++) {
            char problem[32];
            t1_problem_name(k, problem, sizeof problem);
            if (strcmp(problem, name) == 0)
                return t1_kernel_fail(s, err, "%s: '%s' is the macro of ProblemSize[%zu] already",
                                      key, name, k);
        }
        /* Until its expression is compiled, a Define names nothing
         * (t1_rewrite): none reads itself. */
        t1_define *d = &s->defines[s->n_defines++];
        if (!(d->name = strdup(name))) return t1_kernel_fail(s, err, "out of memory");
        if (t1_compile_expression(s, key, value, &d->value, err) != 0) return -1;
    }
    return 0;
}

/* Flops and Bytes (T1 extensions): the work of one run, for GFLOP/s and
 * GB/s. */
static int read_work(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *flops = json_object_get(ks, "Flops");
    const json_t *bytes = json_object_get(ks, "Bytes");
    if (flops &&
        t1_compile_expression(s, "KernelSpecification.Flops", flops, &s->flops, err) != 0)
        return -1;
    if (bytes &&
        t1_compile_expression(s, "KernelSpecification.Bytes", bytes, &s->bytes, err) != 0)
        return -1;
    return 0;
}

/* LocalSize, GlobalSize, GlobalSizeType and GridDivX/Y/Z. */
static int read_geometry(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *local = json_object_get(ks, "LocalSize");
    const json_t *global = json_object_get(ks, "GlobalSize");
    if (!json_is_object(local))
        return t1_kernel_fail(s, err, "KernelSpecification.LocalSize must be an object with X (and "
                            "optionally Y and Z): the work-items of a work-group");
    if (global && !json_is_object(global))
        return t1_kernel_fail(s, err, "KernelSpecification.GlobalSize must be an object with X, Y and Z");
    const char *type = json_string_value(json_object_get(ks, "GlobalSizeType"));
    if (type && strcmp(type, "OpenCL") != 0 && strcmp(type, "CUDA") != 0 &&
        strcmp(type, "Vulkan") != 0)
        return t1_kernel_fail(s, err, "KernelSpecification.GlobalSizeType \"%s\" is unknown; valid are "
                            "\"OpenCL\" (GlobalSize counts work-items) and \"CUDA\" or "
                            "\"Vulkan\" (GlobalSize counts work-groups)",
                    type);
    s->global_counts_groups = type && strcmp(type, "OpenCL") != 0;
    s->work_dim = 1;
    for (unsigned d = 0; d < 3; d++) {
        char key[64];
        const json_t *l = json_object_get(local, dimension_keys[d]);
        const json_t *g = json_object_get(global, dimension_keys[d]);
        const json_t *div = json_object_get(ks, grid_div_keys[d]);
        if (l || g || div) s->work_dim = d + 1;
        snprintf(key, sizeof key, "KernelSpecification.LocalSize.%s", dimension_keys[d]);
        json_t *one = json_string("1");
        int rc = one ? t1_compile_expression(s, key, l ? l : one, &s->local[d], err) : t1_kernel_fail(s, err, "out of memory");
        json_decref(one);
        if (rc != 0) return -1;
        if (div) {
            if (!json_is_array(div))
                return t1_kernel_fail(s, err, "KernelSpecification.%s must be a list of expressions whose "
                                    "product divides ProblemSize[%u] ([] for 1)", grid_div_keys[d], d);
            if (d >= s->n_problem)
                return t1_kernel_fail(s, err, "KernelSpecification.%s divides ProblemSize[%u], but "
                                    "ProblemSize has %zu entr%s", grid_div_keys[d], d,
                            s->n_problem, s->n_problem == 1 ? "y" : "ies");
            s->grid_div[d] = calloc(json_array_size(div) + 1, sizeof *s->grid_div[d]);
            s->has_grid_div[d] = true;
            if (!s->grid_div[d]) return t1_kernel_fail(s, err, "out of memory");
            for (size_t k = 0; k < json_array_size(div); k++) {
                snprintf(key, sizeof key, "KernelSpecification.%s[%zu]", grid_div_keys[d], k);
                if (t1_compile_expression(s, key, json_array_get(div, k), &s->grid_div[d][k], err) != 0) return -1;
                s->n_grid_div[d]++;
            }
        } else if (g) {
            snprintf(key, sizeof key, "KernelSpecification.GlobalSize.%s", dimension_keys[d]);
            if (t1_compile_expression(s, key, g, &s->global[d], err) != 0) return -1;
        } else if (d == 0) {
            return t1_kernel_fail(s, err, "KernelSpecification.GlobalSize.X (or GridDivX) is missing: "
                                "the kernel's extent in X");
        }
    }
    /* The device's limits, so that the search never meets a work-group it
     * cannot launch; and, where GlobalSize counts work-items, whole groups. */
    char *product = NULL;
    size_t len = 64;
    for (unsigned d = 0; d < s->work_dim; d++) len += strlen(s->local[d].text) + 8;
    product = malloc(len);
    if (!product) return t1_kernel_fail(s, err, "out of memory");
    product[0] = '\0';
    for (unsigned d = 0; d < s->work_dim; d++) {
        char limit[64];
        snprintf(limit, sizeof limit, "device.max_work_item_size_%u", d);
        size_t n = strlen(s->local[d].text) + strlen(limit) + 16;
        char *text = malloc(n);
        if (text) snprintf(text, n, "(%s) <= %s", s->local[d].text, limit);
        if (push_constraint(s, text, err) != 0) {
            free(product);
            return -1;
        }
        strcat(product, d ? " * (" : "(");
        strcat(product, s->local[d].text);
        strcat(product, ")");
        if (!s->global_counts_groups && s->global[d].e) {
            n = strlen(s->global[d].text) + strlen(s->local[d].text) + 16;
            text = malloc(n);
            if (text) snprintf(text, n, "(%s) %% (%s) == 0", s->global[d].text, s->local[d].text);
            if (push_constraint(s, text, err) != 0) {
                free(product);
                return -1;
            }
        }
    }
    strcat(product, " <= device.max_work_group_size");
    return push_constraint(s, product, err);
}

/* ------------------------------------------------------------ arguments */

int t1_read_fill(t1_kernel *s, const char *key, const json_t *a, const t1_type *type, bool needed,
                 t1_fill *fill, skytune_error *err)
{
    const char *kind = json_string_value(json_object_get(a, "FillType"));
    const json_t *value = json_object_get(a, "FillValue");
    memset(fill, 0, sizeof *fill);
    if (!kind || strcmp(kind, "Constant") == 0) {
        if (!kind && needed)
            return t1_kernel_fail(s, err, "%s: FillType is missing; valid are Constant, Random and "
                                "BinaryRaw", key);
        fill->kind = T1_FILL_CONSTANT;
    } else if (strcmp(kind, "Random") == 0) {
        fill->kind = T1_FILL_RANDOM;
        fill->value = 1.0;
    } else if (strcmp(kind, "BinaryRaw") == 0) {
        fill->kind = T1_FILL_BINARY_RAW;
    } else {
        return t1_kernel_fail(s, err, "%s: FillType \"%s\" is not read here; valid are Constant (every "
                            "value FillValue), Random (uniform in [0, FillValue), with RandomSeed "
                            "or the run's --seed) and BinaryRaw (the bytes of DataSource)",
                    key, kind);
    }
    if (value && !json_is_number(value))
        return t1_kernel_fail(s, err, "%s: FillValue must be a number", key);
    if (value) fill->value = json_number_value(value);
    if (fill->kind == T1_FILL_CONSTANT && !t1_type_holds(type, fill->value))
        return t1_kernel_fail(s, err, "%s: FillValue %.17g is not a value of type %s", key, fill->value,
                    type->name);
    if (fill->kind == T1_FILL_RANDOM && type->number != T1_REAL) {
        if (!value || fill->value < 1 || fill->value != floor(fill->value) ||
            !t1_type_holds(type, fill->value - 1))
            return t1_kernel_fail(s, err, "%s: a Random %s needs FillValue, a whole number from 1 on: the "
                                "values are drawn from 0 to FillValue - 1", key, type->name);
    }
    const json_t *seed = json_object_get(a, "RandomSeed");
    if (seed) {
        if (!json_is_integer(seed) || json_integer_value(seed) < 0)
            return t1_kernel_fail(s, err, "%s: RandomSeed must be a non-negative integer", key);
        fill->has_seed = true;
        fill->seed = (uint64_t)json_integer_value(seed);
    }
    if (fill->kind == T1_FILL_BINARY_RAW) {
        const char *source = json_string_value(json_object_get(a, "DataSource"));
        if (!source || !*source)
            return t1_kernel_fail(s, err, "%s: BinaryRaw needs DataSource, the file of raw values "
                                "(relative to the T1 file's folder)", key);
        fill->data_path = beside(s, source);
        if (!fill->data_path) return t1_kernel_fail(s, err, "out of memory");
        size_t len;
        char why[160];
        char *data = read_whole(fill->data_path, T1_MAX_DATA_BYTES, &len, why, sizeof why);
        char shown_source[QUOTE_PATH], shown_path[QUOTE_PATH];
        if (!data)
            return t1_kernel_fail(s, err, "%s: DataSource \"%s\": cannot read %s: %s", key,
                                  quote_text(source, shown_source, sizeof shown_source),
                                  quote_text(fill->data_path, shown_path, sizeof shown_path), why);
        /* Data is part of the plugin build: new data, new measurements. */
        s->hash = hash_fnv1a(s->hash, data, len);
        free(data);
    }
    return 0;
}

static const t1_type *read_type(t1_kernel *s, const char *key, const json_t *a, skytune_error *err)
{
    const char *name = json_string_value(json_object_get(a, "Type"));
    const t1_type *t = t1_type_find(name);
    if (t) {
        const json_t *size = json_object_get(a, "TypeSize");
        if (size && (!json_is_integer(size) || (size_t)json_integer_value(size) != t1_type_size(t))) {
            t1_kernel_fail(s, err, "%s: TypeSize says %s, but a %s takes %zu bytes", key,
                 json_is_integer(size) ? "another size" : "no number", t->name, t1_type_size(t));
            return NULL;
        }
        return t;
    }
    if (name && strcmp(name, "bool") == 0)
        t1_kernel_fail(s, err, "%s: Type \"bool\": OpenCL kernels take no bool arguments or buffers "
                     "(their size is the compiler's); use int8 or uint8", key);
    else if (name && strcmp(name, "custom") == 0)
        t1_kernel_fail(s, err, "%s: Type \"custom\" needs a structure skytune cannot know; describe the "
                     "data as uint8 elements (Size in bytes) with FillType BinaryRaw", key);
    else
        t1_kernel_fail(s, err, "%s: unknown Type \"%s\"; valid types are %s", key, name ? name : "(none)",
             t1_type_names());
    return NULL;
}

int t1_name_item(const t1_kernel *s, const json_t *item, const char *list, const char *kind,
                     size_t k, char **name, char *key, size_t key_len, skytune_error *err)
{
    const char *given = json_string_value(json_object_get(item, "Name"));
    char shown[96];
    snprintf(shown, sizeof shown, "%s %zu", kind, k);
    *name = strdup(given ? given : shown);
    if (!*name) return t1_kernel_fail(s, err, "out of memory");
    snprintf(key, key_len, "KernelSpecification.%s[%zu] '%.60s'", list, k, *name);
    return 0;
}

static int read_argument(t1_kernel *s, size_t k, const json_t *a, t1_argument *arg,
                         skytune_error *err)
{
    if (!json_is_object(a))
        return t1_kernel_fail(s, err, "KernelSpecification.Arguments[%zu] is not an object", k);
    char key[200];
    if (t1_name_item(s, a, "Arguments", "argument", k, &arg->name, key, sizeof key, err) != 0)
        return -1;
    if (!(arg->type = read_type(s, key, a, err))) return -1;
    const char *memory = json_string_value(json_object_get(a, "MemoryType"));
    if (memory && strcmp(memory, "Scalar") == 0) {
        arg->memory = T1_SCALAR;
    } else if (memory && strcmp(memory, "Vector") == 0) {
        arg->memory = T1_VECTOR;
    } else if (memory && strcmp(memory, "Local") == 0) {
        arg->memory = T1_LOCAL;
    } else if (memory && strcmp(memory, "Symbol") == 0) {
        return t1_kernel_fail(s, err, "%s: MemoryType \"Symbol\" is CUDA's __constant__ symbol; in OpenCL "
                            "a __constant pointer argument is a Vector", key);
    } else {
        return t1_kernel_fail(s, err, "%s: MemoryType \"%s\" is unknown; valid are Scalar (a value), "
                            "Vector (a buffer) and Local (__local memory of Size elements)",
                    key, memory ? memory : "(none)");
    }
    const char *access = json_string_value(json_object_get(a, "AccessType"));
    if (!access || strcmp(access, "ReadWrite") == 0)
        arg->access = T1_READ_WRITE;
    else if (strcmp(access, "ReadOnly") == 0)
        arg->access = T1_READ_ONLY;
    else if (strcmp(access, "WriteOnly") == 0)
        arg->access = T1_WRITE_ONLY;
    else
        return t1_kernel_fail(s, err, "%s: AccessType \"%s\" is unknown; valid are ReadOnly, WriteOnly "
                            "and ReadWrite", key, access);
    const json_t *size = json_object_get(a, "Size");
    char part[256];
    if (arg->memory != T1_SCALAR) {
        if (!size)
            return t1_kernel_fail(s, err, "%s: Size is missing: the number of %s elements", key,
                        arg->type->name);
        snprintf(part, sizeof part, "%s Size", key);
        if (t1_compile_expression(s, part, size, &arg->size, err) != 0) return -1;
    }
    if (arg->memory == T1_SCALAR) {
        const json_t *value = json_object_get(a, "FillValue");
        if (!value)
            return t1_kernel_fail(s, err, "%s: a Scalar needs FillValue, a number or an expression", key);
        if (json_is_string(value)) {
            snprintf(part, sizeof part, "%s FillValue", key);
            if (t1_compile_expression(s, part, value, &arg->value, err) != 0) return -1;
        } else if (!json_is_number(value)) {
            return t1_kernel_fail(s, err, "%s: FillValue must be a number or an expression", key);
        } else {
            arg->fill.value = json_number_value(value);
            if (!t1_type_holds(arg->type, arg->fill.value))
                return t1_kernel_fail(s, err, "%s: FillValue %.17g is not a value of type %s", key,
                            arg->fill.value, arg->type->name);
        }
        if (arg->type->component_size == 2 && arg->type->number == T1_REAL)
            return t1_kernel_fail(s, err, "%s: a half Scalar needs cl_khr_fp16; pass a float", key);
    } else if (arg->memory == T1_VECTOR) {
        if (t1_read_fill(s, key, a, arg->type, false, &arg->fill, err) != 0) return -1;
        const json_t *output = json_object_get(a, "Output");
        arg->output = arg->access != T1_READ_ONLY || json_is_true(output) ||
                      (json_is_integer(output) && json_integer_value(output) != 0);
        if (arg->size.reads_config && !arg->output)
            return t1_kernel_fail(s, err, "%s Size \"%s\": an input Vector's Size may read "
                                  "ProblemSize, Defines of the problem and max(P) or min(P), not "
                                  "a tuning parameter's value (its data is made once for every "
                                  "configuration); write max(P) for the largest. An output's "
                                  "Size may (partial results, one per work-group)",
                                  key, arg->size.text);
    }
    return 0;
}

static int read_arguments(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *args = json_object_get(ks, "Arguments");
    if (args && !json_is_array(args))
        return t1_kernel_fail(s, err, "KernelSpecification.Arguments must be an array, one object per "
                            "kernel argument in order");
    size_t n = json_array_size(args);
    s->args = calloc(n + 1, sizeof *s->args);
    if (!s->args) return t1_kernel_fail(s, err, "out of memory");
    for (size_t k = 0; k < n; k++) {
        s->n_args++;
        if (read_argument(s, k, json_array_get(args, k), &s->args[k], err) != 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ identity */

static int read_identity(t1_kernel *s, const json_t *root, const json_t *ks, skytune_error *err)
{
    static const char *const where[] = {"General.BenchmarkName",
                                        "KernelSpecification.BenchmarkName",
                                        "KernelSpecification.KernelName"};
    const json_t *sources[] = {json_object_get(json_object_get(root, "General"), "BenchmarkName"),
                               json_object_get(ks, "BenchmarkName"),
                               json_object_get(ks, "KernelName")};
    size_t k = 0;
    while (k < 2 && !json_is_string(sources[k])) k++;
    const char *name = json_string_value(sources[k]);
    if (!name || !name_is_identifier(name))
        return t1_kernel_fail(s, err, "%s \"%s\" names the plugin and its results (results_NAME): it must "
                            "be an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)",
                    where[k], name ? name : "");
    char version[32];
    snprintf(version, sizeof version, "t1.%08llx", (unsigned long long)(s->hash >> 32));
    s->name = strdup(name);
    s->version = strdup(version);
    size_t len = strlen(s->path) + strlen(s->kernel_name) + strlen(s->kernel_file) + 64;
    s->description = malloc(len);
    if (!s->name || !s->version || !s->description) return t1_kernel_fail(s, err, "out of memory");
    snprintf(s->description, len, "T1 file %s: kernel %s of %s", s->path, s->kernel_name,
             s->kernel_file);
    return 0;
}

/* ------------------------------------------------------------ entry */

int t1_kernel_load(const char *path, t1_kernel **out, skytune_error *err)
{
    *out = NULL;
    t1_kernel *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return err_set(err, "out of memory");
    }
    s->hash = 1469598103934665603ull;
    size_t len;
    char why[160];
    char *text = read_whole(path, T1_MAX_FILE_BYTES, &len, why, sizeof why);
    if (!text) {
        char name[QUOTE_PATH];
        int rc = err_set(err, "T1 file %s: %s", quote_text(path, name, sizeof name), why);
        t1_kernel_free(s);
        return rc;
    }
    s->hash = hash_fnv1a(s->hash, text, len);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    free(text);
    int rc = 0;
    const json_t *ks = json_object_get(root, "KernelSpecification");
    if (!root)
        rc = t1_kernel_fail(s, err, "not JSON: %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
    else if (!json_is_object(ks))
        rc = t1_kernel_fail(s, err, "no \"KernelSpecification\" object: a T1 file describes the kernel "
                          "to tune there (KernelFile, KernelName, LocalSize, GlobalSize, "
                          "Arguments)");
    if (rc == 0) rc = t1_check_keys(s, root, err);
    if (rc == 0) rc = read_kernel(s, ks, err);
    if (rc == 0) rc = read_problem(s, ks, err);
    if (rc == 0) rc = read_space(s, root, err);
    if (rc == 0) rc = read_problem_expressions(s, ks, err);
    if (rc == 0) rc = read_defines(s, ks, err);
    if (rc == 0) rc = read_conditions(s, root, err);
    if (rc == 0) rc = read_geometry(s, ks, err);
    if (rc == 0) rc = read_arguments(s, ks, err);
    if (rc == 0) rc = t1_read_verification(s, ks, err);
    if (rc == 0) rc = read_work(s, ks, err);
    if (rc == 0) rc = read_identity(s, root, ks, err);
    json_decref(root);
    if (rc != 0) {
        t1_kernel_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

static void fill_free(t1_fill *f)
{
    free(f->data_path);
}

void t1_kernel_free(t1_kernel *s)
{
    if (!s) return;
    for (size_t k = 0; k < s->n_params; k++) param_free(&s->params[k]);
    free(s->params);
    free(s->default_index);
    for (size_t k = 0; k < s->n_constraints; k++) free(s->constraints[k]);
    free(s->constraints);
    for (unsigned d = 0; d < 3; d++) {
        t1_expression_free(&s->local[d]);
        t1_expression_free(&s->global[d]);
        for (size_t k = 0; k < s->n_grid_div[d]; k++) t1_expression_free(&s->grid_div[d][k]);
        free(s->grid_div[d]);
    }
    for (size_t k = 0; k < s->n_args; k++) {
        free(s->args[k].name);
        fill_free(&s->args[k].fill);
        t1_expression_free(&s->args[k].size);
        t1_expression_free(&s->args[k].value);
    }
    free(s->args);
    for (size_t k = 0; k < s->n_refs; k++) {
        free(s->refs[k].name);
        fill_free(&s->refs[k].fill);
    }
    free(s->refs);
    for (unsigned d = 0; d < T1_MAX_PROBLEM; d++) t1_expression_free(&s->problem_expr[d]);
    for (size_t k = 0; k < s->n_defines; k++) {
        free(s->defines[k].name);
        t1_expression_free(&s->defines[k].value);
    }
    free(s->defines);
    t1_expression_free(&s->flops);
    t1_expression_free(&s->bytes);
    for (unsigned d = 0; d < 3; d++) {
        t1_expression_free(&s->reference_local[d]);
        t1_expression_free(&s->reference_global[d]);
    }
    free(s->reference_kernel);
    free(s->output_param);
    for (size_t k = 0; k < s->n_checks; k++) free(s->checks[k].text);
    free(s->checks);
    free(s->compared_with);
    free(s->path);
    free(s->name);
    free(s->version);
    free(s->description);
    free(s->verification);
    free(s->kernel_name);
    free(s->kernel_file);
    free(s->kernel_source);
    free(s->compiler_options);
    free(s);
}
