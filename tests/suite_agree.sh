# tests/suite_agree.sh - every MPI binary's ranks agree on their whole
# configuration before anything else (issue 33, class 1; kit/agree.c).
# Generated from each binary's option spec (its --help): for every option,
# an MPMD launch `mpirun -n 1 BIN ... A : -n 1 BIN ... B` whose two ranks
# differ in that option alone must stop with exit 2 and rank 0's one line
# naming the option and both ranks (tests/lib.sh's error_ok: tokens, not
# the sentence), within the hang guard, having written no result
# file.  An option the table below has no pair of values for is a failure,
# so a new option cannot go untested.  Plus a TORUS_* setting exported on
# one rank only, and the derived table size.  Sourced by tests/run_tests.sh.

# BIN|base options (dropped where the option tested is one of them)
agree_bins="ra_opt|--log2-table 12
ra_base|--log2-table 12
collbench|--op barrier --sizes 8 --iters 1 --warmup 0 --rounds 1
ra_calibrate|--quick --log2-table 12"

# [BIN:]option|rank 0's words|rank 1's words ("" = the option not given)
# [|the name the line gives, when not --option]; a BIN: row is that
# binary's own; @ stands for the case's folder.  Rank 0's words are a valid
# command line: an option that needs another (collbench's --per-node needs
# --choose) has it on both ranks, so the one line is the disagreement.
agree_pairs="collbench:link-bw|--simulate 2x2 --link-bw 1e9|--simulate 2x2 --link-bw 2e9
collbench:latency|--simulate 2x2 --latency 1e-6|--simulate 2x2 --latency 2e-6
log2-table|--log2-table 12|--log2-table 13
mem|--mem 64K|--mem 128K
updates|--updates 4096|--updates 8192
time-bound|--time-bound 1|--time-bound 2
no-verify|--no-verify|
gen|--gen lfsr|--gen lcg
lcg|--lcg||--gen
suite|--suite mpi|--suite star
output|--output @/a.out|--output @/b.out
json|--json @/a.json|--json @/b.json
papi|--papi|
progress|--progress|
no-progress|--no-progress|
quiet|--quiet|
dry-run|--dry-run|
help|--help|
version|--version|
dims|--dims 2|--dims 1x2
map|--map @/map_a|--map @/map_b
node-from|--probe --node-from docs/data/node_hwloc.xml|--probe
node-dim|--node-dim|
outstanding|--outstanding 1|--outstanding 2
sync-sends|--sync-sends|
node-transport|--node-transport mpi|--node-transport shm
profile|--profile|
lookahead|--lookahead 64|--lookahead 128
batch|--batch 32|--batch 64
node-hops|--node-hops 1|--node-hops 2
hop-cost|--hop-cost 0.5|--hop-cost 0.7
packet-cost|--packet-cost 30|--packet-cost 20
split|--split auto|--split portable
op|--op barrier|--op bcast
sizes|--sizes 8|--sizes 16
algorithms|--algorithms auto|--algorithms mpi
iters|--iters 1|--iters 2
warmup|--warmup 0|--warmup 1
rounds|--rounds 1|--rounds 2
validate|--validate|
csv|--csv @/a.csv|--csv @/b.csv
tune|--tune @/a.table|--tune @/b.table
simulate|--simulate 2x2|
choose|--choose 2x2|--choose 4
per-node|--choose 4 --per-node 1|--choose 4 --per-node 2
k|--k 2|--k 3
seed|--seed 1|--seed 2
link-bw|--link-bw 1e9|--link-bw 2e9
latency|--latency 1e-6|--latency 2e-6
quick|--quick|
probe|--probe|
hop|--hop|
reps|--reps 1|--reps 2"

AG="$TMP/agree"
mkdir -p "$AG"

