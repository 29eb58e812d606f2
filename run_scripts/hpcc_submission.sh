#!/bin/bash
# run_scripts/hpcc_submission.sh - an HPCC submission in one command.
#
# Full mode (--full; the default once `make hpcc` has built bin/hpcc and
# bin/hpcc-opt): HPC Challenge 1.5 itself, the whole suite (HPL, DGEMM,
# STREAM, PTRANS, RandomAccess, FFT, latency/bandwidth), twice from one
# hpccinf.txt sized from -m: bin/hpcc, HPCC as HPCC builds it (the baseline
# submission), and bin/hpcc-opt, the same with ra_opt as its MPIRandomAccess
# (the optimized one).  Each run's hpccoutf.txt is the one HPCC wrote.
#
# RandomAccess-only mode (--ra-only; the default without bin/hpcc, and with
# -k, -t, -O or options after --): runs the baseline (bin/ra_base, HPCC's standard algorithm) and the optimized
# (bin/ra_opt) algorithm, each with MPI, Star and Single RandomAccess for both
# generators (LFSR and LCG) under HPCC's 60-second time bound, and writes
#   OUTDIR/baseline/hpccoutf.txt    HPCC 1.5 output of the baseline run
#   OUTDIR/optimized/hpccoutf.txt   HPCC 1.5 output of the optimized run
#   OUTDIR/summary.txt              both runs side by side
# plus each run's key block (stdout.txt) and results.json.  HPCC keeps baseline
# and optimized results apart (two submissions), hence two hpccoutf.txt files.
# A re-run into the same OUTDIR replaces them only when both runs verified;
# a refused run leaves OUTDIR as it was, a failed one puts its files in
# OUTDIR/failed-DATE-TIME.XXXXXX beside the earlier ones (issue 33).
set -u
RA_SCRIPT=hpcc_submission.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
ra_guard_stdout

