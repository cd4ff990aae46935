/* A Python list expression, evaluated without Python (python_values.h).
 *
 * Two levels. The list level — literals, range(), list(), comprehensions,
 * + and * on lists — is parsed here into a small tree. Every scalar inside
 * it (an item, a range bound, a comprehension's element or condition) is
 * handed to the constraint language's parser (expr.h), with the variables
 * of the enclosing comprehensions as its slots: arithmetic and comparisons
 * mean exactly what they mean in constraints, and are written once.
 *
 * A scalar's extent is found by scanning to the first ',', ')', ']', `for`
 * or `if` outside brackets and strings. Before it is parsed, the extent is
 * checked for constructs outside the subset (calls, indexing, literals of
 * other containers, lambdas, ...), so that the message names the construct
 * instead of the parser's first surprise. The scalar is parsed from a copy
 * of the whole text with everything outside the extent blanked, so the
 * columns in its messages are the columns of the original text. */
#include "python_values.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "value.h"

/* Comprehensions nest their `for` variables; lists nest their parts. */
#define MAX_VARIABLES 16
#define MAX_NESTING 32

/* ------------------------------------------------------------ the tree */

typedef enum node_kind {
    NODE_ITEMS,    /* a list literal or tuple: scalars */
    NODE_RANGE,    /* range(a[, b[, c]]) */
    NODE_LIST,     /* list(x) */
    NODE_CONCAT,   /* a + b */
    NODE_REPEAT,   /* a * n (or n * a) */
    NODE_COMPREHENSION
} node_kind;

typedef struct clause {
    bool is_for;
    int variable;              /* is_for: its slot */
    struct node *iterable;     /* is_for */
    expr *condition;           /* !is_for */
} clause;

typedef struct node {
    node_kind kind;
    size_t column;             /* 1-based, for messages */
    expr **scalars;            /* ITEMS: items; RANGE: bounds; REPEAT: [0] the count;
                                  COMPREHENSION: [0] the element */
    size_t n_scalars;
    struct node *left, *right; /* LIST, REPEAT: left; CONCAT: both */
    clause *clauses;           /* COMPREHENSION */
    size_t n_clauses;
} node;

static void node_free(node *n)
{
    if (!n) return;
    for (size_t k = 0; k < n->n_scalars; k++) expr_free(n->scalars[k]);
    free(n->scalars);
    for (size_t k = 0; k < n->n_clauses; k++) {
        node_free(n->clauses[k].iterable);
        expr_free(n->clauses[k].condition);
    }
    free(n->clauses);
    node_free(n->left);
    node_free(n->right);
    free(n);
}

/* ------------------------------------------------------------ parsing */

typedef struct parser {
    const char *text;
    size_t at;
    size_t depth;                          /* nesting of list-level parts */
    const char *variables[MAX_VARIABLES];  /* in scope, innermost last */
    size_t variable_len[MAX_VARIABLES];
    size_t n_variables;
    size_t n_slots;                        /* variables ever declared */
    int slot_of[MAX_VARIABLES];            /* the slot of each variable in scope */
    skytune_error *err;
} parser;

#define SUBSET_HELP                                                                               \
    "skytune reads list literals, range(), list(), list comprehensions, + and * on lists, and "  \
    "arithmetic, comparisons and and/or/not on numbers and strings"

static int fail_at(parser *p, size_t at, const char *fmt, const char *what)
{
    char text[400];
    snprintf(text, sizeof text, fmt, what);
    return err_set(p->err, "column %zu: %s", at + 1, text);
}

static void skip_spaces(parser *p)
{
    while (isspace((unsigned char)p->text[p->at])) p->at++;
}

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The word at `at`, if it is exactly `word` (not a prefix of a name). */
static bool word_at(const char *text, size_t at, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(text + at, word, n) != 0 || is_name_char(text[at + n])) return false;
    return at == 0 || !is_name_char(text[at - 1]);
}

