/*
 * sim_timed.c - discrete-event simulation of the routed algorithm at scale.
 *
 * Algorithm: conservative discrete-event simulation of paper 002 sec. 5.
 *   Every virtual rank runs the real ropt state machine.  The rank with the
 *   smallest clock steps next (a heap), so when it polls at time t no other
 *   rank can still send something arriving before t.  A step costs
 *   t_local per update generated and t_hop per update bucketed (the CPU
 *   model of sec. 6.2).  A packet of 8n + header bytes crosses the physical
 *   links of its dimension on the shorter way round, cut-through as on
 *   BlueGene/L: it starts when every link of its path is free and holds
 *   them all for bytes/link_bw, then arrives after one latency per link.  A send slot is free again once its packet has left on the
 *   first link (an eager send: the receiver queues what it cannot take).  A
 *   rank with nothing to do sleeps until its next arrival or slot release,
 *   or until someone sends to it.  GUPS is the steady rate: 80% of the
 *   updates over the time from 10% to 90% of the expected CPU work done; the whole run, start and drain included,
 *   is reported beside it.
 *   Cost: O(updates * hops * log N) time; O(N * (sum k) * cap) memory with
 *   compact routes (no N x N table), so 64x32x32 fits in a few GB.
 */
#include "sim_timed.h"

#include "ra_dist.h"
#include "ra_gen.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tpkt {
    uint64_t *data;
    int n, last, src_coord;
    double arrive;
} tpkt;

typedef struct tqueue {
    tpkt *q;
    int len, cap, held; /* held: index of the packet the receiver holds, -1 none */
} tqueue;

typedef struct tsim tsim;
typedef struct tep {
    tsim *s;
    int rank;
} tep;

struct tsim {
    const torus_map *map;
    int n, nd, cap, slots;
    double bw, lat, hdr;
    double *clock;     /* per rank */
    double *slot_free; /* n * nd * slots */
    tqueue *in;        /* n * nd */
    double *link_free; /* n * nd * 2 */
    double busy;       /* link-seconds */
    uint64_t packets, words, recvs;
    uint64_t **pool;
    int pool_len, pool_cap;
    tep *ep;
    /* ranks asleep with nothing to do, woken by a send */
    unsigned char *asleep;
    int *wake;
    int nwake;
};

static uint64_t *buf_get(tsim *s)
{
    if (s->pool_len)
        return s->pool[--s->pool_len];
    return malloc((size_t)s->cap * sizeof(uint64_t) + 8);
}

static int buf_put(tsim *s, uint64_t *b)
{
    if (s->pool_len == s->pool_cap) {
        int nc = s->pool_cap ? 2 * s->pool_cap : 1024;
        uint64_t **np = realloc(s->pool, (size_t)nc * sizeof *np);
        if (!np) {
            free(b);
            return -1;
        }
        s->pool = np;
        s->pool_cap = nc;
    }
    s->pool[s->pool_len++] = b;
    return 0;
}

static int t_can_send(void *impl, int d)
{
    tep *e = impl;
    tsim *s = e->s;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[((size_t)e->rank * s->nd + d) * s->slots];
    for (int i = 0; i < s->slots; i++)
        if (f[i] <= now)
            return 1;
    return 0;
}

