/*
 * pmpi_imb.c - times collectives the way Intel's IMB-MPI1 does, for
 * run_scripts/bench_adapter.sh (issue 37: the adapter must never be slower
 * than the library it replaces, measured as a user would measure it; IMB
 * is not packaged on Debian).
 *
 * usage: pmpi_imb [MAX_BYTES] [OPS] [ab] [split] [fixed]
 *   MAX_BYTES: the largest message [1048576]; OPS: a comma-separated subset
 *   of Bcast,Allreduce,Reduce,Alltoall,Barrier [all].  ab: in one process
 *   (run it preloaded), each measurement twice, through PMPI_ (the
 *   library's own call) and MPI_ (the adapter's choice), alternating which
 *   goes first, AB_ROUNDS = 9 times, and the medians of both: the two sides
 *   share the process, its communicators and its placement on the cores,
 *   so what differs between separate runs (where each rank landed, the
 *   memory they got) cancels out.  split: the calls run on a communicator
 *   split from MPI_COMM_WORLD, as IMB-MPI1 runs its own (the adapter keeps
 *   MPI_COMM_WORLD's state apart from the others').  fixed: Bcast and
 *   Reduce keep root 0 (IMB-MPI1's default; without it the root moves, as
 *   IMB's -root_shift on does), printed as Bcast-root0 and Reduce-root0.
 *
 * IMB's method, per operation and size: a warm-up of the same calls, then
 * MPI_Barrier, t0, `iters` back-to-back calls, t1; a rank's time is
 * (t1 - t0) / iters, and t_avg the mean over the ranks (IMB prints t_min,
 * t_max and t_avg).  Bcast and Reduce move the root round the ranks, one
 * step per call, as IMB's -root_shift on does (fixed: root 0 always, its
 * default: a root that calls again before its readers are done shows
 * here, docs/mpi-adapter.md); Allreduce and Reduce sum MPI_FLOAT (IMB's
 * default type), Bcast and Alltoall move MPI_BYTE (Alltoall: the size is
 * one block).  Sizes 0 and the powers of two to MAX_BYTES (reductions: 0
 * and 4 B up, a whole float); iters = min(1000, 40 MiB / size), at least
 * 20 (IMB's default 1000 iterations capped by its 40 MB overall volume).
 * Prints "# MPI: <the library's version line>", then one line per
 * measurement: "OP BYTES T_AVG_US ITERS" (rank 0); ab: "OP BYTES
 * T_LIBRARY_US T_ADAPTER_US ITERS".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BCAST, ALLREDUCE, REDUCE, ALLTOALL, BARRIER, NOPS };
static const char *const names[NOPS] = {"Bcast", "Allreduce", "Reduce", "Alltoall", "Barrier"};

/* The communicator the timed calls run on: MPI_COMM_WORLD, or under split
 * one split from it. */
static MPI_Comm comm;

static int iters_for(size_t bytes)
{
    size_t it = bytes ? (40u << 20) / bytes : 1000;
    return it > 1000 ? 1000 : it < 20 ? 20 : (int)it;
}

enum { AB_ROUNDS = 9 };

/* fixed: every call's root is 0. */
static int fixed;

static int root_of(int i, int n)
{
    return fixed ? 0 : i % n;
}

/* k calls of op at `bytes` (call i: root_of(i)). */
static void calls(int op, size_t bytes, int k, int n, char *a, char *b)
{
    int fl = (int)(bytes / sizeof(float));
    for (int i = 0; i < k; i++)
        switch (op) {
        case BCAST: MPI_Bcast(a, (int)bytes, MPI_BYTE, root_of(i, n), comm); break;
        case ALLREDUCE: MPI_Allreduce(a, b, fl, MPI_FLOAT, MPI_SUM, comm); break;
        case REDUCE: MPI_Reduce(a, b, fl, MPI_FLOAT, MPI_SUM, root_of(i, n), comm); break;
        case ALLTOALL: MPI_Alltoall(a, (int)bytes, MPI_BYTE, b, (int)bytes, MPI_BYTE, comm); break;
        default: MPI_Barrier(comm); break;
        }
}

