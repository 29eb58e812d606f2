#!/bin/bash
# tests/sanitize.sh - the sanitizer pass behind `make sanitize-test` (CI):
# with a SANITIZE=address,undefined build in $BUILD, runs the unit tests,
# the fuzz corpus replay, a small MPI matrix (1-4 ranks, both generators,
# several shapes, exact against the sequential run), the MPI adapter
# preloaded into its test programs, and the bad inputs of issue 15, with
# leak checking on.  Any sanitizer report fails the case.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
# UBSan and ASan stop at the first report; LSan checks every exit.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# hwloc (under MPICH) dlopens plugins and leaks in them at exit; without
# its plugins the topology is the same for a single node and LSan sees
# only the kit's own allocations.
export HWLOC_PLUGINS_PATH=/nonexistent
export COLL_EXHAUSTIVE=0 SC_EXHAUSTIVE=0
echo "# sanitizer pass ($BUILD), MPI=$MPI"

# clean FILE : no sanitizer report in FILE
clean() { ! grep -q -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$1"; }

echo "# unit tests"
for t in "$BUILD"/tests/test_*; do
    if "$t" >"$TMP/u" 2>&1 && clean "$TMP/u"; then ok "$(tail -1 "$TMP/u")"; else bad "$(basename "$t")"; grep -m5 -E 'Sanitizer|runtime error|failed' "$TMP/u" | sed 's/^/    /'; fi
done

echo "# fuzz corpus replay"
for r in "$BUILD"/tests/fuzz_replay_*; do
    name=${r##*/fuzz_replay_}
    if "$r" "tests/fuzz/corpus/$name" >"$TMP/out" 2>"$TMP/err" && clean "$TMP/err"; then ok "corpus $name: $(tail -1 "$TMP/out")"; else bad "corpus $name"; head -5 "$TMP/err" | sed 's/^/    /'; fi
done

echo "# MPI matrix: 1-4 ranks, both generators, ra_base and ra_opt on several shapes"
K=12
# exact_clean DESC REF N CMD... : exact result and no sanitizer report
exact_clean() {
    local desc=$1 ref=$2 n=$3
    shift 3
    run_mpi "$n" "$@" --log2-table $K --quiet
    local rc=$?
    if clean "$TMP/err"; then expect_exact "$desc" "$ref" $rc; else bad "$desc: sanitizer report"; grep -m5 -E 'Sanitizer|runtime error|#[0-9]' "$TMP/err" | sed 's/^/    /'; fi
}
for gen in lfsr lcg; do
    ref=$("$BUILD/tests/ra_seq" $K $gen)
    for n in 1 2 3 4; do
        exact_clean "ra_base n=$n $gen" "$ref" $n bin/ra_base --gen $gen
        case $n in
        1) shapes="auto" ;;
        2) shapes="flat hypercube" ;;
        3) shapes="flat 3m" ;;
        4) shapes="2x2 hypercube 2x2m 4" ;;
        esac
        for s in $shapes; do
            exact_clean "ra_opt n=$n $gen --dims $s" "$ref" $n bin/ra_opt --gen $gen --dims "$s"
        done
    done
done
ref=$("$BUILD/tests/ra_seq" $K lfsr)
exact_clean "ra_opt n=4 --node-dim" "$ref" 4 bin/ra_opt --node-dim
exact_clean "ra_base n=2 --suite all --time-bound 5" "$ref" 2 bin/ra_base --suite mpi --time-bound 5

echo "# the MPI adapter, leak-checked: libtorus_pmpi.so preloaded after the ASan runtime"
# (the sanitized library needs the runtime loaded first; the test programs
# of this build bring their own copy of it, which is the same file)
ASAN_RT=$(gcc -print-file-name=libasan.so)
PM_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
for c in "3 pmpi_sigs fixed adapter" "3 pmpi_sigs zero adapter" "3 pmpi_reduce 7 1" "4 pmpi_check 8"; do
    n=${c%% *}
    read -r -a args <<<"${c#* }"
    run_mpi "$n" env LD_PRELOAD="$ASAN_RT $PM_LIB" "$BUILD/tests/${args[0]}" "${args[@]:1}"
    rc=$?
    if [ $rc = 0 ] && clean "$TMP/err"; then ok "adapter: ${args[*]} n=$n clean: $(head -1 "$TMP/out")"; else bad "adapter: ${args[*]} n=$n: rc $rc"; grep -m5 -E 'Sanitizer|runtime error|#[0-9]' "$TMP/err" | sed 's/^/    /'; fi
