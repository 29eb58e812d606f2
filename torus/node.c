/*
 * node.c - which ranks share a node, found once with
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): used by the harness (memory
 * per node, default sizing) and by the routed algorithm's node-local last
 * dimension (paper 002 sec. 6.2, the virtual-node hop).
 */
#include "torus_mpi.h"
#include "mpi_check.h"

#include <stdlib.h>

int torus_all_ok(MPI_Comm comm, int ok)
{
    int all;
    ok = ok != 0;
    TORUS_MPI_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
    return all;
}

int torus_node_discover(MPI_Comm comm, torus_node_info *ni)
{
    int rank, size;
    TORUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    TORUS_MPI_CHECK(MPI_Comm_size(comm, &size));
    TORUS_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &ni->comm));
    TORUS_MPI_CHECK(MPI_Comm_rank(ni->comm, &ni->local));
    TORUS_MPI_CHECK(MPI_Comm_size(ni->comm, &ni->local_size));
    int leader = rank;
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, ni->comm));
    /* Node number = how many node leaders have a smaller rank. */
    int is_leader = leader == rank;
    int *flags = malloc((size_t)size * sizeof(int));
    if (!torus_all_ok(comm, flags != NULL)) {
        free(flags);
        TORUS_MPI_CHECK(MPI_Comm_free(&ni->comm));
        return -1;
    }
    TORUS_MPI_CHECK(MPI_Allgather(&is_leader, 1, MPI_INT, flags, 1, MPI_INT, comm));
    int nn = 0, mine = 0;
    for (int r = 0; r < size; r++) {
        if (r == leader)
            mine = nn;
        nn += flags[r];
    }
    free(flags);
    int mn = ni->local_size, mx = ni->local_size;
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_INT, MPI_MIN, comm));
    TORUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, comm));
    ni->node = mine;
    ni->nnodes = nn;
    ni->per_node = mn == mx ? mx : -1;
    ni->max_per_node = mx;
    return 0;
}

void torus_node_free(torus_node_info *ni)
{
    if (ni->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ni->comm);
    ni->comm = MPI_COMM_NULL;
}
