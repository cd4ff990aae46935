#include "sweep_values.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* A number as a progression sees it: whole when the text is one. */
typedef struct number {
    bool whole;
    long long i;
    double d;
} number;

static bool parse_number(const char *text, number *out)
{
    char *end;
    errno = 0;
    long long i = strtoll(text, &end, 10);
    if (end != text && *end == '\0' && errno == 0) {
        *out = (number){true, i, (double)i};
        return true;
    }
    errno = 0;
    double d = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(d)) return false;
    *out = (number){false, 0, d};
    return true;
}

void sweep_builder_init(sweep_builder *b)
{
    memset(b, 0, sizeof *b);
}

void sweep_builder_free(sweep_builder *b)
{
    for (size_t k = 0; k < b->count; k++) free(b->values[k].text);
    free(b->values);
    free(b->seen);
    memset(b, 0, sizeof *b);
}

located_text *sweep_builder_take(sweep_builder *b, size_t *count)
{
    located_text *v = b->values;
    *count = b->count;
    if (!v) v = calloc(1, sizeof *v);
    b->values = NULL;
    b->count = b->cap = 0;
    free(b->seen);
    b->seen = NULL;
    b->seen_cap = 0;
    return v;
}

/* The slot of `text` in b->seen: where it is, or the empty slot where it
 * would go. */
static size_t seen_slot(const sweep_builder *b, const char *text)
{
    size_t mask = b->seen_cap - 1;
    size_t k = (size_t)hash_fnv1a(HASH_FNV1A_OFFSET, text, strlen(text)) & mask;
    while (b->seen[k] && strcmp(b->values[b->seen[k] - 1].text, text) != 0) k = (k + 1) & mask;
    return k;
}

/* Room for one more value in b->seen, kept at most half full. */
static int seen_reserve(sweep_builder *b, skytune_error *err)
{
    if (2 * (b->count + 1) <= b->seen_cap) return 0;
    size_t cap = b->seen_cap ? 2 * b->seen_cap : 64;
    size_t *old = b->seen;
    b->seen = calloc(cap, sizeof *b->seen);
    if (!b->seen) {
        b->seen = old;
        return err_set(err, "out of memory");
    }
    b->seen_cap = cap;
    for (size_t k = 0; k < b->count; k++) b->seen[seen_slot(b, b->values[k].text)] = k + 1;
    free(old);
    return 0;
}

static int push(sweep_builder *b, const char *text, int line, skytune_error *err)
{
    if (seen_reserve(b, err) != 0) return -1;
    size_t slot = seen_slot(b, text);
    if (b->seen[slot])
        return err_set(err, "value '%s' is swept twice: each instance would run twice", text);
    if (b->count >= SWEEP_MAX_VALUES)
        return err_set(err, "more than %d values in one sweep", SWEEP_MAX_VALUES);
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        located_text *grown = realloc(b->values, cap * sizeof *grown);
        if (!grown) return err_set(err, "out of memory");
        b->values = grown;
        b->cap = cap;
    }
    char *copy = strdup(text);
    if (!copy) return err_set(err, "out of memory");
    b->values[b->count++] = (located_text){copy, line};
    b->seen[slot] = b->count;
    return 0;
}

static int push_number(sweep_builder *b, const number *n, int line, skytune_error *err)
{
    char text[64];
    if (n->whole)
        snprintf(text, sizeof text, "%lld", n->i);
    else
        snprintf(text, sizeof text, "%.15g", n->d);
    /* Repeated terms of a progression are a duplicate only if the user
     * wrote them; a generated duplicate cannot happen (strictly monotonic). */
    return push(b, text, line, err);
}

/* Terms from `first` by `by` (added, or multiplied) up to `last`: with
 * exact_end the last term must equal `last`. Terms already in the list
 * (those given before "...") are not pushed again: start_after is how many
 * terms to skip. */
