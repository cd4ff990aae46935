#!/bin/sh
# The data-layout experiments of Kis 2013, chapters 6 and 7
# (docs/results/pipelines.md), into OUT_DIR:
#   transpose   every layout transposed to TCSP by the direct kernel (the
#               thesis's Algorithm 2), each at every work-group of 128
#               work-items or more: Figure 6.3 and Table 6.2
#               (transpose-PRESET.db)
#   independence  the beam former's 6 read layouts x 6 write layouts (those
#               ending in P, as in the thesis) at the pipeline's beam former
#               configuration: read-write independence, Figure 7.5
#               (beamformer-independence.db)
#   pipelines   Pipeline 1 and 2, with and without the FFT: LOFAR's default
#               layouts measured alone, then the pipeline tuned with the
#               prune strategy, each stage's layouts a group of their own
#               (pipelines.db)
#   exhaustive  every layout combination of Pipeline 1 with and without the
#               FFT, to judge what pruning found (pipelines-exhaustive.db)
#   split       Pipeline 2 in two halves: the front fixed at what pruning
#               found for Pipeline 1 (needs the pipelines part), every
#               combination of the back half (pipelines-split.db)
#   recheck     each pipeline's default, pruned best and best known (the
#               exhaustive or split optimum) measured again, RECHECK_RUNS
#               timed runs each (default 100), in RECHECK_ROUNDS rounds
#               (default 3) over them all, for a device whose speed changes
#               in bursts (pipelines-recheck-ROUND.db; needs the parts above)
# with the log of every command in OUT_DIR/pipelines-PARTS.log.
#   usage: pipelines.sh OUT_DIR DEVICE_SUBSTRING
# Run from a bundle (bench/experiments/bundle.sh) or from a source tree with
# build/skytune; SKYTUNE=path overrides. Environment, all optional:
#   PARTS        which of the above (default "transpose independence pipelines")
#   TRANSPOSE_SET   extra "--set NAME=VALUE ..." for the transposition (the
#                thesis's Figure 6.3 sizes by default: 64 stations, 300
#                channels, 768 samples)
#   PIPELINE_SET    extra "--set ..." for the pipelines and the beam former
#                (the thesis's section 7.3 setup by default)
#   PRUNE_BUDGET    evaluations of each pruned pipeline (default 100)
#   RUNS         timed runs per configuration (default 5)
#   RECHECK_RUNS, RECHECK_ROUNDS   of the recheck part (default 100 and 3)
#   TIMEOUT_FLOOR   the watchdog's floor (default 10s)
#   EXHAUSTIVE_LIMIT   --time-limit of each exhaustive campaign (default none);
#                running the part again continues where it stopped
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
device=$2
parts=${PARTS:-transpose independence pipelines}
runs=${RUNS:-5}
floor=${TIMEOUT_FLOOR:-10s}
budget=${PRUNE_BUDGET:-100}
. "$here/find_skytune.sh"
mkdir -p "$out"
log="$out/pipelines-$(echo "$parts" | tr ' ' '-').log"
: > "$log"
"$sk" devices >> "$log" 2>&1

# One command, logged with its wall time (RUNS timed runs unless the
# command names its own --runs).
run() {
    echo "== $*" >> "$log"
    t0=$(date +%s.%N)
    case " $* " in *" --runs "*) with_runs="" ;; *) with_runs="--runs $runs" ;; esac
    # shellcheck disable=SC2086
    "$sk" "$@" --device "$device" $with_runs --timeout-floor "$floor" >> "$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "   exit $rc after $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s" >> "$log"
}

# best_config DB PIPELINE FFT(0|1) STRATEGY: the best configuration of the
# campaign of that strategy over that pipeline in DB, as skytune best
# prints it (NAME=VALUE,...); nothing if there is none.
best_config() {
    [ -f "$1" ] || return 0
    "$sk" best --db "$1" | awk -v want="pipeline=$2,fft=$3," -v strategy="$4" '
        /^campaign [0-9]+:/ { mine = index($0, "strategy " strategy ","); inside = 0; next }
        mine && /^  problem/ && index($0, want) { inside = 1 }
        inside && /^  best/ { print $2; exit }'
}

