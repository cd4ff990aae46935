/* How a T1 kernel's outputs are verified (t1_kernel_internal.h): the
 * ReferenceArguments of the T1 schema, and Verification, a T1 extension.
 *
 * Verification.Method chooses what each output is compared with,
 * element by element:
 *   "ReferenceArguments"  their data (the default where the file gives any);
 *   "ReferenceKernel"     the outputs of another __kernel of the same file
 *                         (Verification.ReferenceKernel), run on the same
 *                         inputs (the default where one is named);
 *   "Default"             the outputs of the configuration of the Default
 *                         values (the default otherwise);
 *   "None"                nothing.
 * Verification.OutputParameters names the tuning parameters that change
 * what the kernel computes (a filter's size): a computed reference is then
 * made for the configuration's values of those. Verification.Checks compare
 * a reduction of an output instead (a sum of partial sums with the sum of
 * the input): an output a Check names is verified by its Checks alone. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t1_kernel_internal.h"
#include "value.h"

static const char *const method_names[] = {
    [T1_VERIFY_NONE] = "None",
    [T1_VERIFY_DEFAULT] = "Default",
    [T1_VERIFY_REFERENCES] = "ReferenceArguments",
    [T1_VERIFY_KERNEL] = "ReferenceKernel",
};

static const char *const reduce_names[] = {
    [T1_REDUCE_SUM] = "sum",
    [T1_REDUCE_MIN] = "min",
    [T1_REDUCE_MAX] = "max",
};

/* The Vector argument named `name`, or SIZE_MAX; the names of all of them
 * into `names` for the message. */
static size_t vector_named(const t1_kernel *s, const char *name, char *names, size_t len)
{
    size_t used = 0;
    names[0] = '\0';
    for (size_t a = 0; a < s->n_args; a++) {
        if (s->args[a].memory != T1_VECTOR) continue;
        if (name && strcmp(s->args[a].name, name) == 0) return a;
        if (used < len)
            used += (size_t)snprintf(names + used, len - used, "%s'%s'", used ? ", " : "",
                                     s->args[a].name);
    }
    if (!used) snprintf(names, len, "none");
    return SIZE_MAX;
}

static int read_check(t1_kernel *s, const char *key, const json_t *j, t1_check *check,
                      t1_method fallback, skytune_error *err)
{
    const char *method = json_string_value(json_object_get(j, "ValidationMethod"));
    check->method = fallback;
    if (method && t1_method_find(method, &check->method) != 0)
        return t1_kernel_fail(s, err, "%s: ValidationMethod \"%s\" is unknown; valid are "
                              "AbsoluteDifference, SideBySideComparison and "
                              "SideBySideRelativeComparison", key, method);
    const json_t *threshold = json_object_get(j, "ValidationThreshold");
    check->threshold = 1e-4;
    if (threshold) {
        if (!json_is_number(threshold) || json_number_value(threshold) < 0)
            return t1_kernel_fail(s, err, "%s: ValidationThreshold must be a number >= 0", key);
        check->threshold = json_number_value(threshold);
    }
    return 0;
}

static int read_references(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *refs = json_object_get(ks, "ReferenceArguments");
    if (refs && !json_is_array(refs))
        return t1_kernel_fail(s, err, "KernelSpecification.ReferenceArguments must be an array");
    size_t n = json_array_size(refs);
    s->refs = calloc(n + 1, sizeof *s->refs);
    if (!s->refs) return t1_kernel_fail(s, err, "out of memory");
    for (size_t k = 0; k < n; k++) {
        const json_t *r = json_array_get(refs, k);
        t1_reference *ref = &s->refs[k];
        s->n_refs++;
        char key[200];
        if (t1_name_item(s, r, "ReferenceArguments", "reference", k, &ref->name, key, sizeof key,
                         err) != 0)
            return -1;
        const char *target = json_string_value(json_object_get(r, "TargetName"));
        char names[500];
        ref->target = vector_named(s, target, names, sizeof names);
        if (ref->target == SIZE_MAX)
            return t1_kernel_fail(s, err, "%s: TargetName %s%s%s names no Vector argument; the Vector "
                                  "arguments are %s", key, target ? "'" : "",
                                  target ? target : "(missing)", target ? "'" : "", names);
        if (s->args[ref->target].size.reads_config)
            return t1_kernel_fail(s, err, "%s: '%s' has a Size that changes with the configuration; "
                                  "a ReferenceArgument is data of one size: verify it with a "
                                  "ReferenceKernel or the Default with OutputParameters, or with "
                                  "Verification.Checks", key, target);
        if (t1_read_fill(s, key, r, s->args[ref->target].type, true, &ref->fill, err) != 0)
            return -1;
        if (read_check(s, key, r, &ref->check, T1_SIDE_BY_SIDE, err) != 0) return -1;
    }
    return 0;
}

