/* The best configuration per (plugin, device, problem) as a C header: a
 * table of entries and an inline lookup function an application compiles
 * in (docs/reports.md, "The C header"). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "c_names.h"
#include "export.h"
#include "export_json.h"
#include "query.h"

typedef enum value_kind { KIND_INT = 0, KIND_REAL = 1, KIND_TEXT = 2 } value_kind;

typedef struct param_info {
    const char *name;    /* borrowed from a parsed object */
    value_kind kind;
} param_info;

typedef struct plugin_group {
    size_t first, end;             /* rows of the wisdom table */
    json_t **problems, **configs;  /* per row, parsed and in text order */
    param_info *problem_params, *config_params;
    size_t n_problem, n_config;
    char **config_fields;          /* the config struct's field per config_params */
} plugin_group;

/* ------------------------------------------------------------ writing C */

/* A C string literal: escapes for quotes and backslashes, octal for other
 * bytes outside printable ASCII, and no "??" a compiler could read as a
 * trigraph. */
static void c_string(FILE *f, const char *text)
{
    fputc('"', f);
    char previous = 0;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '?' && previous == '?')
            fputs("\\?", f);
        else if (*p < 0x20 || *p >= 0x7F)
            fprintf(f, "\\%03o", *p);
        else
            fputc(*p, f);
        previous = (char)*p;
    }
    fputc('"', f);
}

/* Text inside a comment: no "*" followed by "/", no control characters. */
static void c_comment_text(FILE *f, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '*' && p[1] == '/')
            fputs("* ", f);
        else if (*p < 0x20 || *p == 0x7F)
            fputc('?', f);
        else
            fputc(*p, f);
    }
}

static void c_double(FILE *f, double v)
{
    if (!isfinite(v)) v = 0.0;
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    /* A whole number prints without a point; keep it a double literal. */
    fputs(buf, f);
    if (!strpbrk(buf, ".eE")) fputs(".0", f);
}

/* ------------------------------------------------------------ grouping */

static void group_free(plugin_group *g)
{
    size_t n = g->end - g->first;
    for (size_t k = 0; g->problems && k < n; k++) json_decref(g->problems[k]);
    for (size_t k = 0; g->configs && k < n; k++) json_decref(g->configs[k]);
    free(g->problems);
    free(g->configs);
    free(g->problem_params);
    free(g->config_params);
    c_fields_free(g->config_fields, g->n_config);
    memset(g, 0, sizeof *g);
}

static value_kind kind_of(const json_t *v)
{
    if (json_is_integer(v) || json_is_boolean(v)) return KIND_INT;
    if (json_is_real(v)) return KIND_REAL;
    return KIND_TEXT;
}

/* Add every key of objects[0..n) to params in order of first appearance,
 * widening each parameter's kind to fit every value. */
static int collect_params(json_t **objects, size_t n, param_info **out, size_t *count)
{
    size_t capacity = 0;
    *out = NULL;
    *count = 0;
    for (size_t r = 0; r < n; r++) {
        const char *key;
        json_t *value;
        json_object_foreach(objects[r], key, value) {
            size_t k = 0;
            while (k < *count && strcmp((*out)[k].name, key) != 0) k++;
            if (k == *count) {
                if (*count == capacity) {
                    capacity = capacity ? capacity * 2 : 8;
                    param_info *grown = realloc(*out, capacity * sizeof *grown);
                    if (!grown) return -1;
                    *out = grown;
                }
                (*out)[k] = (param_info){.name = key, .kind = kind_of(value)};
                (*count)++;
            } else if (kind_of(value) > (*out)[k].kind) {
                (*out)[k].kind = kind_of(value);
            }
        }
    }
    /* A parameter missing from some entry cannot be compared as a number. */
    for (size_t k = 0; k < *count; k++)
        for (size_t r = 0; r < n; r++)
            if (!json_object_get(objects[r], (*out)[k].name)) (*out)[k].kind = KIND_TEXT;
    return 0;
}

static int group_load(const query_table *t, size_t first, size_t end, plugin_group *g)
{
    memset(g, 0, sizeof *g);
    g->first = first;
    g->end = end;
    size_t n = end - first;
    g->problems = calloc(n, sizeof *g->problems);
    g->configs = calloc(n, sizeof *g->configs);
    if (!g->problems || !g->configs) return -1;
    for (size_t r = first; r < end; r++) {
        g->problems[r - first] = export_object_in_text_order(query_cell(t, r, "problem_values"),
                                                             query_cell(t, r, "problem"));
        g->configs[r - first] = export_object_in_text_order(
            query_cell(t, r, "configuration_values"), query_cell(t, r, "configuration"));
        if (!g->problems[r - first] || !g->configs[r - first]) return -1;
    }
    if (collect_params(g->problems, n, &g->problem_params, &g->n_problem) != 0 ||
        collect_params(g->configs, n, &g->config_params, &g->n_config) != 0)
        return -1;
    const char **names = malloc((g->n_config ? g->n_config : 1) * sizeof *names);
    if (!names) return -1;
    for (size_t k = 0; k < g->n_config; k++) names[k] = g->config_params[k].name;
    int rc = c_field_names(names, g->n_config, &g->config_fields);
    free(names);
    return rc;
}

