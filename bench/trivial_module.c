/* The trivial test plugin (tests/trivial_plugin.c) as a loadable module, so
 * that a benchmark can measure it in a worker process as a real plugin is. */
#include "trivial_plugin.h"

SKYTUNE_DEFINE_PLUGIN(trivial_plugin)