# agree_mpmd BIN BASE A B [DIR]: the MPMD launch (rank 0 BASE A, rank 1 BASE B),
# its output in DIR (default $TMP); stdin is not the launcher's (it would
# read the list the loops read).  @ in A and B stands for DIR.
agree_mpmd() {
    local bin=$1 base=$2 a=$3 b=$4 d=${5:-$TMP}
    # word splitting of the option lists is intended
    # shellcheck disable=SC2086
    timeout -k 10 60 $MPIRUN $MPIRUN_FLAGS -n 1 "bin/$bin" $base ${a//@/$d} : -n 1 "bin/$bin" $base ${b//@/$d} \
        </dev/null >"$d/out" 2>"$d/err"
    echo $? >"$d/rc"
}

# every case in a folder of its own, four launches at a time (a launch is
# mostly the launcher's start-up: Open MPI's takes seconds)
ncase=0
while IFS='|' read -r bin base; do
    opts=$("bin/$bin" --help | sed -nE 's/^  (-[a-zA-Z], )?--([a-z0-9-]+).*/\2/p')
    for opt in $opts; do
        pair=$(printf '%s\n' "$agree_pairs" | grep -m1 -e "^$bin:$opt|") ||
            pair=$(printf '%s\n' "$agree_pairs" | grep -m1 -e "^$opt|") || {
            bad "agree $bin --$opt: no pair of values in tests/suite_agree.sh"
            continue
        }
        IFS='|' read -r _ a b name <<<"$pair"
        # the base without the option tested (nor --log2-table beside --mem)
        bb=$(printf '%s' "$base" | sed -E "s/--$opt( [^-][^ ]*)?//; s/  +/ /g")
        [ "$opt" = mem ] && bb=$(printf '%s' "$bb" | sed -E 's/--log2-table [0-9]+//')
        ncase=$((ncase + 1))
        # (no blank in the folder's name: @ is put into words split at blanks)
        d="$AG/case$ncase"
        mkdir -p "$d"
        printf '0\n1\n' >"$d/map_a"
        printf '1\n0\n' >"$d/map_b"
        printf '%s|%s|%s|%s|%s\n' "$bin" "$opt" "$a" "$b" "${name:---$opt}" >"$d/what"
        while [ "$(jobs -rp | wc -l)" -ge 4 ]; do sleep 0.2; done
        agree_mpmd "$bin" "$bb" "$a" "$b" "$d" &
    done
done <<<"$agree_bins"
wait
declare -A agree_n agree_bad
for ((i = 1; i <= ncase; i++)); do
    d="$AG/case$i"
    IFS='|' read -r bin opt a b name <"$d/what"
    rc=$(cat "$d/rc")
    agree_n[$bin]=$((${agree_n[$bin]:-0} + 1))
    if error_ok 2 "$bin|$name|rank 0|rank 1" "$rc" "$d/err" && ! ls "$d"/a.* "$d"/b.* >/dev/null 2>&1; then
        :
    else
        agree_bad[$bin]=$((${agree_bad[$bin]:-0} + 1))
        bad "agree $bin --$opt differing ('$a' / '$b'): exit $rc, $(ours "$d/err" "$bin" | wc -l) line(s) of $bin's (want one naming $name, rank 0, rank 1), files: $(ls "$d" | tr '\n' ' ')"
        sed 's/^/    /' "$d/err" | head -5
    fi
done
for bin in ra_opt ra_base collbench ra_calibrate; do
    [ "${agree_bad[$bin]:-0}" = 0 ] && ok "agree $bin: every one of its ${agree_n[$bin]:-0} options differing on one rank of two stops the launch, exit 2, one line, no file written"
done

# the line names the option and both values (exit 2; the named values,
# not the sentence around them)
agree_mpmd ra_opt "" "--log2-table 12" "--log2-table 13"
if error_ok 2 "ra_opt|--log2-table|rank 0|'12'|rank 1|'13'" "$(cat "$TMP/rc")"; then
    ok "agree: exit 2, the line names the option and each rank's value: $(ours "$TMP/err" ra_opt)"
else
    bad "agree: the disagreement line does not name --log2-table 12 / 13: $(head -2 "$TMP/err")"
fi

# an option only rank 0 was given that it refuses: its own one line (the
# bad value and what is allowed), not that line and the disagreement; only
# rank 1 refusing: rank 0's disagreement line (rank 1 prints nothing)
for bin in ra_opt ra_base collbench ra_calibrate; do
    case $bin in
    collbench) bad_opt="--op bogus" good_opt="--op barrier" name="bogus|--op" ;;
    ra_calibrate) bad_opt="--reps 0" good_opt="--reps 1" name="'0'|--reps" ;;
    *) bad_opt="--log2-table 99" good_opt="--log2-table 12" name="'99'|--log2-table" ;;
    esac
    agree_mpmd "$bin" "" "$bad_opt" "$good_opt"
    cp "$TMP/err" "$TMP/err0"
    rc0=$(cat "$TMP/rc")
    agree_mpmd "$bin" "" "$good_opt" "$bad_opt"
    if error_ok 2 "$bin|$name" "$rc0" "$TMP/err0" && ! grep -q 'disagree' "$TMP/err0" &&
        error_ok 2 "$bin|rank 0|rank 1" "$(cat "$TMP/rc")" "$TMP/err"; then
        ok "agree $bin: $bad_opt on rank 0 alone -> exit 2, its own one line; on rank 1 alone -> exit 2, one disagreement line"
    else
        bad "agree $bin: $bad_opt on one rank of two: rank 0's: exit $rc0, $(ours "$TMP/err0" "$bin" | head -3); rank 1's: exit $(cat "$TMP/rc"), $(ours "$TMP/err" "$bin" | head -3)"
    fi
