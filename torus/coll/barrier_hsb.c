/*
 * barrier_hsb.c - hierarchical gather/broadcast tree barrier ("hsb").
 *
 * Algorithm: paper 004 sec. 4.2 ("Hierarchical Shared Memory Barrier",
 *   Figure 3, after SCI-MPICH), with f = f_in = f_out = FANIN.  The ranks
 *   form an f-ary tree in heap order: the children of i are f i + 1 ..
 *   f i + f (those < N), its parent (i - 1) / f, rank 0 the root.
 *   1. Gather: each rank waits for an empty message from each of its
 *      children, then (unless it is the root) sends one to its parent.
 *   2. Broadcast: each rank but the root waits for the release from its
 *      parent, then sends the release to each of its children.
 *   The root hears (through the subtrees) from every rank before it sends
 *   the first release, so nobody leaves before all have entered.
 * Preconditions: none (any N, any shape).
 * Cost: D = depth of the tree (the level of rank N - 1, at most the
 *   paper's ceil(log_f N)), R = 2 D rounds, T = 2 D alpha.  Rank i
 *   sends one message to its parent (i > 0) and one to each of its
 *   c_i = min(f, max(0, N - f i - 1)) children: (i > 0) + c_i messages of
 *   0 bytes.
 */
#include "coll_impl.h"

/* Fan-in and fan-out of the tree.  SCI-MPICH used 8; paper 004 sets f to
 * N - 1 up to 16 nodes and ~6 beyond; 4 gives a shallow tree while a
 * parent still waits for few children. */
#define FANIN 4

/* the first child of rank i and how many it has */
static int children(int n, int i, long *first)
{
    *first = (long)FANIN * i + 1;
    long left = n - *first;
    return left <= 0 ? 0 : left < FANIN ? (int)left : FANIN;
}

static int finish(torus_coll *c, torus_req *r, int started, int rc)
{
    /* every started request completes even after a failed start, so none
     * is left open; the start's error wins over the wait's */
    int wrc = torus__wait(c, r, started);
    return rc ? rc : wrc;
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    int me = c->me, rc = 0, started = 0;
    long first;
    int nch = children(c->n, me, &first);
    torus_req r[FANIN];
    /* 1. gather: the children's arrivals, then mine to the parent */
    for (int j = 0; j < nch && !rc; j++)
        if (!(rc = torus__irecv(c, (int)(first + j), NULL, 0, &r[started])))
            started++;
    if ((rc = finish(c, r, started, rc)))
        return rc;
    if (me > 0) {
        int parent = (me - 1) / FANIN;
        if ((rc = torus__send(c, parent, NULL, 0)) || (rc = torus__recv(c, parent, NULL, 0)))
            return rc;
    }
    /* 2. broadcast: release the children, all at once */
    started = 0;
    for (int j = 0; j < nch && !rc; j++)
        if (!(rc = torus__isend(c, (int)(first + j), NULL, 0, &r[started])))
            started++;
    return finish(c, r, started, rc);
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a;
    long first;
    int depth = 0;
    for (int i = c->n - 1; i > 0; i = (i - 1) / FANIN) /* the last rank is on the deepest level */
        depth++;
    k->msgs = (uint64_t)(children(c->n, rank, &first) + (rank > 0));
    k->bytes = 0;
    k->rounds = 2 * depth;
}

const torus__coll_alg torus__coll_barrier_hsb = {
    .name = "hsb",
    .op = TORUS_COLL_BARRIER,
    .summary = "4-ary tree: gather arrivals to rank 0, broadcast the release (any N)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
