/*
 * pmpi_threads.c - the thread levels, with and without the adapter.
 *
 * pmpi_threads (no argument): ranks that ask MPI for different thread
 * levels, as MPI allows (PT_LEVEL=multiple in a rank's environment:
 * MPI_THREAD_MULTIPLE, else MPI_THREAD_SINGLE; an MPMD launch gives each
 * rank its own), then run collectives on MPI_COMM_WORLD and on a split of
 * it.  Rank 0 prints what they returned, which must be the same with and
 * without the adapter (issue 33, class 2: the level never enters the
 * adapter's agreement between the ranks).
 *
 * pmpi_threads concurrent T ITERS: MPI_THREAD_MULTIPLE, T threads, each on
 * its own duplicate of MPI_COMM_WORLD, all at once (MPI lets threads run
 * collectives concurrently on different communicators, issue 37): ITERS
 * rounds of bcast (predefined and derived types, every root), allreduce
 * (several types and ops, in place too), reduce, alltoall, alltoallv,
 * allgather, gather, scatter and barrier, every value checked exactly
 * against its formula; every 16th round a thread also creates, uses and
 * frees a communicator of its own (a duplicate, then a split), so the
 * adapter's registry of communicator states changes while other threads
 * use it, and a vector datatype shared by all threads is first used by
 * all of them at once.  Prints "threads T iters I checks C errors E digest
 * D" (rank 0; the digest covers every result of every rank and thread), the
 * same with and without the adapter; "skipped: ..." when the library does
 * not provide MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                            \
    do {                                                                                                       \
        int rc_ = (call);                                                                                      \
        if (rc_ != MPI_SUCCESS) {                                                                              \
            fprintf(stderr, "pmpi_threads: %s failed at line %d (code %d)\n", #call, __LINE__, rc_);           \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                                      \
        }                                                                                                      \
    } while (0)

/* ---- ranks at different levels ----------------------------------------- */

static int levels(void)
{
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
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Gather(&half_sum, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (!me) {
        printf("ranks %d sum %ld bcast %ld halves", n, sum, b);
        for (int r = 0; r < n; r++)
            printf(" %ld", all[r]);
        printf("\n");
    }
    free(all);
    MPI_Comm_free(&half);
    return 0;
}

/* ---- threads on communicators of their own ------------------------------- */

enum { MAXN = 64, BIG = 3000 };

typedef struct worker {
    pthread_t id;
    int t, iters;
    MPI_Comm comm;
    MPI_Datatype vec;      /* shared by all threads: 2 ints every 3 */
    long checks, errors;
    uint64_t digest;
    char first_error[200];
} worker;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* One checked value: counted, and folded into the thread's digest. */
static void expect(worker *w, const char *what, int it, long got, long want)
{
    w->checks++;
    w->digest = fnv(w->digest, &got, sizeof got);
    if (got != want && !w->errors++)
        snprintf(w->first_error, sizeof w->first_error, "thread %d round %d %s: got %ld want %ld", w->t, it, what,
                 got, want);
}

/* The value rank r holds at index i in round it of thread t. */
static long val(int t, int it, int r, int i)
{
    return (long)t * 1000003L + (long)it * 7919L + (long)r * 104729L + i;
}

static void rooted(worker *w, MPI_Comm comm, int it, int me, int n, int *ib, long *lb)
{
    int root = (it + w->t) % n;
    int k = 1 + (it * 37 + w->t * 11) % (it % 5 == 0 ? BIG : 200);
    for (int i = 0; i < k; i++)
        ib[i] = me == root ? (int)val(w->t, it, root, i) : -1;
    CHECK(MPI_Bcast(ib, k, MPI_INT, root, comm));
    for (int i = 0; i < k; i += 1 + k / 16)
        expect(w, "bcast int", it, ib[i], (int)val(w->t, it, root, i));
    /* a vector type every thread uses (its description decoded once, by
     * whichever thread comes first): 4 blocks of 2 ints, stride 3 */
    for (int i = 0; i < 12; i++)
        ib[i] = me == root ? (int)val(w->t, it, root, i) : -7;
    CHECK(MPI_Bcast(ib, 1, w->vec, root, comm));
    for (int i = 0; i < 12; i++)
        expect(w, "bcast vector", it, ib[i], i % 3 == 2 && me != root ? -7 : (int)val(w->t, it, root, i));
    /* reduce (the library's call) to the root: the sum over ranks */
    long mine = val(w->t, it, me, 0), sum = -1, want = 0;
    for (int r = 0; r < n; r++)
        want += val(w->t, it, r, 0);
    CHECK(MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, root, comm));
    if (me == root)
        expect(w, "reduce", it, sum, want);
    /* gather and scatter, the library's */
    CHECK(MPI_Gather(&mine, 1, MPI_LONG, lb, 1, MPI_LONG, root, comm));
    if (me == root)
        for (int r = 0; r < n; r++)
            expect(w, "gather", it, lb[r], val(w->t, it, r, 0));
    for (int r = 0; r < n && me == root; r++)
        lb[r] = val(w->t, it, r, 5);
    long got = -1;
    CHECK(MPI_Scatter(lb, 1, MPI_LONG, &got, 1, MPI_LONG, root, comm));
    expect(w, "scatter", it, got, val(w->t, it, me, 5));
}

