#include "pipeline_problem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STAGE_PARAMS 8

/* A stage's tuning parameters other than its layouts, and the layouts'
 * values a configuration text is read with (the pipeline's configuration
 * sets the layouts). */
typedef struct stage_params {
    const char *problem_param;   /* the pipeline's problem parameter */
    const char *stage;           /* the stage's plugin */
    const char *names[MAX_STAGE_PARAMS];
    const char *layouts[2][2];   /* {name, value} */
    /* A string parameter the text may set, {name, default}: the
     * correlator's cell_order, left at the order it always had when the
     * text does not name it. */
    const char *optional_string[2];
} stage_params;

static const stage_params fir_params = {
    "fir_config", "ppf",
    {"wg_size", "channels_per_item", "samples_per_item", "both_pols", NULL},
    {{"out_layout", PPF_CANONICAL_LAYOUT}, {NULL, NULL}},
    {NULL, NULL}};
static const stage_params bf_params = {
    "bf_config", "beamformer",
    {"beam_block", "station_block", "wg_time", "wg_beams", "use_local", NULL},
    {{"in_layout", BEAMFORMER_CANONICAL_IN}, {"out_layout", BEAMFORMER_CANONICAL_OUT}},
    {NULL, NULL}};
static const stage_params corr_params = {
    "corr_config", "correlator",
    {"cell_width", "cell_height", "wg_size", "use_local", "block_time", NULL},
    {{"in_layout", CORRELATOR_CANONICAL_IN}, {NULL, NULL}},
    {"cell_order", "column"}};

static size_t count_names(const stage_params *s)
{
    size_t n = 0;
    while (n < MAX_STAGE_PARAMS && s->names[n]) n++;
    return n;
}

static void list_names(const stage_params *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < count_names(s) && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? "," : "", s->names[k]);
}

/* The stage's configuration from the text of its problem parameter, as
 * skytune_values holding every one of its tuning parameters (the layouts
 * at the canonical ones). */
#define STAGE_STRING_MAX 32

static int parse_stage_config(const skytune_values *problem, const stage_params *s,
                              skytune_named_value *items, char string[STAGE_STRING_MAX],
                              skytune_values *out, skytune_error *err)
{
    const char *text = skytune_string(problem, s->problem_param);
    const size_t n = count_names(s);
    bool seen[MAX_STAGE_PARAMS] = {false};
    char valid[256];
    list_names(s, valid, sizeof valid);
    for (size_t k = 0; k < n; k++)
        items[k] = (skytune_named_value){s->names[k], {.type = SKYTUNE_INT}};
    if (s->optional_string[0]) snprintf(string, STAGE_STRING_MAX, "%s", s->optional_string[1]);
    const char *at = text;
    while (*at) {
        size_t len = strcspn(at, ",");
        const char *eq = memchr(at, '=', len);
        size_t name_len = eq ? (size_t)(eq - at) : len;
        if (eq && s->optional_string[0] && strlen(s->optional_string[0]) == name_len &&
            strncmp(s->optional_string[0], at, name_len) == 0) {
            /* Its value is the stage's to judge (correlator_config_read). */
            const size_t value_len = len - name_len - 1;
            if (value_len == 0 || value_len >= STAGE_STRING_MAX)
                return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "%s '%s': %s has no value",
                                         s->problem_param, text, s->optional_string[0]);
            memcpy(string, eq + 1, value_len);
            string[value_len] = '\0';
            at += len;
            if (*at == ',') at++;
            continue;
        }
        size_t k = 0;
        while (k < n && !(strlen(s->names[k]) == name_len && strncmp(s->names[k], at, name_len) == 0))
            k++;
        if (!eq || k == n)
            return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                     "%s '%s': '%.*s' is not NAME=VALUE over the %s plugin's "
                                     "tuning parameters %s (its layouts are the pipeline's)",
                                     s->problem_param, text, (int)len, at, s->stage, valid);
        char value[32];
        size_t value_len = len - name_len - 1;
        if (value_len == 0 || value_len >= sizeof value)
            return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                     "%s '%s': %s has no integer value", s->problem_param, text,
                                     s->names[k]);
        memcpy(value, eq + 1, value_len);
        value[value_len] = '\0';
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (*end || errno)
            return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                     "%s '%s': %s=%s is not an integer", s->problem_param, text,
                                     s->names[k], value);
        items[k].value.i = v;
        seen[k] = true;
        at += len;
        if (*at == ',') at++;
    }
    for (size_t k = 0; k < n; k++)
        if (!seen[k])
            return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                     "%s '%s' does not set %s; it must set each of %s",
                                     s->problem_param, text, s->names[k], valid);
    size_t count = n;
    for (size_t j = 0; j < 2 && s->layouts[j][0]; j++)
        items[count++] = (skytune_named_value){
            s->layouts[j][0], {.type = SKYTUNE_STRING, .s = s->layouts[j][1]}};
    if (s->optional_string[0])
        items[count++] = (skytune_named_value){s->optional_string[0],
                                               {.type = SKYTUNE_STRING, .s = string}};
    *out = (skytune_values){.count = count, .items = items};
    return SKYTUNE_OK;
}

