/* torus_mpi.h - the MPI parts of the torus library (transport, node layout). */
#ifndef TORUS_MPI_H
#define TORUS_MPI_H

#include <mpi.h>
#include "torus.h"

typedef struct torus_mpi torus_mpi;

/* Builds one communicator per dimension (rank in it = coordinate along the
 * dimension), `outstanding` send slots per dimension and one posted receive
 * per dimension, every buffer of cap words.  Collective over comm.
 * Returns 0, or -1 with err set (MPI failures abort through the caller's
 * error handler). */
int torus_mpi_create(torus_mpi **out, MPI_Comm comm, const torus_map *m, int me, int cap,
                     int outstanding, char *err, size_t errlen);
/* Fills t with the functions of this transport. */
void torus_mpi_bind(torus_mpi *tm, torus_transport *t);
/* End of a phase: waits for every send, cancels the posted receives and
 * posts fresh ones.  Call only when no message can still arrive. */
int torus_mpi_reset(torus_mpi *tm);
void torus_mpi_destroy(torus_mpi *tm);

/* Node layout from MPI_Comm_split_type(SHARED): this rank's node number
 * (nodes ordered by their lowest rank), its index on the node, and the
 * ranks per node (-1 when nodes differ).  Collective. */
int torus_node_layout(MPI_Comm comm, int *node, int *local, int *per_node, int *nnodes);

#endif
