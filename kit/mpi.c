/*
 * mpi.c - the kit's MPI helpers (kit_mpi.h): what KIT_MPI_CHECK does when
 * an MPI call fails (one line naming the program, the rank, the place and
 * the MPI error, then the whole job ends with exit code 3), and the MPI
 * library's name as every report prints it.
 */
#include "kit_mpi.h"
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
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
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
