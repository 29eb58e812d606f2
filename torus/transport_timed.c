/*
 * transport_timed.c - the timed transport: its packet interface, creation
 * and binding a rank.  Its other parts: timed_links.c (link books),
 * timed_route.c (messages), timed_loop.c (the event heap and run loop),
 * sharing timed_impl.h.
 *
 * Model: a packet of 8n + header bytes (or, with a wire format, the
 *   chunked packets of torus_timed_wire_bytes) crosses the physical links of its
 *   dimension on the shorter way round a ring (straight along a mesh line;
 *   at exactly half a ring + from even coordinates, - from odd ones),
 *   cut-through as on BlueGene/L: it starts when every link of its path is
 *   free, holds them all for bytes/link_bw, and arrives one latency per
 *   link later.  A send slot is free again once its packet has left the
 *   first link (an eager send: the receiver queues what it cannot take).
 *   poll() hands out the earliest packet that has arrived by the rank's
 *   clock.  CPU time is charged by the caller's step function.
 *   Messages (the collectives' interface) are cut into packets that book
 *   the links of the dimension-ordered route hop by hop in per-link lists
 *   of busy intervals, so they fill the idle gaps that earlier bookings
 *   left (see route_message); packets at exactly half a ring alternate
 *   between the two ways.  The packet interface keeps its own one
 *   free-at time per link (what ra_opt's figures were made with), or with
 *   link_gaps takes the earliest window in the same lists of busy
 *   intervals in which its whole path is idle; a run uses one interface
 *   or the other.
 * Loop: conservative discrete-event simulation, ranks in a min-heap by
 *   clock.  Cost O(steps * log N); memory O(N * ndims * (slots + queue)).
 */
#include "timed_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int timed_can_send(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[((size_t)e->rank * s->nd + d) * s->p.outstanding];
    for (int i = 0; i < s->p.outstanding; i++)
        if (f[i] <= now)
            return 1;
    s->refused[e->rank] = 1;
    return 0;
}

/* Words of this rank's packets along d not yet off its first link. */
static int timed_sending(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    size_t base = ((size_t)e->rank * s->nd + d) * s->p.outstanding;
    int w = 0;
    for (int i = 0; i < s->p.outstanding; i++)
        if (s->slot_free[base + i] > now)
            w += s->slot_words[base + i];
    return w;
}

