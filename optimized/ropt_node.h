/*
 * ropt_node.h - how a node's ranks are routed: in one hop (one node-local
 * dimension of R, a ring to every peer, small packets) or in two (a 2-D
 * node shape a x b, larger packets), chosen by the model from the price of
 * a hop and of a packet (issue 35, item 3).  ra_opt's --node-hops and the
 * timed simulator's projections (torusmodel --ra-opt-shapes) both ask here.
 */
#ifndef ROPT_NODE_H
#define ROPT_NODE_H

#include "ropt.h"

/* The model's default prices, in units of one update's own time at the
 * node's ceiling: the node hop measured directly (issue 44), `ra_calibrate
 * --hop --reps 3 --log2-table 27` at 2 ranks on the 2-core AMD EPYC VM
 * (family 26), 2026-11-29, after the inbox and the vector split: h, a
 * crossing update's own work, 0.08-0.16 (median 0.13); s, a packet's,
 * 33-70 (60); an empty poll 0.44.  docs/ra_opt.md's projection uses the
 * same three, so `--node-hops auto` routes a node the way the projection
 * prices it; on a machine of another kind, --hop-cost and --packet-cost
 * take its own `ra_calibrate --hop` figures.  At these prices the model
 * routes a node of up to 16 ranks in one hop and of 18 or more (but
 * primes) in two; the timed simulator agrees at every R the unit test
 * test_ropt_wide tries (default_prices_pick_the_faster).  Only the ratio
 * s / h decides the routing; the poll's price is the simulator's. */
#define ROPT_NODE_HOP_COST 0.13
#define ROPT_NODE_PACKET_COST 60.0
#define ROPT_NODE_POLL_COST 0.44

typedef struct ropt_node_choice {
    int hops;        /* the node's dimensions of size >= 2: 1 or 2 (0: one rank) */
    torus_shape part; /* the node's part of the shape: R, or a x b */
    double cost[3];  /* cost[1], cost[2]: the model's price per update
                        (units of an update) of each routing; 0 = not
                        possible (R prime or < 4 has no 2-D shape) */
    int by_model;    /* 1: the model chose, 0: the caller forced it */
    int dims_auto;   /* ropt_mpi_choose_shape: --dims was auto or auto:N */
} ropt_node_choice;

/* The node part for R ranks in `hops` hops: flat R, or the balanced 2-D
 * factorisation (as --dims auto makes it).  -1 when R has none (R prime,
 * or < 4, for two hops). */
int ropt_node_part(int R, int hops, torus_shape *out);

/* The model's price per generated update of routing the node part `part`
 * of the full shape `full` (part's dimensions are full's last ones):
 * H_part * (hop + packet / cap), H_part = sum over part's dimensions of
 * (1 - 1/k), cap = ropt_capacity(full, p).  1e300 when full leaves no
 * capacity. */
double ropt_node_cost(const torus_shape *full, const torus_shape *part, const ropt_params *p, double hop,
                      double packet);

/* The routing of a node of R ranks below the network shape `net` (NULL
 * or 0 dimensions: one node alone; else net's sizes are the nodes', and
 * when net_auto is set its shape is chosen again for each node part, as
 * ra_opt --dims auto --node-dim does, over net->n nodes).  hops: 0 = the
 * model's choice (the cheaper, one hop on a tie), 1 or 2 forced (2 falls
 * back to 1 where R has no 2-D shape).  *net_out (may be NULL) gets the
 * network shape for the chosen part. */
void ropt_node_choose(int R, const torus_shape *net, int net_auto, const ropt_params *p, int hops, double hop,
                      double packet, ropt_node_choice *out, torus_shape *net_out);

#endif
