/*
 * barrier_dissemination.c - the dissemination barrier.
 *
 * Algorithm: Hensgen, Finkel and Manber (1988), MPICH's default barrier
 *   (paper 000 sec. 3.2 names it as the baseline; paper 004 sec. 2).
 *   In round k = 0, 1, ... while 2^k < N, rank i sends an empty message to
 *   (i + 2^k) mod N and waits for one from (i - 2^k) mod N.  After the
 *   last round every rank has heard, directly or through others, from all.
 * Preconditions: none (any N, any shape).
 * Cost: R = ceil(log2 N) rounds, T = R alpha.  Every rank sends R
 *   messages of 0 bytes.
 */
#include "coll_impl.h"

static int rounds(int n)
{
    int r = 0;
    while ((1 << r) < n)
        r++;
    return r;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    int n = c->n, me = c->me;
    for (int dist = 1; dist < n; dist <<= 1) {
        int rc = torus__sendrecv(c, (me + dist) % n, NULL, 0, (me - dist + n) % n, NULL, 0);
        if (rc)
            return rc;
    }
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a, (void)rank;
    int r = rounds(c->n);
    k->msgs = (uint64_t)r;
    k->bytes = 0;
    k->rounds = r;
}

const torus__coll_alg torus__coll_barrier_dissemination = {
    .name = "dissemination",
    .op = TORUS_COLL_BARRIER,
    .summary = "log2 N rounds to i + 2^k (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
