/* mpi_check.h - internal to torus/: every MPI call of the library goes
 * through TORUS_MPI_CHECK, which names file:line and the MPI error and
 * aborts the job with exit code 3 (a resource error). */
#ifndef TORUS_MPI_CHECK_H
#define TORUS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define TORUS_MPI_CHECK(call)                                                        \
    do {                                                                             \
        int tc__ = (call);                                                           \
        if (tc__ != MPI_SUCCESS) {                                                   \
            char tm__[MPI_MAX_ERROR_STRING];                                         \
            int tl__ = 0;                                                            \
            MPI_Error_string(tc__, tm__, &tl__);                                     \
            fprintf(stderr, "torus: MPI error at %s:%d in %s: %s\n", __FILE__,       \
                    __LINE__, #call, tm__);                                          \
            MPI_Abort(MPI_COMM_WORLD, 3);                                            \
        }                                                                            \
    } while (0)

#endif
