#!/bin/sh
# What the seeds found, measured on a GPU (issue 30): each part a few
# campaigns into small databases in OUT_DIR, its log OUT_DIR/seeds-PART.log,
# and a summary beside the papers' figures (seeds_summary.py) appended to
# OUT_DIR/seeds-summary.txt and printed at the end.
#   usage: seeds_gpu.sh OUT_DIR DEVICE_SUBSTRING [PART ...]
#   PART (default: all, in this order; about 8 minutes on an H100 in all):
#     correlator    the thesis preset over the new cells (sides up to 8, area
#                   at most 16) in both cell orders, exhaustively over
#                   work-groups of 64 to 512 and staged blocks of 16 or 32
#                   samples, LOFAR's input layout, 3 timed runs (~2 min)
#     stations      the correlator at 128 and 256 stations, 40 configurations
#                   each by bayes over the same restriction (~1.5 min)
#     pipeline      Pipeline 2 with and without the FFT, at LOFAR's layouts
#                   and at the best known ones (docs/results/pipelines.md),
#                   with the thesis's 1x6 correlator cells in either order
#                   (~1 min)
#     gridding      float_atomics cas against native for each variant's best
#                   H100 configuration (gridding-h100-*.db) at the uniform
#                   and concentrated presets, and the concentrated hybrid's
#                   central box alone (~1.5 min)
#     atomics       the gridding variants that update with atomics (atomic,
#                   romein), tuned by bayes (ATOMICS_BUDGET configurations,
#                   default 16) with float_atomics=cas and =native apart, at
#                   the uniform and concentrated presets (~4 min)
#     transfers     the PPF (lofar_64x64) and Pipelines 1 and 2 with their
#                   host-device copies as parts (--transfers) (~1 min)
#     dedispersion  the paper's zero-DM experiment against the real delays,
#                   each instance exhaustive, in both setups, at DEDISP_DMS
#                   (~2.5 min; see below)
# Three calls of under 9 minutes each, e.g.:
#   seeds_gpu.sh OUT NVIDIA correlator stations pipeline      (~3.5 min)
#   seeds_gpu.sh OUT NVIDIA gridding transfers                (~2.5 min)
#   seeds_gpu.sh OUT NVIDIA dedispersion                      (~2.5 min)
# Environment, all optional:
#   RUNS         timed runs per configuration (default 3; 10 for the pipeline
#                and transfers parts)
#   DEDISP_DMS   the numbers of DMs measured (default 2). The paper's sweep
#                does not fit this script: an exhaustive instance on a GPU of
#                1024 work-items holds, from 2 to 4096 DMs, 827, 1681, 2661,
#                3453, 4047, 4401, 4569 and then 4633 configurations (Apertif;
#                LOFAR 991 to 5557): some 45,000 for Apertif's twelve, about
#                40 minutes at the campaign engine's 50 ms a configuration
#                before the kernels' own time, which grows with the DMs to
#                tens of milliseconds a run; twice that with the zero-DM
#                experiment, twice again with LOFAR. That is the campaign
#                files docs/campaigns/dedispersion-sweep-{apertif,lofar}.yaml
#                (skytune campaign run). 2 DMs is the largest instance of
#                each setup that fits here, real and zero DMs together.
#   DEDISP_LIMIT the --time-limit of each dedispersion campaign (default 60s):
#                a cap, so that a slower device ends the part in time; the
#                summary's configuration counts say whether each instance
#                was measured whole
# Run from a bundle (bench/experiments/bundle.sh) or from a source tree with
# build/skytune; SKYTUNE=path overrides.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$1
device=$2
shift 2
parts=${*:-correlator stations pipeline gridding atomics transfers dedispersion}
runs=${RUNS:-3}
. "$here/find_skytune.sh"
mkdir -p "$out"
summary="$out/seeds-summary.txt"

