# run_scripts/hpcc_full.sh - the full mode of hpcc_submission.sh (sourced by
# it after its options are checked): HPC Challenge 1.5 itself, bin/hpcc
# (baseline) and bin/hpcc-opt (ra_opt as its MPIRandomAccess), both from one
# hpccinf.txt, each writing the hpccoutf.txt HPCC writes, and the summary
# side by side.  Uses the caller's NP, MEM, OUTDIR, RA_BIN, RA_LAUNCH.
# shellcheck shell=bash

# hpccinf.txt for NP ranks and MEM bytes per rank: HPL's matrix (8 N^2
# bytes) takes half of the ranks' memory, N a multiple of NB raised where
# needed so that HPCC's RandomAccess gets the table ra_base and ra_opt take
# from -m (the largest power of two in half of NP*MEM); the grid P x Q the squarest with
# P <= Q (HPL's advice); PTRANS, FFT, STREAM and DGEMM size themselves from
# the same memory (HPCC's rules).
hpcc_inf_for() {
    local np=$1 mem=$2
    awk -v p="$np" -v m="$mem" 'BEGIN {
        w = p * m / 16                       # N^2: words of the matrix
        n = int(sqrt(w))
        nb = 128
        if (n < 4 * nb) nb = int(n / 4)
        if (nb < 8) nb = 8
        n = int(n / nb) * nb
        if (n < nb) { print "-"; exit }
        # HPCC'"'"'s table is the largest power of two <= N^2 words: N no
        # smaller than the root of the one in w, so it is that one (a row
        # block above half of the memory at most)
        for (t = 1; t * 2 <= w; t *= 2) ;
        while (n * n < t) n += nb
        for (P = int(sqrt(p)); P > 1 && p % P; P--) ;
        print n, nb, P, p / P }'
}

hpcc_inf_text() {
    ra_hpcc_inf "hpcc_submission.sh --full" "$1" "$2" "$3" "$4" "8 N^2 = half of $5 ranks x $6 bytes"
}

# A byte count as ra_check's "bytes" allows it (K/M/G/T: powers of 1024,
# as ra_base's and ra_opt's --mem), as digits.
hpcc_bytes() {
    [[ "$1" =~ ^([0-9]{1,18})([KkMmGgTt]?) ]] || ra_bad "-m" "$1" "a byte count with an optional K/M/G/T suffix, e.g. 2G"
    awk -v n="${BASH_REMATCH[1]}" -v s="${BASH_REMATCH[2]}" 'BEGIN {
        f = 1; s = toupper(s)
        if (s == "K") f = 2^10; else if (s == "M") f = 2^20; else if (s == "G") f = 2^30; else if (s == "T") f = 2^40
        printf "%.0f", n * f }'
}

# The MPI library a binary is linked with, as a flavour name ("" unknown).
hpcc_linked_flavour() {
    case "$(ldd "$1" 2>/dev/null | grep -oE 'libmpich[^ ]*|libmpi\.so[^ ]*' | head -1)" in
    libmpich*) echo mpich ;;
    libmpi.so*) echo openmpi ;;
    esac
}

