/* A T1 file's expressions (t1_kernel_internal.h): the forms the constraint
 * language lacks rewritten into it, the names they may use, compiled, and
 * their values for a configuration. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "t1_expressions.h"
#include "quote.h"
#include "t1_kernel_internal.h"
#include "value.h"

int t1_kernel_fail(const t1_kernel *s, skytune_error *err, const char *fmt, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char name[QUOTE_PATH];
    return err_set(err, "%s: %s", quote_text(s->path, name, sizeof name), text);
}

void t1_problem_name(size_t i, char *buf, size_t len)
{
    snprintf(buf, len, "problem_size_%zu", i);
}

/* "a, b and c" of the tuning parameters, for messages. */
static void parameter_list(const t1_kernel *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->n_params && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 k == 0 ? "" : k + 1 == s->n_params ? " and " : ", ",
                                 s->params[k].name);
}


/* The T1 forms the constraint language lacks, rewritten into it:
 * ProblemSize[i] becomes the problem parameter problem_size_i, and max(P)
 * or min(P) the largest or smallest of P's values, as a number. */
/* Room for `more` bytes and a NUL past `used`. */
static int reserve(char **buf, size_t *capacity, size_t used, size_t more)
{
    if (used + more + 1 <= *capacity) return 0;
    size_t grown_to = *capacity * 2 > used + more + 1 ? *capacity * 2 : used + more + 1;
    char *grown = realloc(*buf, grown_to);
    if (!grown) return -1;
    *buf = grown;
    *capacity = grown_to;
    return 0;
}

/* An expression being rewritten, and its rewriting so far. */
typedef struct rewriting {
    const t1_kernel *s;
    const char *key;           /* the expression's place in the file, for messages */
    const char *text;
    char *buf;
    size_t capacity, used;
} rewriting;

/* The quoted string at `at`, copied as it is; returns where the text goes on. */
static size_t copy_quoted(rewriting *r, size_t at)
{
    const char *text = r->text;
    char quote = text[at];
    size_t end = at + 1;
    while (text[end] && text[end] != quote) end += text[end] == '\\' && text[end + 1] ? 2 : 1;
    if (text[end]) end++;
    memcpy(r->buf + r->used, text + at, end - at);
    r->used += end - at;
    return end;
}

/* Whether a name starts at `at`, rather than going on there or being part
 * of a number. */
static bool starts_name(const char *text, size_t at)
{
    char c = text[at];
    return (isalpha((unsigned char)c) || c == '_') &&
           !(at > 0 && (isalnum((unsigned char)text[at - 1]) || text[at - 1] == '_' ||
                        text[at - 1] == '.'));
}

/* The text `text` in parentheses, appended. */
static int append_group(rewriting *r, const char *text)
{
    size_t n = strlen(text);
    if (reserve(&r->buf, &r->capacity, r->used, n + 2 + (strlen(r->text) + 128)) != 0) return -1;
    r->used += (size_t)snprintf(r->buf + r->used, r->capacity - r->used, "(%s)", text);
    return 0;
}

/* ProblemSize at `word`, its '[' at `next`, as the name of the problem
 * parameter; *at: where the text goes on. */
static int rewrite_problem_size(rewriting *r, size_t word, size_t next, size_t *at,
                                skytune_error *err)
{
    const t1_kernel *s = r->s;
    const char *text = r->text;
    char *end = NULL;
    errno = 0;
    unsigned long index = text[next] == '[' ? strtoul(text + next + 1, &end, 10) : 0;
    if (text[next] != '[' || end == text + next + 1 || errno)
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: ProblemSize is a list; write "
                            "ProblemSize[0] for its first entry",
                    r->key, text, word + 1);
    while (isspace((unsigned char)*end)) end++;
    if (*end != ']')
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: expected ']' after ProblemSize[%lu", r->key,
                    text, word + 1, index);
    if (index >= s->n_problem)
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: ProblemSize[%lu], but the "
                            "KernelSpecification's ProblemSize has %zu entr%s",
                    r->key, text, word + 1, index, s->n_problem, s->n_problem == 1 ? "y" : "ies");
    *at = (size_t)(end - text) + 1;
    if (s->problem_expr[index].e) /* an expression of the tuning parameters */
        return append_group(r, s->problem_expr[index].text) == 0
                   ? 0
                   : t1_kernel_fail(s, err, "out of memory");
    char name[32];
    t1_problem_name(index, name, sizeof name);
    r->used += (size_t)snprintf(r->buf + r->used, r->capacity - r->used, "%s", name);
    return 0;
}

