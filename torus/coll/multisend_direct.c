/*
 * multisend_direct.c - multisend, one message per block.
 *
 * Algorithm: paper 001's multisend in its plain form (MPICH's
 *   MPI_Neighbor_alltoallv does the same per call: an Irecv per source,
 *   an Isend per destination, wait for all).  Set-up, once: the blocks
 *   that travel (remote and non-empty; empty blocks are never sent, the
 *   pattern check has shown both sides agree on them) become two lists,
 *   receives (source, length, offset) and sends (destination, length,
 *   offset), with one request slot each.  A call: post every receive, then
 *   every send, in listing order (MPI's non-overtaking order pairs the
 *   k-th block from s with the k-th listing of s), then test them until
 *   all have completed.  Self blocks are copies (multisend.c).
 * Preconditions: none.
 * Cost: per rank, with b non-empty remote blocks of m bytes to send:
 *   b messages, T = b alpha + b m beta (all in flight at once: one round
 *   of latency, the rank's injection the bottleneck).
 */
#include "multisend_impl.h"

#include <stdlib.h>

typedef struct xfer {
    int peer;
    size_t off, len;
} xfer;

typedef struct direct {
    xfer *recv, *send;
    int nrecv, nsend;
    torus_req *req; /* nrecv + nsend slots, reused by every call */
    int bad;
} direct;

static void release(torus_multisend *p)
{
    direct *d = p->impl;
    free(d->recv);
    free(d->req);
    free(d);
    p->impl = NULL;
}

static int setup(torus_multisend *p)
{
    int me = p->c->me;
    direct *d = calloc(1, sizeof *d);
    if (!d)
        return torus__fail(p->c, TORUS_COLL_ENOMEM, "multisend direct: out of memory");
    p->impl = d;
    size_t nx = (size_t)p->ndest + (size_t)p->nsrc + 1;
    d->recv = malloc(nx * sizeof *d->recv);
    d->req = malloc(nx * sizeof *d->req);
    if (!d->recv || !d->req)
        return torus__fail(p->c, TORUS_COLL_ENOMEM, "multisend direct: out of memory");
    for (int j = 0; j < p->nsrc; j++)
        if (p->srcs[j] != me && p->rcounts[j])
            d->recv[d->nrecv++] = (xfer){p->srcs[j], p->rdispls[j], p->rcounts[j]};
    d->send = d->recv + d->nrecv;
    for (int i = 0; i < p->ndest; i++)
        if (p->dests[i] != me && p->scounts[i])
            d->send[d->nsend++] = (xfer){p->dests[i], p->sdispls[i], p->scounts[i]};
    for (int i = 0; i < d->nrecv + d->nsend; i++)
        d->req[i].id = -1;
    return 0;
}

static int start(torus_multisend *p)
{
    direct *d = p->impl;
    int rc = 0;
    d->bad = 0;
    for (int i = 0; i < d->nrecv && !rc; i++)
        rc = torus__ms_irecv(p, d->recv[i].peer, p->rbuf + d->recv[i].off, d->recv[i].len, &d->req[i]);
    for (int i = 0; i < d->nsend && !rc; i++)
        rc = torus__ms_isend(p, d->send[i].peer, p->sbuf + d->send[i].off, d->send[i].len, &d->req[d->nrecv + i]);
    return rc;
}

static int progress(torus_multisend *p)
{
    direct *d = p->impl;
    int rc = torus__ms_test_all(p, d->req, d->nrecv + d->nsend, &d->bad);
    return rc > 0 ? 0 : rc < 0 ? rc : 1;
}

const torus__ms_alg torus__ms_direct = {
    .name = "direct",
    .summary = "one message per non-empty remote block, all in flight at once",
    .setup = setup,
    .start = start,
    .progress = progress,
    .release = release,
};
