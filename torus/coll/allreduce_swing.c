/*
 * allreduce_swing.c - Swing allreduce: reduce-scatter and allgather with
 * partners at short distances on every line of the torus.
 *
 * Algorithm: De Sensi et al., "Swing: Short-cutting Rings for Higher
 *   Bandwidth Allreduce", NSDI 2024 (after the papers this kit is built
 *   from).  In step s of a line of k ranks, the rank at coordinate r talks
 *   to pi(r, s) = r + rho(s) if r is even, r - rho(s) if odd (mod k), with
 *   rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, ...: distances 1, 1,
 *   3, 5, 11, 21, ..., where recursive doubling's grow as 2^s.  The
 *   log2(k_d) steps of the dimensions are interleaved round-robin
 *   (dimension 0, 1, ..., 0, 1, ...; a dimension drops out when its steps
 *   are done), L = sum_d log2(k_d) steps in all.
 *   - Lines whose size k_d is not a power of two are first folded onto
 *     their first p_d (the largest power of two <= k_d) coordinates, as
 *     MPICH folds recursive doubling (not the paper's own extension): for
 *     d = 0, 1, ..., a rank still in the box of coordinates < p_e (e < d)
 *     at coordinate c >= p_d sends its vector to c - p_d, which combines
 *     own partial first.  Swing then runs on the box of the p_d; at the end
 *     the folded ranks get the result back (dimensions in reverse order).
 *   - The vector is cut into B = prod p_d blocks, block b belonging to the
 *     box rank at mixed-radix box index b.  R(x, t), the ranks reached
 *     from x by steps t..L-1, has 2^(L-t) members, and R(x, t+1),
 *     R(pi_t(x), t+1) are disjoint (Swing's property on power-of-two lines,
 *     per dimension).
 *   - Reduce-scatter, t = 0..L-1: send the blocks of R(peer, t+1), receive
 *     the peer's partials of the blocks of R(me, t+1) and combine them, the
 *     partial of the partner with the lower coordinate first.  Afterwards
 *     each box rank holds the full reduction of its own block.
 *   - Allgather, t = L-1..0: send the finished blocks of R(me, t+1),
 *     receive those of R(peer, t+1).
 *   The bandwidth-optimal variant is the one implemented: each block is
 *   reduced on one rank only and copied everywhere, so every rank gets the
 *   same bits even for doubles.  (The latency-optimal variant, whole
 *   vectors combined at every step, cannot: on a line of 8 rank 0 ends
 *   with (x6..x1) + (x2..x5) and rank 1 with (x0..x3) + (x4..x7), and no
 *   order of operands makes those equal.)
 * Preconditions: none (any N, any shape).
 * Cost: with n bytes, B box ranks and F dimensions whose size is not a
 *   power of two, 2L + 2F rounds,
 *   T = (2L + 2F) alpha + (2 (B-1)/B + 2F) n beta + ((B-1)/B + F) n gamma.
 *   A box rank sends 2L messages: in reduce-scatter step t the blocks of
 *   R(peer_t, t+1), in allgather step t those of R(me, t+1), where block
 *   b has floor(count / B) elements plus one if b < count mod B (0-byte
 *   messages when count < B); plus one message of n bytes for every
 *   dimension d at which it hands the result on (c_d + p_d < k_d, all
 *   coordinates e <= d inside the box).  A folded rank sends one message
 *   of n bytes (its vector, in the fold).
 */
#include "coll_impl.h"

#include <string.h>

/* The step schedule and block layout shared by run() and cost(). */
typedef struct swing {
    const torus_coll *c;
    int nsteps, nfold;
    int dim[64], step[64];        /* step t: dimension, and step number on that dimension */
    int p[TORUS_MAX_DIMS];        /* the power-of-two part of each line */
    long stride[TORUS_MAX_DIMS];  /* linear position of coordinate 1 along d */
    long bstride[TORUS_MAX_DIMS]; /* the same in the box (block index) */
    long nblocks;
    size_t base, extra;           /* block b: base + (b < extra) elements */
} swing;

