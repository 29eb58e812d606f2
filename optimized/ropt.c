/*
 * ropt.c - software-routed, dimension-ordered RandomAccess.
 *
 * Algorithm: paper 002 sec. 5.2-5.5 (Figures 1 and 2, FinishLogic,
 * per-dimension receive buckets), generalised to d dimensions.
 *   1. Send: for each dimension whose (single) full bucket can go, send it.
 *   2. Receive: for each dimension d, take a packet only into an empty
 *      receive bucket d; route its updates (local -> XOR, else into the
 *      bucket of the next router along a higher dimension); stop at the
 *      first update whose dimension already has a full bucket.
 *   3. Form: only when no bucket is full, generate updates and route them.
 *   4. Finish: when generation is over, dimension d closes once dimensions
 *      < d are closed, have delivered all their finish marks and hold no
 *      packet: every router along d gets its last bucket with the mark.
 * Held updates <= lookahead + sum_i (k_i + S) * cap <= 1024 by the capacity:
 * per dimension k_i - 1 send buckets, 1 receive bucket and S send slots
 * (a send holds its packet until it completes), each at most cap.
 * Deadlock freedom: an update in receive bucket d needs only buckets of
 * dimensions > d, and receive bucket d-1 (the last) needs none.
 * Cost per update (torusmodel's routed model): t_local + H * (t_hop +
 * (t_s + t_r) / fill), H = sum(1 - 1/k_i), fill <= cap.
 */
#include "ropt.h"

#include <stdlib.h>
#include <string.h>

void ropt_params_defaults(ropt_params *p)
{
    p->budget = ROPT_BUDGET;
    p->lookahead = ROPT_DEFAULT_LOOKAHEAD;
    p->outstanding = ROPT_DEFAULT_OUTSTANDING;
    p->shared_recv = 0;
}

int ropt_buffers(const torus_shape *s, const ropt_params *p)
{
    int sum = 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->k[d] >= 2)
            sum += s->k[d] + p->outstanding;
    return sum;
}

int ropt_capacity(const torus_shape *s, const ropt_params *p)
{
    int sum = ropt_buffers(s, p);
    if (p->outstanding < 1 || p->lookahead < 0 || p->lookahead > p->budget)
        return 0;
    /* one rank alone holds nothing but its look-ahead: any capacity will do */
    return sum > 0 ? (p->budget - p->lookahead) / sum : 1;
}

void ropt_auto_shape(int n, const ropt_params *p, int per_node, torus_shape *out)
{
    torus_shape cand, best;
    double bc = 0;
    int have = 0;
    for (int d = 1; d <= TORUS_MAX_DIMS; d++) {
        if (torus_shape_balanced(n, d, &cand))
            break;
        torus_shape full = cand;
        if (per_node > 0 && torus_shape_append(&full, per_node))
            break;
        int cap = ropt_capacity(&full, p);
        if (cap < 1)
            continue;
        double c = torus_expected_hops(&full) * (TORUS_AUTO_T_HOP + TORUS_AUTO_T_MSG / cap);
        if (!have || c < bc) {
            bc = c;
            best = cand;
            have = 1;
        }
    }
    if (have)
        *out = best;
    else
        torus_shape_balanced(n, 1, out);
}

int ropt_init(ropt *o, const torus_route *route, const torus_shape *shape, torus_transport *tp,
              const ropt_params *p, uint64_t *table, uint64_t local_start, uint64_t local_size,
              int log2, const ra_dist *td)
{
    memset(o, 0, sizeof *o);
    o->route = route;
    o->tp = tp;
    o->prm = *p;
    o->ndims = shape->ndims;
    memcpy(o->k, shape->k, sizeof o->k);
    o->cap = ropt_capacity(shape, p);
    if (o->cap < 1 || p->lookahead < 0 || p->lookahead > ROPT_MAX_LOOKAHEAD || p->outstanding < 1 ||
        p->outstanding > ROPT_MAX_OUTSTANDING)
        return -2;
    o->nb = route->nbuckets;
    o->bucket = calloc((size_t)(o->nb ? o->nb : 1), sizeof *o->bucket);
    o->fill = calloc((size_t)(o->nb ? o->nb : 1), sizeof *o->fill);
    if (!o->bucket || !o->fill)
        return -1;
    for (int b = 0; b < o->nb; b++)
        if (route->peer[b] >= 0 && !(o->bucket[b] = malloc((size_t)o->cap * sizeof(uint64_t) + 8)))
            return -1;
    o->table = table;
    o->local_start = local_start;
    o->local_size = local_size;
    o->log2 = log2;
    o->gen = RA_GEN_LFSR; /* set per phase by ropt_start */
    o->td = td;
    return 0;
}

