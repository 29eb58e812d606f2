# suite_nodes.sh - several nodes on one machine (issue 25 item 3,
# docs/running.md): TORUS_NODES=k / TORUS_HOSTFILE give the kit an
# emulated node layout, with traffic between those nodes through the MPI
# library's network path (NODES_NET below).  At 2 and 4 nodes of 2 ranks:
# ra_opt (shared-memory rings inside a node, --node-dim) and ra_base
# match the one-rank fingerprint and print the layout; collbench
# --validate agrees with the MPI library, its barrier's auto pick is
# node_aware over the emulated nodes; the adapter's probe gives the same
# digests with and without libtorus_pmpi.so and says the layout.  Bad,
# differing and machine-crossing layouts stop with one line, exit 2.
# Sourced by run_tests.sh (its glob registers every tests/suite_*.sh;
# helpers: tests/lib.sh).
NODES_K=16
nodes_saved_flags=$MPIRUN_FLAGS
# The MPI library's own view must match the emulated nodes, so that the
# traffic between them takes its network path: MPICH (4.0+) splits a
# machine into cliques (MPIR_CVAR_NUM_CLIQUES, by block as TORUS_NODES
# does) and sends between cliques through its netmod (UCX here; not
# UCX_TLS=tcp,self, under which pmpi_check hung in MPI_Finalize, see
# docs/running.md); Open MPI takes ob1 with the TCP BTL only (no vader
# shared memory between any ranks; the rings of ra_opt use an MPI shared
# window, which Open MPI allocates without a BTL).
if [ "$MPI" = openmpi ]; then
    MPIRUN_FLAGS="$MPIRUN_FLAGS --mca pml ob1 --mca btl tcp,self"
fi
# nodes_env K : the environment of a run on K emulated nodes
nodes_env() {
    echo "TORUS_NODES=$1"
    [ "$MPI" = mpich ] && echo "MPIR_CVAR_NUM_CLIQUES=$1 MPIR_CVAR_CLIQUES_BY_BLOCK=1"
}
# run_nodes N K CMD... : N ranks as K emulated nodes
run_nodes() {
    local n=$1 k=$2
    shift 2
    # shellcheck disable=SC2046 # the words of nodes_env are separate settings
    run_mpi "$n" env $(nodes_env "$k") "$@"
}
# layout [FILE] : the node layout a run printed as keys, "nodes/per_node/source"
# (the key block's, or with FILE a --json file's: the same names)
layout() {
    if [ -n "${1:-}" ]; then
        echo "$(jkey nodes "$1")/$(jkey ranks_per_node "$1")/$(jkey nodes_source "$1")"
    else
        echo "$(key nodes)/$(key ranks_per_node)/$(key nodes_source)"
    fi
}
# pm_nodes : the layout the adapter used, from its TORUS_COLL_STATS=kv
# summary (tests/lib.sh's pm_stat): nodes and where the layout came from
pm_nodes() {
    echo "$(pm_stat summary nodes)/$(pm_stat summary nodes_source)"
}

