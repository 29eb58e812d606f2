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
 * TORUS_COLL_MULTISEND=direct|routed forces the plan's algorithm (the
 * default lets multisend choose).  Falls through: communicators without a
 * distributed graph (Cartesian and general graphs, reason "topology"),
 * derived datatypes, negative counts.
 */
#include "pmpi_impl.h"

#include <stdlib.h>

#define PM_EXPORT __attribute__((visibility("default")))

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

/* Reads pc's distributed graph once: PM_OK, or PM_WHY_TOPOLOGY. */
static pm_why graph_of(pm_comm *pc)
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

PM_EXPORT int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                     void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                     MPI_Comm comm)
{
    if (pm__busy)
        return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    pm_comm *pc = NULL;
    size_t ssize = 0, rsize = 0, sent = 0;
    pm_kind kind;
    pm_why why = pm__ready();
    if (!why)
        why = pm__datatype(rtype, &rsize, &kind);
    if (!why)
        why = pm__datatype(stype, &ssize, &kind);
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why)
        why = graph_of(pc);
    torus_multisend_spec spec = {0};
    if (!why) {
        size_t *sc = pc->nv, *sd = sc + pc->outdeg, *rc = sd + pc->outdeg, *rd = rc + pc->indeg;
        for (int i = 0; i < pc->outdeg && !why; i++) {
            why = scounts[i] < 0 || sdispls[i] < 0 ? PM_WHY_ARGS : PM_OK;
            sc[i] = (size_t)scounts[i] * ssize;
            sd[i] = (size_t)sdispls[i] * ssize;
            sent += sc[i];
        }
        for (int j = 0; j < pc->indeg && !why; j++) {
            why = rcounts[j] < 0 || rdispls[j] < 0 ? PM_WHY_ARGS : PM_OK;
            rc[j] = (size_t)rcounts[j] * rsize;
            rd[j] = (size_t)rdispls[j] * rsize;
        }
        spec = (torus_multisend_spec){.ndest = pc->outdeg, .dests = pc->dests, .scounts = sc, .sdispls = sd,
                                      .nsrc = pc->indeg, .srcs = pc->srcs, .rcounts = rc, .rdispls = rd};
    }
    if (why) {
        pm__fell(PM_NEIGHBOR_ALLTOALLV, why);
        return PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
    double t0 = pm__timing ? pm__now() : 0;
    pm__busy = 1;
    int changed = !pc->plan || torus_multisend_check(pc->plan, &spec) != 0, any = changed;
    PMPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, pc->comm);
    int rc = 0;
    if (any) {
        if (pc->plan)
            torus_multisend_free(&pc->plan);
        rc = torus_multisend_init(pc->c, &spec, pm__ms_algorithm, &pc->plan);
        pm__planned();
    }
    if (!rc)
        rc = torus_multisend_start(pc->plan, sbuf, rbuf);
    if (!rc)
        rc = torus_multisend_wait(pc->plan);
    pm__busy = 0;
    pm__ran(PM_NEIGHBOR_ALLTOALLV, sent, rc ? NULL : torus_multisend_algorithm(pc->plan), t0);
    return pm__result(pc, "MPI_Neighbor_alltoallv", rc);
}
