# tests/lib.sh - shared helpers for the shell test suites (sourced, not run).
# Counts results, runs MPI jobs under a hang timeout, reads key blocks.
: "${MPI:=mpich}"
: "${MPIRUN:=mpirun.$MPI}"
: "${BUILD:=build/$MPI}"
MPIRUN_FLAGS=""
if [ "$MPI" = openmpi ]; then
    MPIRUN_FLAGS="--oversubscribe"
    [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
T_PASS=0
T_FAIL=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
bad() { T_FAIL=$((T_FAIL + 1)); echo "not ok - $*"; }

# run_mpi N CMD... : runs under mpirun with a hang guard; stdout -> $TMP/out, stderr -> $TMP/err
run_mpi() {
    local n=$1
    shift
    timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS -n "$n" "$@" >"$TMP/out" 2>"$TMP/err"
}

# key NAME [FILE] : value of "NAME: value" from the first key block
key() { grep -m1 "^$1: " "${2:-$TMP/out}" | cut -d' ' -f2-; }

# jkey NAME [FILE] : the first member "NAME" of a JSON file as the kit's
# programs write it: a string without its quotes (no escapes in it), a
# number, true/false/null, or an array of scalars as written ("[]" when
# empty); nothing when there is no such member
jkey() {
    grep -o "\"$1\": \(\"[^\"]*\"\|\[[^]]*\]\|[^],}]*\)" "${2:-$TMP/out}" | head -1 |
        sed -e 's/^"[^"]*": //' -e 's/^"\(.*\)"$/\1/'
}

# The MPI adapter's stats under TORUS_COLL_STATS=kv (pmpi/pmpi_stats.c),
# one line per operation and a summary in $TMP/err:
#   torus_pmpi_stats: op=allreduce calls=14 torus=12 alg.empty=2 ... fell_through=2 why.user_op=1 why.repro=1
#   torus_pmpi_stats: op=summary calls=.. torus=.. fell_through=.. most=user_op most_n=30 ranks=4
# (not named stat: the suites are sourced into one shell, where stat(1)
# is used)
# pm_kv_line OP [FILE] : the whole line of OP
pm_kv_line() { grep -m1 "^torus_pmpi_stats: op=$1 " "${2:-$TMP/err}"; }
# pm_stat OP KEY [FILE] : KEY's value on OP's line; 0 for an alg. or why.
# key it lacks (only nonzero counts are printed); empty when OP has no line
pm_stat() {
    local line
    line=$(pm_kv_line "$1" "${3:-}") || return 0
    pm_kv_get "$line" "$2"
}
# pm_kv_get LINE KEY : KEY's value on one kv line (0 for an absent alg. or why. key)
pm_kv_get() {
    awk -v k="$2" '{ for (i = 2; i <= NF; i++) { e = index($i, "="); if (substr($i, 1, e - 1) == k) { print substr($i, e + 1); exit } }
        if (k ~ /^(alg|why)\./) print 0 }' <<<"$1"
}
# pm_expect DESC OP KEY=ERE... : OP's line in $TMP/err has every KEY with a
# value the whole of which matches ERE (pm_stat's value: 0 for an absent
# alg./why. count); one ok or bad
pm_expect() {
    local desc=$1 op=$2 line kv k got
    shift 2
    line=$(pm_kv_line "$op")
    for kv in "$@"; do
        k=${kv%%=*}
        got=$(pm_kv_get "$line" "$k")
        if [ -z "$line" ] || ! [[ "$got" =~ ^(${kv#*=})$ ]]; then
            bad "$desc: $op: $k=${got:-(none)}, want /${kv#*=}/: ${line:-(no stats line)}"
            return
        fi
    done
    ok "$desc: $line"
}

# expect_run DESC EXPECTED_FP : checks the last run's exit code, errors, pending and fingerprint
expect_exact() {
    local desc=$1 want=$2 rc=$3
    local got errs pend
    got=$(key fingerprint)
    errs=$(key errors)
    pend=$(key max_pending)
    if [ "$rc" = 0 ] && [ "$errs" = 0 ] && [ -n "$pend" ] && [ "$pend" -le 1024 ] && [ "$got" = "$want" ]; then
        ok "$desc (fingerprint $got, max_pending $pend)"
    else
        bad "$desc: rc=$rc errors=$errs max_pending=$pend fingerprint=$got want=$want"
        sed 's/^/    /' "$TMP/err" | head -5
    fi
}

# exact_at_ranks BIN K GEN LABEL ARGS... : BIN at 1, 2, 3, 4, 5 and 8 ranks must
# equal the sequential run of 2^K words; LABEL may use $n.
exact_at_ranks() {
    local bin=$1 k=$2 gen=$3 label=$4 ref n
    shift 4
    ref=$("$BUILD/tests/ra_seq" "$k" "$gen")
    for n in 1 2 3 4 5 8; do
        run_mpi $n "$bin" --log2-table "$k" --gen "$gen" --quiet "$@"
        expect_exact "$(basename "$bin") n=$n $gen $label" "$ref" $?
    done
}

# expect_fail DESC CODE TEXT N CMD... : a bad input exits CODE with TEXT on stderr, no hang
expect_fail() {
    local desc=$1 code=$2 text=$3 n=$4
    shift 4
    run_mpi "$n" "$@"
    local rc=$?
    local lines
    lines=$(grep -c "$text" "$TMP/err")
    if [ "$rc" = "$code" ] && [ "$lines" -ge 1 ]; then
        ok "$desc -> exit $rc: $(grep -m1 "$text" "$TMP/err")"
    else
        bad "$desc: exit $rc (want $code), stderr: $(head -c 300 "$TMP/err")"
    fi
}

# serial_fail DESC CODE TEXT CMD... : a serial command fails with CODE and one stderr line containing TEXT
serial_fail() {
    local desc=$1 code=$2 text=$3
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" = "$code" ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "$text" "$TMP/err"; then
        ok "$desc -> exit $rc: $(cat "$TMP/err")"
    else
        bad "$desc: exit $rc (want $code), stderr: $(head -3 "$TMP/err")"
    fi
}

# names_in "PROG|TOKEN|..." LINE : LINE is PROG's ("PROG: ...") and holds
# every TOKEN (the bad value, its option or setting, file:line, the values
# allowed) - the tokens, never the sentence around them, which may be reworded
names_in() {
    local v parts
    IFS='|' read -r -a parts <<<"$1"
    case "$2" in "${parts[0]}: "*) ;; *) return 1 ;; esac
    for v in "${parts[@]:1}"; do
        case "$2" in *"$v"*) ;; *) return 1 ;; esac
    done
}