static size_t numeric_problem_params(const plugin_group *g)
{
    size_t n = 0;
    for (size_t k = 0; k < g->n_problem; k++)
        if (g->problem_params[k].kind != KIND_TEXT) n++;
    return n;
}

/* ------------------------------------------------------------ sections */

static void write_config_value(FILE *f, const json_t *v, value_kind kind)
{
    switch (kind) {
    case KIND_INT:
        fprintf(f, "%lldLL", json_is_boolean(v) ? (long long)json_is_true(v)
                                                : (long long)json_integer_value(v));
        return;
    case KIND_REAL:
        c_double(f, json_number_value(v));
        return;
    case KIND_TEXT:
        if (json_is_string(v)) {
            c_string(f, json_string_value(v));
        } else if (!v) {
            fputs("NULL", f);
        } else {
            char *text = json_dumps(v, JSON_ENCODE_ANY);
            c_string(f, text ? text : "");
            free(text);
        }
        return;
    }
}

/* The plugin's numeric problem parameters, in the order of the lookup's
 * problem_values; a text one is named in a comment only. */
static void write_problem_names(FILE *f, const plugin_group *g, const char *id, const char *ID)
{
    size_t n_numeric = numeric_problem_params(g);
    fprintf(f, "/* problem_values for skytune_%s_lookup, in this order:", id);
    for (size_t k = 0, shown = 0; k < g->n_problem; k++)
        if (g->problem_params[k].kind != KIND_TEXT) {
            fprintf(f, "%s ", shown++ ? "," : "");
            c_comment_text(f, g->problem_params[k].name);
        }
    if (n_numeric == 0) fputs(" (none: the plugin has no numeric problem parameter)", f);
    fputs(". */\n", f);
    for (size_t k = 0; k < g->n_problem; k++)
        if (g->problem_params[k].kind == KIND_TEXT) {
            fputs("/* Problem parameter ", f);
            c_comment_text(f, g->problem_params[k].name);
            fputs(" is text: it is in each entry's problem text but not part of the lookup. */\n",
                  f);
        }
    fprintf(f, "#define SKYTUNE_%s_N_PROBLEM_VALUES %zu\n", ID, n_numeric);
    fprintf(f, "static const char *const skytune_%s_problem_names[] SKYTUNE_WISDOM_UNUSED = {", id);
    for (size_t k = 0, shown = 0; k < g->n_problem; k++)
        if (g->problem_params[k].kind != KIND_TEXT) {
            fputs(shown++ ? ", " : "", f);
            c_string(f, g->problem_params[k].name);
        }
    if (n_numeric == 0) fputs("NULL", f);
    fputs("};\n\n", f);
}

/* The types of a configuration and of an entry. */
static void write_types(FILE *f, const plugin_group *g, const char *id)
{
    size_t n_numeric = numeric_problem_params(g);
    fprintf(f, "typedef struct skytune_%s_config {\n", id);
    for (size_t k = 0; k < g->n_config; k++) {
        static const char *const types[] = {"long long", "double", "const char *"};
        fprintf(f, "    %s%s%s;", types[g->config_params[k].kind],
                g->config_params[k].kind == KIND_TEXT ? "" : " ", g->config_fields[k]);
        char plain[128];
        c_identifier(g->config_params[k].name, false, plain, sizeof plain);
        if (strcmp(plain, g->config_fields[k]) != 0) {
            fputs(" /* parameter ", f);
            c_comment_text(f, g->config_params[k].name);
            fputs(c_is_reserved(plain) ? ": a C keyword */" : ": another field has its name */",
                  f);
        }
        fputc('\n', f);
    }
    if (g->n_config == 0) fputs("    int none;\n", f);
    fprintf(f, "} skytune_%s_config;\n\n", id);

    fprintf(f,
            "typedef struct skytune_%s_entry {\n"
            "    const char *device;         /* CL_DEVICE_NAME */\n"
            "    const char *platform;       /* CL_PLATFORM_NAME */\n"
            "    const char *plugin_version;\n"
            "    const char *problem;        /* canonical problem text */\n"
            "    double problem_values[%zu];\n"
            "    const char *configuration;  /* canonical configuration text */\n"
            "    skytune_%s_config config;\n"
            "    double median_ns;           /* median time of the timed runs */\n"
            "    double ci_low_ns, ci_high_ns; /* its confidence interval, 0 when unknown */\n"
            "    double ci_coverage;         /* the interval holds the median with this\n"
            "                                   probability: 0.95, less with few runs */\n"
            "    double gflops;              /* 0 when the plugin does not count FLOPs */\n"
            "} skytune_%s_entry;\n\n",
            id, n_numeric ? n_numeric : 1, id, id);
}