static bool accept_word(parser *p, const char *word)
{
    skip_spaces(p);
    if (!word_at(p->text, p->at, word)) return false;
    p->at += strlen(word);
    return true;
}

static bool accept_char(parser *p, char c)
{
    skip_spaces(p);
    if (p->text[p->at] != c) return false;
    p->at++;
    return true;
}

/* Past a quoted string starting at `at`; the end of the text if unclosed
 * (the scalar parser then reports it). */
static size_t skip_string(const char *text, size_t at)
{
    char quote = text[at++];
    while (text[at] && text[at] != quote) at += text[at] == '\\' && text[at + 1] ? 2 : 1;
    return text[at] ? at + 1 : at;
}

/* Words of Python that open a construct outside the subset. */
static const char *const foreign_words[] = {
    "lambda", "import", "def", "class", "yield", "await", "async", "del", "global",
    "nonlocal", "with", "assert", "raise", "try", "while", "return", "pass", "print",
    "is", "else", "in", "None",
};

/* Check a scalar's extent [start, end) for what the constraint language
 * would misread, and name the construct. */
static int check_scalar(parser *p, size_t start, size_t end)
{
    const char *t = p->text;
    for (size_t at = start; at < end;) {
        char c = t[at];
        if (c == '\'' || c == '"') {
            at = skip_string(t, at);
            continue;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            size_t word = at;
            while (at < end && is_name_char(t[at])) at++;
            size_t len = at - word;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), t + word);
            for (size_t k = 0; k < sizeof foreign_words / sizeof foreign_words[0]; k++)
                if (strcmp(name, foreign_words[k]) == 0)
                    return fail_at(p, word,
                                   strcmp(name, "in") == 0 || strcmp(name, "is") == 0
                                       ? "a membership or identity test ('%s') is outside "
                                         "the subset; " SUBSET_HELP
                                       : "'%s' is outside the subset; " SUBSET_HELP,
                                   name);
            size_t next = at;
            while (next < end && isspace((unsigned char)t[next])) next++;
            if (next < end && t[next] == '(')
                return fail_at(p, word,
                               "a call of '%s()' is outside the subset: only range() and "
                               "list() make lists, at the level of lists; " SUBSET_HELP,
                               name);
            if (next < end && t[next] == '.' && !isdigit((unsigned char)t[next + 1]))
                return fail_at(p, word,
                               "attribute access ('%s.') is outside the subset; " SUBSET_HELP,
                               name);
            continue;
        }
        if (isdigit((unsigned char)c)) {
            /* A number, with its exponent's sign: 1e-3 is one token. */
            while (at < end && (is_name_char(t[at]) || t[at] == '.' ||
                                ((t[at] == '-' || t[at] == '+') && (t[at - 1] == 'e' || t[at - 1] == 'E'))))
                at++;
            continue;
        }
        if (c == '[')
            return fail_at(p, at, "%s", "a list or an index inside a value is outside the subset "
                                        "(lists may only be joined with + and repeated with *); "
                                        SUBSET_HELP);
        if (c == '{')
            return fail_at(p, at, "%s", "a dict or set is outside the subset; " SUBSET_HELP);
        if (c == ':')
            return fail_at(p, at, "%s", "':' (a slice, a lambda or a dict) is outside the "
                                        "subset; " SUBSET_HELP);
        if (c == '*' && t[at + 1] != '*' && (at == start || strchr("(,[", t[at - 1]))) 
            return fail_at(p, at, "%s", "unpacking with '*' is outside the subset; " SUBSET_HELP);
        at++;
    }
    return 0;
}

/* Where the scalar starting at p->at ends: the first ',', ')' or ']' at
 * depth 0, or `for` / `if` at depth 0 when they may follow. */
static size_t scalar_end(const parser *p, bool stop_at_keywords)
{
    const char *t = p->text;
    size_t at = p->at;
    int depth = 0;
    while (t[at]) {
        char c = t[at];
        if (c == '\'' || c == '"') {
            at = skip_string(t, at);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') {
            if (depth == 0) break;
            depth--;
        }
        if (depth == 0 && c == ',') break;
        if (depth == 0 && stop_at_keywords && (word_at(t, at, "for") || word_at(t, at, "if")))
            break;
        at++;
    }
    while (at > p->at && isspace((unsigned char)t[at - 1])) at--;
    return at;
}