/* An object {X, Y, Z} of expressions into out; *dims the highest named. */
static int read_sizes(t1_kernel *s, const char *key, const json_t *sizes, t1_expression out[3],
                      unsigned *dims, skytune_error *err)
{
    static const char *const names[3] = {"X", "Y", "Z"};
    for (unsigned d = 0; d < 3; d++) {
        const json_t *v = json_object_get(sizes, names[d]);
        if (!v) continue;
        char at[160];
        snprintf(at, sizeof at, "%s.%s", key, names[d]);
        if (t1_compile_expression(s, at, v, &out[d], err) != 0) return -1;
        if (d + 1 > *dims) *dims = d + 1;
    }
    return 0;
}

static int read_reference_kernel(t1_kernel *s, const json_t *rk, skytune_error *err)
{
    const char *where = "KernelSpecification.Verification.ReferenceKernel";
    const char *name = json_string_value(json_object_get(rk, "KernelName"));
    const json_t *global = json_object_get(rk, "GlobalSize");
    const json_t *local = json_object_get(rk, "LocalSize");
    if (!json_is_object(rk) || !name || !name_is_identifier(name) || !json_is_object(global) ||
        !json_object_get(global, "X") || (local && !json_is_object(local)))
        return t1_kernel_fail(s, err, "%s must be an object with KernelName (a __kernel of the "
                              "KernelFile taking the same arguments), GlobalSize {X, Y, Z} "
                              "(work-items) and optionally LocalSize {X, Y, Z}", where);
    if (strcmp(name, s->kernel_name) == 0)
        return t1_kernel_fail(s, err, "%s.KernelName '%s' is the kernel being tuned; name the "
                              "kernel that computes the expected outputs", where, name);
    if (!(s->reference_kernel = strdup(name))) return t1_kernel_fail(s, err, "out of memory");
    char key[128];
    unsigned local_dims = 0;
    snprintf(key, sizeof key, "%s.GlobalSize", where);
    if (read_sizes(s, key, global, s->reference_global, &s->reference_work_dim, err) != 0)
        return -1;
    snprintf(key, sizeof key, "%s.LocalSize", where);
    if (local && read_sizes(s, key, local, s->reference_local, &local_dims, err) != 0) return -1;
    if (local_dims > s->reference_work_dim)
        return t1_kernel_fail(s, err, "%s.LocalSize names more dimensions than its GlobalSize",
                              where);
    return 0;
}

static int read_output_parameters(t1_kernel *s, const json_t *list, skytune_error *err)
{
    const char *key = "KernelSpecification.Verification.OutputParameters";
    s->output_param = calloc(s->n_params + 1, sizeof *s->output_param);
    if (!s->output_param) return t1_kernel_fail(s, err, "out of memory");
    if (!list) return 0;
    if (!json_is_array(list))
        return t1_kernel_fail(s, err, "%s must be a list of tuning parameters' names", key);
    for (size_t k = 0; k < json_array_size(list); k++) {
        const char *name = json_string_value(json_array_get(list, k));
        size_t p = 0;
        while (name && p < s->n_params && strcmp(s->params[p].name, name) != 0) p++;
        if (!name || p == s->n_params) {
            char values[400] = "";
            size_t used = 0;
            for (size_t q = 0; q < s->n_params && used < sizeof values; q++)
                used += (size_t)snprintf(values + used, sizeof values - used, "%s%s", q ? ", " : "",
                                         s->params[q].name);
            return t1_kernel_fail(s, err, "%s[%zu] %s%s%s is not a tuning parameter; they are %s", key,
                                  k, name ? "'" : "", name ? name : "(not a string)",
                                  name ? "'" : "", values);
        }
        s->output_param[p] = true;
    }
    return 0;
}

