/*
 * barrier_node_aware.c - node-aware two-level barrier.
 *
 * Algorithm: paper 004 sec. 4.1 (local check-in/check-out on the node)
 *   and 4.2 (synchronisation among the nodes' masters); sec. 2 gives the
 *   reason: one process per node does the network part, the node-local
 *   parts come before and after it, so the network sees nodes, not ranks.
 *   The leader (the paper's master) of a node is its lowest rank
 *   (c->node_of gives every rank's node number).
 *   1. Check-in: every other rank of a node sends an empty message to its
 *      leader; the leader waits for all of them.
 *   2. The L leaders (ordered by node number) run a dissemination barrier:
 *      in round k the leader at index x sends to index (x + 2^k) mod L and
 *      waits for (x - 2^k) mod L.
 *   3. Check-out: each leader sends the release to the ranks of its node,
 *      which wait for it.
 *   With node_of NULL every rank is its own node and leader: the barrier
 *   is the plain dissemination barrier over all ranks (ok() still says 1,
 *   so forcing it is never refused).
 * Preconditions: none (any N, any node layout; node numbers any ints).
 * Cost: L nodes, R = ceil(log2 L) + 2 rounds (+ 0 when every node has one
 *   rank, no check-in/out), T = R alpha.  A leader of a node of P ranks
 *   sends ceil(log2 L) + P - 1 messages, every other rank 1; all 0 bytes.
 *   The paper's shared-memory flags become messages here; the leader's
 *   P - 1 check-ins overlap in one round.  The layout is worked out in
 *   every call from node_of (O(N) per rank, O(N log N) per leader), as
 *   the context keeps nothing between calls.
 */
#include "coll_impl.h"

#include <stdlib.h>

typedef struct {
    int node, rank;
} slot;

static int by_node_rank(const void *pa, const void *pb)
{
    const slot *a = pa, *b = pb;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int log2_ceil(int n)
{
    int r = 0;
    while ((1L << r) < n)
        r++;
    return r;
}

/* The lowest rank on `rank`'s node and the number of ranks there: O(N),
 * no memory. */
static int leader_of(const torus_coll *c, int rank, int *size)
{
    int node = c->node_of[rank], lead = -1;
    *size = 0;
    for (int r = 0; r < c->n; r++)
        if (c->node_of[r] == node) {
            if (lead < 0)
                lead = r;
            ++*size;
        }
    return lead;
}

/* Sorts the ranks by (node, rank) into s[0..n) and returns the number of
 * nodes: each node is one run of s, its leader the run's first slot. */
static int sort_nodes(const torus_coll *c, slot *s)
{
    for (int r = 0; r < c->n; r++)
        s[r] = (slot){c->node_of[r], r};
    qsort(s, (size_t)c->n, sizeof *s, by_node_rank);
    int nodes = 0;
    for (int i = 0; i < c->n; i++)
        nodes += i == 0 || s[i].node != s[i - 1].node;
    return nodes;
}

/* Nodes without memory: ranks with no lower rank on their node.  O(N^2);
 * only when the sort's memory cannot be had. */
static int count_nodes_slowly(const torus_coll *c)
{
    int nodes = 0;
    for (int r = 0; r < c->n; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = c->node_of[q] != c->node_of[r];
        nodes += first;
    }
    return nodes;
}

/* Dissemination among `nl` leaders; lead[x] is the rank of index x (NULL:
 * index = rank). */
static int leaders_barrier(torus_coll *c, const int *lead, int nl, int x)
{
    for (long dist = 1; dist < nl; dist <<= 1) {
        int to = (int)((x + dist) % nl), from = (int)((x - dist + nl) % nl);
        int rc = torus__sendrecv(c, lead ? lead[to] : to, NULL, 0, lead ? lead[from] : from, NULL, 0);
        if (rc)
            return rc;
    }
    return 0;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    int n = c->n, me = c->me, rc = 0;
    if (!c->node_of)
        return leaders_barrier(c, NULL, n, me);
    int size, lead = leader_of(c, me, &size);
    if (lead != me) {
        /* check in, then wait for the check-out */
        rc = torus__send(c, lead, NULL, 0);
        return rc ? rc : torus__recv(c, lead, NULL, 0);
    }
    slot *s = torus__scratch(c, (size_t)n * sizeof *s);
    int *leaders = torus__scratch(c, (size_t)n * sizeof *leaders);
    torus_req *r = torus__scratch(c, (size_t)size * sizeof *r);
    if (!s || !leaders || !r)
        return torus__fail(c, TORUS_COLL_ENOMEM, "barrier node_aware: out of memory for the layout of %d ranks", n);
    sort_nodes(c, s);
    int nl = 0, x = -1, mine = 0; /* my node's run starts at s[mine] */
    for (int i = 0; i < n; i++)
        if (i == 0 || s[i].node != s[i - 1].node) {
            if (s[i].rank == me)
                x = nl, mine = i;
            leaders[nl++] = s[i].rank;
        }
    /* 1. check-in of the node's other ranks (s[mine + 1 .. mine + size)) */
    int started = 0;
    for (int j = 1; j < size && !rc; j++)
        if (!(rc = torus__irecv(c, s[mine + j].rank, NULL, 0, &r[started])))
            started++;
    int wrc = torus__wait(c, r, started); /* finished even after a failed start */
    if ((rc = rc ? rc : wrc))
        return rc;
    /* 2. between the nodes */
    if ((rc = leaders_barrier(c, leaders, nl, x)))
        return rc;
    /* 3. check-out */
    started = 0;
    for (int j = 1; j < size && !rc; j++)
        if (!(rc = torus__isend(c, s[mine + j].rank, NULL, 0, &r[started])))
            started++;
    wrc = torus__wait(c, r, started);
    return rc ? rc : wrc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a;
    int n = c->n, nodes = n, size = 1, lead = rank;
    if (c->node_of) {
        lead = leader_of(c, rank, &size);
        slot *s = malloc((size_t)n * sizeof *s);
        nodes = s ? sort_nodes(c, s) : count_nodes_slowly(c);
        free(s);
    }
    int lg = log2_ceil(nodes);
    k->msgs = lead == rank ? (uint64_t)(lg + size - 1) : 1;
    k->bytes = 0;
    k->rounds = lg + (nodes < n ? 2 : 0);
}

const torus__coll_alg torus__coll_barrier_node_aware = {
    .name = "node_aware",
    .op = TORUS_COLL_BARRIER,
    .summary = "check in with the node's lowest rank, dissemination among nodes, check out (any N, any nodes)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
