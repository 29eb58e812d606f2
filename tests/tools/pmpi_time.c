/*
 * pmpi_time.c - the time of one collective call at a range of sizes, for
 * docs/mpi-adapter.md's figures: run it with and without LD_PRELOAD of
 * libtorus_pmpi.so, alternately, and compare the lines.  Not a test: no
 * assertions.
 *
 *   pmpi_time OP TYPE MIN MAX ROUNDS
 *
 * OP: allreduce (MPI_SUM), bcast (root 0), alltoall (MAX bytes per
 * block), zero (count 0 of TYPE through bcast, allreduce, alltoall and
 * alltoallv in turn: MIN and MAX ignored), or bcast_osu: OSU's
 * osu_bcast protocol, each call timed on its own between MPI_Barriers
 * (the program's own barrier, which the adapter intercepts too), the
 * figure the mean over ranks of each rank's mean; bcast_osu_lib the same
 * with the library's barrier between the calls (PMPI_Barrier), which
 * separates the bcast from the intercepted barrier's exit skew; barrier
 * (MIN and MAX ignored); TYPE:
 * float, double, int, byte.
 * Sizes double from MIN to MAX bytes.  At each size: a warm-up and a
 * sizing round of 3 calls, then ROUNDS rounds of `iters` calls (iters
 * sized from the sizing round so that a round takes about 20 ms, 3 at
 * least), each round timed between two PMPI_Barriers and taken as the
 * slowest rank's time per call.  One line per size, from
 * rank 0:
 *
 *   allreduce float 4096 B: median 12.31 us, rounds 11.90-13.02 us, 1624 calls per round
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(int me)
{
    if (me == 0)
        fprintf(stderr, "pmpi_time: usage: pmpi_time allreduce|bcast|alltoall|zero float|double|int|byte MIN MAX "
                        "ROUNDS (sizes in bytes, MIN <= MAX <= 256 MiB, ROUNDS 1..1000)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 6)
        usage(me);
    const char *op = argv[1], *tn = argv[2];
    long lo = atol(argv[3]), hi = atol(argv[4]), rounds = atol(argv[5]);
    MPI_Datatype dt = !strcmp(tn, "float") ? MPI_FLOAT : !strcmp(tn, "double") ? MPI_DOUBLE
                      : !strcmp(tn, "int") ? MPI_INT : !strcmp(tn, "byte") ? MPI_BYTE : MPI_DATATYPE_NULL;
    int barrier = !strcmp(op, "barrier"), zero = !strcmp(op, "zero"), osu_lib = !strcmp(op, "bcast_osu_lib"), osu = !strcmp(op, "bcast_osu") || osu_lib;
    if (dt == MPI_DATATYPE_NULL || lo < 1 || hi < lo || hi > (256L << 20) || rounds < 1 || rounds > 1000 ||
        (strcmp(op, "allreduce") && strcmp(op, "bcast") && strcmp(op, "alltoall") && !zero && !osu && !barrier))
        usage(me);
    if (zero || barrier)
        lo = hi = 1;
    int ts;
    MPI_Type_size(dt, &ts);
    size_t cap = (size_t)hi * (!strcmp(op, "alltoall") ? (size_t)n : 1) + 64;
    char *a = calloc(cap, 1), *b = calloc(cap, 1);
    int *cnt = calloc(4 * (size_t)n, sizeof *cnt);
    double *t = malloc((size_t)rounds * sizeof *t), *tl = malloc((size_t)rounds * sizeof *tl);
    if (!a || !b || !cnt || !t || !tl)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (long bytes = lo; bytes <= hi; bytes *= 2) {
        int count = zero ? 0 : (int)(bytes / ts > 0 ? bytes / ts : 1);
        /* iters: about 20 ms a round, from the time of 3 calls (an
         * oversubscribed library can take milliseconds per small call) */
        long iters = 3;
        for (long r = -2; r < rounds; r++) { /* round -2: warm-up, -1: sizing */
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime(), inside = 0;
            for (long i = 0; i < iters; i++) {
                if (barrier) {
                    MPI_Barrier(MPI_COMM_WORLD);
                } else if (osu) {
                    double s0 = MPI_Wtime();
                    MPI_Bcast(a, count, dt, 0, MPI_COMM_WORLD);
                    inside += MPI_Wtime() - s0;
                    if (osu_lib)
                        PMPI_Barrier(MPI_COMM_WORLD);
                    else
                        MPI_Barrier(MPI_COMM_WORLD);
                } else if (zero) {
                    MPI_Bcast(a, 0, dt, 0, MPI_COMM_WORLD);
                    MPI_Allreduce(a, b, 0, dt, MPI_SUM, MPI_COMM_WORLD);
                    MPI_Alltoall(a, 0, dt, b, 0, dt, MPI_COMM_WORLD);
                    MPI_Alltoallv(a, cnt, cnt + n, dt, b, cnt + 2 * n, cnt + 3 * n, dt, MPI_COMM_WORLD);
                } else if (op[0] == 'a' && op[3] == 'r') {
                    MPI_Allreduce(a, b, count, dt, dt == MPI_BYTE ? MPI_BXOR : MPI_SUM, MPI_COMM_WORLD);
                } else if (op[0] == 'b') {
                    MPI_Bcast(a, count, dt, 0, MPI_COMM_WORLD);
                } else {
                    MPI_Alltoall(a, count, dt, b, count, dt, MPI_COMM_WORLD);
                }
            }
            double loop = (MPI_Wtime() - t0) / (double)iters;
            double dtm = osu ? inside / (double)iters : loop, worst;
            PMPI_Allreduce(&dtm, &worst, 1, MPI_DOUBLE, osu ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
            if (osu)
                worst /= n;
            if (r == -1) { /* the same count on every rank: from the slowest */
                double want = 0.02 / (worst > 1e-9 ? worst : 1e-9);
                iters = want < 3 ? 3 : want > 100000 ? 100000 : (long)want;
            }
            if (r >= 0) {
                t[r] = worst;
                tl[r] = loop;
            }
        }
        qsort(t, (size_t)rounds, sizeof *t, cmp_double);
        qsort(tl, (size_t)rounds, sizeof *tl, cmp_double);
        char loopline[64] = "";
        if (osu) /* the whole iteration, bcast and barrier: rank 0's median */
            snprintf(loopline, sizeof loopline, ", bcast+barrier %.2f us", tl[rounds / 2] * 1e6);
        if (me == 0)
            printf("%s %s %ld B: median %.2f us, rounds %.2f-%.2f us, %ld calls per round%s%s\n", op, tn,
                   zero || barrier ? 0 : bytes, t[rounds / 2] * 1e6, t[0] * 1e6, t[rounds - 1] * 1e6, iters,
                   zero ? " (4 calls: bcast, allreduce, alltoall, alltoallv)" : "", loopline);
    }
    free(a), free(b), free(cnt), free(t), free(tl);
    MPI_Finalize();
    return 0;
}