static int t_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    tep *e = impl;
    tsim *s = e->s;
    int r = e->rank;
    double now = s->clock[r];
    double *f = &s->slot_free[((size_t)r * s->nd + d) * s->slots];
    int slot = 0;
    while (slot < s->slots && f[slot] > now)
        slot++;
    if (slot == s->slots)
        return -1;
    const torus_shape *sh = &s->map->shape;
    const int *mine = &s->map->coords[(size_t)r * s->nd];
    int from = mine[d], k = sh->k[d];
    /* physical path along d: the shorter way round a ring, straight in a mesh */
    int fwd = (to - from + k) % k, steps, dir;
    if (sh->mesh[d]) {
        dir = to > from ? 0 : 1;
        steps = abs(to - from);
    } else if (fwd <= k - fwd) {
        dir = 0, steps = fwd;
    } else {
        dir = 1, steps = k - fwd;
    }
    double bytes = 8.0 * n + s->hdr, ser = bytes / s->bw, t = now, injected = now;
    int c[TORUS_MAX_DIMS];
    memcpy(c, mine, (size_t)s->nd * sizeof *c);
    /* cut-through: the packet holds every link of its path for the same
     * window [start, start + ser], start = when the whole path is free */
    double start = now;
    int c0 = c[d];
    for (int pass = 0; pass < 2; pass++) {
        c[d] = c0;
        for (int h = 0; h < steps; h++) {
            double *lf = &s->link_free[((size_t)torus_map_linear(sh, c) * s->nd + d) * 2 + dir];
            if (pass == 0 && *lf > start)
                start = *lf;
            if (pass == 1)
                *lf = start + ser;
            c[d] = dir == 0 ? (c[d] + 1) % k : (c[d] - 1 + k) % k;
        }
    }
    s->busy += ser * steps;
    injected = start + ser;
    t = start + ser + s->lat * steps;
    c[d] = to;
    int dest = s->map->rank_of[torus_map_linear(sh, c)];
    tqueue *q = &s->in[(size_t)dest * s->nd + d];
    if (q->len == q->cap) {
        int nc = q->cap ? 2 * q->cap : 4;
        tpkt *nq = realloc(q->q, (size_t)nc * sizeof *nq);
        if (!nq)
            return -1;
        q->q = nq;
        q->cap = nc;
    }
    uint64_t *fresh = buf_get(s);
    if (!fresh)
        return -1;
    q->q[q->len++] = (tpkt){*buf, n, last, from, t};
    *buf = fresh;
    f[slot] = injected;
    s->packets++;
    s->words += (uint64_t)n;
    if (s->asleep[dest]) {
        s->asleep[dest] = 0;
        if (s->clock[dest] < t)
            s->clock[dest] = t;
        s->wake[s->nwake++] = dest;
    }
    return 0;
}

static int t_poll(void *impl, int d, torus_packet *pkt)
{
    tep *e = impl;
    tsim *s = e->s;
    tqueue *q = &s->in[(size_t)e->rank * s->nd + d];
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

static void t_release(void *impl, int d)
{
    tep *e = impl;
    tsim *s = e->s;
    tqueue *q = &s->in[(size_t)e->rank * s->nd + d];
    if (q->held < 0)
        return;
    buf_put(s, q->q[q->held].data);
    q->q[q->held] = q->q[--q->len];
    q->held = -1;
}

static int t_quiescent(void *impl)
{
    tep *e = impl;
    tsim *s = e->s;
    double now = s->clock[e->rank];
    const double *f = &s->slot_free[(size_t)e->rank * s->nd * s->slots];
    for (int i = 0; i < s->nd * s->slots; i++)
        if (f[i] > now)
            return 0;
    return 1;
}

/* The next time something changes for rank r by itself: an arrival or a
 * slot release after now; INFINITY if only another rank can wake it. */
static double next_event(const tsim *s, int r)
{
    double now = s->clock[r], t = INFINITY;
    for (int d = 0; d < s->nd; d++) {
        const tqueue *q = &s->in[(size_t)r * s->nd + d];
        for (int i = 0; i < q->len; i++)
            if (q->q[i].arrive > now && q->q[i].arrive < t)
                t = q->q[i].arrive;
    }
    const double *f = &s->slot_free[(size_t)r * s->nd * s->slots];
    for (int i = 0; i < s->nd * s->slots; i++)
        if (f[i] > now && f[i] < t)
            t = f[i];
    return t;
}

/* Binary min-heap of ranks by clock. */
typedef struct heap {
    int *r;
    int len;
} heap;

static void heap_push(heap *h, const double *key, int r)
{
    int i = h->len++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (key[h->r[p]] <= key[r])
            break;
        h->r[i] = h->r[p];
        i = p;
    }
    h->r[i] = r;
}