done

# --mem 64K and --mem=65536 are the same configuration
agree_mpmd ra_base "--quiet" "--mem 64K" "--mem=65536"
if [ "$(cat "$TMP/rc")" = 0 ] && [ "$(key status)" = passed ]; then
    ok "agree: --mem 64K and --mem=65536 on two ranks are one configuration (values compared as parsed)"
else
    bad "agree: --mem 64K / --mem=65536 refused: $(head -2 "$TMP/err")"
fi

# a TORUS_* setting exported on one rank only
# shellcheck disable=SC2086
timeout -k 10 60 $MPIRUN $MPIRUN_FLAGS -n 1 bin/ra_opt --log2-table 12 : -n 1 env TORUS_NODES=2 bin/ra_opt --log2-table 12 \
    </dev/null >"$TMP/out" 2>"$TMP/err"
rc=$?
if error_ok 2 "ra_opt|TORUS_NODES|'2'|rank 1" $rc; then
    ok "agree: TORUS_NODES set on one rank only -> exit 2, the line names it and the value: $(ours "$TMP/err" ra_opt)"
else
    bad "agree: TORUS_NODES on one rank: exit $rc, $(head -2 "$TMP/err")"
fi

# the same options on every rank still run, at 1 to 4 ranks
for n in 1 2 4; do
    run_mpi "$n" bin/ra_opt --log2-table 14 --quiet
    if [ $? = 0 ] && [ "$(key status)" = passed ]; then
        ok "agree: ra_opt at $n rank(s) with one configuration runs and passes"
    else
        bad "agree: ra_opt at $n rank(s) failed: $(head -2 "$TMP/err")"
    fi
done

# ---- what the files say (issue 48, class 2) ----------------------------
# Ranks that agree on a file's name can read two node-local copies that
# differ.  For every file input of every MPI binary (its options of kind
# file-to-read, the TORUS_* settings that name a file a program reads),
# rank 1 runs in another folder whose copy of the same relative path holds
# other bytes: exit 2, rank 0's one line naming the input, the file and
# both ranks, within the hang guard.  Inputs come from each binary's
# --help; one the table below does not know is a failure, so a new file
# input cannot go untested.
# INPUT|rank 0's copy|rank 1's copy (printf formats; each a valid file, so
# the one line is the disagreement: hwloc's XML is read a tag a line)
agree_files="map|0\n1\n|1\n0\n
TORUS_HOSTFILE|a\na\n|a\nb\n
TORUS_COLL_TABLE|torus-coll-table 1\nallreduce 2 0 any any any any any swing\n|torus-coll-table 1\nallreduce 2 0 any any any any any mpi\n
node-from|<topology>\n<object type=\"Core\"/>\n</topology>\n|<topology>\n<object type=\"Core\"/>\n<object type=\"Core\"/>\n</topology>\n"
# the options naming a file a binary writes, not reads
agree_outputs="output json csv tune"

