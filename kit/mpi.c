/*
 * mpi.c - the kit's MPI helpers (kit_mpi.h): what KIT_MPI_CHECK does when
 * an MPI call fails (one line naming the program, the rank, the place and
 * the MPI error, then the whole job ends with exit code 3), the MPI
 * library's name as every report prints it, and the check that the
 * launcher is this build's MPI library's own.
 */
#include "kit_mpi.h"
#include "kit_cli.h"
#include "kit_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void kit_mpi_fail(int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, rank = -1;
    MPI_Error_string(rc, msg, &len);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: MPI error on rank %d at %s:%d in %s: %s\n", kit_prog(), rank, file, line, call, msg);
    fflush(stderr);
    /* the launcher forwards stderr through a pipe it stops reading once
     * the abort kills the job: give it a moment to pass the line on (an
     * empty stderr was seen once in CI under MPICH's hydra) */
    struct timespec pause = {0, 200000000};
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, KIT_EXIT_RESOURCE);
    exit(KIT_EXIT_RESOURCE);
}

void kit_mpi_library(char *lib)
{
    int len = 0;
    lib[0] = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
}

void kit_mpi_sleepy_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    KIT_MPI_CHECK(MPI_Ibarrier(comm, &rq));
    for (;;) {
        KIT_MPI_CHECK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        if (done)
            break;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

int kit_mpi_built_for(void)
{
#if defined(OPEN_MPI)
    return KIT_MPI_OPENMPI;
#elif defined(MPICH)
    return KIT_MPI_MPICH;
#else
    return KIT_MPI_OTHER;
#endif
}

/* The launcher this build's library needs: Debian installs both libraries
 * side by side, and its plain `mpirun` is whichever the alternatives
 * system chose last (Open MPI's once both are installed). */
static const char *own_launcher(void)
{
#if defined(OPEN_MPI)
    return "this Open MPI build with mpirun.openmpi";
#elif defined(MPICH)
    return "this MPICH build with mpirun.mpich";
#else
    return "this build with its MPI library's own mpirun";
#endif
}

int kit_mpi_launch_check(const char *prog)
{
    /* The launchers' own variables, each the number of processes it
     * started (not settings of the kit: kit/settings.c).  Slurm's
     * SLURM_NTASKS is not among them: inside a batch script it counts the
     * allocation's tasks, not this launch's, and srun's MPI plugins set
     * PMI_SIZE or PMIX_SIZE, which are. */
    static const struct {
        const char *var, *who;
    } vars[] = {
        {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun"},
        {"PMI_SIZE", "a PMI launcher (MPICH's mpirun, srun --mpi=pmi2)"},
        {"PMIX_SIZE", "a PMIx launcher"},
    };
    int size = 0;
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != 1)
        return 0; /* the ranks found each other: the launcher is one MPI knows */
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i].var);
        long n = 0;
        if (!v || kit_cli_long(v, 2, 1L << 30, &n))
            continue;
        /* every process of the launch is a job of one rank of its own:
         * each would run, verify and report alone; only the first of the
         * launch says so, so the whole launch prints one line */
        if (kit_launch_first()) {
            fprintf(stderr,
                    "%s: error: %s started %ld processes (%s=%ld) but MPI sees 1 rank: launch %s\n",
                    prog, vars[i].who, n, vars[i].var, n, own_launcher());
            fflush(stderr);
        }
        return KIT_EXIT_USAGE;
    }
    return 0;
}
