/* T1 input files: a kernel's search space as the auto-tuning community's T1
 * format describes it (ConfigurationSpace.TuningParameters and
 * ConfigurationSpace.Conditions), turned into a space. See t1.h.
 *
 * A parameter's Values are a JSON array or, as the benchmark hub's files
 * write them, the text of a Python expression that makes a list ("[16, 32,
 * 48]", "[32 * i for i in range(1, 32)]", "[1] + [2 * i for i in range(1,
 * 11)]"), evaluated by python_values.h's subset of Python. */
#include "t1.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dataset_file.h"
#include "expr.h"
#include "python_values.h"
#include "quote.h"
#include "value.h"

/* ------------------------------------------------------------ literals */

/* Items as written, before they are given the parameter's declared type. */
typedef struct literal_list {
    skytune_value *items;   /* INT, FLOAT, BOOL or STRING (owned) */
    size_t count, capacity;
} literal_list;

static void literal_list_free(literal_list *l)
{
    for (size_t k = 0; k < l->count; k++) value_clear(&l->items[k]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Takes ownership of v's string whether or not it succeeds. */
static int literal_list_push(literal_list *l, skytune_value *v)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 16;
        skytune_value *grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown) {
            value_clear(v);
            return -1;
        }
        l->items = grown;
        l->capacity = capacity;
    }
    l->items[l->count++] = *v;
    memset(v, 0, sizeof *v);
    return 0;
}

