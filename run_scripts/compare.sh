#!/bin/bash
# compare.sh - ra_base vs ra_opt on the same table and process count, in one
# go, beside the node's ceiling (every rank alone on its own block with
# HPCC's stream prefetched: what the memory system allows, --suite ceiling),
# HPCC's Star aggregate (the same without prefetches) and, when HPCC is
# installed, HPCC's own MPIRandomAccess on the same table and rank count.  Prints each GUPS and the
# ratios, then torusmodel's prediction and bounds for both runs (calibrated
# by ra_calibrate --quick at the same ranks and table).  A run measured
# above its bound is an inconsistency, never printed silently: an
# "inconsistent: ..." line under its row, a warning on stderr, and the
# count in the last line, "bound_exceeded: N".  The run's facts are keys
# too: "ratio A/B: R", "ceiling_kernel", "ceiling_depth", "fingerprint"
# (the two runs' own, equal) and "errors" (0: a run that fails
# verification stops compare.sh with exit 1).  A benchmark, not a
# test: read the ratios, not absolute times.
#
# usage: run_scripts/compare.sh [-n RANKS] [-k LOG2_TABLE] [--lcg] [--no-hpcc] [--no-model] [--keep DIR] [-- extra ra_opt options]
#   Every option, ra_opt's after -- too (by its --dry-run at RANKS), is
#   checked before anything prints or launches: one line and exit 2.
#   Launches like the other run scripts (common.sh): the mpirun matching the
#   build, MPI=mpich|openmpi or MPIRUN= to choose, LAUNCHER=srun in Slurm.
#   HPCC: the hpcc binaries to run, space separated [hpcc on PATH]; each runs
#   in a directory of its own with an hpccinf.txt sized so that its table is
#   2^K words (HPL and the other tests tiny), launched by HPCC_MPIRUN
#   [mpirun.openmpi, the Debian package's MPI, else mpirun].  A binary built
#   with RA_SANDIA_NOPT/OPT2 reports itself as such and is labelled so.
#   --no-model skips the calibration (7-20 s) and the prediction lines.
#   --keep DIR keeps every output (key blocks, hpccoutf.txt files, the
#   params file) in DIR; a re-run replaces them only when it ends with exit
#   0 (a refused run leaves DIR as it was, a failed one writes
#   DIR/failed-DATE-TIME.*/).
set -euo pipefail
RA_SCRIPT=compare.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
ra_guard_stdout
NP=2
K=27
GEN=lfsr
KEEP=""
HPCC=${HPCC-hpcc}
MODEL=1
LCG=0 NO_HPCC=0 NO_MODEL=0
RA_OPTSPEC='-n uint:1:1048576 NP
-k uint:1:62 K
--lcg flag LCG
--no-hpcc flag NO_HPCC
--no-model flag NO_MODEL
--keep name KEEP
-h help -
--help help -'
usage() { sed -n '2,/^set -/{ /^#/p; }' "$0"; }
ra_parse_opts "$@"
[ ${#RA_ARGS[@]} = 0 ] || ra_die "unexpected argument '$(ra_show "${RA_ARGS[0]}")' (see --help): ra_opt's options go after --"
set -- ${RA_REST[@]+"${RA_REST[@]}"}
[ "$LCG" = 1 ] && GEN=lcg
[ "$NO_HPCC" = 1 ] && HPCC=""
[ "$NO_MODEL" = 1 ] && MODEL=0
# the values from the environment too, before anything prints or runs
ra_check "-n" uint:1:1048576 "$NP"
ra_check "-k" uint:1:62 "$K"
[ -n "${MPI:-}" ] && MPIRUN=${MPIRUN:-mpirun.$MPI}
ra_find_bin
ra_launcher "$NP"
# ra_opt's options (after --) and the runs' own, checked by the binaries at
# NP ranks before anything is made or launched
ra_dry_run ra_base "$NP" --log2-table "$K" --gen $GEN --quiet --no-progress
ra_dry_run ra_opt "$NP" --log2-table "$K" --gen $GEN --quiet --no-progress "$@"
[ -n "$KEEP" ] && ra_out_dir "--keep" "$KEEP"
if [ -n "$KEEP" ]; then
    # a folder of its own inside DIR (common.sh's ra_stage): the outputs
    # replace an earlier run's only when this one ends with exit 0; a
    # refused run leaves DIR as it was, a failed one keeps its outputs in
    # DIR/failed-DATE-TIME.XXXXXX
    ra_stage "$KEEP"
    out=$RA_STAGE
else
    out=$(mktemp -d)
    # shellcheck disable=SC2016 # expanded when the script ends
    ra_on_exit 'rm -rf -- "$out"'
fi

# The HPCC binaries that are really there; one line for each that is not.
hpccs=()
for h in $HPCC; do
    if command -v "$h" >/dev/null 2>&1; then
        hpccs+=("$(command -v "$h")")
    else
        echo "# hpcc '$h' not found: its row is left out (apt-get install hpcc, or HPCC=<path>)"
    fi
done

# hpccinf.txt for HPCC's MPIRandomAccess on a 2^K-word table over NP ranks.
# HPCC sizes that table from HPL's largest matrix: per-process memory
# 8*N^2/(smallest grid), table = largest power of two <= NP*memory/8 words.
# A 1x1 grid makes that NP*N^2, so N ~ sqrt(2^K/NP) keeps HPL (which then
# runs on one rank), PTRANS, DGEMM, STREAM and FFT small; RandomAccess gets
# exactly 2^K words, checked after the run.
hpcc_inf() {
    local n nb
    n=$(awk -v k="$1" -v p="$2" 'BEGIN {
        lo = 2 ^ k; hi = 2 * lo; n = int(sqrt(lo / p)) + 1
        while (n > 1 && (n - 1) * (n - 1) * p >= lo) n--
        while (n * n * p < lo) n++
        if (n * n * p >= hi) n = 0
        print n }')
    [ "$n" -gt 0 ] || return 1
    nb=80
    [ "$n" -lt 320 ] && nb=$(((n + 3) / 4))
    ra_hpcc_inf compare.sh "$n" "$nb" 1 1 "RandomAccess table 2^$1 words over $2 ranks"
}

echo "# compare: $NP ranks, table 2^$K words, generator $GEN, $("${RA_LAUNCH[0]}" --version 2>&1 | grep -m1 -iE 'version|open' | tr -s ' ')"
# Star with one thread per rank: the same cores the MPI runs use; the
# ceiling is one thread per rank by construction.
OMP_NUM_THREADS=1 "${RA_LAUNCH[@]}" "$RA_BIN/ra_base" --log2-table "$K" --gen $GEN --suite star --quiet --no-progress >"$out/star"
"${RA_LAUNCH[@]}" "$RA_BIN/ra_opt" --log2-table "$K" --gen $GEN --suite ceiling --quiet --no-progress --no-verify >"$out/ceiling"
"${RA_LAUNCH[@]}" "$RA_BIN/ra_base" --log2-table "$K" --gen $GEN --quiet --no-progress >"$out/base"
"${RA_LAUNCH[@]}" "$RA_BIN/ra_opt" --log2-table "$K" --gen $GEN --quiet --no-progress "$@" >"$out/opt"
# our four runs ended: from here a failure keeps their outputs (--keep)
RA_STAGE_FAILED=1
for f in base opt; do
    [ "$(ra_key "$out/$f" errors)" = 0 ] || { echo "compare.sh: $f run failed verification" >&2; exit 1; }
done
[ "$(ra_key "$out/base" fingerprint)" = "$(ra_key "$out/opt" fingerprint)" ] || { echo "compare.sh: fingerprints differ" >&2; exit 1; }

# HPCC's own runs, right after ours; its launcher is its own MPI's mpirun.
hpcc_rows=()
if [ ${#hpccs[@]} -gt 0 ]; then
    if [ "${LAUNCHER:-mpirun}" = mpirun ]; then
        hm=${HPCC_MPIRUN:-}
        if [ -z "$hm" ]; then
            hm=mpirun
            command -v mpirun.openmpi >/dev/null 2>&1 && hm=mpirun.openmpi
        fi
        MPIRUN=$hm ra_launcher "$NP"
    fi
    sfx=""
    [ $GEN = lcg ] && sfx=_LCG
    i=0
    for h in "${hpccs[@]}"; do
        i=$((i + 1))
        d=$out/hpcc$i
        mkdir -p "$d"
        rm -f "$d/hpccoutf.txt"
        hpcc_inf "$K" "$NP" >"$d/hpccinf.txt" || ra_die "-k $K over -n $NP: no HPL size gives HPCC that table"
        if ! (cd "$d" && OMP_NUM_THREADS=1 "${RA_LAUNCH[@]}" "$h" >"$d/stdout" 2>&1); then
            echo "compare.sh: $h failed (see $d/stdout with --keep)" >&2
            exit 3
        fi
        hv() { sed -n '/^Begin of Summary section/,/^End of Summary section/p' "$d/hpccoutf.txt" | sed -n "s/^$1=//p" | head -1; }
        [ "$(hv MPIRandomAccess${sfx}_N)" = $((1 << K)) ] || ra_die "$h ran a table of $(hv MPIRandomAccess${sfx}_N) words, not 2^$K"
        case "$(hv MPIRandomAccess${sfx}_Algorithm)" in
        0) label=standard ;;
        1) label="Sandia NOPT" ;;
        2) label="Sandia OPT2" ;;
        *) label="algorithm $(hv MPIRandomAccess${sfx}_Algorithm)" ;;
        esac
        exe=$(hv MPIRandomAccess${sfx}_ExeUpdates)
        echo "# hpcc $i: $h, MPIRandomAccess_Algorithm=$(hv MPIRandomAccess${sfx}_Algorithm) ($label), $exe of $((4 << K)) updates (time bound $(hv MPIRandomAccess${sfx}_TimeBound) s), errors $(hv MPIRandomAccess${sfx}_Errors), Success=$(hv Success), $("${RA_LAUNCH[0]}" --version 2>&1 | grep -m1 -iE 'version|open' | tr -s ' ')"
        hpcc_rows+=("hpcc ($label)|$(hv MPIRandomAccess${sfx}_GUPs)|$(hv MPIRandomAccess${sfx}_time)")
    done
