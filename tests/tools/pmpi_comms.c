/*
 * pmpi_comms.c - many live communicators, each used: what
 * tests/suite_pmpi.sh runs with and without
 * LD_PRELOAD=lib/<mpi>/libtorus_pmpi.so (issue 48, class 1).  The adapter
 * spends communicators of its own on each one a program uses (a duplicate
 * for its messages, a node split); when the MPI library runs out of them,
 * that communicator's calls must go to the library, not end the job.
 *
 * usage: mpirun -n P pmpi_comms N [as-made]
 * Makes N communicators (duplicates of MPI_COMM_WORLD and splits of it in
 * reversed rank order, alternately) and keeps them all alive; on each runs
 * a barrier, a bcast from a root that moves with the communicator, an
 * allreduce and an alltoall of ints and checks every value (once all are
 * made, or with as-made each as soon as it is made: then the adapter's
 * own communicators are taken while the program still makes its own);
 * frees them all.
 * Rank 0 prints "comms N made M checked OK" (M < N when the library itself
 * ran out, which the program then says: it sets MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD for its own creations), exit 0; a wrong value prints the
 * communicator and exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Barrier, bcast, allreduce and alltoall on c (communicator i): 1 when
 * every value is right. */
static int check(MPI_Comm c, long i, int p, int *buf)
{
    int r, root = (int)(i % p), v = 0, sum = 0;
    MPI_Comm_rank(c, &r);
    MPI_Barrier(c);
    if (r == root)
        v = (int)i + 7;
    MPI_Bcast(&v, 1, MPI_INT, root, c);
    int x = r + (int)i;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
    for (int k = 0; k < p; k++)
        buf[k] = r * 1000 + k;
    MPI_Alltoall(buf, 1, MPI_INT, buf + p, 1, MPI_INT, c);
    int good = v == (int)i + 7 && sum == p * (p - 1) / 2 + p * (int)i;
    for (int k = 0; k < p; k++)
        good = good && buf[p + k] == k * 1000 + r;
    if (!good)
        fprintf(stderr, "pmpi_comms: rank %d: communicator %ld: bcast %d, allreduce %d, alltoall wrong\n", r, i, v,
                sum);
    return good;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    int asmade = argc == 3 && !strcmp(argv[2], "as-made");
    if (argc < 2 || argc > 3 || (argc == 3 && !asmade) || n < 1 || n > 1000000) {
        if (!me)
            fprintf(stderr, "usage: mpirun -n P pmpi_comms N [as-made]   (N in 1..1000000)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm *c = malloc((size_t)n * sizeof *c);
    int *buf = malloc(2 * (size_t)p * sizeof *buf);
    if (!c || !buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    long made = 0, bad = 0;
    for (; made < n; made++) {
        int rc = made % 2 ? MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - me, &c[made])
                          : MPI_Comm_dup(MPI_COMM_WORLD, &c[made]);
        /* the library's own limit: every rank learns it in the same call */
        int ok = rc == MPI_SUCCESS, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
            if (ok)
                MPI_Comm_free(&c[made]);
            break;
        }
        if (asmade && !bad)
            bad = !check(c[made], made, p, buf);
    }
    for (long i = 0; i < made && !bad && !asmade; i++)
        bad = !check(c[i], i, p, buf);
    long anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (long i = 0; i < made; i++)
        MPI_Comm_free(&c[i]);
    if (!me && !anybad)
        printf("comms %ld made %ld checked OK\n", n, made);
    free(c);
    free(buf);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