static void reducing(worker *w, MPI_Comm comm, int it, int me, int n, long *lb)
{
    int k = 1 + (it * 13 + w->t) % (it % 7 == 0 ? BIG : 64);
    long *out = lb + BIG;
    for (int i = 0; i < k; i++)
        lb[i] = val(w->t, it, me, i);
    CHECK(MPI_Allreduce(lb, out, k, MPI_LONG, MPI_SUM, comm));
    for (int i = 0; i < k; i += 1 + k / 16) {
        long want = 0;
        for (int r = 0; r < n; r++)
            want += val(w->t, it, r, i);
        expect(w, "allreduce long sum", it, out[i], want);
    }
    /* in place, max */
    for (int i = 0; i < k; i++)
        out[i] = val(w->t, it, (me + i) % n, i);
    CHECK(MPI_Allreduce(MPI_IN_PLACE, out, k, MPI_LONG, MPI_MAX, comm));
    for (int i = 0; i < k; i += 1 + k / 16) {
        long want = val(w->t, it, 0, i);
        for (int r = 1; r < n; r++)
            want = val(w->t, it, r, i) > want ? val(w->t, it, r, i) : want;
        expect(w, "allreduce in place max", it, out[i], want);
    }
    /* doubles holding small integers: every order of summing is exact */
    double d[4], dsum[4];
    for (int i = 0; i < 4; i++)
        d[i] = (double)((me + 1) * (i + w->t + 1));
    CHECK(MPI_Allreduce(d, dsum, 4, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < 4; i++)
        expect(w, "allreduce double sum", it, (long)dsum[i], (long)(n * (n + 1) / 2 * (i + w->t + 1)));
}

static void exchanging(worker *w, MPI_Comm comm, int it, int me, int n, int *ib)
{
    int k = 1 + (it + w->t) % 40;
    int *out = ib + BIG;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < k; i++)
            ib[r * k + i] = (int)val(w->t, it, me, r * 100 + i);
    CHECK(MPI_Alltoall(ib, k, MPI_INT, out, k, MPI_INT, comm));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < k; i += 1 + k / 4)
            expect(w, "alltoall", it, out[r * k + i], (int)val(w->t, it, r, me * 100 + i));
    /* alltoallv: rank r gets (me + r + it) % 5 ints from me */
    int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN], so = 0, ro = 0;
    for (int r = 0; r < n; r++) {
        sc[r] = (me + r + it) % 5, sd[r] = so, so += sc[r];
        rc[r] = (r + me + it) % 5, rd[r] = ro, ro += rc[r];
        for (int i = 0; i < sc[r]; i++)
            ib[sd[r] + i] = (int)val(w->t, it, me, r * 10 + i);
    }
    CHECK(MPI_Alltoallv(ib, sc, sd, MPI_INT, out, rc, rd, MPI_INT, comm));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < rc[r]; i++)
            expect(w, "alltoallv", it, out[rd[r] + i], (int)val(w->t, it, r, me * 10 + i));
    int mine = (int)val(w->t, it, me, 1);
    CHECK(MPI_Allgather(&mine, 1, MPI_INT, out, 1, MPI_INT, comm));
    for (int r = 0; r < n; r++)
        expect(w, "allgather", it, out[r], (int)val(w->t, it, r, 1));
    CHECK(MPI_Barrier(comm));
}

