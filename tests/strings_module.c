/* The strings test plugin (tests/trivial_plugin.c) as a loadable module, for
 * the end-to-end tests of string problem values. */
#include "trivial_plugin.h"

SKYTUNE_DEFINE_PLUGIN(trivial_strings_plugin)
