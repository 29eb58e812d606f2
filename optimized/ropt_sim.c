/*
 * ropt_sim.c - drives N copies of the ropt state machine over the simulated
 * transport, or over the shared-memory ring protocol in plain memory.  The
 * scheduler steps randomly chosen ranks; when a round makes no progress it
 * runs a strict pass (every rank, every packet visible); if that also moves
 * nothing while some rank is unfinished, it is a deadlock.
 */
#include "ropt_sim.h"
#include "ra_table.h"
#include "torus_shm.h"

#include <stdlib.h>
#include <string.h>

/* ---- the ring protocol under an adversarial scheduler ------------------ */

/* One virtual rank's end: the real ring code (torus_shm_core), with a
 * waiting packet hidden (delay) and a free send slot refused (refuse) at
 * random, so that the scheduler explores orders a real node might take. */
typedef struct ring_ep {
    torus_transport core;
    struct ring_world *w;
} ring_ep;

typedef struct ring_world {
    char **area;
    unsigned mask;
    uint64_t rng;
    double delay, refuse;
    int strict;
} ring_world;

static double ring_urand(ring_world *w)
{
    uint64_t x = w->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    w->rng = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static void *ring_area(void *ctx, int rank, unsigned *mask)
{
    ring_world *w = ctx;
    *mask = w->mask;
    return w->area[rank];
}

static int ring_can_send(void *impl, int d)
{
    ring_ep *e = impl;
    if (!e->w->strict && ring_urand(e->w) < e->w->refuse)
        return 0;
    return e->core.can_send(e->core.impl, d);
}

static int ring_send(void *impl, int d, int to, uint64_t **buf, int n, int last)
{
    ring_ep *e = impl;
    return e->core.send(e->core.impl, d, to, buf, n, last);
}

static int ring_poll(void *impl, int d, torus_packet *pkt)
{
    ring_ep *e = impl;
    if (!e->w->strict && ring_urand(e->w) < e->w->delay)
        return 0;
    return e->core.poll(e->core.impl, d, pkt);
}

static void ring_release(void *impl, int d)
{
    ring_ep *e = impl;
    e->core.release(e->core.impl, d);
}

static int ring_quiescent(void *impl)
{
    ring_ep *e = impl;
    return e->core.quiescent(e->core.impl);
}

static int ring_sending(void *impl, int d)
{
    ring_ep *e = impl;
    return e->core.sending(e->core.impl, d);
}

/* Builds N cores over plain memory; NULL-safe teardown in rings_free. */
static int rings_init(ring_world *w, ring_ep *eps, torus_shm_core **cores, torus_transport *tps,
                      const torus_map *map, int cap, const torus_sim_params *tp)
{
    const torus_shape *s = &map->shape;
    int on[TORUS_MAX_DIMS];
    w->mask = 0;
    for (int d = 0; d < s->ndims; d++) {
        on[d] = 1;
        w->mask |= 1u << d;
    }
    size_t bytes = torus_shm_area_bytes(s, on, cap, tp->outstanding);
    w->area = calloc((size_t)s->n, sizeof *w->area);
    if (!w->area)
        return -1;
    for (int r = 0; r < s->n; r++) {
        if (!(w->area[r] = malloc(bytes)))
            return -1;
        torus_shm_area_init(w->area[r], bytes);
    }
    w->rng = tp->seed * 0x9E3779B97F4A7C15ULL + 1;
    w->delay = tp->delay_prob;
    w->refuse = tp->eager_prob;
    for (int r = 0; r < s->n; r++) {
        if (!(cores[r] = torus_shm_core_create(map, r, on, cap, tp->outstanding, ring_area, w)))
            return -1;
        eps[r].w = w;
        torus_shm_core_bind(cores[r], &eps[r].core);
        tps[r] = (torus_transport){.impl = &eps[r],
                                   .can_send = ring_can_send,
                                   .send = ring_send,
                                   .poll = ring_poll,
                                   .release = ring_release,
                                   .quiescent = ring_quiescent,
                                   .sending = ring_sending};
    }
    return 0;
}

static void rings_free(ring_world *w, torus_shm_core **cores, int n)
{
    for (int r = 0; cores && r < n; r++)
        torus_shm_core_destroy(cores[r]);
    for (int r = 0; w->area && r < n; r++)
        free(w->area[r]);
    free(w->area);
}

int ropt_ranks_init(ropt *ranks, torus_route *routes, torus_transport *tps, const torus_map *map,
                    const ropt_params *prm, uint64_t *table, const ra_dist *td, int log2, int compact)
{
    int cap = ropt_capacity(&map->shape, prm);
    for (int r = 0; r < map->shape.n; r++) {
        if (compact ? torus_route_build_compact(&routes[r], map, r) : torus_route_build(&routes[r], map, r))
            return -1;
        uint64_t st = ra_dist_start(td, r);
        if (ropt_init(&ranks[r], &routes[r], &map->shape, &tps[r], prm, cap, table + st, st, ra_dist_count(td, r), log2,
                      td))
            return -1;
    }
    return 0;
}

void ropt_ranks_free(ropt *ranks, torus_route *routes, int n)
{
    for (int r = 0; ranks && r < n; r++)
        ropt_free(&ranks[r]);
    for (int r = 0; routes && r < n; r++)
        torus_route_free(&routes[r]);
}

void ropt_ranks_stats(const ropt *ranks, int n, ra_stats *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int r = 0; r < n; r++) {
        const ra_stats *a = &ranks[r].st;
        if (a->max_pending > sum->max_pending)
            sum->max_pending = a->max_pending;
        sum->send_tests += a->send_tests;
        sum->send_blocked += a->send_blocked;
        sum->packets_sent += a->packets_sent;
        sum->updates_sent += a->updates_sent;
        sum->hops += a->hops;
        sum->bytes_sent += a->bytes_sent;
    }
}

