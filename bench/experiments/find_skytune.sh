# Sourced by the experiment scripts (they set `here` to their own folder
# first): sets `sk` to the skytune to run, SKYTUNE if set, else the bundle's
# (bench/experiments/bundle.sh puts the scripts beside it), else the source
# tree's build/skytune; a bundle's lib/ goes on LD_LIBRARY_PATH.
sk=${SKYTUNE:-}
if [ -z "$sk" ]; then
    if [ -x "$here/skytune" ]; then sk="$here/skytune"; else sk="$here/../../build/skytune"; fi
fi
[ -d "$here/lib" ] && export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
