/*
 * pmpi_errors.c - erroneous calls that MPI reports through MPI_ERRORS_RETURN
 * (an uncommitted datatype, a negative count, a root out of range, a null
 * operation): rank 0 prints the error class each call returned, which must
 * be the same with and without the adapter, and the program goes on (issue
 * 33, class 2: the adapter never aborts nor answers success where the
 * library reports an error).
 */
#include <mpi.h>
#include <stdio.h>

static int cls(int rc)
{
    int c = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t); /* never committed */
    int buf[64] = {0}, out[64] = {0};
    for (int i = 0; i < 64; i++)
        buf[i] = me + i;
    int c[8];
    c[0] = cls(MPI_Bcast(buf, 1, t, 0, MPI_COMM_WORLD));
    c[1] = cls(MPI_Allreduce(buf, out, 1, t, MPI_SUM, MPI_COMM_WORLD));
    c[2] = cls(MPI_Alltoall(buf, 1, t, out, 1, t, MPI_COMM_WORLD));
    c[3] = cls(MPI_Reduce(buf, out, 1, t, MPI_SUM, 0, MPI_COMM_WORLD));
    c[4] = cls(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD));
    c[5] = cls(MPI_Bcast(buf, 1, MPI_INT, n, MPI_COMM_WORLD));
    c[6] = cls(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    /* a correct call afterwards still works */
    int v = me + 1, sum = 0;
    c[7] = cls(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (!me)
        printf("classes bcast %d allreduce %d alltoall %d reduce %d count %d root %d op %d ok %d sum %d\n", c[0], c[1],
               c[2], c[3], c[4], c[5], c[6], c[7], sum);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
