/*
 * pmpi_neighbor.c - MPI_Neighbor_alltoallv on a distributed-graph
 * communicator as a torus multisend plan (paper 001: set the pattern up
 * once, replay it).
 *
 * The graph (sources and destinations, in MPI's order) is read once per
 * communicator.  Each call turns the counts and displacements into bytes
 * and asks the cached plan whether they are its pattern
 * (torus_multisend_check).  A pattern change on one rank changes its
 * neighbours' patterns but not necessarily everyone's, while building a
 * plan is collective: so the ranks agree with one small allreduce per call
 * (the maximum of "my pattern changed") and, when any changed, all build
 * the plan again.  The rest of a call is the plan's start and wait.
 * Multiple edges between two ranks pair in the order MPI pairs them (the
 * k-th listing on each side), which is multisend's rule too.
 *
 * Datatypes as in MPI_Alltoallv: each side in place when its type is
 * contiguous, else packed (pmpi_layout.c).  That agreement allreduce is
 * the one collective the adapter adds to a call; it runs on every call,
 * zero-byte ones included (a rank cannot know that its neighbours'
 * patterns are unchanged): one MPI_Allreduce of one int over the
 * communicator, a few microseconds on this machine (docs/mpi-adapter.md).
 *
 * TORUS_COLL_MULTISEND=direct|routed forces the plan's algorithm (the
 * default lets multisend choose).  Falls through: communicators without a
 * distributed graph (Cartesian and general graphs, reason "topology"),
 * negative counts.
 */
#include "pmpi_impl.h"

#include <stdlib.h>

/* What a communicator keeps for its neighbourhood calls (pc->nb, made at
 * its first one): the graph, read once, and the multisend plan of the
 * last pattern.  Only this file sees the fields. */
struct pm_neighbor {
    int graph;         /* 0 not read yet, 1 a distributed graph, -1 none */
    int indeg, outdeg;
    int *srcs, *dests;
    size_t *nv;        /* byte counts and displacements of this call */
    torus_multisend *plan;
};

/* The graph's arrays and the plan (nb stays, its verdict with it). */
static void arrays_free(pm_neighbor *nb)
{
    if (nb->plan)
        torus_multisend_free(&nb->plan);
    free(nb->srcs);
    free(nb->dests);
    free(nb->nv);
    nb->srcs = nb->dests = NULL;
    nb->nv = NULL;
}

void pm__neighbor_free(pm_comm *pc)
{
    if (!pc->nb)
        return;
    arrays_free(pc->nb);
    free(pc->nb);
    pc->nb = NULL;
}

/* Reads pc's graph into nb (graph 0): PM_OK, or PM_WHY_TOPOLOGY. */
static pm_why graph_read(const pm_comm *pc, pm_neighbor *nb)
{
    nb->graph = -1;
    int topo = MPI_UNDEFINED, weighted = 0;
    if (PMPI_Topo_test(pc->comm, &topo) != MPI_SUCCESS || topo != MPI_DIST_GRAPH)
        return PM_WHY_TOPOLOGY;
    PMPI_Dist_graph_neighbors_count(pc->comm, &nb->indeg, &nb->outdeg, &weighted);
    size_t in = (size_t)nb->indeg + 1, out = (size_t)nb->outdeg + 1; /* + 1: never malloc(0) */
    nb->srcs = malloc(in * sizeof(int));
    nb->dests = malloc(out * sizeof(int));
    nb->nv = malloc(2 * (in + out) * sizeof(size_t));
    /* the weights are read only because MPI wants somewhere to put them */
    int *sw = weighted ? malloc(in * sizeof(int)) : MPI_UNWEIGHTED;
    int *dw = weighted ? malloc(out * sizeof(int)) : MPI_UNWEIGHTED;
    /* the other ranks run the plan: this one cannot fall through alone */
    if (!nb->srcs || !nb->dests || !nb->nv || !sw || !dw)
        pm__no_memory(pc, (in + out) * ((weighted ? 2 : 1) * sizeof(int) + 2 * sizeof(size_t)),
                      "MPI_Neighbor_alltoallv's graph");
    int ok =
        PMPI_Dist_graph_neighbors(pc->comm, nb->indeg, nb->srcs, sw, nb->outdeg, nb->dests, dw) == MPI_SUCCESS;
    if (weighted) {
        free(sw);
        free(dw);
    }
    for (int i = 0; ok && i < nb->indeg; i++)
        ok = nb->srcs[i] >= 0 && nb->srcs[i] < pc->n;
    for (int i = 0; ok && i < nb->outdeg; i++)
        ok = nb->dests[i] >= 0 && nb->dests[i] < pc->n;
    if (!ok) {
        arrays_free(nb);
        return PM_WHY_TOPOLOGY;
    }
    nb->graph = 1;
    return PM_OK;
}