static void plan(swing *w, const torus_coll *c, size_t count)
{
    const torus_shape *s = &c->map->shape;
    int left[TORUS_MAX_DIMS], more = 1;
    long st = 1;
    w->c = c;
    w->nsteps = w->nfold = 0;
    w->nblocks = 1;
    for (int d = 0; d < s->ndims; d++) {
        w->stride[d] = st;
        st *= s->k[d];
        w->bstride[d] = w->nblocks;
        for (w->p[d] = 1, left[d] = 0; 2 * w->p[d] <= s->k[d]; w->p[d] *= 2)
            left[d]++;
        w->nblocks *= w->p[d];
        w->nfold += w->p[d] < s->k[d];
    }
    /* round-robin over the dimensions, so consecutive steps use different
     * links of the torus */
    for (int round = 0; more; round++) {
        more = 0;
        for (int d = 0; d < s->ndims; d++)
            if (round < left[d]) {
                w->dim[w->nsteps] = d;
                w->step[w->nsteps++] = round;
                more = 1;
            }
    }
    w->base = count / (size_t)w->nblocks;
    w->extra = count % (size_t)w->nblocks;
}

static int coord(const swing *w, long x, int d)
{
    return (int)(x / w->stride[d] % w->c->map->shape.k[d]);
}

/* pi_t(x): the linear position of x's partner in step t (inside the box). */
static long partner(const swing *w, long x, int t)
{
    int d = w->dim[t], k = w->p[d], r = coord(w, x, d);
    long long rho = 0, pw = 1;
    for (int i = 0; i <= w->step[t]; i++, pw *= -2)
        rho += pw;
    long long q = r % 2 == 0 ? r + rho : r - rho;
    q %= k;
    if (q < 0)
        q += k;
    return x + ((long)q - r) * w->stride[d];
}

/* R(x, t) into out (2^(nsteps - t) positions), in an order that depends
 * only on x and t, so sender and receiver list a set alike. */
static int reach(const swing *w, long x, int t, long *out)
{
    int n = 1;
    out[0] = x;
    for (int u = t; u < w->nsteps; u++, n *= 2)
        for (int i = 0; i < n; i++)
            out[n + i] = partner(w, out[i], u);
    return n;
}

/* Block of box position x: its mixed-radix index in the box. */
static long block_of(const swing *w, long x)
{
    long b = 0;
    for (int d = 0; d < w->c->map->shape.ndims; d++)
        b += coord(w, x, d) * w->bstride[d];
    return b;
}

static size_t block_len(const swing *w, long x)
{
    return w->base + ((size_t)block_of(w, x) < w->extra);
}

static size_t block_off(const swing *w, long x)
{
    size_t b = (size_t)block_of(w, x);
    return b * w->base + (b < w->extra ? b : w->extra);
}

/* Elements of R(x, t), walked without a list (for cost()). */
static size_t reach_elems(const swing *w, long x, int t)
{
    if (t == w->nsteps)
        return block_len(w, x);
    return reach_elems(w, x, t + 1) + reach_elems(w, partner(w, x, t), t + 1);
}

/* Copies the blocks of set into out; returns their elements. */
static size_t pack(const swing *w, const unsigned char *v, const long *set, int n, unsigned char *out, size_t es)
{
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        size_t len = block_len(w, set[i]);
        memcpy(out + o * es, v + block_off(w, set[i]) * es, len * es);
        o += len;
    }
    return o;
}

static size_t set_elems(const swing *w, const long *set, int n)
{
    size_t e = 0;
    for (int i = 0; i < n; i++)
        e += block_len(w, set[i]);
    return e;
}

/* 1 when coordinates 0..d-1 of g are inside the box: the rank still takes
 * part after folding dimensions 0..d-1. */
static int inside_below(const swing *w, const int *g, int d)
{
    for (int e = 0; e < d; e++)
        if (g[e] >= w->p[e])
            return 0;
    return 1;
}

