/*
 * lib_colls.c - the torus library's own collectives over MPI, and nothing
 * else: tests/suite_pmpi.sh runs it under the preloaded adapter
 * (libtorus_pmpi.so, TORUS_COLL_STATS=1) and requires the adapter's stats
 * to show no call at all.  The library sets itself up (node discovery,
 * transport, communicator splits: allreduces and barriers of its own) and
 * runs barrier, bcast, allreduce, alltoall and alltoallv through
 * torus/coll; every one of those MPI calls must reach the MPI library by
 * the kit's internal names (kit/kit_mpi.h), never the adapter's MPI_
 * entries.  The program itself calls no collective the adapter intercepts
 * (it gathers the node table with MPI_Allgather, which the adapter leaves
 * to the library): the results are checked against values every rank
 * computes alone.
 *
 * usage: mpirun -n P lib_colls [ROUNDS]   (prints "lib_colls: ok ..." on
 * rank 0, exit 0; a wrong value: one line, exit 1)
 */
#include "torus_mpi.h"
#include "torus_coll.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(int me, const char *what, long at)
{
    fprintf(stderr, "lib_colls: rank %d: wrong %s at %ld\n", me, what, at);
    return 1;
}

static int round_of(torus_coll *c, int me, int n, int r)
{
    if (torus_coll_barrier(c))
        return fail(me, "barrier (error)", r);
    /* bcast of 1000 bytes from a root that moves */
    unsigned char b[1000];
    int root = r % n;
    for (int i = 0; i < 1000; i++)
        b[i] = me == root ? (unsigned char)(i * 7 + r) : 0;
    if (torus_coll_bcast(c, b, sizeof b, root))
        return fail(me, "bcast (error)", r);
    for (int i = 0; i < 1000; i++)
        if (b[i] != (unsigned char)(i * 7 + r))
            return fail(me, "bcast", i);
    /* allreduce: the sum of (rank + 1) * (i + 1) over the ranks */
    uint64_t v[64], s[64];
    for (int i = 0; i < 64; i++)
        v[i] = (uint64_t)(me + 1) * (uint64_t)(i + 1) + (uint64_t)r;
    if (torus_coll_allreduce(c, v, s, 64, TORUS_UINT64, TORUS_OP_SUM))
        return fail(me, "allreduce (error)", r);
    for (int i = 0; i < 64; i++)
        if (s[i] != (uint64_t)n * (uint64_t)(n + 1) / 2 * (uint64_t)(i + 1) + (uint64_t)n * (uint64_t)r)
            return fail(me, "allreduce", i);
    /* alltoall: block j of rank i holds i * 1000 + j, 8 bytes */
    uint64_t *snd = malloc((size_t)n * sizeof *snd), *rcv = malloc((size_t)n * sizeof *rcv);
    size_t *cnt = malloc((size_t)n * sizeof *cnt), *dsp = malloc((size_t)n * sizeof *dsp);
    if (!snd || !rcv || !cnt || !dsp)
        return fail(me, "malloc", 0);
    for (int j = 0; j < n; j++) {
        snd[j] = (uint64_t)me * 1000 + (uint64_t)j + (uint64_t)r;
        cnt[j] = sizeof(uint64_t);
        dsp[j] = (size_t)j * sizeof(uint64_t);
    }
    int bad = torus_coll_alltoall(c, snd, rcv, sizeof(uint64_t)) ? fail(me, "alltoall (error)", r) : 0;
    for (int j = 0; j < n && !bad; j++)
        if (rcv[j] != (uint64_t)j * 1000 + (uint64_t)me + (uint64_t)r)
            bad = fail(me, "alltoall", j);
    memset(rcv, 0, (size_t)n * sizeof *rcv);
    if (!bad && torus_coll_alltoallv(c, snd, cnt, dsp, rcv, cnt, dsp))
        bad = fail(me, "alltoallv (error)", r);
    for (int j = 0; j < n && !bad; j++)
        if (rcv[j] != (uint64_t)j * 1000 + (uint64_t)me + (uint64_t)r)
            bad = fail(me, "alltoallv", j);
    free(snd);
    free(rcv);
    free(cnt);
    free(dsp);
    return bad;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "lib_colls: bad value '%s' for ROUNDS: allowed 1..100000\n", argv[1]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char err[300];
    torus_shape s;
    torus_map map;
    torus_node_info ni;
    if (torus_shape_parse("auto", n, &s, err, sizeof err) || torus_map_xyzt(&map, &s)) {
        fprintf(stderr, "lib_colls: shape: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* the node layout: the library's own collectives set it up */
    if (torus_node_discover(MPI_COMM_WORLD, &ni, err, sizeof err)) {
        fprintf(stderr, "lib_colls: nodes: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* every rank's node, as collbench gathers it */
    int *node_of = malloc((size_t)n * sizeof *node_of);
    if (!torus_all_ok(MPI_COMM_WORLD, node_of != NULL))
        MPI_Abort(MPI_COMM_WORLD, 3);
    KIT_MPI_CHECK(MPI_Allgather(&ni.node, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD));
    torus_node_free(&ni);
    torus_mpi *tm;
    torus_transport tp;
    torus_coll *c;
    if (torus_mpi_create(&tm, MPI_COMM_WORLD, &map, me, 1, 0, err, sizeof err)) {
        fprintf(stderr, "lib_colls: transport: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    torus_mpi_bind(tm, &tp);
    torus_coll_config cfg = {.map = &map, .me = me, .tp = &tp, .node_of = node_of, .idle = NULL, .idle_ctx = NULL};
    if (torus_coll_create(&c, &cfg, err, sizeof err)) {
        fprintf(stderr, "lib_colls: coll: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int bad = 0;
    for (int r = 0; r < rounds && !bad; r++)
        bad = round_of(c, me, n, r);
    /* the verdict, agreed by the library (a torus allreduce of its own) */
    int all_good = torus_all_ok(MPI_COMM_WORLD, !bad);
    torus_coll_destroy(c);
    torus_mpi_destroy(tm);
    torus_map_free(&map);
    free(node_of);
    if (me == 0 && all_good)
        printf("lib_colls: ok %d ranks, %d rounds of barrier, bcast, allreduce, alltoall and alltoallv through torus/coll\n",
               n, rounds);
    MPI_Finalize();
    return all_good ? 0 : 1;
}
