/*
 * ropt_mpi.c - the routed algorithm over MPI: setup and the run loop shared
 * by bin/ra_opt and bin/ra_calibrate (see ropt_mpi.h).
 */
#include "ropt_mpi.h"
#include "kit_cli.h"

#include "torus_ticks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ropt_mpi_options_defaults(ropt_mpi_options *o)
{
    memset(o, 0, sizeof *o);
    o->dims = "auto";
    o->node_shm = -1;
    ropt_params_defaults(&o->prm);
    o->hop_cost = ROPT_NODE_HOP_COST;
    o->packet_cost = ROPT_NODE_PACKET_COST;
}

int ropt_mpi_choose_shape(torus_shape *shape, int P, const ropt_mpi_options *o, const torus_node_info *ni,
                          ropt_node_choice *nc, int *cap, char *err, size_t errlen)
{
    int over = o->node_dim ? ni->nnodes : P;
    const char *dims = o->dims ? o->dims : "auto";
    ropt_node_choice own;
    if (!nc)
        nc = &own;
    memset(nc, 0, sizeof *nc);
    nc->hops = -1;
    /* auto: checked here, computed below once with this algorithm's model */
    int is_auto;
    if (torus_shape_parse_spec(dims, over, shape, &is_auto, err, errlen)) {
        if (o->node_dim) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, " (with --node-dim the shape covers the %d nodes)", ni->nnodes);
        }
        return KIT_EXIT_USAGE;
    }
    if (o->node_dim) {
        /* the nodes' shape (chosen again per node part under auto), then
         * the node's own one or two dimensions */
        torus_shape net = *shape;
        ropt_node_choose(ni->per_node, &net, is_auto, &o->prm, o->node_hops, o->hop_cost, o->packet_cost, nc, shape);
        if (torus_shape_append_shape(shape, &nc->part)) {
            snprintf(err, errlen, "--node-dim: too many dimensions");
            return KIT_EXIT_USAGE;
        }
    } else if (is_auto && (ni ? ni->nnodes == 1 : o->node_hops != 0)) {
        /* one node: the whole shape is the node's */
        ropt_node_choose(P, NULL, 0, &o->prm, o->node_hops, o->hop_cost, o->packet_cost, nc, NULL);
        *shape = nc->part;
    } else {
        if (o->node_hops) {
            snprintf(err, errlen, "--node-hops %d: a node's routing is set with --node-dim, or with --dims auto on "
                                  "one node (here %s over %d node%s)", o->node_hops, dims, ni ? ni->nnodes : 0,
                     ni && ni->nnodes == 1 ? "" : "s");
            return KIT_EXIT_USAGE;
        }
        if (is_auto)
            ropt_auto_shape(over, &o->prm, 0, shape);
    }
    nc->dims_auto = is_auto; /* after ropt_node_choose, which clears *nc */
    int c = ropt_capacity(shape, &o->prm);
    if (cap)
        *cap = c;
    if (c < 1) {
        int left = o->prm.budget - o->prm.lookahead - 2 * o->prm.batch;
        char sh[128];
        torus_shape_format(shape, sh, sizeof sh);
        snprintf(err, errlen,
                 "shape %s with %d send slots per dimension needs %d packet buffers per rank, more than the %d updates "
                 "left of the %d-update budget after a pipeline of %d and twice a batch of %d: use fewer "
                 "--outstanding, a smaller --lookahead or --batch, or more dimensions (e.g. --dims auto)",
                 sh, o->prm.outstanding, ropt_buffers(shape, &o->prm),
                 left > 0 ? left : 0, o->prm.budget, o->prm.lookahead, o->prm.batch);
        return KIT_EXIT_USAGE;
    }
    return 0;
}

/* Rank placement: a mapping file, nodes in XYZT order with the node-local
 * index last, or plain XYZT order.  Every rank agrees before going on. */