static int progression(sweep_builder *b, number first, number by, bool multiply, number last,
                       bool exact_end, size_t skip, int line, const char *shown,
                       skytune_error *err)
{
    bool whole = first.whole && by.whole && last.whole;
    if (multiply ? !(fabs(by.d) > 1.0) : (whole ? by.i == 0 : by.d == 0.0))
        return err_set(err, "%s never reaches its last value: the %s must %s", shown,
                       multiply ? "ratio" : "step",
                       multiply ? "be larger than 1 (in size)" : "not be 0");
    if (multiply && !(first.d != 0.0))
        return err_set(err, "%s starts at 0: a geometric progression cannot", shown);
    /* Going the right way at all? */
    bool away = multiply ? (last.d / first.d <= 0 || fabs(last.d) < fabs(first.d))
                : whole  ? (by.i > 0 ? last.i < first.i : last.i > first.i)
                         : (last.d - first.d) * by.d < 0;
    if (away) return err_set(err, "%s moves away from its last value %.15g", shown, last.d);
    number t = first;
    for (size_t k = 0;; k++) {
        bool past = whole ? (multiply ? llabs(t.i) > llabs(last.i)
                             : by.i > 0 ? t.i > last.i
                                        : t.i < last.i)
                    : multiply ? fabs(t.d) > fabs(last.d) * (1 + 1e-12)
                    : by.d > 0 ? t.d > last.d + fabs(by.d) * 1e-9
                               : t.d < last.d - fabs(by.d) * 1e-9;
        if (past) {
            if (exact_end)
                return err_set(err,
                               "%.15g is not a term of %s: the nearest terms are %.15g and %.15g",
                               last.d, shown, multiply ? t.d / by.d : t.d - by.d, t.d);
            return 0;
        }
        bool at_end = whole ? t.i == last.i
                            : fabs(t.d - last.d) <= 1e-9 * fmax(fabs(last.d), 1e-300);
        if (at_end && !whole) t.d = last.d;
        if (k >= skip && push_number(b, &t, line, err) != 0) return -1;
        if (at_end) return 0;
        if (b->count >= SWEEP_MAX_VALUES)
            return err_set(err, "%s has more than %d terms", shown, SWEEP_MAX_VALUES);
        if (whole) {
            long long next;
            if (multiply ? __builtin_mul_overflow(t.i, by.i, &next)
                         : __builtin_add_overflow(t.i, by.i, &next))
                return err_set(err, "%s overflows a 64-bit integer", shown);
            t.i = next;
            t.d = (double)next;
        } else {
            t.d = multiply ? t.d * by.d : t.d + by.d;
            t.whole = false;
        }
    }
}

/* How many steps of `step` from a reach last (1 or more); 0 when none
 * does: last is no term of the arithmetic reading. */
static long long arithmetic_steps(number a, number c, number last)
{
    bool whole = a.whole && c.whole && last.whole;
    if (whole) {
        long long step = c.i - a.i, span;
        if (step == 0 || __builtin_sub_overflow(last.i, a.i, &span) || span % step != 0)
            return 0;
        return span / step >= 1 ? span / step : 0;
    }
    double step = c.d - a.d;
    if (step == 0.0) return 0;
    double q = (last.d - a.d) / step, k = round(q);
    return k >= 1 && fabs(q - k) <= 1e-9 * fmax(1.0, fabs(k)) ? (long long)k : 0;
}

/* Whether last is a term of the geometric reading of a, c, ... (a ratio
 * above 1, whole for whole numbers), and past c: *ratio is the ratio and
 * *steps how many times a is multiplied to reach last. */
static bool geometric_reading(number a, number c, number last, number *ratio, long long *steps)
{
    bool whole = a.whole && c.whole && last.whole;
    if (a.d == 0.0 || !(c.d / a.d > 1.0) || !(last.d / a.d > 0.0)) return false;
    if (whole) {
        if (c.i % a.i != 0) return false;
        long long r = c.i / a.i, t = c.i, k = 1;
        while (llabs(t) < llabs(last.i)) {
            if (__builtin_mul_overflow(t, r, &t)) return false;
            k++;
        }
        if (t != last.i || k < 2) return false;
        *ratio = (number){true, r, (double)r};
        *steps = k;
        return true;
    }
    double r = c.d / a.d, k = round(log(last.d / a.d) / log(r));
    if (!(k >= 2) || fabs(a.d * pow(r, k) - last.d) > 1e-9 * fabs(last.d)) return false;
    *ratio = (number){false, 0, r};
    *steps = (long long)k;
    return true;
}

