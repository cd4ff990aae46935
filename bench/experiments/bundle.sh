#!/bin/sh
# Build an optimised skytune and gather what another Linux x86-64 machine
# needs to run it (the CLI, plugins, benchmarks, and the shared libraries a
# minimal OpenCL host may lack: jansson, clFFT, libyaml) into one folder.
#   usage: bench/experiments/bundle.sh [OUT_DIR]   (default .device-carry)
set -eu
out=${1:-.device-carry}
build=build-release
[ -f $build/build.ninja ] || meson setup $build --buildtype=release -Dtests=false >/dev/null
ninja -C $build skytune plugins/vector_add.so bench/bench_overhead bench/bench_enumerate \
    bench/bench_report bench/synthetic_cache trivial.so hostile.so >/dev/null
ninja -C $build >/dev/null
rm -rf "$out"
mkdir -p "$out/plugins" "$out/lib" "$out/bench"
cp $build/skytune "$out/"
cp $build/plugins/*.so "$out/plugins/"
cp $build/bench/bench_overhead $build/bench/bench_enumerate $build/bench/bench_report \
    $build/bench/synthetic_cache $build/trivial.so "$out/bench/"
cp $build/hostile.so "$out/bench/"
# libcurl (notifications, publish) is not carried: it needs OpenSSL and more
# libraries of the same distribution, and the GPU hosts have libcurl.so.4.
for lib in libjansson.so.4 libclFFT.so.2 libyaml-0.so.2; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
  [ -n "$path" ] && cp -L "$path" "$out/lib/"
done
cp bench/experiments/*.sh bench/experiments/*.py "$out/"
# pocl_vs_kernel_tuner.sh's files, with the example T1 files it tunes.
mkdir -p "$out/pocl_kt"
cp bench/experiments/pocl_kt/* examples/t1/vector_add.* examples/t1/matmul.* "$out/pocl_kt/"
echo "bundled into $out"
