/*
 * pmpi_overhead.c - what libtorus_pmpi.so costs a call, for docs/mpi-adapter.md's
 * figure: times CALLS calls of a few small collectives, ROUNDS times, and
 * prints the fastest round per call (ns), one line per case:
 *
 *   bcast_derived_8B     MPI_Bcast of one 8-byte contiguous derived type
 *                        (the adapter's: its description cached on the type,
 *                        its bytes read in place)
 *   allreduce_userop_8B  MPI_Allreduce of one int64 with a user op: the
 *                        adapter hands it to the library ("user_op")
 *   allreduce_zero       MPI_Allreduce of count 0: returns at once ("empty")
 *   bcast_byte_8B        MPI_Bcast of 8 MPI_BYTE (the torus library's)
 *   allreduce_double_1   MPI_Allreduce of one double, MPI_SUM (the torus library's)
 *   barrier              MPI_Barrier
 *
 * Run it with and without LD_PRELOAD (and with TORUS_COLL=off) back to
 * back: the differences are the adapter's.  Not a test: no assertions.
 * usage: pmpi_overhead [CALLS [ROUNDS]]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int64_t *)inout)[i] += ((int64_t *)in)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? atol(argv[1]) : 100000, rounds = argc > 2 ? atol(argv[2]) : 5;
    if (calls < 1 || rounds < 1) {
        fprintf(stderr, "pmpi_overhead: CALLS and ROUNDS must be positive integers\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    int64_t buf[4] = {1, 2, 3, 4}, out[4];
    double d = 1.0, dr;
    const char *names[] = {"bcast_derived_8B", "allreduce_userop_8B", "bcast_byte_8B", "allreduce_double_1", "barrier",
                           "allreduce_zero"};
    for (int k = 0; k < 6; k++) {
        double best = 1e30;
        for (long r = 0; r < rounds; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < calls; i++) {
                switch (k) {
                case 0: MPI_Bcast(buf, 1, two, 0, MPI_COMM_WORLD); break;
                case 1: MPI_Allreduce(buf, out, 1, MPI_INT64_T, op, MPI_COMM_WORLD); break;
                case 2: MPI_Bcast(buf, 8, MPI_BYTE, 0, MPI_COMM_WORLD); break;
                case 3: MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                case 4: MPI_Barrier(MPI_COMM_WORLD); break;
                default: MPI_Allreduce(&d, &dr, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                }
            }
            double t = MPI_Wtime() - t0;
            if (t < best)
                best = t;
        }
        if (me == 0)
            printf("%-20s %10.1f ns/call\n", names[k], best / (double)calls * 1e9);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&two);
    MPI_Finalize();
    return 0;
}
