/*
 * multisend_routed.c - multisend with blocks aggregated dimension by
 * dimension, as the routed RandomAccess routes its updates.
 *
 * Algorithm: paper 002 sec. 5's software routing (optimized/ropt.c) applied
 *   to paper 001's multisend, the persistent form of alltoallv_routed.c.
 *   A block from s to t travels along dimension 0 to t's coordinate there,
 *   then along dimension 1, and so on; in phase d (every dimension of size
 *   k_d > 1) each rank sends one message to each rank of its line along d
 *   for which it holds blocks, carrying all of them.
 *   Set-up, once: the routing is run with headers only (source,
 *   destination, which of the source's blocks to it, length), so every rank
 *   learns, per phase, the exact message size to and from each partner and
 *   where every block it holds sits; this becomes a list of copies per
 *   phase (held -> send buffer, held -> next buffer) and a final list
 *   (held -> the receive buffer).  A call replays it: per phase, copy,
 *   post the receives and sends of known sizes, wait, go on.  No sizes or
 *   headers travel at run time, and the buffers are the plan's.
 * Preconditions: none (any shape; size-1 dimensions are skipped).
 * Cost: per rank and phase d at most k_d - 1 messages; a block crosses
 *   one message per dimension in which source and destination differ
 *   (H hops) and is copied once per hop.  With b remote blocks of m bytes
 *   per rank spread evenly: T = sum_d [alpha + (k_d - 1)/k_d b m beta] +
 *   copies, against direct's b alpha + b m beta: fewer messages, the same
 *   bytes H times.
 */
#include "multisend_impl.h"

#include <stdlib.h>
#include <string.h>

/* a block in flight, as set-up routes it */
typedef struct rec {
    int32_t src, dst, k, pad;
    uint64_t len;
} rec;

typedef struct phase {
    int npart;
    int *peer;
    size_t *soff, *slen, *roff, *rlen; /* per partner: in sendbuf, in next */
    torus__ms_seg *out, *keep;         /* held -> sendbuf, held -> next */
    int nout, nkeep;
    unsigned char *sendbuf, *next;
} phase;

typedef struct routed {
    phase *ph;
    int nph, cur, bad, failed;
    torus__ms_seg *fin; /* last held -> rbuf */
    int nfin;
    torus_req *req;
    int nreq;
} routed;

static void release(torus_multisend *p)
{
    routed *r = p->impl;
    for (int i = 0; r->ph && i < r->nph; i++) {
        phase *f = &r->ph[i];
        free(f->peer);
        free(f->soff);
        free(f->out);
        free(f->keep);
        free(f->sendbuf);
        free(f->next);
    }
    free(r->ph);
    free(r->fin);
    free(r->req);
    free(r);
    p->impl = NULL;
}

static int oom(torus_multisend *p)
{
    return torus__fail(p->c, TORUS_COLL_ENOMEM, "multisend routed: rank %d: out of memory setting up", p->c->me);
}

/* listing order of srcs: indices sorted by (source, position) */
static const int *g_srcs;
static int cmp_listing(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_srcs[x] != g_srcs[y])
        return g_srcs[x] < g_srcs[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* What one phase's set-up holds while it runs (route_phase's steps). */
typedef struct line_tmp {
    int k, mine;
    size_t *cnt_to, *cnt_from; /* records to and from each partner */
    torus_req *req;
    rec *sendrec;      /* the records sent, in partner order */
    size_t *recstart;  /* each partner's first record in sendrec */
    size_t *cursor, *rcur;
    rec *kept;         /* the records that stay, in held order */
    torus__ms_seg *keepseg;
    int nkeep;
    size_t so, ko; /* bytes of the send buffer and of the kept blocks */
} line_tmp;

static void line_tmp_free(line_tmp *t)
{
    free(t->cnt_to), free(t->req), free(t->sendrec), free(t->recstart), free(t->cursor), free(t->rcur), free(t->kept);
}

/* Step 1: the phase's arrays and the set-up's temporaries, for nh held
 * records along a line of k.  -1: out of memory. */