void ropt_free(ropt *o)
{
    if (o->bucket)
        for (int b = 0; b < o->nb; b++)
            free(o->bucket[b]);
    free(o->bucket);
    free(o->fill);
    o->bucket = NULL;
    o->fill = NULL;
}

static inline void prefetch_if_local(const ropt *o, uint64_t v)
{
    uint64_t off = ra_gen_index(o->gen, v, o->log2) - o->local_start;
    if (off < o->local_size)
        __builtin_prefetch(&o->table[off], 1, 0);
}

/* Received updates are prefetched this far ahead of the one being routed. */
static inline int recv_ahead(const ropt *o)
{
    return o->prm.lookahead > 8 ? o->prm.lookahead : 8;
}

void ropt_start(ropt *o, ra_gen_kind gen, uint64_t start, uint64_t count)
{
    o->gen = gen;
    for (int b = 0; b < o->nb; b++)
        o->fill[b] = 0;
    for (int d = 0; d < o->ndims; d++) {
        o->full[d] = -1;
        o->have[d] = 0;
        o->closed[d] = 0;
        o->close_next[d] = 0;
        o->fin_recv[d] = 0;
    }
    o->nfull = 0;
    o->nheld = 0;
    o->in_buckets = o->in_recv = 0;
    o->ran = ra_gen_jump(o->gen, start);
    o->remaining = count;
    o->generated = 0;
    /* Fill the look-ahead ring: each value is generated once, prefetched
     * if local, and routed lookahead steps later. */
    o->ring_n = (uint64_t)o->prm.lookahead < count ? o->prm.lookahead : (int)count;
    if (o->ring_n > ROPT_MAX_LOOKAHEAD)
        o->ring_n = ROPT_MAX_LOOKAHEAD;
    o->ring_h = 0;
    for (int i = 0; i < o->ring_n; i++) {
        o->ran = ra_gen_next(o->gen, o->ran);
        o->ring[i] = o->ran;
        prefetch_if_local(o, o->ran);
    }
    o->ahead_left = count - (uint64_t)o->ring_n;
    o->done = 0;
    memset(&o->st, 0, sizeof o->st);
}

uint64_t ropt_held(const ropt *o)
{
    /* the ring holds what was generated and not yet routed (without a
     * ring, each update is generated and routed in one go) */
    uint64_t h = (o->ring_n ? o->remaining - o->ahead_left : 0) + o->in_buckets + o->in_recv;
    if (o->tp->sending)
        for (int d = 0; d < o->ndims; d++)
            if (o->k[d] >= 2)
                h += (uint64_t)o->tp->sending(o->tp->impl, d);
    return h;
}

/* Called after everything that can raise the count (forming, taking a
 * packet); sending only moves updates from a bucket to a send slot. */
static inline void note_pending(ropt *o)
{
    uint64_t p = ropt_held(o);
    if (p > o->st.max_pending)
        o->st.max_pending = p;
}

/* Routes one update; 0 = done (applied or bucketed), 1 = blocked (the
 * dimension of its next hop already has a full bucket). */
static inline int route_one(ropt *o, uint64_t v)
{
    uint64_t gi = ra_gen_index(o->gen, v, o->log2);
    uint64_t off = gi - o->local_start;
    if (off < o->local_size) {
        o->table[off] ^= v;
        return 0;
    }
    int b = torus_route_next(o->route, (int)ra_dist_owner(o->td, gi));
    int d = o->route->bucket_dim[b];
    if (o->full[d] >= 0)
        return 1;
    o->bucket[b][o->fill[b]++] = v;
    o->in_buckets++;
    if (o->fill[b] == o->cap) {
        o->full[d] = b;
        o->nfull++;
    }
    return 0;
}


/* Sends bucket b (n updates) along dimension d; the caller checked can_send. */
static void send_bucket(ropt *o, int d, int b, int last)
{
    int n = o->fill[b];
    int to = b - o->route->offset[d];
    o->tp->send(o->tp->impl, d, to, &o->bucket[b], n, last);
    if (n) {
        o->st.packets_sent++;
        o->st.updates_sent += (uint64_t)n;
        o->st.hops += (uint64_t)n;
        o->st.bytes_sent += 8 * (uint64_t)n;
    }
    o->in_buckets -= (uint64_t)n;
    o->fill[b] = 0;
    if (o->full[d] == b) {
        o->full[d] = -1;
        o->nfull--;
    }
}

static int can_send(ropt *o, int d)
{
    o->st.send_tests++;
    if (o->tp->can_send(o->tp->impl, d))
        return 1;
    o->st.send_blocked++;
    return 0;
}