AF="$TMP/agree_files"
mkdir -p "$AF"
# agree_content BIN BASE INPUT DIR: the launch, rank 1 in DIR/b, rank 0 in DIR/a
agree_content() {
    local bin=$1 base=$2 in=$3 d=$4 opt="" envs=()
    case $in in
    TORUS_*) envs=("$in=f") ;;
    node-from) opt="--probe --node-from f" ;; # read with --probe only
    *) opt="--$in f" ;;
    esac
    # word splitting of the option lists is intended
    # shellcheck disable=SC2086
    timeout -k 10 60 $MPIRUN $MPIRUN_FLAGS -n 1 sh -c 'cd "$0" && exec "$@"' "$d/a" env "${envs[@]}" "$PWD/bin/$bin" \
        $base $opt : -n 1 sh -c 'cd "$0" && exec "$@"' "$d/b" env "${envs[@]}" "$PWD/bin/$bin" $base $opt \
        </dev/null >"$d/out" 2>"$d/err"
    echo $? >"$d/rc"
}
# the settings whose value names a file (docs/settings.md's table, printed
# from kit/settings.c): none found is a failure, not a silent skip
agree_file_settings=$("$BUILD/tests/settings_table" | sed -nE 's/^\| `(TORUS_[A-Z_]+)` \| [^|]*(file|table).*/\1/p' | tr '\n' ' ')
[ -n "$agree_file_settings" ] || bad "agree content: no TORUS_* file setting found in $BUILD/tests/settings_table"
ncase=0
while IFS='|' read -r bin base; do
    help=$("bin/$bin" --help)
    # file options but outputs, and the file settings the binary reads
    ins=$(printf '%s\n' "$help" | sed -nE 's/^  (-[a-zA-Z], )?--([a-z0-9-]+) (FILE|XML)( .*)?$/\2/p')
    ins="$ins $(printf '%s\n' "$help" | sed -nE 's/^  (TORUS_[A-Z_]+) .*/\1/p' | while read -r s; do
        case " $agree_file_settings " in *" $s "*) echo "$s" ;; esac; done)"
    for in in $ins; do
        case " $agree_outputs " in *" $in "*) continue ;; esac
        spec=$(printf '%s\n' "$agree_files" | grep -m1 "^$in|") || {
            bad "agree content $bin $in: a file input with no pair of contents in tests/suite_agree.sh"
            continue
        }
        IFS='|' read -r _ ca cb <<<"$spec"
        ncase=$((ncase + 1))
        d="$AF/case $ncase"
        mkdir -p "$d/a" "$d/b"
        # shellcheck disable=SC2059
        printf "$ca" >"$d/a/f"
        # shellcheck disable=SC2059
        printf "$cb" >"$d/b/f"
        printf '%s|%s\n' "$bin" "$in" >"$d/what"
        while [ "$(jobs -rp | wc -l)" -ge 4 ]; do sleep 0.2; done
        agree_content "$bin" "$base" "$in" "$d" &
    done
done <<<"$agree_bins"
wait
for ((i = 1; i <= ncase; i++)); do
    d="$AF/case $i"
    IFS='|' read -r bin in <"$d/what"
    rc=$(cat "$d/rc")
    name=$in
    [ "${in#TORUS_}" = "$in" ] && name="--$in"
    # one line, naming the input, the file (its path as given) and ranks 0 and 1
    if error_ok 2 "$bin|$name|rank 0|rank 1|'f'" "$rc" "$d/err"; then
        ok "agree content $bin $name: copies that differ on rank 1 -> exit 2: $(ours "$d/err" "$bin" | cut -c1-160)"
    else
        bad "agree content $bin $name: exit $rc, $(ours "$d/err" "$bin" | wc -l) line(s) of $bin's (want one naming $name, 'f', rank 0, rank 1): $(head -3 "$d/err")"
    fi
done

