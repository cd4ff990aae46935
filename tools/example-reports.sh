#!/bin/sh
# Regenerate the example reports in docs/examples/ and their screenshots
# from the databases beside them, e.g. after a change to the report:
#   usage: tools/example-reports.sh [BUILD_DIR]   (default: build)
# Run from the source tree. Needs the built skytune and, for the
# screenshots, chromium (apt-get install chromium).
#
# The databases are left byte for byte as they are: each report is made
# from a copy, at the same relative path in a scratch folder (so that the
# report names its database docs/examples/NAME.db), because opening a
# database that an older skytune made migrates it in place.
set -eu

build=${1:-build}
skytune=$(cd "$build" && pwd)/skytune
examples=docs/examples
[ -x "$skytune" ] || { echo "example-reports: no $skytune: build skytune first" >&2; exit 1; }
[ -d "$examples" ] || { echo "example-reports: run me from the source tree" >&2; exit 1; }
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "example-reports: chromium is not on PATH (apt-get install chromium)" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/$examples" "$scratch/profile"
out=$(pwd)/$examples

# report DB HTML [REPORT OPTIONS...]
report() {
    db=$1 html=$2
    shift 2
    cp "$examples/$db" "$scratch/$examples/$db"
    (cd "$scratch" && "$skytune" report --db "$examples/$db" --html "$out/$html" "$@")
}

# screenshot HTML PNG HEIGHT: the top HEIGHT pixels, 1280 wide.
screenshot() {
    timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$scratch/profile" --hide-scrollbars --window-size="1280,$3" \
        --screenshot="$out/$2" "file://$out/$1" >"$scratch/chromium.log" 2>&1 ||
        { cat "$scratch/chromium.log" >&2; exit 1; }
    echo "wrote $examples/$2"
}

# Dedispersion on PoCL, one campaign: the whole report.
report dedispersion-pocl.db report.html
screenshot report.html report.png 7100

# Dedispersion on the H100, a campaign per number of DMs: the contents and
# the first campaign, down to its roofline.
report dedispersion-apertif-h100.db dedispersion-apertif-h100.html --plugin dedispersion
screenshot dedispersion-apertif-h100.html dedispersion-apertif-h100.png 7580
report dedispersion-lofar-h100.db dedispersion-lofar-h100.html --plugin dedispersion
