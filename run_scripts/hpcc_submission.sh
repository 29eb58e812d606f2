#!/bin/bash
# run_scripts/hpcc_submission.sh - an HPCC RandomAccess submission in one command.
#
# Runs the baseline (bin/ra_base, HPCC's standard algorithm) and the optimized
# (bin/ra_opt) algorithm, each with MPI, Star and Single RandomAccess for both
# generators (LFSR and LCG) under HPCC's 60-second time bound, and writes
#   OUTDIR/baseline/hpccoutf.txt    HPCC 1.5 output of the baseline run
#   OUTDIR/optimized/hpccoutf.txt   HPCC 1.5 output of the optimized run
#   OUTDIR/summary.txt              both runs side by side
# plus each run's key block (stdout.txt) and results.json.  HPCC keeps baseline
# and optimized results apart (two submissions), hence two hpccoutf.txt files.
set -u
RA_SCRIPT=hpcc_submission.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"

usage() {
    cat <<EOF
usage: $0 [options] [-- extra ra_base/ra_opt options]
  -n NP        MPI processes [default: \$NP, else \$SLURM_NTASKS, else nproc]
  -m MEM       memory per process given to the benchmark, K/M/G suffix; the table
               is the largest power of two in half of NP*MEM (HPCC's sizing)
               [default: \$MEM, else ra_*'s default: half of RAM / ranks per node]
  -k K         table of 2^K words instead of sizing from memory [default: none]
  -t SECONDS   HPCC time bound of the MPI tests [default: \$TIME_BOUND, else 60]
  -o DIR       output directory [default: \$OUTDIR, else hpcc-submission-DATE]
  -O ARGS      extra options for ra_opt only, e.g. "--dims 4x4x2" [default: \$OPT_ARGS]
  -h           this help
environment: LAUNCHER=mpirun|srun [mpirun], MPIRUN (which mpirun) [matches
  the build], LAUNCHER_ARGS (extra launcher options) [none], RA_BIN [bin/],
  OMP_NUM_THREADS for Star/Single [1]
exit: 0 both runs verified, 1 a run failed verification, 2 usage, 3 resource/MPI
EOF
}

NP=${NP:-${SLURM_NTASKS:-$(nproc)}}
MEM=${MEM:-}
K=""
TIME_BOUND=${TIME_BOUND:-60}
OUTDIR=${OUTDIR:-hpcc-submission-$(date +%Y%m%d-%H%M%S)}
OPT_ARGS=${OPT_ARGS:-}
while getopts "n:m:k:t:o:O:h" opt; do
    case $opt in
    n) NP=$OPTARG ;;
    m) MEM=$OPTARG ;;
    k) K=$OPTARG ;;
    t) TIME_BOUND=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    O) OPT_ARGS=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
EXTRA=("$@")

ra_need_uint "-n" "$NP"
[ "$NP" -ge 1 ] || ra_die "-n '$NP' is not valid: allowed at least 1 process"
[ -n "$K" ] && ra_need_uint "-k" "$K"
[ -n "$K" ] && [ -n "$MEM" ] && ra_die "-k and -m both given: use one of them"
case "$TIME_BOUND" in
'' | *[!0-9.]* | *.*.*) ra_die "-t '$TIME_BOUND' is not valid: allowed seconds, e.g. 60 (HPCC's bound) or 0.5" ;;
esac
ra_find_bin
ra_launcher "$NP"
# One rank per core: Star and Single run one thread per process, as HPCC's
# do, unless the caller chose otherwise.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$OUTDIR/baseline" "$OUTDIR/optimized" || { echo "$RA_SCRIPT: error: cannot create $OUTDIR" >&2; exit 3; }

SIZE=()
[ -n "$K" ] && SIZE=(--log2-table "$K")
[ -n "$MEM" ] && SIZE=(--mem "$MEM")
OPT_EXTRA=()
[ -n "$OPT_ARGS" ] && read -r -a OPT_EXTRA <<<"$OPT_ARGS"