static int read_checks(t1_kernel *s, const json_t *list, skytune_error *err)
{
    if (!list) return 0;
    if (!json_is_array(list))
        return t1_kernel_fail(s, err, "KernelSpecification.Verification.Checks must be a list of "
                              "objects {\"Reduce\": \"sum\", \"Output\": NAME, \"Against\": NAME}");
    s->checks = calloc(json_array_size(list) + 1, sizeof *s->checks);
    if (!s->checks) return t1_kernel_fail(s, err, "out of memory");
    for (size_t k = 0; k < json_array_size(list); k++) {
        const json_t *j = json_array_get(list, k);
        t1_reduction_check *c = &s->checks[s->n_checks++];
        char key[96];
        snprintf(key, sizeof key, "KernelSpecification.Verification.Checks[%zu]", k);
        const char *reduce = json_string_value(json_object_get(j, "Reduce"));
        size_t r = 0;
        while (reduce && r < 3 && strcmp(reduce_names[r], reduce) != 0) r++;
        if (!reduce || r == 3)
            return t1_kernel_fail(s, err, "%s: Reduce must be \"sum\", \"min\" or \"max\"", key);
        c->reduce = (t1_reduce)r;
        const char *output = json_string_value(json_object_get(j, "Output"));
        char names[500];
        c->output = vector_named(s, output, names, sizeof names);
        if (c->output == SIZE_MAX || !s->args[c->output].output)
            return t1_kernel_fail(s, err, "%s: Output %s%s%s must name an output (a Vector the kernel "
                                  "writes); the Vector arguments are %s", key, output ? "'" : "",
                                  output ? output : "(missing)", output ? "'" : "", names);
        const char *against = json_string_value(json_object_get(j, "Against"));
        c->against = SIZE_MAX;
        if (against) {
            c->against = vector_named(s, against, names, sizeof names);
            if (c->against == SIZE_MAX)
                return t1_kernel_fail(s, err, "%s: Against '%s' names no Vector argument; the Vector "
                                      "arguments are %s", key, against, names);
            if (s->args[c->against].output)
                return t1_kernel_fail(s, err, "%s: Against '%s' is an output too; name an input, or "
                                      "leave Against out to compare with the reference's '%s'",
                                      key, against, output);
        }
        const json_t *threshold = json_object_get(j, "ValidationThreshold");
        c->threshold = 1e-4;
        if (threshold && (!json_is_number(threshold) || json_number_value(threshold) < 0))
            return t1_kernel_fail(s, err, "%s: ValidationThreshold must be a number >= 0 (relative "
                                  "to the expected value)", key);
        if (threshold) c->threshold = json_number_value(threshold);
        char text[200];
        snprintf(text, sizeof text, "%s(%s) = %s(%s)", reduce_names[r], output, reduce_names[r],
                 against ? against : output);
        if (!(c->text = strdup(text))) return t1_kernel_fail(s, err, "out of memory");
        s->args[c->output].checked_by_reduction = true;
    }
    return 0;
}

/* The method: given, or the one the file's keys imply. */
static int choose_method(t1_kernel *s, const json_t *v, skytune_error *err)
{
    const char *method = json_string_value(json_object_get(v, "Method"));
    if (json_object_get(v, "Method") && !method)
        return t1_kernel_fail(s, err, "KernelSpecification.Verification.Method must be a string");
    if (method) {
        size_t m = 0;
        while (m < 4 && strcmp(method_names[m], method) != 0) m++;
        if (m == 4)
            return t1_kernel_fail(s, err, "KernelSpecification.Verification.Method \"%s\" is unknown; "
                                  "valid are \"ReferenceArguments\", \"ReferenceKernel\", "
                                  "\"Default\" and \"None\"", method);
        s->method = (t1_verify_method)m;
    } else {
        s->method = s->n_refs               ? T1_VERIFY_REFERENCES
                    : s->reference_kernel ? T1_VERIFY_KERNEL
                                          : T1_VERIFY_DEFAULT;
    }
    if (s->method == T1_VERIFY_REFERENCES && !s->n_refs)
        return t1_kernel_fail(s, err, "Verification.Method \"ReferenceArguments\" without "
                              "KernelSpecification.ReferenceArguments");
    if (s->method != T1_VERIFY_REFERENCES && s->n_refs)
        return t1_kernel_fail(s, err, "Verification.Method \"%s\", but the file gives "
                              "ReferenceArguments too; keep one of them", method_names[s->method]);
    if (s->method == T1_VERIFY_KERNEL && !s->reference_kernel)
        return t1_kernel_fail(s, err, "Verification.Method \"ReferenceKernel\" needs "
                              "Verification.ReferenceKernel, the kernel that computes the expected "
                              "outputs");
    if (s->method != T1_VERIFY_KERNEL && s->reference_kernel)
        return t1_kernel_fail(s, err, "Verification.ReferenceKernel is given, but the Method is "
                              "\"%s\"", method_names[s->method]);
    return 0;
}

