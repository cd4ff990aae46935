#!/bin/sh
# Install the Debian packages skytune needs to build and test, where missing.
# Run as root (or with sudo available); does nothing when all are present.
#   usage: tools/install-deps.sh [fuzz]
# With `fuzz`, also clang and its libFuzzer runtime (for `make fuzz`).
# chromium renders the HTML report in the test suite (tests/test_report.c),
# headless: the test of what a reader sees needs a real browser.
set -eu
packages="meson ninja-build pkg-config gcc python3 ocl-icd-opencl-dev opencl-c-headers
  pocl-opencl-icd clinfo libsqlite3-dev sqlite3 libcriterion-dev libjansson-dev zlib1g-dev
  libclfft-dev libyaml-dev slurm-wlm munge valgrind libcurl4-openssl-dev openssl
  python3-jsonschema chromium"
if [ "${1:-}" = fuzz ]; then
    packages="$packages clang libclang-rt-14-dev"
fi
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
