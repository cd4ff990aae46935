# Sourced by the experiment scripts that spread work over a host's GPUs,
# after find_skytune.sh: sets `gpus` to the NVIDIA devices `skytune devices`
# lists, one PLATFORM:DEVICE selector a line in the order listed ("* 1:0 ..."
# marks the default device, "  1:1 ..." the others), and `ngpus` to their
# number.
gpus=$("$sk" devices 2>/dev/null | awk '/^[* ] +[0-9]+:[0-9]+ / && /NVIDIA/ {
    for (i = 1; i <= 2; i++) if ($i ~ /^[0-9]+:[0-9]+$/) { print $i; break } }')
ngpus=$(echo "$gpus" | grep -c .)
