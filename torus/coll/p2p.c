/*
 * p2p.c - the point-to-point helpers every algorithm talks through: start
 * a send or a receive with the call's tag, wait or test, the blocking
 * forms, the line send (paper 000's deposit bit where the transport has
 * one), and the idle step of a wait that found nothing to do.  Counts the
 * messages and bytes that test_coll holds against each file's Cost.
 */
#include "coll_impl.h"

/* Tags: one per call, so a fast rank's next collective can never match a
 * message of this one; MPI guarantees tags up to 32767. */
#define TAG_SPACE 32768

int torus__isend(torus_coll *c, int peer, const void *buf, size_t bytes, torus_req *r)
{
    if (c->tp->isend(c->tp->impl, peer, buf, bytes, c->seq % TAG_SPACE, r))
        return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not start a send of %zu bytes to rank %d", c->me,
                           bytes, peer);
    c->counts.msgs_sent++;
    c->counts.bytes_sent += bytes;
    c->progress++;
    return 0;
}

int torus__irecv(torus_coll *c, int peer, void *buf, size_t bytes, torus_req *r)
{
    if (c->tp->irecv(c->tp->impl, peer, buf, bytes, c->seq % TAG_SPACE, r))
        return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not post a receive from rank %d", c->me, peer);
    c->counts.msgs_recv++;
    c->counts.bytes_recv += bytes;
    return 0;
}

/* One test of a started request: 1 done (the request is freed, progress
 * counted, the spin count restarts), 0 still open, -1 a message longer
 * than its buffer (the request is freed too). */
static int test_one(torus_coll *c, torus_req *r)
{
    if (r->id < 0)
        return 1;
    int rc = c->tp->test(c->tp->impl, r);
    if (!rc)
        return 0;
    r->id = -1;
    if (rc < 0)
        return -1;
    c->progress++;
    torus_idle_reset(&c->idle_wait);
    return 1;
}

static int truncated(torus_coll *c)
{
    return torus__fail(c, TORUS_COLL_ETRUNC,
                       "rank %d: a message was longer than expected: do the counts or sizes differ between ranks?", c->me);
}

int torus__wait(torus_coll *c, torus_req *r, int n)
{
    /* a truncated message is remembered until the other requests are done,
     * so that no peer is left waiting on one of them */
    int bad = 0;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < n; i++) {
            int rc = test_one(c, &r[i]);
            if (rc < 0)
                bad = 1;
            else if (rc == 0)
                pending++;
        }
        if (!pending)
            return bad ? truncated(c) : 0;
        torus__idle(c);
    }
}

void torus__idle(torus_coll *c)
{
    if (c->idle) {
        c->idle(c->idle_ctx);
        return;
    }
    torus_idle_wait(&c->idle_wait);
}

int torus__send(torus_coll *c, int peer, const void *buf, size_t bytes)
{
    torus_req r;
    int rc = torus__isend(c, peer, buf, bytes, &r);
    return rc ? rc : torus__wait(c, &r, 1);
}

int torus__recv(torus_coll *c, int peer, void *buf, size_t bytes)
{
    torus_req r;
    int rc = torus__irecv(c, peer, buf, bytes, &r);
    return rc ? rc : torus__wait(c, &r, 1);
}

int torus__sendrecv(torus_coll *c, int dst, const void *sbuf, size_t sbytes, int src, void *rbuf, size_t rbytes)
{
    torus_req r[2];
    int rc = torus__irecv(c, src, rbuf, rbytes, &r[0]);
    if (rc)
        return rc;
    rc = torus__isend(c, dst, sbuf, sbytes, &r[1]);
    if (rc) {
        r[1].id = -1;
        torus__wait(c, r, 1);
        return rc;
    }
    return torus__wait(c, r, 2);
}

/* ---- non-blocking progress for algorithms that keep requests in flight --- */

int torus__test(torus_coll *c, torus_req *r)
{
    int rc = test_one(c, r);
    return rc < 0 ? truncated(c) : rc;
}

int torus__line_send(torus_coll *c, int d, const void *buf, size_t bytes, torus_req *r, int *nr)
{
    int k = c->map->shape.k[d], me = torus__coords(c, c->me)[d];
    if (k < 2)
        return 0;
    if (c->tp->line_send) {
        if (c->tp->line_send(c->tp->impl, d, buf, bytes, c->seq % TAG_SPACE, &r[*nr]))
            return torus__fail(c, TORUS_COLL_ENOMEM, "rank %d: could not start a line send of %zu bytes along %d",
                               c->me, bytes, d);
        ++*nr;
        c->counts.msgs_sent += (uint64_t)(k - 1);
        c->counts.bytes_sent += (uint64_t)(k - 1) * bytes;
        c->progress++;
        return 0;
    }
    /* no deposit bit: one message per rank of the line, the next
     * coordinate first so that the ranks of a line spread their sends */
    for (int i = 1; i < k; i++) {
        int rc = torus__isend(c, torus__line_rank(c, c->me, d, (me + i) % k), buf, bytes, &r[*nr]);
        if (rc)
            return rc;
        ++*nr;
    }
    return 0;
}