int sweep_builder_add(sweep_builder *b, const char *text, int line, skytune_error *err)
{
    if (!b->pending) return push(b, text, line, err);
    /* The last value of a "..." progression: the terms before it say how. */
    b->pending = false;
    size_t given = b->count - b->segment;
    number terms[3], last;
    size_t from = b->count - (given >= 3 ? 3 : given);
    for (size_t k = from; k < b->count; k++)
        if (!parse_number(b->values[k].text, &terms[k - from]))
            return err_set(err, "'%s' before '...' is not a number: a progression needs numbers",
                           b->values[k].text);
    if (!parse_number(text, &last))
        return err_set(err, "'%s' after '...' is not a number: a progression needs numbers", text);
    size_t n = b->count - from;
    /* Geometric when the last three terms have equal ratios (and not equal
     * differences); otherwise arithmetic, from the last two. */
    bool multiply = false, decided = false;
    number ratio = {false, 0, 0};
    if (n == 3) {
        number a = terms[0], c = terms[1], e = terms[2];
        bool whole3 = a.whole && c.whole && e.whole;
        bool arithmetic = whole3 ? (c.i - a.i == e.i - c.i)
                                 : fabs((e.d - c.d) - (c.d - a.d)) <= 1e-9 * fabs(c.d - a.d);
        decided = arithmetic;
        if (!arithmetic && a.d != 0.0 && c.d != 0.0) {
            double q = c.d / a.d;
            if (fabs(e.d / c.d - q) <= 1e-9 * fabs(q)) {
                multiply = decided = true;
                bool whole_ratio = whole3 && c.i % a.i == 0 && e.i % c.i == 0;
                if (whole3 && !whole_ratio)
                    return err_set(err, "%s, %s, %s, ...: a progression of whole numbers needs "
                                        "a whole ratio",
                                   b->values[from].text, b->values[from + 1].text,
                                   b->values[from + 2].text);
                ratio = (number){whole_ratio, whole_ratio ? c.i / a.i : 0, q};
            }
        }
    }
    if (!multiply) {
        /* The last two terms. */
        terms[0] = terms[n - 2];
        terms[1] = terms[n - 1];
        from = b->count - 2;
        n = 2;
    }
    /* Two terms say a step and a ratio alike: [1024, 2048, ..., 8192] is
     * 1024 apart and twice as large. The last value decides when it is a
     * term of one reading only; of both, the sweep is refused rather than
     * read one way in silence. */
    long long geometric_steps;
    number two_term_ratio;
    if (!decided &&
        geometric_reading(terms[0], terms[1], last, &two_term_ratio, &geometric_steps)) {
        long long arithmetic = arithmetic_steps(terms[0], terms[1], last);
        const char *a = b->values[from].text, *c = b->values[from + 1].text;
        if (arithmetic) {
            char ratio_text[64];
            if (two_term_ratio.whole)
                snprintf(ratio_text, sizeof ratio_text, "%lld", two_term_ratio.i);
            else
                snprintf(ratio_text, sizeof ratio_text, "%.15g", two_term_ratio.d);
            return err_set(err,
                           "%s, %s, ..., %s reads two ways: adding %.15g (%lld values) or "
                           "multiplying by %s (%lld values); write {from: %s, to: %s, step: "
                           "%.15g} or {from: %s, to: %s, times: %s}, or give a third term "
                           "before '...'",
                           a, c, text, terms[1].d - terms[0].d, arithmetic + 1, ratio_text,
                           geometric_steps + 1, a, text, terms[1].d - terms[0].d, a, text,
                           ratio_text);
        }
        multiply = true;
        ratio = two_term_ratio;
    }
    char shown[200];
    if (n == 3)
        snprintf(shown, sizeof shown, "%s, %s, %s, ...", b->values[from].text,
                 b->values[from + 1].text, b->values[from + 2].text);
    else
        snprintf(shown, sizeof shown, "%s, %s, ...", b->values[from].text,
                 b->values[from + 1].text);
    number a = terms[0], c = terms[1];
    bool whole = a.whole && c.whole;
    number step = {whole, whole ? c.i - a.i : 0, c.d - a.d};
    /* Continue from the first of the given terms; those already listed are
     * skipped rather than pushed again. */
    int rc = progression(b, a, multiply ? ratio : step, multiply, last, true, n, line, shown, err);
    b->segment = b->count;
    return rc;
}

int sweep_builder_ellipsis(sweep_builder *b, int line, skytune_error *err)
{
    if (b->pending) return err_set(err, "two '...' in a row: give the last value between them");
    if (b->count - b->segment < 2)
        return err_set(err, "'...' needs at least two values before it to say how the "
                            "progression goes, e.g. [1, 2, ..., 10] or [2, 4, 8, ..., 4096]");
    b->pending = true;
    b->pending_line = line;
    return 0;
}

int sweep_builder_range(sweep_builder *b, const char *from, const char *to, const char *by,
                        bool multiply, int line, skytune_error *err)
{
    number f, t, s;
    if (!parse_number(from, &f)) return err_set(err, "from '%s' is not a number", from);
    if (!parse_number(to, &t)) return err_set(err, "to '%s' is not a number", to);
    if (!parse_number(by, &s))
        return err_set(err, "%s '%s' is not a number", multiply ? "times" : "step", by);
    char shown[200];
    snprintf(shown, sizeof shown, "the range from %s to %s %s %s", from, to,
             multiply ? "times" : "step", by);
    if (multiply && !(s.d > 1.0))
        return err_set(err, "%s: times must be larger than 1", shown);
    if (!multiply && !(s.d > 0.0))
        return err_set(err, "%s: step must be larger than 0 (from may be above to only in a "
                            "list with '...')",
                       shown);
    if (multiply && f.whole && !s.whole)
        return err_set(err, "%s: whole numbers need a whole factor", shown);
    if (!(multiply ? fabs(t.d) >= fabs(f.d) && f.d != 0.0 && t.d / f.d > 0 : t.d >= f.d))
        return err_set(err, "%s holds no value", shown);
    return progression(b, f, s, multiply, t, false, 0, line, shown, err);
}

int sweep_builder_finish(sweep_builder *b, skytune_error *err)
{
    if (b->pending)
        return err_set(err, "a list cannot end with '...': give the progression's last value");
    return 0;
}
