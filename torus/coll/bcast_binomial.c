/*
 * bcast_binomial.c - binomial-tree broadcast.
 *
 * Algorithm: MPICH's short-message MPI_Bcast paper 000 sec. 3.1).  With
 *   ranks renumbered relative to the root (v = (i - root) mod N), rank v
 *   receives the whole message from v - lowbit(v), then sends it to
 *   v + 2^j for every 2^j below lowbit(v) (largest first) that is < N,
 *   all of them started before it waits for any.
 * Preconditions: none.
 * Cost: ceil(log2 N) rounds of the whole message,
 *   T = ceil(log2 N) (alpha + n beta).  Rank v sends one message of n
 *   bytes per child: the number of j with 2^j < lowbit(v) (the root: all
 *   2^j < N) and v + 2^j < N.
 */
#include "coll_impl.h"

/* lowbit(v) for v > 0; for the root the first power of two >= n */
static int top_mask(int v, int n)
{
    if (v)
        return v & -v;
    int m = 1;
    while (m < n)
        m <<= 1;
    return m;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, v = (c->me - a->root + n) % n, rc, bad = 0;
    int mask = top_mask(v, n);
    if (v) {
        rc = torus__recv(c, (v - mask + a->root) % n, a->buf, a->bytes);
        /* a longer message than expected (sizes differ between ranks):
         * still pass on what arrived, so the ranks below do not wait
         * forever, and report the error at the end */
        if (rc == TORUS_COLL_ETRUNC)
            bad = rc;
        else if (rc)
            return rc;
    }
    /* all children at once: a send above the library's eager limit waits
     * for its receiver, and one child that is slow to post (descheduled
     * when ranks outnumber cores) must not hold up its siblings */
    torus_req r[32];
    int k = 0;
    rc = 0;
    for (int m = mask >> 1; m > 0 && !rc; m >>= 1)
        if (v + m < n && !(rc = torus__isend(c, (v + m + a->root) % n, a->buf, a->bytes, &r[k])))
            k++;
    int wrc = torus__wait(c, r, k);
    return rc ? rc : wrc ? wrc : bad;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, v = (rank - a->root + n) % n, r = 0;
    for (int m = top_mask(v, n) >> 1; m > 0; m >>= 1)
        k->msgs += v + m < n;
    k->bytes = k->msgs * a->bytes;
    while ((1 << r) < n)
        r++;
    k->rounds = r;
    k->path_bytes = (double)r * (double)a->bytes;
}

const torus__coll_alg torus__coll_bcast_binomial = {
    .name = "binomial",
    .op = TORUS_COLL_BCAST,
    .summary = "binomial tree of the whole message (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