fi

star=$(ra_key "$out/star" gups_sum)
ceil=$(ra_key "$out/ceiling" gups_sum)
base=$(ra_key "$out/base" gups)
opt=$(ra_key "$out/opt" gups)
printf '%-28s %12s %10s %10s %10s\n' "# run" "GUPS" "time_s" "sbf" "mean_fill"
printf '%-28s %12.6f %10s %10s %10s\n' "ceiling (sum over ranks)" "$ceil" "$(ra_key "$out/ceiling" time_s)" - -
printf '%-28s %12.6f %10s %10s %10s\n' "star (sum over ranks)" "$star" "$(ra_key "$out/star" time_s)" - -
printf '%-28s %12.6f %10s %10s %10s\n' "ra_base" "$base" "$(ra_key "$out/base" time_s)" "$(ra_key "$out/base" sbf)" "$(ra_key "$out/base" mean_fill)"
printf '%-28s %12.6f %10s %10s %10s\n' "ra_opt ($(ra_key "$out/opt" shape))" "$opt" "$(ra_key "$out/opt" time_s)" "$(ra_key "$out/opt" sbf)" "$(ra_key "$out/opt" mean_fill)"
for r in ${hpcc_rows[@]+"${hpcc_rows[@]}"}; do
    IFS='|' read -r name g t <<<"$r"
    printf '%-28s %12.6f %10.6f %10s %10s\n' "$name" "$g" "$t" - -