static int phase_alloc(phase *f, line_tmp *t, int nh)
{
    int k = t->k;
    f->npart = k - 1;
    f->peer = malloc((size_t)k * sizeof *f->peer);
    f->soff = malloc(4 * (size_t)k * sizeof *f->soff);
    f->out = malloc(((size_t)nh + 1) * sizeof *f->out);
    t->cnt_to = calloc(2 * (size_t)k, sizeof *t->cnt_to);
    t->cnt_from = t->cnt_to ? t->cnt_to + k : NULL;
    t->req = malloc(2 * (size_t)k * sizeof *t->req);
    if (!f->peer || !f->soff || !f->out || !t->cnt_to || !t->req)
        return -1;
    f->slen = f->soff + k;
    f->roff = f->soff + 2 * k;
    f->rlen = f->soff + 3 * k;
    f->keep = NULL;
    t->sendrec = malloc(((size_t)nh + 1) * sizeof *t->sendrec);
    t->recstart = malloc((size_t)k * sizeof *t->recstart);
    t->cursor = malloc((size_t)k * sizeof *t->cursor);
    t->rcur = malloc((size_t)k * sizeof *t->rcur);
    if (!t->sendrec || !t->recstart || !t->cursor || !t->rcur)
        return -1;
    t->keepseg = malloc(((size_t)nh + 1) * sizeof *t->keepseg);
    t->kept = malloc(((size_t)nh + 1) * sizeof *t->kept);
    return t->keepseg && t->kept ? 0 : -1;
}

/* Step 2: the partners in coordinate order after mine (spreads the line's
 * traffic), and every held record sorted: to a partner (its bytes in the
 * send buffer, partner by partner, and its record in sendrec) or kept (to
 * the front of the next buffer, in held order). */
static void sort_held(torus_multisend *p, int d, phase *f, line_tmp *t, const rec *h, const size_t *off, int nh)
{
    torus_coll *c = p->c;
    int k = t->k, mine = t->mine;
    for (int i = 0; i < k - 1; i++) /* partner i is coordinate (mine + 1 + i) % k */
        f->peer[i] = torus__line_rank(c, c->me, d, (mine + 1 + i) % k);
    size_t *bytes_to = f->slen; /* indexed by partner */
    memset(f->slen, 0, (size_t)k * sizeof *f->slen);
    for (int i = 0; i < nh; i++) {
        int q = torus__coords(c, h[i].dst)[d];
        if (q == mine)
            continue;
        int pi = (q - mine - 1 + k) % k;
        bytes_to[pi] += h[i].len;
        t->cnt_to[pi]++;
    }
    for (int i = 0; i < k - 1; i++) {
        f->soff[i] = t->so;
        t->so += f->slen[i];
    }
    size_t ro = 0;
    for (int i = 0; i < k - 1; i++) {
        t->recstart[i] = ro;
        ro += t->cnt_to[i];
        t->cursor[i] = f->soff[i];
        t->rcur[i] = t->recstart[i];
    }
    int nout = 0;
    for (int i = 0; i < nh; i++) {
        const rec *x = &h[i];
        int q = torus__coords(c, x->dst)[d];
        if (q == mine) {
            t->keepseg[t->nkeep] = (torus__ms_seg){off[i], t->ko, x->len};
            t->kept[t->nkeep++] = *x;
            t->ko += x->len;
            continue;
        }
        int pi = (q - mine - 1 + k) % k;
        f->out[nout++] = (torus__ms_seg){off[i], t->cursor[pi], x->len};
        t->cursor[pi] += x->len;
        t->sendrec[t->rcur[pi]++] = *x;
    }
    /* out segments are in held order; sorting is not needed for copying */
    f->nout = torus__ms_merge(f->out, nout);
    f->keep = t->keepseg;
    f->nkeep = t->nkeep;
}

/* Step 3: the headers along the line, record counts first, then the
 * records: *nh2 gets the kept records followed by each partner's, *nin
 * how many came in.  Collective along the line. */
