/*
 * bcast_multistream.c - multi-stream pipelined broadcast on the torus.
 *
 * Algorithm: paper 000 sec. 3.1 and Figure 1 (after Watts and van de
 *   Geijn): the message is cut into D pieces (D = dimensions of size > 1,
 *   e_0 .. e_{D-1}), piece s = bytes [s P, (s+1) P), P = ceil(n/D), and
 *   piece s travels its own spanning tree, "stream" s, of straight lines
 *   taken in the dimension order o_j = e_{(s+j) mod D}, a = o_0:
 *   1. the root sends along its a-line;
 *   2. every node of that line but the root starts, in its slice
 *      x_a = const, a dimension-ordered broadcast over o_1 .. o_{D-1}:
 *      lines along o_1 from it, then lines along o_2 from every node of
 *      those, and so on;
 *   3. the root's own slice x_a = root_a (the root excepted) gets the
 *      piece last, one hop along a from the neighbouring slice
 *      f = root_a + 1 (root_a - 1 on a mesh whose root sits at the end).
 *   Every line starts at the root's coordinate of its dimension and runs
 *   both ways: on a mesh to both ends, on a ring the two halves (floor(k/2)
 *   nodes in the + direction, the rest in the - direction).  So no
 *   directed link carries two streams: a stream's lines along e_t (t !=
 *   its own s) lie in slices x_{e_s} != root, and the stream of e_t needs
 *   x_{e_s} == root for the same lines (the orders are rotations of one
 *   cycle), its own root line included; step 3's hops run inwards, f ->
 *   root_a, where every line runs outwards.  Each stream has one parent
 *   per node, every (sender, receiver) pair belongs to one stream.
 *   Deposit bit (paper 000 sec. 3.1: "Packets traveling along these
 *   lines can have their deposit bit turned on. The processors receiving
 *   these packets don't have to re-send them"): where the transport has
 *   line_send (the simulators), each line of a tree is ONE line send from
 *   its first node, received by every node of the line from that node;
 *   only the nodes that turn the stream into a later dimension (and the
 *   step-3 hops) inject again.  Over MPI the lines stay chains.
 *   Pipelining: a piece is cut into chunks of CHUNK bytes (fewer for small
 *   pieces, none for an empty one); every node posts all its receives at
 *   the start, straight into the message buffer, and forwards each chunk
 *   to its children (next on its line, then the first nodes of its later
 *   lines, then its step-3 hop; with the deposit bit: its later lines,
 *   then its step-3 hop) as soon as it arrives, whichever stream it
 *   belongs to.  The root starts chunk c of every stream before chunk
 *   c + 1 of any, so all streams run from the start.  With one dimension
 *   of size > 1 this is a pipelined line (ring halves) broadcast.
 * Preconditions: at least one dimension of size > 1 (any N > 1, any
 *   root, meshes, sizes 1 and 2).
 * Cost: with h(d) = hops to the end of the longest branch of a line along
 *   d from the root's coordinate (floor(k/2) on a ring, max(c, k-1-c) on
 *   a mesh), stream s has depth H_s = h(a) for D = 1, else
 *   max(h(a), 2) + sum_{j>=1} h(o_j) (chains), or H_s = D + 1 for D > 1
 *   and 1 for D = 1 with the deposit bit (one line send per dimension,
 *   then the step-3 hop), and c_s = ceil(piece_s / CHUNK) chunks, so
 *   T = max_s (H_s + c_s - 1) (alpha + CHUNK beta): the streams run at
 *   once on disjoint links, up to D links' bandwidth (paper 000 doubles
 *   that with both directions of a torus; we use the second direction
 *   for the ring halves instead).  Where messages cost CPU time per
 *   packet, the turn nodes, which send each chunk of their stream up to
 *   2 D - 1 times (chains), bound the rate, as paper 000 found ("no more
 *   than two network links worth"); with the deposit bit every node
 *   reads each packet once and a turn node writes it once per direction
 *   of each later line.  A rank sends c_s messages and piece_s bytes per
 *   child in stream s: chains, at most 2 D - 1 children (the root 2 per
 *   stream, a root-slice node none); with the deposit bit a line send
 *   along d counts k_d - 1 messages (every rank of the line receives
 *   one) plus one per step-3 child.
 */
