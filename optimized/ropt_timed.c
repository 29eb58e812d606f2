/*
 * ropt_timed.c - the routed algorithm at scale on the timed transport.
 *
 * Algorithm: paper 002 sec. 5 and the CPU model of sec. 6.2.
 *   Every virtual rank runs the real ropt state machine over its endpoint
 *   of torus/transport_timed.c, which owns the links, the clocks and the
 *   event loop.  A step costs t_update per update generated, t_hop per
 *   update bucketed and t_packet per packet sent.  GUPS is the steady rate: 80% of the updates over the
 *   time from 10% to 90% of the expected CPU work done; the whole run,
 *   start and drain included, is reported beside it.  The final table is
 *   checked against the sequential replay of the same updates.  Where the
 *   time goes comes back with it, over the same window (the transport's
 *   marks at 10% and 90%): link use per dimension and the busiest link,
 *   rank time idle blocked on a full send slot or waiting for packets, how
 *   full the packets were, the send blocking factor.
 *   Cost: O(updates * hops * log N) time; O(N * (sum k) * cap) memory with
 *   compact routes (no N x N table), so 64x32x32 fits in a few GB.
 */
#include "ropt_timed.h"

#include "ra_dist.h"
#include "ra_local.h"
#include "ra_table.h"
#include "ropt_node.h"
#include "ropt_sim.h"
#include "torus_timed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TORUS_TIMED_FILL_BINS == 4, "ropt_timed_result's fill_frac has four bins");
_Static_assert(ROPT_DEFAULT_OUTSTANDING == 1 && ROPT_DEFAULT_LOOKAHEAD == 128 && ROPT_DEFAULT_BATCH == 64,
               "ROPT_TIMED_RA_OPT_SETTINGS names ra_opt's defaults");
_Static_assert(ROPT_TIMED_MAX_OUTSTANDING == ROPT_MAX_OUTSTANDING && ROPT_TIMED_MAX_LOOKAHEAD == ROPT_MAX_LOOKAHEAD,
               "the narrow entry states ra_opt's ranges");

void ropt_timed_defaults(ropt_timed_config *c)
{
    memset(c, 0, sizeof *c);
    c->outstanding = ROPT_TIMED_DEFAULT_OUTSTANDING; /* BlueGene/L's model, see ropt.h */
    c->lookahead = ROPT_TIMED_DEFAULT_LOOKAHEAD; /* no memory model: no pipeline, see ropt.h */
}

void ropt_timed_ra_opt_defaults(ropt_timed_config *c)
{
    c->outstanding = ROPT_DEFAULT_OUTSTANDING;
    c->lookahead = ROPT_DEFAULT_LOOKAHEAD;
    c->batch = ROPT_DEFAULT_BATCH;
}

int ropt_timed_ra_opt_node(int R, int node_hops, double hop, double packet, torus_shape *out, double cost[3])
{
    ropt_params prm;
    ropt_params_defaults(&prm);
    ropt_node_choice nc;
    if (hop < 0)
        hop = ROPT_NODE_HOP_COST, packet = ROPT_NODE_PACKET_COST;
    ropt_node_choose(R, NULL, 0, &prm, node_hops, hop, packet, &nc, NULL);
    *out = nc.part;
    if (cost)
        cost[0] = 0, cost[1] = nc.cost[1], cost[2] = nc.cost[2];
    return nc.hops;
}

typedef struct timed_run {
    ropt *ranks;
    int n;
    torus_timed *tt;
    double t_gen, t_hop, t_packet, t_poll, t_peer;
    double work, work_all, t10, t90; /* steady-state window */
    uint64_t tests[2], blocked[2];   /* send tests and refusals summed over ranks at t10, t90 */
    int mark_failed;
} timed_run;

/* The window's edge: the transport's counters and the ranks' send tests. */
static void mark_window(timed_run *tr, int which, double t)
{
    if (torus_timed_mark(tr->tt, which, t))
        tr->mark_failed = 1;
    ra_stats sum;
    ropt_ranks_stats(tr->ranks, tr->n, &sum);
    tr->tests[which] = sum.send_tests, tr->blocked[which] = sum.send_blocked;
}

