/*
 * allreduce_hamiltonian.c - long-message allreduce pipelined along a
 * Hamiltonian path of the torus, reduced towards its end and broadcast
 * back.
 *
 * Algorithm: paper 000 sec. 3.1 (MPI_Reduce / MPI_Allreduce, Figure 2b):
 *   every rank receives from one neighbour only, so each rank does the
 *   same per-chunk work and the pipeline runs at one link's bandwidth.
 *   - The path is the boustrophedon ("snake") order of the coordinates:
 *     position p has mixed-radix digits a_d (dimension 0 fastest), and
 *     coordinate d is a_d, or k_d - 1 - a_d when floor(p / (k_0...k_d)) is
 *     odd.  Consecutive positions differ by one in one coordinate, so they
 *     are neighbours on any rectangular torus or mesh.
 *   - The vector is cut into chunks of as many whole elements as fit in
 *     CHUNK_BYTES (the last may be shorter; at least one chunk).  Reduce: position p receives the
 *     partial of chunk i from p - 1, combines partial first, own data
 *     second (a fixed order), and sends it to p + 1; the last position
 *     then holds the result.  Broadcast: the result of each chunk flows
 *     back along the reverse path, each rank forwarding it to p - 1.
 *   - Both phases are pipelined with up to WINDOW chunks in flight per
 *     direction, and they overlap: a rank interleaves its work in the
 *     order of the stage at which it falls due (reduce of chunk i at stage
 *     p + i, broadcast of chunk j at stage j + 2(N - 1) - p), which is also
 *     what makes the blocking waits deadlock-free: every wait depends only
 *     on work of strictly earlier stages on other ranks.
 *   Every rank's result is the last position's bits, copied.
 * Preconditions: none (any N, any shape, meshes included).
 * Cost: with n bytes in C = max(1, ceil(n / CHUNK_BYTES)) chunks of
 *   m = min(n, CHUNK_BYTES) bytes: 2(N - 1) + C - 1 pipeline stages,
 *   T = (2(N - 1) + C - 1)(alpha + m beta) + (N - 1 + C - 1) m gamma.
 *   The first position of the path sends C messages (n bytes in all),
 *   the last C (n bytes), every other rank 2C (2n bytes).
 */
#include "coll_impl.h"

#define CHUNK_BYTES 8192 /* 1024 elements: many chunks in flight at 64 KiB and beyond */
#define WINDOW 4         /* chunks in flight per direction (>= 2, see the stage argument) */

/* Position of `rank` on the snake path: the inverse of the order above,
 * from the slowest dimension down (block = floor(p / (k_0 ... k_d))). */
static int path_pos(const torus_coll *c, int rank)
{
    const torus_shape *s = &c->map->shape;
    const int *g = torus__coords(c, rank);
    long block = 0;
    for (int d = s->ndims - 1; d >= 0; d--) {
        int digit = block % 2 ? s->k[d] - 1 - g[d] : g[d];
        block = block * s->k[d] + digit;
    }
    return (int)block;
}

/* The rank at position p of the snake path. */
static int path_rank(const torus_coll *c, int p)
{
    const torus_shape *s = &c->map->shape;
    int g[TORUS_MAX_DIMS];
    long below = p; /* floor(p / (k_0 ... k_{d-1})) */
    for (int d = 0; d < s->ndims; d++) {
        int digit = (int)(below % s->k[d]);
        below /= s->k[d];
        g[d] = below % 2 ? s->k[d] - 1 - digit : digit;
    }
    return c->map->rank_of[torus_map_linear(s, g)];
}

typedef struct stream {
    torus_coll *c;
    const torus__coll_args *a;
    int pos, last, pred, succ, nchunks;
    unsigned char *slot;           /* WINDOW receive slots of CHUNK_BYTES (reduce phase) */
    torus_req *r1, *s1, *r2, *s2;  /* per chunk: reduce receive/send, broadcast receive/send */
    int posted2;                   /* broadcast receives posted so far */
} stream;

/* Elements per chunk: as many whole elements as fit in CHUNK_BYTES. */
static size_t per_chunk(size_t esize)
{
    return CHUNK_BYTES / esize;
}

static size_t chunk_elems(const stream *p, int i)
{
    size_t per = per_chunk(p->a->esize), left = p->a->count - (size_t)i * per;
    return left < per ? left : per;
}

static unsigned char *chunk_at(const stream *p, int i)
{
    return (unsigned char *)p->a->rbuf + (size_t)i * per_chunk(p->a->esize) * p->a->esize;
}

static int post_r1(stream *p, int i)
{
    if (i >= p->nchunks)
        return 0;
    return torus__irecv(p->c, p->pred, p->slot + (size_t)(i % WINDOW) * CHUNK_BYTES, chunk_elems(p, i) * p->a->esize, &p->r1[i]);
}

/* Posts broadcast receives (straight into the result buffer) up to chunk
 * `upto` - 1.  Chunk j's buffer is free once its own data has been
 * reduced (j < reduced) and its reduce-phase send has completed; that
 * send was matched by a receive the successor posted stages earlier. */