done
echo "# ceiling: $(ra_key "$out/ceiling" ceiling_kernel) kernel at depth $(ra_key "$out/ceiling" ceiling_depth), the best of its trials"
# the same facts as keys, for scripts and tests (the line above is for people)
echo "ceiling_kernel: $(ra_key "$out/ceiling" ceiling_kernel)"
echo "ceiling_depth: $(ra_key "$out/ceiling" ceiling_depth)"
awk -v o="$opt" -v b="$base" -v s="$star" -v c="$ceil" 'BEGIN {
    printf "ratio ra_opt/ceiling: %.3f\nratio ra_opt/star: %.3f\nratio ra_opt/ra_base: %.2f\n", o / c, o / s, o / b
    printf "ratio ra_base/ceiling: %.3f\nratio ra_base/star: %.3f\nratio star/ceiling: %.3f\n", b / c, b / s, s / c }'
for r in ${hpcc_rows[@]+"${hpcc_rows[@]}"}; do
    IFS='|' read -r name g t <<<"$r"
    awk -v o="$opt" -v b="$base" -v s="$star" -v c="$ceil" -v h="$g" -v n="$name" 'BEGIN {
        printf "ratio ra_opt/%s: %.2f\nratio ra_base/%s: %.2f\nratio %s/star: %.3f\nratio %s/ceiling: %.3f\n",
               n, o / h, n, b / h, n, h / s, n, h / c }'