static int step_rank(void *ctx, int r, double now, double *cpu_s)
{
    timed_run *tr = ctx;
    ropt *o = &tr->ranks[r];
    uint64_t gen0 = o->generated, hop0 = o->st.hops, pk0 = o->st.packets_sent, pe0 = o->st.polls_empty,
             rp0 = o->st.recv_peers;
    int moved = ropt_step(o);
    double cost = (double)(o->generated - gen0) * tr->t_gen + (double)(o->st.hops - hop0) * tr->t_hop +
                  (double)(o->st.packets_sent - pk0) * tr->t_packet;
    /* the polls: a busy step's asks that found nothing, and the rings a
     * receiver that scans looks through for each packet it takes */
    if (moved)
        cost += (double)(o->st.polls_empty - pe0) * tr->t_poll + (double)(o->st.recv_peers - rp0) * 0.5 * tr->t_peer;
    *cpu_s = cost;
    /* ranks step in time order, so this rank's clock is global time */
    tr->work += cost;
    if (tr->t10 < 0 && tr->work >= 0.1 * tr->work_all) {
        tr->t10 = now + cost;
        mark_window(tr, 0, tr->t10);
    }
    if (tr->t90 < 0 && tr->work >= 0.9 * tr->work_all) {
        tr->t90 = now + cost;
        mark_window(tr, 1, tr->t90);
    }
    if (o->done)
        return TORUS_TIMED_DONE;
    return moved ? TORUS_TIMED_MOVED : TORUS_TIMED_IDLE;
}

/* ra_opt's parameters with c's look-ahead and send slots. */
static void timed_params(const ropt_timed_config *c, ropt_params *prm)
{
    ropt_params_defaults(prm);
    prm->lookahead = c->lookahead;
    prm->batch = c->batch > 0 ? c->batch : ROPT_TIMED_DEFAULT_BATCH;
    prm->outstanding = c->outstanding;
    if (c->budget > 0)
        prm->budget = c->budget;
}

int ropt_timed_capacity(const ropt_timed_config *c)
{
    ropt_params prm;
    timed_params(c, &prm);
    int cap = ropt_capacity(&c->shape, &prm);
    return cap > 0 ? cap : 0;
}

int ropt_timed_budget_for(const ropt_timed_config *c, int cap)
{
    ropt_params prm;
    timed_params(c, &prm);
    return cap * ropt_buffers(&c->shape, &prm) + prm.lookahead + 2 * prm.batch;
}

int ropt_timed_ra_opt_capacity(const torus_shape *s)
{
    ropt_params prm;
    ropt_params_defaults(&prm);
    int cap = ropt_capacity(s, &prm);
    return cap > 0 ? cap : 0;
}

