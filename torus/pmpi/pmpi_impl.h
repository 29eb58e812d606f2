/*
 * pmpi_impl.h - internal to torus/pmpi/, the MPI profiling-interface adapter
 * (libtorus_pmpi.so, paper 004's lesson: a collectives library is used when
 * it plugs into the MPI people already run).  LD_PRELOADed, it defines
 * MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Alltoall, MPI_Alltoallv and
 * MPI_Neighbor_alltoallv (pmpi_calls.c, pmpi_neighbor.c), plus MPI_Init,
 * MPI_Init_thread and MPI_Finalize for its settings and its stats; each
 * collective either runs the torus collective (torus/coll/) on a
 * communicator state cached on the user's communicator, or passes the call
 * straight to the MPI library's PMPI_ entry, counting why.
 *
 * Every decision to intercept rests on arguments MPI requires to be the
 * same on every rank of the call (communicator, datatype class, op, count
 * of a uniform operation, MPI_IN_PLACE for allreduce and alltoall), so all
 * ranks take the same path without talking.  The one exception MPI allows
 * is a bcast/alltoall(v) whose ranks pass different datatypes of the same
 * signature (a derived type on one, a predefined one on another): such a
 * program must run with TORUS_COLL=off (docs/mpi-adapter.md).
 */
#ifndef TORUS_PMPI_IMPL_H
#define TORUS_PMPI_IMPL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "torus_coll.h"
#include "torus_mpi.h"

/* The intercepted operations, in the order the stats lines print them. */
typedef enum {
    PM_BARRIER = 0,
    PM_BCAST,
    PM_ALLREDUCE,
    PM_ALLTOALL,
    PM_ALLTOALLV,
    PM_NEIGHBOR_ALLTOALLV,
    PM_NOPS
} pm_op;

/* Why a call went to the MPI library (stats: "fell_through N (reason n, ...)"). */
typedef enum {
    PM_OK = 0,
    PM_WHY_OFF,       /* TORUS_COLL=off */
    PM_WHY_THREADS,   /* MPI_THREAD_MULTIPLE: the adapter steps aside */
    PM_WHY_INTERCOMM, /* an intercommunicator */
    PM_WHY_DATATYPE,  /* derived, non-contiguous or unknown datatype */
    PM_WHY_USER_OP,   /* a user-defined reduction */
    PM_WHY_TYPE_OP,   /* a predefined op/type pair the torus library cannot combine exactly */
    PM_WHY_ARGS,      /* arguments MPI will reject (null comm, negative count, bad root) */
    PM_WHY_SETUP,     /* the communicator's torus state could not be built */
    PM_WHY_TOPOLOGY,  /* a neighbourhood call on a communicator without a distributed graph */
    PM_NWHY
} pm_why;

/* One communicator's torus state, cached as an attribute of the user's
 * communicator and destroyed when that is freed (or at MPI_Finalize). */
typedef struct pm_comm {
    MPI_Comm comm;     /* the user's communicator (key of the attribute) */
    pm_why why;        /* PM_OK: usable; else why every call falls through */
    int n, me;
    torus_map map;
    int *node_of;
    torus_mpi *tm;     /* the transport, on its own private duplicate of comm */
    torus_transport tp;
    torus_coll *c;
    size_t *v;         /* 4n: alltoallv byte counts and displacements */
    void *tmp;         /* scratch for MPI_IN_PLACE copies and widened integers */
    size_t tmp_cap;
    /* MPI_Neighbor_alltoallv on a distributed graph (pmpi_neighbor.c):
     * the graph, read once, and the multisend plan of the last pattern */
    int graph;         /* 0 not read yet, 1 a distributed graph, -1 none */
    int indeg, outdeg;
    int *srcs, *dests;
    size_t *nv;        /* byte counts and displacements of this call */
    torus_multisend *plan;
    struct pm_comm *prev, *next;
} pm_comm;

/* Datatype classes for reductions. */
typedef enum { PM_K_BYTES = 0, PM_K_SINT, PM_K_UINT, PM_K_FLOAT, PM_K_DOUBLE } pm_kind;

/* ---- pmpi_state.c ------------------------------------------------------- */

/* Set while the adapter runs (its own setup or a torus call): MPI calls the
 * torus library makes inside go straight to PMPI_. */
extern int pm__busy;

/* PM_OK when the adapter is on; else the reason every call falls through.
 * Reads the environment and creates the attribute key on first use. */
pm_why pm__ready(void);
/* The same, called by MPI_Init/MPI_Init_thread on every rank: a bad
 * setting stops the job there with one line from rank 0. */
void pm__init_collective(void);
/* The mode without initialising (MPI_Finalize). */
pm_why pm__mode(void);

/* The communicator's state, built on first use (collective over comm: every
 * rank reaches it in the same call).  PM_OK with *out set, or why not. */
pm_why pm__comm(MPI_Comm comm, pm_comm **out);

/* Scratch of at least bytes in pc (kept between calls); NULL: out of memory. */
void *pm__scratch(pm_comm *pc, size_t bytes);

/* After a torus call: 0 -> MPI_SUCCESS; an error -> one line on stderr and
 * the communicator's error handler (fatal by default). */
int pm__result(pm_comm *pc, const char *opname, int rc);

/* TORUS_COLL_MULTISEND (NULL: multisend's own choice). */
extern const char *pm__ms_algorithm;
/* Frees what pmpi_neighbor.c keeps in pc (called when pc dies). */
void pm__neighbor_free(pm_comm *pc);

/* Frees every cached state; called by MPI_Finalize before the library ends. */
void pm__free_all(void);

/* ---- pmpi_types.c ------------------------------------------------------- */

/* A predefined datatype whose bytes are contiguous (size == extent, lb 0):
 * PM_OK with *size and *kind, else PM_WHY_DATATYPE. */
pm_why pm__datatype(MPI_Datatype dt, size_t *size, pm_kind *kind);
/* The torus op for an MPI op on a datatype of this kind: PM_OK,
 * PM_WHY_USER_OP or PM_WHY_TYPE_OP. */
pm_why pm__reduction(MPI_Op op, pm_kind kind, torus_op *top);

/* ---- pmpi_stats.c ------------------------------------------------------- */

/* Collecting per-call time costs two clock reads: only with TORUS_COLL_STATS=1. */
extern int pm__timing;

void pm__fell(pm_op op, pm_why why);
/* Records an intercepted call: its payload bytes (this rank), the torus
 * algorithm (NULL: nothing to do, "trivial") and the time since t0. */
void pm__ran(pm_op op, size_t bytes, const char *algorithm, double t0);
/* A multisend plan was (re)built for MPI_Neighbor_alltoallv. */
void pm__planned(void);
double pm__now(void);
/* At MPI_Finalize with TORUS_COLL_STATS=1: rank 0 of MPI_COMM_WORLD prints
 * one line per operation (collective over MPI_COMM_WORLD). */
void pm__print_stats(pm_why mode);

#endif