static int resolve_variable(void *ctx, const char *name, size_t len)
{
    const parser *p = ctx;
    for (size_t k = p->n_variables; k-- > 0;)
        if (p->variable_len[k] == len && memcmp(p->variables[k], name, len) == 0)
            return p->slot_of[k];
    return -1;
}

/* Parse the scalar at p->at into *out. */
static int parse_scalar(parser *p, bool stop_at_keywords, const char *what, expr **out)
{
    skip_spaces(p);
    size_t start = p->at, end = scalar_end(p, stop_at_keywords);
    if (end == start) return fail_at(p, start, "expected %s", what);
    if (check_scalar(p, start, end) != 0) return -1;
    skytune_error why = {0};
    if (expr_parse_span(p->text + start, end - start, start, resolve_variable, p, out, &why) != 0)
        return err_set(p->err, "%s", why.message);
    p->at = end;
    return 0;
}

static int push_scalar(parser *p, node *n, expr *e)
{
    expr **grown = realloc(n->scalars, (n->n_scalars + 1) * sizeof *grown);
    if (!grown) {
        expr_free(e);
        return err_set(p->err, "out of memory");
    }
    n->scalars = grown;
    n->scalars[n->n_scalars++] = e;
    return 0;
}

static node *new_node(parser *p, node_kind kind, size_t at)
{
    node *n = calloc(1, sizeof *n);
    if (!n) {
        err_set(p->err, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->column = at + 1;
    return n;
}

static int parse_list_expr(parser *p, node **out);

/* Scalars separated by commas up to `close` (a trailing comma allowed). */
static int parse_items(parser *p, node *n, char close)
{
    for (;;) {
        if (accept_char(p, close)) return 0;
        expr *e;
        if (parse_scalar(p, false, "a value", &e) != 0 || push_scalar(p, n, e) != 0) return -1;
        if (accept_char(p, ',')) continue;
        if (accept_char(p, close)) return 0;
        return fail_at(p, p->at, "expected ',' or '%s' after a value", close == ']' ? "]" : ")");
    }
}

static int declare_variable(parser *p, size_t at, size_t len)
{
    if (p->n_variables == MAX_VARIABLES || p->n_slots == MAX_VARIABLES)
        return fail_at(p, at, "more than %s comprehension variables", "16");
    p->variables[p->n_variables] = p->text + at;
    p->variable_len[p->n_variables] = len;
    p->slot_of[p->n_variables] = (int)p->n_slots++;
    p->n_variables++;
    return 0;
}

/* After "[ELEMENT": the clauses, then the element, parsed last because it
 * reads the clauses' variables. p->at is at the first `for`. */
static int parse_comprehension(parser *p, node *n, size_t element_at)
{
    size_t scope = p->n_variables;
    int rc = 0;
    while (rc == 0) {
        skip_spaces(p);
        size_t at = p->at;
        if (accept_word(p, "for")) {
            skip_spaces(p);
            size_t name_at = p->at;
            while (is_name_char(p->text[p->at])) p->at++;
            size_t len = p->at - name_at;
            if (len == 0 || isdigit((unsigned char)p->text[name_at])) {
                rc = fail_at(p, name_at, "%s", "expected a variable name after 'for' (one name: "
                                                "unpacking 'for a, b in ...' is outside the "
                                                "subset)");
                break;
            }
            skip_spaces(p);
            if (p->text[p->at] == ',') {
                rc = fail_at(p, p->at, "%s", "unpacking 'for a, b in ...' is outside the subset; "
                                               SUBSET_HELP);
                break;
            }
            if (!accept_word(p, "in")) {
                rc = fail_at(p, p->at, "%s", "expected 'in' after the variable of 'for'");
                break;
            }
            clause c = {.is_for = true};
            /* The iterable sees only the variables of earlier clauses. */
            rc = parse_list_expr(p, &c.iterable);
            if (rc == 0) rc = declare_variable(p, name_at, len);
            if (rc == 0) c.variable = p->slot_of[p->n_variables - 1];
            clause *grown = rc == 0 ? realloc(n->clauses, (n->n_clauses + 1) * sizeof *grown) : NULL;
            if (rc == 0 && !grown) rc = err_set(p->err, "out of memory");
            if (rc != 0) {
                node_free(c.iterable);
                break;
            }
            n->clauses = grown;
            n->clauses[n->n_clauses++] = c;
        } else if (accept_word(p, "if")) {
            if (n->n_clauses == 0) {
                rc = fail_at(p, at, "%s", "a comprehension starts with 'for'");
                break;
            }
            clause c = {.is_for = false};
            rc = parse_scalar(p, true, "a condition after 'if'", &c.condition);
            clause *grown = rc == 0 ? realloc(n->clauses, (n->n_clauses + 1) * sizeof *grown) : NULL;
            if (rc == 0 && !grown) rc = err_set(p->err, "out of memory");
            if (rc != 0) {
                expr_free(c.condition);
                break;
            }
            n->clauses = grown;
            n->clauses[n->n_clauses++] = c;
        } else if (accept_char(p, ']')) {
            size_t after = p->at;
            p->at = element_at;
            expr *element;
            rc = parse_scalar(p, true, "the element of the comprehension", &element);
            if (rc == 0) rc = push_scalar(p, n, element);
            p->at = after;
            break;
        } else {
            rc = fail_at(p, p->at, "%s", "expected 'for', 'if' or ']' in the comprehension");
        }
    }
    p->n_variables = scope;
    return rc;
}

/* '[' ... ']': a literal or a comprehension. */
static int parse_brackets(parser *p, node **out)
{
    size_t open = p->at++;
    skip_spaces(p);
    size_t element_at = p->at;
    /* A comprehension's element ends at its first `for`. */
    size_t end = p->text[p->at] == ']' ? p->at : scalar_end(p, true);
    size_t next = end;
    while (isspace((unsigned char)p->text[next])) next++;
    bool comprehension = word_at(p->text, next, "for");
    node *n = new_node(p, comprehension ? NODE_COMPREHENSION : NODE_ITEMS, open);
    if (!n) return -1;
    int rc;
    if (comprehension) {
        if (end == element_at) {
            node_free(n);
            return fail_at(p, end, "%s", "expected the element of the comprehension before 'for'");
        }
        p->at = next;
        rc = parse_comprehension(p, n, element_at);
    } else {
        rc = parse_items(p, n, ']');
    }
    if (rc != 0) {
        node_free(n);
        return -1;
    }
    *out = n;
    return 0;
}

/* range( ... ) or list( ... ), p->at past the name. */
static int parse_call(parser *p, bool is_range, size_t name_at, node **out)
{
    if (!accept_char(p, '('))
        return fail_at(p, p->at, "expected '(' after '%s'", is_range ? "range" : "list");
    node *n = new_node(p, is_range ? NODE_RANGE : NODE_LIST, name_at);
    if (!n) return -1;
    int rc = is_range ? parse_items(p, n, ')') : parse_list_expr(p, &n->left);
    if (rc == 0 && !is_range && !accept_char(p, ')'))
        rc = fail_at(p, p->at, "%s", "list() takes one list; expected ')'");
    if (rc == 0 && is_range && (n->n_scalars < 1 || n->n_scalars > 3))
        rc = fail_at(p, name_at, "%s", "range() takes 1 to 3 integers: range(stop), "
                                       "range(start, stop) or range(start, stop, step)");
    if (rc != 0) {
        node_free(n);
        return -1;
    }
    *out = n;
    return 0;
}

/* One list: brackets, a tuple, a parenthesised list expression, or a call. */
static int parse_list_atom(parser *p, node **out)
{
    skip_spaces(p);
    size_t at = p->at;
    char c = p->text[at];
    if (c == '[') return parse_brackets(p, out);
    if (word_at(p->text, at, "range")) {
        p->at += 5;
        return parse_call(p, true, at, out);
    }
    if (word_at(p->text, at, "list")) {
        p->at += 4;
        return parse_call(p, false, at, out);
    }
    if (c == '(') {
        p->at++;
        skip_spaces(p);
        const char *inner = p->text + p->at;
        if (*inner == '[' || *inner == '(' || word_at(p->text, p->at, "range") ||
            word_at(p->text, p->at, "list")) {
            if (parse_list_expr(p, out) != 0) return -1;
            if (accept_char(p, ')')) return 0;
            node_free(*out);
            *out = NULL;
            return fail_at(p, p->at, "%s", "expected ')'");
        }
        node *n = new_node(p, NODE_ITEMS, at);
        if (!n) return -1;
        if (parse_items(p, n, ')') != 0) {
            node_free(n);
            return -1;
        }
        *out = n;
        return 0;
    }
    if (c == '\0') return fail_at(p, at, "%s", "expected a list such as \"[16, 32, 64]\"");
    if (c == '{') return fail_at(p, at, "%s", "a dict or set is not a list of values; " SUBSET_HELP);
    if (isalpha((unsigned char)c) || c == '_') {
        size_t end = at;
        while (is_name_char(p->text[end])) end++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(end - at < 60 ? end - at : 60), p->text + at);
        return fail_at(p, at, "'%s' does not make a list: only list literals, range(), list() "
                              "and comprehensions do", name);
    }
    return fail_at(p, at, "%s", "expected a list such as \"[16, 32, 64]\", range(...) or a "
                                "comprehension");
}

/* A repetition count: an integer scalar up to the next '+', ')', ']', ',',
 * `for` or `if`. Only literal digits and names are read here; the count's
 * value comes from the constraint language like every scalar. */
static int parse_count(parser *p, node **list)
{
    node *n = new_node(p, NODE_REPEAT, p->at);
    if (!n) return -1;
    n->left = *list;
    *list = n;
    skip_spaces(p);
    size_t start = p->at, end = start;
    while (p->text[end] && (is_name_char(p->text[end]) || isspace((unsigned char)p->text[end])))
        end++;
    while (end > start && isspace((unsigned char)p->text[end - 1])) end--;
    if (end == start) return fail_at(p, start, "%s", "expected a count after '*'");
    expr *e = NULL;
    skytune_error why = {0};
    if (expr_parse_span(p->text + start, end - start, start, resolve_variable, p, &e, &why) != 0)
        return err_set(p->err, "%s", why.message);
    p->at = end;
    return push_scalar(p, n, e);
}

/* list_term ('+' list_term)*, list_term := list_atom ('*' count)? */
static int parse_list_expr(parser *p, node **out)
{
    *out = NULL;
    if (++p->depth > MAX_NESTING) {
        p->depth--;
        return fail_at(p, p->at, "%s", "lists nested more than 32 deep");
    }
    int rc = parse_list_atom(p, out);
    while (rc == 0) {
        skip_spaces(p);
        char c = p->text[p->at];
        if (c == '*' && p->text[p->at + 1] != '*') {
            p->at++;
            rc = parse_count(p, out);
        } else if (c == '+') {
            size_t at = p->at++;
            node *sum = new_node(p, NODE_CONCAT, at);
            if (!sum) {
                rc = -1;
                break;
            }
            sum->left = *out;
            *out = sum;
            rc = parse_list_atom(p, &sum->right);
        } else {
            break;
        }
    }
    p->depth--;
    if (rc != 0) {
        node_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------ evaluation */

typedef struct list {
    skytune_value *items;
    size_t count, capacity;
} list;

typedef struct evaluator {
    expr_value slots[MAX_VARIABLES];
    size_t steps;
    skytune_error *err;
} evaluator;

static void list_free(list *l)
{
    python_values_free(l->items, l->count);
    memset(l, 0, sizeof *l);
}

static int list_reserve(evaluator *ev, list *l, size_t more, size_t column)
{
    if (more > PYTHON_VALUES_MAX_ITEMS - l->count)
        return err_set(ev->err, "column %zu: the list would have more than %u items", column,
                       PYTHON_VALUES_MAX_ITEMS);
    size_t need = l->count + more;
    if (need <= l->capacity) return 0;
    size_t capacity = l->capacity ? l->capacity : 16;
    while (capacity < need) capacity *= 2;
    skytune_value *grown = realloc(l->items, capacity * sizeof *grown);
    if (!grown) return err_set(ev->err, "out of memory");
    l->items = grown;
    l->capacity = capacity;
    return 0;
}

/* Append a copy of v (its string duplicated). */
static int list_push(evaluator *ev, list *l, const skytune_value *v, size_t column)
{
    if (list_reserve(ev, l, 1, column) != 0) return -1;
    if (value_copy(&l->items[l->count], v) != 0) return err_set(ev->err, "out of memory");
    l->count++;
    return 0;
}

static int eval_scalar(evaluator *ev, const expr *e, skytune_value *out)
{
    expr_value r;
    if (expr_eval(e, ev->slots, &r, ev->err) != 0) return -1;
    memset(out, 0, sizeof *out);
    switch (r.kind) {
    case EXPR_INT: out->type = SKYTUNE_INT; out->i = r.i; break;
    case EXPR_FLOAT: out->type = SKYTUNE_FLOAT; out->f = r.f; break;
    case EXPR_STRING: out->type = SKYTUNE_STRING; out->s = r.s; break; /* borrowed */
    }
    return 0;
}

static int eval_integer(evaluator *ev, const expr *e, const char *what, int64_t *out)
{
    skytune_value v;
    if (eval_scalar(ev, e, &v) != 0) return -1;
    if (v.type != SKYTUNE_INT) {
        const char *text = expr_text(e);
        size_t len = strlen(text);
        return err_set(ev->err, "column %zu: %s '%.*s' is not an integer", expr_first_column(e),
                       what, (int)(len < 200 ? len : 200), text);
    }
    *out = v.i;
    return 0;
}

static int eval_node(evaluator *ev, const node *n, list *out);

static int eval_range(evaluator *ev, const node *n, list *out)
{
    int64_t bound[3] = {0, 0, 1};
    for (size_t k = 0; k < n->n_scalars; k++)
        if (eval_integer(ev, n->scalars[k], "range() takes integers;", &bound[k]) != 0) return -1;
    int64_t start = n->n_scalars == 1 ? 0 : bound[0];
    int64_t stop = n->n_scalars == 1 ? bound[0] : bound[1];
    int64_t step = n->n_scalars == 3 ? bound[2] : 1;
    if (step == 0)
        return err_set(ev->err, "column %zu: range() arg 3 must not be zero", n->column);
    /* The count in unsigned arithmetic: stop - start may exceed INT64_MAX. */
    uint64_t span, stride = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
    if (step > 0 ? start >= stop : start <= stop) return 0;
    span = step > 0 ? (uint64_t)stop - (uint64_t)start : (uint64_t)start - (uint64_t)stop;
    uint64_t count = (span - 1) / stride + 1;
    if (count > PYTHON_VALUES_MAX_ITEMS)
        return err_set(ev->err, "column %zu: range() of %llu items; a list holds at most %u",
                       n->column, (unsigned long long)count, PYTHON_VALUES_MAX_ITEMS);
    if (list_reserve(ev, out, (size_t)count, n->column) != 0) return -1;
    for (uint64_t k = 0; k < count; k++) {
        skytune_value v = {.type = SKYTUNE_INT,
                           .i = (int64_t)((uint64_t)start + k * (uint64_t)step)};
        out->items[out->count++] = v;
    }
    return 0;
}

/* The clauses from `k` on, for the current bindings; the element is added
 * when every clause has passed. */
static int eval_clauses(evaluator *ev, const node *n, size_t k, list *out)
{
    if (k == n->n_clauses) {
        skytune_value v;
        if (eval_scalar(ev, n->scalars[0], &v) != 0) return -1;
        return list_push(ev, out, &v, n->column);
    }
    const clause *c = &n->clauses[k];
    if (!c->is_for) {
        skytune_value v;
        if (eval_scalar(ev, c->condition, &v) != 0) return -1;
        bool truth = v.type == SKYTUNE_INT ? v.i != 0
                     : v.type == SKYTUNE_FLOAT ? v.f != 0.0
                                               : v.s && v.s[0];
        return truth ? eval_clauses(ev, n, k + 1, out) : 0;
    }
    list values = {0};
    if (eval_node(ev, c->iterable, &values) != 0) {
        list_free(&values);
        return -1;
    }
    int rc = 0;
    for (size_t j = 0; j < values.count && rc == 0; j++) {
        if (++ev->steps > PYTHON_VALUES_MAX_STEPS) {
            rc = err_set(ev->err, "column %zu: the comprehension takes more than %u steps",
                         n->column, PYTHON_VALUES_MAX_STEPS);
            break;
        }
        ev->slots[c->variable] = value_to_expr(&values.items[j]);
        rc = eval_clauses(ev, n, k + 1, out);
    }
    list_free(&values);
    return rc;
}

static int eval_node(evaluator *ev, const node *n, list *out)
{
    switch (n->kind) {
    case NODE_ITEMS:
        for (size_t k = 0; k < n->n_scalars; k++) {
            skytune_value v;
            if (eval_scalar(ev, n->scalars[k], &v) != 0 || list_push(ev, out, &v, n->column) != 0)
                return -1;
        }
        return 0;
    case NODE_RANGE:
        return eval_range(ev, n, out);
    case NODE_LIST:
        return eval_node(ev, n->left, out);
    case NODE_CONCAT:
        return eval_node(ev, n->left, out) != 0 ? -1 : eval_node(ev, n->right, out);
    case NODE_REPEAT: {
        int64_t times;
        if (eval_integer(ev, n->scalars[0], "a list is repeated by an integer;", &times) != 0)
            return -1;
        size_t first = out->count;
        if (eval_node(ev, n->left, out) != 0) return -1;
        size_t once = out->count - first;
        for (int64_t t = 1; t < times && once > 0; t++) {
            if (list_reserve(ev, out, once, n->column) != 0) return -1;
            for (size_t k = 0; k < once; k++)
                if (list_push(ev, out, &out->items[first + k], n->column) != 0) return -1;
        }
        if (times <= 0) { /* [x] * 0 is empty, as in Python */
            for (size_t k = first; k < out->count; k++) value_clear(&out->items[k]);
            out->count = first;
        }
        return 0;
    }
    case NODE_COMPREHENSION:
        return eval_clauses(ev, n, 0, out);
    }
    return err_set(ev->err, "column %zu: cannot evaluate this", n->column);
}

/* ------------------------------------------------------------ entry */

int python_values_eval(const char *text, skytune_value **values, size_t *count,
                       skytune_error *err)
{
    *values = NULL;
    *count = 0;
    parser p = {.text = text, .err = err};
    node *root = NULL;
    int rc = parse_list_expr(&p, &root);
    if (rc == 0) {
        skip_spaces(&p);
        if (text[p.at])
            rc = fail_at(&p, p.at, "%s", "unexpected text after the list (a list may be joined "
                                         "to another with '+' or repeated with '*')");
    }
    if (rc != 0) {
        node_free(root);
        return -1;
    }
    evaluator ev = {.err = err};
    list out = {0};
    rc = eval_node(&ev, root, &out);
    node_free(root);
    if (rc != 0) {
        list_free(&out);
        return -1;
    }
    *values = out.items;
    *count = out.count;
    return 0;
}

void python_values_free(skytune_value *values, size_t count)
{
    for (size_t k = 0; values && k < count; k++) value_clear(&values[k]);
    free(values);
}