/* A JSON array's items as literals. */
static int json_list(const json_t *array, literal_list *out, char *why, size_t why_len)
{
    for (size_t k = 0; k < json_array_size(array); k++) {
        const json_t *j = json_array_get(array, k);
        skytune_value v;
        memset(&v, 0, sizeof v);
        if (json_is_integer(j)) {
            v.type = SKYTUNE_INT;
            v.i = (int64_t)json_integer_value(j);
        } else if (json_is_real(j)) {
            v.type = SKYTUNE_FLOAT;
            v.f = json_real_value(j);
        } else if (json_is_boolean(j)) {
            v.type = SKYTUNE_BOOL;
            v.i = json_is_true(j);
        } else if (json_is_string(j)) {
            v.type = SKYTUNE_STRING;
            v.s = strdup(json_string_value(j));
            if (!v.s) {
                snprintf(why, why_len, "out of memory");
                return -1;
            }
        } else {
            snprintf(why, why_len, "value %zu is not a number, string or boolean", k + 1);
            return -1;
        }
        if (literal_list_push(out, &v) != 0) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ types */

typedef struct t1_type {
    const char *name;
    skytune_type type;
} t1_type;

static const t1_type t1_types[] = {
    {"int", SKYTUNE_INT},       {"integer", SKYTUNE_INT},    {"float", SKYTUNE_FLOAT},
    {"double", SKYTUNE_FLOAT},  {"real", SKYTUNE_FLOAT},     {"string", SKYTUNE_STRING},
    {"str", SKYTUNE_STRING},    {"bool", SKYTUNE_BOOL},      {"boolean", SKYTUNE_BOOL},
    {"uint", SKYTUNE_INT},
};

static int find_type(const char *name, skytune_type *type)
{
    for (size_t k = 0; k < sizeof t1_types / sizeof t1_types[0]; k++) {
        const char *a = name, *b = t1_types[k].name;
        while (*a && tolower((unsigned char)*a) == *b) a++, b++;
        if (!*a && !*b) {
            *type = t1_types[k].type;
            return 0;
        }
    }
    return -1;
}

/* With no Type given: strings if all are strings, else integers unless a
 * real is among them. */
static int infer_type(const literal_list *l, skytune_type *type)
{
    bool string = false, number = false, real = false;
    for (size_t k = 0; k < l->count; k++) {
        string |= l->items[k].type == SKYTUNE_STRING;
        number |= l->items[k].type != SKYTUNE_STRING;
        real |= l->items[k].type == SKYTUNE_FLOAT;
    }
    if (string && number) return -1;
    *type = string ? SKYTUNE_STRING : real ? SKYTUNE_FLOAT : SKYTUNE_INT;
    return 0;
}

/* Give every item the declared type: integers take integral reals, reals
 * take integers, booleans take True/False and 0/1. */
static int coerce(literal_list *l, skytune_type type, char *why, size_t why_len)
{
    for (size_t k = 0; k < l->count; k++) {
        skytune_value *v = &l->items[k];
        char shown[64];
        if (v->type == SKYTUNE_STRING)
            snprintf(shown, sizeof shown, "'%.40s'", v->s);
        else
            value_format(v, shown, sizeof shown);
        bool ok = false;
        switch (type) {
        case SKYTUNE_INT:
            if (v->type == SKYTUNE_INT || v->type == SKYTUNE_BOOL) {
                ok = true;
            } else if (v->type == SKYTUNE_FLOAT) {
                ok = value_float_to_int64(v->f, &v->i);
            }
            break;
        case SKYTUNE_FLOAT:
            if (v->type == SKYTUNE_FLOAT) {
                ok = true;
            } else if (v->type == SKYTUNE_INT) {
                v->f = (double)v->i;
                ok = true;
            }
            break;
        case SKYTUNE_BOOL:
            ok = v->type == SKYTUNE_BOOL || (v->type == SKYTUNE_INT && (v->i == 0 || v->i == 1));
            break;
        case SKYTUNE_STRING:
            ok = v->type == SKYTUNE_STRING;
            break;
        }
        if (!ok) {
            snprintf(why, why_len, "value %zu (%s) is not a %s", k + 1, shown, type_name(type));
            return -1;
        }
        if (type != SKYTUNE_STRING) v->type = type;
    }
    return 0;
}

/* ------------------------------------------------------------ the file */

int t1_read_parameter(const char *path, size_t number, const json_t *spec, param_def *out,
                      skytune_error *err)
{
    if (!json_is_object(spec))
        return err_set(err, "%s: TuningParameters item %zu is not an object with Name, Type and "
                       "Values", path, number);
    const char *name = json_string_value(json_object_get(spec, "Name"));
    if (!name)
        return err_set(err, "%s: TuningParameters item %zu has no \"Name\" string", path, number);
    /* Everything quoted from the file is escaped (see quote.h). */
    char shown[QUOTE_TEXT], shown_text[QUOTE_TEXT], shown_why[QUOTE_TEXT + 256];
    quote_text(name, shown, sizeof shown);
    const json_t *values = json_object_get(spec, "Values");
    const json_t *type_field = json_object_get(spec, "Type");
    if (type_field && !json_is_string(type_field))
        return err_set(err, "%s: tuning parameter '%s': \"Type\" must be a string such as "
                       "\"int\"", path, shown);

    literal_list list = {0};
    char why[512] = "";
    int rc = 0;
    if (json_is_string(values)) {
        skytune_error eval_err = {0};
        if (python_values_eval(json_string_value(values), &list.items, &list.count,
                               &eval_err) != 0)
            rc = err_set(err, "%s: tuning parameter '%s': Values \"%.200s\": %s", path, shown,
                         quote_text(json_string_value(values), shown_text, sizeof shown_text),
                         quote_text(eval_err.message, shown_why, sizeof shown_why));
        list.capacity = list.count;
    } else if (json_is_array(values)) {
        if (json_list(values, &list, why, sizeof why) != 0)
            rc = err_set(err, "%s: tuning parameter '%s': Values: %s", path, shown,
                         quote_text(why, shown_why, sizeof shown_why));
    } else {
        rc = err_set(err, "%s: tuning parameter '%s': \"Values\" must be an array or the text of "
                     "a Python list such as \"[16, 32, 64]\"", path, shown);
    }
    skytune_type type = SKYTUNE_INT;
    if (rc == 0 && type_field && find_type(json_string_value(type_field), &type) != 0)
        rc = err_set(err, "%s: tuning parameter '%s': unknown Type \"%s\"; valid types are int, "
                     "uint, float, string and bool", path, shown,
                     quote_text(json_string_value(type_field), shown_text, sizeof shown_text));
    if (rc == 0 && !type_field && infer_type(&list, &type) != 0)
        rc = err_set(err, "%s: tuning parameter '%s': Values mix strings and numbers; give a "
                     "Type", path, shown);
    if (rc == 0 && coerce(&list, type, why, sizeof why) != 0)
        rc = err_set(err, "%s: tuning parameter '%s' of Type %s: %s", path, shown,
                     type_name(type), quote_text(why, shown_why, sizeof shown_why));
    /* The schema's uint: whole numbers, none below 0. */
    bool unsigned_type = type_field && strcmp(json_string_value(type_field), "uint") == 0;
    for (size_t k = 0; rc == 0 && unsigned_type && k < list.count; k++)
        if (list.items[k].i < 0)
            rc = err_set(err, "%s: tuning parameter '%s' of Type uint: value %lld is below 0",
                         path, shown, (long long)list.items[k].i);
    skytune_error param_err = {0};
    if (rc == 0 && param_from_values(name, type, list.items, list.count, out, &param_err) != 0)
        rc = err_set(err, "%s: %s", path, param_err.message);
    literal_list_free(&list);
    return rc;
}

static bool same_values(const param_def *a, const param_def *b)
{
    if (a->type != b->type || a->count != b->count) return false;
    for (size_t k = 0; k < a->count; k++)
        if (!value_equal(&a->values[k], &b->values[k])) return false;
    return true;
}

typedef struct name_table {
    const param_def *params;
    size_t count;
} name_table;

static int resolve_param(void *ctx, const char *name, size_t len)
{
    const name_table *t = ctx;
    for (size_t k = 0; k < t->count; k++)
        if (strlen(t->params[k].name) == len && memcmp(t->params[k].name, name, len) == 0)
            return (int)k;
    return -1;
}

/* The condition texts, each parsed once here so that a mistake is reported
 * as the file's ("condition N: column C: unknown name 'x'"). */
static int read_conditions(const char *path, const json_t *conditions, const name_table *names,
                           const char **texts, skytune_error *err)
{
    for (size_t k = 0; k < json_array_size(conditions); k++) {
        const json_t *c = json_array_get(conditions, k);
        const char *text = json_string_value(c);
        if (!text && json_is_object(c)) text = json_string_value(json_object_get(c, "Expression"));
        if (!text)
            return err_set(err, "%s: condition %zu: expected a string or an object with an "
                           "\"Expression\" string", path, k + 1);
        expr *e = NULL;
        skytune_error expr_err = {0};
        char shown[QUOTE_TEXT + 512];
        if (expr_parse(text, resolve_param, (void *)names, &e, &expr_err) != 0)
            return err_set(err, "%s: condition %zu: %s", path, k + 1,
                           quote_text(expr_err.message, shown, sizeof shown));
        expr_free(e);
        texts[k] = text;
    }
    return 0;
}

int t1_load_definition(const char *path, uint64_t max_json_bytes, space **out,
                       skytune_error *err)
{
    *out = NULL;
    json_t *root = NULL;
    if (replay_read_json(path, max_json_bytes, &root, err) != 0) return -1;
    /* The path as messages quote it. */
    char name[QUOTE_PATH];
    path = quote_text(path, name, sizeof name);
    const json_t *cs = json_object_get(root, "ConfigurationSpace");
    const json_t *tuning = json_object_get(cs, "TuningParameters");
    const json_t *conditions = json_object_get(cs, "Conditions");
    size_t n_params = json_array_size(tuning);
    size_t n_conditions = json_array_size(conditions);
    param_def *params = NULL;
    const char **texts = NULL;
    int rc = 0;
    if (!json_is_object(cs)) {
        rc = err_set(err, "%s: no \"ConfigurationSpace\" object; a T1 file describes its search "
                     "space there", path);
    } else if (!json_is_array(tuning) || n_params == 0) {
        rc = err_set(err, "%s: ConfigurationSpace.TuningParameters must be a non-empty array",
                     path);
    } else if (conditions && !json_is_array(conditions)) {
        rc = err_set(err, "%s: ConfigurationSpace.Conditions must be an array", path);
    }
    if (rc == 0) {
        params = calloc(n_params, sizeof *params);
        texts = calloc(n_conditions ? n_conditions : 1, sizeof *texts);
        if (!params || !texts) rc = err_set(err, "%s: out of memory", path);
    }
    size_t declared = n_params;
    n_params = 0;
    for (size_t k = 0; k < declared && rc == 0; k++) {
        param_def *p = &params[n_params];
        rc = t1_read_parameter(path, k + 1, json_array_get(tuning, k), p, err);
        bool repeated = false;
        for (size_t j = 0; j < n_params && rc == 0 && !repeated; j++) {
            if (strcmp(params[j].name, p->name) != 0) continue;
            /* The hub's files repeat a parameter word for word at times, and
             * Python's dict keeps one; a different repetition is a mistake. */
            repeated = same_values(&params[j], p);
            if (!repeated)
                rc = err_set(err, "%s: tuning parameter '%s' is declared twice with different "
                             "values (the second time as item %zu)", path, p->name, k + 1);
        }
        if (rc == 0 && !repeated)
            n_params++;
        else
            param_free(p);
    }
    name_table names = {.params = params, .count = n_params};
    if (rc == 0) rc = read_conditions(path, conditions, &names, texts, err);
    if (rc == 0) {
        space_spec spec = {.params = params, .n_params = n_params, .constraints = texts,
                           .n_constraints = n_conditions};
        if (space_define(&spec, out, err) != 0) rc = err_prefix(err, "%s", path);
    }
    if (params)
        for (size_t k = 0; k < n_params; k++) param_free(&params[k]);
    free(params);
    free(texts);
    json_decref(root);
    return rc;
}

int t1_load_space(const char *path, uint64_t max_json_bytes, const space_control *control,
                  space **out, skytune_error *err)
{
    space *definition;
    *out = NULL;
    if (t1_load_definition(path, max_json_bytes, &definition, err) != 0) return -1;
    int rc = space_from_definition(definition, control, out, err);
    space_free(definition);
    char name[QUOTE_PATH];
    return rc != 0 ? err_prefix(err, "%s", quote_text(path, name, sizeof name)) : 0;
}
