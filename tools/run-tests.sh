#!/bin/sh
# Run the Criterion suite through meson and print one closing line that
# totals the individual tests of every test program:
#   "N passed, N failed, N skipped"
#   usage: tools/run-tests.sh [BUILD_DIR [MESON_TEST_ARGS...]]
set -u
build=${1:-build}
shift $(( $# > 0 ? 1 : 0 ))
# Further arguments go to meson test (e.g. --timeout-multiplier for the
# sanitizer build, which runs several times slower).
meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, re, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    entry = json.loads(line)
    out = entry.get("stdout", "") + entry.get("stderr", "")
    m = re.search(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", out)
    if m:
        tested, ok, bad, crash = map(int, m.groups())
        passed += ok
        failed += bad + crash
        skipped += max(tested - ok - bad - crash, 0)
        skipped += len(re.findall(r"\[SKIP\]", out))
    elif entry.get("result") == "OK":
        passed += 1
    elif entry.get("result") == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
