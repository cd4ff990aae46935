/* Racing replayed over the committed exhaustive campaigns (every database
 * of docs/results whose name holds "exhaustive"): every ok configuration's
 * recorded samples are fed one by one, as the measuring worker times them,
 * to the engine's own rule (core/racing.h), in the campaign's recorded order and
 * in a few seeded random orders. The best configuration by median must be
 * the one found without racing; how many configurations were raced and
 * the share of timed runs, and of their time, saved are printed.
 *
 * SKYTUNE_RACING_REPLAY_DBS=PATTERN replays the databases that glob pattern
 * names instead, with the same checks (the dedispersion sweep's, unpacked:
 * docs/results/sweep-h200/racing-replay.txt gives the command). */
#include <criterion/criterion.h>
#include <glob.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racing.h"
#include "stats.h"

/* One ok configuration of a campaign: its recorded samples in run order. */
typedef struct recorded {
    long long id;
    size_t n;
    double *samples;
} recorded;

typedef struct campaign_set {
    recorded *items;
    size_t count;
} campaign_set;

static void campaign_free(campaign_set *c)
{
    for (size_t k = 0; k < c->count; k++) free(c->items[k].samples);
    free(c->items);
    memset(c, 0, sizeof *c);
}

/* The campaign's ok measurements in the order it evaluated them. */
static void load_campaign(sqlite3 *db, long long campaign, campaign_set *c)
{
    memset(c, 0, sizeof *c);
    sqlite3_stmt *q;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT m.id, s.time_ns FROM evaluations e"
                                    " JOIN measurements m ON m.id = e.measurement_id"
                                    " JOIN samples s ON s.measurement_id = m.id"
                                    " WHERE e.campaign_id = ?1 AND m.status = 'ok'"
                                    " ORDER BY e.seq, s.run",
                                    -1, &q, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_bind_int64(q, 1, campaign);
    size_t cap = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(q, 0);
        if (c->count == 0 || c->items[c->count - 1].id != id) {
            if (c->count == cap) {
                cap = cap ? 2 * cap : 256;
                c->items = realloc(c->items, cap * sizeof *c->items);
                cr_assert_not_null(c->items);
            }
            c->items[c->count++] = (recorded){.id = id};
        }
        recorded *r = &c->items[c->count - 1];
        r->samples = realloc(r->samples, (r->n + 1) * sizeof *r->samples);
        cr_assert_not_null(r->samples);
        r->samples[r->n++] = sqlite3_column_double(q, 1);
    }
    sqlite3_finalize(q);
}

typedef struct race_outcome {
    size_t best;               /* index of the best by median */
    size_t raced;
    size_t runs, runs_made;
    double time_ns, time_made_ns; /* the runs' time, recorded and made */
} race_outcome;

/* The campaign in `order`, each configuration timed run by run until its
 * recorded runs end or the rule stops it (racing false: every run). */
static race_outcome race_campaign(const campaign_set *c, const size_t *order, bool racing)
{
    race_outcome o = {0};
    race_field field;
    race_field_init(&field);
    double best_ns = 0;
    for (size_t k = 0; k < c->count; k++) {
        const recorded *r = &c->items[order[k]];
        double limit = racing ? race_limit(&field) : 0.0;
        size_t n = 0;
        while (n < r->n) {
            n++;
            if (n < r->n && race_stops(r->samples, n, limit)) {
                o.raced++;
                break;
            }
        }
        o.runs += r->n;
        o.runs_made += n;
        for (size_t j = 0; j < r->n; j++) o.time_ns += r->samples[j];
        for (size_t j = 0; j < n; j++) o.time_made_ns += r->samples[j];
        double median = stats_median(r->samples, n);
        race_field_add(&field, median, r->samples, n);
        if (k == 0 || median < best_ns) {
            best_ns = median;
            o.best = order[k];
        }
    }
    return o;
}

static void shuffle(size_t *order, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t k = n; k > 1; k--) {
        size_t j = (size_t)rand() % k;
        size_t t = order[k - 1];
        order[k - 1] = order[j];
        order[j] = t;
    }
}

static void check_campaign(const char *path, long long campaign, const campaign_set *c)
{
    size_t *order = malloc((c->count + 1) * sizeof *order);
    cr_assert_not_null(order);
    for (size_t k = 0; k < c->count; k++) order[k] = k;
    race_outcome full = race_campaign(c, order, false);
    for (unsigned seed = 0; seed <= 5; seed++) {
        /* seed 0: the campaign's recorded order. */
        if (seed > 0) shuffle(order, c->count, seed);
        race_outcome raced = race_campaign(c, order, true);
        cr_expect_eq(raced.best, full.best,
                     "%s campaign %lld, %s %u: racing found measurement %lld best, "
                     "without racing %lld",
                     path, campaign, seed ? "random order" : "recorded order", seed,
                     c->items[raced.best].id, c->items[full.best].id);
        printf("%s campaign %lld, %s%.0u: %zu of %zu configurations raced, %.1f %% of %zu "
               "timed runs saved, %.1f %% of their time\n",
               strrchr(path, '/') ? strrchr(path, '/') + 1 : path, campaign,
               seed ? "random order " : "recorded order", seed, raced.raced, c->count,
               100.0 * (double)(raced.runs - raced.runs_made) / (double)raced.runs, raced.runs,
               100.0 * (raced.time_ns - raced.time_made_ns) / raced.time_ns);
    }
    fflush(stdout);
    free(order);
}

Test(racing_replay, racing_keeps_the_best_of_every_exhaustive_campaign)
{
    const char *source = getenv("SKYTUNE_SOURCE_DIR");
    cr_assert_not_null(source, "SKYTUNE_SOURCE_DIR is not set: run through meson test");
    char pattern[1024];
    const char *asked = getenv("SKYTUNE_RACING_REPLAY_DBS");
    if (asked && *asked)
        snprintf(pattern, sizeof pattern, "%s", asked);
    else
        snprintf(pattern, sizeof pattern, "%s/docs/results/*exhaustive*.db", source);
    glob_t found;
    cr_assert_eq(glob(pattern, 0, NULL, &found), 0, "no database matches %s", pattern);
    cr_assert_gt(found.gl_pathc, 0);
    for (size_t f = 0; f < found.gl_pathc; f++) {
        const char *path = found.gl_pathv[f];
        sqlite3 *db;
        cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s",
                     path);
        sqlite3_stmt *q;
        cr_assert_eq(sqlite3_prepare_v2(db, "SELECT id FROM campaigns ORDER BY id", -1, &q, NULL),
                     SQLITE_OK, "%s: %s", path, sqlite3_errmsg(db));
        size_t campaigns = 0;
        while (sqlite3_step(q) == SQLITE_ROW) {
            long long campaign = sqlite3_column_int64(q, 0);
            campaign_set c;
            load_campaign(db, campaign, &c);
            if (c.count > 0) {
                check_campaign(path, campaign, &c);
                campaigns++;
            }
            campaign_free(&c);
        }
        sqlite3_finalize(q);
        sqlite3_close(db);
        cr_expect_gt(campaigns, 0, "%s holds no campaign with an ok configuration", path);
    }
    globfree(&found);
}
