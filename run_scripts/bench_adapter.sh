#!/bin/bash
# bench_adapter.sh - the MPI adapter (lib/<mpi>/libtorus_pmpi.so) against the
# MPI library it replaces, timed the way a user times it: IMB-MPI1's method
# (tests/tools/pmpi_imb.c: t_avg over back-to-back calls, roots moving,
# MPI_FLOAT sums, MPI_BYTE moves), ROUNDS interleaved rounds (each round
# runs the plain program and the preloaded one, which goes first
# alternating), then the median of the rounds per operation and size.
# Prints one row per (op, size): the library's median t_avg, the
# adapter's, and their ratio (adapter / library; under 1 the adapter is
# faster), then per op how many sizes are at or under 1.05x and the worst.
# A benchmark, not a test: read it on a quiet machine.  --ab: each round is
# one preloaded run that times every measurement twice in the same process,
# through PMPI_ (the library) and MPI_ (the adapter), alternating (pmpi_imb
# ab): what differs between separate runs (where the ranks landed) cancels.
#
# --split: the calls run on a communicator split from MPI_COMM_WORLD, as
# IMB-MPI1 runs its own (the adapter finds MPI_COMM_WORLD's state by
# itself, any other through its per-thread cache).
#
# --root fixed|moving|both [both]: Bcast and Reduce with root 0 on every
# call (IMB-MPI1's default, rows Bcast-root0 and Reduce-root0: a root
# that calls again before its readers are done shows there), with the
# root moving one rank a call (IMB's -root_shift on), or both.
#
# --imb PATH: time IMB-MPI1 itself (PATH: its binary, built for this MPI)
# instead of tests/tools/pmpi_imb, with its defaults (a barrier before
# every call, -npmin RANKS, -msglog 0:log2(MAX_BYTES)), plain against
# preloaded; its t_avg per (op, size) goes into the same table.
#
# --lib FILE: time that interposition library instead of the adapter, e.g.
# build/<mpi>/tests/libpmpi_bare.so, which only jumps to PMPI_ (what
# interposing alone costs under the same method).
#
# usage: run_scripts/bench_adapter.sh [-n RANKS] [-r ROUNDS] [-m MAX_BYTES] [--ops LIST] [--root fixed|moving|both] [--ab] [--split] [--imb PATH] [--lib FILE] [--keep DIR]
#   -n RANKS [2], -r ROUNDS [5], -m MAX_BYTES [1048576], --ops a comma-separated
#   subset of Bcast,Allreduce,Reduce,Alltoall,Barrier [all].  MPI=mpich|openmpi
#   picks the build (build/<mpi>*/tests/pmpi_imb but build/<mpi>-san, lib/<mpi>/libtorus_pmpi.so)
#   [the flavour of bin/]; MPIRUN= the launcher.  --keep DIR keeps every
#   round's raw output there.  Exit 2 on a bad option, 3 when the build or
#   a run is missing or fails.
set -euo pipefail
RA_SCRIPT=bench_adapter.sh
# shellcheck source=run_scripts/common.sh
. "$(dirname "$(readlink -f "$0")")/common.sh"
NP=2 ROUNDS=5 MAXB=1048576 OPS=Bcast,Allreduce,Reduce,Alltoall,Barrier KEEP="" AB=0 SPLIT=0 LIB_ARG="" ROOTS=both IMB_EXE=""
RA_OPTSPEC='-n uint:1:64 NP
-r uint:1:99 ROUNDS
-m uint:0:67108864 MAXB
--ops name OPS
--ab flag AB
--split flag SPLIT
--root name ROOTS
--imb name IMB_EXE
--lib name LIB_ARG
--keep name KEEP
-h help -
--help help -'
usage() { sed -n '2,/^set -/{ /^#/p; }' "$0"; }
ra_parse_opts "$@"
[ ${#RA_ARGS[@]} = 0 ] || ra_die "unexpected argument '$(ra_show "${RA_ARGS[0]}")' (see --help)"
for o in ${OPS//,/ }; do
    case "$o" in Bcast | Allreduce | Reduce | Alltoall | Barrier) ;; *) ra_bad --ops "$OPS" "a comma-separated subset of Bcast,Allreduce,Reduce,Alltoall,Barrier" ;; esac
done
case "$ROOTS" in fixed) ROOT_MODES=(fixed) ;; moving) ROOT_MODES=(moving) ;; both) ROOT_MODES=(moving fixed) ;; *) ra_bad --root "$ROOTS" "fixed, moving or both" ;; esac
if [ -n "$IMB_EXE" ]; then
    if [ ! -f "$IMB_EXE" ] || [ ! -x "$IMB_EXE" ]; then
        ra_bad --imb "$IMB_EXE" "the IMB-MPI1 binary (an executable file) built for this MPI"
    fi
    if [ "$AB" = 1 ] || [ "$SPLIT" = 1 ]; then
        ra_bad --imb "$IMB_EXE" "without --ab and --split (IMB-MPI1 runs its own way)"
    fi
    IMB_EXE=$(readlink -f "$IMB_EXE")
