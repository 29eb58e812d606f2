# suite_pmpi.sh - libtorus_pmpi.so, the MPI adapter (issue 12): the test
# program tests/tools/pmpi_check prints the same digest for every case with
# and without LD_PRELOAD at 1-8 ranks; TORUS_COLL_STATS=1 shows the calls the
# torus library ran and the ones handed to the MPI library, with reasons;
# TORUS_COLL=off hands everything over; TORUS_COLL_DIMS and forced
# algorithms keep the results; bad settings stop the job with one line;
# ra_base and ra_opt run exact under the adapter, their verification out of
# its reach.  Sourced by run_tests.sh (helpers: tests/lib.sh).
PM_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
PM_CHECK="$BUILD/tests/pmpi_check"

# pm_line OP [FILE] : the stats line of OP ("torus_pmpi: OP: calls ...")
pm_line() { grep -m1 "^torus_pmpi: $1: calls " "${2:-$TMP/err}"; }

# pm_expect DESC OP PATTERN... : OP's stats line in $TMP/err matches every
# grep -E PATTERN
pm_expect() {
    local desc=$1 op=$2 line p
    shift 2
    line=$(pm_line "$op")
    for p in "$@"; do
        if ! printf '%s\n' "$line" | grep -qE -- "$p"; then
            bad "$desc: $op stats line lacks /$p/: ${line:-(none)}"
            return
        fi
    done
    ok "$desc: $line"
}

if [ ! -f "$PM_LIB" ] || [ ! -x "$PM_CHECK" ]; then
    bad "libtorus_pmpi: $PM_LIB or $PM_CHECK not built (make all MPI=$MPI)"