static int heap_pop(heap *h, const double *key)
{
    int top = h->r[0], last = h->r[--h->len], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && key[h->r[c + 1]] < key[h->r[c]])
            c++;
        if (key[last] <= key[h->r[c]])
            break;
        h->r[i] = h->r[c];
        i = c;
    }
    if (h->len)
        h->r[i] = last;
    return top;
}

int tm_simulate(const tm_sim_config *c, tm_sim_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    const torus_shape *sh = &c->shape;
    int N = sh->n, nd = sh->ndims;
    if (N > 65536) {
        snprintf(err, errlen, "--simulate on %d ranks refused: allowed at most 65536 (64x32x32)", N);
        return -2;
    }
    if (c->p.t_local + c->p.t_hop <= 0) {
        snprintf(err, errlen, "--simulate needs CPU costs: set t_local and t_hop (e.g. --preset bgl-routed)");
        return -2;
    }
    ropt_params prm = {1024, c->lookahead ? c->lookahead : 64, 0};
    int cap = ropt_capacity(sh, &prm);
    if (cap < 1) {
        snprintf(err, errlen, "shape leaves no bucket capacity: sum of sizes must stay below %d", prm.budget);
        return -2;
    }
    int log2 = 20;
    while ((1L << log2) < 16L * N)
        log2++;
    uint64_t TS = 1ULL << log2, total = (uint64_t)c->updates_per_rank * (uint64_t)N;
    double f = c->p.clock_hz;
    double t_gen = c->p.t_local / f, t_hop = c->p.t_hop / f;
    torus_map map;
    memset(&map, 0, sizeof map);
    tsim s;
    memset(&s, 0, sizeof s);
    ropt *ranks = NULL;
    torus_route *routes = NULL;
    torus_transport *tps = NULL;
    uint64_t *table = NULL, *ref = NULL;
    heap h = {NULL, 0};
    int rc = -3;
    snprintf(err, errlen, "out of memory simulating %d ranks", N);
    if (torus_map_xyzt(&map, sh))
        goto out;
    s.map = &map;
    s.n = N, s.nd = nd, s.cap = cap, s.slots = c->outstanding ? c->outstanding : 2;
    s.bw = c->p.link_bw, s.lat = c->latency_s, s.hdr = c->header_bytes;
    s.clock = calloc((size_t)N, sizeof *s.clock);
    s.slot_free = calloc((size_t)N * nd * s.slots, sizeof *s.slot_free);
    s.in = calloc((size_t)N * nd, sizeof *s.in);
    s.link_free = calloc((size_t)N * nd * 2, sizeof *s.link_free);
    s.ep = calloc((size_t)N, sizeof *s.ep);
    s.asleep = calloc((size_t)N, 1);
    s.wake = malloc((size_t)N * sizeof *s.wake);
    ranks = calloc((size_t)N, sizeof *ranks);
    routes = calloc((size_t)N, sizeof *routes);
    tps = calloc((size_t)N, sizeof *tps);
    table = malloc(TS * sizeof *table);
    h.r = malloc((size_t)N * sizeof *h.r);
    if (!s.clock || !s.slot_free || !s.in || !s.link_free || !s.ep || !s.asleep || !s.wake || !ranks || !routes ||
        !tps || !table || !h.r)
        goto out;
    for (size_t i = 0; i < (size_t)N * nd; i++)
        s.in[i].held = -1;
    ra_table_init(table, TS, 0);
    ra_dist td, ud;
    ra_dist_init(&td, TS, N);
    ra_dist_init(&ud, total, N);
    for (int r = 0; r < N; r++) {
        s.ep[r] = (tep){&s, r};
        tps[r] = (torus_transport){&s.ep[r], t_can_send, t_send, t_poll, t_release, t_quiescent};
    }
    if (ropt_ranks_init(ranks, routes, tps, &map, &prm, table, &td, log2, RA_GEN_LFSR, 1))
        goto out;
    for (int r = 0; r < N; r++) {
        ropt_start(&ranks[r], ra_dist_start(&ud, r), ra_dist_count(&ud, r));
        heap_push(&h, s.clock, r);
    }
    int left = N;
    double makespan = 0, t10 = -1, t90 = -1, work = 0;
    const double work_all = (double)total * (t_gen + torus_expected_hops(sh) * t_hop);
    while (h.len) {
        int r = heap_pop(&h, s.clock);
        ropt *o = &ranks[r];
        uint64_t gen0 = o->generated, hop0 = o->st.hops;
        s.nwake = 0;
        int moved = ropt_step(o);
        res->steps++;
        double cost = (double)(o->generated - gen0) * t_gen + (double)(o->st.hops - hop0) * t_hop;
        s.clock[r] += cost;
        /* steady state: the time between 10% and 90% of the expected CPU
         * work done (ranks step in time order: this clock is global time) */
        work += cost;
        if (t10 < 0 && work >= 0.1 * work_all)
            t10 = s.clock[r];
        if (t90 < 0 && work >= 0.9 * work_all)
            t90 = s.clock[r];
        for (int i = 0; i < s.nwake; i++)
            heap_push(&h, s.clock, s.wake[i]);
        if (o->done) {
            left--;
            if (s.clock[r] > makespan)
                makespan = s.clock[r];
            continue;
        }
        if (!moved) {
            double t = next_event(&s, r);
            if (t == INFINITY) {
                s.asleep[r] = 1; /* until someone sends to it */
                continue;
            }
            s.clock[r] = t;
        }
        heap_push(&h, s.clock, r);
    }
    if (left) {
        snprintf(err, errlen, "simulation stuck: %d of %d ranks never finished", left, N);
        goto out;
    }
    /* the exactness check: the same updates applied sequentially */
    ref = malloc(TS * sizeof *ref);
    if (!ref)
        goto out;
    ra_table_init(ref, TS, 0);
    ra_local_replay(ref, log2, RA_GEN_LFSR, total);
    res->fingerprint = ra_table_fingerprint(table, TS, 0);
    res->exact = !memcmp(ref, table, TS * sizeof *ref);
    ra_stats sum;
    ropt_ranks_stats(ranks, N, &sum);
    res->updates = total;
    res->packets = s.packets;
    res->time_s = makespan;
    res->gups_total = makespan > 0 ? (double)total / makespan / 1e9 : 0;
    res->gups = t90 > t10 && t10 >= 0 ? 0.8 * (double)total / (t90 - t10) / 1e9 : res->gups_total;
    res->sbf = sum.send_tests ? (double)sum.send_blocked / (double)sum.send_tests : 0;
    long nlinks = 0;
    for (int d = 0; d < nd; d++)
        if (sh->k[d] > 1)
            nlinks += sh->mesh[d] ? 2L * (N / sh->k[d]) * (sh->k[d] - 1) : 2L * N;
    res->link_util = nlinks && makespan > 0 ? s.busy / ((double)nlinks * makespan) : 0;
    res->bytes_per_update = ((double)s.words * 8 + (double)s.packets * s.hdr) / (double)total;
    res->hops_per_update = (double)sum.hops / (double)total;
    rc = 0;
    err[0] = 0;
out:
    ropt_ranks_free(ranks, routes, N);
    if (s.in)
        for (size_t i = 0; i < (size_t)N * nd; i++) {
            for (int j = 0; j < s.in[i].len; j++)
                free(s.in[i].q[j].data);
            free(s.in[i].q);
        }
    for (int i = 0; i < s.pool_len; i++)
        free(s.pool[i]);
    free(s.pool);
    free(s.clock), free(s.slot_free), free(s.in), free(s.link_free), free(s.ep), free(s.asleep), free(s.wake);
    free(ranks), free(routes), free(tps), free(table), free(ref), free(h.r);
    torus_map_free(&map);
    return rc;
}