#include "coll_impl.h"


/* Pipeline chunk.  The best chunk balances the pipeline's fill, H - 1
 * chunk times, against the per-message overhead alpha of every chunk:
 * c* = sqrt(piece alpha / ((H - 1) beta)), about 5 KiB for 1 MiB on a
 * BG/L 8x8x8 torus with chains (alpha ~ 5 us, 154 MB/s, H = 12) and tens
 * of KiB over shared memory, where H is small.  On the timed simulator
 * with collbench's bgl costs, chains, 1 MiB from rank 0 took 5.2/5.0 ms
 * on 8x8x8/4x4x4 with 8 KiB chunks, 6.6/6.2 with 4 KiB and 5.2/4.4 with
 * 16 KiB, but 16 KiB chunks fill the pipeline so slowly that 64 KiB and
 * 256 KiB took 1.7x and 1.3x as long on 8x8x8 as with 8 KiB (figures
 * of the link model before per-link intervals).  With the deposit bit
 * (H = 4 on 8x8x8) and 8 KiB, 1 MiB takes 2.7 ms (issue 11's report). */
#define CHUNK ((size_t)8192)

/* The dimensions of size > 1, in dimension order. */
typedef struct streams {
    int nd;
    int dim[TORUS_MAX_DIMS];
} streams;

static int streams_of(const torus_shape *sh, streams *g)
{
    g->nd = 0;
    for (int d = 0; d < sh->ndims; d++)
        if (sh->k[d] > 1)
            g->dim[g->nd++] = d;
    return g->nd;
}

static int ok(const torus_coll *c, const torus__coll_args *a)
{
    streams g;
    (void)a;
    return streams_of(&c->map->shape, &g) > 0;
}

/* ---- one line: nodes 0 .. k-1, source p, branches both ways ------------ */

/* Nodes of the + and - branches. */
static int branch_len(const torus_shape *sh, int d, int p, int dir)
{
    int k = sh->k[d];
    if (sh->mesh[d])
        return dir > 0 ? k - 1 - p : p;
    return dir > 0 ? k / 2 : (k - 1) / 2;
}

/* Hops to the farthest node of the line. */
static int line_depth(const torus_shape *sh, int d, int p)
{
    int up = branch_len(sh, d, p, 1), down = branch_len(sh, d, p, -1);
    return up > down ? up : down;
}

/* The first node of a branch, -1 if it is empty. */
static int branch_first(const torus_shape *sh, int d, int p, int dir)
{
    int k = sh->k[d];
    return branch_len(sh, d, p, dir) ? (p + dir + k) % k : -1;
}

/* Node q != p: its branch direction and distance from p. */
static int branch_of(const torus_shape *sh, int d, int p, int q, int *dist)
{
    int k = sh->k[d];
    if (sh->mesh[d]) {
        *dist = q > p ? q - p : p - q;
        return q > p ? 1 : -1;
    }
    int up = (q - p + k) % k;
    if (up <= k / 2) {
        *dist = up;
        return 1;
    }
    *dist = k - up;
    return -1;
}

/* The predecessor of node q (p for a first node). */
static int line_prev(const torus_shape *sh, int d, int p, int q)
{
    int dist, dir = branch_of(sh, d, p, q, &dist), k = sh->k[d];
    return (q - dir + k) % k;
}

/* The successor of node q, -1 at the end of its branch. */
static int line_next(const torus_shape *sh, int d, int p, int q)
{
    int dist, dir = branch_of(sh, d, p, q, &dist), k = sh->k[d];
    return dist < branch_len(sh, d, p, dir) ? (q + dir + k) % k : -1;
}

/* The slice next to the root's along a, whose nodes feed the root's. */
static int feeder(const torus_shape *sh, int a, int ra)
{
    int k = sh->k[a];
    if (sh->mesh[a])
        return ra + 1 < k ? ra + 1 : ra - 1;
    return (ra + 1) % k;
}