/* What each configuration needs for the method: a Default for every
 * parameter, parameters that change the output only where the reference
 * is computed, outputs whose size changes only with those. */
static int check_method(t1_kernel *s, skytune_error *err)
{
    size_t compared = 0;
    for (size_t k = 0; k < s->n_args; k++)
        compared += s->args[k].output && !s->args[k].checked_by_reduction;
    bool computed = s->method == T1_VERIFY_DEFAULT || s->method == T1_VERIFY_KERNEL;
    if (s->method == T1_VERIFY_DEFAULT)
        for (size_t k = 0; k < s->n_params; k++)
            if (s->default_index[k] < 0 && !s->output_param[k]) {
                char values[300];
                param_describe_values(&s->params[k], values, sizeof values);
                return t1_kernel_fail(s, err, "tuning parameter '%s' has no Default among its values "
                                      "(%s): the outputs of the Default configuration are the "
                                      "reference, so every parameter needs one; or give "
                                      "ReferenceArguments, a Verification.ReferenceKernel, or "
                                      "Verification.Method \"None\"", s->params[k].name, values);
            }
    if (t1_has_output_params(s) && !computed)
        return t1_kernel_fail(s, err, "Verification.OutputParameters need a reference computed for "
                              "their values: Method \"Default\" or \"ReferenceKernel\", not \"%s\"",
                              method_names[s->method]);
    if (computed && compared == 0 && s->n_checks == 0)
        return t1_kernel_fail(s, err, "nothing to verify: no Vector argument the kernel writes "
                              "(AccessType WriteOnly or ReadWrite, or Output) and no "
                              "Verification.Checks; say Verification.Method \"None\" to measure "
                              "without verifying");
    for (size_t k = 0; k < s->n_checks; k++)
        if (s->checks[k].against == SIZE_MAX && !computed)
            return t1_kernel_fail(s, err, "Verification.Checks[%zu] (%s) compares with the "
                                  "reference's outputs, and Method \"%s\" computes none; name an "
                                  "input in Against", k, s->checks[k].text, method_names[s->method]);
    /* An output whose size follows the configuration is compared with a
     * reference of the same size: the size may read only parameters that
     * make the reference. */
    for (size_t k = 0; k < s->n_args && s->method != T1_VERIFY_NONE; k++) {
        const t1_argument *a = &s->args[k];
        if (!a->output || a->checked_by_reduction || !a->size.reads_config) continue;
        size_t n;
        const int *slots = expr_slots(a->size.e, &n);
        for (size_t j = 0; j < n; j++)
            if ((size_t)slots[j] < s->n_params && !s->output_param[slots[j]])
                return t1_kernel_fail(s, err, "output '%s': its Size \"%s\" reads '%s', so its "
                                      "elements cannot be compared with one reference: name '%s' "
                                      "in Verification.OutputParameters, or verify '%s' by "
                                      "Verification.Checks (e.g. its sum against an input's)",
                                      a->name, a->size.text, s->params[slots[j]].name,
                                      s->params[slots[j]].name, a->name);
    }
    return 0;
}

/* The configuration a Default reference runs, in words. */
static void default_words(const t1_kernel *s, char *text, size_t len)
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < s->n_params && used < len; k++) {
        char v[64];
        if (s->output_param[k])
            snprintf(v, sizeof v, "as measured");
        else
            value_format(&s->params[k].values[s->default_index[k]], v, sizeof v);
        used += (size_t)snprintf(text + used, len - used, "%s%s=%s", k ? "," : "",
                                 s->params[k].name, v);
    }
}