# ours FILE PROG : the stderr lines of PROG ("PROG: ..."); Open MPI's mpirun
# adds its own lines about a non-zero exit: they are the launcher's
ours() { grep "^$2: " "$1"; }

# error_ok CODE NAMES RC [FILE] : the one check of a refused input: RC is
# CODE, FILE (default $TMP/err) holds exactly one line of PROG (the first
# word of NAMES, "PROG|TOKEN|..."), and that line names every TOKEN
error_ok() {
    local code=$1 names=$2 rc=$3 f=${4:-$TMP/err}
    local prog=${names%%|*}
    [ "$rc" = "$code" ] && [ "$(ours "$f" "$prog" | wc -l)" = 1 ] && names_in "$names" "$(ours "$f" "$prog")"
}

# expect_error DESC CODE NAMES N CMD... : CMD refuses its input: under
# mpirun with N ranks, or alone under the hang guard when N is 0 (then
# stderr holds nothing but that line); checked by error_ok
expect_error() {
    local desc=$1 code=$2 names=$3 n=$4 rc
    shift 4
    if [ "$n" = 0 ]; then
        timeout -k 5 60 "$@" >"$TMP/out" 2>"$TMP/err"
    else
        run_mpi "$n" "$@"
    fi
    rc=$?
    if error_ok "$code" "$names" "$rc" && { [ "$n" != 0 ] || [ "$(wc -l <"$TMP/err")" = 1 ]; }; then
        ok "$desc -> exit $rc: $(ours "$TMP/err" "${names%%|*}")"
    else
        bad "$desc: exit $rc (want $code), stderr: $(head -c 400 "$TMP/err") (want one line naming: $names)"
    fi
}

finish() {
    echo "$T_PASS passed, $T_FAIL failed"
    [ "$T_FAIL" = 0 ]
}