# One skytune command into the part's log, with its exit status and wall time.
run() {
    t0=$(date +%s.%N)
    echo "== skytune $*" >> "$log"
    "$sk" "$@" --device "$device" --quiet >> "$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v rc="$rc" \
        'BEGIN { printf "== exit %d, wall %.1f s\n", rc, b - a }' >> "$log"
}

# The correlator's restriction: the GPU optima's work-groups (the thesis's
# 96 to 320), staged blocks long enough to amortise their barriers.
corr_restrict="wg_size >= 64 and wg_size <= 512 and (use_local == 0 or block_time >= 16)"

# LOFAR's layouts and the best known Pipeline 2 layouts (the split campaign
# of docs/results/pipelines.md), with and without the FFT: --only lists whose
# product holds both, measured exhaustively.
pipe_fft="--only fir_layout=TPSC,SPTC --only fft_layout=TPSC,SPTC --only bf_in_layout=CSTP,SCTP"
pipe_fft="$pipe_fft --only bf_out_layout=CBTP,CTBP --only corr_layout=CTBP"
pipe_nofft="--only fir_layout=TPSC,STCP --only bf_in_layout=CSTP,SCTP"
pipe_nofft="$pipe_nofft --only bf_out_layout=CBTP,CTBP --only corr_layout=CTBP"
corr_1x6="cell_width=1,cell_height=6,wg_size=64,use_local=0,block_time=4"

# Each gridding variant's best H100 configuration (docs/results/gridding-h100-*.db).
grid_uniform="(variant == 'atomic' and wg_size == 256 and reorder_kernels == 1) or
 (variant == 'romein' and wg_size == 128 and reorder_kernels == 0 and romein_loop == 'strided') or
 (variant == 'tiled' and wg_size == 128 and tile_size == 32 and groups_per_tile == 4 and tile_registers == 0 and reorder_kernels == 1) or
 (variant == 'hybrid' and wg_size == 32 and tile_size == 16 and groups_per_tile == 16 and tile_registers == 0 and box_radius == 16 and tiled_fraction == 0.75 and reorder_kernels == 1)"
grid_concentrated="(variant == 'atomic' and wg_size == 16 and reorder_kernels == 0) or
 (variant == 'romein' and wg_size == 128 and reorder_kernels == 0 and romein_loop == 'strided') or
 (variant == 'tiled' and wg_size == 32 and tile_size == 8 and groups_per_tile == 4 and tile_registers == 1 and reorder_kernels == 0) or
 (variant == 'hybrid' and wg_size == 32 and tile_size == 16 and groups_per_tile == 16 and tile_registers == 0 and box_radius == 8 and (tiled_fraction == 0.75 or tiled_fraction == 1.0) and reorder_kernels == 1)"

