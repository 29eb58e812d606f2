/*
 * pmpi_persist.c - the MPI-4 persistent collectives MPI_Bcast_init,
 * MPI_Allreduce_init and MPI_Neighbor_alltoallv_init, each started ROUNDS
 * times with new buffer contents before every start, through MPI_Start,
 * MPI_Startall, MPI_Wait, MPI_Waitall and an MPI_Test loop, then
 * MPI_Request_free; every result is checked against the value it must
 * have, and one digest of all of them is printed, so a run with and one
 * without libtorus_pmpi.so print the same lines.  One MPI_Allreduce_init
 * with a user-defined op is the library's (the adapter's stats count it
 * as why.user_op=1).
 *
 *   pmpi_persist [ROUNDS]   (default 5)
 *
 * Rank 0 prints "persist: R rounds, N checks, 0 bad" and "digest HEX";
 * exit 1 on a wrong value.  Built against an MPI without the persistent
 * collectives (MPI_VERSION < 4: Open MPI 4.1) it prints "persist:
 * skipped (MPI_VERSION V)" and exits 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if MPI_VERSION >= 4

#define NB 3000  /* bcast doubles: over one chain segment at every rank count */
#define NR 1001  /* allreduce int64s, odd */
#define NN 5     /* neighbor ints per edge */

static uint64_t digest = 1469598103934665603ull;
static long checks, wrong;

static void mix(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        digest = (digest ^ b[i]) * 1099511628211ull;
}

static void check(int okay, const char *what, int round, int i)
{
    checks++;
    if (!okay && wrong++ < 5)
        fprintf(stderr, "pmpi_persist: %s wrong in round %d at %d\n", what, round, i);
}

static void usermax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i] > ((int *)inout)[i] ? ((int *)in)[i] : ((int *)inout)[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 5, n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int root = n > 1 ? 1 : 0, left = (me - 1 + n) % n, right = (me + 1) % n;
    static double b[NB];
    static int64_t s[NR], r[NR];
    int ns[2 * NN], nr[2 * NN], um_in, um_out;
    /* a ring as a distributed graph: send to both neighbours, receive from both */
    int nbrs[2] = {left, right};
    MPI_Comm ring;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nbrs, MPI_UNWEIGHTED, 2, nbrs, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &ring);
    int cnt[2] = {NN, NN}, dsp[2] = {0, NN};
    MPI_Request q[4];
    MPI_Status st[4];
    MPI_Bcast_init(b, NB, MPI_DOUBLE, root, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
    MPI_Allreduce_init(s, r, NR, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
    MPI_Neighbor_alltoallv_init(ns, cnt, dsp, MPI_INT, nr, cnt, dsp, MPI_INT, ring, MPI_INFO_NULL, &q[2]);
    MPI_Op um;
    MPI_Op_create(usermax, 1, &um);
    MPI_Allreduce_init(&um_in, &um_out, 1, MPI_INT, um, MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]);
    for (int t = 0; t < rounds; t++) {
        /* new contents before every start: the start reads them */
        for (int i = 0; i < NB; i++)
            b[i] = me == root ? t * 1000.5 + i : -1;
        for (int i = 0; i < NR; i++)
            s[i] = (int64_t)(me + 1) * (t + 1) * (i + 1);
        for (int i = 0; i < 2 * NN; i++)
            ns[i] = me * 100000 + t * 1000 + i, nr[i] = -1;
        um_in = me * 7 + t;
        if (t % 3 == 0) {
            MPI_Startall(4, q);
            MPI_Waitall(4, q, st); /* statuses, not MPI_STATUSES_IGNORE: gcc 11 misreads that as an array of 0 */
        } else {
            for (int k = 0; k < 4; k++)
                MPI_Start(&q[k]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            for (int k = 1; k < 4; k++) {
                int done = 0;
                while (!done)
                    MPI_Test(&q[k], &done, MPI_STATUS_IGNORE);
            }
        }
        for (int i = 0; i < NB; i++)
            check(b[i] == t * 1000.5 + i, "bcast", t, i);
        for (int i = 0; i < NR; i++)
            check(r[i] == (int64_t)n * (n + 1) / 2 * (t + 1) * (i + 1), "allreduce", t, i);
        /* block 0 comes from the left neighbour's block 1 (its send to its
         * right) and block 1 from the right one's block 0; at 1 and 2
         * ranks both edges join the same pair of ranks, and MPI pairs
         * them in listing order: block k from the other's block k */
        for (int i = 0; i < NN; i++) {
            int lo = n <= 2 ? i : NN + i, hi = n <= 2 ? NN + i : i;
            check(nr[i] == left * 100000 + t * 1000 + lo, "neighbor", t, i);
            check(nr[NN + i] == right * 100000 + t * 1000 + hi, "neighbor", t, NN + i);
        }
        check(um_out == (n - 1) * 7 + t, "user op", t, 0);
        mix(b, sizeof b);
        mix(r, sizeof r);
        mix(nr, sizeof nr);
        mix(&um_out, sizeof um_out);
    }
    for (int k = 0; k < 4; k++)
        MPI_Request_free(&q[k]);
    MPI_Op_free(&um);
    MPI_Comm_free(&ring);
    long all[2] = {checks, wrong}, sum[2];
    MPI_Reduce(all, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("persist: %d rounds, %ld checks, %ld bad\n", rounds, sum[0], sum[1]);
        /* the same as keys: what tests/suite_pmpi.sh reads */
        printf("rounds: %d\nchecks: %ld\nbad: %ld\n", rounds, sum[0], sum[1]);
        printf("digest %016llx\n", (unsigned long long)digest);
    }
    MPI_Finalize();
    return me == 0 && sum[1] ? 1 : 0;
}

#else

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        printf("persist: skipped (MPI_VERSION %d)\nskipped: MPI_VERSION %d\n", MPI_VERSION, MPI_VERSION);
    MPI_Finalize();
    return 0;
}

#endif