done
echo "fingerprint (both): $(ra_key "$out/opt" fingerprint), errors 0"
echo "fingerprint: $(ra_key "$out/opt" fingerprint)"
echo "errors: 0"

# The model: calibrate at these ranks and this table, then torusmodel for
# each run (routed on the shape ra_opt chose, direct over the ranks).
[ "$MODEL" = 1 ] || exit 0
ra_launcher "$NP" # the kit's own launcher again (the HPCC rows used HPCC's MPI)
if ! "${RA_LAUNCH[@]}" "$RA_BIN/ra_calibrate" --quick --log2-table "$K" --output "$out/model.params" >"$out/calibrate" 2>&1; then
    echo "# model: ra_calibrate failed (its output: $out/calibrate with --keep): no prediction"
    exit 0
fi
echo "# model: ra_calibrate --quick at $NP ranks, table 2^$K, then bin/torusmodel (routed for ra_opt, direct for ra_base)"
[ $# -gt 0 ] && echo "# model: the calibration ran ra_opt's defaults; this ra_opt ran with: $*"
printf '%-28s %12s %10s %12s %10s\n' "# run" "predicted" "meas/pred" "bound" "binding"
# model_row LABEL PARAMS ALGORITHM SHAPE MEASURED: the row; a measurement
# above its bound is an inconsistency (ra_over_bound), said on stderr and as
# an "inconsistent:" line, never printed silently
exceeded=0
model_row() {
    local r row b bind
    r=$("$RA_BIN/torusmodel" --params "$2" --algorithm "$3" --shape "$4" 2>&1) || {
        echo "# model: torusmodel failed for $1: $(printf '%s' "$r" | head -1)"
        return 0
    }
    row=$(printf '%s\n' "$r" | awk -v l="$1" -v g="$5" -F': ' '{ v[$1] = $2 }
        END { p = v["predicted_gups"] + 0
              printf "%-28s %12.6f %10.3f %12.6f %10s|%s|%s\n", l, p, (p > 0 ? g / p : 0), v["bound_gups"], v["binding"],
                     v["bound_gups"], v["binding"] }')
    echo "${row%%|*}"
    IFS='|' read -r _ b bind <<<"$row"
    if ra_over_bound "$1" "$5" "$b" "$bind"; then
        echo "inconsistent: $1 measured $5 GUPS > $bind bound $b GUPS"
        exceeded=$((exceeded + 1))
    fi
}
model_row "ra_base" "$out/model.params" direct "$NP" "$base"
model_row "ra_opt ($(ra_key "$out/opt" shape))" "$out/model.params" routed "$(ra_key "$out/opt" shape)" "$opt"

# The spec-only prediction: the hardware figures alone (ra_calibrate
# --probe: latency, misses in flight, bandwidth, instruction costs in cache;
# no GUPS run in its input), torusmodel's node model on ra_opt's shape.
if "${RA_LAUNCH[@]}" "$RA_BIN/ra_calibrate" --probe --quick --log2-table "$K" --output "$out/probe.params" \
    >"$out/probe" 2>&1; then
    model_row "ra_opt spec-only (probe)" "$out/probe.params" routed "$(ra_key "$out/opt" shape)" "$opt"
else
    echo "# model: ra_calibrate --probe failed (its output: $out/probe with --keep): no spec-only prediction"
fi
# every measurement against its bound: 0 rows above (a key, for scripts)
echo "bound_exceeded: $exceeded"