/* The work-groups of the launch in dimension d, as an expression (NULL
 * when out of memory). */
static char *groups_text(const t1_kernel *s, unsigned d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    if (s->has_grid_div[d]) {
        char problem[32];
        t1_problem_name(d, problem, sizeof problem);
        const char *extent = s->problem_expr[d].e ? s->problem_expr[d].text : problem;
        fprintf(f, "(((%s) + (", extent);
        for (size_t k = 0; k < s->n_grid_div[d]; k++)
            fprintf(f, "%s(%s)", k ? " * " : "", s->grid_div[d][k].text);
        if (!s->n_grid_div[d]) fputs("1", f);
        fputs(") - 1) // (", f);
        for (size_t k = 0; k < s->n_grid_div[d]; k++)
            fprintf(f, "%s(%s)", k ? " * " : "", s->grid_div[d][k].text);
        if (!s->n_grid_div[d]) fputs("1", f);
        fputs("))", f);
    } else if (s->global[d].e && s->global_counts_groups) {
        fprintf(f, "%s", s->global[d].text);
    } else if (s->global[d].e) {
        fprintf(f, "(%s) // (%s)", s->global[d].text, s->local[d].text);
    } else {
        fputs("1", f);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* NumGroups[d] at `word`, its '[' at `next`, as the work-groups of the
 * launch in dimension d; *at: where the text goes on. */
static int rewrite_groups(rewriting *r, size_t word, size_t next, size_t *at, skytune_error *err)
{
    const t1_kernel *s = r->s;
    const char *text = r->text;
    char *end = NULL;
    unsigned long index = text[next] == '[' ? strtoul(text + next + 1, &end, 10) : 99;
    if (index > 2 || !end || *end != ']')
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: NumGroups is a list of the launch's "
                              "work-groups per dimension; write NumGroups[0], [1] or [2]",
                              r->key, text, word + 1);
    if (!s->local[0].e)
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: NumGroups, the launch's work-groups, "
                              "may be read in the Arguments' sizes and values, Flops, Bytes and "
                              "the Verification, not in the launch's own sizes or the Conditions",
                              r->key, text, word + 1);
    char *groups = groups_text(s, (unsigned)index);
    if (!groups || append_group(r, groups) != 0) {
        free(groups);
        return t1_kernel_fail(s, err, "out of memory");
    }
    free(groups);
    *at = (size_t)(end - text) + 1;
    return 0;
}

/* The tuning parameter of the name of len bytes at `name`, the last of
 * that name; NULL when there is none. */
static const param_def *param_named(const t1_kernel *s, const char *name, size_t len)
{
    const param_def *p = NULL;
    for (size_t k = 0; k < s->n_params && len > 0; k++)
        if (strlen(s->params[k].name) == len && strncmp(s->params[k].name, name, len) == 0)
            p = &s->params[k];
    return p;
}

/* The largest (is_max) or smallest of a numeric parameter's values. */
static skytune_value extreme_value(const param_def *p, bool is_max)
{
    skytune_value best = p->values[0];
    for (size_t k = 1; k < p->count; k++) {
        double v = p->type == SKYTUNE_FLOAT ? p->values[k].f : (double)p->values[k].i;
        double b = best.type == SKYTUNE_FLOAT ? best.f : (double)best.i;
        if (is_max ? v > b : v < b) best = p->values[k];
    }
    return best;
}

/* max(P) or min(P) at `word`, its '(' at `next`, as the largest or smallest
 * of P's values; *at: where the text goes on. */
static int rewrite_extreme(rewriting *r, bool is_max, size_t word, size_t next, size_t *at,
                           skytune_error *err)
{
    const t1_kernel *s = r->s;
    const char *text = r->text;
    size_t name_at = next + 1;
    while (isspace((unsigned char)text[name_at])) name_at++;
    size_t name_end = name_at;
    while (isalnum((unsigned char)text[name_end]) || text[name_end] == '_') name_end++;
    size_t close = name_end;
    while (isspace((unsigned char)text[close])) close++;
    const param_def *p = param_named(s, text + name_at, name_end - name_at);
    if (!p || text[close] != ')' || p->type == SKYTUNE_STRING) {
        char names[400];
        parameter_list(s, names, sizeof names);
        return t1_kernel_fail(s, err, "%s \"%s\": column %zu: %s() takes the name of a numeric "
                            "tuning parameter, %s(P) being the %s of P's values; the "
                            "tuning parameters are %s",
                    r->key, text, word + 1, is_max ? "max" : "min", is_max ? "max" : "min",
                    is_max ? "largest" : "smallest", names);
    }
    skytune_value best = extreme_value(p, is_max);
    char number[64];
    value_format(&best, number, sizeof number - 4);
    if (best.type == SKYTUNE_FLOAT && !strpbrk(number, ".eEn")) strcat(number, ".0");
    r->used += (size_t)snprintf(r->buf + r->used, r->capacity - r->used, "(%s)", number);
    *at = close + 1;
    return 0;
}