static int timed_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    int r = e->rank;
    double now = s->clock[r];
    double *f = &s->slot_free[((size_t)r * s->nd + d) * s->p.outstanding];
    int slot = 0;
    while (slot < s->p.outstanding && f[slot] > now)
        slot++;
    if (slot == s->p.outstanding) {
        s->refused[r] = 1;
        return -1;
    }
    const torus_shape *sh = &s->map->shape;
    const int *mine = &s->map->coords[(size_t)r * s->nd];
    int from = mine[d], k = sh->k[d];
    /* physical path along d: the shorter way round a ring, straight in a mesh */
    int fwd = (to - from + k) % k, steps, dir;
    if (sh->mesh[d]) {
        dir = to > from ? 0 : 1;
        steps = abs(to - from);
    } else if (fwd < k - fwd) {
        dir = 0, steps = fwd;
    } else if (fwd > k - fwd) {
        dir = 1, steps = k - fwd;
    } else {
        /* half a ring: even coordinates go +, odd ones -.  Always one
         * way would load the + links of a k-ring (k / 2 + 1) / (k / 2 - 1)
         * times as much as the - links; a fixed way per sender keeps its
         * packets to one router in order (FinishLogic's last packet must
         * not overtake the updates before it) */
        dir = from & 1, steps = fwd;
    }
    double bytes = torus_timed_wire_bytes(&s->p, n, NULL), ser = bytes / s->p.link_bw;
    int c[TORUS_MAX_DIMS];
    memcpy(c, mine, (size_t)s->nd * sizeof *c);
    /* cut-through: the packet holds every link of its path for the same
     * window [start, start + ser], start = when the whole path is free */
    double start = now;
    int c0 = c[d];
    if (s->p.link_gaps) {
        /* the earliest window at which every link of the path is idle,
         * in the gaps earlier bookings left: scan until no link pushes
         * the start further, then book it on all of them */
        for (int moved = 1, first = 1; moved; first = 0) {
            moved = 0;
            c[d] = c0;
            for (int h = 0; h < steps; h++) {
                link_book *b = &s->book[torus__timed_link_at(s, c, d, dir)];
                if (first)
                    torus__timed_book_prune(b, s->horizon);
                int pos;
                double at = torus__timed_book_find(b, start, ser, &pos);
                if (at > start + BOOK_EPS)
                    start = at, moved = 1;
                torus__timed_step_along(c, d, dir, k);
            }
        }
        c[d] = c0;
        for (int h = 0; h < steps; h++) {
            size_t li = torus__timed_link_at(s, c, d, dir);
            if (torus__timed_book_take(&s->book[li], start, ser) < 0)
                return -1;
            s->link_busy[li] += ser;
            torus__timed_step_along(c, d, dir, k);
        }
    } else {
        for (int pass = 0; pass < 2; pass++) {
            c[d] = c0;
            for (int h = 0; h < steps; h++) {
                size_t li = torus__timed_link_at(s, c, d, dir);
                if (pass == 0 && s->link_free[li] > start)
                    start = s->link_free[li];
                if (pass == 1) {
                    s->link_free[li] = start + ser;
                    s->link_busy[li] += ser;
                }
                torus__timed_step_along(c, d, dir, k);
            }
        }
    }
    s->busy += ser * steps;
    double injected = start + ser, arrive = start + ser + s->p.latency_s * steps;
    c[d] = to;
    int dest = s->map->rank_of[torus_map_linear(sh, c)];
    torus__pktq *q = &s->in[(size_t)dest * s->nd + d];
    torus__pkt *pk = torus__pktq_send(q, &s->pool, buf, n, last, r);
    if (!pk)
        return -1;
    pk->arrive = arrive;
    f[slot] = injected;
    s->slot_words[((size_t)r * s->nd + d) * s->p.outstanding + slot] = n;
    s->packets++;
    s->words += (uint64_t)n;
    s->wire_bytes += bytes;
    int bin = (int)((double)n * TORUS_TIMED_FILL_BINS / s->p.cap - 1e-9);
    s->fill_hist[bin < 0 ? 0 : bin >= TORUS_TIMED_FILL_BINS ? TORUS_TIMED_FILL_BINS - 1 : bin]++;
    if (s->asleep[dest]) {
        s->asleep[dest] = 0;
        if (s->clock[dest] < arrive) {
            s->waiting += arrive - s->clock[dest];
            s->clock[dest] = arrive;
        }
        s->wake[s->nwake++] = dest;
    }
    return 0;
}

double torus_timed_wire_bytes(const torus_timed_params *p, int n, int *npk)
{
    double h = p->header_bytes, c = p->chunk_bytes;
    /* words per packet: what the largest packet holds beside its header */
    int per = p->packet_max_bytes > 0 ? (int)((p->packet_max_bytes - h) / 8) : n;
    if (per < 1)
        per = 1;
    double bytes = 0;
    int k = 0, left = n;
    do {
        int m = left < per ? left : per;
        double b = 8.0 * m + h;
        if (c > 0)
            b = c * ceil(b / c);
        bytes += b + p->link_overhead_bytes;
        left -= m;
        k++;
    } while (left > 0);
    if (npk)
        *npk = k;
    return bytes;
}

static int timed_poll(void *impl, int d, torus_packet *pkt)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    torus__pktq *q = &s->in[(size_t)e->rank * s->nd + d];
    if (q->held >= 0)
        return 0;
    double now = s->clock[e->rank];
    int best = -1;
    for (int i = 0; i < q->len; i++)
        if (q->q[i].arrive <= now && (best < 0 || q->q[i].arrive < q->q[best].arrive))
            best = i;
    if (best < 0)
        return 0;
    q->held = best;
    pkt->data = q->q[best].data;
    pkt->n = q->q[best].n;
    pkt->last = q->q[best].last;
    s->recvs++;
    return 1;
}

static void timed_release(void *impl, int d)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    torus__pktq *q = &s->in[(size_t)e->rank * s->nd + d];
    if (q->held < 0)
        return;
    torus__pool_put(&s->pool, q->q[q->held].data);
    torus__pktq_remove_swap(q, q->held);
    q->held = -1;
}

