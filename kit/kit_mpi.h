/*
 * kit_mpi.h - how the kit's own code talks to the MPI library: the one MPI
 * check every layer uses, and the internal names of the calls the MPI
 * adapter (pmpi/, libtorus_pmpi.so) intercepts.
 *
 * Why internal names: under LD_PRELOAD the adapter defines MPI_Allreduce,
 * MPI_Bcast, ... for the whole process, so a library call by those names
 * would re-enter the adapter from inside the adapter (or, in ra_opt,
 * verification would run on the code under test).  As MPICH's own code
 * calls MPIC_* and never MPI_*, the kit calls KMPI_*: the MPI library's
 * profiling entries, which nothing interposes.  The other MPI calls keep
 * their MPI_ names, so a profiling tool (mpiP, Score-P) still sees the
 * kit's point-to-point traffic.  tests/check_layers.sh (make check-layers)
 * holds the kit to it: no object below the programs references an MPI_
 * name the adapter defines (read from the adapter's own objects).
 */
#ifndef KIT_MPI_H
#define KIT_MPI_H

#include <mpi.h>

/* the calls libtorus_pmpi.so defines (pmpi/pmpi_calls.c, pmpi_alltoall.c,
 * pmpi_neighbor.c, pmpi_persist.c), under their one internal name */
#define KMPI_Allreduce PMPI_Allreduce
#define KMPI_Alltoall PMPI_Alltoall
#define KMPI_Alltoallv PMPI_Alltoallv
#define KMPI_Barrier PMPI_Barrier
#define KMPI_Bcast PMPI_Bcast
#define KMPI_Neighbor_alltoallv PMPI_Neighbor_alltoallv
#define KMPI_Request_free PMPI_Request_free
#define KMPI_Start PMPI_Start
#define KMPI_Startall PMPI_Startall
/* collectives the kit's agreement and verification need beside them: the
 * library's own, so that what judges a run is never the code under test */
#define KMPI_Gather PMPI_Gather
#define KMPI_Gatherv PMPI_Gatherv

/* The kit's one MPI check: every MPI call of the library, the harness and
 * the programs goes through it.  On failure it names the program, the
 * rank, file:line, the call and the MPI error in one line on stderr, and
 * ends the whole job with exit code 3 (a resource error).  Needs the
 * communicator's error handler to return (MPI_ERRORS_RETURN), else MPI
 * aborts first with its own message. */
#define KIT_MPI_CHECK(call)                                                  \
    do {                                                                     \
        int kit__rc = (call);                                                \
        if (kit__rc != MPI_SUCCESS)                                          \
            kit_mpi_fail(kit__rc, #call, __FILE__, __LINE__);                \
    } while (0)

/* What KIT_MPI_CHECK calls: "PROG: MPI error on rank R at FILE:LINE in
 * CALL: MESSAGE", then MPI_Abort(MPI_COMM_WORLD, 3).  Does not return. */
void kit_mpi_fail(int rc, const char *call, const char *file, int line) __attribute__((noreturn));

/* The first line of MPI_Get_library_version into lib (at least
 * MPI_MAX_LIBRARY_VERSION_STRING bytes), as the reports name the library
 * ("MPICH Version:<TAB>4.0.2", "Open MPI v4.1.4, package: ..."). */
void kit_mpi_library(char *lib);
/* Which library this build is for (the selection table's library column,
 * torus_coll.h's TORUS_COLL_LIB_* have the same numbers). */
enum { KIT_MPI_OTHER = 0, KIT_MPI_MPICH = 1, KIT_MPI_OPENMPI = 2 };
int kit_mpi_built_for(void);
/* A barrier the waiting ranks sleep in (MPI_Ibarrier polled every 200 us),
 * so that a rank a benchmark measures alone has its core: MPI_Barrier
 * polls, which on an oversubscribed node steals it. */
void kit_mpi_sleepy_barrier(MPI_Comm comm);

/* Call right after MPI_Init, in every MPI binary of the kit (never in the
 * adapter, which must not change what a program does).  A launcher whose
 * environment says it started N > 1 processes (OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE, PMIX_SIZE) while MPI_COMM_WORLD has 1 rank is another MPI
 * library's (Open MPI's mpirun around an MPICH build, MPICH's around an
 * Open MPI one, env PMI_SIZE=2 around a process started alone): N jobs
 * of one rank each, all "passing".  Then the first process of the launch
 * prints one line, "PROG: error: ...", naming this build's launcher and the call returns
 * KIT_EXIT_USAGE (the caller finalizes MPI and exits with it); else 0.
 * The sizes are the rule, not the other library's variables: srun sets
 * PMI or PMIx ones for either library, and `mpirun.openmpi -n 1` around an
 * MPICH build is a correct run of one rank (docs/reliability.md). */
int kit_mpi_launch_check(const char *prog);

#endif
