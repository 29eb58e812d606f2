# suite_mpi4py.sh - the MPI adapter under an outside program (issue 37):
# tests/tools/mpi4py_colls.py calls every collective the way mpi4py users
# do (buffer and pickled-object methods, MPI.IN_PLACE, a derived type, a
# Dup, a Split, a distributed graph, an intercommunicator) through
# Debian's python3-mpi4py, which is built on Open MPI and initialises MPI
# at MPI_THREAD_MULTIPLE.  At 2 and 3 ranks, with and without
# LD_PRELOAD=lib/openmpi/libtorus_pmpi.so: every value checked, the same
# digest, and TORUS_COLL_STATS shows that the adapter ran the intercepted
# calls itself (only the intercommunicator's went to the library).
# Sourced by run_tests.sh (helpers: tests/lib.sh); under MPI=mpich, or
# without python3-mpi4py, it says why it skips.
M4_PROG="tests/tools/mpi4py_colls.py"
M4_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
# Debian's interpreter, whose dist-packages hold python3-mpi4py (a python3
# earlier on PATH, e.g. pyenv's, does not see them)
M4_PY=${MPI4PY_PYTHON:-/usr/bin/python3}
[ -x "$M4_PY" ] || M4_PY=python3

if [ "$MPI" != openmpi ]; then
    echo "# skipped: python3-mpi4py is Debian's build over Open MPI (run with MPI=openmpi)"
elif ! "$M4_PY" -c 'import mpi4py' 2>/dev/null; then
    echo "# skipped: python3-mpi4py not installed (make deps installs it)"
elif [ ! -f "$M4_LIB" ]; then
    bad "mpi4py: $M4_LIB not built (make all MPI=$MPI)"
else
    for n in 2 3; do
        run_mpi $n "$M4_PY" "$M4_PROG"
        rc_plain=$?
        plain=$(grep '^mpi4py ' "$TMP/out")
        run_mpi $n env LD_PRELOAD="$M4_LIB" TORUS_COLL_STATS=kv "$M4_PY" "$M4_PROG"
        rc_pre=$?
        pre=$(grep '^mpi4py ' "$TMP/out")
        if [ $rc_plain = 0 ] && [ $rc_pre = 0 ] && [[ "$pre" == *" thread multiple checks "*" errors 0 digest "* ]] &&
            [ "$plain" = "$pre" ]; then
            ok "mpi4py n=$n: $pre, the same with and without libtorus_pmpi.so"
        else
            bad "mpi4py n=$n: rc $rc_plain/$rc_pre, '$plain' / '$pre' $(grep -v '^torus_pmpi' "$TMP/err" | head -3)"
            continue
        fi
        # the adapter engaged at MPI_THREAD_MULTIPLE: at 3 ranks each
        # intercepted op ran on the torus library (torus > 0); handed over
        # only the intercommunicator's calls and what the compiled rows
        # give the library on communicators of 2 ranks (select.table's mpi rows:
        # "faster"; under Open MPI its barrier, bcast and alltoall there),
        # so at 2 ranks an op may have gone to the library entirely
        for op in barrier bcast allreduce alltoall alltoallv neighbor_alltoallv; do
            # (tests/lib.sh's pm_stat: the TORUS_COLL_STATS=kv line's keys)
            line=$(pm_kv_line $op)
            torus=$(pm_stat $op torus)
            fell=$(pm_stat $op fell_through)
            faster=$(pm_stat $op why.faster)
            inter=$(pm_stat $op why.intercomm)
            other=$((${fell:-0} - ${inter:-0} - ${faster:-0}))
            want_torus=1
            [ $n = 2 ] && [ "${faster:-0}" -gt 0 ] && want_torus=0
            if [ -n "$line" ] && [ "${torus:-0}" -ge $want_torus ] && [ "$other" = 0 ]; then
                ok "mpi4py n=$n: the adapter ran $op: $line"
            else
                bad "mpi4py n=$n: $op: ${line:-(no stats line)}"
            fi
        done
        if grep -q "off under\|differ between ranks" "$TMP/err"; then bad "mpi4py n=$n: $(grep -m1 torus_pmpi "$TMP/err")"; fi
    done
fi