static int timed_quiescent(void *impl)
{
    timed_ep *e = impl;
    torus_timed *s = e->t;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[(size_t)e->rank * s->nd * s->p.outstanding];
    for (int i = 0; i < s->nd * s->p.outstanding; i++)
        if (f[i] > now)
            return 0;
    return 1;
}

torus_timed *torus_timed_create(const torus_map *m, const torus_timed_params *p)
{
    if (p->cap < 1 || p->outstanding < 1 || !(p->link_bw > 0) || p->packet_bytes < 0 || !(p->chunk_bytes >= 0) ||
        !(p->link_overhead_bytes >= 0) || !(p->packet_max_bytes >= 0) ||
        (p->packet_max_bytes > 0 && p->packet_max_bytes < p->header_bytes + 8))
        return NULL;
    torus_timed *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->map = m;
    s->p = *p;
    s->n = m->shape.n;
    s->nd = m->shape.ndims;
    size_t nq = (size_t)s->n * (size_t)(s->nd ? s->nd : 1);
    s->clock = calloc((size_t)s->n, sizeof *s->clock);
    s->slot_free = calloc(nq * (size_t)p->outstanding, sizeof *s->slot_free);
    s->slot_words = calloc(nq * (size_t)p->outstanding, sizeof *s->slot_words);
    s->in = calloc(nq, sizeof *s->in);
    s->link_free = calloc(nq * 2, sizeof *s->link_free);
    s->link_busy = calloc(nq * 2, sizeof *s->link_busy);
    s->refused = calloc((size_t)s->n, 1);
    s->book = calloc(nq * 2, sizeof *s->book);
    s->ties = calloc((size_t)s->n, sizeof *s->ties);
    s->ep = calloc((size_t)s->n, sizeof *s->ep);
    s->asleep = calloc((size_t)s->n, 1);
    s->wake = malloc((size_t)s->n * sizeof *s->wake);
    s->msgs = torus__msgs_create(s->n);
    s->cpu_due = calloc((size_t)s->n, sizeof *s->cpu_due);
    if (!s->clock || !s->slot_free || !s->slot_words || !s->in || !s->link_free || !s->link_busy || !s->refused || !s->book || !s->ties ||
        !s->ep || !s->asleep || !s->wake || !s->msgs ||
        !s->cpu_due) {
        torus_timed_destroy(s);
        return NULL;
    }
    torus__pktq_init_all(s->in, nq);
    s->pool.words = (size_t)p->cap;
    if (!(s->p.packet_bytes > 0))
        s->p.packet_bytes = 240;
    return s;
}

void torus_timed_destroy(torus_timed *s)
{
    if (!s)
        return;
    torus__pktq_free_all(s->in, (size_t)s->n * (size_t)s->nd);
    torus__pool_free(&s->pool);
    torus__msgs_destroy(s->msgs);
    if (s->book)
        for (size_t i = 0; i < (size_t)s->n * (size_t)(s->nd ? s->nd : 1) * 2; i++)
            free(s->book[i].s), free(s->book[i].e);
    free(s->book), free(s->ties);
    free(s->cpu_due);
    free(s->clock), free(s->slot_free), free(s->slot_words), free(s->in), free(s->link_free), free(s->ep), free(s->asleep), free(s->wake);
    free(s->link_busy), free(s->refused);
    free(s->mark[0].link_busy), free(s->mark[1].link_busy);
    free(s);
}

double torus_timed_take_cpu(torus_timed *s, int r)
{
    double c = s->cpu_due[r];
    s->cpu_due[r] = 0;
    return c;
}

double torus_timed_clock(const torus_timed *s, int r)
{
    return s->clock[r] + s->cpu_due[r];
}

int torus_timed_open_requests(const torus_timed *s, int r)
{
    return torus__msgs_open(s->msgs, r);
}

void torus_timed_bind(torus_timed *s, int r, torus_transport *tp)
{
    s->ep[r].t = s;
    s->ep[r].rank = r;
    *tp = (torus_transport){.impl = &s->ep[r],
                            .can_send = timed_can_send,
                            .send = timed_send,
                            .poll = timed_poll,
                            .release = timed_release,
                            .quiescent = timed_quiescent,
                            .sending = timed_sending,
                            .isend = torus__timed_isend,
                            .irecv = torus__timed_irecv,
                            .test = torus__timed_test,
                            .reduced = torus__timed_reduced,
                            .line_send = torus__timed_line_send};
}