hpcc_full_run() {
    local b fl lf mem rpn
    for b in hpcc hpcc-opt; do
        [ -x "$RA_BIN/$b" ] || ra_die "--full needs bin/$b: build HPCC first with 'make hpcc' (HPCC_SRC=<tarball, tree or git checkout>, or none on Debian)"
    done
    fl=$(ra_flavour)
    for b in hpcc hpcc-opt; do
        lf=$(hpcc_linked_flavour "$RA_BIN/$b")
        [ -z "$fl" ] || [ -z "$lf" ] || [ "$fl" = "$lf" ] ||
            ra_die "bin/$b is built for $lf and the kit's binaries for $fl: run 'make hpcc MPI=$fl'"
    done
    # ranks on this node: Slurm's count, else all of them (one machine)
    rpn=${SLURM_NTASKS_PER_NODE:-$NP}
    rpn=${rpn%%[!0-9]*}
    rpn=${rpn:-1}
    local node_bytes
    node_bytes=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
    mem=$MEM
    if [ -z "$mem" ]; then
        # ra_*'s default: half of the node's RAM shared by its ranks
        mem=$(awk -v t="$node_bytes" -v r="$rpn" 'BEGIN { printf "%.0f", t / 2 / r }')
    fi
    mem=$(hpcc_bytes "$mem")
    # HPCC allocates what -m gives it: refuse before anything runs when the
    # node cannot hold it (as ra_*'s --dry-run does in the other mode)
    if awk -v m="$mem" -v r="$rpn" -v t="$node_bytes" 'BEGIN { exit !(m * r > t) }'; then
        echo "$RA_SCRIPT: error: -m $mem bytes per process for $rpn processes on this node need more than its $node_bytes bytes of memory: allowed at most $(awk -v t="$node_bytes" -v r="$rpn" 'BEGIN { printf "%.0f", t / r }') per process" >&2
        exit 3
    fi
    local size
    size=$(hpcc_inf_for "$NP" "$mem")
    [ "$size" != - ] || ra_die "-m $mem over -n $NP: HPL's matrix would be smaller than one 8x8 block: allowed more memory per process"
    local n nb p q
    read -r n nb p q <<<"$size"
    ra_stage "$OUTDIR"
    local stage=$RA_STAGE
    mkdir -- "$stage/baseline" "$stage/optimized" || { echo "$RA_SCRIPT: error: cannot write in $OUTDIR" >&2; exit 3; }
    hpcc_inf_text "$n" "$nb" "$p" "$q" "$NP" "$mem" | ra_atomic_write "$stage/hpccinf.txt" ||
        { echo "$RA_SCRIPT: error: cannot write $OUTDIR/hpccinf.txt" >&2; exit 3; }
    echo "# hpcc-ra submission (HPCC 1.5, the whole suite): $NP processes, $mem bytes each, HPL N=$n NB=$nb grid ${p}x$q, output in $OUTDIR"
    echo "# launcher: ${RA_LAUNCH[*]}"
    local worst=0 run prog dir start rc ok
    for run in optimized baseline; do
        if [ $run = baseline ]; then prog=hpcc; else prog=hpcc-opt; fi
        dir=$stage/$run
        cp -- "$stage/hpccinf.txt" "$dir/hpccinf.txt" || { echo "$RA_SCRIPT: error: cannot write in $OUTDIR" >&2; exit 3; }
        echo "# [$run] $prog: HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT, latency/bandwidth ..."
        start=$(date +%s)
        (cd "$dir" && "${RA_LAUNCH[@]}" "$RA_BIN/$prog") >"$dir/stdout.txt" 2>"$dir/stderr.txt"
        rc=$?
        [ -s "$dir/stderr.txt" ] && sed "s/^/#   /" "$dir/stderr.txt"
        ok=$(ra_hpcc_key "$dir/hpccoutf.txt" Success)
        # HPCC exits 0 whatever it found: its Success key says
        [ $rc = 0 ] && [ "$ok" != 1 ] && rc=1
        # hpcc-opt says on stdout that its MPIRandomAccess was the kit's
        if [ $run = optimized ] && [ $rc = 0 ] && [ "$(grep -c '^hpcc-opt: MPIRandomAccess' "$dir/stdout.txt")" != 2 ]; then
            echo "$RA_SCRIPT: error: bin/hpcc-opt ran HPCC's own MPIRandomAccess, not ra_opt: rebuild it with 'make hpcc'" >&2
            rc=1
        fi
        echo "# [$run] exit $rc after $(($(date +%s) - start)) s: Success=$ok, MPIRandomAccess errors $(ra_hpcc_key "$dir/hpccoutf.txt" MPIRandomAccess_Errors) and $(ra_hpcc_key "$dir/hpccoutf.txt" MPIRandomAccess_LCG_Errors) (LCG)"
        [ $rc -gt $worst ] && worst=$rc
        # refused at the start (usage, settings the ranks disagree on, no
        # memory): no result, so nothing is kept and OUTDIR stays as it was
        if [ $rc = 2 ] || { [ $rc -ge 3 ] && [ ! -s "$dir/hpccoutf.txt" ]; }; then
            # shellcheck disable=SC2034 # read by common.sh's exit handler
            RA_STAGE_FAILED=""
            echo "$RA_SCRIPT: error: $prog refused the run (exit $rc, its message above): nothing written, $OUTDIR as it was" >&2
            exit $rc
        fi
        # shellcheck disable=SC2034 # read by common.sh's exit handler: keep the files
        RA_STAGE_FAILED=1
    done
    hpcc_full_summary "$stage" "$n" "$nb" "$p" "$q" "$mem" | ra_atomic_write "$stage/summary.txt" ||
        { echo "$RA_SCRIPT: error: cannot write $OUTDIR/summary.txt" >&2; exit 3; }
    cat "$stage/summary.txt"
    if [ $worst = 0 ]; then
        ra_stage_commit || exit 3
    fi
    return $worst
}


