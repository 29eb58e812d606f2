/*
 * barrier_nary_dissemination.c - the n-ary dissemination barrier.
 *
 * Algorithm: paper 004 sec. 4.2 ("Exchange Algorithms", mode 2, Figure 5),
 *   the dissemination barrier of Hensgen, Finkel and Manber generalised
 *   from one signal per round to FANOUT.  With radix r = FANOUT + 1 (the
 *   paper's n), in round k = 0, 1, ... while r^k < N rank i sends an empty
 *   message to (i + j r^k) mod N and waits for one from (i - j r^k) mod N,
 *   for j = 1 .. m_k.  After round k rank i has heard, directly or through
 *   others, from the r^(k+1) ranks i, i - 1, ..., i - r^(k+1) + 1.  When N
 *   is not a power of r the last round only covers the distance left:
 *   m_k = min(r - 1, ceil(N / r^k) - 1), so no rank signals itself or the
 *   same peer twice in a round, and the rounds stay ceil(log_r N).
 * Preconditions: none (any N, any shape).
 * Cost: R = ceil(log_r N) rounds, T = R alpha (paper 004 counts steps: the
 *   m_k signals of a round leave together, its Figure 6 shows a step, not
 *   a signal, is what costs).  Every rank sends sum_k m_k messages of
 *   0 bytes (R (r - 1) when N is a power of r).
 */
#include "coll_impl.h"

/* Signals per round (the radix is FANOUT + 1, paper 004's n = 3, the
 * example of its Figure 5): the paper evaluates several; 2 keeps a round
 * cheap while cutting the rounds of plain dissemination by log2 3. */
#define FANOUT 2
#define RADIX (FANOUT + 1)

/* m_k for the round whose distance unit is `step` (= r^k < n) */
static int signals(int n, int step)
{
    int left = (n + step - 1) / step - 1; /* ceil(n / step) - 1 >= 1 */
    return left < FANOUT ? left : FANOUT;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    int n = c->n, me = c->me, rc = 0;
    torus_req r[2 * FANOUT];
    for (long step = 1; step < n && !rc; step *= RADIX) {
        int m = signals(n, (int)step), started = 0;
        /* receives first, so a rendezvous send always finds its match */
        for (int j = 1; j <= m && !rc; j++)
            if (!(rc = torus__irecv(c, (int)((me - j * step % n + n) % n), NULL, 0, &r[started])))
                started++;
        for (int j = 1; j <= m && !rc; j++)
            if (!(rc = torus__isend(c, (int)((me + j * step) % n), NULL, 0, &r[started])))
                started++;
        /* what was started is finished even when a start failed */
        int wrc = torus__wait(c, r, started);
        rc = rc ? rc : wrc;
    }
    return rc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a, (void)rank;
    int n = c->n;
    k->msgs = 0;
    k->bytes = 0;
    k->rounds = 0;
    for (long step = 1; step < n; step *= RADIX) {
        k->msgs += (uint64_t)signals(n, (int)step);
        k->rounds++;
    }
}

const torus__coll_alg torus__coll_barrier_nary_dissemination = {
    .name = "nary_dissemination",
    .op = TORUS_COLL_BARRIER,
    .summary = "ceil(log3 N) rounds of 2 signals to i + j 3^k (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
