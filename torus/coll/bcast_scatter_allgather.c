/*
 * bcast_scatter_allgather.c - scatter + ring allgather broadcast.
 *
 * Algorithm: MPICH's long-message MPI_Bcast paper 000 sec. 3.1: "a
 *   binomial tree scatter followed by an allgather"; Van de Geijn's
 *   scheme, Thakur, Rabenseifner and Gropp 2005).  With ranks renumbered
 *   relative to the root (v = (i - root) mod N) the message is cut into N
 *   pieces of s = ceil(n/N) bytes, piece j at offset j*s (the last pieces
 *   shorter, empty when n < N*s reaches past the end).
 *   1. Scatter: a binomial tree in which rank v receives pieces
 *      [v, v + lowbit(v)) from v - lowbit(v) and hands pieces
 *      [v + m, v + 2m) to v + m for every m < lowbit(v) (largest first).
 *   2. Ring allgather: in step i = 0 .. N-2 rank v sends piece (v - i)
 *      mod N to v + 1 and receives piece (v - i - 1) mod N from v - 1.
 *   A message whose byte range is empty is not sent, and its receiver,
 *   which knows the same sizes, does not post it.
 * Preconditions: none (any N, any root, any size; n < N leaves pieces
 *   empty).
 * Cost: T = (ceil(log2 N) + N - 1) alpha + 2 (N-1)/N n beta (the root
 *   sends (N-1)/N n in sequence in the scatter, every rank (N-1) pieces
 *   in the ring).  Rank v sends one message per child v + m of its
 *   non-empty byte range [(v+m) s, min((v+2m) s, n)) (m and children as
 *   in the binomial tree, v + m < N), then one message per non-empty
 *   piece other than piece (v + 1) mod N: n - size(piece v+1) bytes.
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

/* Byte offset of piece j (pieces past the end start at the end). */
static size_t piece_off(size_t s, size_t bytes, int j)
{
    size_t o = s * (size_t)j;
    return o < bytes ? o : bytes;
}

/* Bytes of pieces [lo, hi). */
static size_t range_bytes(size_t s, size_t bytes, int lo, int hi)
{
    return piece_off(s, bytes, hi) - piece_off(s, bytes, lo);
}

static size_t piece_size(size_t bytes, int n)
{
    return bytes / (size_t)n + (bytes % (size_t)n != 0);
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    int n = c->n, root = a->root, v = (c->me - root + n) % n, rc;
    unsigned char *buf = a->buf;
    size_t s = piece_size(a->bytes, n), b = a->bytes;
    int mask = top_mask(v, n);
    /* scatter: my subtree's pieces from my parent, then my children's */
    if (v) {
        int hi = v + mask < n ? v + mask : n;
        size_t len = range_bytes(s, b, v, hi);
        if (len && (rc = torus__recv(c, (v - mask + root) % n, buf + piece_off(s, b, v), len)))
            return rc;
    }
    for (int m = mask >> 1; m > 0; m >>= 1) {
        if (v + m >= n)
            continue;
        int hi = v + 2 * m < n ? v + 2 * m : n;
        size_t len = range_bytes(s, b, v + m, hi);
        if (len && (rc = torus__send(c, (v + m + root) % n, buf + piece_off(s, b, v + m), len)))
            return rc;
    }
    /* ring allgather: receive before sending, so rendezvous sends all
     * around the ring find their receive posted */
    int right = (v + 1 + root) % n, left = (v - 1 + n + root) % n;
    for (int i = 0; i < n - 1; i++) {
        int sp = ((v - i) % n + n) % n, rp = ((v - i - 1) % n + n) % n;
        size_t slen = range_bytes(s, b, sp, sp + 1), rlen = range_bytes(s, b, rp, rp + 1);
        torus_req r[2] = {{-1}, {-1}};
        if (rlen && (rc = torus__irecv(c, left, buf + piece_off(s, b, rp), rlen, &r[0])))
            return rc;
        if (slen && (rc = torus__isend(c, right, buf + piece_off(s, b, sp), slen, &r[1]))) {
            torus__wait(c, r, 1);
            return rc;
        }
        if ((rc = torus__wait(c, r, 2)))
            return rc;
    }
    return 0;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, v = (rank - a->root + n) % n, r = 0;
    size_t s = piece_size(a->bytes, n), b = a->bytes, root_sent = 0;
    for (int m = top_mask(v, n) >> 1; m > 0; m >>= 1) {
        if (v + m >= n)
            continue;
        size_t len = range_bytes(s, b, v + m, v + 2 * m < n ? v + 2 * m : n);
        k->msgs += len != 0;
        k->bytes += len;
    }
    for (int m = top_mask(0, n) >> 1; m > 0; m >>= 1)
        if (m < n)
            root_sent += range_bytes(s, b, m, 2 * m < n ? 2 * m : n);
    /* ring: every non-empty piece except my right neighbour's */
    int skip = (v + 1) % n;
    for (int j = 0; j < n; j++) {
        size_t len = range_bytes(s, b, j, j + 1);
        if (j != skip && len) {
            k->msgs++;
            k->bytes += len;
        }
    }
    while ((1 << r) < n)
        r++;
    k->rounds = r + n - 1;
    k->path_bytes = (double)root_sent + (double)(n - 1) * (double)(s < b ? s : b);
}

const torus__coll_alg torus__coll_bcast_scatter_allgather = {
    .name = "scatter_allgather",
    .op = TORUS_COLL_BCAST,
    .summary = "binomial scatter of N pieces, then ring allgather (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
