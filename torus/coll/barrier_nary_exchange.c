/*
 * barrier_nary_exchange.c - the n-ary exchange barrier.
 *
 * Algorithm: paper 004 sec. 4.2 ("Exchange Algorithms", mode 1, Figure 4):
 *   the binary exchange (recursive doubling) generalised to groups of n =
 *   RADIX ranks that all signal each other.  Let P = n^m be the largest
 *   power of n <= N; ranks below P are "inside".
 *   1. (N > P only) every rank e >= P checks in with its partner e mod P
 *      (each inside rank has at most n - 1 such partners).
 *   2. In step s = 0 .. m-1 every inside rank i sends an empty message to
 *      and waits for one from each of the n - 1 ranks that differ from i
 *      only in base-n digit s: after step s, i has heard from the n^(s+1)
 *      ranks that share its digits above s, and from their partners.
 *   3. (N > P only) every inside rank releases its partners >= P.
 *   The paper counts ceil(log_n N) + 2 steps when N is not a power of n;
 *   folding the outside ranks onto P = n^floor(log_n N) takes one fewer.
 * Preconditions: none (any N, any shape).
 * Cost: R = m rounds when N = P, m + 2 otherwise; T = R alpha (paper 004
 *   counts steps: the n - 1 signals of a step leave together).  Rank i < P
 *   sends m (n - 1) messages plus one release to each e = i + q P < N
 *   (q = 1 .. n - 1); rank e >= P sends 1.  All 0 bytes.
 */
#include "coll_impl.h"

/* Group size (paper 004's n).  The paper finds n = N best up to 16 nodes
 * and ~6 beyond; 4 halves the steps of binary exchange while a step's
 * three signals still overlap on this kit's transports. */
#define RADIX 4

/* P = RADIX^m, the largest power of RADIX <= n, and m */
static int inner(int n, int *m)
{
    long p = 1;
    *m = 0;
    while (p * RADIX <= n) {
        p *= RADIX;
        ++*m;
    }
    return (int)p;
}

/* Waits for the requests that were started (even after a failed start,
 * so none is left open); the start's error wins over the wait's. */
static int finish(torus_coll *c, torus_req *r, int started, int rc)
{
    int wrc = torus__wait(c, r, started);
    return rc ? rc : wrc;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    int n = c->n, me = c->me, m, rc = 0, started = 0;
    int p = inner(n, &m);
    torus_req r[2 * (RADIX - 1)];
    if (me >= p) {
        /* outside: check in, then wait to be released */
        rc = torus__send(c, me % p, NULL, 0);
        return rc ? rc : torus__recv(c, me % p, NULL, 0);
    }
    /* 1. the outside partners' check-ins */
    for (long e = me + (long)p; e < n && !rc; e += p)
        if (!(rc = torus__irecv(c, (int)e, NULL, 0, &r[started])))
            started++;
    if ((rc = finish(c, r, started, rc)))
        return rc;
    /* 2. all-to-all within the group of digit s */
    for (int s = 0, unit = 1; s < m; s++, unit *= RADIX) {
        int base = me - (me / unit % RADIX) * unit; /* me with digit s = 0 */
        started = 0;
        for (int d = 0; d < RADIX && !rc; d++)
            if (base + d * unit != me && !(rc = torus__irecv(c, base + d * unit, NULL, 0, &r[started])))
                started++;
        for (int d = 0; d < RADIX && !rc; d++)
            if (base + d * unit != me && !(rc = torus__isend(c, base + d * unit, NULL, 0, &r[started])))
                started++;
        if ((rc = finish(c, r, started, rc)))
            return rc;
    }
    /* 3. release the outside partners */
    started = 0;
    for (long e = me + (long)p; e < n && !rc; e += p)
        if (!(rc = torus__isend(c, (int)e, NULL, 0, &r[started])))
            started++;
    return finish(c, r, started, rc);
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a;
    int n = c->n, m, p = inner(n, &m);
    k->bytes = 0;
    k->rounds = m + (n > p ? 2 : 0);
    if (rank >= p) {
        k->msgs = 1;
        return;
    }
    k->msgs = (uint64_t)m * (RADIX - 1);
    for (long e = rank + (long)p; e < n; e += p)
        k->msgs++;
}

const torus__coll_alg torus__coll_barrier_nary_exchange = {
    .name = "nary_exchange",
    .op = TORUS_COLL_BARRIER,
    .summary = "groups of 4 signal each other, log4 N steps, +2 when N is not a power of 4 (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