/* ---- one stream's tree -------------------------------------------------- */

/* Rank x's parent in stream s (-1 at the root) and its children in
 * sending order; returns how many (at most 2 D). */
static int tree(const torus_coll *c, const streams *g, int s, int root, int x, int *parent, int *kids)
{
    const torus_shape *sh = &c->map->shape;
    const int *xc = torus__coords(c, x), *rc = torus__coords(c, root);
    int nd = g->nd, a = g->dim[s], nk = 0;
#define ORDER(j) (g->dim[(s + (j)) % nd])
    *parent = -1;
    if (x == root) {
        for (int dir = 1; dir >= -1; dir -= 2) {
            int q = branch_first(sh, a, rc[a], dir);
            if (q >= 0)
                kids[nk++] = torus__line_rank(c, x, a, q);
        }
        return nk;
    }
    int f = feeder(sh, a, rc[a]);
    if (xc[a] == rc[a]) { /* step 3 */
        *parent = torus__line_rank(c, x, a, f);
        return 0;
    }
    /* the phase j in which x receives: its last dimension off the root's */
    int j = 0;
    for (int t = nd - 1; t >= 1 && !j; t--)
        if (xc[ORDER(t)] != rc[ORDER(t)])
            j = t;
    int d = ORDER(j);
    *parent = torus__line_rank(c, x, d, line_prev(sh, d, rc[d], xc[d]));
    int nx = line_next(sh, d, rc[d], xc[d]);
    if (nx >= 0)
        kids[nk++] = torus__line_rank(c, x, d, nx);
    for (int t = j + 1; t < nd; t++)
        for (int dir = 1; dir >= -1; dir -= 2) {
            int e = ORDER(t), q = branch_first(sh, e, rc[e], dir);
            if (q >= 0)
                kids[nk++] = torus__line_rank(c, x, e, q);
        }
    if (j >= 1 && xc[a] == f)
        kids[nk++] = torus__line_rank(c, x, a, rc[a]);
#undef ORDER
    return nk;
}

/* Rank x's place in stream s with the deposit bit: the same lines, but
 * each line is ONE line send from its first node (the root's coordinate
 * along it) that every node of the line receives, instead of a chain.
 * Its parent (-1 at the root), the dimensions it line-sends along in
 * order (*nl of them) and its point-to-point children (the step-3 hop);
 * returns how many of those.  A (sender, receiver) pair still belongs to
 * one stream: a line parent y of x differs from x only along e = o_j
 * and has the root's coordinate there, and x equals the root along the
 * dimensions after e in the stream's order but differs along its first
 * one; two rotations of one cycle cannot both leave e's successors up to
 * their first dimension with x off the root in one and on it in the other. */
static int tree_deposit(const torus_coll *c, const streams *g, int s, int root, int x, int *parent, int *lines,
                        int *nl, int *kids)
{
    const torus_shape *sh = &c->map->shape;
    const int *xc = torus__coords(c, x), *rc = torus__coords(c, root);
    int nd = g->nd, a = g->dim[s], nk = 0;
#define ORDER(j) (g->dim[(s + (j)) % nd])
    *parent = -1;
    *nl = 0;
    if (x == root) {
        lines[(*nl)++] = a;
        return 0;
    }
    int f = feeder(sh, a, rc[a]);
    if (xc[a] == rc[a]) { /* step 3 */
        *parent = torus__line_rank(c, x, a, f);
        return 0;
    }
    int j = 0;
    for (int t = nd - 1; t >= 1 && !j; t--)
        if (xc[ORDER(t)] != rc[ORDER(t)])
            j = t;
    int d = ORDER(j);
    *parent = torus__line_rank(c, x, d, rc[d]);
    for (int t = j + 1; t < nd; t++)
        lines[(*nl)++] = ORDER(t);
    if (j >= 1 && xc[a] == f)
        kids[nk++] = torus__line_rank(c, x, a, rc[a]);
#undef ORDER
    return nk;
}

