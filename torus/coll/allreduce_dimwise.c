/*
 * allreduce_dimwise.c - short-message allreduce by exchange along lines,
 * one phase per dimension.
 *
 * Algorithm: paper 000 sec. 3.2 (multi-phase allreduce, Figures 3 and 4):
 *   trade bandwidth for latency by sending every vector to every rank of
 *   a line and replicating the reduction on all of them.  For each
 *   dimension d of size k_d > 1 in turn, every rank sends its current
 *   vector to the k_d - 1 other ranks on its line along d and receives
 *   theirs, then combines all k_d vectors of the line in coordinate order
 *   (coordinate 0 first).  Every rank of the line combines the same
 *   vectors in the same order, so they all hold identical bits, and the
 *   next dimension starts from identical partials on every line: after
 *   the last phase every rank has the reduction of all N vectors, built in
 *   one order (dimension 0 innermost) that every rank applied.
 *   A rank sends its vector to its line with one line send
 *   (torus__line_send): where the transport has the deposit bit (the
 *   timed and functional simulators) the vector is injected once per
 *   direction of the line and deposited at every node it passes, and a
 *   receiver pays only a per-packet read, no per-message cost, as in the
 *   paper; over MPI it is one message per rank of the line.
 * Preconditions: none (any shape, meshes and size-1 dimensions included).
 * Cost: D' = number of dimensions of size > 1 rounds; with n bytes,
 *   T = sum_d [alpha + (k_d - 1) n beta + (k_d - 1) n gamma]
 *   (the paper's phase latency S + (k_d - 1) max(|P|/BW, T_pkt): a rank
 *   takes the k_d - 1 vectors of its line off its links and combines
 *   them; without the deposit bit it also injects k_d - 1 copies, each
 *   with its own per-message overhead, which alpha-beta does not carry).
 *   Every rank sends sum_d (k_d - 1) messages of n bytes each (one line
 *   send per phase counts as k_d - 1: every rank of the line receives
 *   one).
 */
#include "coll_impl.h"

#include <string.h>

/* Combines the k vectors of a line in coordinate order into a->rbuf: v(j)
 * is slot j, or the rank's own vector (rbuf itself) at its own coordinate
 * me.  rbuf is written only by the last combine, whose element-wise
 * reduce3 reads both operands of an index before writing it, so the own
 * vector may be an operand of every step. */
static void combine_line(torus_coll *c, const torus__coll_args *a, unsigned char *slots, unsigned char *acc, int k,
                         int me)
{
    size_t n = a->bytes;
#define V(j) ((j) == me ? (unsigned char *)a->rbuf : slots + (size_t)(j) * n)
    if (k == 2) {
        torus__reduce3(c, a->rbuf, V(0), V(1), a->count, a->dt, a->rop);
        return;
    }
    torus__reduce3(c, acc, V(0), V(1), a->count, a->dt, a->rop);
    for (int j = 2; j < k - 1; j++)
        torus__reduce(c, acc, V(j), a->count, a->dt, a->rop);
    torus__reduce3(c, a->rbuf, acc, V(k - 1), a->count, a->dt, a->rop);
#undef V
}

static int run(torus_coll *c, const torus__coll_args *a)
{
    const torus_shape *s = &c->map->shape;
    int maxk = 1, rc = 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->k[d] > maxk)
            maxk = s->k[d];
    /* one slot per coordinate of the longest line plus the accumulator */
    unsigned char *slots = torus__scratch(c, ((size_t)maxk + 1) * a->bytes);
    torus_req *req = torus__scratch(c, 2 * (size_t)maxk * sizeof *req);
    if (!slots || !req)
        return torus__fail(c, TORUS_COLL_ENOMEM, "allreduce dimwise: out of memory for %d vectors of %zu bytes",
                           maxk + 1, a->bytes);
    unsigned char *acc = slots + (size_t)maxk * a->bytes;
    for (int d = 0; d < s->ndims && !rc; d++) {
        int k = s->k[d];
        if (k < 2)
            continue;
        int me = torus__coords(c, c->me)[d], nr = 0;
        /* every receive is posted before any send: no send waits on a
         * receive that its peer has not reached yet */
        for (int j = 0; j < k && !rc; j++)
            if (j != me && !(rc = torus__irecv(c, torus__line_rank(c, c->me, d, j), slots + (size_t)j * a->bytes,
                                               a->bytes, &req[nr])))
                nr++;
        /* one line send: the deposit bit where the transport has it
         * (every rank of the line gets the vector from one injection per
         * direction), else one message per rank of the line */
        if (!rc)
            rc = torus__line_send(c, d, a->rbuf, a->bytes, req, &nr);
        int wrc = torus__wait(c, req, nr);
        rc = rc ? rc : wrc;
        if (!rc)
            combine_line(c, a, slots, acc, k, me);
    }
    return rc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)rank;
    const torus_shape *s = &c->map->shape;
    uint64_t peers = 0;
    int phases = 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->k[d] > 1) {
            peers += (uint64_t)(s->k[d] - 1);
            phases++;
        }
    k->msgs = peers;
    k->bytes = peers * a->bytes;
    k->rounds = phases;
    k->path_bytes = (double)peers * (double)a->bytes;
    k->reduce_bytes = (double)peers * (double)a->bytes;
}

const torus__coll_alg torus__coll_allreduce_dimwise = {
    .name = "dimwise",
    .op = TORUS_COLL_ALLREDUCE,
    .summary = "exchange along each line, one phase per dimension (any shape)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