static int exchange_records(torus_multisend *p, const phase *f, line_tmp *t, rec **nh2, size_t *nin)
{
    torus_coll *c = p->c;
    int k = t->k, nr = 0, rc;
    for (int i = 0; i < k - 1; i++)
        if ((rc = torus__ms_irecv(p, f->peer[i], &t->cnt_from[i], sizeof(size_t), &t->req[nr++])))
            return rc;
    for (int i = 0; i < k - 1; i++)
        if ((rc = torus__ms_isend(p, f->peer[i], &t->cnt_to[i], sizeof(size_t), &t->req[nr++])))
            return rc;
    if ((rc = torus__wait(c, t->req, nr)))
        return rc;
    *nin = 0;
    for (int i = 0; i < k - 1; i++)
        *nin += t->cnt_from[i];
    rec *in = *nh2 = malloc(((size_t)t->nkeep + *nin + 1) * sizeof *in);
    if (!in)
        return oom(p);
    memcpy(in, t->kept, (size_t)t->nkeep * sizeof *in);
    nr = 0;
    size_t at = (size_t)t->nkeep;
    for (int i = 0; i < k - 1; i++) {
        if (t->cnt_from[i] &&
            (rc = torus__ms_irecv(p, f->peer[i], in + at, t->cnt_from[i] * sizeof *in, &t->req[nr++])))
            return rc;
        at += t->cnt_from[i];
    }
    for (int i = 0; i < k - 1; i++)
        if (t->cnt_to[i] && (rc = torus__ms_isend(p, f->peer[i], t->sendrec + t->recstart[i],
                                                  t->cnt_to[i] * sizeof *t->sendrec, &t->req[nr++])))
            return rc;
    return torus__wait(c, t->req, nr);
}

/* Step 4: the layout of the next buffer, kept blocks first, then each
 * partner's: noff[] for every record held next, f->roff/rlen per partner;
 * returns the buffer's bytes. */
static size_t next_layout(phase *f, const line_tmp *t, const rec *nh2, size_t *noff)
{
    size_t o = 0, at = (size_t)t->nkeep;
    for (int i = 0; i < t->nkeep; i++) {
        noff[i] = o;
        o += nh2[i].len;
    }
    for (int i = 0; i < t->k - 1; i++) {
        f->roff[i] = o;
        for (size_t j = 0; j < t->cnt_from[i]; j++, at++) {
            noff[at] = o;
            o += nh2[at].len;
        }
        f->rlen[i] = o - f->roff[i];
    }
    return o;
}

/* One phase of the header-only routing along dimension d: fills f from
 * the held records (h[0..*nh), at offsets off[]) and replaces them by the
 * records held after the phase.  Collective along the line. */
static int route_phase(torus_multisend *p, int d, phase *f, rec **h, size_t **off, int *nh)
{
    torus_coll *c = p->c;
    line_tmp t = {.k = c->map->shape.k[d], .mine = torus__coords(c, c->me)[d]};
    rec *nh2 = NULL;
    size_t *noff = NULL, nin = 0;
    int rc;
    if (phase_alloc(f, &t, *nh)) {
        rc = oom(p);
        goto out;
    }
    sort_held(p, d, f, &t, *h, *off, *nh);
    if ((rc = exchange_records(p, f, &t, &nh2, &nin)))
        goto out;
    if (!(noff = malloc(((size_t)t.nkeep + nin + 1) * sizeof *noff))) {
        rc = oom(p);
        goto out;
    }
    size_t o = next_layout(f, &t, nh2, noff);
    f->nkeep = torus__ms_merge(f->keep, f->nkeep);
    f->sendbuf = malloc(t.so + 1);
    f->next = malloc(o + 1);
    if (!f->sendbuf || !f->next) {
        rc = oom(p);
        goto out;
    }
    free(*h);
    free(*off);
    *h = nh2;
    *off = noff;
    *nh = t.nkeep + (int)nin;
    nh2 = NULL, noff = NULL;
out:
    free(nh2), free(noff);
    line_tmp_free(&t);
    if (f->keep != t.keepseg)
        free(t.keepseg);
    return rc;
}