/* Swing on the box: reduce-scatter, then allgather. */
static int box_allreduce(torus_coll *c, const torus__coll_args *a, const swing *w, long me, long *sset, long *rset,
                         unsigned char *sb, unsigned char *rb)
{
    unsigned char *v = a->rbuf;
    size_t es = a->esize;
    for (int t = 0; t < w->nsteps; t++) {
        long y = partner(w, me, t);
        int peer = c->map->rank_of[y], d = w->dim[t];
        int ns = reach(w, y, t + 1, sset), nr = reach(w, me, t + 1, rset);
        size_t se = pack(w, v, sset, ns, sb, es), re = set_elems(w, rset, nr);
        int rc = torus__sendrecv(c, peer, sb, se * es, peer, rb, re * es);
        if (rc)
            return rc;
        int mine_first = coord(w, me, d) < coord(w, y, d);
        size_t o = 0;
        for (int i = 0; i < nr; i++) {
            size_t len = block_len(w, rset[i]);
            unsigned char *dst = v + block_off(w, rset[i]) * es, *theirs = rb + o * es;
            if (len)
                torus__reduce3(c, dst, mine_first ? dst : theirs, mine_first ? theirs : dst, len, a->dt, a->rop);
            o += len;
        }
    }
    for (int t = w->nsteps - 1; t >= 0; t--) {
        long y = partner(w, me, t);
        int peer = c->map->rank_of[y];
        int ns = reach(w, me, t + 1, sset), nr = reach(w, y, t + 1, rset);
        size_t se = pack(w, v, sset, ns, sb, es), re = set_elems(w, rset, nr);
        int rc = torus__sendrecv(c, peer, sb, se * es, peer, rb, re * es);
        if (rc)
            return rc;
        size_t o = 0;
        for (int i = 0; i < nr; i++) {
            size_t len = block_len(w, rset[i]);
            memcpy(v + block_off(w, rset[i]) * es, rb + o * es, len * es);
            o += len;
        }
    }
    return 0;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    swing w;
    plan(&w, c, a->count);
    const torus_shape *s = &c->map->shape;
    const int *g = torus__coords(c, c->me);
    long me = torus_map_linear(s, g);
    long *sset = torus__scratch(c, (size_t)w.nblocks * sizeof *sset);
    long *rset = torus__scratch(c, (size_t)w.nblocks * sizeof *rset);
    /* a set of blocks never holds more than the whole vector */
    unsigned char *sb = torus__scratch(c, a->bytes), *rb = torus__scratch(c, a->bytes);
    if (!sset || !rset || !sb || !rb)
        return torus__fail(c, TORUS_COLL_ENOMEM, "allreduce swing: out of memory for %zu bytes", a->bytes);

    int rc = 0;
    /* fold: each step only involves ranks still inside the box below d, and
     * a rank that sends is outside from then on, so the chain of steps
     * runs in increasing d and cannot wait in a circle */
    for (int d = 0; d < s->ndims && !rc; d++) {
        if (w.p[d] == s->k[d] || !inside_below(&w, g, d))
            continue;
        if (g[d] >= w.p[d]) {
            rc = torus__send(c, torus__line_rank(c, c->me, d, g[d] - w.p[d]), a->rbuf, a->bytes);
        } else if (g[d] + w.p[d] < s->k[d]) {
            rc = torus__recv(c, torus__line_rank(c, c->me, d, g[d] + w.p[d]), rb, a->bytes);
            if (!rc)
                torus__reduce3(c, a->rbuf, a->rbuf, rb, a->count, a->dt, a->rop);
        }
    }
    if (!rc && inside_below(&w, g, s->ndims))
        rc = box_allreduce(c, a, &w, me, sset, rset, sb, rb);
    /* unfold in reverse order: the ranks inside the box up to d hand the
     * result to the rank that folded onto them at d */
    for (int d = s->ndims - 1; d >= 0 && !rc; d--) {
        if (w.p[d] == s->k[d] || !inside_below(&w, g, d))
            continue;
        if (g[d] >= w.p[d])
            rc = torus__recv(c, torus__line_rank(c, c->me, d, g[d] - w.p[d]), a->rbuf, a->bytes);
        else if (g[d] + w.p[d] < s->k[d])
            rc = torus__send(c, torus__line_rank(c, c->me, d, g[d] + w.p[d]), a->rbuf, a->bytes);
    }
    return rc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    swing w;
    plan(&w, c, a->count);
    const torus_shape *s = &c->map->shape;
    const int *g = torus__coords(c, rank);
    long me = torus_map_linear(s, g);
    uint64_t msgs = 0, elems = 0;
    for (int d = 0; d < s->ndims; d++)
        if (w.p[d] < s->k[d] && inside_below(&w, g, d) &&
            (g[d] >= w.p[d] || g[d] + w.p[d] < s->k[d])) { /* fold send, or unfold send */
            msgs++;
            elems += a->count;
        }
    if (inside_below(&w, g, s->ndims)) {
        msgs += 2 * (uint64_t)w.nsteps;
        for (int t = 0; t < w.nsteps; t++)
            elems += reach_elems(&w, partner(&w, me, t), t + 1) + reach_elems(&w, me, t + 1);
    }
    double b = (double)w.nblocks, n = (double)a->bytes;
    k->msgs = msgs;
    k->bytes = elems * a->esize;
    k->rounds = 2.0 * (w.nsteps + w.nfold);
    k->path_bytes = (2.0 * (b - 1) / b + 2.0 * w.nfold) * n;
    k->reduce_bytes = ((b - 1) / b + w.nfold) * n;
}

const torus__coll_alg torus__coll_allreduce_swing = {
    .name = "swing",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "Swing reduce-scatter + allgather, distances 1, 1, 3, 5, 11 (any shape; non-power-of-two lines folded)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