else
    # 1-8 ranks: the same digests with and without the adapter; every case
    # at 1 rank, every 8th (pmpi_check 8) at 2-4, every 32nd at 5-8, where
    # each collective costs milliseconds on two oversubscribed cores
    pm_stride() { if [ "$1" = 1 ]; then echo 1; elif [ "$1" -le 4 ]; then echo 8; else echo 32; fi; }
    for n in 1 2 3 4 5 6 7 8; do
        st=$(pm_stride $n)
        run_mpi $n "$PM_CHECK" $st
        rc_plain=$?
        cp "$TMP/out" "$TMP/plain$n"
        run_mpi $n env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=1 "$PM_CHECK" $st
        rc_pre=$?
        cases=$(sed -n 's/^cases //p' "$TMP/out")
        if [ $rc_plain = 0 ] && [ $rc_pre = 0 ] && [ "${cases:-0}" -ge 30 ] && cmp -s "$TMP/plain$n" "$TMP/out"; then
            ok "pmpi_check $st n=$n: $cases cases, the same digests with and without libtorus_pmpi.so"
        else
            bad "pmpi_check $st n=$n: rc $rc_plain/$rc_pre, cases ${cases:-none}, first differences:"
            diff "$TMP/plain$n" "$TMP/out" | head -5 | sed 's/^/    /'
            head -3 "$TMP/err" | sed 's/^/    /'
        fi
        # the fall-throughs the program provokes, counted exactly (every
        # case at 1 rank; at 4 the derived types, user ops and the
        # intercommunicator, which every stride keeps)
        if [ $n = 1 ]; then
            pm_expect "n=1 stats" barrier "calls 6, torus 6 " "fell_through 0$"
            pm_expect "n=1 stats" bcast " torus 53 " "fell_through 6 \(datatype 6\)$"
            pm_expect "n=1 stats" allreduce " torus 121 " "fell_through 40 \(datatype 4, user_op 4, type_op 32\)$"
            pm_expect "n=1 stats" alltoall " torus 30 " "fell_through 3 \(datatype 3\)$"
            pm_expect "n=1 stats" alltoallv " torus 28 " "fell_through 4 \(datatype 4\)$"
            pm_expect "n=1 stats" neighbor_alltoallv "calls 8, torus 6 " "plans 3, " "fell_through 2 \(datatype 1, topology 1\)$"
        elif [ $n = 4 ]; then
            pm_expect "n=4 stats" barrier "calls 7, torus 6 " "fell_through 1 \(intercomm 1\)$"
            pm_expect "n=4 stats" bcast " torus [1-9][0-9]* " "fell_through 6 \(datatype 6\)$"
            pm_expect "n=4 stats" allreduce " torus [1-9][0-9]* " "\(intercomm 1, datatype 4, user_op 4, type_op [1-9][0-9]*\)$"
            pm_expect "n=4 stats" alltoall " torus [1-9][0-9]* " "fell_through 3 \(datatype 3\)$"
            pm_expect "n=4 stats" alltoallv " torus [1-9][0-9]* " "fell_through 4 \(datatype 4\)$"
            # 6 calls, 3 patterns (the first, a change of counts, another
            # datatype): the rest replayed a plan
            pm_expect "n=4 stats" neighbor_alltoallv "calls 8, torus 6 " "plans 3, " "fell_through 2 \(datatype 1, topology 1\)$"
        fi
    done
    if grep -q '^torus_pmpi' "$TMP/plain8"; then bad "a run without the adapter printed adapter lines"; fi

    # TORUS_COLL=off: every call to the library, counted as such
    run_mpi 3 env LD_PRELOAD="$PM_LIB" TORUS_COLL=off TORUS_COLL_STATS=1 "$PM_CHECK" 8
    if [ $? = 0 ] && cmp -s "$TMP/plain3" "$TMP/out"; then ok "TORUS_COLL=off n=3: same digests"; else bad "TORUS_COLL=off n=3 digests"; fi
    for op in barrier bcast allreduce alltoall alltoallv neighbor_alltoallv; do
        calls=$(pm_line $op | sed -n 's/.*: calls \([0-9]*\),.*/\1/p')
        pm_expect "TORUS_COLL=off" $op "torus 0, " "fell_through ${calls:-x} \(off ${calls:-x}\)$"
    done

    # a shape of the user's, and every registered algorithm forced in turn
    # (TORUS_COLL_<OP>; a forced one that cannot run here falls back to
    # the table with a notice): the same digests
    run_mpi 4 env LD_PRELOAD="$PM_LIB" TORUS_COLL_DIMS=2x2 "$PM_CHECK" 8
    if [ $? = 0 ] && cmp -s "$TMP/plain4" "$TMP/out"; then ok "TORUS_COLL_DIMS=2x2 n=4: same digests"; else bad "TORUS_COLL_DIMS=2x2 n=4 digests"; fi
    PM_REG=$(bin/collbench --help 2>&1 | sed -n 's/^algorithms registered: //p')
    pm_algs() {
        local x=${PM_REG#*"$1": }
        echo "${x%%;*}"
    }
    read -r -a pm_bar <<<"$(pm_algs barrier)"
    read -r -a pm_bc <<<"$(pm_algs bcast)"
    read -r -a pm_ar <<<"$(pm_algs allreduce)"
    read -r -a pm_av <<<"$(pm_algs alltoallv)"
    read -r -a pm_ms <<<"$(pm_algs multisend)"
    rounds=${#pm_bar[@]}
    for a in ${#pm_bc[@]} ${#pm_ar[@]} ${#pm_av[@]} ${#pm_ms[@]}; do [ "$a" -gt "$rounds" ] && rounds=$a; done
    for ((i = 0; i < rounds; i++)); do
        b=${pm_bar[i % ${#pm_bar[@]}]} c=${pm_bc[i % ${#pm_bc[@]}]} r=${pm_ar[i % ${#pm_ar[@]}]} v=${pm_av[i % ${#pm_av[@]}]}
        m=${pm_ms[i % ${#pm_ms[@]}]}
        n=$((i % 2 ? 5 : 4))
        dims=$([ $n = 4 ] && echo 2x2 || echo 5)
        run_mpi $n env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=1 TORUS_COLL_DIMS=$dims TORUS_COLL_BARRIER="$b" \
            TORUS_COLL_BCAST="$c" TORUS_COLL_ALLREDUCE="$r" TORUS_COLL_ALLTOALLV="$v" TORUS_COLL_MULTISEND="$m" "$PM_CHECK" "$(pm_stride $n)"
        rc=$?
        ran=$(grep -o "torus [0-9]* ([a-z_ 0-9,]*)" "$TMP/err" | tr '\n' ' ')
        used=1
        # each forced name ran (bruck takes uniform blocks only: alltoall)
        for x in "barrier $b" "bcast $c" "allreduce $r" "alltoall $v" "neighbor_alltoallv $m"; do
            read -r o a <<<"$x"
            pm_line "$o" | grep -qE "(\(|, )$a [0-9]+" || used=0
        done
        if [ $rc = 0 ] && cmp -s "$TMP/plain$n" "$TMP/out" && [ $used = 1 ]; then
            ok "n=$n forced $b/$c/$r/$v/$m: same digests; ran $ran"
        else
            bad "n=$n forced $b/$c/$r/$v/$m: rc $rc, ran $ran"
            diff "$TMP/plain$n" "$TMP/out" | head -3 | sed 's/^/    /'
        fi
    done

    # bad settings: one line, exit 2, before any collective
    expect_fail "TORUS_COLL=maybe" 2 "TORUS_COLL=maybe: allowed on, off, 1, 0" 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL=maybe "$PM_CHECK"
    expect_fail "TORUS_COLL_DIMS=3x3 at 4 ranks" 2 "TORUS_COLL_DIMS: " 4 env LD_PRELOAD="$PM_LIB" TORUS_COLL_DIMS=3x3 "$PM_CHECK"
    expect_fail "TORUS_COLL_MULTISEND=nope" 2 "TORUS_COLL_MULTISEND=nope: unknown multisend algorithm: allowed auto, " 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL_MULTISEND=nope "$PM_CHECK"
    expect_fail "TORUS_COLL_BCAST=nope" 2 "TORUS_COLL_BCAST=nope: unknown bcast algorithm: allowed auto, " 2 env LD_PRELOAD="$PM_LIB" TORUS_COLL_BCAST=nope "$PM_CHECK"

    # make install puts it beside the other libraries, one folder per MPI
    if make --no-print-directory install-pmpi MPI="$MPI" PAPI="${PAPI:-}" PREFIX="$TMP/pinst" >"$TMP/pinst.log" 2>&1 &&
        [ -f "$TMP/pinst/lib/hpcc-ra/$MPI/libtorus_pmpi.so" ]; then
        ok "make install: lib/hpcc-ra/$MPI/libtorus_pmpi.so"
    else
        bad "make install-pmpi: $(tail -2 "$TMP/pinst.log")"
    fi

    # the kit's binaries under the adapter: exact, their own collectives
    # intercepted, the verification exchange (PMPI_ in ra_verify.c) not
    ref=$("$BUILD/tests/ra_seq" 16 lfsr)
    for prog in ra_base ra_opt; do
        run_mpi 4 env LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=1 bin/$prog --log2-table 16 --quiet
        expect_exact "$prog n=4 under libtorus_pmpi.so" "$ref" $?
        pm_expect "$prog n=4 under the adapter" allreduce "torus [1-9][0-9]* "
        pm_expect "$prog n=4: verification's exchange not intercepted" alltoallv "calls 0, "
    done
    run_mpi 3 env LD_PRELOAD="$PM_LIB" bin/ra_opt --log2-table 16 --quiet
    expect_exact "ra_opt n=3 under libtorus_pmpi.so" "$ref" $?
fi