pm_why pm__graph(pm_comm *pc)
{
    pm_neighbor *nb = pc->nb;
    if (!nb) {
        /* the other ranks run the plan: this one cannot fall through alone */
        if (!(nb = calloc(1, sizeof *nb)))
            pm__no_memory(pc, sizeof *nb, "MPI_Neighbor_alltoallv's graph");
        pc->nb = nb;
    }
    if (nb->graph)
        return nb->graph > 0 ? PM_OK : PM_WHY_TOPOLOGY;
    return graph_read(pc, nb);
}

int pm__neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                           const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    pm_comm *pc = NULL;
    const pm_type *st = NULL, *rt = NULL;
    pm_why why = pm__ready();
    if (!why && (comm == MPI_COMM_NULL || !(st = pm__type(stype)) || !(rt = pm__type(rtype))))
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why)
        why = pm__graph(pc);
    pm_side ss = {0}, rs = {0};
    pm_neighbor *nb = why ? NULL : pc->nb;
    if (!why) {
        ss.cnt = nb->nv, ss.off = ss.cnt + nb->outdeg, rs.cnt = ss.off + nb->outdeg, rs.off = rs.cnt + nb->indeg;
        if (pm__side(pc, &ss, PM_SCRATCH_SEND, sbuf, nb->outdeg, scounts, sdispls, st) ||
            pm__side(pc, &rs, PM_SCRATCH_RECV, rbuf, nb->indeg, rcounts, rdispls, rt))
            why = PM_WHY_ARGS;
    }
    if (why) {
        pm__fell(PM_NEIGHBOR_ALLTOALLV, why);
        return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
    pm_mark m = pm__start(pc);
    if (ss.packed)
        pm__side_pack(pc, &ss, sbuf, nb->outdeg, scounts, sdispls, stype, st);
    torus_multisend_spec spec = {.ndest = nb->outdeg, .dests = nb->dests, .scounts = ss.cnt, .sdispls = ss.off,
                                 .nsrc = nb->indeg, .srcs = nb->srcs, .rcounts = rs.cnt, .rdispls = rs.off};
    int changed = !nb->plan || torus_multisend_check(nb->plan, &spec) != 0, any = changed;
    PMPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, pc->comm);
    pm__agreed(PM_NEIGHBOR_ALLTOALLV);
    int rc = 0;
    if (any) {
        if (nb->plan)
            torus_multisend_free(&nb->plan);
        rc = torus_multisend_init(pc->c, &spec, pm__settings()->ms_algorithm, &nb->plan);
        pm__planned();
        m.msgs = pm__start(pc).msgs; /* the stats' msgs: the exchange's; a plan's set-up is in "plans" */
    }
    if (!rc)
        rc = torus_multisend_start(nb->plan, ss.base, rs.base);
    if (!rc)
        rc = torus_multisend_wait(nb->plan);
    if (!rc && rs.packed)
        pm__side_unpack(pc, &rs, rbuf, nb->indeg, rcounts, rdispls, rtype, rt);
    pm__ran(PM_NEIGHBOR_ALLTOALLV, ss.total, rc ? NULL : torus_multisend_algorithm(nb->plan), m, pc);
    return pm__result(pc, "MPI_Neighbor_alltoallv", rc);
}

PM_EXPORT int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                     void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                     MPI_Comm comm) __attribute__((alias("pm__neighbor_alltoallv")));
