/* The keys a T1 kernel file may hold, where (t1_kernel_internal.h).
 *
 * A key the reader does not know is refused rather than ignored: a
 * ReferenceArguments at the top level, or a misspelt GridDivX, would
 * otherwise change nothing and say nothing, and the run would verify or
 * launch something else than the author meant. A key known elsewhere in
 * the file is refused naming where it belongs. The keys are the T1
 * schema's (TuningSchema.json), those the benchmark hub's files add
 * (BenchmarkName, GridDivX/Y/Z, ProblemSize, Stream, MemType, Output), and
 * skytune's extensions (docs/t1.md, "T1 extensions"). */
#include <stdio.h>
#include <string.h>

#include "t1_kernel_internal.h"

typedef struct key_place {
    const char *where;               /* as messages name it */
    const char *const *keys;         /* NULL-terminated */
} key_place;

static const char *const top_keys[] = {"$schema", "General", "ConfigurationSpace",
                                       "KernelSpecification", "Search", "Budget", NULL};
static const char *const general_keys[] = {"BenchmarkName", "FormatVersion", "LoggingLevel",
                                           "TimeUnit", "OutputFile", "OutputFormat", NULL};
static const char *const space_keys[] = {"TuningParameters", "Conditions", NULL};
static const char *const parameter_keys[] = {"Name", "Type", "Values", "Default", NULL};
static const char *const condition_keys[] = {"Expression", "Parameters", NULL};
static const char *const kernel_keys[] = {
    "Language", "KernelName", "KernelFile", "BenchmarkName", "CompilerOptions", "Device",
    "Profiling", "SimulationInput", "Stream", "SharedMemory", "GlobalSizeType", "LocalSize",
    "GlobalSize", "GridDivX", "GridDivY", "GridDivZ", "ProblemSize", "Arguments",
    "ReferenceArguments",
    /* extensions */
    "Defines", "Flops", "Bytes", "Verification", NULL};
static const char *const size_keys[] = {"X", "Y", "Z", NULL};
static const char *const argument_keys[] = {"Name", "Type", "TypeSize", "MemoryType", "MemType",
                                            "AccessType", "Size", "FillType", "FillValue",
                                            "DataSource", "RandomSeed", "Output", NULL};
static const char *const reference_keys[] = {"Name", "TargetName", "FillType", "FillValue",
                                             "DataSource", "RandomSeed", "ValidationMethod",
                                             "ValidationThreshold", NULL};
static const char *const verification_keys[] = {"Method", "ReferenceKernel", "OutputParameters",
                                                "ValidationMethod", "ValidationThreshold",
                                                "Checks", NULL};
static const char *const reference_kernel_keys[] = {"KernelName", "LocalSize", "GlobalSize",
                                                    NULL};
static const char *const check_keys[] = {"Reduce", "Output", "Against", "ValidationThreshold",
                                         NULL};

enum {
    TOP, GENERAL, SPACE, PARAMETER, CONDITION, KERNEL, LOCAL, GLOBAL, ARGUMENT, REFERENCE,
    VERIFICATION, REFERENCE_KERNEL, CHECK, N_PLACES
};

static const key_place places[N_PLACES] = {
    [TOP] = {"the top level", top_keys},
    [GENERAL] = {"General", general_keys},
    [SPACE] = {"ConfigurationSpace", space_keys},
    [PARAMETER] = {"a ConfigurationSpace.TuningParameters item", parameter_keys},
    [CONDITION] = {"a ConfigurationSpace.Conditions item", condition_keys},
    [KERNEL] = {"KernelSpecification", kernel_keys},
    [LOCAL] = {"KernelSpecification.LocalSize", size_keys},
    [GLOBAL] = {"KernelSpecification.GlobalSize", size_keys},
    [ARGUMENT] = {"a KernelSpecification.Arguments item", argument_keys},
    [REFERENCE] = {"a KernelSpecification.ReferenceArguments item", reference_keys},
    [VERIFICATION] = {"KernelSpecification.Verification", verification_keys},
    [REFERENCE_KERNEL] = {"KernelSpecification.Verification.ReferenceKernel",
                          reference_kernel_keys},
    [CHECK] = {"a KernelSpecification.Verification.Checks item", check_keys},
};