ref=$("$BUILD/tests/ra_seq" $NODES_K lfsr)
for k in 2 4; do
    n=$((2 * k))
    for prog in ra_opt ra_base; do
        run_nodes $n $k bin/$prog --log2-table $NODES_K
        rc=$?
        if [ "$(layout)" = "$k/2/TORUS_NODES" ]; then
            expect_exact "$prog n=$n as $k nodes of 2 (nodes/ranks_per_node/nodes_source $(layout))" "$ref" $rc
        else
            bad "$prog n=$n TORUS_NODES=$k: nodes/ranks_per_node/nodes_source '$(layout)', want '$k/2/TORUS_NODES': $(head -c 300 "$TMP/err")"
        fi
    done
    # the rings connect the 2 ranks of a node only: at 2 ranks per node a
    # 2x... shape's last dimension (node-local by --node-dim) is the one
    # dimension through shared memory, whatever the machine holds
    run_nodes $n $k bin/ra_opt --log2-table $NODES_K --node-dim --node-transport shm
    rc=$?
    if [ "$(key node_transport)" = shm ] && [ "$(key shm_dims)" = 1 ] && [ "$(key node_ranks)" = 2 ]; then
        expect_exact "ra_opt n=$n --node-dim on $k emulated nodes (shape $(key shape)): one dimension in a node's rings" "$ref" $rc
    else
        bad "ra_opt n=$n TORUS_NODES=$k --node-dim: node_transport $(key node_transport), shm_dims $(key shm_dims), node_ranks $(key node_ranks) $(head -c 300 "$TMP/err")"
    fi

    cbj=$TMP/nodes_cb.json
    rm -f "$cbj"
    run_nodes $n $k bin/collbench --validate --sizes 8,4K --iters 1 --warmup 0 --json "$cbj"
    rc=$?
    checks=$(jkey checks "$cbj")
    # the row of barrier's auto: what it chose
    pick=$(grep -o '"op": "barrier", "size": [0-9]*, "algorithm": "auto", "chosen": "[^"]*"' "$cbj" | head -1 | jkey chosen /dev/stdin)
    if [ $rc = 0 ] && [ "$(jkey failures "$cbj")" = 0 ] && [ "${checks:-0}" -gt 0 ] && [ "$pick" = node_aware ] &&
        [ "$(layout "$cbj")" = "$k/2/TORUS_NODES" ]; then
        ok "collbench --validate n=$n as $k nodes: $checks checks, 0 failed, barrier auto chose $pick"
    else
        bad "collbench --validate n=$n TORUS_NODES=$k: rc=$rc checks '$checks' failures '$(jkey failures "$cbj")' barrier auto '$pick' layout '$(layout "$cbj")' $(head -c 300 "$TMP/err")"
    fi

    PM_LIB="$PWD/lib/$MPI/libtorus_pmpi.so"
    st=$((n == 4 ? 8 : 32)) # every 8th case at 4 ranks, every 32nd at 8 (as suite_pmpi.sh)
    run_nodes $n $k "$BUILD/tests/pmpi_check" $st
    rc_plain=$?
    cp "$TMP/out" "$TMP/nodes_plain"
    run_nodes $n $k LD_PRELOAD="$PM_LIB" TORUS_COLL_STATS=kv "$BUILD/tests/pmpi_check" $st
    rc_pre=$?
    if [ $rc_plain = 0 ] && [ $rc_pre = 0 ] && cmp -s "$TMP/nodes_plain" "$TMP/out" &&
        [ "$(pm_nodes)" = "$k/TORUS_NODES" ] &&
        [ "$(pm_stat barrier alg.node_aware)" -gt 0 ] 2>/dev/null; then
        ok "pmpi_check $st n=$n as $k nodes: the same digests with and without the adapter, nodes $(pm_nodes), barrier node_aware"
    else
        bad "pmpi_check n=$n TORUS_NODES=$k: rc $rc_plain/$rc_pre, nodes $(pm_nodes), $(pm_kv_line barrier) $(grep -v '^torus_pmpi' "$TMP/err" | head -c 300)"
    fi
done

# A host file gives the same layout as TORUS_NODES: ranks 0,1 on a, 2,3 on b
printf '# two emulated hosts\na\na\nb \n\nb\n' >"$TMP/hosts"
TORUS_HOSTFILE="$TMP/hosts" run_mpi 4 bin/ra_opt --log2-table $NODES_K
rc=$?
if [ "$(layout)" = 2/2/TORUS_HOSTFILE ]; then
    expect_exact "ra_opt n=4 TORUS_HOSTFILE (2 hosts of 2 ranks)" "$ref" $rc
else
    bad "ra_opt n=4 TORUS_HOSTFILE: nodes/ranks_per_node/nodes_source '$(layout)', want '2/2/TORUS_HOSTFILE' $(head -c 300 "$TMP/err")"
fi

# Bad layouts: exit 2, one line of the program's naming the setting and
# its value (and the values allowed, where it lists them): tests/lib.sh's
# expect_error, tokens not sentences
expect_error "TORUS_NODES=3 at 4 ranks" 2 "ra_opt|TORUS_NODES=3|1, 2, 4" \
    4 env TORUS_NODES=3 bin/ra_opt --log2-table 10
