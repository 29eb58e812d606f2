# tests/suite_files.sh - files that are not files (issue 33, class 4):
# every path the kit reads as a file, given a FIFO with no writer,
# /dev/zero and a directory, is refused at once, never read or waited on
# (kit_lines_open: a non-blocking open, fstat, a regular file only).
# A generated sweep over every file input of every binary x those three:
#   - refusals: exit 2 within the hang guard (a timeout is a failure), one
#     line on stderr (under mpirun: one from the tool, the launcher's own
#     block aside) naming the path and what it is;
#   - TORUS_COLL_TABLE keeps its convention for a bad table file (suite_tune:
#     one line, the compiled table, the run goes on): exit 0 and that line,
#     reached rather than a wait inside MPI_Init.
# Serial checks (sparsest_cut, torusmodel, ra_opt --dry-run) run as they
# are, MPI programs as singletons (quick under both MPIs), and the cases
# of the issue (a FIFO in MPI_Init, a mapping file) once more at 2 ranks.
# Sourced by run_tests.sh (helpers: tests/lib.sh).
FX=$TMP/files
mkdir -p "$FX/dir"
mkfifo "$FX/in.fifo"
FX_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
FX_CHECK="$BUILD/tests/pmpi_check"
FX_GUARD=20

# the three paths and what the refusal must call each
fx_paths=("$FX/in.fifo" /dev/zero "$FX/dir")
fx_kind() {
    case $1 in
    *.fifo) echo "a FIFO" ;;
    /dev/zero) echo "a character device" ;;
    *) echo "a directory" ;;
    esac
}

# fx_tool_lines FILE: the lines of FILE without Open MPI's launcher blocks
# (text between lines of dashes) and blank lines
fx_tool_lines() { awk '/^-----+$/ { blk = !blk; next } !blk && NF' "$1"; }

# fx_run CMD...: CMD under the hang guard, no stdin; FRC its exit code
fx_run() {
    timeout -k 5 "$FX_GUARD" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
    FRC=$?
}

# fx_refused DESC PATH CMD...: exit 2, one line naming 'PATH' and its kind
fx_refused() {
    local desc=$1 p=$2 kind line n
    shift 2
    kind=$(fx_kind "$p")
    fx_run "$@"
    n=$(fx_tool_lines "$TMP/err" | wc -l)
    line=$(fx_tool_lines "$TMP/err" | head -1)
    if [ "$FRC" = 2 ] && [ "$n" = 1 ] && [[ $line == *"'$p'"*"$kind, not a regular file: allowed a regular file"* ]]; then
        ok "$desc $p -> exit 2: $line"
    elif [ "$FRC" = 124 ] || [ "$FRC" = 137 ]; then
        bad "$desc $p: still running after ${FX_GUARD} s (blocked on the file?)"
    else
        bad "$desc $p: exit $FRC (want 2), $n lines: $(head -c 300 "$TMP/err")"
    fi
}

# fx_table DESC PATH PREFIX CMD...: TORUS_COLL_TABLE=PATH: exit 0, the one
# line PREFIX: TORUS_COLL_TABLE: 'PATH' is KIND, ...; the compiled table is used
fx_table() {
    local desc=$1 p=$2 prefix=$3 want n
    shift 3
    want="$prefix: TORUS_COLL_TABLE: '$p' is $(fx_kind "$p"), not a regular file: allowed a regular file; the compiled table is used"
    fx_run env TORUS_COLL_TABLE="$p" "$@"
    n=$(grep -c 'TORUS_COLL_TABLE' "$TMP/err")
    if [ "$FRC" = 0 ] && [ "$n" = 1 ] && grep -qxF -- "$want" "$TMP/err"; then
        ok "$desc TORUS_COLL_TABLE=$p -> exit 0, the compiled table: $want"
    elif [ "$FRC" = 124 ] || [ "$FRC" = 137 ]; then
        bad "$desc TORUS_COLL_TABLE=$p: still running after ${FX_GUARD} s (blocked on the file?)"
    else
        bad "$desc TORUS_COLL_TABLE=$p: exit $FRC (want 0), $n lines: $(head -c 300 "$TMP/err") (want: $want)"
    fi
}

B=bin
for p in "${fx_paths[@]}"; do
    # serial: no MPI start
    fx_refused "sparsest_cut --file" "$p" $B/sparsest_cut --file "$p"
    fx_refused "sparsest_cut --format metis --file" "$p" $B/sparsest_cut --format metis --file "$p"
    fx_refused "torusmodel --params" "$p" $B/torusmodel --params "$p" --shape 4x4
    fx_refused "ra_opt --dry-run --map" "$p" $B/ra_opt --dry-run --log2-table 10 --map "$p"
    fx_refused "ra_opt --dry-run=2 --map" "$p" $B/ra_opt --dry-run=2 --log2-table 10 --dims 2 --map "$p"
    # MPI programs, as singletons
    fx_refused "ra_opt --map (a run)" "$p" $B/ra_opt --log2-table 10 --map "$p"
    fx_refused "ra_opt TORUS_HOSTFILE" "$p" env TORUS_HOSTFILE="$p" $B/ra_opt --log2-table 10
    fx_refused "ra_base TORUS_HOSTFILE" "$p" env TORUS_HOSTFILE="$p" $B/ra_base --log2-table 10
    fx_refused "collbench TORUS_HOSTFILE" "$p" env TORUS_HOSTFILE="$p" $B/collbench --op barrier --sizes 8 --iters 1 \
        --warmup 0 --rounds 1
    fx_table "collbench" "$p" collbench $B/collbench --op allreduce --sizes 8 --algorithms auto --iters 1 --warmup 0 --rounds 1
    if [ -f "$FX_LIB" ] && [ -x "$FX_CHECK" ]; then
        fx_refused "adapter TORUS_HOSTFILE" "$p" env LD_PRELOAD="$FX_LIB" TORUS_HOSTFILE="$p" "$FX_CHECK" 32
        fx_table "adapter" "$p" torus_pmpi env LD_PRELOAD="$FX_LIB" "$FX_CHECK" 32
    fi
done
[ -f "$FX_LIB" ] && [ -x "$FX_CHECK" ] || bad "suite_files: $FX_LIB or $FX_CHECK not built (make all MPI=$MPI)"

# the issue's cases at 2 ranks: a FIFO as the adapter's table (the job
# waited inside MPI_Init) gives the same digests as a run without it; a
# FIFO as the host file or the mapping file stops the job
p=$FX/in.fifo
if [ -f "$FX_LIB" ] && [ -x "$FX_CHECK" ]; then
    fx_run $MPIRUN $MPIRUN_FLAGS -n 2 "$FX_CHECK" 32
    cp "$TMP/out" "$FX/plain"
    fx_table "adapter at 2 ranks" "$p" torus_pmpi $MPIRUN $MPIRUN_FLAGS -n 2 \
        env LD_PRELOAD="$FX_LIB" "$FX_CHECK" 32
    if [ "$FRC" = 0 ] && ! cmp -s "$FX/plain" "$TMP/out"; then
        bad "adapter at 2 ranks with TORUS_COLL_TABLE=$p: digests differ from the run without the adapter"
    fi
    fx_refused "adapter at 2 ranks TORUS_HOSTFILE" "$p" $MPIRUN $MPIRUN_FLAGS -n 2 env LD_PRELOAD="$FX_LIB" \
        TORUS_HOSTFILE="$p" "$FX_CHECK" 32
fi
fx_refused "ra_opt at 2 ranks --map" "$p" $MPIRUN $MPIRUN_FLAGS -n 2 $B/ra_opt --log2-table 10 --dims 2 --map "$p"
