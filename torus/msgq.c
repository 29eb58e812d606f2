/*
 * msgq.c - message matching for the in-process transports (see msgq.h).
 *
 * Per rank: a list of unexpected messages (sent, no receive posted yet)
 * and a list of posted receives, both in order; a table of requests with a
 * free list.  Each operation is O(length of the list it searches), which
 * the collectives keep short (a handful of peers per step).
 */
#include "msgq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { REQ_FREE = 0, REQ_SEND, REQ_RECV };

typedef struct msg {
    int src, tag, flags, send_id; /* send_id: the sender's request while it waits for the match, else -1 */
    size_t bytes;
    double arrive;
    unsigned char *data;
    struct msg *next;
} msg;

typedef struct req {
    int kind, rank;
    int matched, truncated;
    int pending; /* send: rendezvous copies not yet matched */
    int flags;   /* receive: the matched message's flags */
    double ready; /* when it completes once matched (send) / message arrival (recv) */
    /* receive */
    int src, tag;
    void *buf;
    size_t cap, got;
    int next_posted; /* posted-receive list link, -1 end */
    int next_own, prev_own; /* this rank's open requests */
} req;

typedef struct rank_q {
    msg *unexp_head, *unexp_tail;
    int posted_head, posted_tail;
    int own; /* head of the open-request list */
} rank_q;

struct torus__msgs {
    int n;
    rank_q *rq;
    req *r;
    int nr, cap, free_head;
};

torus__msgs *torus__msgs_create(int nranks)
{
    torus__msgs *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->n = nranks;
    m->rq = calloc((size_t)nranks, sizeof *m->rq);
    if (!m->rq) {
        free(m);
        return NULL;
    }
    for (int i = 0; i < nranks; i++)
        m->rq[i].posted_head = m->rq[i].posted_tail = m->rq[i].own = -1;
    m->free_head = -1;
    return m;
}

void torus__msgs_destroy(torus__msgs *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        for (msg *g = m->rq[i].unexp_head, *nx; g; g = nx) {
            nx = g->next;
            free(g->data);
            free(g);
        }
    free(m->rq);
    free(m->r);
    free(m);
}

static int new_req(torus__msgs *m, int kind, int rank)
{
    if (m->free_head < 0) {
        int nc = m->cap ? 2 * m->cap : 256;
        req *nr = realloc(m->r, (size_t)nc * sizeof *nr);
        if (!nr)
            return -1;
        m->r = nr;
        for (int i = nc - 1; i >= m->cap; i--) {
            m->r[i].kind = REQ_FREE;
            m->r[i].next_posted = m->free_head;
            m->free_head = i;
        }
        m->cap = nc;
    }
    int id = m->free_head;
    req *q = &m->r[id];
    m->free_head = q->next_posted;
    memset(q, 0, sizeof *q);
    q->kind = kind;
    q->rank = rank;
    q->next_posted = -1;
    /* link into the rank's open requests */
    q->prev_own = -1;
    q->next_own = m->rq[rank].own;
    if (q->next_own >= 0)
        m->r[q->next_own].prev_own = id;
    m->rq[rank].own = id;
    return id;
}

static void free_req(torus__msgs *m, int id)
{
    req *q = &m->r[id];
    if (q->prev_own >= 0)
        m->r[q->prev_own].next_own = q->next_own;
    else
        m->rq[q->rank].own = q->next_own;
    if (q->next_own >= 0)
        m->r[q->next_own].prev_own = q->prev_own;
    q->kind = REQ_FREE;
    q->next_posted = m->free_head;
    m->free_head = id;
}

/* Delivers bytes into receive request q (copy, truncation check). */
static void deliver(req *q, const void *data, size_t bytes, double arrive, int flags)
{
    q->matched = 1;
    q->flags = flags;
    q->got = bytes;
    q->ready = arrive;
    if (bytes > q->cap) {
        q->truncated = 1;
        bytes = q->cap;
    }
    if (bytes)
        memcpy(q->buf, data, bytes);
}

/* One copy of a send to dst: into the first matching posted receive, else
 * queued as unexpected.  Returns 1 when it waits for its match (a
 * rendezvous copy), 0 when done, -1 on out of memory. */