hpcc_full_summary() {
    local stage=$1 k b o ratio
    echo "HPC Challenge 1.5 submission by hpcc-ra, $(date '+%Y-%m-%d %H:%M'), host $(hostname)"
    echo "$NP processes ($(ra_hpcc_key "$stage/baseline/hpccoutf.txt" CommWorldProcs) in HPCC's count), $6 bytes each, launcher ${LAUNCHER:-mpirun}"
    echo "HPL N=$2 NB=$3 grid ${4}x$5; MPIRandomAccess table $(ra_hpcc_key "$stage/baseline/hpccoutf.txt" MPIRandomAccess_N) words"
    echo "files: hpccinf.txt, baseline/hpccoutf.txt (bin/hpcc), optimized/hpccoutf.txt (bin/hpcc-opt: ra_opt as MPIRandomAccess)"
    echo
    printf '%-34s %14s %14s %10s\n' "Summary key" baseline optimized opt/base
    for k in HPL_Tflops StarDGEMM_Gflops SingleDGEMM_Gflops PTRANS_GBs MPIRandomAccess_GUPs MPIRandomAccess_LCG_GUPs \
        StarRandomAccess_GUPs SingleRandomAccess_GUPs StarRandomAccess_LCG_GUPs SingleRandomAccess_LCG_GUPs \
        StarSTREAM_Triad SingleSTREAM_Triad MPIFFT_Gflops StarFFT_Gflops SingleFFT_Gflops \
        MinPingPongLatency_usec MaxPingPongBandwidth_GBytes RandomlyOrderedRingLatency_usec \
        RandomlyOrderedRingBandwidth_GBytes HPL_N HPL_NB HPL_nprow HPL_npcol MPIRandomAccess_N \
        MPIRandomAccess_ExeUpdates MPIRandomAccess_LCG_ExeUpdates MPIRandomAccess_Errors MPIRandomAccess_LCG_Errors \
        MPIRandomAccess_TimeBound PTRANS_residual MPIFFT_maxErr Success; do
        b=$(ra_hpcc_key "$stage/baseline/hpccoutf.txt" "$k")
        o=$(ra_hpcc_key "$stage/optimized/hpccoutf.txt" "$k")
        ratio=""
        case "$k" in *GUPs | *flops | *GBs | *Triad | *GBytes | *_usec)
            ratio=$(awk -v b="$b" -v o="$o" 'BEGIN { if (b + 0 > 0 && o + 0 > 0) printf "%.2f", o / b }') ;;
        esac
        printf '%-34s %14s %14s %10s\n' "$k" "$b" "$o" "$ratio"
    done
}