static bool holds(const char *const *keys, const char *key)
{
    for (size_t k = 0; keys[k]; k++)
        if (strcmp(keys[k], key) == 0) return true;
    return false;
}

/* Every key of `object` (at `shown`, for messages) known at `place`. */
static int check_object(const t1_kernel *s, const json_t *object, int place, const char *shown,
                        skytune_error *err)
{
    if (!json_is_object(object)) return 0; /* its reader says what it must be */
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)object, key, value) {
        (void)value;
        if (holds(places[place].keys, key)) continue;
        char belongs[300] = "";
        size_t used = 0;
        for (int p = 0; p < N_PLACES && used < sizeof belongs; p++)
            if (p != place && holds(places[p].keys, key))
                used += (size_t)snprintf(belongs + used, sizeof belongs - used, "%s%s",
                                         used ? " or " : "", places[p].where);
        if (used)
            return t1_kernel_fail(s, err, "\"%.80s\" is not a key of %s: it belongs in %s", key,
                                  shown, belongs);
        char valid[600] = "";
        used = 0;
        for (size_t k = 0; places[place].keys[k] && used < sizeof valid; k++)
            used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", k ? ", " : "",
                                     places[place].keys[k]);
        return t1_kernel_fail(s, err, "unknown key \"%.80s\" in %s; the keys there are %s", key,
                              shown, valid);
    }
    return 0;
}

/* Each object of an array at `place`, shown as "LIST[k]". */
static int check_items(const t1_kernel *s, const json_t *array, int place, const char *list,
                       skytune_error *err)
{
    for (size_t k = 0; k < json_array_size(array); k++) {
        char shown[160];
        snprintf(shown, sizeof shown, "%s[%zu]", list, k);
        if (check_object(s, json_array_get(array, k), place, shown, err) != 0) return -1;
    }
    return 0;
}

int t1_check_keys(const t1_kernel *s, const json_t *root, skytune_error *err)
{
    const json_t *space = json_object_get(root, "ConfigurationSpace");
    const json_t *ks = json_object_get(root, "KernelSpecification");
    const json_t *verification = json_object_get(ks, "Verification");
    if (check_object(s, root, TOP, places[TOP].where, err) != 0 ||
        check_object(s, json_object_get(root, "General"), GENERAL, "General", err) != 0 ||
        check_object(s, space, SPACE, "ConfigurationSpace", err) != 0 ||
        check_items(s, json_object_get(space, "TuningParameters"), PARAMETER,
                    "ConfigurationSpace.TuningParameters", err) != 0 ||
        check_items(s, json_object_get(space, "Conditions"), CONDITION,
                    "ConfigurationSpace.Conditions", err) != 0 ||
        check_object(s, ks, KERNEL, "KernelSpecification", err) != 0 ||
        check_object(s, json_object_get(ks, "LocalSize"), LOCAL, places[LOCAL].where, err) != 0 ||
        check_object(s, json_object_get(ks, "GlobalSize"), GLOBAL, places[GLOBAL].where, err) !=
            0 ||
        check_items(s, json_object_get(ks, "Arguments"), ARGUMENT,
                    "KernelSpecification.Arguments", err) != 0 ||
        check_items(s, json_object_get(ks, "ReferenceArguments"), REFERENCE,
                    "KernelSpecification.ReferenceArguments", err) != 0 ||
        check_object(s, verification, VERIFICATION, places[VERIFICATION].where, err) != 0 ||
        check_items(s, json_object_get(verification, "Checks"), CHECK,
                    "KernelSpecification.Verification.Checks", err) != 0)
        return -1;
    const json_t *rk = json_object_get(verification, "ReferenceKernel");
    if (check_object(s, rk, REFERENCE_KERNEL, places[REFERENCE_KERNEL].where, err) != 0 ||
        check_object(s, json_object_get(rk, "LocalSize"), LOCAL,
                     "KernelSpecification.Verification.ReferenceKernel.LocalSize", err) != 0 ||
        check_object(s, json_object_get(rk, "GlobalSize"), GLOBAL,
                     "KernelSpecification.Verification.ReferenceKernel.GlobalSize", err) != 0)
        return -1;
    return 0;
}