static int setup(torus_multisend *p)
{
    torus_coll *c = p->c;
    int me = c->me, n = c->n, rc = 0;
    routed *r = calloc(1, sizeof *r);
    if (!r)
        return oom(p);
    p->impl = r;
    r->ph = calloc((size_t)c->ndims + 1, sizeof *r->ph);
    int *kth = calloc((size_t)n, sizeof *kth);
    rec *h = malloc(((size_t)p->ndest + 1) * sizeof *h);
    size_t *off = malloc(((size_t)p->ndest + 1) * sizeof *off);
    int maxk = 1;
    for (int d = 0; d < c->ndims; d++)
        maxk = c->map->shape.k[d] > maxk ? c->map->shape.k[d] : maxk;
    r->req = malloc(2 * (size_t)maxk * sizeof *r->req);
    if (!r->ph || !kth || !h || !off || !r->req) {
        free(kth), free(h), free(off);
        return oom(p);
    }
    int nh = 0;
    for (int i = 0; i < p->ndest; i++) {
        int d = p->dests[i], k = kth[d]++;
        if (d == me || !p->scounts[i])
            continue;
        h[nh] = (rec){me, d, k, 0, p->scounts[i]};
        off[nh++] = p->sdispls[i];
    }
    free(kth);
    for (int d = 0; d < c->ndims && !rc; d++) {
        if (c->map->shape.k[d] < 2)
            continue;
        rc = route_phase(p, d, &r->ph[r->nph], &h, &off, &nh);
        r->nph++; /* counted even when it failed: release() frees what it holds */
    }
    if (!rc) {
        /* every held record is mine now: to the k-th listing of its source */
        int *idx = malloc(((size_t)p->nsrc + 1) * sizeof *idx);
        r->fin = malloc(((size_t)nh + 1) * sizeof *r->fin);
        if (!idx || !r->fin) {
            free(idx);
            rc = oom(p);
        } else {
            for (int j = 0; j < p->nsrc; j++)
                idx[j] = j;
            g_srcs = p->srcs;
            qsort(idx, (size_t)p->nsrc, sizeof *idx, cmp_listing);
            for (int i = 0; i < nh && !rc; i++) {
                /* first listing of h[i].src */
                int lo = 0, hi = p->nsrc;
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (p->srcs[idx[mid]] < h[i].src)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                int at = lo + h[i].k;
                if (h[i].dst != me || at >= p->nsrc || p->srcs[idx[at]] != h[i].src ||
                    p->rcounts[idx[at]] != h[i].len) {
                    rc = torus__fail(c, TORUS_COLL_ETRUNC,
                                     "multisend routed: rank %d: block %d from rank %d (%llu bytes) has no matching "
                                     "listing: do the patterns differ between ranks?",
                                     me, (int)h[i].k, (int)h[i].src, (unsigned long long)h[i].len);
                    break;
                }
                r->fin[r->nfin++] = (torus__ms_seg){off[i], p->rdispls[idx[at]], h[i].len};
            }
            r->nfin = torus__ms_merge(r->fin, r->nfin);
            free(idx);
        }
    }
    free(h), free(off);
    return rc;
}

/* Copies and posts phase i. */
static int begin(torus_multisend *p, int i)
{
    routed *r = p->impl;
    phase *f = &r->ph[i];
    const unsigned char *held = i ? r->ph[i - 1].next : p->sbuf;
    torus__ms_copy(f->out, f->nout, f->sendbuf, held);
    torus__ms_copy(f->keep, f->nkeep, f->next, held);
    int rc = 0;
    r->nreq = 0;
    for (int q = 0; q < f->npart && !rc; q++)
        if (f->rlen[q])
            rc = torus__ms_irecv(p, f->peer[q], f->next + f->roff[q], f->rlen[q], &r->req[r->nreq++]);
    for (int q = 0; q < f->npart && !rc; q++)
        if (f->slen[q])
            rc = torus__ms_isend(p, f->peer[q], f->sendbuf + f->soff[q], f->slen[q], &r->req[r->nreq++]);
    if (rc) {
        r->req[r->nreq - 1].id = -1; /* the one that failed was never started */
        r->failed = rc;
    }
    return rc;
}

static int start(torus_multisend *p)
{
    routed *r = p->impl;
    r->cur = 0;
    r->bad = 0;
    r->failed = 0;
    r->nreq = 0;
    return r->nph ? begin(p, 0) : 0;
}

static int progress(torus_multisend *p)
{
    routed *r = p->impl;
    for (;;) {
        int rc = torus__ms_test_all(p, r->req, r->nreq, &r->bad);
        if (rc > 0)
            return 0;
        if (rc < 0 || r->failed)
            return rc < 0 ? rc : r->failed;
        if (r->cur + 1 >= r->nph) {
            torus__ms_copy(r->fin, r->nfin, p->rbuf, r->nph ? r->ph[r->nph - 1].next : p->sbuf);
            return 1;
        }
        r->cur++;
        begin(p, r->cur);
    }
}

const torus__ms_alg torus__ms_routed = {
    .name = "routed",
    .summary = "blocks aggregated dimension by dimension: at most sum(k_d - 1) messages per rank",
    .setup = setup,
    .start = start,
    .progress = progress,
    .release = release,
};
