/*
 * alltoallv_bruck.c - Bruck's alltoall for small uniform blocks.
 *
 * Algorithm: Bruck, Ho, Kipnis, Upfal and Weathersby (IEEE TPDS 1997),
 *   MPICH's short-message MPI_Alltoall.  With blocks of m bytes:
 *   1. rotate: block j of the working array holds what I send to
 *      (me + j) mod N;
 *   2. for k = 0, 1, ... while 2^k < N: send to (me + 2^k) mod N every
 *      block whose index j has bit k set, packed, and receive from
 *      (me - 2^k) mod N the same indices into those places;
 *   3. block j now holds what (me - j) mod N sent me: unrotate into rbuf.
 *   Each block travels at most log2 N times, in log2 N messages instead
 *   of N - 1.
 * Preconditions: uniform blocks (a->uniform: every rank sends m bytes to
 *   every rank, a fact they share); any N.
 * Cost: R = ceil(log2 N) rounds, T = R alpha + R ceil(N/2) m beta (at most:
 *   round k carries the blocks j < N with bit k set).  Every rank sends R
 *   messages; round k carries cnt_k m bytes, cnt_k = #{0 < j < N : bit k
 *   of j set}, 0-byte messages included when m = 0.
 */
#include "coll_impl.h"

#include <string.h>

static int ok(const torus_coll *c, const torus__coll_args *a)
{
    (void)c;
    return a->uniform;
}

/* blocks j in 1..n-1 with bit k set */
static size_t count_bit(int n, int k)
{
    size_t cnt = 0;
    for (int j = 1; j < n; j++)
        cnt += (j >> k) & 1;
    return cnt;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, me = c->me, rc = 0;
    size_t m = a->bytes;
    const unsigned char *s = a->sbuf;
    unsigned char *r = a->rbuf;
    unsigned char *w = torus__scratch(c, (size_t)n * m + 1);
    unsigned char *pack = torus__scratch(c, (size_t)n * m + 1);
    unsigned char *unpack = torus__scratch(c, (size_t)n * m + 1);
    if (!w || !pack || !unpack)
        return torus__fail(c, TORUS_COLL_ENOMEM, "bruck: out of memory for %d blocks of %zu bytes", n, m);
    for (int j = 0; j < n; j++)
        memcpy(w + (size_t)j * m, s + a->sdispls[(me + j) % n], m);
    for (int k = 0; (1 << k) < n; k++) {
        size_t cnt = count_bit(n, k), o = 0;
        for (int j = 1; j < n; j++)
            if ((j >> k) & 1) {
                memcpy(pack + o, w + (size_t)j * m, m);
                o += m;
            }
        rc = torus__sendrecv(c, (me + (1 << k)) % n, pack, cnt * m, (me - (1 << k) % n + n) % n, unpack, cnt * m);
        if (rc)
            return rc;
        o = 0;
        for (int j = 1; j < n; j++)
            if ((j >> k) & 1) {
                memcpy(w + (size_t)j * m, unpack + o, m);
                o += m;
            }
    }
    /* block j came from (me - j) mod N */
    for (int j = 0; j < n; j++)
        memcpy(r + a->rdispls[(me - j + n) % n], w + (size_t)j * m, m);
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)rank;
    int n = c->n;
    for (int b = 0; (1 << b) < n; b++) {
        size_t cnt = count_bit(n, b);
        k->msgs++;
        k->bytes += cnt * a->bytes;
        k->rounds++;
        k->path_bytes += (double)(cnt * a->bytes);
    }
}

const torus__coll_alg torus__coll_alltoallv_bruck = {
    .name = "bruck",
    .op = TORUS_COLL_ALLTOALLV,
    .summary = "log2 N rounds of packed blocks (uniform blocks only)",
    .ok = ok,
    .run = run,
    .cost = cost,
};