int ropt_sim_run(const ropt_sim_config *c, ropt_sim_result *res)
{
    memset(res, 0, sizeof *res);
    const torus_shape *s = &c->shape;
    int N = s->n;
    uint64_t TS = 1ULL << c->log2_table;
    if (TS < (uint64_t)N)
        return -2;
    /* the transport's send slots are the ones the budget counts */
    ropt_params prm = c->prm;
    prm.outstanding = c->tp.outstanding;
    int cap = ropt_capacity(s, &prm);
    if (cap < 1 || !ropt_params_ok(&prm))
        return -2;
    res->cap = cap;
    torus_map map;
    if (torus_map_xyzt(&map, s))
        return -1;
    ra_dist td;
    ra_dist_init(&td, TS, N);
    uint64_t *table = malloc(TS * sizeof *table);
    torus_route *routes = calloc((size_t)N, sizeof *routes);
    ropt *ranks = calloc((size_t)N, sizeof *ranks);
    torus_transport *tps = calloc((size_t)N, sizeof *tps);
    torus_sim_params tp = c->tp;
    tp.cap = cap;
    /* the scheduler's random source: the simulated transport's (in ring
     * mode it carries no packets, only the choice of the next rank) */
    torus_sim *sim = torus_sim_create(&map, &tp);
    ring_world world = {0};
    ring_ep *eps = c->rings ? calloc((size_t)N, sizeof *eps) : NULL;
    torus_shm_core **cores = c->rings ? calloc((size_t)N, sizeof *cores) : NULL;
    int rc = 0;
    if (!table || !routes || !ranks || !tps || !sim || (c->rings && (!eps || !cores))) {
        rc = -1;
        goto out;
    }
    for (uint64_t i = 0; i < TS; i++)
        table[i] = i;
    uint64_t total = c->updates ? c->updates : 4 * TS;
    ra_dist ud;
    ra_dist_init(&ud, total, N);
    if (c->rings) {
        if (rings_init(&world, eps, cores, tps, &map, cap, &tp)) {
            rc = -1;
            goto out;
        }
    } else {
        for (int r = 0; r < N; r++)
            torus_sim_bind(sim, r, &tps[r]);
    }
    if (ropt_ranks_init(ranks, routes, tps, &map, &prm, table, &td, c->log2_table, 0)) {
        rc = -1;
        goto out;
    }
    for (int r = 0; r < N; r++) {
        /* HPCC's slices when the count is the default, else an even split. */
        if (c->updates)
            ropt_start(&ranks[r], c->gen, ra_dist_start(&ud, r), ra_dist_count(&ud, r));
        else
            ropt_start(&ranks[r], c->gen, 4 * ra_dist_start(&td, r), 4 * ra_dist_count(&td, r));
    }
    int left = N;
    char *fin = calloc((size_t)N, 1);
    if (!fin) {
        rc = -1;
        goto out;
    }
    while (left > 0) {
        int moved = 0;
        for (int i = 0; i < N; i++) {
            int r = (int)(torus_sim_rand(sim) % (uint64_t)N);
            if (fin[r])
                continue;
            moved |= ropt_step(&ranks[r]);
            res->steps++;
            if (ranks[r].done) {
                fin[r] = 1;
                left--;
            }
        }
        if (moved || !left)
            continue;
        torus_sim_set_strict(sim, 1);
        world.strict = 1;
        for (int r = 0; r < N; r++)
            if (!fin[r]) {
                moved |= ropt_step(&ranks[r]);
                res->steps++;
                if (ranks[r].done) {
                    fin[r] = 1;
                    left--;
                }
            }
        torus_sim_set_strict(sim, 0);
        world.strict = 0;
        if (!moved && left) {
            res->deadlock = 1;
            break;
        }
    }
    free(fin);
    ropt_ranks_stats(ranks, N, &res->stats);
    res->fingerprint = ra_table_fingerprint(table, TS, 0);
out:
    ropt_ranks_free(ranks, routes, N);
    if (c->rings)
        rings_free(&world, cores, N);
    free(eps);
    free(cores);
    torus_sim_destroy(sim);
    free(ranks);
    free(routes);
    free(tps);
    free(table);
    torus_map_free(&map);
    return rc;
}
