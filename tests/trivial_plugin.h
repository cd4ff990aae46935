/* A trivial plugin compiled into tests and benchmarks: out = 2 × in over
 * 4096 floats. Its MODE parameter makes a configuration fail on purpose:
 * 1 does not compile, 3 computes one wrong element, 4 writes nothing; wg 3
 * does not divide the global size, so it fails to launch. */
#ifndef SKYTUNE_TRIVIAL_PLUGIN_H
#define SKYTUNE_TRIVIAL_PLUGIN_H

#include <skytune/plugin.h>

#define TRIVIAL_N 4096

extern const skytune_plugin trivial_plugin;

/* The same callbacks as plugin "strings", with two string problem
 * parameters, a and b (defaults x and y), that its kernel never reads, and
 * a tuning parameter wg of 1 and 64: for the tests of string values. Built
 * with a stray -D INJECTED, every configuration computes 3 x in and fails
 * verification. */
extern const skytune_plugin trivial_strings_plugin;

#endif