/* A stage's refusal of its configuration, said of the pipeline's problem
 * parameter. */
static int refuse_config(const stage_params *s, const skytune_values *problem,
                         const skytune_error *why, skytune_error *err)
{
    return skytune_error_set(err, SKYTUNE_ERR_PROBLEM, "%s '%s' does not suit this problem: %s",
                             s->problem_param, skytune_string(problem, s->problem_param),
                             why->message);
}

int pipeline_problem_read(const skytune_values *values, pipeline_problem *p, skytune_error *err)
{
    memset(p, 0, sizeof *p);
    p->stations = skytune_int(values, "stations");
    p->channels = skytune_int(values, "channels");
    p->samples = skytune_int(values, "samples");
    p->taps = skytune_int(values, "taps");
    p->sample_bits = skytune_int(values, "sample_bits");
    p->beams = skytune_int(values, "beams");
    p->pipeline = (int)skytune_int(values, "pipeline");
    p->fft = skytune_int(values, "fft") != 0;

    /* The filter bank's input holds `taps - 1` blocks before the first
     * output step. */
    p->fir = (ppf_problem){.stations = p->stations, .channels = p->channels, .taps = p->taps,
                           .samples = p->channels * (p->samples + p->taps - 1),
                           .sample_bits = p->sample_bits, .fft = false,
                           .blocks = p->samples + p->taps - 1, .steps = p->samples,
                           .transforms = p->stations * 2 * p->samples};
    p->fft_problem = p->fir;
    p->fft_problem.fft = true;
    p->bf = (beamformer_problem){.stations = p->stations, .channels = p->channels,
                                 .samples = p->samples, .polarizations = 2, .beams = p->beams};
    p->corr = (correlator_problem){.stations = p->beams, .channels = p->channels,
                                   .samples = p->samples};
    int rc = ppf_problem_check(p->fft ? &p->fft_problem : &p->fir, err);
    if (rc != SKYTUNE_OK) return rc;

    skytune_named_value items[MAX_STAGE_PARAMS + 3];
    char string[STAGE_STRING_MAX];
    skytune_values config;
    skytune_error why = {0};
    if ((rc = parse_stage_config(values, &fir_params, items, string, &config, err)) != SKYTUNE_OK)
        return rc;
    if (ppf_config_read(&config, &p->fir_config, &why) != SKYTUNE_OK ||
        ppf_config_check(&p->fir, &p->fir_config, &why) != SKYTUNE_OK)
        return refuse_config(&fir_params, values, &why, err);
    if ((rc = parse_stage_config(values, &bf_params, items, string, &config, err)) != SKYTUNE_OK)
        return rc;
    /* Local memory is the device's to judge: check_problem does. */
    if (beamformer_config_read(&config, &p->bf_config, &why) != SKYTUNE_OK ||
        beamformer_config_check(&p->bf, &p->bf_config, INT64_MAX, &why) != SKYTUNE_OK)
        return refuse_config(&bf_params, values, &why, err);
    if ((rc = parse_stage_config(values, &corr_params, items, string, &config, err)) != SKYTUNE_OK)
        return rc;
    if (correlator_config_read(&config, &p->corr_config, &why) != SKYTUNE_OK)
        return refuse_config(&corr_params, values, &why, err);
    const correlator_config *c = &p->corr_config;
    /* The correlator plugin's own bounds (correlator_stage.h): a cell of
     * more baselines would spill its accumulators out of registers. */
    if (c->cell_width > CORRELATOR_MAX_CELL_SIDE || c->cell_height > CORRELATOR_MAX_CELL_SIDE ||
        c->cell_width * c->cell_height > CORRELATOR_MAX_CELL_AREA)
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "corr_config '%s': a %lld x %lld cell is beyond the correlator's "
                                 "cells (sides at most %d, at most %d baselines)",
                                 skytune_string(values, "corr_config"), (long long)c->cell_width,
                                 (long long)c->cell_height, CORRELATOR_MAX_CELL_SIDE,
                                 CORRELATOR_MAX_CELL_AREA);
    if (p->pipeline == 2 &&
        (c->cell_width < 1 || c->cell_height < 1 || c->cell_width + c->cell_height > p->beams + 1))
        return skytune_error_set(err, SKYTUNE_ERR_PROBLEM,
                                 "corr_config '%s' does not suit this problem: the cells "
                                 "(cell_width + cell_height = %lld) must fit the triangle of %lld "
                                 "beams (at most beams + 1)",
                                 skytune_string(values, "corr_config"),
                                 (long long)(c->cell_width + c->cell_height),
                                 (long long)p->beams);
    return SKYTUNE_OK;
}