# pin CONFIG [NAME...]: --only NAME=VALUE for the named parameters of
# CONFIG (NAME=VALUE,...), or for all of them.
pin() {
    config=$1
    shift
    for pair in $(echo "$config" | tr ',' ' '); do
        if [ $# -eq 0 ] || echo " $* " | grep -q " ${pair%%=*} "; then
            printf ' --only %s' "$pair"
        fi
    done
}

lofar_layouts="--only fir_layout=TPSC --only fft_layout=TPSC --only bf_in_layout=CSTP"
lofar_layouts="$lofar_layouts --only bf_out_layout=CBTP --only corr_layout=CTBP"
groups="groups=bf_in_layout,bf_out_layout"

for part in $parts; do
    case $part in
    transpose)
        # shellcheck disable=SC2086
        run run --plugin transpose --preset thesis ${TRANSPOSE_SET:-} --only out_layout=TCSP \
            --only variant=direct --restrict 'wg_x * wg_y >= 128' --strategy exhaustive \
            --seed 1 --db "$out/transpose-thesis.db"
        ;;
    independence)
        # The pipeline's beam former configuration (plugins/lofar_pipeline).
        # shellcheck disable=SC2086
        run run --plugin beamformer --preset thesis ${PIPELINE_SET:-} --only beam_block=10 \
            --only station_block=8 --only wg_time=32 --only wg_beams=2 --only use_local=0 \
            --only in_layout=SCTP,STCP,CSTP,CTSP,TSCP,TCSP \
            --only out_layout=BCTP,BTCP,CBTP,CTBP,TBCP,TCBP \
            --strategy exhaustive --seed 1 --db "$out/beamformer-independence.db"
        ;;
    pipelines)
        for pipeline in 1 2; do
            for fft in true false; do
                # shellcheck disable=SC2086
                run run --plugin lofar_pipeline --preset thesis ${PIPELINE_SET:-} \
                    --set pipeline=$pipeline --set fft=$fft $lofar_layouts \
                    --strategy exhaustive --seed 1 --db "$out/pipelines.db"
                # shellcheck disable=SC2086
                run run --plugin lofar_pipeline --preset thesis ${PIPELINE_SET:-} \
                    --set pipeline=$pipeline --set fft=$fft --strategy prune \
                    --strategy-opt "$groups" --budget "$budget" --seed 1 --db "$out/pipelines.db"
            done
        done
        ;;
    exhaustive)
        for fft in false true; do
            # shellcheck disable=SC2086
            run run --plugin lofar_pipeline --preset thesis ${PIPELINE_SET:-} --set pipeline=1 \
                --set fft=$fft --strategy exhaustive --seed 1 --db "$out/pipelines-exhaustive.db" \
                ${EXHAUSTIVE_LIMIT:+--time-limit "$EXHAUSTIVE_LIMIT"}
        done
        ;;
    split)
        # Pipeline 2 tuned in two halves, as the beam former's read-write
        # independence allows: the front (FIR, FFT, beam former's read
        # layouts) fixed at what pruning found for Pipeline 1 (the pipelines
        # part, in pipelines.db), the back half (the beam former's write and
        # the correlator's read layouts, and the scheme) measured whole.
        for fft in true false; do
            front=$(best_config "$out/pipelines.db" 1 "$([ $fft = true ] && echo 1 || echo 0)" prune)
            if [ -z "$front" ]; then
                echo "== split: no pruned Pipeline 1 with fft=$fft in $out/pipelines.db; run the pipelines part first" >> "$log"
                continue
            fi
            # shellcheck disable=SC2046,SC2086
            run run --plugin lofar_pipeline --preset thesis ${PIPELINE_SET:-} --set pipeline=2 \
                --set fft=$fft $(pin "$front" fir_layout fft_layout bf_in_layout) \
                --strategy exhaustive --seed 1 --db "$out/pipelines-split.db"
        done
        ;;
    recheck)
        # The comparison's pipelines measured again with many runs, each
        # pinned alone, in rounds a database each (a database never
        # measures a configuration twice): on a device whose speed changes
        # in bursts of seconds (a shared VM's CPU), all the runs of one
        # measurement can fall in one, the rounds' fastest rarely. Each
        # entry is PIPELINE:FFT:CONFIG (a configuration holds no colon).
        entries=""
        for pipeline in 1 2; do
            if [ $pipeline = 1 ]; then known=pipelines-exhaustive.db; else known=pipelines-split.db; fi
            for fft in 1 0; do
                default=$(best_config "$out/pipelines.db" $pipeline $fft exhaustive)
                pruned=$(best_config "$out/pipelines.db" $pipeline $fft prune)
                best=$(best_config "$out/$known" $pipeline $fft exhaustive)
                for config in $(printf '%s\n' "$default" "$pruned" "$best" | awk 'NF && !seen[$0]++'); do
                    entries="$entries $pipeline:$fft:$config"
                done
            done
        done
        for round in $(seq 1 "${RECHECK_ROUNDS:-3}"); do
            for entry in $entries; do
                pipeline=${entry%%:*}
                fft=${entry#*:}
                config=${fft#*:}
                fft=${fft%%:*}
                # shellcheck disable=SC2046,SC2086
                run run --plugin lofar_pipeline --preset thesis ${PIPELINE_SET:-} \
                    --set pipeline=$pipeline --set fft=$([ $fft = 1 ] && echo true || echo false) \
                    $(pin "$config") --strategy exhaustive --seed 1 --runs "${RECHECK_RUNS:-100}" \
                    --db "$out/pipelines-recheck-$round.db"
            done
        done
        ;;
    *)
        echo "pipelines.sh: unknown part '$part' (transpose, independence, pipelines, exhaustive, split, recheck)" >&2
        exit 2
        ;;
    esac
done
