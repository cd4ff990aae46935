/* Problem instances: defaults ← preset ← --set, typed values, checks. */
#include <criterion/criterion.h>
#include <string.h>

#include "plugin_problem.h"

static const skytune_problem_param params[] = {
    {"channels", SKYTUNE_INT, "64", "frequency channels"},
    {"min_freq", SKYTUNE_FLOAT, "1420", "MHz"},
    {"max_freq", SKYTUNE_FLOAT, "1720", "MHz"},
    {"zero_dm", SKYTUNE_BOOL, "false", "all delays 0"},
    {NULL},
};
static const skytune_preset presets[] = {
    {"lofar", "channels=32, min_freq=138,max_freq=145", "LOFAR"},
    {"broken", "channels=many", "a preset with a bad value"},
    {NULL},
};
static const skytune_problem_check checks[] = {
    {"channels >= 1", "channels must be at least 1"},
    {"max_freq > min_freq", "max_freq must be above min_freq"},
    {NULL},
};
static const skytune_plugin plugin = {
    .abi_version = SKYTUNE_PLUGIN_ABI_VERSION,
    .name = "toy",
    .version = "1",
    .problem_params = params,
    .presets = presets,
    .problem_checks = checks,
};

Test(problem, defaults_then_preset_then_settings)
{
    problem p;
    skytune_error err = {0};
    cr_assert_eq(problem_resolve(&plugin, NULL, NULL, 0, &p, &err), 0, "%s", err.message);
    cr_assert_eq(skytune_int(&p.values, "channels"), 64);
    cr_assert_str_eq(p.text, "channels=64,min_freq=1420,max_freq=1720,zero_dm=0");
    problem_free(&p);

    const char *sets[] = {"channels=16", "zero_dm=yes"};
    cr_assert_eq(problem_resolve(&plugin, "lofar", sets, 2, &p, &err), 0, "%s", err.message);
    cr_assert_eq(skytune_int(&p.values, "channels"), 16, "--set wins over the preset");
    cr_assert_float_eq(skytune_float(&p.values, "min_freq"), 138.0, 1e-12);
    cr_assert_eq(skytune_int(&p.values, "zero_dm"), 1);
    cr_assert_eq(skytune_values_find(&p.values, "zero_dm")->type, SKYTUNE_BOOL);
    problem_free(&p);
}

Test(problem, bad_input_names_what_is_wrong_and_what_is_valid)
{
    problem p;
    skytune_error err = {0};
    cr_assert_neq(problem_resolve(&plugin, "apertif", NULL, 0, &p, &err), 0);
    cr_assert(strstr(err.message, "apertif") && strstr(err.message, "lofar"), "%s", err.message);

    const char *unknown[] = {"stations=4"};
    cr_assert_neq(problem_resolve(&plugin, NULL, unknown, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "stations") && strstr(err.message, "channels"), "%s",
              err.message);

    const char *badtype[] = {"channels=12.5"};
    cr_assert_neq(problem_resolve(&plugin, NULL, badtype, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "channels") && strstr(err.message, "int"), "%s", err.message);

    const char *noeq[] = {"channels"};
    cr_assert_neq(problem_resolve(&plugin, NULL, noeq, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "NAME=VALUE"), "%s", err.message);

    cr_assert_neq(problem_resolve(&plugin, "broken", NULL, 0, &p, &err), 0);
    cr_assert(strstr(err.message, "broken") && strstr(err.message, "many"), "%s", err.message);
}

Test(problem, checks_refuse_with_the_plugin_message_and_the_values)
{
    problem p;
    skytune_error err = {0};
    const char *zero[] = {"channels=0"};
    cr_assert_neq(problem_resolve(&plugin, NULL, zero, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "channels must be at least 1"), "%s", err.message);
    cr_assert(strstr(err.message, "channels=0"), "%s", err.message);

    const char *inverted[] = {"max_freq=100"};
    cr_assert_neq(problem_resolve(&plugin, NULL, inverted, 1, &p, &err), 0);
    cr_assert(strstr(err.message, "max_freq must be above min_freq"), "%s", err.message);
}

/* String values become -D options: a default or a preset that is not a
 * token is refused like --set, naming where the value came from. */
static const skytune_problem_param text_params[] = {
    {"mode", SKYTUNE_STRING, "plain", "a word"},
    {NULL},
};
static const skytune_preset text_presets[] = {
    {"quoted", "mode=say\"hi", "a preset whose value holds a quote"},
    {NULL},
};

Test(problem, string_values_that_are_not_tokens_are_refused_wherever_they_come_from)
{
    skytune_plugin with_presets = plugin;
    with_presets.problem_params = text_params;
    with_presets.presets = text_presets;
    with_presets.problem_checks = NULL;
    problem p;
    skytune_error err = {0};
    cr_assert_neq(problem_resolve(&with_presets, "quoted", NULL, 0, &p, &err), 0);
    cr_expect(strstr(err.message, "preset 'quoted'") && strstr(err.message, "'mode'") &&
                  strstr(err.message, "holds a quote"),
              "%s", err.message);

    static const skytune_problem_param spaced[] = {{"mode", SKYTUNE_STRING, "two words", ""},
                                                   {NULL}};
    skytune_plugin bad_default = with_presets;
    bad_default.problem_params = spaced;
    cr_assert_neq(problem_resolve(&bad_default, NULL, NULL, 0, &p, &err), 0);
    cr_expect(strstr(err.message, "plugin toy: default of 'mode': 'two words' is not a valid "
                                  "string value: it holds a space"),
              "%s", err.message);

    /* ',' and '=' may be in a problem value; the text quotes them. */
    const char *sets[] = {"mode=w=hann,beta"};
    cr_assert_eq(problem_resolve(&with_presets, NULL, sets, 1, &p, &err), 0, "%s", err.message);
    cr_expect_str_eq(p.text, "mode='w=hann,beta'");
    problem_free(&p);
}
