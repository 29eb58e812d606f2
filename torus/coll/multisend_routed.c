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

/* One phase of the header-only routing along dimension d: fills f from
 * the held records (h[0..*nh), at offsets off[]) and replaces them by the
 * records held after the phase.  Collective along the line. */
static int route_phase(torus_multisend *p, int d, phase *f, rec **h, size_t **off, int *nh)
{
    torus_coll *c = p->c;
    int me = c->me, k = c->map->shape.k[d], mine = torus__coords(c, me)[d], rc;
    f->npart = k - 1;
    f->peer = malloc((size_t)k * sizeof *f->peer);
    f->soff = malloc(4 * (size_t)k * sizeof *f->soff);
    f->out = malloc(((size_t)*nh + 1) * sizeof *f->out);
    size_t *cnt_to = calloc(2 * (size_t)k, sizeof *cnt_to), *cnt_from = cnt_to ? cnt_to + k : NULL;
    torus_req *req = malloc(2 * (size_t)k * sizeof *req);
    if (!f->peer || !f->soff || !f->out || !cnt_to || !req) {
        free(cnt_to), free(req);
        return oom(p);
    }
    f->slen = f->soff + k;
    f->roff = f->soff + 2 * k;
    f->rlen = f->soff + 3 * k;
    f->keep = NULL;
    /* partners in coordinate order after mine (spreads the line's traffic) */
    int *qof = f->peer; /* reused: partner i is coordinate (mine + 1 + i) % k */
    for (int i = 0; i < k - 1; i++)
        qof[i] = torus__line_rank(c, me, d, (mine + 1 + i) % k);
    /* bytes and records per coordinate */
    size_t *bytes_to = f->slen; /* indexed by partner */
    memset(f->slen, 0, (size_t)k * sizeof *f->slen);
    for (int i = 0; i < *nh; i++) {
        int q = torus__coords(c, (*h)[i].dst)[d];
        if (q == mine)
            continue;
        int pi = (q - mine - 1 + k) % k;
        bytes_to[pi] += (*h)[i].len;
        cnt_to[pi]++;
    }
    size_t so = 0, ko = 0;
    for (int i = 0; i < k - 1; i++) {
        f->soff[i] = so;
        so += f->slen[i];
    }
    /* send copies in partner order, records of one partner in held order */
    rec *sendrec = malloc(((size_t)*nh + 1) * sizeof *sendrec);
    size_t *recstart = malloc((size_t)k * sizeof *recstart);
    size_t *cursor = malloc((size_t)k * sizeof *cursor);
    size_t *rcur = malloc((size_t)k * sizeof *rcur);
    if (!sendrec || !recstart || !cursor || !rcur) {
        free(cnt_to), free(req), free(sendrec), free(recstart), free(cursor), free(rcur);
        return oom(p);
    }
    size_t ro = 0;
    for (int i = 0; i < k - 1; i++) {
        recstart[i] = ro;
        ro += cnt_to[i];
        cursor[i] = f->soff[i];
        rcur[i] = recstart[i];
    }
    int nkeep = 0, nout = 0;
    /* kept records move to the front of the next buffer, in held order;
     * their segments use the tail of f->out (it has *nh slots) */
    torus__ms_seg *keepseg = malloc(((size_t)*nh + 1) * sizeof *keepseg);
    rec *kept = malloc(((size_t)*nh + 1) * sizeof *kept);
    if (!keepseg || !kept) {
        free(cnt_to), free(req), free(sendrec), free(recstart), free(cursor), free(rcur), free(keepseg), free(kept);
        return oom(p);
    }
    for (int i = 0; i < *nh; i++) {
        rec *x = &(*h)[i];
        int q = torus__coords(c, x->dst)[d];
        if (q == mine) {
            keepseg[nkeep] = (torus__ms_seg){(*off)[i], ko, x->len};
            kept[nkeep++] = *x;
            ko += x->len;
            continue;
        }
        int pi = (q - mine - 1 + k) % k;
        f->out[nout++] = (torus__ms_seg){(*off)[i], cursor[pi], x->len};
        cursor[pi] += x->len;
        sendrec[rcur[pi]++] = *x;
    }
    /* out segments are in held order; sorting is not needed for copying */
    f->nout = torus__ms_merge(f->out, nout);
    f->keep = keepseg;
    f->nkeep = nkeep;
    /* headers: record counts first, then the records */
    int nr = 0;
    for (int i = 0; i < k - 1; i++) {
        if ((rc = torus__ms_irecv(p, qof[i], &cnt_from[i], sizeof(size_t), &req[nr++])))
            goto fail;
    }
    for (int i = 0; i < k - 1; i++)
        if ((rc = torus__ms_isend(p, qof[i], &cnt_to[i], sizeof(size_t), &req[nr++])))
            goto fail;
    if ((rc = torus__wait(c, req, nr)))
        goto fail;
    size_t nin = 0;
    for (int i = 0; i < k - 1; i++)
        nin += cnt_from[i];
    rec *nh2 = malloc(((size_t)nkeep + nin + 1) * sizeof *nh2);
    size_t *noff = malloc(((size_t)nkeep + nin + 1) * sizeof *noff);
    if (!nh2 || !noff) {
        free(nh2), free(noff);
        rc = oom(p);
        goto fail;
    }
    memcpy(nh2, kept, (size_t)nkeep * sizeof *nh2);
    nr = 0;
    size_t at = (size_t)nkeep;
    for (int i = 0; i < k - 1; i++) {
        if (cnt_from[i] && (rc = torus__ms_irecv(p, qof[i], nh2 + at, cnt_from[i] * sizeof *nh2, &req[nr++]))) {
            free(nh2), free(noff);
            goto fail;
        }
        at += cnt_from[i];
    }
    for (int i = 0; i < k - 1; i++)
        if (cnt_to[i] && (rc = torus__ms_isend(p, qof[i], sendrec + recstart[i], cnt_to[i] * sizeof *sendrec,
                                               &req[nr++]))) {
            free(nh2), free(noff);
            goto fail;
        }
    if ((rc = torus__wait(c, req, nr))) {
        free(nh2), free(noff);
        goto fail;
    }
    /* the layout of the next buffer: kept blocks, then each partner's */
    size_t o = 0;
    for (int i = 0; i < nkeep; i++) {
        noff[i] = o;
        o += nh2[i].len;
    }
    at = (size_t)nkeep;
    for (int i = 0; i < k - 1; i++) {
        f->roff[i] = o;
        for (size_t j = 0; j < cnt_from[i]; j++, at++) {
            noff[at] = o;
            o += nh2[at].len;
        }
        f->rlen[i] = o - f->roff[i];
    }
    f->nkeep = torus__ms_merge(f->keep, f->nkeep);
    f->sendbuf = malloc(so + 1);
    f->next = malloc(o + 1);
    if (!f->sendbuf || !f->next) {
        free(nh2), free(noff);
        rc = oom(p);
        goto fail;
    }
    free(*h);
    free(*off);
    *h = nh2;
    *off = noff;
    *nh = nkeep + (int)nin;
    rc = 0;
fail:
    free(cnt_to), free(req), free(sendrec), free(recstart), free(cursor), free(rcur), free(kept);
    if (f->keep != keepseg)
        free(keepseg);
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
