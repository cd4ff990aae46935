"""Reads a Kernel Tuner cache file back in Kernel Tuner's own simulation mode
and prints the cache key of the best configuration Kernel Tuner finds in it.

Usage: python3 kernel_tuner_best.py CACHE.json

The cache holds the configurations one campaign evaluated, not the product
of every parameter's values, so Kernel Tuner is told to search only the
recorded ones (a restriction): in simulation mode it refuses to go past a
configuration it has no record of. Run with Kernel Tuner on PYTHONPATH
(tests/test_export.c installs it in a temporary folder)."""
import json
import sys
import warnings

from kernel_tuner import tune_kernel


def main(path):
    with open(path) as f:
        cache = json.load(f)
    keys = cache["tune_params_keys"]
    tune_params = {k: cache["tune_params"][k] for k in keys}
    recorded = set(cache["cache"])

    def recorded_only(p):
        return ",".join(str(p[k]) for k in keys) in recorded

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(cache["kernel_name"], "__kernel void unused() {}",
                                 cache["problem_size"], [], tune_params,
                                 restrictions=recorded_only, cache=path, simulation_mode=True,
                                 strategy="brute_force", quiet=True, lang="OpenCL")
    timed = [r for r in results if "__error__" not in r and isinstance(r.get("time"), float)]
    best = min(timed, key=lambda r: r["time"])
    print(",".join(str(best[k]) for k in keys))
    print(f"{len(results)} configurations, {len(timed)} with a time", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
