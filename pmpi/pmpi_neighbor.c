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

const char *pm__ms_algorithm;

void pm__neighbor_free(pm_comm *pc)
{
    if (pc->plan)
        torus_multisend_free(&pc->plan);
    free(pc->srcs);
    free(pc->dests);
    free(pc->nv);
    pc->srcs = pc->dests = NULL;
    pc->nv = NULL;
}

pm_why pm__graph(pm_comm *pc)
{
    if (pc->graph)
        return pc->graph > 0 ? PM_OK : PM_WHY_TOPOLOGY;
    pc->graph = -1;
    int topo = MPI_UNDEFINED, weighted = 0;
    if (PMPI_Topo_test(pc->comm, &topo) != MPI_SUCCESS || topo != MPI_DIST_GRAPH)
        return PM_WHY_TOPOLOGY;
    PMPI_Dist_graph_neighbors_count(pc->comm, &pc->indeg, &pc->outdeg, &weighted);
    size_t in = (size_t)pc->indeg, out = (size_t)pc->outdeg;
    pc->srcs = malloc((in + 1) * sizeof *pc->srcs);
    pc->dests = malloc((out + 1) * sizeof *pc->dests);
    pc->nv = malloc(2 * (in + out + 1) * sizeof *pc->nv);
    /* the weights are read only because MPI wants somewhere to put them */
    int *sw = weighted ? malloc((in + 1) * sizeof *sw) : MPI_UNWEIGHTED;
    int *dw = weighted ? malloc((out + 1) * sizeof *dw) : MPI_UNWEIGHTED;
    int ok = pc->srcs && pc->dests && pc->nv && sw && dw;
    if (ok)
        ok = PMPI_Dist_graph_neighbors(pc->comm, pc->indeg, pc->srcs, sw, pc->outdeg, pc->dests, dw) == MPI_SUCCESS;
    if (weighted) {
        free(sw);
        free(dw);
    }
    for (int i = 0; ok && i < pc->indeg; i++)
        ok = pc->srcs[i] >= 0 && pc->srcs[i] < pc->n;
    for (int i = 0; ok && i < pc->outdeg; i++)
        ok = pc->dests[i] >= 0 && pc->dests[i] < pc->n;
    if (!ok) {
        free(pc->srcs);
        free(pc->dests);
        free(pc->nv);
        pc->srcs = pc->dests = NULL;
        pc->nv = NULL;
        return PM_WHY_TOPOLOGY;
    }
    pc->graph = 1;
    return PM_OK;
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
    if (!why) {
        ss.cnt = pc->nv, ss.off = ss.cnt + pc->outdeg, rs.cnt = ss.off + pc->outdeg, rs.off = rs.cnt + pc->indeg;
        if (pm__side(pc, &ss, PM_SCRATCH_SEND, sbuf, pc->outdeg, scounts, sdispls, st) ||
            pm__side(pc, &rs, PM_SCRATCH_RECV, rbuf, pc->indeg, rcounts, rdispls, rt))
            why = PM_WHY_ARGS;
    }
    if (why) {
        pm__fell(PM_NEIGHBOR_ALLTOALLV, why);
        return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
    pm_mark m = pm__start(pc);
    if (ss.packed)
        pm__side_pack(pc, &ss, sbuf, pc->outdeg, scounts, sdispls, stype, st);
    torus_multisend_spec spec = {.ndest = pc->outdeg, .dests = pc->dests, .scounts = ss.cnt, .sdispls = ss.off,
                                 .nsrc = pc->indeg, .srcs = pc->srcs, .rcounts = rs.cnt, .rdispls = rs.off};
    int changed = !pc->plan || torus_multisend_check(pc->plan, &spec) != 0, any = changed;
    PMPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, pc->comm);
    pm__agreed(PM_NEIGHBOR_ALLTOALLV);
    int rc = 0;
    if (any) {
        if (pc->plan)
            torus_multisend_free(&pc->plan);
        rc = torus_multisend_init(pc->c, &spec, pm__ms_algorithm, &pc->plan);
        pm__planned();
        m.msgs = pm__start(pc).msgs; /* the stats' msgs: the exchange's; a plan's set-up is in "plans" */
    }
    if (!rc)
        rc = torus_multisend_start(pc->plan, ss.base, rs.base);
    if (!rc)
        rc = torus_multisend_wait(pc->plan);
    if (!rc && rs.packed)
        pm__side_unpack(pc, &rs, rbuf, pc->indeg, rcounts, rdispls, rtype, rt);
    pm__ran(PM_NEIGHBOR_ALLTOALLV, ss.total, rc ? NULL : torus_multisend_algorithm(pc->plan), m, pc);
    return pm__result(pc, "MPI_Neighbor_alltoallv", rc);
}

PM_EXPORT int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                     void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                     MPI_Comm comm) __attribute__((alias("pm__neighbor_alltoallv")));