static int place_ranks(ropt_mpi *s, MPI_Comm comm, int P, const ropt_mpi_options *o,
                       const torus_node_info *ni, char *err, size_t errlen)
{
    int rc;
    if (o->mapfile) {
        rc = torus_map_file(&s->map, &s->shape, o->mapfile, err, errlen);
    } else if (o->node_dim) {
        int pair[2] = {ni->node, ni->local}, *all = malloc(2 * (size_t)P * sizeof(int));
        rc = -1;
        if (torus_all_ok(comm, all != NULL)) {
            if (MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, comm) != MPI_SUCCESS) {
                fprintf(stderr, "ropt: MPI error at %s:%d in MPI_Allgather of the node layout\n", __FILE__, __LINE__);
                MPI_Abort(comm, KIT_EXIT_RESOURCE);
            }
            rc = torus_map_nodes(&s->map, &s->shape, ni->nnodes, all) ? -1 : 0;
        }
        free(all);
    } else {
        rc = torus_map_xyzt(&s->map, &s->shape);
    }
    s->have_map = rc == 0;
    if (rc && !o->mapfile)
        snprintf(err, errlen, "out of memory for the rank mapping");
    if (!torus_all_ok(comm, rc == 0)) {
        if (rc == 0)
            snprintf(err, errlen, "mapping failed on another rank");
        return o->mapfile ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
    }
    return 0;
}

int ropt_mpi_setup(ropt_mpi *s, MPI_Comm comm, const ropt_mpi_options *o, uint64_t *table,
                   uint64_t local_start, uint64_t local_size, int log2, const ra_dist *td, char *err,
                   size_t errlen)
{
    memset(s, 0, sizeof *s);
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    s->outstanding = o->prm.outstanding;
    if (!ropt_params_ok(&o->prm)) {
        snprintf(err, errlen, "send slots must be 1..%d, the pipeline 0 or a power of two 2..%d and the batch 1..%d",
                 ROPT_MAX_OUTSTANDING, ROPT_MAX_LOOKAHEAD, ROPT_MAX_BATCH);
        return KIT_EXIT_USAGE;
    }
    if (o->mapfile && o->node_dim) {
        snprintf(err, errlen, "--map and --node-dim both given: use one of them");
        return KIT_EXIT_USAGE;
    }
    s->node.comm = MPI_COMM_NULL;
    if (o->node) {
        s->node = *o->node;
    } else {
        int nrc = torus_node_discover(comm, &s->node, err, errlen);
        if (nrc)
            return nrc == -2 ? KIT_EXIT_USAGE : KIT_EXIT_RESOURCE;
        s->own_node = 1;
    }
    torus_node_info ni = s->node;
    if (o->node_dim) {
        if (ni.per_node < 1 || ni.per_node * ni.nnodes != P) {
            snprintf(err, errlen,
                     "--node-dim needs the same number of ranks on every node (found uneven nodes over %d ranks)", P);
            return KIT_EXIT_USAGE;
        }
    }
    int rc = ropt_mpi_choose_shape(&s->shape, P, o, &ni, &s->nodes, &s->cap, err, errlen);
    if (!rc)
        rc = place_ranks(s, comm, P, o, &ni, err, errlen);
    if (rc)
        return rc;
    s->have_route = torus_route_build(&s->route, &s->map, me) == 0;
    if (!torus_all_ok(comm, s->have_route)) {
        snprintf(err, errlen, "out of memory for the routing table");
        return KIT_EXIT_RESOURCE;
    }
    if (torus_mpi_create(&s->mpi, comm, &s->map, me, s->cap, o->prm.outstanding, err, errlen))
        return KIT_EXIT_RESOURCE;
    torus_mpi_set_sync(s->mpi, o->sync);
    torus_mpi_bind(s->mpi, &s->net);
    s->tp = s->net;
    /* auto: the rings unless a node has more ranks than cores.  There a
     * rank waits for its peer to get a core after every S packets, since a
     * packet in a ring counts against its sender's 1024 until taken; MPI's
     * eager sends complete at once and buffer outside the count (the MPI
     * transport's documented exception), which measured faster there */
    s->node_cores = torus_node_cores(&s->node);
    s->oversubscribed = s->node.local_size > s->node_cores;
    s->node_shm = o->node_shm >= 0 ? o->node_shm : torus_all_ok(comm, !s->oversubscribed);
    if (s->node_shm && torus_shm_create(&s->shm, comm, s->node.comm, &s->map, me, s->cap, o->prm.outstanding, &s->net,
                                        err, errlen)) {
        /* no shared window (a full /dev/shm): the node hop asked for by
         * name stops the run, auto's takes MPI, alike on every rank (the
         * failure is agreed) */
        if (o->node_shm > 0)
            return KIT_EXIT_RESOURCE;
        snprintf(s->shm_refused, sizeof s->shm_refused, "%s", err);
        err[0] = 0;
        s->node_shm = 0;
    }
    if (s->node_shm) {
        torus_shm_bind(s->shm, &s->tp);
        s->shm_dims = torus_shm_count(s->shm);
        /* a core per rank: a rank rarely sleeps, so a packet need not
         * fence to look for a sleeper (a sleep is bounded instead); the
         * node's ranks agree, as node_cores and local_size are the node's */
        if (!s->oversubscribed)
            torus_shm_lazy_wake(s->shm);
    }
    int irc = ropt_init(&s->core, &s->route, &s->shape, &s->tp, &o->prm, s->cap, table, local_start, local_size, log2, td);
    s->have_core = 1; /* ropt_free copes with a partial init */
    s->core.profile = o->profile;
    if (!torus_all_ok(comm, irc == 0)) {
        snprintf(err, errlen, "out of memory for the buckets");
        return KIT_EXIT_RESOURCE;
    }
    return 0;
}