done

echo "# bad inputs and failing resources, leak-checked"
# san_fail DESC CODE TEXT N CMD... : exit CODE, TEXT on stderr, no report
san_fail() {
    local desc=$1 code=$2 text=$3 n=$4
    shift 4
    if [ "$n" = 0 ]; then timeout -k 5 120 "$@" >"$TMP/out" 2>"$TMP/err"; else run_mpi "$n" "$@"; fi
    local rc=$?
    if [ "$rc" = "$code" ] && grep -q -- "$text" "$TMP/err" && clean "$TMP/err"; then
        ok "$desc -> exit $rc"
    else
        bad "$desc: exit $rc (want $code)"
        grep -m5 -v '^$' "$TMP/err" | sed 's/^/    /'
    fi
}
printf '0 5\nnodes 3\n0 1\n1 2\n' >"$TMP/late.txt"
printf 'weight 10 1\nnodes 3\n0 1\n1 2\n' >"$TMP/latew.txt"
printf '3 2\n2 1e300\n1 3\n2\n' >"$TMP/huge.graph"
san_fail "ra_opt --outstanding 0 (setup error frees its state)" 2 "allowed an integer 1..64" 2 bin/ra_opt --log2-table 10 --outstanding 0
san_fail "ra_opt --dims 3x3 on 4 ranks" 2 "product must equal" 4 bin/ra_opt --log2-table 10 --dims 3x3
san_fail "ra_opt --map /dev/zero" 2 "a character device, not a regular file" 2 bin/ra_opt --log2-table 10 --dims 2 --map /dev/zero
san_fail "ra_base --output /dev/full" 3 "No space left on device" 2 bin/ra_base --log2-table 10 --quiet --output /dev/full
san_fail "ra_base --json into a missing folder" 2 "No such file" 2 bin/ra_base --log2-table 10 --json "$TMP/no/r.json"
san_fail "ra_base --log2-table 61" 3 "GiB is available" 2 bin/ra_base --log2-table 61
san_fail "ra_base --bogus" 2 "unknown option" 1 bin/ra_base --bogus
san_fail "sparsest_cut late 'nodes'" 2 "out of range" 0 bin/sparsest_cut --file "$TMP/late.txt"
san_fail "sparsest_cut late weight" 2 "out of range" 0 bin/sparsest_cut --file "$TMP/latew.txt"
san_fail "sparsest_cut METIS 1e300" 2 "out of range" 0 bin/sparsest_cut --file "$TMP/huge.graph"
san_fail "torusmodel --params /dev/zero" 2 "a character device, not a regular file" 0 bin/torusmodel --params /dev/zero
san_fail "torusmodel --write-params /dev/full" 3 "No space left" 0 bin/torusmodel --preset bgl-mpi --write-params /dev/full
bin/sparsest_cut 4x4x2 >"$TMP/out" 2>"$TMP/err" && clean "$TMP/err" && [ "$(key alpha)" = 1 ] && ok "sparsest_cut 4x4x2 clean, alpha 1" || bad "sparsest_cut 4x4x2: $(head -3 "$TMP/err")"
bin/torusmodel --preset bgl-routed --shape 4x4 --simulate --sim-updates 256 >"$TMP/out" 2>"$TMP/err" && clean "$TMP/err" && [ "$(key sim_exact)" = yes ] && ok "torusmodel --simulate 4x4 clean, exact" || bad "torusmodel --simulate: $(head -3 "$TMP/err")"
finish
