/*
 * pmpi_threads.c - ranks that ask MPI for different thread levels, as MPI
 * allows (PT_LEVEL=multiple in a rank's environment: MPI_THREAD_MULTIPLE,
 * else MPI_THREAD_SINGLE; an MPMD launch gives each rank its own), then
 * run collectives on MPI_COMM_WORLD and on a split of it.  Rank 0 prints
 * what they returned, which must be the same with and without the adapter
 * (issue 33, class 2: the adapter steps aside alike on every rank, it does
 * not stop the job).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *l = getenv("PT_LEVEL");
    int want = l && !strcmp(l, "multiple") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, got = 0;
    if (MPI_Init_thread(&argc, &argv, want, &got) != MPI_SUCCESS)
        return 3;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long v = me + 1, sum = 0, b = me == 0 ? 42 : 0, half_sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&b, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Allreduce(&v, &half_sum, 1, MPI_LONG, MPI_SUM, half);
    long *all = malloc((size_t)n * sizeof *all);
    MPI_Gather(&half_sum, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (!me) {
        printf("ranks %d sum %ld bcast %ld halves", n, sum, b);
        for (int r = 0; r < n; r++)
            printf(" %ld", all[r]);
        printf("\n");
    }
    free(all);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
