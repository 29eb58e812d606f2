/*
 * ropt_sim.c - drives N copies of the ropt state machine over the simulated
 * transport.  The scheduler steps randomly chosen ranks; when a round makes
 * no progress it runs a strict pass (every rank, every packet visible); if
 * that also moves nothing while some rank is unfinished, it is a deadlock.
 */
#include "ropt_sim.h"
#include "ra_table.h"

#include <stdlib.h>
#include <string.h>

int ropt_ranks_init(ropt *ranks, torus_route *routes, torus_transport *tps, const torus_map *map,
                    const ropt_params *prm, uint64_t *table, const ra_dist *td, int log2, int compact)
{
    for (int r = 0; r < map->shape.n; r++) {
        if (compact ? torus_route_build_compact(&routes[r], map, r) : torus_route_build(&routes[r], map, r))
            return -1;
        uint64_t st = ra_dist_start(td, r);
        if (ropt_init(&ranks[r], &routes[r], &map->shape, &tps[r], prm, table + st, st, ra_dist_count(td, r), log2, td))
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
    if (cap < 1)
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
    torus_sim *sim = torus_sim_create(&map, &tp);
    int rc = 0;
    if (!table || !routes || !ranks || !tps || !sim) {
        rc = -1;
        goto out;
    }
    for (uint64_t i = 0; i < TS; i++)
        table[i] = i;
    uint64_t total = c->updates ? c->updates : 4 * TS;
    ra_dist ud;
    ra_dist_init(&ud, total, N);
    for (int r = 0; r < N; r++)
        torus_sim_bind(sim, r, &tps[r]);
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
    torus_sim_destroy(sim);
    free(ranks);
    free(routes);
    free(tps);
    free(table);
    torus_map_free(&map);
    return rc;
}
