/*
 * ropt_mpi.h - the MPI driver of the routed algorithm: one setup (shape,
 * rank placement, routes, the MPI transport, the state machine) and one
 * run loop, shared by bin/ra_opt and bin/ra_calibrate so both run exactly
 * the same thing.
 */
#ifndef ROPT_MPI_H
#define ROPT_MPI_H

#include <mpi.h>

#include "ropt.h"
#include "ropt_node.h"
#include "torus_mpi.h"

typedef struct ropt_mpi_options {
    const char *dims;    /* shape string (torus/ grammar); NULL or "auto": the cost-model choice */
    const char *mapfile; /* mapping file, or NULL for XYZT order */
    int node_dim;        /* add a last, node-local dimension (ranks sharing a node) */
    int sync;            /* packets by MPI_Issend (see torus_mpi_set_sync) */
    int node_shm;        /* 1: dimensions that stay on a node go through shared
                            memory (torus_shm_create), 0: everything by MPI,
                            -1 (auto): shared memory unless some node has
                            more ranks than cores */
    int profile;         /* --profile: the state machine's time shares */
    const torus_node_info *node; /* the node layout if the caller has it (ra_main
                                    finds it once), else NULL: found here */
    ropt_params prm;     /* budget, look-ahead, send slots per dimension */
    int node_hops;       /* a node's ranks in 1 or 2 hops, 0: the model's
                            choice (ropt_node.h); with --node-dim, or --dims
                            auto on one node */
    double hop_cost, packet_cost; /* the model's prices, in updates */
} ropt_mpi_options;

/* ra_opt's defaults: auto shape, XYZT order, ROPT_DEFAULT_* values, the
 * node hop through shared memory. */
void ropt_mpi_options_defaults(ropt_mpi_options *o);

typedef struct ropt_mpi {
    torus_shape shape;
    torus_map map;
    torus_route route;
    torus_mpi *mpi;
    torus_transport net; /* the MPI transport */
    torus_shm *shm;      /* the node hop, when node_shm */
    torus_transport tp;  /* what the state machine talks to */
    torus_node_info node; /* found here when the caller had none */
    int own_node;
    ropt core;
    int outstanding, cap, shm_dims;
    int have_map, have_route, have_core;
    int oversubscribed;  /* more ranks on this node than cores: never spin */
    int node_cores;      /* the cores this node's ranks run on */
    int node_shm;        /* the node hop's road, once auto is decided */
    char shm_refused[200]; /* why auto's shared memory could not be had
                              (the node hop then takes MPI), or "" */
    ropt_node_choice nodes; /* one hop or two on the node (hops -1: the
                               shape mixes node and network dimensions) */
    double wait_s;       /* seconds spent backing off in the last run */
} ropt_mpi;

/* The shape: --dims over P ranks (o->dims), or with o->node_dim over the
 * nodes of ni plus the node's part, one node-local dimension or two
 * (o->node_hops, ropt_node_choose); ra_opt's auto choice, on one node the
 * node's part alone; the bucket capacity the budget leaves it.  Not
 * collective, so ra_opt --dry-run=P checks a shape before a launch: ni may
 * then be NULL (not with node_dim), and --dims auto is taken as one node
 * when o->node_hops forces a routing, else as ropt_auto_shape over P.
 * *nc (may be NULL) gets the node's routing, *cap (may be NULL) the
 * capacity.  0, or KIT_EXIT_USAGE with one line in err. */
int ropt_mpi_choose_shape(torus_shape *shape, int P, const ropt_mpi_options *o, const torus_node_info *ni,
                          ropt_node_choice *nc, int *cap, char *err, size_t errlen);

/* Collective over comm: builds everything for this rank's block of the
 * table (global words local_start .. +local_size, distributed by td).
 * Returns 0, 2 (KIT_EXIT_USAGE: a bad shape, mapping file or option
 * combination, the same line on every rank where it can be) or 3
 * (KIT_EXIT_RESOURCE: out of memory), with one line in err.  Call
 * ropt_mpi_free in every case. */
int ropt_mpi_setup(ropt_mpi *s, MPI_Comm comm, const ropt_mpi_options *o, uint64_t *table,
                   uint64_t local_start, uint64_t local_size, int log2, const ra_dist *td, char *err,
                   size_t errlen);

/* Runs one phase to the end on every rank: generates elements start+1 ..
 * start+count of gen's stream, routes and applies them.  A rank that finds
 * nothing to do backs off: after TORUS_IDLE_POLLS idle steps it yields its
 * core (at once when the node has more ranks than cores), and after many
 * it sleeps, 1 us doubling to 64 us, so a waiting rank never takes the
 * core its peer needs.  tick, if not NULL, is called every 65536 generated
 * updates.  Leaves the transport ready for the next phase. */
void ropt_mpi_run(ropt_mpi *s, ra_gen_kind gen, uint64_t start, uint64_t count,
                  void (*tick)(void *ctx, uint64_t generated), void *ctx);

void ropt_mpi_free(ropt_mpi *s);

#endif
