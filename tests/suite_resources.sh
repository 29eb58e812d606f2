# tests/suite_resources.sh - a resource the adapter or ra_opt's node
# transport needs, missing, never kills a correct program (issue 48,
# class 1; docs/reliability.md).  Each case runs the same program with
# and without LD_PRELOAD=lib/$MPI/libtorus_pmpi.so and wants the same
# output and exit code:
#   - /dev/shm nearly full (a private mount namespace, `unshare -m`, with
#     a 32 KiB tmpfs there): the adapter's node shared area (pmpi_flat.c)
#     and ra_opt's shared window (transport_shm.c) are refused at set-up,
#     alike on every rank, never a SIGBUS later; ra_opt's auto node hop
#     takes MPI, --node-transport shm stops with one line, exit 3;
#   - thousands of live communicators (tests/tools/pmpi_comms.c): the
#     adapter's own duplicates never end the job when the library runs out;
#   - a low `ulimit -n` on the ranks.
# The MPI libraries' own transports need /dev/shm too (MPICH's UCX and
# Open MPI's vader put MBs there at MPI_Init): in the small /dev/shm they
# run without it, which leaves the segments under test alone in it.  UCX
# takes System V shared memory (UCX_TLS=sysv,cma,self: kernel IPC memory,
# not a file in /dev/shm), not TCP: under UCX_TLS=tcp,self, UCX 1.13's TCP
# transport left ranks in MPI_Finalize after a finished run, 3 of 40 runs
# of ra_base and of ra_opt alike (docs/reliability.md); Open MPI runs its TCP
# BTL (--mca btl self,tcp).  Sourced by tests/run_tests.sh.

res_pre="LD_PRELOAD=$PWD/lib/$MPI/libtorus_pmpi.so"
if [ "$MPI" = mpich ]; then
    res_tl="env UCX_TLS=sysv,cma,self"
    res_flags=""
else
    res_tl="env"
    res_flags="--mca btl self,tcp"
fi

# res_same WHAT N ARGS... : runs ARGS at N ranks without and with the
# adapter; the same stdout and exit code, which must be 0
res_same() {
    local what=$1 n=$2 a b
    shift 2
    # shellcheck disable=SC2086
    timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS -n "$n" "$@" </dev/null >"$TMP/res.a" 2>"$TMP/res.ae"
    a=$?
    # shellcheck disable=SC2086
    timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS -n "$n" env "$res_pre" "$@" </dev/null >"$TMP/res.b" 2>"$TMP/res.be"
    b=$?
    if [ "$a" = 0 ] && [ "$b" = 0 ] && [ -s "$TMP/res.a" ] && cmp -s "$TMP/res.a" "$TMP/res.b"; then
        ok "resources: $what: the same $(wc -l <"$TMP/res.a") lines and exit 0 with and without the adapter ($(tail -1 "$TMP/res.a" | cut -c1-60))"
    else
        bad "resources: $what: exit $a without the adapter, $b with; $(diff "$TMP/res.a" "$TMP/res.b" | head -2) $(grep -v '^$' "$TMP/res.be" | head -2)"
    fi
}

# ---- thousands of live communicators -----------------------------------
# MPICH has 2048 context ids per process; the adapter takes one more per
# communicator it builds (at most 256 of them) and a node split for a
# moment.  Made first and used after, and used as each is made.
res_same "1500 live communicators, each used once all are made" 2 "$BUILD/tests/pmpi_comms" 1500
# past the library's limit the adapter says so at most once per process
[ "$(grep -c 'torus_pmpi: ' "$TMP/res.be")" -le 2 ] ||
    bad "resources: the adapter's refusal said $(grep -c 'torus_pmpi: ' "$TMP/res.be") times over 2 processes"
res_same "1500 live communicators, each used as it is made" 2 "$BUILD/tests/pmpi_comms" 1500 as-made

# ---- a low ulimit -n on the ranks ----------------------------------------
# the lowest of these at which the program runs alone (the MPI library
# itself needs some 30 descriptors), then the same with the adapter
res_u=""
for u in 32 40 48 64 128; do
    # shellcheck disable=SC2086
    if timeout -k 10 120 $MPIRUN $MPIRUN_FLAGS -n 2 sh -c "ulimit -n $u && exec \"\$0\"" "$BUILD/tests/pmpi_check" \
        </dev/null >/dev/null 2>&1; then
        res_u=$u
        break
    fi
done
if [ -n "$res_u" ]; then
    # shellcheck disable=SC2086
    timeout -k 10 120 $MPIRUN $MPIRUN_FLAGS -n 2 sh -c "ulimit -n $res_u && exec \"\$0\"" "$BUILD/tests/pmpi_check" \
        </dev/null >"$TMP/res.a" 2>/dev/null
    a=$?
    # shellcheck disable=SC2086
    timeout -k 10 120 $MPIRUN $MPIRUN_FLAGS -n 2 sh -c "ulimit -n $res_u && exec env \"$res_pre\" \"\$0\"" \
        "$BUILD/tests/pmpi_check" </dev/null >"$TMP/res.b" 2>"$TMP/res.be"
    b=$?
    if [ $a = 0 ] && [ $b = 0 ] && cmp -s "$TMP/res.a" "$TMP/res.b"; then
        ok "resources: pmpi_check under ulimit -n $res_u on the ranks (the lowest of 32-128 it runs under alone): the same $(grep -c . "$TMP/res.a") digests with the adapter, exit 0"
    else
        bad "resources: pmpi_check under ulimit -n $res_u: exit $a / $b with the adapter; $(head -2 "$TMP/res.be")"
    fi
