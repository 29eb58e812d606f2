/*
 * ropt_timed.h - the timed driver: the routed algorithm (ropt.c, unchanged,
 * with ra_opt's defaults) on N virtual ranks over the timed transport
 * (torus/transport_timed.c).  This is the one narrow entry through which
 * bin/torusmodel --simulate reaches optimized/: plain costs in, figures out.
 */
#ifndef ROPT_TIMED_H
#define ROPT_TIMED_H

#include <stdint.h>

#include "torus.h"

/* The ranges ra_opt accepts (ROPT_MAX_OUTSTANDING, ROPT_MAX_LOOKAHEAD). */
#define ROPT_TIMED_MAX_OUTSTANDING 64
#define ROPT_TIMED_MAX_LOOKAHEAD 512

typedef struct ropt_timed_config {
    torus_shape shape;
    long updates_per_rank;
    double t_update_s;   /* CPU seconds per update generated (t_local) */
    double t_hop_s;      /* CPU seconds per update routed at a hop (t_hop) */
    double t_packet_s;   /* CPU seconds per packet sent, the sender's and the
                            receiver's work together, charged to the sender
                            (0: none, the BlueGene/L tables' model) */
    double t_poll_s;     /* CPU seconds per ask for a packet that finds none,
                            charged on steps that moved something (an idle
                            rank's asks cost nothing: it waits anyway) */
    double t_peer_s;     /* CPU seconds per peer ring a receiver looks through
                            to find a packet, (k - 1) / 2 per packet taken
                            along a dimension of k: a scan of one ring per
                            peer; 0 with the inbox (torus/shm_ring.c) */
    double link_bw;      /* bytes per second per link and direction */
    double latency_s;    /* per physical link */
    double header_bytes; /* per packet, beyond 8 bytes per update */
    /* the wire format (torus_timed_params; all 0: one packet of 8n +
     * header_bytes per bucket sent) */
    double chunk_bytes, packet_max_bytes, link_overhead_bytes;
    int outstanding;     /* send slots per dimension */
    int lookahead;       /* apply pipeline depth, counted in the budget */
    int batch;           /* generation batch, counted twice in the budget
                            (0: ROPT_TIMED_DEFAULT_BATCH; ra_opt's is 64) */
    int link_gaps;       /* torus_timed_params.link_gaps: 0 free-at times, 1 idle gaps */
    int budget;          /* updates a rank may hold (0: HPCC's 1024).  torusmodel's
                            reduced machine (scale.c) sets it so that its buckets
                            hold as many updates as the full machine's */
} ropt_timed_config;

/* Fills c with ra_opt's defaults (send slots, look-ahead) and zero costs. */
void ropt_timed_defaults(ropt_timed_config *c);

typedef struct ropt_timed_result {
    double gups;             /* steady rate: 10%..90% of the CPU work */
    double gups_total;       /* all updates / makespan (start and drain included) */
    double time_s;           /* simulated makespan */
    /* sbf, link_util, bytes_per_update and where the time goes below are
     * measured over the steady window (window_frac of the makespan) */
    double window_frac;
    double sbf;              /* send tests that found every slot busy */
    double link_util;        /* busy time / (links * window) */
    double bytes_per_update; /* wire bytes per update (framing included), summed over software hops */
    double bytes_per_update_total; /* the same over the whole run, finish marks included */
    double hops_per_update;
    uint64_t updates, packets, steps, max_pending;
    uint64_t fingerprint;
    int exact;               /* the final table equals the sequential one */
    /* where the time goes (torus_timed_stats' window): per dimension link
     * use, busy / window over its directed links, mean and max */
    int ndims, cap;
    double dim_util_mean[TORUS_MAX_DIMS], dim_util_max[TORUS_MAX_DIMS];
    int hot_coords[TORUS_MAX_DIMS], hot_dim, hot_dir; /* the busiest link: from, dimension, 0 = + */
    double hot_util;
    double blocked_frac;     /* rank time idle with a send slot refused / (N * window) */
    double waiting_frac;     /* rank time idle with nothing to do / (N * window) */
    double mean_fill;        /* words per packet / cap */
    double fill_frac[4];     /* packets <= 1/4, <= 1/2, <= 3/4, <= 1 full */
} ropt_timed_result;

/* Whether ropt_timed_run would take c (shape size, costs, send slots,
 * look-ahead, packet format, bucket capacity): 0, or -2 with one line in
 * err.  Cheap: torusmodel checks every shape before it simulates any. */
int ropt_timed_check(const ropt_timed_config *c, char *err, size_t errlen);

/* The bucket capacity a run of c would have (0 when the shape leaves none),
 * and the budget that gives capacity `cap` on c's shape with c's send slots
 * and look-ahead (torusmodel's reduced machine keeps the full one's packets). */
int ropt_timed_capacity(const ropt_timed_config *c);
int ropt_timed_budget_for(const ropt_timed_config *c, int cap);
/* ra_opt's own bucket capacity on shape s with its defaults (one send slot,
 * its look-ahead and batch): the updates a packet of it holds. */
int ropt_timed_ra_opt_capacity(const torus_shape *s);

/* ra_opt on one node of R ranks (--dims auto, its --node-hops model,
 * optimized/ropt_node.h): *out gets the shape it routes them on; returns
 * the node hops it takes (1 or 2; 0 for one rank).  node_hops 0 is the
 * model's choice at prices hop and packet (any one unit: only their
 * ratio matters; hop < 0: ra_opt's default prices, --hop-cost and
 * --packet-cost unset), 1 or 2 forced; with ra_opt's own send slot,
 * pipeline and batch (ropt_timed_ra_opt_defaults).  The model's price of each routing
 * goes to cost[1], cost[2] (may be NULL; 0: not possible). */
int ropt_timed_ra_opt_node(int R, int node_hops, double hop, double packet, torus_shape *out, double cost[3]);
/* Sets c's send slots, pipeline and batch to ra_opt's (ROPT_DEFAULT_*). */
void ropt_timed_ra_opt_defaults(ropt_timed_config *c);
/* ra_opt's defaults, for --help: send slots, pipeline, batch. */
#define ROPT_TIMED_RA_OPT_SETTINGS "1 send slot, pipeline 128, batch 64"

/* Returns 0, -2 on bad input (err), -3 out of memory or a stuck machine. */
int ropt_timed_run(const ropt_timed_config *c, ropt_timed_result *r, char *err, size_t errlen);

#endif