/* Where the transport has the deposit bit (line_send), the streams use it. */
static int deposit(const torus_coll *c)
{
    return c->tp->line_send != NULL;
}

/* Rank x's place in stream s, either way: parent, line sends, children. */
static int place(const torus_coll *c, const streams *g, int s, int root, int x, int *parent, int *lines, int *nl,
                 int *kids)
{
    if (deposit(c))
        return tree_deposit(c, g, s, root, x, parent, lines, nl, kids);
    *nl = 0;
    return tree(c, g, s, root, x, parent, kids);
}

/* Messages one chunk costs a rank with these line sends and children. */
static uint64_t fanout(const torus_shape *sh, const int *lines, int nl, int nk)
{
    uint64_t m = (uint64_t)nk;
    for (int i = 0; i < nl; i++)
        m += (uint64_t)(sh->k[lines[i]] - 1);
    return m;
}

/* Stream s's piece of the message. */
static void piece(size_t bytes, int nd, int s, size_t *off, size_t *len)
{
    size_t p = bytes / (size_t)nd + (bytes % (size_t)nd != 0), lo = p * (size_t)s, hi = lo + p;
    lo = lo < bytes ? lo : bytes;
    hi = hi < bytes ? hi : bytes;
    *off = lo;
    *len = hi - lo;
}

static size_t nchunks(size_t len)
{
    return len / CHUNK + (len % CHUNK != 0);
}

/* torus__wait for the first of n requests to complete.  Returns its
 * index, or a negative error. */
static int wait_any(torus_coll *c, torus_req *const *r, int n)
{
    for (;;) {
        for (int i = 0; i < n; i++) {
            int rc = torus__test(c, r[i]);
            if (rc < 0)
                return rc;
            if (rc)
                return i;
        }
        torus__idle(c);
    }
}

typedef struct stream_state {
    size_t off, len, nch, next; /* next: the chunk to forward */
    int parent, nk, nl;
    int kids[2 * TORUS_MAX_DIMS];
    int lines[TORUS_MAX_DIMS]; /* deposit bit: dimensions to line-send along */
    torus_req *recv; /* nch requests */
} stream_state;