else
    bad "resources: pmpi_check runs under no ulimit -n of 32-128"
fi

# ---- /dev/shm nearly full ------------------------------------------------
if [ "$(id -u)" != 0 ] || ! unshare -m sh -c 'mount -t tmpfs -o size=32k tmpfs /dev/shm' 2>/dev/null; then
    echo "# skip - resources with a small /dev/shm: needs root and unshare -m with tmpfs (a private mount namespace)"
else
    # ARGS... run inside a namespace whose /dev/shm holds 32 KiB
    res_small() {
        local q="" w
        for w in "$@"; do q="$q '${w//\'/\'\\\'\'}'"; done
        unshare -m sh -c "mount -t tmpfs -o size=32k tmpfs /dev/shm && exec $q"
    }
    # the adapter's shared area (2 ranks: bcast rows to 64 KiB, more than
    # the whole /dev/shm): refused at set-up, the library's answers
    for n in 2; do
        # shellcheck disable=SC2086
        timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS $res_flags -n $n $res_tl "$BUILD/tests/pmpi_check" 5 </dev/null >"$TMP/res.a" 2>"$TMP/res.ae"
        a=$?
        # shellcheck disable=SC2086
        res_small timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS $res_flags -n $n $res_tl "$res_pre" "$BUILD/tests/pmpi_check" 5 \
            </dev/null >"$TMP/res.b" 2>"$TMP/res.be"
        b=$?
        if [ $a = 0 ] && [ $b = 0 ] && cmp -s "$TMP/res.a" "$TMP/res.b" && ! grep -qi 'bus error\|signal 7' "$TMP/res.be"; then
            ok "resources: pmpi_check at $n ranks with the adapter in a 32 KiB /dev/shm: the library's $(grep -c . "$TMP/res.a") digests, exit 0, no SIGBUS"
        else
            bad "resources: pmpi_check at $n ranks with the adapter in a 32 KiB /dev/shm: exit $a / $b; $(diff "$TMP/res.a" "$TMP/res.b" | head -2) $(grep -v '^$' "$TMP/res.be" | head -3)"
        fi
    done
    # ra_opt's node hop: auto takes MPI (same fingerprint), shm by name stops
    # shellcheck disable=SC2086
    timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS -n 2 bin/ra_opt --log2-table 14 --outstanding 64 </dev/null >"$TMP/res.a" 2>&1
    fp=$(key fingerprint "$TMP/res.a")
    # shellcheck disable=SC2086
    res_small timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS $res_flags -n 2 $res_tl bin/ra_opt --log2-table 14 --outstanding 64 \
        </dev/null >"$TMP/res.b" 2>"$TMP/res.be"
    b=$?
    if [ $b = 0 ] && [ -n "$fp" ] && [ "$(key fingerprint "$TMP/res.b")" = "$fp" ] && grep -q '^node_transport: mpi$' "$TMP/res.b" &&
        grep -q 'chosen by auto: shared memory refused: ' "$TMP/res.b"; then
        ok "resources: ra_opt in a 32 KiB /dev/shm: the node hop takes MPI, same fingerprint ($(grep -o 'shared memory refused: [^(]*' "$TMP/res.b" | cut -c1-80))"
    else
        bad "resources: ra_opt in a 32 KiB /dev/shm: exit $b, fingerprint '$(key fingerprint "$TMP/res.b")' vs '$fp'; $(grep -i 'node transport\|error' "$TMP/res.b" "$TMP/res.be" | head -3)"
    fi
    # shellcheck disable=SC2086
    res_small timeout -k 10 300 $MPIRUN $MPIRUN_FLAGS $res_flags -n 2 $res_tl bin/ra_opt --log2-table 14 --outstanding 64 \
        --node-transport shm </dev/null >"$TMP/res.b" 2>"$TMP/res.be"
    b=$?
    if [ $b = 3 ] && [ "$(grep -c '^ra_opt: ' "$TMP/res.be")" = 1 ] && grep -q '^ra_opt: .*shared window' "$TMP/res.be" &&
        ! grep -q '^status: passed' "$TMP/res.b"; then
        ok "resources: ra_opt --node-transport shm in a 32 KiB /dev/shm: exit 3, one line: $(grep '^ra_opt: ' "$TMP/res.be" | cut -c1-120)"
    else
        bad "resources: ra_opt --node-transport shm in a 32 KiB /dev/shm: exit $b; $(head -3 "$TMP/res.be")"
    fi
fi
