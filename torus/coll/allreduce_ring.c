/*
 * allreduce_ring.c - ring reduce-scatter + ring allgather allreduce, the
 * vector cut into N segments, for long vectors.
 *
 * Algorithm: Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms
 *   for clusters of workstations" (JPDC 2009); MPICH's
 *   MPIR_Allreduce_intra_ring and the ring of Baidu/Horovod.  The vector is
 *   cut into N segments, segment b holding count/N elements plus one for
 *   b < count mod N (some empty when count < N).  Around the ring of ranks
 *   in rank order (r sends to r + 1, receives from r - 1, mod N):
 *   1. Reduce-scatter, steps i = 0 .. N-2: send segment (r - i) mod N,
 *      receive segment (r - i - 1) mod N and combine it, the arriving
 *      partial first, my own second (a fixed order).  After step N-2 rank
 *      r holds segment (r + 1) mod N fully reduced: each segment is
 *      combined along one chain of ranks, once.
 *   2. Allgather, steps i = 0 .. N-2: send segment (r + 1 - i) mod N,
 *      receive segment (r - i) mod N into place, copied: every rank ends
 *      with the same bits.
 *   Every step sends one message, empty segments included, so every rank
 *   sends and receives exactly 2 (N - 1) messages whatever its count:
 *   counts that differ between ranks give TORUS_COLL_ETRUNC (a segment
 *   longer than its receive) on some rank, never a hang (a rank that sees
 *   one keeps going to the end, then reports it).
 *   Segment size: n/N, not tuned: the cost below has the lowest bandwidth
 *   term an allreduce can have, 2 (N-1)/N n beta (Patarasuk and Yuan's
 *   lower bound), for any N, where Rabenseifner's pays 2 ((p-1)/p + 1) n
 *   beta when N is not a power of two p (its pre- and post-steps move the
 *   whole vector); what it pays is 2 (N - 1) alpha against Rabenseifner's
 *   2 log2 p + 2, so the two cross at n ~ (N - 1 - log2 p - 1) alpha /
 *   ((1 + 1/p - 1/N) beta), a few KiB at N <= 16 with alpha/beta ~ 4 KiB.
 * Preconditions: none (any N, any count).
 * Cost: n = count * (element size) bytes, segments of m = ceil(count/N)
 *   elements: T = 2 (N - 1) (alpha + m beta) + (N - 1) m gamma.  Every
 *   rank r sends 2 (N - 1) messages: every segment but (r + 1) mod N, then
 *   every segment but (r + 2) mod N (the cost function sums the real ones).
 */
#include "coll_impl.h"

#include <string.h>

/* First element and length of segment b of n over count elements. */
static size_t seg_lo(size_t count, int n, int b)
{
    size_t q = count / (size_t)n, r = count % (size_t)n;
    return (size_t)b * q + ((size_t)b < r ? (size_t)b : r);
}

static size_t seg_len(size_t count, int n, int b)
{
    return count / (size_t)n + ((size_t)b < count % (size_t)n);
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, right = (me + 1) % n, left = (me - 1 + n) % n, bad = 0;
    if (n == 1)
        return 0;
    size_t es = a->esize, most = seg_len(a->count, n, 0);
    unsigned char *buf = a->rbuf, *tmp = torus__scratch(c, most * es + 1);
    if (!tmp)
        return torus__fail(c, TORUS_COLL_ENOMEM, "allreduce: out of memory for %zu bytes", most * es);
    for (int i = 0; i < n - 1; i++) {
        int sb = ((me - i) % n + n) % n, rb = ((me - i - 1) % n + n) % n;
        size_t rl = seg_len(a->count, n, rb);
        int rc = torus__sendrecv(c, right, buf + seg_lo(a->count, n, sb) * es, seg_len(a->count, n, sb) * es, left,
                                 tmp, rl * es);
        if (rc == TORUS_COLL_ETRUNC) {
            bad = rc; /* keep the ring turning: the others wait on my messages */
            continue;
        }
        if (rc)
            return rc;
        unsigned char *dst = buf + seg_lo(a->count, n, rb) * es;
        torus__reduce3(c, dst, tmp, dst, rl, a->dt, a->rop);
    }
    for (int i = 0; i < n - 1; i++) {
        int sb = ((me + 1 - i) % n + n) % n, rb = ((me - i) % n + n) % n;
        int rc = torus__sendrecv(c, right, buf + seg_lo(a->count, n, sb) * es, seg_len(a->count, n, sb) * es, left,
                                 buf + seg_lo(a->count, n, rb) * es, seg_len(a->count, n, rb) * es);
        if (rc == TORUS_COLL_ETRUNC)
            bad = rc;
        else if (rc)
            return rc;
    }
    return bad;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n;
    if (n == 1)
        return;
    size_t m = seg_len(a->count, n, 0) * a->esize;
    k->msgs = 2 * (uint64_t)(n - 1);
    /* all but segment r + 1 in the reduce-scatter, all but r + 2 in the allgather */
    k->bytes = (2 * (uint64_t)a->count - seg_len(a->count, n, (rank + 1) % n) - seg_len(a->count, n, (rank + 2) % n)) *
               a->esize;
    k->rounds = 2.0 * (n - 1);
    k->path_bytes = k->rounds * (double)m;
    k->reduce_bytes = (double)(n - 1) * (double)m;
}

const torus__coll_alg torus__coll_allreduce_ring = {
    .name = "ring",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "ring reduce-scatter + ring allgather of N segments, 2 (N-1)/N n bytes per rank (any N; long vectors)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