static int send_copy(torus__msgs *m, int sid, int src, int dst, const void *buf, size_t bytes, int tag, double arrive,
                     int rendezvous, int flags)
{
    rank_q *d = &m->rq[dst];
    /* the first posted receive at dst that matches, in post order */
    for (int p = d->posted_head, prev = -1; p >= 0; prev = p, p = m->r[p].next_posted) {
        req *q = &m->r[p];
        if (q->src != src || q->tag != tag)
            continue;
        if (prev >= 0)
            m->r[prev].next_posted = q->next_posted;
        else
            d->posted_head = q->next_posted;
        if (d->posted_tail == p)
            d->posted_tail = prev;
        deliver(q, buf, bytes, arrive, flags);
        return 0;
    }
    msg *g = malloc(sizeof *g);
    unsigned char *data = bytes ? malloc(bytes) : NULL;
    if (!g || (bytes && !data)) {
        free(g);
        free(data);
        return -1;
    }
    if (bytes)
        memcpy(data, buf, bytes);
    *g = (msg){.src = src, .tag = tag, .flags = flags, .send_id = rendezvous ? sid : -1, .bytes = bytes,
               .arrive = arrive, .data = data, .next = NULL};
    if (d->unexp_tail)
        d->unexp_tail->next = g;
    else
        d->unexp_head = g;
    d->unexp_tail = g;
    return rendezvous;
}

int torus__msgs_isend(torus__msgs *m, int src, int dst, const void *buf, size_t bytes, int tag, double arrive,
                      double ready, int *id)
{
    return torus__msgs_isend_multi(m, src, &dst, &arrive, 1, buf, bytes, tag, ready, 0, id);
}

int torus__msgs_isend_multi(torus__msgs *m, int src, const int *dst, const double *arrive, int ndst, const void *buf,
                            size_t bytes, int tag, double ready, int flags, int *id)
{
    int sid = new_req(m, REQ_SEND, src);
    *id = sid;
    if (sid < 0)
        return -1;
    int rendezvous = isinf(ready) != 0;
    m->r[sid].ready = ready;
    for (int i = 0; i < ndst; i++) {
        int rc = send_copy(m, sid, src, dst[i], buf, bytes, tag, arrive[i], rendezvous, flags);
        if (rc < 0) {
            /* copies already queued keep pointing at a request that
             * must not be reused: leave it open, the run is failing */
            if (!i) {
                free_req(m, sid);
                *id = -1;
            }
            return -1;
        }
        m->r[sid].pending += rc;
    }
    req *s = &m->r[sid];
    if (!s->pending) {
        s->matched = 1; /* eager: buffered, done at `ready`; rendezvous: every copy matched */
        if (rendezvous)
            s->ready = 0;
    }
    return 0;
}

int torus__msgs_irecv(torus__msgs *m, int me, int src, void *buf, size_t bytes, int tag, int *id)
{
    int rid = new_req(m, REQ_RECV, me);
    *id = rid;
    if (rid < 0)
        return -1;
    req *q = &m->r[rid];
    q->src = src;
    q->tag = tag;
    q->buf = buf;
    q->cap = bytes;
    rank_q *d = &m->rq[me];
    for (msg *g = d->unexp_head, *prev = NULL; g; prev = g, g = g->next) {
        if (g->src != src || g->tag != tag)
            continue;
        if (prev)
            prev->next = g->next;
        else
            d->unexp_head = g->next;
        if (d->unexp_tail == g)
            d->unexp_tail = prev;
        deliver(q, g->data, g->bytes, g->arrive, g->flags);
        if (g->send_id >= 0 && --m->r[g->send_id].pending == 0) {
            m->r[g->send_id].matched = 1;
            m->r[g->send_id].ready = 0; /* a rendezvous send completes at its last match */
        }
        free(g->data);
        free(g);
        return 0;
    }
    if (d->posted_tail >= 0)
        m->r[d->posted_tail].next_posted = rid;
    else
        d->posted_head = rid;
    d->posted_tail = rid;
    return 0;
}

int torus__msgs_test(torus__msgs *m, int id, double now, size_t *bytes_out)
{
    if (id < 0)
        return 1;
    req *q = &m->r[id];
    if (!q->matched || q->ready > now)
        return 0;
    int rc = q->truncated ? -1 : 1;
    if (bytes_out)
        *bytes_out = q->got;
    free_req(m, id);
    return rc;
}

int torus__msgs_flags(const torus__msgs *m, int id)
{
    return id >= 0 && m->r[id].kind == REQ_RECV && m->r[id].matched ? m->r[id].flags : 0;
}

int torus__msgs_is_recv(const torus__msgs *m, int id)
{
    return id >= 0 && m->r[id].kind == REQ_RECV;
}

double torus__msgs_next_event(const torus__msgs *m, int r, double now)
{
    double t = INFINITY;
    for (int id = m->rq[r].own; id >= 0; id = m->r[id].next_own) {
        const req *q = &m->r[id];
        if (q->matched && q->ready > now && q->ready < t)
            t = q->ready;
    }
    return t;
}

int torus__msgs_open(const torus__msgs *m, int r)
{
    int k = 0;
    for (int id = m->rq[r].own; id >= 0; id = m->r[id].next_own)
        k++;
    return k;
}