/* What outputs are checked against: said when a campaign starts, and in
 * every wrong_result. */
static int describe(t1_kernel *s, skytune_error *err)
{
    char with[1024], text[2048], same[300] = "";
    size_t used = 0;
    for (size_t k = 0; k < s->n_params && used < sizeof same; k++)
        if (s->output_param[k])
            used += (size_t)snprintf(same + used, sizeof same - used, "%s%s",
                                     used ? "," : " for the configuration's own ",
                                     s->params[k].name);
    switch (s->method) {
    case T1_VERIFY_NONE:
        snprintf(with, sizeof with, "nothing element-wise (Verification.Method \"None\")");
        snprintf(text, sizeof text, "%s", with);
        break;
    case T1_VERIFY_REFERENCES:
        snprintf(with, sizeof with, "the ReferenceArguments' data");
        used = (size_t)snprintf(text, sizeof text, "ReferenceArguments:");
        for (size_t k = 0; k < s->n_refs && used < sizeof text; k++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s %s by %s, threshold %g",
                                     k ? ";" : "", s->args[s->refs[k].target].name,
                                     t1_method_name(s->refs[k].check.method),
                                     s->refs[k].check.threshold);
        break;
    case T1_VERIFY_DEFAULT: {
        char config[700];
        default_words(s, config, sizeof config);
        snprintf(with, sizeof with, "the outputs of the Default configuration (%s)", config);
        snprintf(text, sizeof text, "%s, run %s, by %s, threshold %g", with,
                 same[0] ? "for each value of the OutputParameters" : "first",
                 t1_method_name(s->default_check.method), s->default_check.threshold);
        break;
    }
    case T1_VERIFY_KERNEL:
        snprintf(with, sizeof with, "the outputs of the reference kernel %s%s", s->reference_kernel,
                 same);
        snprintf(text, sizeof text, "%s, by %s, threshold %g", with,
                 t1_method_name(s->default_check.method), s->default_check.threshold);
        break;
    }
    if (s->method == T1_VERIFY_NONE && s->n_checks)
        snprintf(with, sizeof with, "the value its Check expects (Verification.Checks)");
    else if (s->n_checks)
        snprintf(with + strlen(with), sizeof with - strlen(with),
                 ", or for a Check the value it expects");
    used = strlen(text);
    for (size_t k = 0; k < s->n_checks && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s within %g", k ? "; " : "; checks: ",
                                 s->checks[k].text, s->checks[k].threshold);
    s->verification = strdup(text);
    s->compared_with = strdup(with);
    return s->verification && s->compared_with ? 0 : t1_kernel_fail(s, err, "out of memory");
}

int t1_read_verification(t1_kernel *s, const json_t *ks, skytune_error *err)
{
    const json_t *v = json_object_get(ks, "Verification");
    if (v && !json_is_object(v))
        return t1_kernel_fail(s, err, "KernelSpecification.Verification must be an object (a T1 "
                              "extension: Method, ReferenceKernel, OutputParameters, "
                              "ValidationMethod, ValidationThreshold, Checks)");
    if (read_references(s, ks, err) != 0) return -1;
    const json_t *rk = json_object_get(v, "ReferenceKernel");
    if (rk && read_reference_kernel(s, rk, err) != 0) return -1;
    if (read_output_parameters(s, json_object_get(v, "OutputParameters"), err) != 0 ||
        read_checks(s, json_object_get(v, "Checks"), err) != 0 || choose_method(s, v, err) != 0)
        return -1;
    if (read_check(s, "KernelSpecification.Verification", v, &s->default_check,
                   T1_SIDE_BY_SIDE_RELATIVE, err) != 0)
        return -1;
    if (s->method == T1_VERIFY_REFERENCES &&
        (json_object_get(v, "ValidationMethod") || json_object_get(v, "ValidationThreshold")))
        return t1_kernel_fail(s, err, "Verification.ValidationMethod and ValidationThreshold are "
                              "for a computed reference; each ReferenceArgument has its own");
    if (check_method(s, err) != 0) return -1;
    return describe(s, err);
}
