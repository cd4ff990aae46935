"""Tune the kernel a T1 file describes with Kernel Tuner, exhaustively, on
the first OpenCL device (PoCL): the same kernel file, tuning parameters,
conditions, compiler options, launch geometry and arguments that skytune
reads from the file, so that pocl_vs_kernel_tuner.sh times the same work
through both tools.

usage: python3 kt_t1.py FILE.json [ITERATIONS] [NAME=VALUE ...]
NAME=VALUE sets a problem size, as skytune's --set problem_size_0=512 does.
Prints one JSON line: configurations, the best one and its time."""
import itertools
import json
import os
import sys
import time

import numpy as np
import pyopencl as cl
from kernel_tuner import tune_kernel, util

# Kernel Tuner's OpenCL backend hands a __local argument (pyopencl's
# LocalMemory) to the kernel as it is; only its argument check does not know
# the type, so it is let through there.
_check = util.check_individual_arguments


def _check_local_too(i, arg, kernel_argument):
    if isinstance(arg, cl.LocalMemory):
        return True, ""
    return _check(i, arg, kernel_argument)


util.check_individual_arguments = _check_local_too


def main():
    path = sys.argv[1]
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with open(path) as f:
        t1 = json.load(f)
    space = t1["ConfigurationSpace"]
    spec = t1["KernelSpecification"]
    problem = list(spec["ProblemSize"])
    for setting in sys.argv[3:]:
        name, value = setting.split("=")
        problem[int(name.rsplit("_", 1)[1])] = int(value)
    scope = {"ProblemSize": problem}

    tune_params = {}
    for p in space["TuningParameters"]:
        values = p["Values"]
        tune_params[p["Name"]] = eval(values, {}) if isinstance(values, str) else values

    def evaluate(expr, params):
        return eval(str(expr), {}, dict(scope, **params))

    conditions = [c["Expression"] for c in space.get("Conditions", [])]

    def restrict(params):
        return all(evaluate(c, params) for c in conditions)

    def local_bytes(arg):
        # A __local argument's largest size over the space: Kernel Tuner
        # passes the same arguments to every configuration.
        names = list(tune_params)
        largest = 0
        for combo in itertools.product(*tune_params.values()):
            params = dict(zip(names, combo))
            if restrict(params):
                largest = max(largest, int(evaluate(arg["Size"], params)))
        return largest * np.dtype(dtypes[arg["Type"]]).itemsize

    dtypes = {"float": np.float32, "double": np.float64, "int32": np.int32, "int": np.int32,
              "uint32": np.uint32}
    rng = np.random.default_rng(1)
    args = []
    for a in spec["Arguments"]:
        dtype = dtypes[a["Type"]]
        kind = a["MemoryType"]
        if kind == "Vector":
            n = int(evaluate(a["Size"], {}))
            if a.get("FillType") == "Random":
                args.append((rng.random(n) * float(a.get("FillValue", 1.0))).astype(dtype))
            else:
                args.append(np.full(n, float(a.get("FillValue", 0.0)), dtype=dtype))
        elif kind == "Local":
            args.append(cl.LocalMemory(local_bytes(a)))
        else:
            args.append(dtype(evaluate(a["FillValue"], {})))

    axes = ["X", "Y", "Z"]
    global_size = [int(evaluate(spec["GlobalSize"][x], {})) for x in axes if x in spec["GlobalSize"]]
    block_names = [spec["LocalSize"][x] for x in axes if x in spec["LocalSize"]]
    source = os.path.join(os.path.dirname(os.path.abspath(path)), spec["KernelFile"])
    options = spec.get("CompilerOptions", [])

    started = time.time()
    results, env = tune_kernel(
        spec["KernelName"], source, tuple(global_size), args, tune_params,
        restrictions=restrict, block_size_names=block_names,
        grid_div_x=spec.get("GridDivX"), grid_div_y=spec.get("GridDivY"),
        grid_div_z=spec.get("GridDivZ"), compiler_options=options, lang="OpenCL",
        iterations=iterations, strategy="brute_force", verbose=False, quiet=True,
        platform=int(os.environ.get("KT_PLATFORM", "0")))
    wall = time.time() - started
    valid = [r for r in results if isinstance(r.get("time"), float)]
    best = min(valid, key=lambda r: r["time"]) if valid else None
    print(json.dumps({
        "tool": "kernel_tuner", "kernel": spec["KernelName"], "configurations": len(results),
        "valid": len(valid), "wall_s": round(wall, 2),
        "best": {k: best[k] for k in tune_params} if best else None,
        "best_ms": best["time"] if best else None}))


if __name__ == "__main__":
    main()
