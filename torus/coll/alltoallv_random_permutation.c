/*
 * alltoallv_random_permutation.c - paper 000's randomized alltoall(v).
 *
 * Algorithm: paper 000 sec. 3.1 (MPI_Alltoall and MPI_Alltoallv on
 *   BlueGene/L), in messages instead of torus packets:
 *   - one permutation P of the ranks, drawn by Fisher-Yates from splitmix64
 *     with a FIXED seed, so every rank computes the same P without talking;
 *   - every rank starts at its own place in P: rank i = P[s] sends to
 *     P[s + 1], P[s + 2], ... (indices mod N), so in the uniform case the
 *     t-th destination of all ranks together is a permutation (rank P[s]
 *     -> P[s + t]): no rank is the target of two at once and the torus
 *     sees a random, evenly spread pattern instead of MPICH's hot spots;
 *   - blocks are cut into packets of PACKET bytes and each visit of a
 *     destination sends up to TWO of them before moving on (the paper's
 *     best compromise between cache locality and hot spots); pass p sends
 *     packets 2p and 2p+1 of every block that still has some;
 *   - destinations with nothing left are removed from the list in place
 *     (order kept), so later passes scan only unfinished blocks; empty
 *     blocks are never sent (the receiver skips them too: it knows its
 *     rcounts, as MPI_Alltoallv requires them to match the senders');
 *   - the block to myself is a local copy.
 *   Receives follow the same schedule from the other side: the packet
 *   from P[s - t] in pass p, in the same order (t, then packet), so a
 *   message's place (pass, t, packet) is the same for both its ends.
 *   Bounded: the paper's receiver takes packets from the network as they
 *   come; with messages every receive must be posted, and N - 1 posted
 *   at once (16.8 million requests at 4096 ranks, searched linearly by the
 *   in-process transports) does not scale.  So each rank keeps at most
 *   INFLIGHT sends and INFLIGHT receives open, starts them in schedule
 *   order (receives first) and starts the next visit as soon as a
 *   visit's worth of its requests has completed: a sliding window, so
 *   no rank waits for the slowest message of a group before it sends
 *   again (a fixed window of 32 destinations that all had to finish
 *   before the next reached 71% of the bisection peak at 1 KiB on the
 *   timed 8x8x8 torus; see the report of issue 11).  No deadlock under
 *   rendezvous sends: the smallest unfinished message (by pass, t,
 *   packet) has every earlier message of its sender and of its receiver
 *   finished, so neither has a slot taken by an earlier one: both have
 *   posted it.  At most 2 INFLIGHT requests are open per rank.
 *   Counts that disagree between ranks can hang (a packet that is never
 *   sent) or give TORUS_COLL_ETRUNC; MPI_Alltoallv rules them out too.
 * Preconditions: none (any N, any shape).
 * Cost: with blocks of m bytes, q = ceil(m / PACKET) packets per block
 *   (0 when m = 0): every rank sends (N - 1) q messages of (N - 1) m bytes
 *   in all; T = (N - 1) q alpha + (N - 1) m beta (the random order is
 *   what lets the network carry it at close to the bisection bound of
 *   paper 000 sec. 5.3, which alpha-beta does not model).
 */
#include "coll_impl.h"
#include "kit_mix.h"

#include <string.h>

#define PACKET 2048 /* bytes per message ("packet") of a block */
#define PER_VISIT 2 /* packets to one destination before moving on */
#define INFLIGHT 64 /* messages in flight per direction (sends, receives) */
#define SEED 0x42f9baa78c63171fULL

