/*
 * alltoallv_pairwise.c - pairwise-exchange alltoallv.
 *
 * Algorithm: MPICH's long-message MPI_Alltoall(v) (Thakur, Rabenseifner
 *   and Gropp 2005, sec. 4.5; paper 000 sec. 3.1 counts it among MPICH2's
 *   four).  The block to myself is a local copy.  In step k = 1 .. N-1
 *   rank i sends its block for (i + k) mod N and receives the block of
 *   (i - k) mod N in one sendrecv, so every step is a permutation: each
 *   rank sends one message and receives one.
 *   Empty blocks are still exchanged as 0-byte messages.  Skipping them
 *   would save an alpha per empty pair, but then a rank whose counts
 *   disagree with its peer's (a non-zero block the peer expects as empty)
 *   would leave a send that nobody ever matches, a hang; exchanging every
 *   pair turns any such disagreement into a message longer than its
 *   receive, which the wait reports as TORUS_COLL_ETRUNC.  After a
 *   truncated receive the remaining steps still run, so no peer waits
 *   for this rank forever, and the error is returned at the end.
 *   Under torus_coll_skip_empty (the MPI adapter, where MPI_Alltoallv
 *   requires the counts to match pairwise) empty blocks are skipped, as
 *   MPICH's own alltoallv does: a rank sends and receives only its
 *   non-empty blocks, and an all-zero call costs no message anywhere.
 * Preconditions: none (any N, any shape, any counts).
 * Cost: N - 1 steps, T = (N - 1) (alpha + m beta) for blocks of m bytes.
 *   Every rank sends N - 1 messages (0-byte ones included; none of them
 *   under skip_empty when m = 0) of (N - 1) m bytes in all.
 */
#include "coll_impl.h"

#include <string.h>

#define BATCH 32

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, bad = 0;
    const unsigned char *s = a->sbuf;
    unsigned char *r = a->rbuf;
    /* the local block is a copy, never a message; longer than its
     * receive is the same count error a message would give */
    size_t own = a->scounts[me];
    if (own > a->rcounts[me]) {
        own = a->rcounts[me];
        bad = 1;
    }
    if (own)
        memcpy(r + a->rdispls[me], s + a->sdispls[me], own);
    /* steps first .. first + BATCH - 1 at a time: step k's receive and
     * send are q[2 (k - first)] and the one after it */
    torus_req q[2 * BATCH];
    for (int first = 1; first < n; first += BATCH) {
        int m = 0, rc = 0;
        for (int k = first; k < n && k < first + BATCH && !rc; k++) {
            int dst = (me + k) % n, src = (me - k + n) % n;
            if (!c->skip_empty || a->rcounts[src]) {
                rc = torus__irecv(c, src, r + a->rdispls[src], a->rcounts[src], &q[m]);
                if (rc)
                    break;
                m++;
            }
            if (!c->skip_empty || a->scounts[dst]) {
                rc = torus__isend(c, dst, s + a->sdispls[dst], a->scounts[dst], &q[m]);
                m += !rc;
            }
        }
        int wrc = torus__wait(c, q, m); /* also on an error: leave no request behind */
        if (rc)
            return rc;
        if (wrc == TORUS_COLL_ETRUNC)
            bad = 1; /* every request is finished: carry on, report at the end */
        else if (wrc)
            return wrc;
    }
    if (bad)
        return torus__fail(c, TORUS_COLL_ETRUNC,
                           "rank %d: alltoallv: a block was longer than its receive: do the counts differ between ranks?",
                           me);
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)rank;
    uint64_t steps = (uint64_t)(c->n - 1);
    k->msgs = c->skip_empty && !a->bytes ? 0 : steps;
    k->bytes = steps * a->bytes;
    k->rounds = (double)steps;
    k->path_bytes = (double)steps * (double)a->bytes;
}

const torus__coll_alg torus__coll_alltoallv_pairwise = {
    .name = "pairwise",
    .op = TORUS_COLL_ALLTOALLV,
    .summary = "N - 1 sendrecv steps to i + k, from i - k (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