/* The name at *at: a T1 form rewritten, any other copied. */
static int rewrite_name(rewriting *r, size_t *at, skytune_error *err)
{
    const char *text = r->text;
    size_t word = *at, end = word;
    while (isalnum((unsigned char)text[end]) || text[end] == '_') end++;
    size_t word_len = end - word;
    size_t next = end;
    while (isspace((unsigned char)text[next])) next++;
    if (word_len == 11 && strncmp(text + word, "ProblemSize", 11) == 0)
        return rewrite_problem_size(r, word, next, at, err);
    bool is_max = word_len == 3 && strncmp(text + word, "max", 3) == 0;
    bool is_min = word_len == 3 && strncmp(text + word, "min", 3) == 0;
    if ((is_max || is_min) && text[next] == '(')
        return rewrite_extreme(r, is_max, word, next, at, err);
    if (word_len == 9 && strncmp(text + word, "NumGroups", 9) == 0)
        return rewrite_groups(r, word, next, at, err);
    /* A Define is its expression; one being compiled names nothing yet. */
    for (size_t k = 0; k < r->s->n_defines; k++) {
        const t1_define *d = &r->s->defines[k];
        if (d->value.e && strlen(d->name) == word_len &&
            strncmp(d->name, text + word, word_len) == 0) {
            *at = end;
            return append_group(r, d->value.text) == 0 ? 0
                                                       : t1_kernel_fail(r->s, err, "out of memory");
        }
    }
    memcpy(r->buf + r->used, text + word, word_len);
    r->used += word_len;
    *at = end;
    return 0;
}

int t1_rewrite(const t1_kernel *s, const char *key, const char *text, char **out,
                   skytune_error *err)
{
    size_t len = strlen(text);
    rewriting r = {.s = s, .key = key, .text = text, .capacity = len + 64};
    r.buf = malloc(r.capacity);
    if (!r.buf) return t1_kernel_fail(s, err, "out of memory");
    int rc = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        /* What one step appends: the longest name or number, or a word. */
        if (reserve(&r.buf, &r.capacity, r.used, 128 + (len - at)) != 0)
            rc = t1_kernel_fail(s, err, "out of memory");
        else if (text[at] == '\'' || text[at] == '"')
            at = copy_quoted(&r, at);
        else if (starts_name(text, at))
            rc = rewrite_name(&r, &at, err);
        else
            r.buf[r.used++] = text[at++];
    }
    if (rc != 0) {
        free(r.buf);
        return rc;
    }
    r.buf[r.used] = '\0';
    *out = r.buf;
    return 0;
}

static int resolve_name(void *ctx, const char *name, size_t len)
{
    const name_scope *scope = ctx;
    const t1_kernel *s = scope->spec;
    for (size_t k = 0; k < s->n_params; k++)
        if (strlen(s->params[k].name) == len && memcmp(s->params[k].name, name, len) == 0)
            return (int)k;
    for (size_t k = 0; k < s->n_problem; k++) {
        char problem[32];
        t1_problem_name(k, problem, sizeof problem);
        if (!s->problem_expr[k].e && strlen(problem) == len && memcmp(problem, name, len) == 0)
            return (int)(s->n_params + k);
    }
    for (size_t k = 0; k < scope->n_device; k++)
        if (strlen(scope->device_names[k]) == len && memcmp(scope->device_names[k], name, len) == 0)
            return (int)(s->n_params + s->n_problem + k);
    return -1;
}