echo "# hpcc-ra submission: $NP processes, time bound ${TIME_BOUND} s, output in $OUTDIR"
echo "# launcher: ${RA_LAUNCH[*]}"
worst=0
for run in baseline optimized; do
    if [ $run = baseline ]; then prog=ra_base; args=(); else prog=ra_opt; args=("${OPT_EXTRA[@]}"); fi
    dir=$OUTDIR/$run
    rm -f "$dir/hpccoutf.txt" "$dir/results.json"
    echo "# [$run] $prog: MPI, Star and Single RandomAccess, LFSR and LCG ..."
    start=$(date +%s)
    "${RA_LAUNCH[@]}" "$RA_BIN/$prog" --suite all --gen both --time-bound "$TIME_BOUND" \
        "${SIZE[@]}" --output "$dir/hpccoutf.txt" --json "$dir/results.json" --no-progress \
        "${args[@]}" "${EXTRA[@]}" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
    rc=$?
    [ -s "$dir/stderr.txt" ] && sed "s/^/#   /" "$dir/stderr.txt"
    echo "# [$run] exit $rc after $(($(date +%s) - start)) s: $(grep -c '^status: passed' "$dir/stdout.txt") of 6 tests passed"
    [ $rc -gt $worst ] && worst=$rc
done

# Summary key of one run's hpccoutf.txt, "-" when the run left none.
skey() {
    local v
    v=$(sed -n '/^Begin of Summary section/,/^End of Summary section/p' "$OUTDIR/$1/hpccoutf.txt" 2>/dev/null |
        sed -n "s/^$2=//p" | head -1)
    echo "${v:--}"
}

{
    ra_mpi_info "$OUTDIR/optimized/stdout.txt"
    echo "hpcc-ra RandomAccess submission, $(date '+%Y-%m-%d %H:%M'), host $(hostname)"
    echo "$NP processes, $RA_MPI_NAME $RA_MPI_VERSION, launcher ${LAUNCHER:-mpirun}, time bound ${TIME_BOUND} s"
    echo "MPI table 2^$(ra_key "$OUTDIR/optimized/stdout.txt" table_log2) words," \
        "Star/Single table 2^$(sed -n '/^test: star/,/^status/p' "$OUTDIR/optimized/stdout.txt" | sed -n 's/^table_log2: //p' | head -1) words per process"
    echo "files: baseline/hpccoutf.txt, optimized/hpccoutf.txt (HPCC 1.5 format)"
    echo
    printf '%-30s %14s %14s %10s\n' "Summary key" baseline optimized opt/base
    for k in MPIRandomAccess_GUPs MPIRandomAccess_LCG_GUPs StarRandomAccess_GUPs StarRandomAccess_LCG_GUPs \
        SingleRandomAccess_GUPs SingleRandomAccess_LCG_GUPs MPIRandomAccess_N MPIRandomAccess_ExeUpdates \
        MPIRandomAccess_LCG_ExeUpdates MPIRandomAccess_time MPIRandomAccess_LCG_time MPIRandomAccess_Errors \
        MPIRandomAccess_LCG_Errors MPIRandomAccess_TimeBound MPIRandomAccess_Algorithm Success; do
        b=$(skey baseline "$k")
        o=$(skey optimized "$k")
        ratio=""
        case "$k" in *GUPs) ratio=$(awk -v b="$b" -v o="$o" 'BEGIN { if (b + 0 > 0 && o + 0 > 0) printf "%.2f", o / b }') ;; esac
        printf '%-30s %14s %14s %10s\n' "$k" "$b" "$o" "$ratio"
    done
} | ra_atomic_write "$OUTDIR/summary.txt" || { echo "$RA_SCRIPT: error: cannot write $OUTDIR/summary.txt" >&2; exit 3; }
cat "$OUTDIR/summary.txt"
exit $worst