for part in $parts; do
    log="$out/seeds-$part.log"
    : > "$log"
    case $part in
    correlator)
        db="$out/seeds-correlator.db"
        run run --plugin correlator --preset thesis --only in_layout=CTSP \
            --restrict "$corr_restrict" --strategy exhaustive --runs "$runs" --seed 1 --db "$db"
        python3 "$here/seeds_summary.py" correlator "$db" >> "$summary"
        ;;
    stations)
        db="$out/seeds-stations.db"
        for preset in stations128 stations256; do
            run run --plugin correlator --preset $preset --only in_layout=CTSP \
                --restrict "$corr_restrict" --strategy bayes --budget 40 --runs "$runs" \
                --seed 1 --db "$db"
        done
        python3 "$here/seeds_summary.py" stations "$db" >> "$summary"
        ;;
    pipeline)
        db="$out/seeds-pipeline.db"
        for order in column row; do
            # shellcheck disable=SC2086
            run run --plugin lofar_pipeline --preset thesis --set pipeline=2 --set fft=true \
                --set "corr_config=$corr_1x6,cell_order=$order" $pipe_fft \
                --strategy exhaustive --runs 10 --seed 1 --db "$db"
            # shellcheck disable=SC2086
            run run --plugin lofar_pipeline --preset thesis --set pipeline=2 --set fft=false \
                --set "corr_config=$corr_1x6,cell_order=$order" $pipe_nofft \
                --strategy exhaustive --runs 10 --seed 1 --db "$db"
        done
        python3 "$here/seeds_summary.py" pipeline "$db" >> "$summary"
        ;;
    gridding)
        db="$out/seeds-gridding.db"
        run run --plugin gridding --preset uniform --restrict "$grid_uniform" \
            --strategy exhaustive --runs "$runs" --timeout-cap 60s --seed 1 --db "$db"
        run run --plugin gridding --preset concentrated --restrict "$grid_concentrated" \
            --strategy exhaustive --runs "$runs" --timeout-cap 60s --seed 1 --db "$db"
        python3 "$here/seeds_summary.py" gridding "$db" >> "$summary"
        ;;
    transfers)
        db="$out/seeds-transfers.db"
        ppf_best="--only wg_size=128 --only channels_per_item=1 --only samples_per_item=16"
        ppf_best="$ppf_best --only both_pols=0 --only out_layout=TPSC"
        for flag in "" --transfers; do
            # shellcheck disable=SC2086
            run run --plugin ppf --preset lofar_64x64 $ppf_best $flag --strategy exhaustive \
                --runs 10 --seed 1 --db "$db"
            # LOFAR's layouts. Pipeline 1 ends at the beam former, so with
            # the FIR and the FFT in one layout nothing is transposed but
            # the FFT's output (scheme common); Pipeline 2 transposes the
            # beam former's output for the correlator.
            for pipeline in 1 2; do
                scheme=common
                [ $pipeline = 2 ] && scheme=transpose
                # shellcheck disable=SC2086
                run run --plugin lofar_pipeline --preset thesis --set pipeline=$pipeline \
                    --only fir_layout=TPSC --only fft_layout=TPSC --only bf_in_layout=CSTP \
                    --only bf_out_layout=CBTP --only corr_layout=CTBP --only scheme=$scheme \
                    $flag --strategy exhaustive --runs 10 --seed 1 --db "$db"
            done
        done
        python3 "$here/seeds_summary.py" transfers "$db" >> "$summary"
        ;;
    atomics)
        # The variants that update the grid with atomics only (atomic,
        # romein), tuned with each kind of float atomic add on its own, so
        # that each kind's best is a tuned optimum, not the other kind's
        # optimum measured again.
        db="$out/seeds-atomics.db"
        for preset in uniform concentrated; do
            for variant in atomic romein; do
                for atomics in cas native; do
                    run run --plugin gridding --preset $preset --only variant=$variant \
                        --only float_atomics=$atomics --strategy bayes --budget "${ATOMICS_BUDGET:-16}" \
                        --runs "$runs" --timeout-cap 60s --seed 1 --db "$db"
                done
            done
        done
        python3 "$here/seeds_summary.py" atomics "$db" >> "$summary"
        ;;
    dedispersion)
        db="$out/seeds-dedispersion.db"
        for preset in apertif lofar; do
            for dms in ${DEDISP_DMS:-2}; do
                for zero in false true; do
                    run run --plugin dedispersion --preset $preset --set dms="$dms" \
                        --set zero_dm=$zero --strategy exhaustive \
                        --time-limit "${DEDISP_LIMIT:-60s}" --runs "$runs" --seed 1 --db "$db"
                done
            done
        done
        python3 "$here/seeds_summary.py" dedispersion "$db" >> "$summary"
        ;;
    *)
        echo "seeds_gpu.sh: unknown part '$part' (correlator, stations, pipeline, gridding, atomics," \
             "transfers, dedispersion)" >&2
        exit 2
        ;;
    esac
    grep '^== exit' "$log" | awk -v p="$part" '{ s += $5 } END { printf "== %s: %d commands, %.0f s\n", p, NR, s }' >> "$summary"
done
cat "$summary"