/* Parse `text` (already rewritten) as the expression at `key`. */
int t1_parse_expression(const t1_kernel *s, const char *key, const char *written,
                            const char *text, const name_scope *scope, expr **out,
                            skytune_error *err)
{
    skytune_error why = {0};
    if (expr_parse(text, resolve_name, (void *)scope, out, &why) == 0) return 0;
    char names[400], shown[300] = "";
    parameter_list(s, names, sizeof names);
    if (strcmp(written, text) != 0) snprintf(shown, sizeof shown, " (read as \"%.200s\")", text);
    char problem[64] = "";
    if (s->n_problem)
        snprintf(problem, sizeof problem, ", ProblemSize[0] to ProblemSize[%zu]", s->n_problem - 1);
    return t1_kernel_fail(s, err, "%s \"%.200s\"%s: %s; the names are the tuning parameters (%s)%s, "
                        "max(P) and min(P) of a tuning parameter P%s",
                key, written, shown, why.message, names, problem,
                scope->device_names ? " and the device limits (device.max_work_group_size, "
                                      "device.local_mem_size, ...)"
                                    : "");
}

/* A string or integer of the file as a compiled expression. */
int t1_compile_expression(const t1_kernel *s, const char *key, const json_t *j, t1_expression *out,
                   skytune_error *err)
{
    memset(out, 0, sizeof *out);
    out->key = strdup(key);
    if (!out->key) return t1_kernel_fail(s, err, "out of memory");
    char written[64];
    const char *text = written;
    if (json_is_integer(j))
        snprintf(written, sizeof written, "%lld", (long long)json_integer_value(j));
    else if (json_is_real(j))
        snprintf(written, sizeof written, "%.17g", json_real_value(j));
    else if (json_is_string(j))
        text = json_string_value(j);
    else
        return t1_kernel_fail(s, err, "%s must be an expression (a string such as \"block_size_x * 2\") "
                            "or an integer", key);
    if (t1_rewrite(s, key, text, &out->text, err) != 0) return -1;
    name_scope scope = {.spec = s};
    if (t1_parse_expression(s, key, text, out->text, &scope, &out->e, err) != 0) return -1;
    size_t n;
    const int *slots = expr_slots(out->e, &n);
    for (size_t k = 0; k < n; k++)
        if ((size_t)slots[k] < s->n_params) out->reads_config = true;
    return 0;
}

void t1_expression_free(t1_expression *x)
{
    expr_free(x->e);
    free(x->key);
    free(x->text);
    memset(x, 0, sizeof *x);
}

void t1_kernel_slots(const t1_kernel *s, const skytune_values *problem, const skytune_values *config,
                   expr_value *slots)
{
    for (size_t k = 0; k < s->n_params; k++) {
        const skytune_value *v = config ? skytune_values_find(config, s->params[k].name) : NULL;
        slots[k] = v ? value_to_expr(v) : (expr_value){.kind = EXPR_INT};
    }
    for (size_t k = 0; k < s->n_problem; k++) {
        char name[32];
        t1_problem_name(k, name, sizeof name);
        const skytune_value *v = problem ? skytune_values_find(problem, name) : NULL;
        slots[s->n_params + k] =
            (expr_value){.kind = EXPR_INT, .i = v ? v->i : s->problem_size[k]};
    }
}

int t1_expression_integer(const t1_kernel *s, const t1_expression *x, const expr_value *slots,
                          int64_t minimum, int64_t *out, skytune_error *err)
{
    expr_value v;
    skytune_error why = {0};
    if (expr_eval(x->e, slots, &v, &why) != 0)
        return t1_kernel_fail(s, err, "%s \"%s\": %s", x->key, x->text, why.message);
    double d = v.kind == EXPR_INT ? (double)v.i : v.kind == EXPR_FLOAT ? v.f : NAN;
    if (v.kind == EXPR_FLOAT && (d != floor(d) || fabs(d) > 9e15))
        return t1_kernel_fail(s, err, "%s \"%s\" is %.17g here, not a whole number", x->key, x->text, d);
    if (v.kind == EXPR_STRING)
        return t1_kernel_fail(s, err, "%s \"%s\" is a string here, not a number", x->key, x->text);
    int64_t i = v.kind == EXPR_INT ? v.i : (int64_t)d;
    if (i < minimum)
        return t1_kernel_fail(s, err, "%s \"%s\" is %lld here; it must be at least %lld", x->key, x->text,
                    (long long)i, (long long)minimum);
    *out = i;
    return 0;
}

int t1_problem_extent(const t1_kernel *s, unsigned d, const expr_value *slots, int64_t *out,
                      skytune_error *err)
{
    if (s->problem_expr[d].e) return t1_expression_integer(s, &s->problem_expr[d], slots, 1, out, err);
    *out = slots[s->n_params + d].i;
    return 0;
}