/* The entries, one per device and problem. */
static void write_entries(FILE *f, const query_table *t, const plugin_group *g, const char *id,
                          const char *ID)
{
    size_t n_numeric = numeric_problem_params(g), n = g->end - g->first;
    fprintf(f, "#define SKYTUNE_%s_N_ENTRIES %zu\n", ID, n);
    fprintf(f, "static const skytune_%s_entry skytune_%s_entries[%zu] SKYTUNE_WISDOM_UNUSED = {\n",
            id, id, n);
    for (size_t r = g->first; r < g->end; r++) {
        const json_t *problem = g->problems[r - g->first], *config = g->configs[r - g->first];
        fputs("    {", f);
        c_string(f, query_cell(t, r, "device"));
        fputs(", ", f);
        c_string(f, query_cell(t, r, "platform"));
        fputs(", ", f);
        c_string(f, query_cell(t, r, "plugin_version"));
        fputs(",\n     ", f);
        c_string(f, query_cell(t, r, "problem"));
        fputs(", {", f);
        for (size_t k = 0, shown = 0; k < g->n_problem; k++) {
            if (g->problem_params[k].kind == KIND_TEXT) continue;
            fputs(shown++ ? ", " : "", f);
            c_double(f, json_number_value(json_object_get(problem, g->problem_params[k].name)));
        }
        if (n_numeric == 0) fputs("0.0", f);
        fputs("},\n     ", f);
        c_string(f, query_cell(t, r, "configuration"));
        fputs(", {", f);
        for (size_t k = 0; k < g->n_config; k++) {
            fputs(k ? ", " : "", f);
            write_config_value(f, json_object_get(config, g->config_params[k].name),
                               g->config_params[k].kind);
        }
        if (g->n_config == 0) fputs("0", f);
        fputs("},\n     ", f);
        double median = 0, low = 0, high = 0, coverage = 0, gflops = 0;
        query_number(t, r, "median_ns", &median);
        query_number(t, r, "ci_low_ns", &low);
        query_number(t, r, "ci_high_ns", &high);
        query_number(t, r, "ci_coverage", &coverage);
        query_number(t, r, "gflops", &gflops);
        const double figures[] = {median, low, high, coverage, gflops};
        for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
            fputs(k ? ", " : "", f);
            c_double(f, figures[k]);
        }
        fputs("},\n", f);
    }
    fputs("};\n\n", f);
}

/* The function that looks an entry up by device and problem. */
static void write_lookup(FILE *f, const char *id, const char *ID)
{
    fprintf(f,
            "/* The entry for this device and problem by the lookup rule at the top of this\n"
            " * file, or NULL: then use the plugin's default configuration. */\n"
            "static inline const skytune_%s_entry *skytune_%s_lookup(const char *device,\n"
            "                                                        const double *problem_values)\n"
            "{\n"
            "    const skytune_%s_entry *nearest = NULL;\n"
            "    double nearest_distance = HUGE_VAL;\n"
            "    for (size_t k = 0; k < SKYTUNE_%s_N_ENTRIES; k++) {\n"
            "        const skytune_%s_entry *e = &skytune_%s_entries[k];\n"
            "        if (!device || strcmp(e->device, device) != 0) continue;\n"
            "        double distance = 0.0;\n"
            "        int comparable = 1;\n"
            "        /* A variable, not the macro: with no numeric problem parameter\n"
            "         * `j < 0` would warn that it is always false. */\n"
            "        size_t n_values = SKYTUNE_%s_N_PROBLEM_VALUES;\n"
            "        for (size_t j = 0; j < n_values; j++) {\n"
            "            double a = problem_values[j], b = e->problem_values[j];\n"
            "            if (a == b) continue;\n"
            "            if (!(a > 0.0 && b > 0.0)) {\n"
            "                comparable = 0;\n"
            "                break;\n"
            "            }\n"
            "            distance += fabs(log(a / b));\n"
            "        }\n"
            "        if (!comparable) continue;\n"
            "        if (distance == 0.0) return e;\n"
            "        if (distance < nearest_distance) {\n"
            "            nearest = e;\n"
            "            nearest_distance = distance;\n"
            "        }\n"
            "    }\n"
            "    return nearest;\n"
            "}\n\n",
            id, id, id, ID, id, id, ID);
}

