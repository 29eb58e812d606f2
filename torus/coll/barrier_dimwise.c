/*
 * barrier_dimwise.c - dimension-wise exchange along lines.
 *
 * Algorithm: paper 000 sec. 3.2 (short-message Allreduce/Barrier on
 *   rectangular communicators, Figure 4): the barrier as an allreduce of
 *   nothing, "each node waits until it receives all incoming packets".
 *   For each dimension d of size k_d > 1 in turn, every rank sends an
 *   empty message to each of the k_d - 1 other ranks on its line along d
 *   (same coordinates except along d) and waits for one from each.  After
 *   phase d a rank has heard from every rank that differs from it only in
 *   dimensions 0..d, so after the last phase from all.  Dimensions of
 *   size 1 have no partners and are skipped.  Each phase is one group of
 *   the whole line: the paper's hierarchical variant splits lines into
 *   subgroups, and reports "a group size equal to the dimension is good
 *   for Barrier".
 *   The empty messages of a phase leave as one line send
 *   (torus__line_send): with the deposit bit one packet per direction of
 *   the line reaches every rank of it, over MPI one message per rank.
 * Preconditions: none (any shape, meshes too: partners are addressed by
 *   rank, the transport routes).
 * Cost: R = number of dimensions with k_d > 1 phases, T = R alpha (one
 *   alpha per phase: its k_d - 1 messages leave together; the paper's
 *   phase latency S + (k_d - 1) max(|P|/BW, T_pkt) adds a per-packet term
 *   that the alpha-beta model does not carry for 0-byte messages).  Every
 *   rank sends sum_d (k_d - 1) messages of 0 bytes (a line send counts
 *   as k_d - 1: every rank of the line receives one).
 */
#include "coll_impl.h"

static int run(torus_coll *c, const torus__coll_args *a)
{
    (void)a;
    const torus_shape *s = &c->map->shape;
    int kmax = 1, rc = 0;
    for (int d = 0; d < c->ndims; d++)
        kmax = s->k[d] > kmax ? s->k[d] : kmax;
    if (kmax == 1)
        return 0; /* one rank */
    /* a line can be the whole machine: requests on the heap, not the stack */
    torus_req *r = torus__scratch(c, 2 * (size_t)(kmax - 1) * sizeof *r);
    if (!r)
        return torus__fail(c, TORUS_COLL_ENOMEM, "barrier dimwise: out of memory for %d requests", 2 * (kmax - 1));
    int mypos[TORUS_MAX_DIMS];
    const int *cc = torus__coords(c, c->me);
    for (int d = 0; d < c->ndims; d++)
        mypos[d] = cc[d];
    for (int d = 0; d < c->ndims && !rc; d++) {
        int k = s->k[d], started = 0;
        if (k == 1)
            continue;
        /* receives first, so every rendezvous send finds its match posted */
        for (int pos = 0; pos < k && !rc; pos++)
            if (pos != mypos[d] && !(rc = torus__irecv(c, torus__line_rank(c, c->me, d, pos), NULL, 0, &r[started])))
                started++;
        /* one line send: the deposit bit where the transport has it */
        if (!rc)
            rc = torus__line_send(c, d, NULL, 0, r, &started);
        /* what was started completes even after a failed start */
        int wrc = torus__wait(c, r, started);
        rc = rc ? rc : wrc;
    }
    return rc;
}

static void cost(const torus_coll *c, const torus__coll_args *a, int rank, torus__coll_cost *k)
{
    (void)a, (void)rank;
    const torus_shape *s = &c->map->shape;
    k->msgs = 0;
    k->bytes = 0;
    k->rounds = 0;
    for (int d = 0; d < c->ndims; d++)
        if (s->k[d] > 1) {
            k->msgs += (uint64_t)(s->k[d] - 1);
            k->rounds++;
        }
}

const torus__coll_alg torus__coll_barrier_dimwise = {
    .name = "dimwise",
    .op = TORUS_COLL_BARRIER,
    .summary = "exchange with every rank on my line, one dimension after another (any shape)",
    .ok = torus__coll_runs_anywhere,
    .run = run,
    .cost = cost,
};