/* Routes what is left of receive bucket d; releases it when empty. */
static int drain_recv(ropt *o, int d)
{
    torus_packet *pk = &o->pkt[d];
    int moved = 0;
    const int la = recv_ahead(o);
    while (o->pos[d] < pk->n) {
        if (o->pos[d] + la < pk->n)
            prefetch_if_local(o, pk->data[o->pos[d] + la]);
        if (route_one(o, pk->data[o->pos[d]]))
            break;
        o->pos[d]++;
        o->in_recv--;
        moved = 1;
    }
    if (o->pos[d] == pk->n) {
        o->tp->release(o->tp->impl, d);
        o->have[d] = 0;
        o->nheld--;
        moved = 1;
    }
    return moved;
}

static int take_packet(ropt *o, int d)
{
    if (!o->tp->poll(o->tp->impl, d, &o->pkt[d]))
        return 0;
    o->have[d] = 1;
    o->nheld++;
    o->pos[d] = 0;
    o->in_recv += (uint64_t)o->pkt[d].n;
    /* the first recv_ahead updates of the packet: drain_recv prefetches
     * only from there on */
    int la = recv_ahead(o) < o->pkt[d].n ? recv_ahead(o) : o->pkt[d].n;
    for (int i = 0; i < la; i++)
        prefetch_if_local(o, o->pkt[d].data[i]);
    if (o->pkt[d].last)
        o->fin_recv[d]++;
    note_pending(o);
    return 1;
}

#define FORM_BATCH 256

int ropt_step(ropt *o)
{
    int progress = 0;
    int D = o->ndims;

    /* 1. Send logic: at most one full bucket per dimension. */
    for (int d = 0; d < D; d++)
        if (o->full[d] >= 0 && can_send(o, d)) {
            send_bucket(o, d, o->full[d], 0);
            progress = 1;
        }

    /* 2. Receive logic. */
    if (!o->prm.shared_recv) {
        for (int d = 0; d < D; d++) {
            if (o->k[d] < 2)
                continue;
            for (;;) {
                if (!o->have[d] && !take_packet(o, d))
                    break;
                progress |= drain_recv(o, d);
                if (o->have[d])
                    break;
            }
        }
    } else {
        /* One receive bucket shared by all dimensions (Figure 3a). */
        for (int i = 0; i < D && !o->nheld; i++) {
            int d = (o->rr + i) % D;
            if (o->k[d] >= 2 && take_packet(o, d)) {
                o->rr = d + 1;
                progress = 1;
            }
        }
        for (int d = 0; d < D; d++)
            if (o->have[d])
                progress |= drain_recv(o, d);
    }

    /* 3. Form new updates only when no bucket is full. */
    if (o->remaining && !o->nfull) {
        uint64_t n = o->remaining < FORM_BATCH ? o->remaining : FORM_BATCH, i = 0;
        for (; i < n && !o->nfull; i++) {
            uint64_t v;
            if (o->ring_n == 0) {
                o->ran = ra_gen_next(o->gen, o->ran);
                v = o->ran;
            } else {
                v = o->ring[o->ring_h];
                if (o->ahead_left) {
                    o->ran = ra_gen_next(o->gen, o->ran);
                    o->ring[o->ring_h] = o->ran;
                    prefetch_if_local(o, o->ran);
                    o->ahead_left--;
                }
                if (++o->ring_h == o->ring_n)
                    o->ring_h = 0;
            }
            route_one(o, v);
        }
        o->remaining -= i;
        o->generated += i;
        note_pending(o);
        progress = 1;
    }

    /* 4. FinishLogic. */
    if (!o->remaining && !o->done) {
        for (int d = 0; d < D; d++) {
            if (o->closed[d])
                continue;
            int ready = 1;
            for (int e = 0; e < d; e++)
                if (o->fin_recv[e] < o->k[e] - 1 || o->have[e])
                    ready = 0;
            if (!ready)
                break;
            int me = o->route->my_coord[d];
            while (o->close_next[d] < o->k[d]) {
                int c = o->close_next[d];
                if (c == me) {
                    o->close_next[d]++;
                    continue;
                }
                if (!can_send(o, d))
                    break;
                send_bucket(o, d, o->route->offset[d] + c, 1);
                o->close_next[d]++;
                progress = 1;
            }
            if (o->close_next[d] < o->k[d])
                break;
            o->closed[d] = 1;
            progress = 1;
        }
        int all = 1;
        for (int d = 0; d < D; d++)
            if (!o->closed[d] || o->fin_recv[d] < o->k[d] - 1 || o->have[d])
                all = 0;
        if (all && o->tp->quiescent(o->tp->impl)) {
            o->done = 1;
            progress = 1;
        }
    }
    return progress;
}