fi
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
RA_BIN=$ROOT/bin RA_HERE=$ROOT/run_scripts
MPI=${MPI:-$(ra_flavour)}
case "$MPI" in mpich | openmpi) ;; *) ra_bad MPI "$MPI" "mpich or openmpi" ;; esac
MPIRUN=${MPIRUN:-mpirun.$MPI}
# the newest build of this MPI but a sanitizer's (build/<mpi>-san: its
# timings are ASan's, and it would not load beside the plain library)
# shellcheck disable=SC2010,SC2012
IMB=$(ls -t "$ROOT"/build/"$MPI"*/tests/pmpi_imb 2>/dev/null | grep -v -- '-san/' | head -1 || true)
LIB=$ROOT/lib/$MPI/libtorus_pmpi.so
if [ -n "$LIB_ARG" ]; then
    [ -f "$LIB_ARG" ] || ra_bad --lib "$LIB_ARG" "a shared library (file) to preload"
    LIB=$(readlink -f "$LIB_ARG")
fi
if [ -z "$IMB" ] || [ ! -f "$LIB" ]; then
    echo "$RA_SCRIPT: error: no pmpi_imb or $LIB for MPI=$MPI: run 'make all MPI=$MPI' in $ROOT" >&2
    exit 3
fi
ra_launcher "$NP"
MODE=()
[ "$AB" = 1 ] && MODE=(ab)
[ "$SPLIT" = 1 ] && MODE+=(split)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# IMB-MPI1's output as pmpi_imb's lines: "OP BYTES T_AVG ITERS" (t_avg,
# us), the op named OP-root0 for a fixed root (Bcast, Reduce)
imb_lines() { # ROOT_MODE < IMB-MPI1 output
    awk -v fixed="$([ "$1" = fixed ] && echo 1 || echo 0)" '
        /^# Benchmarking / { op = $3; if (fixed && (op == "Bcast" || op == "Reduce")) op = op "-root0"; next }
        /^#/ || NF < 4 || $1 !~ /^[0-9]+$/ { next }
        op ~ /^Barrier/ && NF == 4 { print op, 0, $4, $1; next }
        NF == 5 { print op, $1, $5, $2 }'
}
# One side's run of one round: every root mode into OUT/NAME.ROUND.
run_one() { # NAME ROUND MODE [ENV...]
    local name=$1 r=$2 mode=$3
    shift 3
    # env inside the launch line: LD_PRELOAD reaches the ranks, not mpirun
    if [ -n "$IMB_EXE" ]; then
        local ops=${OPS//,/ } shift_arg=()
        [ "$mode" = fixed ] && ops=$(echo "$ops" | tr ' ' '\n' | grep -E '^(Bcast|Reduce)$' | tr '\n' ' ')
        [ -n "$ops" ] || return 0
        [ "$mode" = moving ] && shift_arg=(-root_shift on)
        # shellcheck disable=SC2086
        timeout -k 10 600 "${RA_LAUNCH[@]}" env "$@" "$IMB_EXE" $ops -npmin "$NP" -msglog "0:$LOGMAX" \
            ${shift_arg[@]+"${shift_arg[@]}"} >"$OUT/raw" 2>"$OUT/$name.$r.err" || return 1
        local head=""
        [ -s "$OUT/$name.$r" ] || head="# MPI: $($MPIRUN --version 2>&1 | head -1) (IMB-MPI1 itself: $IMB_EXE)"
        { [ -z "$head" ] || echo "$head"; imb_lines "$mode" <"$OUT/raw"; } >>"$OUT/$name.$r"
    else
        local m=(${MODE[@]+"${MODE[@]}"})
        [ "$mode" = fixed ] && m+=(fixed)
        timeout -k 10 600 "${RA_LAUNCH[@]}" env "$@" "$IMB" "$MAXB" "$OPS" ${m[@]+"${m[@]}"} >>"$OUT/$name.$r" 2>"$OUT/$name.$r.err" || return 1
    fi
}
run() { # NAME ROUND [ENV...]
    local name=$1 r=$2 mode
    shift 2
    : >"$OUT/$name.$r"
    for mode in "${ROOT_MODES[@]}"; do
        if ! run_one "$name" "$r" "$mode" "$@"; then
            echo "$RA_SCRIPT: error: the $name run of round $r ($mode root) failed: $(head -c 300 "$OUT/$name.$r.err")" >&2
            exit 3
        fi
    done
}
LOGMAX=0
while (((2 << LOGMAX) <= MAXB)); do LOGMAX=$((LOGMAX + 1)); done
for ((r = 1; r <= ROUNDS; r++)); do
    if [ "$AB" = 1 ]; then
        # both sides in one process: the library's column is the plain one
        run adapter "$r" LD_PRELOAD="$LIB"
        awk '/^#/ { print; next } { print $1, $2, $3, $5 }' "$OUT/adapter.$r" >"$OUT/plain.$r"
        awk '/^#/ { print; next } { print $1, $2, $4, $5 }' "$OUT/adapter.$r" >"$OUT/adapter.$r.ab"
        mv "$OUT/adapter.$r.ab" "$OUT/adapter.$r"
    elif ((r % 2)); then
        run plain "$r" && run adapter "$r" LD_PRELOAD="$LIB"
    else
        run adapter "$r" LD_PRELOAD="$LIB" && run plain "$r"
    fi
done
echo "# $(sed -n 's/^# MPI: //p' "$OUT/plain.1" | head -1), $NP ranks, $ROUNDS $([ "$AB" = 1 ] && echo "rounds of in-process A/B (9 each)" || echo "interleaved rounds"), median t_avg (us)"
[ "$SPLIT" = 1 ] && echo "# on a communicator split from MPI_COMM_WORLD"
echo "# CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "# preloaded: ${LIB#"$ROOT"/}"
# medians per (op, bytes) over the rounds, then the table
awk -v R="$ROUNDS" '
    FNR == 1 { kind = FILENAME ~ /adapter\.[0-9]+$/ ? "a" : "p" }
    /^#/ { next }
    { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
      v[kind, k, ++cnt[kind, k]] = $3 }
    function median(kind, k,   m, i, j, t, x) {
        m = cnt[kind, k]
        for (i = 1; i <= m; i++) x[i] = v[kind, k, i]
        for (i = 2; i <= m; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
        return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
    }
    END {
        printf "%-10s %9s %11s %11s %7s\n", "op", "bytes", "library", "adapter", "ratio"
        for (i = 1; i <= nk; i++) {
            k = order[i]; split(k, f, " ")
            p = median("p", k); a = median("a", k); q = p > 0 ? a / p : 1
            printf "%-10s %9d %11.3f %11.3f %7.2f\n", f[1], f[2], p, a, q
            n[f[1]]++; if (q <= 1.05) good[f[1]]++
            if (q > worst[f[1]]) { worst[f[1]] = q; wsize[f[1]] = f[2] }
            if (!(f[1] in seen_op)) { seen_op[f[1]] = 1; ops[++no] = f[1] }
        }
        for (i = 1; i <= no; i++)
            printf "# %s: %d of %d sizes at or under 1.05x, worst %.2fx at %d B\n", ops[i], good[ops[i]], n[ops[i]], worst[ops[i]], wsize[ops[i]]
    }' "$OUT"/plain.[0-9]* "$OUT"/adapter.[0-9]*
if [ -n "$KEEP" ]; then
    if ! mkdir -p -- "$KEEP" || ! cp -- "$OUT"/* "$KEEP"/; then
        echo "$RA_SCRIPT: error: cannot keep the runs in $KEEP" >&2
        exit 3
    fi
fi
