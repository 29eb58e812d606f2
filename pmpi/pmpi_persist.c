/*
 * pmpi_persist.c - the MPI-4 persistent collectives MPI_Bcast_init,
 * MPI_Allreduce_init and MPI_Neighbor_alltoallv_init (only where mpi.h
 * has them: MPI_VERSION >= 4, MPICH 4; Open MPI 4.1 builds without).
 *
 * At init, the same fall-through decision as the blocking call (from what
 * MPI requires to match on every rank; init is collective, so building
 * the communicator's torus state there is too): a call that would fall
 * through goes to the library's own *_init, and its request is the
 * library's from then on.  Otherwise the request handed back is a real
 * persistent request of the library that does nothing (a zero-byte
 * receive from MPI_PROC_NULL on the same communicator) and the call's
 * arguments are kept beside it.  MPI_Start/MPI_Startall on such a request
 * run the blocking torus collective with those arguments (the buffers'
 * contents at start time, as MPI requires) and then start the inert
 * request, so MPI_Wait, MPI_Test and their -all/-any/-some forms,
 * MPI_Request_get_status and MPI_Request_free are the library's own,
 * unchanged (a completed collective's status is undefined in MPI except
 * MPI_ERROR, and MPI_PROC_NULL's is the empty one).  MPI_Request_free
 * drops the kept arguments.
 *
 * Why this waits for TORUS_COLL_PERSISTENT=start: the collective then
 * completes inside MPI_Start rather than at some point before the
 * matching wait, as non-blocking collectives may (MPI-4 sec. 6.12).  A
 * program in which a rank must do something between its start and its
 * wait for another rank to reach its own start (a point-to-point message
 * the other rank waits for before starting) is correct MPI and would hang,
 * and no rank-local rule can tell such a program from one that starts
 * every collective on all ranks first.  The adapter must never change what
 * a correct program does, so by default (TORUS_COLL_PERSISTENT=library,
 * as the non-blocking forms) every init goes to the library, counted as
 * "persistent"; a user who knows the program starts its persistent
 * collectives on all ranks before anything depends on them opts in.  Real
 * progress between start and wait would need the algorithms as state
 * machines driven from MPI_Test/MPI_Wait.
 */
#include "pmpi_impl.h"

#if MPI_VERSION >= 4

#include <stdio.h>
#include <stdlib.h>

typedef enum { KEPT_BCAST, KEPT_ALLREDUCE, KEPT_NEIGHBOR } kept_kind;

/* One intercepted persistent request and the call it starts. */
typedef struct kept {
    MPI_Request req;
    kept_kind kind;
    const void *sbuf;
    void *rbuf;
    int count, root;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype dt, rdt;
    MPI_Op op;
    MPI_Comm comm;
    struct kept *next;
} kept;

/* Every kept request: under MPI_THREAD_MULTIPLE threads start and free
 * their own requests at once, so the list is walked and changed under
 * pm__lock (a kept entry itself is used only by the thread that owns its
 * request, as MPI requires of a request). */
static kept *all;

static kept *find(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL)
        return NULL;
    int locked = pm__lock();
    kept *k = all;
    while (k && k->req != r)
        k = k->next;
    pm__unlock(locked);
    return k;
}

/* The inert request for k and k in the list; MPI's error code. */
static int keep(kept *proto, MPI_Request *request)
{
    kept *k = malloc(sizeof *k);
    if (!k) {
        fprintf(stderr, "torus_pmpi: out of memory for a persistent request\n");
        exit(KIT_EXIT_RESOURCE);
    }
    *k = *proto;
    int rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, k->comm, &k->req);
    if (rc != MPI_SUCCESS) {
        free(k);
        return rc;
    }
    *request = k->req;
    int locked = pm__lock();
    k->next = all;
    all = k;
    pm__unlock(locked);
    return MPI_SUCCESS;
}

PM_EXPORT int MPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    pm_comm *pc = NULL;
    pm_why why = pm__ready();
    if (!why && !pm__settings()->persist_start)
        why = PM_WHY_PERSISTENT;
    if (!why && (comm == MPI_COMM_NULL || count < 0 || !pm__type(dt) || !request))
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why && (root < 0 || root >= pc->n))
        why = PM_WHY_ARGS;
    /* a route to the library: as the blocking call (zero bytes: kept) */
    if (!why && count && pm__type(dt)->size) {
        const torus_coll_route *r = pm__route(pc, PM_BCAST, (size_t)count * (size_t)pm__type(dt)->size);
        if (r->kind == TORUS_ROUTE_LIBRARY)
            why = pm__why_library(r);
    }
    if (why) {
        pm__fell(PM_BCAST, why);
        return PMPI_Bcast_init(buf, count, dt, root, comm, info, request);
    }
    kept k = {.kind = KEPT_BCAST, .rbuf = buf, .count = count, .root = root, .dt = dt, .comm = comm};
    return keep(&k, request);
}