/* Idle polls before a rank sleeps (torus_idle): spinning a little first
 * keeps the latency of a busy pair low; a node with more ranks than cores
 * yields at once (MPICH's shared-memory progress and our rings both
 * busy-wait otherwise).  A long wait sleeps the transport's way: on the
 * rings when the node hop goes through shared memory (woken by whoever
 * hands this rank work), else 1 us doubling to 64 us.  Sleeping early does
 * not pay: at -n 8 on 2 cores a rank sleeping on the rings whenever idle
 * ran at a third of one that yields (a wake-up costs more than the work
 * one packet brings). */
#define ROPT_SLEEP_AT 4096

void ropt_mpi_run(ropt_mpi *s, ra_gen_kind gen, uint64_t start, uint64_t count,
                  void (*tick)(void *ctx, uint64_t generated), void *ctx)
{
    ropt *o = &s->core;
    ropt_start(o, gen, start, count);
    torus_idle idle;
    torus_idle_init(&idle, s->oversubscribed ? 0 : TORUS_IDLE_POLLS, ROPT_SLEEP_AT, &s->tp);
    uint64_t next_tick = 1 << 16, waited = 0;
    while (!o->done) {
        if (ropt_step(o)) {
            torus_idle_reset(&idle);
        } else {
            uint64_t t0 = o->profile ? torus_ticks() : 0;
            torus_idle_wait(&idle);
            if (o->profile)
                waited += torus_ticks() - t0;
        }
        if (tick && o->generated >= next_tick) {
            tick(ctx, o->generated);
            next_tick = o->generated + (1 << 16);
        }
    }
    o->ticks[ROPT_T_WAIT] += waited;
    torus_mpi_reset(s->mpi);
}

void ropt_mpi_free(ropt_mpi *s)
{
    if (s->have_core)
        ropt_free(&s->core);
    torus_shm_destroy(s->shm);
    torus_mpi_destroy(s->mpi);
    if (s->own_node)
        torus_node_free(&s->node);
    if (s->have_route)
        torus_route_free(&s->route);
    if (s->have_map)
        torus_map_free(&s->map);
    memset(s, 0, sizeof *s);
}