expect_error "TORUS_NODES=x at 2 ranks (ra_base)" 2 "ra_base|TORUS_NODES=x|1, 2" 2 env TORUS_NODES=x bin/ra_base --log2-table 10
expect_error "TORUS_NODES=0 (collbench)" 2 "collbench|TORUS_NODES=0|1, 2" 2 env TORUS_NODES=0 bin/collbench --op barrier --sizes 8
expect_error "TORUS_NODES and TORUS_HOSTFILE" 2 "ra_opt|TORUS_NODES|TORUS_HOSTFILE" 2 env TORUS_NODES=1 TORUS_HOSTFILE="$TMP/hosts" bin/ra_opt --log2-table 10
printf 'a\na\nb\n' >"$TMP/hosts3"
expect_error "host file one line short" 2 "ra_opt|TORUS_HOSTFILE|$TMP/hosts3| 3 | 4 " 4 env TORUS_HOSTFILE="$TMP/hosts3" bin/ra_opt --log2-table 10
printf 'a\na b\n' >"$TMP/hostsbad"
expect_error "host file with a blank in a name" 2 "ra_base|TORUS_HOSTFILE|$TMP/hostsbad:2:|'a b'" 2 env TORUS_HOSTFILE="$TMP/hostsbad" bin/ra_base --log2-table 10
expect_error "missing host file" 2 "ra_opt|TORUS_HOSTFILE|'$TMP/nope'" 2 env TORUS_HOSTFILE="$TMP/nope" bin/ra_opt --log2-table 10
expect_error "adapter: TORUS_NODES=3 at 2 ranks" 2 "torus_pmpi|TORUS_NODES=3|1, 2" \
    2 env LD_PRELOAD="$PWD/lib/$MPI/libtorus_pmpi.so" TORUS_NODES=3 "$BUILD/tests/pmpi_check" 32
# ranks that disagree (rank 0 alone sees TORUS_NODES): refused, one line
# (the ranks' agreement on their settings, kit/agree.c, says it first)
printf '#!/bin/sh\n[ "${PMI_RANK:-$OMPI_COMM_WORLD_RANK}" = 0 ] && export TORUS_NODES=2\nexec "$@"\n' >"$TMP/rank0only"
chmod +x "$TMP/rank0only"
run_mpi 2 "$TMP/rank0only" bin/ra_opt --log2-table 10
rc=$?
if error_ok 2 "ra_opt|TORUS_NODES|'2'" $rc; then
    ok "TORUS_NODES on rank 0 only -> exit 2, one line naming it and the value: $(ours "$TMP/err" ra_opt)"
else
    bad "TORUS_NODES on rank 0 only: exit $rc (want 2), stderr: $(head -c 300 "$TMP/err")"
fi
# an emulated node across the MPI library's nodes (MPICH's cliques): the
# shared-memory transport could not map it, so refused
if [ "$MPI" = mpich ]; then
    expect_error "TORUS_NODES=1 over 2 MPICH cliques" 2 "ra_opt|TORUS_NODES" \
        4 env TORUS_NODES=1 MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_CLIQUES_BY_BLOCK=1 bin/ra_opt --log2-table 10
fi
# Two hops on a node (--node-hops 2, issue 35): 8 ranks as 2 nodes of 4,
# each node routed 2x2 below the nodes' dimension, both node dimensions
# through the node's rings; and --node-hops 1 keeps today's 2x4.
run_nodes 8 2 bin/ra_opt --log2-table $NODES_K --node-dim --node-transport shm --node-hops 2
rc=$?
if [ "$(key shape)" = 2x2x2 ] && [ "$(key node_hops)" = 2 ] && [ "$(key shm_dims)" = 2 ]; then
    expect_exact "ra_opt n=8 --node-dim --node-hops 2 on 2 emulated nodes of 4: shape 2x2x2, both node dimensions in the rings" "$ref" $rc
else
    bad "ra_opt n=8 --node-hops 2 on 2 nodes: shape $(key shape), node_hops $(key node_hops), shm_dims $(key shm_dims) $(head -c 300 "$TMP/err")"
fi
run_nodes 8 2 bin/ra_opt --log2-table $NODES_K --node-dim --node-transport shm --node-hops 1
rc=$?
if [ "$(key shape)" = 2x4 ] && [ "$(key node_hops)" = 1 ] && [ "$(key shm_dims)" = 1 ]; then
    expect_exact "ra_opt n=8 --node-dim --node-hops 1 on 2 emulated nodes of 4: shape 2x4" "$ref" $rc
else
    bad "ra_opt n=8 --node-hops 1 on 2 nodes: shape $(key shape), node_hops $(key node_hops), shm_dims $(key shm_dims) $(head -c 300 "$TMP/err")"
fi
MPIRUN_FLAGS=$nodes_saved_flags