PM_EXPORT int MPI_Allreduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    pm_comm *pc = NULL;
    const pm_type *t = NULL;
    torus_op top = TORUS_OP_SUM;
    torus_dtype et = TORUS_UINT64;
    pm_why why = pm__ready();
    if (!why && !pm__settings()->persist_start)
        why = PM_WHY_PERSISTENT;
    if (!why && (comm == MPI_COMM_NULL || count < 0 || !(t = pm__type(dt)) || op == MPI_OP_NULL || !request))
        why = PM_WHY_ARGS;
    /* a zero-byte one is kept: its start returns at once, as the blocking call */
    if (!why && count && t->size) {
        why = pm__op(op, &top);
        if (!why)
            why = pm__reduction(t, top, &et);
    }
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why && count && t->size) {
        /* no compiled row here: the library's own init would get the
         * program's datatype, which it may refuse with a predefined op
         * (each start still takes the blocking call's path) */
        const torus_coll_route *r = pm__route(pc, PM_ALLREDUCE, (size_t)count * (size_t)t->size);
        if (r->kind == TORUS_ROUTE_LIBRARY && r->from_file)
            why = PM_WHY_TABLE;
    }
    if (why) {
        pm__fell(PM_ALLREDUCE, why);
        return PMPI_Allreduce_init(sbuf, rbuf, count, dt, op, comm, info, request);
    }
    kept k = {.kind = KEPT_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt, .op = op, .comm = comm};
    return keep(&k, request);
}

PM_EXPORT int MPI_Neighbor_alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                                          MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
                                          MPI_Datatype rtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    pm_comm *pc = NULL;
    pm_why why = pm__ready();
    if (!why && !pm__settings()->persist_start)
        why = PM_WHY_PERSISTENT;
    if (!why && (comm == MPI_COMM_NULL || !pm__type(stype) || !pm__type(rtype) || !request))
        why = PM_WHY_ARGS;
    if (!why)
        why = pm__comm(comm, &pc);
    if (!why)
        why = pm__graph(pc);
    if (why) {
        pm__fell(PM_NEIGHBOR_ALLTOALLV, why);
        return PMPI_Neighbor_alltoallv_init(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, info,
                                            request);
    }
    /* MPI keeps the count and displacement arrays the caller's until the
     * request is freed (MPI-4 sec. 6.13), so they are not copied */
    kept k = {.kind = KEPT_NEIGHBOR, .sbuf = sbuf, .rbuf = rbuf, .scounts = scounts, .sdispls = sdispls,
              .rcounts = rcounts, .rdispls = rdispls, .dt = stype, .rdt = rtype, .comm = comm};
    return keep(&k, request);
}

/* Runs k's collective through the blocking calls' internal entry points
 * (the same path, stats and error handling as a blocking call; never the
 * exported names, which another tool preloaded before the adapter may
 * own). */
static int run(const kept *k)
{
    switch (k->kind) {
    case KEPT_BCAST:
        return pm__bcast(k->rbuf, k->count, k->dt, k->root, k->comm);
    case KEPT_ALLREDUCE:
        return pm__allreduce(k->sbuf, k->rbuf, k->count, k->dt, k->op, k->comm);
    case KEPT_NEIGHBOR:
        return pm__neighbor_alltoallv(k->sbuf, k->scounts, k->sdispls, k->dt, k->rbuf, k->rcounts, k->rdispls,
                                      k->rdt, k->comm);
    }
    return MPI_ERR_INTERN;
}

PM_EXPORT int MPI_Start(MPI_Request *request)
{
    kept *k = request ? find(*request) : NULL;
    if (k) {
        int rc = run(k);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return PMPI_Start(request);
}

PM_EXPORT int MPI_Startall(int n, MPI_Request requests[])
{
    int any = 0;
    for (int i = 0; i < n && requests && !any; i++)
        any = find(requests[i]) != NULL;
    if (!any)
        return PMPI_Startall(n, requests);
    /* in order, as MPI_Startall's "as if MPI_Start on each" */
    for (int i = 0; i < n; i++) {
        int rc = MPI_Start(&requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

PM_EXPORT int MPI_Request_free(MPI_Request *request)
{
    int locked = pm__lock();
    for (kept **p = &all; request && *p; p = &(*p)->next)
        if ((*p)->req == *request) {
            kept *k = *p;
            *p = k->next;
            free(k);
            break;
        }
    pm__unlock(locked);
    return PMPI_Request_free(request);
}

void pm__persist_free_all(void)
{
    while (all) {
        kept *k = all;
        all = k->next;
        free(k);
    }
}

#else

void pm__persist_free_all(void)
{
}

#endif