/* The only entry's configuration as macros. */
static void write_only_configuration(FILE *f, const plugin_group *g, const char *ID)
{
    fprintf(f, "/* The only entry's configuration, for an application built for one device "
               "and problem. */\n");
    for (size_t k = 0; k < g->n_config; k++) {
        char macro[160];
        c_identifier(g->config_params[k].name, true, macro, sizeof macro);
        fprintf(f, "#define SKYTUNE_%s_%s ", ID, macro);
        write_config_value(f, json_object_get(g->configs[0], g->config_params[k].name),
                           g->config_params[k].kind);
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void write_plugin(FILE *f, const query_table *t, const plugin_group *g)
{
    const char *plugin = query_cell(t, g->first, "plugin");
    char id[128], ID[128];
    c_identifier(plugin, false, id, sizeof id);
    c_identifier(plugin, true, ID, sizeof ID);
    fprintf(f, "/* ---- plugin ");
    c_comment_text(f, plugin);
    fprintf(f, " ---- */\n\n");
    write_problem_names(f, g, id, ID);
    write_types(f, g, id);
    write_entries(f, t, g, id, ID);
    write_lookup(f, id, ID);
    if (g->end - g->first == 1) write_only_configuration(f, g, ID);
}

int export_wisdom_header(void *db, const char *plugin, const char *source, FILE *f,
                         size_t *entries, skytune_error *err)
{
    const char *params[QUERY_N_PARAMS] = {NULL, plugin, NULL};
    query_table t;
    if (query_run_named(db, "wisdom", params, QUERY_N_PARAMS, &t, err) != 0) return -1;
    if (t.n_rows == 0) {
        query_table_free(&t);
        return plugin ? err_set(err, "plugin '%s' has no configuration that passed verification; "
                                "nothing to export", plugin)
                      : err_set(err, "no configuration passed verification in this database; "
                                "nothing to export");
    }
    char guard[160];
    c_identifier(plugin ? plugin : "all", true, guard, sizeof guard);
    fputs("/* skytune wisdom: the best configuration measured for each device and problem\n"
          " * instance, written by `skytune export --format header` from ", f);
    c_comment_text(f, source);
    fputs(".\n"
          " *\n"
          " * For each plugin P: skytune_P_entries[] and skytune_P_lookup(device,\n"
          " * problem_values), which returns\n"
          " *   1. the entry for exactly this device name (CL_DEVICE_NAME) and these\n"
          " *      problem values, else\n"
          " *   2. the entry for this device with the nearest problem: the smallest sum,\n"
          " *      over the numeric problem parameters, of |ln(value / entry's value)|\n"
          " *      (an entry differing in a parameter that is not positive in both is\n"
          " *      not a candidate; of equally near entries the first counts), else\n"
          " *   3. NULL: the device was never tuned; use the plugin's default.\n"
          " * problem_values lists the numeric problem parameters in the order of\n"
          " * skytune_P_problem_names (booleans as 0 and 1). With a single entry,\n"
          " * SKYTUNE_P_<PARAMETER> macros give its configuration as well. Link with -lm. */\n",
          f);
    fprintf(f, "#ifndef SKYTUNE_WISDOM_%s_H\n#define SKYTUNE_WISDOM_%s_H\n\n", guard, guard);
    fputs("#include <math.h>\n#include <stddef.h>\n#include <string.h>\n\n"
          "#ifndef SKYTUNE_WISDOM_UNUSED\n"
          "#if defined(__GNUC__)\n"
          "#define SKYTUNE_WISDOM_UNUSED __attribute__((unused))\n"
          "#else\n"
          "#define SKYTUNE_WISDOM_UNUSED\n"
          "#endif\n"
          "#endif\n\n",
          f);
    int rc = 0;
    size_t total = 0;
    for (size_t a = 0; a < t.n_rows && rc == 0;) {
        const char *name = query_cell(&t, a, "plugin");
        size_t b = a;
        while (b < t.n_rows && name && query_cell(&t, b, "plugin") &&
               strcmp(query_cell(&t, b, "plugin"), name) == 0)
            b++;
        if (b == a) b = a + 1;
        plugin_group g;
        if (group_load(&t, a, b, &g) != 0)
            rc = err_set(err, "plugin '%s': out of memory, or a parameter object that is not "
                         "JSON", name ? name : "");
        else
            write_plugin(f, &t, &g);
        group_free(&g);
        total += b - a;
        a = b;
    }
    fprintf(f, "#endif\n");
    query_table_free(&t);
    if (rc != 0) return -1;
    if (ferror(f)) return err_set(err, "writing the header failed");
    if (entries) *entries = total;
    return 0;
}