/* The same permutation of 0..n-1 on every rank (Fisher-Yates). */
static void permutation(int *perm, int n)
{
    uint64_t x = SEED;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(kit_splitmix64_next(&x) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* One direction of the schedule: sends (dir +1: the peer at distance t
 * is P[s + t]) or receives (dir -1: P[s - t]).  Pass 0 scans t = 1..N-1
 * directly; the blocks that need more passes are kept in `list` (their
 * distances, ascending), compacted in place during every pass. */
typedef struct side {
    const int *perm;
    int n, s, dir;
    const size_t *counts, *displs;
    const unsigned char *sbuf; /* sends read here */
    unsigned char *rbuf;       /* receives write here */
    int *list; /* NULL until a block needs a second pass */
    int len;   /* entries of list for the current pass (pass > 0) */
    int at;    /* next index: t in pass 0, list position after */
    int pass, kept, done;
    torus_req *q; /* INFLIGHT request slots, id -1 when free */
    int open;     /* slots in use */
} side;

static int peer_at(const side *d, int t)
{
    long v = ((long)d->s + (long)d->dir * t) % d->n;
    return d->perm[v < 0 ? v + d->n : v];
}

/* The distance of the next block with packets in this pass, or n. */
static int next_t(const side *d, int pass)
{
    if (pass == 0) {
        int t = d->at;
        while (t < d->n && !d->counts[peer_at(d, t)])
            t++;
        return t;
    }
    return d->at < d->len ? d->list[d->at] : d->n;
}

/* Starts the next visit of the schedule (up to PER_VISIT packets of one
 * block) into free slots, which the caller guarantees; moves on to the
 * next pass at the end of one, sets done after the last.  A block with
 * packets left after this pass is kept at the front of list (in place:
 * the write index never passes the read index). */
static int start_visit(torus_coll *c, side *d)
{
    for (;;) {
        int pass = d->pass, t = next_t(d, pass);
        if (t >= d->n) {
            if (!d->kept) {
                d->done = 1;
                return 0;
            }
            d->len = d->kept, d->at = 0, d->kept = 0;
            d->pass++;
            continue;
        }
        int peer = peer_at(d, t), slot = 0;
        size_t total = d->counts[peer];
        for (int k = 0; k < PER_VISIT; k++) {
            size_t off = ((size_t)pass * PER_VISIT + (size_t)k) * PACKET;
            if (off >= total)
                break;
            size_t len = total - off < PACKET ? total - off : PACKET;
            size_t at = d->displs[peer] + off;
            while (d->q[slot].id >= 0)
                slot++;
            int rc = d->dir > 0 ? torus__isend(c, peer, d->sbuf + at, len, &d->q[slot])
                                : torus__irecv(c, peer, d->rbuf + at, len, &d->q[slot]);
            if (rc)
                return rc;
            d->open++;
        }
        if (total > ((size_t)pass + 1) * PER_VISIT * PACKET) {
            if (!d->list && !(d->list = torus__scratch(c, (size_t)d->n * sizeof *d->list)))
                return torus__fail(c, TORUS_COLL_ENOMEM, "alltoallv: out of memory for %d destinations", d->n);
            d->list[d->kept++] = t;
        }
        d->at = pass == 0 ? t + 1 : d->at + 1;
        return 0;
    }
}

/* Tests every open request of d once; how many completed (*bad set for
 * a receive that was too short). */
static int reap(torus_coll *c, side *d, int *bad)
{
    int got = 0;
    for (int i = 0; i < INFLIGHT && d->open; i++) {
        if (d->q[i].id < 0)
            continue;
        int rc = torus__test(c, &d->q[i]);
        if (!rc)
            continue;
        if (rc < 0)
            *bad = 1; /* all finished: carry on so no peer waits for us */
        d->open--;
        got++;
    }
    return got;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, bad = 0, rc = 0;
    size_t own = a->scounts[me];
    if (own > a->rcounts[me]) {
        own = a->rcounts[me];
        bad = 1; /* the count error a message would give, reported at the end */
    }
    if (own)
        memcpy((unsigned char *)a->rbuf + a->rdispls[me], (const unsigned char *)a->sbuf + a->sdispls[me], own);
    int *perm = torus__scratch(c, (size_t)n * sizeof *perm);
    if (!perm)
        return torus__fail(c, TORUS_COLL_ENOMEM, "alltoallv: out of memory for a permutation of %d ranks", n);
    permutation(perm, n);
    int s = 0;
    while (perm[s] != me)
        s++;
    torus_req q[2 * INFLIGHT];
    for (int i = 0; i < 2 * INFLIGHT; i++)
        q[i].id = -1;
    side snd = {.perm = perm, .n = n, .s = s, .dir = 1, .counts = a->scounts, .displs = a->sdispls,
                .sbuf = a->sbuf, .at = 1, .q = q};
    side rcv = {.perm = perm, .n = n, .s = s, .dir = -1, .counts = a->rcounts, .displs = a->rdispls,
                .rbuf = a->rbuf, .at = 1, .q = q + INFLIGHT};
    for (;;) {
        /* receives first, so a send finds its receive posted where it can */
        while (!rc && !rcv.done && rcv.open + PER_VISIT <= INFLIGHT)
            rc = start_visit(c, &rcv);
        while (!rc && !snd.done && snd.open + PER_VISIT <= INFLIGHT)
            rc = start_visit(c, &snd);
        if (rc)
            break;
        if (rcv.done && snd.done && !rcv.open && !snd.open)
            break;
        if (!reap(c, &rcv, &bad) + !reap(c, &snd, &bad) == 2)
            torus__idle(c);
    }
    if (rc) {
        torus__wait(c, q, 2 * INFLIGHT); /* leave no request open */
        return rc;
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
    uint64_t peers = (uint64_t)(c->n - 1), packets = (a->bytes + PACKET - 1) / PACKET;
    k->msgs = peers * packets;
    k->bytes = peers * a->bytes;
    k->rounds = (double)k->msgs;
    k->path_bytes = (double)k->bytes;
}

const torus__coll_alg torus__coll_alltoallv_random_permutation = {
    .name = "random_permutation",
    .op = TORUS_COLL_ALLTOALLV,
    .summary = "seeded permutation, own offsets, 2 packets per visit (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