static int post_r2(stream *p, int upto)
{
    int rc = 0;
    for (; p->posted2 < upto && !rc; p->posted2++) {
        int j = p->posted2;
        rc = torus__wait(p->c, &p->s1[j], 1);
        if (!rc)
            rc = torus__irecv(p->c, p->succ, chunk_at(p, j), chunk_elems(p, j) * p->a->esize, &p->r2[j]);
    }
    return rc;
}

/* Reduce phase, chunk i: receive the partial, combine, pass it on. */
static int reduce_step(stream *p, int i)
{
    torus_coll *c = p->c;
    const torus__coll_args *a = p->a;
    int rc;
    size_t ne = chunk_elems(p, i);
    if (p->pos > 0) {
        if ((rc = torus__wait(c, &p->r1[i], 1)))
            return rc;
        torus__reduce3(c, chunk_at(p, i), p->slot + (size_t)(i % WINDOW) * CHUNK_BYTES, chunk_at(p, i), ne, a->dt,
                       a->rop);
        if ((rc = post_r1(p, i + WINDOW)))
            return rc;
    }
    if (p->pos < p->last) {
        if (i >= WINDOW && (rc = torus__wait(c, &p->s1[i - WINDOW], 1)))
            return rc;
        if ((rc = torus__isend(c, p->succ, chunk_at(p, i), ne * a->esize, &p->s1[i])))
            return rc;
    }
    return 0;
}

/* Broadcast phase, chunk j: receive the result (all but the last
 * position), pass it on towards position 0. */
static int bcast_step(stream *p, int j, int reduced)
{
    torus_coll *c = p->c;
    int rc;
    if (p->pos < p->last) {
        if ((rc = post_r2(p, reduced < j + WINDOW ? reduced : j + WINDOW)) || (rc = torus__wait(c, &p->r2[j], 1)))
            return rc;
    }
    if (p->pos > 0) {
        if (j >= WINDOW && (rc = torus__wait(c, &p->s2[j - WINDOW], 1)))
            return rc;
        if ((rc = torus__isend(c, p->pred, chunk_at(p, j), chunk_elems(p, j) * p->a->esize, &p->s2[j])))
            return rc;
    }
    return 0;
}

static int nchunks_of(size_t count, size_t esize)
{
    size_t per = per_chunk(esize), nc = (count + per - 1) / per;
    return nc ? (int)nc : 1;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    stream p = {.c = c, .a = a, .last = c->n - 1, .nchunks = nchunks_of(a->count, a->esize)};
    p.pos = path_pos(c, c->me);
    p.pred = p.pos > 0 ? path_rank(c, p.pos - 1) : -1;
    p.succ = p.pos < p.last ? path_rank(c, p.pos + 1) : -1;
    int nc = p.nchunks;
    p.slot = torus__scratch(c, (size_t)WINDOW * CHUNK_BYTES);
    p.r1 = torus__scratch(c, 4 * (size_t)nc * sizeof *p.r1);
    if (!p.slot || !p.r1)
        return torus__fail(c, TORUS_COLL_ENOMEM, "allreduce hamiltonian: out of memory for %d chunks", nc);
    p.s1 = p.r1 + nc;
    p.r2 = p.s1 + nc;
    p.s2 = p.r2 + nc;
    for (int i = 0; i < 4 * nc; i++)
        p.r1[i].id = -1;

    int rc = 0;
    for (int i = 0; i < WINDOW && p.pos > 0 && !rc; i++)
        rc = post_r1(&p, i);
    /* i: next chunk to reduce, j: next chunk to broadcast; the stage of
     * each decides which comes first (reduce first on a tie, which the
     * last position needs: it broadcasts chunk j right after reducing it) */
    int i = 0, j = 0, lag = 2 * (c->n - 1) - p.pos;
    while (!rc && (i < nc || j < nc)) {
        if (i < nc && (j >= nc || p.pos + i <= j + lag))
            rc = reduce_step(&p, i++);
        else
            rc = bcast_step(&p, j++, i);
    }
    /* every receive has been waited for; the last sends complete here (on
     * an error the peers may never match what is open, so do not wait) */
    if (rc || (rc = torus__wait(c, p.s1, nc)))
        return rc;
    return torus__wait(c, p.s2, nc);
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    int n = c->n, nc = nchunks_of(a->count, a->esize), pos = path_pos(c, rank);
    int dirs = (pos > 0) + (pos < n - 1); /* reduce-phase sends forward, broadcast-phase sends back */
    k->msgs = (uint64_t)dirs * (uint64_t)nc;
    size_t n_bytes = a->count * a->esize, chunk = per_chunk(a->esize) * a->esize;
    k->bytes = (uint64_t)dirs * n_bytes;
    double m = n_bytes < chunk ? (double)n_bytes : (double)chunk;
    k->rounds = 2.0 * (n - 1) + nc - 1;
    k->path_bytes = k->rounds * m;
    k->reduce_bytes = (double)(n - 1 + nc - 1) * m;
}

const torus__coll_alg torus__coll_allreduce_hamiltonian = {
    .name = "hamiltonian",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "chunks pipelined along a snake path and back (any shape)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