/* The same through the library's own entry points. */
static void lib_calls(int op, size_t bytes, int k, int n, char *a, char *b)
{
    int fl = (int)(bytes / sizeof(float));
    for (int i = 0; i < k; i++)
        switch (op) {
        case BCAST: PMPI_Bcast(a, (int)bytes, MPI_BYTE, root_of(i, n), comm); break;
        case ALLREDUCE: PMPI_Allreduce(a, b, fl, MPI_FLOAT, MPI_SUM, comm); break;
        case REDUCE: PMPI_Reduce(a, b, fl, MPI_FLOAT, MPI_SUM, root_of(i, n), comm); break;
        case ALLTOALL: PMPI_Alltoall(a, (int)bytes, MPI_BYTE, b, (int)bytes, MPI_BYTE, comm); break;
        default: PMPI_Barrier(comm); break;
        }
}

/* One IMB measurement: barrier, `it` calls, the mean over ranks of a
 * rank's time per call (us); lib: through PMPI_. */
static double timed(int lib, int op, size_t bytes, int it, int n, char *a, char *b)
{
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (lib)
        lib_calls(op, bytes, it, n, a, b);
    else
        calls(op, bytes, it, n, a, b);
    double t = (MPI_Wtime() - t0) / it, sum = 0;
    PMPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    return sum / n * 1e6;
}

static double median(double *x, int m)
{
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
        }
    return m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long maxb = argc > 1 ? atol(argv[1]) : 1L << 20;
    const char *ops = argc > 2 ? argv[2] : "Bcast,Allreduce,Reduce,Alltoall,Barrier";
    int ab = 0, split = 0;
    for (int i = 3; i < argc; i++) {
        ab |= !strcmp(argv[i], "ab");
        split |= !strcmp(argv[i], "split");
        fixed |= !strcmp(argv[i], "fixed");
    }
    comm = MPI_COMM_WORLD;
    if (split)
        MPI_Comm_split(MPI_COMM_WORLD, 0, me, &comm);
    if (maxb < 0 || maxb > (1L << 26)) {
        if (!me)
            fprintf(stderr, "pmpi_imb: MAX_BYTES %ld: allowed 0..%ld\n", maxb, 1L << 26);
        MPI_Finalize();
        return 2;
    }
    /* floats of zero: a sum of them stays finite, no denormal slowdown */
    size_t cap = (size_t)maxb * (size_t)n + 64;
    char *a = calloc(cap, 1), *b = calloc(cap, 1);
    if (!a || !b) {
        fprintf(stderr, "pmpi_imb: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (!me) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(v, &len);
        v[strcspn(v, "\n")] = 0;
        printf("# MPI: %s\n# ranks: %d\n# communicator: %s\n# root: %s\n", v, n,
               split ? "split from MPI_COMM_WORLD" : "MPI_COMM_WORLD", fixed ? "fixed 0" : "moving");
    }
    for (int op = 0; op < NOPS; op++) {
        if (!strstr(ops, names[op]) || (fixed && op != BCAST && op != REDUCE))
            continue;
        char name[32];
        snprintf(name, sizeof name, "%s%s", names[op], fixed ? "-root0" : "");
        int red = op == ALLREDUCE || op == REDUCE;
        for (size_t bytes = 0; bytes <= (size_t)maxb; bytes = bytes ? 2 * bytes : red ? 4 : 1) {
            int it = iters_for(bytes);
            calls(op, bytes, it / 8 + 2, n, a, b); /* warm-up: paths set up, caches warm */
            if (ab) {
                lib_calls(op, bytes, it / 8 + 2, n, a, b);
                double tl[AB_ROUNDS], ta[AB_ROUNDS];
                for (int r = 0; r < AB_ROUNDS; r++) {
                    /* which side goes first alternates: neither gets the warmer caches */
                    tl[r] = r % 2 ? 0 : timed(1, op, bytes, it, n, a, b);
                    ta[r] = timed(0, op, bytes, it, n, a, b);
                    if (r % 2)
                        tl[r] = timed(1, op, bytes, it, n, a, b);
                }
                if (!me)
                    printf("%s %zu %.4f %.4f %d\n", name, bytes, median(tl, AB_ROUNDS), median(ta, AB_ROUNDS), it);
            } else {
                MPI_Barrier(comm);
                double t0 = MPI_Wtime();
                calls(op, bytes, it, n, a, b);
                double t = (MPI_Wtime() - t0) / it, sum = 0;
                MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
                if (!me)
                    printf("%s %zu %.4f %d\n", name, bytes, sum / n * 1e6, it);
            }
            if (op == BARRIER)
                break;
        }
    }
    if (!me && fflush(stdout)) {
        perror("pmpi_imb: stdout");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    free(a);
    free(b);
    if (split)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