# the same bytes in two copies are one input: the run goes on
d="$AF/same"
mkdir -p "$d/a" "$d/b"
printf '0\n1\n' >"$d/a/f"
printf '0\n1\n' >"$d/b/f"
agree_content ra_opt "--log2-table 12 --quiet" map "$d"
if [ "$(cat "$d/rc")" = 0 ] && [ "$(key status "$d/out")" = passed ]; then
    ok "agree content: two copies of --map with the same bytes on two ranks run and pass"
else
    bad "agree content: equal copies of --map refused: exit $(cat "$d/rc"), $(head -2 "$d/err")"
fi

# every rank that differs is named, not only the first: four ranks, ranks 1 and 3 read another copy
d="$AF/four"
mkdir -p "$d/a" "$d/b"
printf 'a\na\na\na\n' >"$d/a/f"
printf 'a\na\nb\nb\n' >"$d/b/f"
# shellcheck disable=SC2086
timeout -k 10 60 $MPIRUN $MPIRUN_FLAGS \
    -n 1 sh -c 'cd "$0" && exec "$@"' "$d/a" env TORUS_HOSTFILE=f "$PWD/bin/ra_base" --log2-table 12 : \
    -n 1 sh -c 'cd "$0" && exec "$@"' "$d/b" env TORUS_HOSTFILE=f "$PWD/bin/ra_base" --log2-table 12 : \
    -n 1 sh -c 'cd "$0" && exec "$@"' "$d/a" env TORUS_HOSTFILE=f "$PWD/bin/ra_base" --log2-table 12 : \
    -n 1 sh -c 'cd "$0" && exec "$@"' "$d/b" env TORUS_HOSTFILE=f "$PWD/bin/ra_base" --log2-table 12 \
    </dev/null >"$d/out" 2>"$d/err"
rc=$?
if error_ok 2 "ra_base|TORUS_HOSTFILE|'f'|rank 0|rank 1|rank 3" $rc "$d/err" && ! grep -q 'rank 2' "$d/err"; then
    ok "agree content: ranks 1 and 3 of four read another copy -> exit 2, one line naming both: $(ours "$d/err" ra_base | cut -c1-160)"
else
    bad "agree content: four ranks, 1 and 3 differing: exit $rc, $(head -3 "$d/err")"
fi

# the MPI adapter never changes what a correct program does: a selection
# table that differs on one rank is the compiled table on every rank, one line
PM_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
PM_CHECK=$(readlink -f "$BUILD/tests/pmpi_check")
if [ -f "$PM_LIB" ] && [ -x "$PM_CHECK" ]; then
    d="$AF/adapter"
    mkdir -p "$d/a" "$d/b"
    printf 'torus-coll-table 1\nallreduce 2 0 any any any any any swing\n' >"$d/a/f"
    printf 'torus-coll-table 1\nallreduce 2 0 any any any any any mpi\n' >"$d/b/f"
    run_mpi 2 "$PM_CHECK" 8
    cp "$TMP/out" "$d/plain"
    # shellcheck disable=SC2086
    timeout -k 10 60 $MPIRUN $MPIRUN_FLAGS \
        -n 1 sh -c 'cd "$0" && exec "$@"' "$d/a" env LD_PRELOAD="$PM_LIB" TORUS_COLL_TABLE=f "$PM_CHECK" 8 : \
        -n 1 sh -c 'cd "$0" && exec "$@"' "$d/b" env LD_PRELOAD="$PM_LIB" TORUS_COLL_TABLE=f "$PM_CHECK" 8 \
        </dev/null >"$d/out" 2>"$d/err"
    rc=$?
    if [ "$rc" = 0 ] && cmp -s "$d/plain" "$d/out" && [ "$(grep -c '^torus_pmpi: TORUS_COLL_TABLE: ' "$d/err")" = 1 ]; then
        ok "agree content: the adapter with tables that differ on one rank: the same results, one line: $(grep -m1 TORUS_COLL_TABLE "$d/err" | cut -c1-120)"
    else
        bad "agree content: the adapter with differing tables: exit $rc, $(head -3 "$d/err")"
    fi
fi
