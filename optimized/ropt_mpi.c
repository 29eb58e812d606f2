/*
 * ropt_mpi.c - the routed algorithm over MPI: setup and the run loop shared
 * by bin/ra_opt and bin/ra_calibrate (see ropt_mpi.h).
 */
#include "ropt_mpi.h"
#include "torus_cli.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ropt_mpi_options_defaults(ropt_mpi_options *o)
{
    memset(o, 0, sizeof *o);
    o->dims = "auto";
    ropt_params_defaults(&o->prm);
}

/* The shape: --dims over the ranks, or over the nodes plus a node-local
 * last dimension. */
static int choose_shape(ropt_mpi *s, int P, const ropt_mpi_options *o, const torus_node_info *ni, char *err,
                        size_t errlen)
{
    int over = o->node_dim ? ni->nnodes : P;
    const char *dims = o->dims ? o->dims : "auto";
    if (torus_shape_parse(dims, over, &s->shape, err, errlen)) {
        if (o->node_dim) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, " (with --node-dim the shape covers the %d nodes)", ni->nnodes);
        }
        return TORUS_EXIT_USAGE;
    }
    if (!strcmp(dims, "auto") || !strncmp(dims, "auto:", 5))
        ropt_auto_shape(over, &o->prm, o->node_dim ? ni->per_node : 0, &s->shape);
    if (o->node_dim && torus_shape_append(&s->shape, ni->per_node)) {
        snprintf(err, errlen, "--node-dim: too many dimensions");
        return TORUS_EXIT_USAGE;
    }
    if (ropt_capacity(&s->shape, &o->prm) < 1) {
        char sh[128];
        torus_shape_format(&s->shape, sh, sizeof sh);
        snprintf(err, errlen,
                 "shape %s with %d send slots per dimension needs %d packet buffers per rank, more than the %d updates "
                 "left of the %d-update budget after a look-ahead of %d: use fewer --outstanding, a smaller --lookahead "
                 "or more dimensions (e.g. --dims auto)",
                 sh, o->prm.outstanding, ropt_buffers(&s->shape, &o->prm), o->prm.budget - o->prm.lookahead,
                 o->prm.budget, o->prm.lookahead);
        return TORUS_EXIT_USAGE;
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
                MPI_Abort(comm, TORUS_EXIT_RESOURCE);
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
        return o->mapfile ? TORUS_EXIT_USAGE : TORUS_EXIT_RESOURCE;
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
    if (o->prm.outstanding < 1 || o->prm.outstanding > ROPT_MAX_OUTSTANDING || o->prm.lookahead < 0 ||
        o->prm.lookahead > ROPT_MAX_LOOKAHEAD) {
        snprintf(err, errlen, "send slots must be 1..%d and the look-ahead 0..%d", ROPT_MAX_OUTSTANDING,
                 ROPT_MAX_LOOKAHEAD);
        return TORUS_EXIT_USAGE;
    }
    if (o->mapfile && o->node_dim) {
        snprintf(err, errlen, "--map and --node-dim both given: use one of them");
        return TORUS_EXIT_USAGE;
    }
    torus_node_info ni = {.comm = MPI_COMM_NULL, .nnodes = 1, .per_node = P, .local = me};
    if (o->node_dim) {
        if (o->node) {
            ni = *o->node;
        } else {
            if (torus_node_discover(comm, &ni)) {
                snprintf(err, errlen, "out of memory");
                return TORUS_EXIT_RESOURCE;
            }
            torus_node_free(&ni);
        }
        if (ni.per_node < 1 || ni.per_node * ni.nnodes != P) {
            snprintf(err, errlen,
                     "--node-dim needs the same number of ranks on every node (found uneven nodes over %d ranks)", P);
            return TORUS_EXIT_USAGE;
        }
    }
    int rc = choose_shape(s, P, o, &ni, err, errlen);
    if (!rc)
        rc = place_ranks(s, comm, P, o, &ni, err, errlen);
    if (rc)
        return rc;
    s->have_route = torus_route_build(&s->route, &s->map, me) == 0;
    if (!torus_all_ok(comm, s->have_route)) {
        snprintf(err, errlen, "out of memory for the routing table");
        return TORUS_EXIT_RESOURCE;
    }
    s->cap = ropt_capacity(&s->shape, &o->prm);
    if (torus_mpi_create(&s->mpi, comm, &s->map, me, s->cap, o->prm.outstanding, err, errlen))
        return TORUS_EXIT_RESOURCE;
    torus_mpi_set_sync(s->mpi, o->sync);
    torus_mpi_bind(s->mpi, &s->tp);
    int irc = ropt_init(&s->core, &s->route, &s->shape, &s->tp, &o->prm, table, local_start, local_size, log2, td);
    s->have_core = 1; /* ropt_free copes with a partial init */
    if (!torus_all_ok(comm, irc == 0)) {
        snprintf(err, errlen, "out of memory for the buckets");
        return TORUS_EXIT_RESOURCE;
    }
    return 0;
}

void ropt_mpi_run(ropt_mpi *s, ra_gen_kind gen, uint64_t start, uint64_t count,
                  void (*tick)(void *ctx, uint64_t generated), void *ctx)
{
    ropt *o = &s->core;
    ropt_start(o, gen, start, count);
    int idle = 0;
    uint64_t next_tick = 1 << 16;
    while (!o->done) {
        if (ropt_step(o))
            idle = 0;
        else if (++idle > TORUS_IDLE_POLLS)
            sched_yield(); /* oversubscribed runs: let the peer run */
        if (tick && o->generated >= next_tick) {
            tick(ctx, o->generated);
            next_tick = o->generated + (1 << 16);
        }
    }
    torus_mpi_reset(s->mpi);
}

void ropt_mpi_free(ropt_mpi *s)
{
    if (s->have_core)
        ropt_free(&s->core);
    torus_mpi_destroy(s->mpi);
    if (s->have_route)
        torus_route_free(&s->route);
    if (s->have_map)
        torus_map_free(&s->map);
    memset(s, 0, sizeof *s);
}