int ropt_timed_check(const ropt_timed_config *c, char *err, size_t errlen)
{
    const torus_shape *sh = &c->shape;
    int N = sh->n;
    if (N > 65536) {
        snprintf(err, errlen, "--simulate on %d ranks refused: allowed at most 65536 (64x32x32)", N);
        return -2;
    }
    if (!(c->t_packet_s >= 0) || !(c->t_hop_s >= 0) || !(c->t_update_s >= 0) || !(c->t_poll_s >= 0) ||
        !(c->t_peer_s >= 0)) {
        snprintf(err, errlen, "--simulate: CPU costs (t_local, t_hop, the packet cost) must be >= 0");
        return -2;
    }
    if (c->batch < 0 || c->batch > ROPT_MAX_BATCH) {
        snprintf(err, errlen, "--simulate: a batch of 0 (the simulator's %d) or 1..%d required", ROPT_TIMED_DEFAULT_BATCH,
                 ROPT_MAX_BATCH);
        return -2;
    }
    if (c->t_update_s + c->t_hop_s <= 0) {
        snprintf(err, errlen, "--simulate needs CPU costs: set t_local and t_hop (e.g. --preset bgl-routed)");
        return -2;
    }
    if (!(c->link_bw > 0) || c->updates_per_rank < 1 || c->outstanding < 1 || c->budget < 0 ||
        c->outstanding > ROPT_MAX_OUTSTANDING || !ropt_lookahead_ok(c->lookahead)) {
        snprintf(err, errlen,
                 "--simulate: link bandwidth > 0, updates >= 1, send slots 1..%d and a pipeline of 0 or a power of two "
                 "2..%d required",
                 ROPT_MAX_OUTSTANDING, ROPT_MAX_LOOKAHEAD);
        return -2;
    }
    if (!(c->header_bytes >= 0) || !(c->chunk_bytes >= 0) || !(c->packet_max_bytes >= 0) ||
        !(c->link_overhead_bytes >= 0) || (c->packet_max_bytes > 0 && c->packet_max_bytes < c->header_bytes + 8)) {
        snprintf(err, errlen, "--simulate: packet format needs header, chunk and link overhead >= 0 and a largest "
                              "packet of 0 (no limit) or at least the header + 8 bytes");
        return -2;
    }
    ropt_params prm;
    timed_params(c, &prm);
    if (ropt_capacity(sh, &prm) < 1) {
        snprintf(err, errlen, "shape leaves no bucket capacity: %d packet buffers (sizes plus send slots per dimension) over a budget of %d",
                 ropt_buffers(sh, &prm), prm.budget - prm.lookahead - 2 * prm.batch);
        return -2;
    }
    return 0;
}