/* One round on comm. */
static void round_on(worker *w, MPI_Comm comm, int it, int *ib, long *lb)
{
    int me, n;
    CHECK(MPI_Comm_rank(comm, &me));
    CHECK(MPI_Comm_size(comm, &n));
    rooted(w, comm, it, me, n, ib, lb);
    reducing(w, comm, it, me, n, lb);
    exchanging(w, comm, it, me, n, ib);
}

static void *work(void *arg)
{
    worker *w = arg;
    int *ib = malloc(2 * BIG * sizeof *ib);
    long *lb = malloc(2 * BIG * sizeof *lb);
    if (!ib || !lb) {
        fprintf(stderr, "pmpi_threads: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
        return NULL;
    }
    for (int it = 0; it < w->iters; it++) {
        round_on(w, w->comm, it, ib, lb);
        if (it % 16 == 8) {
            /* a communicator born and freed while the other threads run:
             * the adapter builds its state (collective over it) and drops
             * it again */
            MPI_Comm d, s;
            int me;
            CHECK(MPI_Comm_dup(w->comm, &d));
            CHECK(MPI_Comm_rank(d, &me));
            round_on(w, d, it, ib, lb);
            CHECK(MPI_Comm_split(d, me % 2, -me, &s));
            round_on(w, s, it + 1, ib, lb);
            CHECK(MPI_Comm_free(&s));
            CHECK(MPI_Comm_free(&d));
        }
    }
    free(ib);
    free(lb);
    return NULL;
}

static int concurrent(int nt, int iters)
{
    int me, n, got = 0;
    CHECK(MPI_Query_thread(&got));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
    if (got != MPI_THREAD_MULTIPLE || n > MAXN) {
        if (!me)
            printf("skipped: %s\n", n > MAXN ? "too many ranks" : "MPI_THREAD_MULTIPLE not provided");
        return 0;
    }
    worker w[16];
    if (nt < 1 || nt > 16)
        nt = 4;
    MPI_Datatype vec;
    CHECK(MPI_Type_vector(4, 2, 3, MPI_INT, &vec));
    CHECK(MPI_Type_commit(&vec));
    for (int t = 0; t < nt; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].t = t, w[t].iters = iters, w[t].vec = vec, w[t].digest = 0xcbf29ce484222325ULL;
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm));
    }
    for (int t = 0; t < nt; t++)
        if (pthread_create(&w[t].id, NULL, work, &w[t])) {
            fprintf(stderr, "pmpi_threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    long checks = 0, errors = 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int t = 0; t < nt; t++) {
        if (pthread_join(w[t].id, NULL)) {
            fprintf(stderr, "pmpi_threads: pthread_join failed\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        checks += w[t].checks, errors += w[t].errors;
        h = fnv(h, &w[t].digest, sizeof w[t].digest);
        if (w[t].errors)
            fprintf(stderr, "pmpi_threads: rank %d: %s (%ld errors)\n", me, w[t].first_error, w[t].errors);
        CHECK(MPI_Comm_free(&w[t].comm));
    }
    CHECK(MPI_Type_free(&vec));
    /* every rank's figures, in rank order */
    long mine[2] = {checks, errors}, tot[2];
    CHECK(MPI_Reduce(mine, tot, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    uint64_t *all = malloc((size_t)n * sizeof *all);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 3);
    CHECK(MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
    if (!me) {
        uint64_t d = 0xcbf29ce484222325ULL;
        for (int r = 0; r < n; r++)
            d = fnv(d, &all[r], sizeof all[r]);
        printf("threads %d iters %d checks %ld errors %ld digest %016llx\n", nt, iters, tot[0], tot[1],
               (unsigned long long)d);
    }
    free(all);
    return 0;
}

int main(int argc, char **argv)
{
    int conc = argc > 1 && !strcmp(argv[1], "concurrent");
    const char *l = getenv("PT_LEVEL");
    int want = conc || (l && !strcmp(l, "multiple")) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, got = 0;
    if (MPI_Init_thread(&argc, &argv, want, &got) != MPI_SUCCESS)
        return 3;
    int rc = conc ? concurrent(argc > 2 ? atoi(argv[2]) : 4, argc > 3 ? atoi(argv[3]) : 100) : levels();
    MPI_Finalize();
    return rc;
}