static int forward(torus_coll *c, stream_state *st, size_t ch, unsigned char *buf, torus_req *sreq, size_t *ns)
{
    size_t lo = st->off + ch * CHUNK, hi = lo + CHUNK < st->off + st->len ? lo + CHUNK : st->off + st->len;
    for (int i = 0; i < st->nl; i++) {
        int n = (int)*ns, rc = torus__line_send(c, st->lines[i], buf + lo, hi - lo, sreq, &n);
        *ns = (size_t)n;
        if (rc)
            return rc;
    }
    for (int i = 0; i < st->nk; i++) {
        int rc = torus__isend(c, st->kids[i], buf + lo, hi - lo, &sreq[*ns]);
        if (rc)
            return rc;
        ++*ns;
    }
    return 0;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    streams g;
    int nd = streams_of(&c->map->shape, &g), rc = 0;
    unsigned char *buf = a->buf;
    stream_state *st = torus__scratch(c, (size_t)nd * sizeof *st);
    torus_req **wait_on = torus__scratch(c, (size_t)nd * sizeof *wait_on);
    int *which = torus__scratch(c, (size_t)nd * sizeof *which);
    if (!st || !wait_on || !which)
        return torus__fail(c, TORUS_COLL_ENOMEM, "bcast: out of memory for %d streams", nd);
    size_t nsend_max = 0, ns = 0;
    for (int s = 0; s < nd; s++) {
        stream_state *t = &st[s];
        piece(a->bytes, nd, s, &t->off, &t->len);
        t->nch = nchunks(t->len);
        t->next = 0;
        t->nk = place(c, &g, s, a->root, c->me, &t->parent, t->lines, &t->nl, t->kids);
        nsend_max += t->nch * (size_t)fanout(&c->map->shape, t->lines, t->nl, t->nk);
        t->recv = torus__scratch(c, (t->nch ? t->nch : 1) * sizeof *t->recv);
        if (!t->recv)
            return torus__fail(c, TORUS_COLL_ENOMEM, "bcast: out of memory for %zu requests", t->nch);
    }
    torus_req *sreq = torus__scratch(c, (nsend_max ? nsend_max : 1) * sizeof *sreq);
    if (!sreq)
        return torus__fail(c, TORUS_COLL_ENOMEM, "bcast: out of memory for %zu requests", nsend_max);
    /* every receive posted before anything is awaited: a parent's sends
     * (rendezvous included) then complete whatever order it forwards in */
    for (int s = 0; s < nd; s++) {
        stream_state *t = &st[s];
        if (t->parent < 0)
            continue;
        for (size_t ch = 0; ch < t->nch; ch++) {
            size_t lo = t->off + ch * CHUNK, len = t->len - ch * CHUNK < CHUNK ? t->len - ch * CHUNK : CHUNK;
            if ((rc = torus__irecv(c, t->parent, buf + lo, len, &t->recv[ch])))
                return rc;
        }
    }
    /* the root has every chunk: start all its sends, chunk ch of every
     * stream before chunk ch + 1 of any, so that all streams start at
     * once (stream by stream, the last would start only after the root
     * had written the pieces of all the others) */
    size_t most = 0;
    for (int s = 0; s < nd; s++)
        most = st[s].parent < 0 && st[s].nch > most ? st[s].nch : most;
    for (size_t ch = 0; ch < most; ch++)
        for (int s = 0; s < nd; s++)
            if (st[s].parent < 0 && ch < st[s].nch && (rc = forward(c, &st[s], ch, buf, sreq, &ns)))
                return rc;
    /* forward each stream's chunks in order (a child matches them by
     * order), whichever stream's next chunk lands first */
    for (;;) {
        int nw = 0;
        for (int s = 0; s < nd; s++)
            if (st[s].parent >= 0 && st[s].next < st[s].nch) {
                which[nw] = s;
                wait_on[nw++] = &st[s].recv[st[s].next];
            }
        if (!nw)
            break;
        int i = wait_any(c, wait_on, nw);
        if (i < 0)
            return i;
        stream_state *t = &st[which[i]];
        if ((rc = forward(c, t, t->next, buf, sreq, &ns)))
            return rc;
        t->next++;
    }
    return torus__wait(c, sreq, (int)ns);
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    streams g;
    const torus_shape *sh = &c->map->shape;
    const int *rc = torus__coords(c, a->root);
    int nd = streams_of(sh, &g), kids[2 * TORUS_MAX_DIMS], lines[TORUS_MAX_DIMS], nl, parent;
    for (int s = 0; s < nd; s++) {
        size_t off, len;
        piece(a->bytes, nd, s, &off, &len);
        size_t nch = nchunks(len);
        int nk = place(c, &g, s, a->root, rank, &parent, lines, &nl, kids);
        uint64_t fan = fanout(sh, lines, nl, nk);
        k->msgs += (uint64_t)nch * fan;
        k->bytes += (uint64_t)len * fan;
        if (!nch)
            continue;
        int ha = line_depth(sh, g.dim[s], rc[g.dim[s]]), depth = ha;
        if (deposit(c)) {
            depth = nd + (nd > 1); /* one line send per dimension, then step 3 */
        } else if (nd > 1) {
            depth = ha > 2 ? ha : 2;
            for (int j = 1; j < nd; j++) {
                int d = g.dim[(s + j) % nd];
                depth += line_depth(sh, d, rc[d]);
            }
        }
        double rounds = (double)depth + (double)nch - 1;
        double path = (double)(depth - 1) * (double)(len < CHUNK ? len : CHUNK) + (double)len;
        if (rounds > k->rounds)
            k->rounds = rounds;
        if (path > k->path_bytes)
            k->path_bytes = path;
    }
}

const torus__coll_alg torus__coll_bcast_multistream = {
    .name = "multistream",
    .op = TORUS_COLL_BCAST,
    .summary = "one pipelined stream per dimension along edge-disjoint line trees (needs a dimension of size > 1)",
    .ok = ok,
    .run = run,
    .cost = cost,
};