int ropt_timed_run(const ropt_timed_config *c, ropt_timed_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    const torus_shape *sh = &c->shape;
    int N = sh->n;
    if (ropt_timed_check(c, err, errlen))
        return -2;
    ropt_params prm;
    timed_params(c, &prm);
    int cap = ropt_capacity(sh, &prm);
    int log2 = 20;
    while ((1L << log2) < 16L * N)
        log2++;
    uint64_t TS = 1ULL << log2, total = (uint64_t)c->updates_per_rank * (uint64_t)N;
    torus_map map;
    memset(&map, 0, sizeof map);
    torus_timed *tt = NULL;
    timed_run tr = {.ranks = NULL, .t_gen = c->t_update_s, .t_hop = c->t_hop_s, .t_packet = c->t_packet_s,
                  .t_poll = c->t_poll_s, .t_peer = c->t_peer_s, .t10 = -1,
                    .t90 = -1};
    torus_route *routes = NULL;
    torus_transport *tps = NULL;
    uint64_t *table = NULL, *ref = NULL;
    int rc = -3;
    snprintf(err, errlen, "out of memory simulating %d ranks", N);
    if (torus_map_xyzt(&map, sh))
        goto out;
    torus_timed_params tp = {.cap = cap, .outstanding = c->outstanding, .link_bw = c->link_bw,
                             .latency_s = c->latency_s, .header_bytes = c->header_bytes,
                             .chunk_bytes = c->chunk_bytes, .packet_max_bytes = c->packet_max_bytes,
                             .link_overhead_bytes = c->link_overhead_bytes, .link_gaps = c->link_gaps};
    tt = torus_timed_create(&map, &tp);
    tr.ranks = calloc((size_t)N, sizeof *tr.ranks);
    routes = calloc((size_t)N, sizeof *routes);
    tps = calloc((size_t)N, sizeof *tps);
    table = malloc(TS * sizeof *table);
    if (!tt || !tr.ranks || !routes || !tps || !table)
        goto out;
    ra_table_init(table, TS, 0);
    ra_dist td, ud;
    ra_dist_init(&td, TS, N);
    ra_dist_init(&ud, total, N);
    for (int r = 0; r < N; r++)
        torus_timed_bind(tt, r, &tps[r]);
    if (ropt_ranks_init(tr.ranks, routes, tps, &map, &prm, table, &td, log2, 1))
        goto out;
    for (int r = 0; r < N; r++)
        ropt_start(&tr.ranks[r], RA_GEN_LFSR, ra_dist_start(&ud, r), ra_dist_count(&ud, r));
    tr.n = N;
    tr.tt = tt;
    /* packets counted full: the window's edges are where the expected work
     * is 10% and 90% done, a little early when packets go part full */
    double peers = 0; /* rings a scanning receiver looks through per update, expected */
    for (int d = 0; d < sh->ndims; d++)
        if (sh->k[d] >= 2)
            peers += (1.0 - 1.0 / sh->k[d]) * 0.5 * (sh->k[d] - 1) / cap;
    tr.work_all = (double)total * (tr.t_gen + torus_expected_hops(sh) * (tr.t_hop + tr.t_packet / cap) + peers * tr.t_peer);
    torus_timed_stats ts;
    int run_rc = torus_timed_run(tt, step_rank, &tr, &ts);
    if (run_rc || tr.mark_failed) {
        /* else the event heap or a window mark could not be allocated: out of memory */
        if (run_rc && ts.steps && ts.unfinished)
            snprintf(err, errlen, "simulation stuck: %d of %d ranks never finished", ts.unfinished, N);
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
    ropt_ranks_stats(tr.ranks, N, &sum);
    double makespan = ts.makespan;
    res->updates = total;
    res->packets = ts.run.packets;
    res->steps = ts.steps;
    res->max_pending = sum.max_pending;
    res->time_s = makespan;
    res->gups_total = makespan > 0 ? (double)total / makespan / 1e9 : 0;
    res->gups = tr.t90 > tr.t10 && tr.t10 >= 0 ? 0.8 * (double)total / (tr.t90 - tr.t10) / 1e9 : res->gups_total;
    res->hops_per_update = (double)sum.hops / (double)total;
    res->ndims = sh->ndims;
    res->cap = cap;
    /* where the time goes: over the steady window the GUPS figure is
     * measured on (the whole run when it has none), not the start and
     * drain, which on large machines take longer than the steady part */
    const torus_timed_usage *w = &ts.window;
    double span = w->t1 - w->t0;
    int win = tr.t10 >= 0 && tr.t90 > tr.t10;
    uint64_t tests = win ? tr.tests[1] - tr.tests[0] : sum.send_tests;
    uint64_t blocked = win ? tr.blocked[1] - tr.blocked[0] : sum.send_blocked;
    res->window_frac = makespan > 0 ? span / makespan : 0;
    res->sbf = tests ? (double)blocked / (double)tests : 0;
    res->link_util = w->link_util;
    res->bytes_per_update = w->words ? w->wire_bytes / (double)w->words * res->hops_per_update : 0;
    res->bytes_per_update_total = ts.run.wire_bytes / (double)total;
    for (int d = 0; d < sh->ndims; d++)
        res->dim_util_mean[d] = w->dim_util_mean[d], res->dim_util_max[d] = w->dim_util_max[d];
    res->hot_dim = w->hot_dim, res->hot_dir = w->hot_dir, res->hot_util = w->hot_util;
    if (w->hot_rank >= 0)
        memcpy(res->hot_coords, &map.coords[(size_t)w->hot_rank * sh->ndims], (size_t)sh->ndims * sizeof(int));
    double rank_time = (double)N * span;
    res->blocked_frac = rank_time > 0 ? w->blocked_s / rank_time : 0;
    res->waiting_frac = rank_time > 0 ? w->waiting_s / rank_time : 0;
    res->mean_fill = w->packets ? (double)w->words / (double)w->packets / cap : 0;
    for (int b = 0; b < 4; b++)
        res->fill_frac[b] = w->packets ? (double)w->fill_hist[b] / (double)w->packets : 0;
    rc = 0;
    err[0] = 0;
out:
    ropt_ranks_free(tr.ranks, routes, N);
    torus_timed_destroy(tt);
    free(tr.ranks), free(routes), free(tps), free(table), free(ref);
    torus_map_free(&map);
    return rc;
}
