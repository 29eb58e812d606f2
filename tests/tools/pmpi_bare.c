/*
 * pmpi_bare.c - the least an interposition library can do: each call the
 * adapter intercepts on bench_adapter.sh's path goes straight to its
 * PMPI_ entry (built with -fno-plt: one jump through the GOT).  Preloaded
 * by `run_scripts/bench_adapter.sh --lib`, it shows what interposing alone
 * costs under the same method, the floor the adapter's own fast path is
 * measured against (docs/mpi-adapter.md).
 */
#include <mpi.h>

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                 MPI_Comm comm)
{
    return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    return PMPI_Barrier(comm);
}
