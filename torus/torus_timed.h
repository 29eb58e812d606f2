/*
 * torus_timed.h - the timed transport: N virtual ranks in one process,
 * each with a CPU clock, every physical torus link with a busy-until time
 * (packet interface) and a list of busy intervals whose gaps later
 * packets fill (message interface, line sends with the deposit bit), and
 * the conservative discrete-event loop that steps them in time order.
 * Any algorithm written against torus_transport runs on it unchanged (the
 * routed RandomAccess of optimized/, the collectives of torus/coll/).
 */
#ifndef TORUS_TIMED_H
#define TORUS_TIMED_H

#include "torus.h"

/* Plain costs, in seconds and bytes: nothing here knows of RandomAccess. */
typedef struct torus_timed_params {
    int cap;             /* words per packet buffer (packet interface) */
    int outstanding;     /* send slots per rank and dimension (packet interface) */
    double link_bw;      /* bytes per second per link and direction */
    double latency_s;    /* per physical link crossed */
    double header_bytes; /* per packet on the wire, beyond its payload */
    /* packet interface: the wire format (all 0: one packet of 8n +
     * header_bytes per send, the simulator's plain model).  BlueGene/L
     * (paper 002 sec. 2 and 4.3.1): packets are 1..8 chunks of 32 bytes,
     * at most 256 bytes with their header, and every packet costs 14 bytes
     * more on each link.  A send of more words than one packet holds goes
     * as several packets back to back on the same path. */
    double chunk_bytes;         /* a packet is a whole number of chunks (0: any size) */
    double packet_max_bytes;    /* largest packet, header included (0: no limit) */
    double link_overhead_bytes; /* per packet and link, beyond the packet */
    /* packet interface: 0 = each link has one free-at time, a packet
     * starts when its whole path is free after every earlier booking (the
     * idle time before a booking is lost); 1 = a packet takes the earliest
     * window in which its whole path is idle, gaps before earlier
     * bookings included, as links are arbitrated packet by packet */
    int link_gaps;
    /* message interface (collectives): a message travels as packets of at
     * most packet_bytes payload along the dimension-ordered route, each
     * packet cut-through; the CPU writes and reads every packet */
    double packet_bytes;    /* payload per packet (0: 240, BlueGene/L's) */
    double cpu_msg_s;       /* per message, at the sender and at the receiver */
    double cpu_send_pkt_s;  /* per packet written by the sender */
    double cpu_recv_pkt_s;  /* per packet read by the receiver */
    double cpu_reduce_byte_s; /* per byte combined by a reduction (gamma) */
} torus_timed_params;

typedef struct torus_timed torus_timed;

/* The map must outlive the transport.  NULL on out of memory or a bad
 * parameter (cap or outstanding < 1, link_bw <= 0). */
torus_timed *torus_timed_create(const torus_map *m, const torus_timed_params *p);
void torus_timed_destroy(torus_timed *t);
/* The transport of virtual rank r. */
void torus_timed_bind(torus_timed *t, int r, torus_transport *tp);

/* CPU seconds the message interface charged rank r (sends, receives,
 * reductions) since the last call; the step function adds them to its cost. */
double torus_timed_take_cpu(torus_timed *t, int r);
/* Rank r's clock, CPU work charged in its current step included. */
double torus_timed_clock(const torus_timed *t, int r);
/* Message requests of rank r not yet completed and tested. */
int torus_timed_open_requests(const torus_timed *t, int r);

/* One step of rank r at time `now` (its clock): the caller runs its
 * algorithm's step over rank r's transport and says how much CPU time it
 * took in *cpu_s.  Returns TORUS_TIMED_IDLE when nothing moved,
 * TORUS_TIMED_MOVED, or TORUS_TIMED_DONE when rank r has finished. */
enum { TORUS_TIMED_IDLE = 0, TORUS_TIMED_MOVED = 1, TORUS_TIMED_DONE = 2 };
typedef int (*torus_timed_step_fn)(void *ctx, int r, double now, double *cpu_s);

#define TORUS_TIMED_FILL_BINS 4
/* Where the time goes over an interval [t0, t1] of the run (link and
 * packet figures: packet interface, zero for messages). */
typedef struct torus_timed_usage {
    double t0, t1;
    double link_busy_s;     /* link-seconds spent carrying packets */
    double link_util;       /* link_busy_s / (physical links * (t1 - t0)) */
    /* per dimension, busy / (t1 - t0) over its directed links */
    double dim_util_mean[TORUS_MAX_DIMS], dim_util_max[TORUS_MAX_DIMS];
    int hot_rank, hot_dim, hot_dir; /* the busiest directed link: from rank, dimension, 0 = + */
    double hot_util;
    /* rank-seconds idle before all ranks finished: with a send slot refused
     * in the idle step (blocked), or with nothing to do (waiting) */
    double blocked_s, waiting_s;
    uint64_t packets, words;
    double wire_bytes;      /* bytes put on first links, framing included */
    /* packets by fill (words / cap): <= 1/4, <= 1/2, <= 3/4, <= 1 */
    uint64_t fill_hist[TORUS_TIMED_FILL_BINS];
} torus_timed_usage;

typedef struct torus_timed_stats {
    double makespan;        /* the last rank's finishing time */
    uint64_t recvs, steps;
    int unfinished;         /* ranks that never finished (stuck machine) */
    torus_timed_usage run;  /* the whole run, [0, makespan] */
    /* the same between the two marks (torus_timed_mark), or the whole run
     * when they were not both set */
    torus_timed_usage window;
} torus_timed_stats;

/* Bytes one send of n words puts on each link of its path (packet
 * interface): the packets it is cut into, each header + payload rounded
 * up to whole chunks, plus the link overhead per packet; *npk gets the
 * number of packets (may be NULL).  8n + header_bytes when the format is
 * all 0. */
double torus_timed_wire_bytes(const torus_timed_params *p, int n, int *npk);

/* Records the usage counters at time t (the step function's now + cost)
 * as the start (which = 0) or end (1) of the window torus_timed_run
 * reports beside the whole run: a run's start and drain can take longer
 * than its steady part, and a steady rate is explained by what happened
 * while it held.  -1 on out of memory or a bad `which`. */
int torus_timed_mark(torus_timed *t, int which, double time);

/* Runs every rank to completion: the rank with the smallest clock steps
 * next, so when it polls at time t nothing can still arrive before t; an
 * idle rank sleeps until its next arrival or slot release, or until
 * somebody sends to it.  Returns 0, or -1 when ranks are left that can
 * never move again (st->unfinished says how many). */
int torus_timed_run(torus_timed *t, torus_timed_step_fn step, void *ctx, torus_timed_stats *st);

#endif