usage() {
    cat <<EOF
usage: $0 [options] [-- extra ra_base/ra_opt options]
Every option, those after -- too (checked by the binaries' --dry-run), is
checked before anything is made or launched.
  --full       the whole HPCC suite: bin/hpcc and bin/hpcc-opt (make hpcc)
               [default when both are built and none of -k -t -O -- is given]
  --ra-only    RandomAccess only: bin/ra_base and bin/ra_opt [default otherwise]
  -n NP        MPI processes [default: \$SLURM_NTASKS, else nproc]
  -m MEM       memory per process given to the benchmark, K/M/G suffix; the table
               is the largest power of two in half of NP*MEM (HPCC's sizing);
               --full: HPL's matrix takes that half (8 N^2 = NP*MEM/2), which
               gives HPCC's RandomAccess the same table
               [default: half of RAM / ranks per node]
  -k K         table of 2^K words instead of sizing from memory [default: none]
  -t SECONDS   HPCC time bound of the MPI tests [default: 60]
  -o DIR       output directory [default: hpcc-submission-DATE]
  -O ARGS      extra options for ra_opt only, e.g. "--dims 4x4x2" [default: none]
  -h           this help
environment: LAUNCHER=mpirun|srun [mpirun], MPIRUN (which mpirun) [matches
  the build], LAUNCHER_ARGS (extra launcher options) [none], RA_BIN [bin/],
  OMP_NUM_THREADS for Star/Single [1]
exit: 0 both runs verified, 1 a run failed verification, 2 usage, 3 resource/MPI
A re-run into DIR replaces the files of an earlier one only at exit 0: a
refused run leaves DIR as it was, a failed one writes DIR/failed-DATE-TIME.*/.
EOF
}

# every value from its option alone (the Slurm template turns its sbatch
# --export variables into these options); SLURM_NTASKS is the launcher's
NP=${SLURM_NTASKS:-$(nproc)}
MEM=""
K=""
TIME_BOUND=60
OUTDIR=hpcc-submission-$(date +%Y%m%d-%H%M%S)
OPT_ARGS=""
RA_OPTSPEC='-n uint:1:1048576 NP
-m bytes MEM
-k uint:1:62 K
-t seconds TIME_BOUND
-o name OUTDIR
-O text OPT_ARGS
--full flag FULL
--ra-only flag RA_ONLY
-h help -'
FULL=""
RA_ONLY=""
ra_parse_opts "$@"
[ ${#RA_ARGS[@]} = 0 ] || ra_die "unexpected argument '$(ra_show "${RA_ARGS[0]}")': allowed options, then -- and ra_base/ra_opt options"
EXTRA=(${RA_REST[@]+"${RA_REST[@]}"})
[ -n "$FULL" ] && [ -n "$RA_ONLY" ] && ra_die "--full and --ra-only both given: use one of them"

# the values, before anything runs
ra_check "-n" uint:1:1048576 "$NP"
[ -n "$MEM" ] && ra_check "-m" bytes "$MEM"
ra_check "-t" seconds "$TIME_BOUND"
ra_check "-o" name "$OUTDIR"
[ -n "$K" ] && [ -n "$MEM" ] && ra_die "-k and -m both given: use one of them"
ra_find_bin
ra_launcher "$NP"
ra_out_dir "-o" "$OUTDIR"
# the whole suite: when asked, or by default once HPCC is built and nothing
# of the RandomAccess-only mode was asked for
ra_only_opts=""
[ -n "$K" ] && ra_only_opts="$ra_only_opts -k"
[ "$TIME_BOUND" != 60 ] && ra_only_opts="$ra_only_opts -t"
[ -n "$OPT_ARGS" ] && ra_only_opts="$ra_only_opts -O"
[ ${#EXTRA[@]} -gt 0 ] && ra_only_opts="$ra_only_opts --"
if [ -n "$FULL" ]; then
    [ -z "$ra_only_opts" ] || ra_die "--full runs HPCC itself, sized by -m, with HPCC's own 60 s time bound and no options: ${ra_only_opts# } belong to --ra-only"
elif [ -z "$RA_ONLY" ] && [ -z "$ra_only_opts" ] && [ -x "$RA_BIN/hpcc" ] && [ -x "$RA_BIN/hpcc-opt" ]; then
    FULL=1
fi
if [ -n "$FULL" ]; then
    # shellcheck source=run_scripts/hpcc_full.sh
    . "$RA_HERE/hpcc_full.sh"
    hpcc_full_run
    exit $?
fi
SIZE=()
[ -n "$K" ] && SIZE=(--log2-table "$K")
[ -n "$MEM" ] && SIZE=(--mem "$MEM")
OPT_EXTRA=()
[ -n "$OPT_ARGS" ] && read -r -a OPT_EXTRA <<<"$OPT_ARGS"
COMMON=(--suite all --gen both --time-bound "$TIME_BOUND" "${SIZE[@]}" --no-progress)
# One rank per core: Star and Single run one thread per process, as HPCC's
# do, unless the caller chose otherwise.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# every option passed through, checked by the binaries themselves at NP
# ranks before anything is made or launched
ra_dry_run ra_base "$NP" "${COMMON[@]}" ${EXTRA[@]+"${EXTRA[@]}"}
ra_dry_run ra_opt "$NP" "${COMMON[@]}" ${OPT_EXTRA[@]+"${OPT_EXTRA[@]}"} ${EXTRA[@]+"${EXTRA[@]}"}
# The runs write into a folder of their own inside OUTDIR (common.sh's
# ra_stage): their files replace an earlier run's only when both runs
# verified; a refused run leaves OUTDIR as it was, a failed one keeps its
# files beside the earlier ones (OUTDIR/failed-DATE-TIME.XXXXXX).
ra_stage "$OUTDIR"
STAGE=$RA_STAGE
mkdir -- "$STAGE/baseline" "$STAGE/optimized" || { echo "$RA_SCRIPT: error: cannot write in $OUTDIR" >&2; exit 3; }

echo "# hpcc-ra submission: $NP processes, time bound ${TIME_BOUND} s, output in $OUTDIR"
echo "# launcher: ${RA_LAUNCH[*]}"
worst=0
# ra_opt first: what only a launch can check (its --dims, --map or
# --node-dim against the ranks; the table against the memory, the same for
# both) then refuses before anything has run
for run in optimized baseline; do
    if [ $run = baseline ]; then prog=ra_base; args=(); else prog=ra_opt; args=(${OPT_EXTRA[@]+"${OPT_EXTRA[@]}"}); fi
    dir=$STAGE/$run
    echo "# [$run] $prog: MPI, Star and Single RandomAccess, LFSR and LCG ..."
    start=$(date +%s)
    "${RA_LAUNCH[@]}" "$RA_BIN/$prog" "${COMMON[@]}" --output "$dir/hpccoutf.txt" --json "$dir/results.json" \
        ${args[@]+"${args[@]}"} ${EXTRA[@]+"${EXTRA[@]}"} >"$dir/stdout.txt" 2>"$dir/stderr.txt"
    rc=$?
    [ -s "$dir/stderr.txt" ] && sed "s/^/#   /" "$dir/stderr.txt"
    echo "# [$run] exit $rc after $(($(date +%s) - start)) s: $(grep -c '^status: passed' "$dir/stdout.txt") of 6 tests passed"
    [ $rc -gt $worst ] && worst=$rc
    # refused at the start (what depends on the ranks: the shape, the
    # memory): no result, so nothing is kept and OUTDIR stays as it was
    if [ $rc = 2 ] || { [ $rc = 3 ] && [ ! -s "$dir/hpccoutf.txt" ]; }; then
        RA_STAGE_FAILED=""
        echo "$RA_SCRIPT: error: $prog refused the run (exit $rc, its message above): nothing written, $OUTDIR as it was" >&2
        exit $rc
    fi
    RA_STAGE_FAILED=1
done


{
    ra_mpi_info "$STAGE/optimized/stdout.txt"
    echo "hpcc-ra RandomAccess submission, $(date '+%Y-%m-%d %H:%M'), host $(hostname)"
    echo "$NP processes, $RA_MPI_NAME $RA_MPI_VERSION, launcher ${LAUNCHER:-mpirun}, time bound ${TIME_BOUND} s"
    echo "MPI table 2^$(ra_key "$STAGE/optimized/stdout.txt" table_log2) words," \
        "Star/Single table 2^$(sed -n '/^test: star/,/^status/p' "$STAGE/optimized/stdout.txt" | sed -n 's/^table_log2: //p' | head -1) words per process"
    echo "files: baseline/hpccoutf.txt, optimized/hpccoutf.txt (HPCC 1.5 format)"
    echo
    printf '%-30s %14s %14s %10s\n' "Summary key" baseline optimized opt/base
    for k in MPIRandomAccess_GUPs MPIRandomAccess_LCG_GUPs StarRandomAccess_GUPs StarRandomAccess_LCG_GUPs \
        SingleRandomAccess_GUPs SingleRandomAccess_LCG_GUPs MPIRandomAccess_N MPIRandomAccess_ExeUpdates \
        MPIRandomAccess_LCG_ExeUpdates MPIRandomAccess_time MPIRandomAccess_LCG_time MPIRandomAccess_Errors \
        MPIRandomAccess_LCG_Errors MPIRandomAccess_TimeBound MPIRandomAccess_Algorithm Success; do
        b=$(ra_hpcc_key "$STAGE/baseline/hpccoutf.txt" "$k")
        o=$(ra_hpcc_key "$STAGE/optimized/hpccoutf.txt" "$k")
        ratio=""
        case "$k" in *GUPs) ratio=$(awk -v b="$b" -v o="$o" 'BEGIN { if (b + 0 > 0 && o + 0 > 0) printf "%.2f", o / b }') ;; esac
        printf '%-30s %14s %14s %10s\n' "$k" "$b" "$o" "$ratio"
    done
} | ra_atomic_write "$STAGE/summary.txt" || { echo "$RA_SCRIPT: error: cannot write $OUTDIR/summary.txt" >&2; exit 3; }
cat "$STAGE/summary.txt"
# both verified: the new files take the earlier ones' place; else the exit
# keeps them beside (ra__stage_end)
if [ $worst = 0 ]; then
    ra_stage_commit || exit 3
fi
exit $worst
